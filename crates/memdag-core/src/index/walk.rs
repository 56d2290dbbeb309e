//! Small helpers of graph walks: a candidate ordered by distance, and a visited bitset.

use core::cmp::Ordering;
use std::vec::Vec;

/// A node and its distance to the query. Ordered by distance, then node id, so every heap and
/// sort over candidates is total and deterministic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Near {
    pub dist: f32,
    pub node: u32,
}

impl Eq for Near {}

impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.dist
            .total_cmp(&other.dist)
            .then_with(|| self.node.cmp(&other.node))
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A set of node ids as a bitset, allocated per walk (1 bit a node).
#[derive(Debug)]
pub struct Visited {
    bits: Vec<u64>,
}

impl Visited {
    /// An empty set for ids below `n`.
    pub fn new(n: usize) -> Self {
        Visited {
            bits: vec![0; n.div_ceil(64)],
        }
    }

    /// Adds `id`; returns whether it was new. Ids out of range count as seen.
    #[inline]
    pub fn insert(&mut self, id: u32) -> bool {
        let (w, b) = (id as usize / 64, id % 64);
        match self.bits.get_mut(w) {
            Some(word) if *word & (1 << b) == 0 => {
                *word |= 1 << b;
                true
            }
            _ => false,
        }
    }
}
