//! The vectors of a graph's nodes, at the store's precision: `f32` as the host gave them,
//! int8 codes ([`super::quant`]), or both.
//!
//! - [`Precision::F32`]: each node's vector as given and its inverse norm; walks and scores
//!   are exact.
//! - [`Precision::Int8`]: each node's int8 codes (of its unit vector), the inverse norm of
//!   what the codes stand for, and the given vector's inverse norm (so [`NodeVectors::vector`]
//!   can give back a vector of the given norm): `dim + 8` bytes a node instead of `4·dim + 4`.
//!   Walks and scores use the codes; the `f32` vectors are not kept.
//! - [`Precision::Int8Exact`]: both; walks use the codes, and the candidates a search returns
//!   are re-scored exactly from the `f32` vectors.
//!
//! [`Precision::Int8`] is the default: at 384-d it keeps a vector in 392 bytes instead of
//! 1,540, and walks faster, for a raw recall@10 of about 0.98 where `f32` finds the exact ten;
//! hybrid recall on LoCoMo's dev conversations does not move (issue 28's note has the runs).
//! A store that never stated its settings (every store written before int8 became the default)
//! keeps [`VectorSettings::F32`]: see [`VectorSettings::unstated`].
//!
//! Codes need steps trained on the store's own vectors, so an index at an int8 precision keeps
//! `f32` vectors until it holds [`VectorSettings::train`] of them (default [`TRAIN`]), then
//! trains on those (in node order) and quantizes every node. The steps never change after that,
//! even if the precision goes back to `f32` (codes on disk stay readable; the store persists
//! them in its commit); a later vector outside their range saturates.

use std::borrow::Cow;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use super::distance::{dot, scaled_similarity};
use super::quant::{dot_codes, Quantizer, QueryCodes};
use super::rows::Rows;
use crate::room;

/// How many vectors train the steps.
pub const TRAIN: usize = 1024;

/// Bytes of a node's walk form [`NodeVectors::touch_all`] reads ahead.
const TOUCHED_BYTES: usize = 384;

/// How a store keeps its vectors: its precision, and how many vectors train the int8 steps.
/// Persisted with the store (in its commit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct VectorSettings {
    pub precision: Precision,
    /// At an int8 precision, the vectors stay `f32` until this many are in, and the steps are
    /// trained on them (at least 1; default [`TRAIN`]).
    pub train: u32,
}

impl Default for VectorSettings {
    fn default() -> Self {
        VectorSettings {
            precision: Precision::default(),
            train: TRAIN as u32,
        }
    }
}

impl VectorSettings {
    /// Every vector kept as `f32`, as given: exact scores, four times the bytes of int8.
    pub const F32: VectorSettings = VectorSettings {
        precision: Precision::F32,
        train: TRAIN as u32,
    };

    /// What a store whose commit states no settings keeps: [`VectorSettings::F32`], the
    /// default when it was written. A commit leaves these out (so an `f32` store's commit is
    /// the bytes it always was) and states any other, the default among them.
    pub fn unstated() -> Self {
        VectorSettings::F32
    }

    /// Whether these are [`VectorSettings::unstated`] (which a commit leaves out).
    pub fn is_unstated(&self) -> bool {
        *self == VectorSettings::unstated()
    }
}

/// How a store keeps its vectors in memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Precision {
    /// `f32` only (exact).
    #[serde(rename = "f32")]
    F32,
    /// int8 codes only (the default): a quarter of the bytes, scores off by the quantization.
    #[default]
    #[serde(rename = "int8")]
    Int8,
    /// int8 codes for the walk, `f32` kept to re-score the results exactly.
    #[serde(rename = "int8+f32")]
    Int8Exact,
}

impl Precision {
    fn keeps_f32(self) -> bool {
        self != Precision::Int8
    }

    /// Whether vectors at this precision have int8 codes.
    pub(crate) fn quantizes(self) -> bool {
        self != Precision::F32
    }
}

/// A unit query, with its folded form when the nodes have codes.
#[derive(Debug)]
pub struct Query<'a> {
    pub unit: &'a [f32],
    codes: Option<QueryCodes>,
}

/// A node measured against many others (see [`NodeVectors::set_base`]); its buffers are
/// reused from base to base.
#[derive(Debug, Default)]
pub struct NodeBase {
    node: u32,
    unit: Vec<f32>,
    codes: QueryCodes,
}

/// Empty rows for codes of `dim` dimensions, as [`NodeVectors`] keeps them.
pub fn code_rows(dim: usize) -> Rows<i8> {
    Rows::new(dim, "a page of its int8 vectors")
}

/// The vectors of the nodes, by node id.
#[derive(Debug, Default, Clone)]
pub struct NodeVectors {
    dim: usize,
    settings: VectorSettings,
    nodes: usize,
    /// Each node's vector as given, `dim` floats apiece (empty unless kept).
    f32s: Vec<f32>,
    /// Each node's inverse norm, in an array of its own: interleaved after each vector it
    /// cost every distance a cache line more, and a query at 100k ran slower for it
    /// (memdag-bench --only vector, alternated builds, 2026-12-02).
    inv_norms: Vec<f32>,
    /// The trained steps: kept once trained, whatever the precision.
    quant: Option<Quantizer>,
    /// Each node's codes, `dim` apiece (empty until trained, and at [`Precision::F32`]), in
    /// pages ([`Rows`]: no one allocation the size of them all).
    codes: Rows<i8>,
    /// The inverse norm of what each node's codes stand for.
    code_inv: Vec<f32>,
}

impl NodeVectors {
    /// No nodes, of `dim` floats each.
    pub fn new(dim: usize, settings: VectorSettings) -> Self {
        NodeVectors {
            dim,
            settings,
            codes: code_rows(dim),
            ..Default::default()
        }
    }

    /// The settings asked for (the nodes keep `f32` until `train` of them are in).
    pub fn settings(&self) -> VectorSettings {
        self.settings
    }

    /// The trained steps, if any.
    pub fn quantizer(&self) -> Option<&Quantizer> {
        self.quant.as_ref()
    }

    /// Whether the nodes have codes (and walks use them).
    pub fn has_codes(&self) -> bool {
        self.quant.is_some() && self.settings.precision.quantizes()
    }

    /// Whether the `f32` vectors are kept.
    pub fn has_f32(&self) -> bool {
        !self.has_codes() || self.settings.precision.keeps_f32()
    }

    /// Makes room for `nodes` more nodes; for their codes too unless they come in a pool
    /// ([`NodeVectors::adopt_codes`]). Fails with [`crate::Error::Storage`] when the memory
    /// refuses it (an open's, see `crate::room`), having reserved part of it at most.
    pub fn reserve(&mut self, nodes: usize, pooled: bool) -> crate::Result<()> {
        let values = nodes.saturating_mul(self.dim);
        room::reserve(&mut self.inv_norms, nodes, "its vectors' norms")?;
        if self.has_f32() {
            room::reserve(&mut self.f32s, values, "its f32 vectors")?;
        }
        if self.has_codes() {
            if !pooled {
                self.codes.try_reserve(nodes)?;
            }
            room::reserve(&mut self.code_inv, nodes, "its int8 vectors' norms")?;
        }
        Ok(())
    }

    /// Appends a node's vector of `dim` floats with its inverse norm.
    pub fn push(&mut self, vector: &[f32], inv_norm: f32) {
        self.nodes += 1;
        super::reserve_eighth(&mut self.inv_norms, 1);
        self.inv_norms.push(inv_norm);
        if self.has_f32() {
            super::reserve_eighth(&mut self.f32s, vector.len());
            self.f32s.extend_from_slice(vector);
        }
        if self.has_codes() {
            let q = self.quant.as_ref().expect("codes have steps");
            let unit: Vec<f32> = vector.iter().map(|x| x * inv_norm).collect();
            self.codes.push_with(|page| q.quantize(&unit, page));
            super::reserve_eighth(&mut self.code_inv, 1);
            self.code_inv
                .push(q.inverse_norm(self.codes.row(self.codes.len() - 1)));
        } else if self.settings.precision.quantizes()
            && self.quant.is_none()
            && self.nodes >= self.settings.train.max(1) as usize
        {
            self.train();
        }
    }

    /// Appends a node stored as codes (under this index's steps) with the inverse norm of
    /// its given vector. At a precision that keeps `f32`, the `f32` vector kept is what the
    /// codes stand for.
    pub fn push_codes(&mut self, codes: &[i8], inv_norm: f32) {
        self.push_coded(codes, inv_norm, true);
    }

    /// As [`NodeVectors::push_codes`], but the codes themselves are set later, with the
    /// others of a pool ([`NodeVectors::adopt_codes`]); until then no distance to the node
    /// may be measured.
    pub fn push_codes_from_pool(&mut self, codes: &[i8], inv_norm: f32) {
        self.push_coded(codes, inv_norm, false);
    }

    fn push_coded(&mut self, codes: &[i8], inv_norm: f32, keep_codes: bool) {
        let q = self.quant.as_ref().expect("codes need steps");
        debug_assert_eq!(codes.len(), self.dim);
        let code_inv = q.inverse_norm(codes);
        if self.has_f32() {
            let mut v = Vec::with_capacity(self.dim);
            q.dequantize(codes, &mut v);
            let scale = code_inv / inv_norm;
            self.f32s.extend(v.iter().map(|x| x * scale));
        }
        if self.has_codes() {
            if keep_codes {
                self.codes.push(codes);
            }
            self.code_inv.push(code_inv);
        }
        self.inv_norms.push(inv_norm);
        self.nodes += 1;
    }

    /// Sets the codes of the nodes pushed so far from a pool of rows of `dim` codes: node
    /// `n`'s are row `rows[n]`, or, for `u32::MAX`, the next of those pushed with their codes
    /// ([`NodeVectors::push_codes`]). When every node's codes are in the pool and no row is
    /// named twice, the pool becomes the nodes' codes, reordered in place: an open so holds
    /// the stored codes once, not twice (see `storage::owned`). Otherwise they are copied.
    pub fn adopt_codes(&mut self, mut pool: Rows<i8>, rows: &[u32]) {
        let dim = self.dim;
        if !self.has_codes() || dim == 0 || rows.len() != self.nodes || pool.dim() != dim {
            return;
        }
        if self.codes.is_empty() && gather_rows(&mut pool, rows) {
            pool.truncate_and_shrink(rows.len());
            self.codes = pool;
            return;
        }
        let pushed = core::mem::replace(&mut self.codes, code_rows(dim));
        let mut pushed_rows = pushed.iter();
        let mut codes = code_rows(dim);
        for &r in rows {
            let row = match r {
                u32::MAX => pushed_rows.next(),
                r => pool.get(r as usize),
            };
            match row {
                Some(row) => codes.push(row),
                None => return,
            }
        }
        self.codes = codes;
    }

    /// Sets steps read from storage on an index without nodes (steps are never replaced).
    pub fn set_steps(&mut self, steps: Vec<f32>) {
        if self.nodes == 0 && steps.len() == self.dim && self.quant.is_none() {
            self.quant = Some(Quantizer::from_steps(steps));
        }
    }

    /// A node's codes and the inverse norm of its given vector, when the nodes have codes.
    pub fn codes(&self, node: u32) -> Option<(&[i8], f32)> {
        self.has_codes()
            .then(|| (self.codes_of(node as usize), self.inv_norms[node as usize]))
    }

    /// Trains the steps on the first `train` nodes and quantizes every node.
    fn train(&mut self) {
        let dim = self.dim;
        let sample_nodes = self.nodes.min(self.settings.train.max(1) as usize);
        let units: Vec<Vec<f32>> = (0..sample_nodes)
            .map(|n| {
                self.f32_of(n)
                    .iter()
                    .map(|x| x * self.inv_norms[n])
                    .collect()
            })
            .collect();
        self.set_quantizer(Quantizer::train(dim, units.iter().map(Vec::as_slice)));
    }

    /// Takes `q` as the steps and quantizes every node with it, dropping the `f32` vectors
    /// unless they are kept. The nodes hold `f32` vectors.
    fn set_quantizer(&mut self, q: Quantizer) {
        self.quant = Some(q);
        if !self.has_codes() {
            return;
        }
        let q = self.quant.as_ref().expect("just set");
        let mut codes = code_rows(self.dim);
        let mut code_inv = Vec::with_capacity(self.nodes);
        let mut unit = Vec::with_capacity(self.dim);
        for n in 0..self.nodes {
            unit.clear();
            unit.extend(self.f32_of(n).iter().map(|x| x * self.inv_norms[n]));
            codes.push_with(|page| q.quantize(&unit, page));
            code_inv.push(q.inverse_norm(codes.row(n)));
        }
        self.codes = codes;
        self.code_inv = code_inv;
        if !self.has_f32() {
            self.f32s = Vec::new();
        }
    }

    /// Changes the settings. Going to an int8 precision trains at once when `train` nodes are
    /// in (or quantizes with the steps trained before). Vectors dropped earlier cannot come
    /// back: leaving [`Precision::Int8`] keeps what the codes stand for.
    pub fn set_settings(&mut self, settings: VectorSettings) {
        let old = self.settings;
        if settings == old {
            return;
        }
        let had_codes = self.has_codes();
        let had_f32 = self.has_f32();
        if had_codes && !had_f32 && settings.precision.keeps_f32() {
            let mut f32s = Vec::with_capacity(self.nodes * self.dim);
            for n in 0..self.nodes {
                f32s.extend_from_slice(&self.vector(n as u32));
            }
            self.f32s = f32s;
        }
        self.settings = settings;
        if !settings.precision.quantizes() {
            self.codes = code_rows(self.dim);
            self.code_inv = Vec::new();
        } else if let (false, Some(q)) = (had_codes, self.quant.clone()) {
            self.set_quantizer(q);
        } else if self.quant.is_none() && self.nodes >= settings.train.max(1) as usize {
            self.train();
        } else if !self.has_f32() {
            self.f32s = Vec::new();
        }
    }

    fn f32_of(&self, node: usize) -> &[f32] {
        let at = node * self.dim;
        &self.f32s[at..at + self.dim]
    }

    #[inline]
    fn codes_of(&self, node: usize) -> &[i8] {
        self.codes.row(node)
    }

    /// A node's vector: as given when kept, else what its codes stand for, at the given norm.
    pub fn vector(&self, node: u32) -> Cow<'_, [f32]> {
        let n = node as usize;
        if self.has_f32() {
            return Cow::Borrowed(self.f32_of(n));
        }
        let q = self.quant.as_ref().expect("codes without f32");
        let mut out = Vec::with_capacity(self.dim);
        q.dequantize(self.codes_of(n), &mut out);
        let scale = self.code_inv[n] / self.inv_norms[n];
        out.iter_mut().for_each(|x| *x *= scale);
        Cow::Owned(out)
    }

    /// The inverse norm of a node's given vector.
    pub fn inv_norm(&self, node: u32) -> f32 {
        self.inv_norms[node as usize]
    }

    /// A unit query, folded for the codes when there are any.
    pub fn query<'a>(&self, unit: &'a [f32]) -> Query<'a> {
        let codes = self.quant.as_ref().filter(|_| self.has_codes()).map(|q| {
            let mut c = QueryCodes::default();
            q.query_into(unit, &mut c);
            c
        });
        Query { unit, codes }
    }

    /// The cosine distance of a query to a node, as walks measure it: from the codes when
    /// there are any. The hot path of every walk.
    #[inline]
    pub fn walk_distance(&self, q: &Query, node: u32) -> f32 {
        match &q.codes {
            Some(c) => {
                let n = node as usize;
                let d = dot_codes(&c.q16, self.codes_of(n));
                1.0 - d as f32 * c.factor * self.code_inv[n]
            }
            None => 1.0 - self.exact_similarity(q.unit, node),
        }
    }

    /// The cosine similarity of a query to a node, as exact as what is kept allows.
    #[inline]
    pub fn similarity(&self, q: &Query, node: u32) -> f32 {
        if self.has_f32() {
            self.exact_similarity(q.unit, node)
        } else {
            1.0 - self.walk_distance(q, node)
        }
    }

    /// Whether the walk's distances are approximate while exact ones can be had.
    pub fn rescores(&self) -> bool {
        self.has_codes() && self.has_f32()
    }

    /// The cosine similarity of a unit vector to a node's `f32` vector, which must be kept.
    /// It needs no overflow guard: `|dot(q, v)| ≤ ‖v‖ ≤`
    /// [`MAX_NORM`](super::distance::MAX_NORM), and so is every partial sum.
    #[inline]
    fn exact_similarity(&self, q: &[f32], node: u32) -> f32 {
        dot(q, self.f32_of(node as usize)) * self.inv_norms[node as usize]
    }

    /// The cosine distance between two nodes: exact when `f32` is kept (and then scaled
    /// first if the dot product overflows), else from the codes.
    #[inline]
    pub fn node_distance(&self, a: u32, b: u32) -> f32 {
        let (a, b) = (a as usize, b as usize);
        if self.has_f32() {
            let (ia, ib) = (self.inv_norms[a], self.inv_norms[b]);
            return 1.0 - scaled_similarity(self.f32_of(a), ia, self.f32_of(b), ib);
        }
        let q = self.quant.as_ref().expect("codes without f32");
        let d = q.dot_pair(self.codes_of(a), self.codes_of(b));
        1.0 - d * self.code_inv[a] * self.code_inv[b]
    }

    /// Makes `a` the base of [`NodeVectors::base_distance`]: with codes only, its unit vector
    /// is folded once like a query, so each distance from it is an integer dot product (the
    /// graph's inserts and repairs measure one node against many).
    pub fn set_base(&self, a: u32, base: &mut NodeBase) {
        base.node = a;
        if self.has_f32() {
            return;
        }
        let q = self.quant.as_ref().expect("codes without f32");
        base.unit.clear();
        q.dequantize(self.codes_of(a as usize), &mut base.unit);
        let inv = self.code_inv[a as usize];
        base.unit.iter_mut().for_each(|x| *x *= inv);
        q.query_into(&base.unit, &mut base.codes);
    }

    /// The cosine distance between the base node and `b`: [`NodeVectors::node_distance`],
    /// within the query's rounding when the nodes have codes only.
    #[inline]
    pub fn base_distance(&self, base: &NodeBase, b: u32) -> f32 {
        if self.has_f32() {
            return self.node_distance(base.node, b);
        }
        let d = dot_codes(&base.codes.q16, self.codes_of(b as usize));
        1.0 - d as f32 * base.codes.factor * self.code_inv[b as usize]
    }

    /// Reads one byte of each of the first cache lines of the walk form of each of `nodes`
    /// (all of a 384-d node's codes), all before any of them is scored: the reads do not
    /// depend on one another, so their cache misses overlap instead of coming one at a time as
    /// each node is scored (wasm has no prefetch). At most `TOUCHED_BYTES` a node: touching
    /// all of 32 nodes' `f32` vectors (48 KB at 384-d) pushed them out of L1 again before they
    /// were scored, and made f32 walks slower.
    #[inline]
    pub fn touch_all(&self, nodes: &[u32]) {
        self.touch_form(nodes, !self.has_codes());
    }

    /// [`NodeVectors::touch_all`] for the form [`NodeVectors::base_distance`] reads: the `f32`
    /// vectors where they are kept (at int8+f32 a walk reads the codes, a base the `f32`s).
    #[inline]
    pub fn touch_all_for_base(&self, nodes: &[u32]) {
        self.touch_form(nodes, self.has_f32());
    }

    /// Touches the rows of `nodes` in the `f32` vectors, or else in the codes.
    #[inline]
    fn touch_form(&self, nodes: &[u32], f32s: bool) {
        let acc = if f32s {
            let dim = self.dim;
            touch_rows(
                nodes,
                |n| self.f32s.get(n * dim..(n + 1) * dim),
                |x| x.to_bits() as u8,
            )
        } else {
            touch_rows(nodes, |n| self.codes.get(n), |&c| c as u8)
        };
        core::hint::black_box(acc);
    }

    /// Bytes a node's vector takes.
    pub fn bytes_per_node(&self) -> usize {
        let mut b = 4;
        if self.has_f32() {
            b += self.dim * 4;
        }
        if self.has_codes() {
            b += self.dim + 4;
        }
        b
    }
}

/// One byte of each cache line of the first [`TOUCHED_BYTES`] of each of `nodes`' rows (`row`
/// gives node `n`'s), folded into one so that no read is dead; rows past the end are skipped.
#[inline]
fn touch_rows<'a, T: 'a>(
    nodes: &[u32],
    row: impl Fn(usize) -> Option<&'a [T]>,
    byte: impl Fn(&T) -> u8,
) -> u8 {
    const LINE: usize = 64;
    let size = core::mem::size_of::<T>().max(1);
    let mut acc = 0u8;
    for &n in nodes {
        if let Some(row) = row(n as usize) {
            let len = row.len().min(TOUCHED_BYTES / size);
            for x in row[..len].iter().step_by(LINE / size) {
                acc ^= byte(x);
            }
        }
    }
    acc
}

/// Reorders `pool` in place so that row `n` holds what row `rows[n]` held, for every `n` (the
/// rows past `rows.len()` end in any order; see [`crate::sort::gather_by`]). False, with
/// `pool` unchanged, when `rows` names a row twice or one past the pool, or the memory
/// refuses the order (the codes are then copied).
fn gather_rows(pool: &mut Rows<i8>, rows: &[u32]) -> bool {
    let picked = rows.iter().map(|&r| r as usize);
    crate::sort::gather_by(pool.len(), picked, |a, b| pool.swap(a, b)).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Touching reads only what is there: ids past the end, as a walk may hold for a node
    /// deleted and compacted away, are skipped, at either form.
    #[test]
    fn touch_all_skips_ids_past_the_end_at_either_form() {
        for precision in [Precision::F32, Precision::Int8] {
            let mut vecs = NodeVectors::new(
                70,
                VectorSettings {
                    precision,
                    train: 2,
                },
            );
            for i in 0..3 {
                let v: Vec<f32> = (0..70).map(|d| ((d + i) % 5) as f32 - 2.0).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                vecs.push(&v, 1.0 / norm);
            }
            assert_eq!(vecs.has_codes(), precision == Precision::Int8);
            vecs.touch_all(&[0, 2, 1, 3, 1000, u32::MAX]);
            vecs.touch_all(&[]);
            vecs.touch_all_for_base(&[0, 2, 1, 3, 1000, u32::MAX]);
            vecs.touch_all_for_base(&[]);
        }
    }

    proptest::proptest! {
        /// Gathering rows in place puts in each place the row it names, whatever the order and
        /// however many rows no one names; a row named twice or past the pool is refused, the
        /// pool left as it was.
        #[test]
        fn rows_are_gathered_in_place(
            total in 0usize..40,
            dim_pick in 0usize..5,
            seed in proptest::prelude::any::<u64>(),
            taken in 0usize..40,
            twice in proptest::prelude::any::<bool>(),
        ) {
            // Narrow rows share a page; the widest take two a page, so rows move across pages.
            let dim = [1, 2, 3, 5, crate::index::rows::PAGE_BYTES / 2][dim_pick];
            // A seeded shuffle of 0..total, its first `taken` as the rows.
            let mut order: Vec<u32> = (0..total as u32).collect();
            let mut state = seed | 1;
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let mut rows: Vec<u32> = order.into_iter().take(taken.min(total)).collect();
            let flat: Vec<i8> = (0..total * dim).map(|i| ((i / dim) * 7 + i % 251) as i8).collect();
            let mut pool = code_rows(dim);
            pool.try_extend(&flat).unwrap();
            let read = |p: &Rows<i8>| p.iter().flatten().copied().collect::<Vec<i8>>();
            if twice && !rows.is_empty() {
                rows.push(rows[0]);
                let mut refused = pool.clone();
                proptest::prop_assert!(!gather_rows(&mut refused, &rows));
                proptest::prop_assert_eq!(read(&refused), flat);
                return Ok(());
            }
            let mut gathered = pool.clone();
            proptest::prop_assert!(gather_rows(&mut gathered, &rows));
            for (n, &r) in rows.iter().enumerate() {
                let r = r as usize;
                proptest::prop_assert_eq!(gathered.row(n), &flat[r * dim..(r + 1) * dim]);
            }
            let mut past = rows.clone();
            past.push(total as u32);
            proptest::prop_assert!(!gather_rows(&mut gathered.clone(), &past));
        }
    }
}
