//! The top-k collector: keeps the `k` best (score, doc) pairs in a bounded min-heap.
//!
//! Order is total and deterministic: a higher score first, and on equal scores the lower doc
//! (the older record) first. NaN scores are never collected.

use core::cmp::Ordering;
use std::collections::BinaryHeap;
use std::vec::Vec;

/// A scored document; `Ord` puts the better hit first (greater).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub score: f32,
    pub doc: u32,
}

impl Eq for Scored {}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.doc.cmp(&self.doc))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Collects the best `k` hits.
#[derive(Debug)]
pub struct TopK {
    k: usize,
    // Reverse order so the heap's top is the worst kept hit.
    heap: BinaryHeap<core::cmp::Reverse<Scored>>,
}

impl TopK {
    /// A collector of at most `k` hits.
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(4096) + 1),
        }
    }

    /// Offers one hit.
    #[inline]
    pub fn push(&mut self, doc: u32, score: f32) {
        if self.k == 0 || score.is_nan() {
            return;
        }
        let s = Scored { score, doc };
        if self.heap.len() < self.k {
            self.heap.push(core::cmp::Reverse(s));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if s > worst.0 {
                *worst = core::cmp::Reverse(s);
            }
        }
    }

    /// The score a new hit must beat once the collector is full.
    pub fn threshold(&self) -> Option<f32> {
        (self.heap.len() == self.k)
            .then(|| self.heap.peek().map(|r| r.0.score))
            .flatten()
    }

    /// Number of hits kept.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no hit was kept.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The kept hits, best first.
    pub fn into_sorted(self) -> Vec<Scored> {
        let mut v: Vec<Scored> = self.heap.into_iter().map(|r| r.0).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_with_stable_ties() {
        let mut t = TopK::new(3);
        for (d, s) in [
            (0, 1.0),
            (1, 5.0),
            (2, 3.0),
            (3, 5.0),
            (4, f32::NAN),
            (5, 0.5),
        ] {
            t.push(d, s);
        }
        let docs: Vec<u32> = t.into_sorted().iter().map(|s| s.doc).collect();
        assert_eq!(docs, [1, 3, 2]);
    }
}
