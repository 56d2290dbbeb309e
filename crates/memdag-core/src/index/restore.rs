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
use super::postings::InvertedIndex;
use super::SearchIndex;
use crate::record::Record;
use memdag_types::Slot;

/// Where a restore finds the stored graph nodes, by sequence number.
pub trait GraphSource {
    /// The stored level of the node of `seq`, if one is stored.
    fn level(&self, seq: u64) -> Option<u8>;
    /// Calls `f(layer, linked seq)` for each stored link of the node of `seq`.
    fn links(&self, seq: u64, f: &mut dyn FnMut(u8, u64));
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
    /// from the stored analyses `stored_text` adds (true when it did) or else from the records,
    /// starting from `text` (empty, or with the stored terms interned and room reserved), and
    /// the graph from `graph`, and the vectors, as stored, from `vectors`.
    /// Returns the nodes that had to be inserted anew (their stored form is missing or stale).
    pub(crate) fn restore(
        &mut self,
        slots: &[Option<Record>],
        dimension: usize,
        vectors: &dyn VectorSource,
        graph: &dyn GraphSource,
        text: InvertedIndex,
        stored_text: &mut dyn FnMut(Slot, &mut InvertedIndex) -> bool,
    ) -> Vec<u32> {
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
        idx.vectors.hnsw.reserve(vectors.count());
        let mut vector = Vec::new();
        for (slot, r) in slots.iter().enumerate() {
            let Some(r) = r else { continue };
            let slot = slot as Slot;
            if !stored_text(slot, &mut idx.text) {
                idx.text.add(slot, r);
            }
            match idx.restore_slot(slot, r, &mut vector, vectors, graph) {
                Restored::Node(node) => restored.push(node),
                Restored::Missing => missing.push((slot, vector.clone())),
                Restored::NoVector => {}
            }
        }
        let h = &mut idx.vectors.hnsw;
        let by_seq = SeqMap::new(restored.iter().map(|&n| (h.keys[n as usize], n)));
        let mut layers: Vec<Vec<u32>> = Vec::new();
        for &node in &restored {
            restore_links(h, node, graph, &by_seq, &mut layers);
        }
        let mut inserted = Vec::new();
        for (slot, vector) in missing {
            let seq = slots[slot as usize].as_ref().map_or(0, |r| r.seq);
            inserted.extend(idx.vectors.add(slot, seq, &vector));
        }
        *self = idx;
        inserted
    }
}

/// Gives a restored node its stored links to other restored nodes (each layer capped and
/// without repeats), reusing the `layers` buffers. A call per node, as `restore_slot`.
#[inline(never)]
fn restore_links(
    h: &mut super::hnsw::Hnsw,
    node: u32,
    graph: &dyn GraphSource,
    by_seq: &SeqMap<u32>,
    layers: &mut Vec<Vec<u32>>,
) {
    let m = h.params.m;
    let level = h.levels[node as usize] as usize;
    // The layer buffers are kept from node to node: clearing keeps their capacity.
    if layers.len() <= level {
        layers.resize(level + 1, Vec::new());
    }
    layers.iter_mut().for_each(Vec::clear);
    graph.links(h.keys[node as usize], &mut |lc, seq| {
        let cap = if lc == 0 { 2 * m } else { m };
        if let (Some(ids), Some(x)) = (layers.get_mut(lc as usize), by_seq.get(seq)) {
            if x != node && ids.len() < cap && !ids.contains(&x) {
                ids.push(x);
            }
        }
    });
    for (lc, ids) in layers.iter().take(level + 1).enumerate() {
        h.set_links(node, lc as u8, ids);
    }
    h.consider_entry(node);
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
    #[inline(never)]
    fn restore_slot(
        &mut self,
        slot: Slot,
        r: &Record,
        vector: &mut Vec<f32>,
        vectors: &dyn VectorSource,
        graph: &dyn GraphSource,
    ) -> Restored {
        self.add_meta(slot, r);
        vector.clear();
        let level = graph.level(r.seq).filter(|&l| l <= 16);
        if let (Some((codes, inv_norm)), Some(level)) = (vectors.codes(slot), level) {
            let h = &mut self.vectors.hnsw;
            if h.vecs.quantizer().is_some() && codes.len() == h.dim {
                let node = h.push_node_codes(r.seq, codes, inv_norm, level);
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
    /// Builds the map; a later pair for the same number replaces an earlier one.
    pub(crate) fn new(pairs: impl Iterator<Item = (u64, V)> + Clone) -> Self {
        let (count, max) = pairs
            .clone()
            .fold((0usize, 0u64), |(c, m), (s, _)| (c + 1, m.max(s)));
        if count > 0 && max < (count as u64).saturating_mul(4) + 1024 {
            let mut dense = vec![None; max as usize + 1];
            for (s, v) in pairs {
                dense[s as usize] = Some(v);
            }
            SeqMap::Dense(dense)
        } else {
            SeqMap::Sparse(pairs.collect())
        }
    }

    /// The value of `seq`.
    pub(crate) fn get(&self, seq: u64) -> Option<V> {
        match self {
            SeqMap::Dense(d) => d.get(usize::try_from(seq).ok()?).copied().flatten(),
            SeqMap::Sparse(m) => m.get(&seq).copied(),
        }
    }
}
