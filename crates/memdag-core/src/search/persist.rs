//! Persistence of the search indexes: graph links are stored, everything else is rebuilt.
//!
//! Each record with a vector has one key `idx/hnsw/<id>` holding a [`StoredNode`]: its
//! sequence number, level and links per layer, the links named by sequence number (stable
//! across loads, unlike slots). Vectors are not duplicated: they come from the records. The
//! inverted index is rebuilt from the records on load, the
//! graph is not. Measured natively with `memdag-bench` at 100k records of 384-d vectors:
//! opening the store with its stored nodes took 2.9 s in all (decoding every record included),
//! without them (rebuilding the graph) 50 s. The nodes cost about 300 bytes a record.
//!
//! A record whose stored embedding does not fit the store (another dimension, a zero vector:
//! possible only in stores written before those checks) loads, but is not vector-indexed.
//!
//! Loading is robust to any partial write: a node whose record is missing is ignored, a link to
//! an unknown node is dropped, and a record whose node is missing or stale (another sequence
//! number) is inserted anew, which also marks its node for the next change set.

use std::collections::{BTreeMap, HashMap};
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use super::SearchIndex;
use crate::codec::{self, Change};
use crate::error::Result;
use crate::store::{Slot, Store};

/// The prefix of graph node keys.
pub const HNSW_PREFIX: &str = "idx/hnsw/";

/// The stored form of one graph node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredNode {
    /// The sequence number of the node's record.
    pub seq: u64,
    pub level: u8,
    /// Links per layer, from layer 0 up, as sequence numbers.
    pub links: Vec<Vec<u64>>,
}

/// The storage key of a record's graph node.
pub fn node_key(id: &str) -> String {
    format!("{HNSW_PREFIX}{id}")
}

impl Store {
    /// The stored form of the node of `slot`.
    fn stored_node(&self, slot: Slot) -> Option<StoredNode> {
        let v = &self.search.vectors;
        let node = v.node_of(slot)?;
        let h = &v.hnsw;
        let seq = |n: u32| h.keys[n as usize];
        let level = h.levels[node as usize];
        let links = (0..=level)
            .map(|lc| {
                h.links(node, lc)
                    .iter()
                    .filter(|&&x| h.is_live(x))
                    .map(|&x| seq(x))
                    .collect()
            })
            .collect();
        Some(StoredNode {
            seq: seq(node),
            level,
            links,
        })
    }

    fn encode_node(&self, slot: Slot) -> Result<Option<(String, Vec<u8>)>> {
        let (Some(r), Some(node)) = (self.slot(slot), self.stored_node(slot)) else {
            return Ok(None);
        };
        Ok(Some((node_key(&r.id), codec::encode_index(&node)?)))
    }

    /// The graph changes since the last take: (puts, deletes). Clears them.
    pub(crate) fn take_index_changes(&mut self) -> Result<(Vec<Change>, Vec<Change>)> {
        let dirty = core::mem::take(&mut self.search.vectors.dirty);
        let removed = core::mem::take(&mut self.search.removed);
        let mut puts = Vec::with_capacity(dirty.len());
        for &node in &dirty {
            let slot = self.search.vectors.node_slot.get(node as usize).copied();
            let Some(slot) = slot.filter(|&s| self.search.vectors.node_of(s) == Some(node)) else {
                continue;
            };
            match self.encode_node(slot) {
                Ok(Some((key, value))) => puts.push(Change {
                    key,
                    value: Some(value),
                }),
                Ok(None) => {}
                Err(e) => {
                    self.search.vectors.dirty = dirty;
                    self.search.removed = removed;
                    return Err(e);
                }
            }
        }
        let deletes = removed
            .into_iter()
            .filter(|id| {
                self.slot_of(id)
                    .is_none_or(|s| self.search.vectors.node_of(s).is_none())
            })
            .map(|id| Change {
                key: node_key(&id),
                value: None,
            })
            .collect();
        Ok((puts, deletes))
    }

    /// Marks the graph node key of `id` for the next change set again.
    pub(crate) fn requeue_index(&mut self, id: &str) {
        match self
            .slot_of(id)
            .and_then(|s| self.search.vectors.node_of(s))
        {
            Some(node) => {
                self.search.vectors.dirty.insert(node);
            }
            None => {
                self.search.removed.insert(id.to_string());
            }
        }
    }

    /// Every graph node, for a full snapshot.
    pub(crate) fn index_snapshot(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::with_capacity(self.search.vectors.len());
        for slot in 0..self.slots.len() as Slot {
            if let Some(kv) = self.encode_node(slot)? {
                out.push(kv);
            }
        }
        Ok(out)
    }

    /// Builds the search indexes of a freshly loaded store: the text index from the records,
    /// the graph from its stored nodes (by record id), inserting records whose node is missing.
    pub(crate) fn restore_search(
        &mut self,
        nodes: BTreeMap<String, StoredNode>,
        dimension: usize,
    ) -> Result<()> {
        let mut idx = SearchIndex {
            auto_embed: self.search.auto_embed(),
            ..Default::default()
        };
        if dimension > 0 {
            idx.vectors.set_dimension(dimension);
        }
        let mut restored: Vec<(u32, &StoredNode)> = Vec::new();
        let mut missing: Vec<(Slot, Vec<f32>)> = Vec::new();
        for (slot, r) in self.slots.iter().enumerate() {
            let Some(r) = r else { continue };
            let slot = slot as Slot;
            // A stored embedding that add_turn would refuse (another dimension, zero) can only
            // come from a store written before these checks: the record loads, unindexed.
            let vector = r
                .embedding
                .as_ref()
                .and_then(|e| idx.vectors.prepare(e).ok());
            idx.add(slot, r, None);
            let Some(vector) = vector else { continue };
            if idx.vectors.dimension() == 0 {
                idx.vectors.set_dimension(vector.len());
            }
            match nodes.get(&r.id) {
                Some(n)
                    if n.seq == r.seq && n.level <= 16 && n.links.len() == n.level as usize + 1 =>
                {
                    let node = idx.vectors.hnsw.push_node(r.seq, &vector, n.level);
                    idx.vectors.bind(slot, node);
                    restored.push((node, n));
                }
                _ => missing.push((slot, vector)),
            }
        }
        let h = &mut idx.vectors.hnsw;
        let by_seq: HashMap<u64, u32> = restored.iter().map(|&(node, n)| (n.seq, node)).collect();
        let m0 = h.params.m * 2;
        for &(node, n) in &restored {
            for (lc, links) in n.links.iter().enumerate() {
                let cap = if lc == 0 { m0 } else { h.params.m };
                let mut ids: Vec<u32> = Vec::with_capacity(links.len());
                for s in links {
                    if let Some(&x) = by_seq.get(s) {
                        if x != node && !ids.contains(&x) && ids.len() < cap {
                            ids.push(x);
                        }
                    }
                }
                h.set_links(node, lc as u8, &ids);
            }
            h.consider_entry(node);
        }
        for (slot, vector) in missing {
            let seq = self.slots[slot as usize].as_ref().map_or(0, |r| r.seq);
            idx.vectors.add(slot, seq, &vector);
        }
        self.search = idx;
        Ok(())
    }
}
