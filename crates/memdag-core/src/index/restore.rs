//! Restoring the search indexes of a loaded store: graph links are stored, the rest is rebuilt.
//!
//! The storage engine ([`crate::storage`]) stores each vector-graph node as its sequence
//! number, level and links per layer, named by sequence number (stable across loads, unlike
//! node ids). This module turns a node back into links, and restores the graph from a
//! [`GraphSource`] without searching: measured natively at 100k records of 384-d vectors,
//! restoring took a fraction of a second against 50 s to rebuild the graph. The inverted index
//! is filled from the records' stored analyses where the caller has them (the storage engine
//! keeps them per segment chunk): in wasm, analyzing 100k records took 40% of opening a store.
//!
//! Loading is robust to any partial state: a link to an unknown node is dropped, and a record
//! whose node is missing or malformed is inserted anew (its node then counts as changed).
//! This module knows no byte format: it imports neither the codec nor the segments.

use std::collections::HashMap;
use std::vec::Vec;

use super::distance::inverse_norm;
use super::postings::{InvertedIndex, PendingPostings};
use super::SearchIndex;
use crate::record::Record;
use memdag_types::Slot;

/// Where a restore finds the stored graph nodes, by sequence number.
pub trait GraphSource {
    /// The stored level of the node of `seq`, if one is stored.
    fn level(&self, seq: u64) -> Option<u8>;
    /// Appends `(layer, linked seq)` for each stored link of the node of `seq` to `out`.
    /// One call a node fills a buffer, rather than a callback a link: the restore's inner loop
    /// then runs in one function, which a wasm engine optimizes as a whole.
    fn links(&self, seq: u64, out: &mut Vec<(u8, u64)>);
}

/// Where a restore finds the stored vectors, by slot.
pub trait VectorSource {
    /// How many slots have a vector (room is made for them first).
    fn count(&self) -> usize;
    /// Appends the stored vector of `slot` (holding `record`) to `out`; false if it has none.
    /// A vector stored as codes comes as what they stand for, at its given norm.
    fn read(&self, slot: Slot, record: &Record, out: &mut Vec<f32>) -> bool;
    /// The stored codes of `slot`'s vector and the inverse norm of the vector as given, when
    /// it is stored as codes (under [`VectorSource::steps`]).
    fn codes(&self, _slot: Slot) -> Option<(&[i8], f32)> {
        None
    }
    /// The int8 steps the stored codes are under.
    fn steps(&self) -> Option<&[f32]> {
        None
    }
    /// Whether the source keeps its codes in a pool of rows, `dim` codes each (see
    /// [`VectorSource::code_row`]).
    fn has_pool(&self) -> bool {
        false
    }
    /// The row of `slot`'s codes in the source's pool: a restore then takes the pool as the
    /// index's codes ([`super::vecstore::NodeVectors::adopt_codes`]) instead of copying them
    /// node by node, so that they are held once.
    fn code_row(&self, _slot: Slot) -> Option<u32> {
        None
    }
    /// The pool: taken (the source then has none, and reads no codes) or copied.
    fn pool(&mut self, _take: bool) -> Option<super::rows::Rows<i8>> {
        None
    }
}

impl SearchIndex {
    /// The level of a live node and its live links per layer, as sequence numbers.
    pub(crate) fn node_links(&self, node: u32) -> Option<(u64, u8, Vec<Vec<u64>>)> {
        let h = &self.vectors.hnsw;
        if !h.is_live(node) {
            return None;
        }
        let level = h.levels[node as usize];
        let links = (0..=level)
            .map(|lc| {
                h.links(node, lc)
                    .iter()
                    .filter(|&&x| h.is_live(x))
                    .map(|&x| h.keys[x as usize])
                    .collect()
            })
            .collect();
        Some((h.keys[node as usize], level, links))
    }

    /// The sequence number of a node (live or deleted).
    pub(crate) fn node_seq(&self, node: u32) -> u64 {
        self.vectors
            .hnsw
            .keys
            .get(node as usize)
            .copied()
            .unwrap_or(u64::MAX)
    }

    /// Builds the indexes of freshly loaded records (`slots`, in slot order): the text index
    /// from the stored analyses `stored_text` adds (true when it did, its postings held in the
    /// pending postings it is given, or flushed) or else from the records, starting from `text`
    /// (empty, or with the stored terms interned and room reserved), and the graph from
    /// `graph`, and the vectors, as stored, from `vectors`.
    /// Returns the nodes that had to be inserted anew (their stored form is missing or stale).
    #[inline(never)]
    pub(crate) fn restore(
        &mut self,
        slots: &[Option<Record>],
        dimension: usize,
        vectors: &mut dyn VectorSource,
        graph: &dyn GraphSource,
        text: InvertedIndex,
        stored_text: &mut dyn FnMut(Slot, &mut InvertedIndex, &mut PendingPostings) -> bool,
    ) -> crate::Result<Vec<u32>> {
        let mut idx = SearchIndex {
            auto_embed: self.auto_embed(),
            text,
            ..Default::default()
        };
        idx.vectors.set_settings(self.vectors.settings());
        if dimension > 0 {
            idx.vectors.set_dimension(dimension);
            if let Some(steps) = vectors.steps() {
                idx.vectors.hnsw.vecs.set_steps(steps.to_vec());
            }
        }
        let mut restored: Vec<u32> = Vec::new();
        let mut missing: Vec<(Slot, Vec<f32>)> = Vec::new();
        let pooled = vectors.has_pool() && idx.vectors.hnsw.vecs.has_codes();
        // The text first, over every record: the stored analyses it reads are freed as it
        // goes (an owned open's, see `storage::owned`), and so are the pending postings and
        // the lists' spare room once it ends, so that the graph's arrays, the largest the
        // restore makes, are sized after that memory is back, not beside it.
        // Sized first, as the arrays below (see there).
        idx.text.reserve_docs(slots.len())?;
        let mut pending = idx.text.reserved_pending()?;
        for (slot, r) in slots.iter().enumerate() {
            let Some(r) = r else { continue };
            if !stored_text(slot as Slot, &mut idx.text, &mut pending) {
                analyze_anew(&mut idx.text, slot as Slot, r);
            }
        }
        idx.text.flush(&mut pending);
        drop(pending);
        idx.text.shrink_lists();
        idx.vectors.hnsw.reserve(vectors.count(), pooled)?;
        // What the restore adds a record or a node at a time is sized now too: grown as it
        // goes, each array would be copied into a larger one while the old is held, in a
        // memory the open has filled (a 128 MiB Worker's ran out there at 100k records).
        idx.vectors.reserve_bindings(slots.len(), vectors.count())?;
        idx.threads.reserve(slots.len())?;
        let more = slots.len().saturating_sub(idx.content.len());
        crate::room::reserve(&mut idx.content, more, "its records' content keys")?;
        // While the codes come in a pool: each node's row in it (`u32::MAX` for a node pushed
        // with its codes), and whether a record's vector in it stays outside the index, to be
        // read from the source after the restore (see `restore_search`).
        let mut rows: Vec<u32> = Vec::new();
        if pooled {
            crate::room::reserve(&mut rows, vectors.count(), "its graph's nodes")?;
        }
        crate::room::reserve(&mut restored, vectors.count(), "its graph's nodes")?;
        let mut pool_read_later = false;
        let mut vector = Vec::new();
        for (slot, r) in slots.iter().enumerate() {
            let Some(r) = r else { continue };
            let slot = slot as Slot;
            let rows = pooled.then_some(&mut rows);
            match idx.restore_slot(slot, r, slots, &mut vector, &*vectors, graph, rows) {
                Restored::Node(node) => restored.push(node),
                Restored::Missing => missing.push((slot, vector.clone())),
                Restored::NoVector => pool_read_later |= vectors.code_row(slot).is_some(),
            }
        }
        if pooled {
            if let Some(pool) = vectors.pool(!pool_read_later) {
                idx.vectors.hnsw.vecs.adopt_codes(pool, &rows);
            }
        }
        drop(rows);
        let h = &mut idx.vectors.hnsw;
        let by_seq = SeqMap::new(restored.iter().map(|&n| (h.keys[n as usize], n)))?;
        let mut linker = Linker::new(h.keys.len())?;
        for &node in &restored {
            linker.restore(h, node, graph, &by_seq);
        }
        let inserted = insert_missing(&mut idx, slots, missing);
        *self = idx;
        Ok(inserted)
    }
}

// The two paths below run only for records stored without their text analysis or their graph
// node (an older format, or a store that changed its vector settings). Out of line and cold,
// so that `restore`, which runs in every open, stays small: V8 compiles the functions a first
// open tiers up one after another in the background, and a large one that runs once delays
// the per-record functions queued behind it (see `SegmentView::small_section`).

/// Analyzes the text of a record whose stored analysis is missing or stale.
#[cold]
#[inline(never)]
fn analyze_anew(text: &mut InvertedIndex, slot: Slot, r: &Record) {
    text.add(slot, r);
}

/// Inserts into the graph the vectors stored without a node; returns their nodes.
#[cold]
#[inline(never)]
fn insert_missing(
    idx: &mut SearchIndex,
    slots: &[Option<Record>],
    missing: Vec<(Slot, Vec<f32>)>,
) -> Vec<u32> {
    let mut inserted = Vec::new();
    for (slot, vector) in missing {
        let seq = slots[slot as usize].as_ref().map_or(0, |r| r.seq);
        inserted.extend(idx.vectors.add(slot, seq, &vector));
    }
    inserted
}

/// Gives restored nodes their stored links to other restored nodes, each layer capped and
/// without repeats. Its buffers are kept from node to node.
struct Linker {
    /// The stored links of the node at hand, as `(layer, seq)`.
    found: Vec<(u8, u64)>,
    /// The node ids of one layer, as they are kept.
    ids: Vec<u32>,
    /// For each node id, the mark of the last layer list that took it: a repeat is seen in
    /// one step instead of a scan of the list (a layer-0 list holds up to 2·M links).
    taken: Vec<u32>,
    /// The mark of the layer list at hand; each list takes a new one.
    mark: u32,
}

impl Linker {
    fn new(nodes: usize) -> crate::Result<Self> {
        Ok(Linker {
            found: Vec::new(),
            ids: Vec::new(),
            taken: crate::room::filled(0, nodes, "its graph's link marks")?,
            mark: 0,
        })
    }

    /// Takes a new mark; when the marks run out (after 2^32 - 1 lists), every node's is
    /// cleared and they start over.
    fn next_mark(&mut self) {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.taken.fill(0);
            self.mark = 1;
        }
    }

    /// A call per node, as `restore_slot`, so that the engine optimizes it early.
    #[inline(never)]
    fn restore(
        &mut self,
        h: &mut super::hnsw::Hnsw,
        node: u32,
        graph: &dyn GraphSource,
        by_seq: &SeqMap<u32>,
    ) {
        let m = h.params.m;
        let level = h.levels[node as usize];
        self.found.clear();
        graph.links(h.keys[node as usize], &mut self.found);
        // The links come layer by layer; a source that mixes them is read layer by layer.
        for lc in 0..=level {
            let cap = if lc == 0 { 2 * m } else { m };
            self.next_mark();
            self.ids.clear();
            for &(layer, seq) in &self.found {
                if layer != lc || self.ids.len() == cap {
                    continue;
                }
                let Some(x) = by_seq.get(seq) else { continue };
                let seen = &mut self.taken[x as usize];
                if x != node && *seen != self.mark {
                    *seen = self.mark;
                    self.ids.push(x);
                }
            }
            h.set_links(node, lc, &self.ids);
        }
        h.consider_entry(node);
    }
}

/// What restoring one record did with its vector.
enum Restored {
    /// Its node was pushed with its stored level.
    Node(u32),
    /// No node is stored: the vector (left in the buffer) must be inserted anew.
    Missing,
    /// It has no vector of the index's dimension.
    NoVector,
}

impl SearchIndex {
    /// The thread order, dedup key and graph node of one loaded record, its vector left in
    /// `vector`. A call per record: see `SegmentVectors::read` in [`crate::storage`] for why.
    /// `rows`, while the codes come in a pool: each node's row in it, `u32::MAX` for a node
    /// pushed with its codes (see [`super::vecstore::NodeVectors::adopt_codes`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn restore_slot(
        &mut self,
        slot: Slot,
        r: &Record,
        slots: &[Option<Record>],
        vector: &mut Vec<f32>,
        vectors: &dyn VectorSource,
        graph: &dyn GraphSource,
        rows: Option<&mut Vec<u32>>,
    ) -> Restored {
        self.add_meta(slot, r, slots);
        vector.clear();
        let level = graph.level(r.seq).filter(|&l| l <= 16);
        if let (Some((codes, inv_norm)), Some(level)) = (vectors.codes(slot), level) {
            let h = &mut self.vectors.hnsw;
            if h.vecs.quantizer().is_some() && codes.len() == h.dim {
                let row = rows.as_ref().and_then(|_| vectors.code_row(slot));
                let node = h.push_node_codes(r.seq, codes, inv_norm, level, row.is_some());
                if let Some(rows) = rows {
                    rows.push(row.unwrap_or(u32::MAX));
                }
                self.vectors.bind(slot, node);
                return Restored::Node(node);
            }
        }
        if !vectors.read(slot, r, vector) {
            return Restored::NoVector;
        }
        let Some(inv_norm) = inverse_norm(vector) else {
            return Restored::NoVector;
        };
        if self.vectors.dimension() == 0 {
            self.vectors.set_dimension(vector.len());
        }
        if vector.len() != self.vectors.dimension() {
            return Restored::NoVector;
        }
        match level {
            Some(level) => {
                let node = self.vectors.hnsw.push_node(r.seq, vector, inv_norm, level);
                if let Some(rows) = rows {
                    rows.push(u32::MAX);
                }
                self.vectors.bind(slot, node);
                Restored::Node(node)
            }
            None => Restored::Missing,
        }
    }
}

/// Sequence number → value, dense (a vector) when the numbers are dense enough, as they are in
/// any store that deleted less than three quarters of what it added; a hash map otherwise.
pub(crate) enum SeqMap<V: Copy> {
    Dense(Vec<Option<V>>),
    Sparse(HashMap<u64, V>),
}

impl<V: Copy> SeqMap<V> {
    /// Builds the map; a later pair for the same number replaces an earlier one. Fails with
    /// [`crate::Error::Storage`] when the memory refuses a dense map (see [`crate::room`]).
    pub(crate) fn new(pairs: impl Iterator<Item = (u64, V)> + Clone) -> crate::Result<Self> {
        let (count, max) = pairs
            .clone()
            .fold((0usize, 0u64), |(c, m), (s, _)| (c + 1, m.max(s)));
        if count > 0 && max < (count as u64).saturating_mul(4) + 1024 {
            let mut dense = crate::room::filled(None, max as usize + 1, "its graph's node map")?;
            for (s, v) in pairs {
                dense[s as usize] = Some(v);
            }
            Ok(SeqMap::Dense(dense))
        } else {
            Ok(SeqMap::Sparse(pairs.collect()))
        }
    }

    /// The value of `seq`.
    #[inline]
    pub(crate) fn get(&self, seq: u64) -> Option<V> {
        match self {
            SeqMap::Dense(d) => d.get(usize::try_from(seq).ok()?).copied().flatten(),
            SeqMap::Sparse(m) => m.get(&seq).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    use crate::index::test_record as record;

    /// A distinct 4-d vector for every slot.
    struct Vectors(usize);

    impl VectorSource for Vectors {
        fn count(&self) -> usize {
            self.0
        }
        fn read(&self, slot: Slot, _: &Record, out: &mut Vec<f32>) -> bool {
            out.extend((0..4).map(|d| 1.0 + (slot as f32 + 1.0) * d as f32));
            true
        }
    }

    /// Stored nodes by sequence number: a level and the links as `(layer, seq)`.
    struct Graph(HashMap<u64, (u8, Vec<(u8, u64)>)>);

    impl GraphSource for Graph {
        fn level(&self, seq: u64) -> Option<u8> {
            self.0.get(&seq).map(|n| n.0)
        }
        fn links(&self, seq: u64, out: &mut Vec<(u8, u64)>) {
            if let Some(n) = self.0.get(&seq) {
                out.extend_from_slice(&n.1);
            }
        }
    }

    /// Marks are never reused while a node may hold one: when they run out, every node's
    /// mark is cleared and they start over from 1 (0 is a node no list took).
    #[test]
    fn linker_marks_start_over_cleared_when_they_run_out() {
        let mut linker = Linker::new(3).unwrap();
        linker.mark = u32::MAX - 1;
        linker.next_mark();
        assert_eq!(linker.mark, u32::MAX);
        linker.taken = vec![u32::MAX - 1, u32::MAX, 0];
        linker.next_mark();
        assert_eq!(linker.mark, 1);
        assert_eq!(linker.taken, [0, 0, 0]);
    }

    /// A damaged or crafted store's links are cleaned as they are restored: repeats, links
    /// to itself, to nodes that are not restored and to layers above the node's level are
    /// dropped, layers given out of order are read by layer, and each layer is capped.
    #[test]
    fn restored_links_drop_repeats_self_links_unknown_nodes_and_overflow() {
        let n = 40u64;
        let seq = |node: u32| 100 + u64::from(node);
        let slots: Vec<Option<Record>> = (0..n).map(|i| Some(record(seq(i as u32)))).collect();
        let mut nodes: HashMap<u64, (u8, Vec<(u8, u64)>)> =
            (0..n).map(|i| (seq(i as u32), (0, Vec::new()))).collect();
        // Node 0, at level 1: its layer-1 links come first, then layer 0 with repeats, a
        // self-link, an unknown sequence number and a link above its level.
        let mut links = vec![(1, seq(7)), (1, seq(5)), (1, seq(7))];
        links.extend([
            (0, seq(3)),
            (0, seq(3)),
            (0, seq(0)),
            (0, 9_999),
            (0, seq(2)),
        ]);
        links.extend([(2, seq(4)), (0, seq(3)), (0, seq(1))]);
        nodes.insert(seq(0), (1, links));
        // Node 1: more distinct layer-0 links than a layer holds.
        let many: Vec<(u8, u64)> = (2..n).map(|i| (0, seq(i as u32))).collect();
        nodes.insert(seq(1), (0, many));
        let mut index = SearchIndex::default();
        let inserted = index
            .restore(
                &slots,
                4,
                &mut Vectors(n as usize),
                &Graph(nodes),
                InvertedIndex::default(),
                &mut |_, _, _| false,
            )
            .unwrap();
        assert!(inserted.is_empty(), "every node is stored");
        let h = &index.vectors.hnsw;
        assert_eq!(h.links(0, 0), &[3, 2, 1]);
        assert_eq!(h.links(0, 1), &[7, 5]);
        let cap = 2 * h.params.m;
        assert!(n as usize - 2 > cap, "node 1 offers more links than fit");
        let kept: Vec<u32> = (2..2 + cap as u32).collect();
        assert_eq!(h.links(1, 0), kept.as_slice());
        assert!(h.links(2, 0).is_empty());
    }
}
