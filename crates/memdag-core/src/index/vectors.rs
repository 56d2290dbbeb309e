//! The vector index of a store: its fixed dimension, the HNSW graph, and exact scans.
//!
//! The first embedding fixes the dimension (persisted with the store's counters); any other
//! length is an [`Error::InvalidInput`]. Vectors are stored as given, each with its inverse
//! norm, and this is the store's only copy of them: records in a store hold none (see
//! [`crate::Store::embedding`]). A query is normalized. A query without filters
//! walks the graph. A query with filters counts the records that pass: when they are few (at
//! most [`EXACT_LIMIT`] or a tenth of the store) it scans them exactly, otherwise it walks the
//! graph keeping only passing nodes, and falls back to the exact scan if that found too few.

use std::borrow::Cow;
use std::format;
use std::vec::Vec;

use super::distance::{check_storable, inverse_norm, normalized};
use super::hnsw::{Hnsw, HnswParams};
use super::topk::TopK;
use super::vecstore::Query;
use super::vecstore::{Precision, VectorSettings};
use super::walk::Near;
use crate::error::{Error, Result};
use memdag_types::Slot;

/// Filtered queries over at most this many records scan them exactly.
pub const EXACT_LIMIT: usize = 4096;
const NONE: u32 = u32::MAX;

/// The vectors of a store and their graph.
#[derive(Debug, Default)]
pub struct VectorIndex {
    pub(super) hnsw: Hnsw,
    pub(super) node_slot: Vec<Slot>,
    slot_node: Vec<u32>,
    settings: VectorSettings,
}

impl VectorIndex {
    /// The dimension of the store's vectors, 0 before the first one.
    pub fn dimension(&self) -> usize {
        self.hnsw.dim
    }

    /// Fixes the dimension of an empty index (from the persisted meta).
    pub fn set_dimension(&mut self, dim: usize) {
        if self.hnsw.capacity() == 0 {
            self.hnsw = Hnsw::new(dim, HnswParams::default(), self.settings);
        }
    }

    /// The precision the vectors are kept at (see [`Precision`]).
    pub fn precision(&self) -> Precision {
        self.settings.precision
    }

    /// How the vectors are kept (see [`VectorSettings`]).
    pub fn settings(&self) -> VectorSettings {
        self.settings
    }

    /// Keeps the vectors as `settings` say from now on (see
    /// [`NodeVectors::set_settings`](super::vecstore::NodeVectors::set_settings)).
    pub fn set_settings(&mut self, settings: VectorSettings) {
        self.settings = settings;
        self.hnsw.vecs.set_settings(settings);
    }

    /// The trained int8 steps, once trained (persisted with the store).
    pub fn steps(&self) -> Option<&[f32]> {
        self.hnsw.vecs.quantizer().map(|q| q.steps())
    }

    /// The codes of a slot's vector and its given vector's inverse norm, when the vectors are
    /// kept as codes only (what a segment stores then).
    pub fn codes(&self, slot: Slot) -> Option<(&[i8], f32)> {
        let n = self.node_of(slot)?;
        if self.hnsw.vecs.has_f32() {
            return None;
        }
        self.hnsw.vecs.codes(n)
    }

    /// Number of live vectors.
    pub fn len(&self) -> usize {
        self.hnsw.len()
    }

    /// Whether the index holds no live vector.
    pub fn is_empty(&self) -> bool {
        self.hnsw.is_empty()
    }

    /// Approximate heap bytes held by the vectors and the graph.
    pub fn heap_bytes(&self) -> usize {
        self.heap_parts().iter().map(|p| p.1).sum()
    }

    /// [`VectorIndex::heap_bytes`] by part: the vectors (f32 and/or codes, with their norms),
    /// the graph's links (layer 0's fixed `2·M` slots and count, the upper layers' lists), and
    /// the node table (key, level, slot ↔ node).
    pub fn heap_parts(&self) -> [(&'static str, usize); 3] {
        let h = &self.hnsw;
        let n = h.capacity();
        [
            ("vectors", n * h.vecs.bytes_per_node()),
            (
                "graph links",
                n * (h.params.m * 2 * 4 + 1) + h.upper_bytes(),
            ),
            ("graph nodes", n * (8 + 1 + 4) + self.slot_node.len() * 4),
        ]
    }

    /// Checks a query's embedding against the store's dimension and returns it normalized.
    pub fn prepare(&self, embedding: &[f32]) -> Result<Vec<f32>> {
        self.check_dimension(embedding)?;
        normalized(embedding)
    }

    /// Checks that a record's embedding can be stored: the store's dimension, and a norm that
    /// is neither zero nor too large.
    pub fn check(&self, embedding: &[f32]) -> Result<()> {
        self.check_dimension(embedding)?;
        check_storable(embedding).map(drop)
    }

    fn check_dimension(&self, embedding: &[f32]) -> Result<()> {
        let dim = self.dimension();
        if dim != 0 && embedding.len() != dim {
            return Err(Error::invalid(format!(
                "embedding has {} dimensions, this store's vectors have {dim}",
                embedding.len()
            )));
        }
        Ok(())
    }

    /// The vector of a slot: as the host gave it, or at [`Precision::Int8`] what its codes
    /// stand for, at the norm the host gave it.
    pub fn vector(&self, slot: Slot) -> Option<Cow<'_, [f32]>> {
        self.node_of(slot).map(|n| self.hnsw.vector(n))
    }

    /// The node of a slot, if it has a vector.
    pub fn node_of(&self, slot: Slot) -> Option<u32> {
        self.slot_node
            .get(slot as usize)
            .copied()
            .filter(|&n| n != NONE)
    }

    /// Makes room to bind `slots` slots and `nodes` nodes, so that a restore grows nothing
    /// (see [`crate::room`]).
    pub(super) fn reserve_bindings(&mut self, slots: usize, nodes: usize) -> Result<()> {
        let more = slots.saturating_sub(self.slot_node.len());
        crate::room::reserve(&mut self.slot_node, more, "its graph's nodes")?;
        let more = nodes.saturating_sub(self.node_slot.len());
        crate::room::reserve(&mut self.node_slot, more, "its graph's nodes")
    }

    pub(super) fn bind(&mut self, slot: Slot, node: u32) {
        if self.slot_node.len() <= slot as usize {
            self.slot_node.resize(slot as usize + 1, NONE);
        }
        self.slot_node[slot as usize] = node;
        if self.node_slot.len() <= node as usize {
            self.node_slot.resize(node as usize + 1, 0);
        }
        self.node_slot[node as usize] = slot;
    }

    /// Adds the vector of the record in `slot` (sequence number `key`), which [`Self::check`]
    /// accepted (else nothing is added). Returns the nodes whose links changed, the new node
    /// first.
    pub fn add(&mut self, slot: Slot, key: u64, vector: &[f32]) -> Vec<u32> {
        let dim = self.dimension();
        let Some(inv_norm) = inverse_norm(vector).filter(|_| dim == 0 || vector.len() == dim)
        else {
            return Vec::new();
        };
        if self.hnsw.dim == 0 {
            self.hnsw = Hnsw::new(vector.len(), HnswParams::default(), self.settings);
        }
        let node = self.hnsw.insert(key, vector, inv_norm);
        self.bind(slot, node);
        let mut touched = vec![node];
        for lc in 0..=self.hnsw.levels[node as usize] {
            touched.extend(self.hnsw.links(node, lc).iter().copied());
        }
        touched
    }

    /// Removes the vector of `slot`, if it has one. It is never returned again. Returns the
    /// removed node and the nodes whose links were repaired.
    pub fn remove(&mut self, slot: Slot) -> Option<(u32, Vec<u32>)> {
        let node = self.node_of(slot)?;
        self.slot_node[slot as usize] = NONE;
        Some((node, self.hnsw.delete(node)))
    }

    /// Removes the vectors of `slots` at once (see [`Hnsw::delete_many`]). Returns the nodes
    /// whose links were repaired.
    pub fn remove_many(&mut self, slots: &[Slot]) -> Vec<u32> {
        let mut nodes = Vec::with_capacity(slots.len());
        for &slot in slots {
            if let Some(node) = self.node_of(slot) {
                self.slot_node[slot as usize] = NONE;
                nodes.push(node);
            }
        }
        self.hnsw.delete_many(&nodes)
    }

    /// The slot of a live node.
    pub fn slot_of_node(&self, node: u32) -> Option<Slot> {
        if self.hnsw.is_live(node) {
            self.node_slot.get(node as usize).copied()
        } else {
            None
        }
    }

    /// Number of node ids handed out, live and deleted.
    pub fn node_capacity(&self) -> usize {
        self.hnsw.capacity()
    }

    /// The cosine similarity of a normalized query to the vector of `slot`.
    pub fn similarity(&self, slot: Slot, q: &[f32]) -> Option<f32> {
        self.similarity_to(slot, &self.query(q))
    }

    /// A normalized query made ready for [`VectorIndex::similarity_to`], for scoring many
    /// slots against one query (at int8, a query is folded with the steps once).
    pub fn query<'a>(&self, q: &'a [f32]) -> Query<'a> {
        self.hnsw.query(q)
    }

    /// The cosine similarity of a query to the vector of `slot`.
    pub fn similarity_to(&self, slot: Slot, q: &Query) -> Option<f32> {
        let n = self.node_of(slot)?;
        Some(self.hnsw.similarity(q, n))
    }

    /// The `k` most similar slots passing `keep`, as (slot, cosine similarity), best first.
    /// `filtered` says whether `keep` may reject many (it picks the strategy: an exact scan of
    /// what passes when that is little, else a filtered graph walk).
    pub fn search(
        &self,
        q: &[f32],
        k: usize,
        ef: usize,
        filtered: bool,
        keep: &dyn Fn(Slot) -> bool,
    ) -> Vec<(Slot, f32)> {
        if self.is_empty() || k == 0 || q.len() != self.dimension() {
            return Vec::new();
        }
        let query = self.hnsw.query(q);
        let q = &query;
        let found = if filtered {
            let allowed: Vec<u32> = (0..self.hnsw.capacity() as u32)
                .filter(|&n| self.hnsw.is_live(n) && keep(self.node_slot[n as usize]))
                .collect();
            if allowed.len() <= EXACT_LIMIT || allowed.len() * 10 <= self.len() {
                self.scan(q, k, allowed.into_iter())
            } else {
                let keep_node = |n: u32| keep(self.node_slot[n as usize]);
                let hits = self.hnsw.search(q, k, ef.max(k) * 2, &keep_node);
                if hits.len() < k.min(allowed.len()) {
                    self.scan(q, k, allowed.into_iter())
                } else {
                    hits
                }
            }
        } else {
            // Nearly everything passes (dead slots, inactive items aside): filter in the walk.
            let keep_node = |n: u32| keep(self.node_slot[n as usize]);
            self.hnsw.search(q, k, ef.max(k), &keep_node)
        };
        found
            .into_iter()
            .map(|n| (self.node_slot[n.node as usize], 1.0 - n.dist))
            .collect()
    }

    /// Exact nearest nodes among `nodes`.
    fn scan(&self, q: &Query, k: usize, nodes: impl Iterator<Item = u32>) -> Vec<Near> {
        let mut top = TopK::new(k);
        for n in nodes {
            // TopK keeps the greatest; negate the distance, ties to the lower node.
            top.push(n, self.hnsw.similarity(q, n) - 1.0);
        }
        top.into_sorted()
            .into_iter()
            .map(|s| Near {
                dist: -s.score,
                node: s.doc,
            })
            .collect()
    }

    /// Exact search over every live vector (the reference for recall measurements).
    pub fn exact(&self, q: &[f32], k: usize) -> Vec<(Slot, f32)> {
        let live = (0..self.hnsw.capacity() as u32).filter(|&n| self.hnsw.is_live(n));
        self.scan(&self.hnsw.query(q), k, live)
            .into_iter()
            .map(|n| (self.node_slot[n.node as usize], 1.0 - n.dist))
            .collect()
    }
}
