//! Thread context: a record's score borrows from its neighbours in the thread, and from the
//! best record of its thread.
//!
//! A conversation spreads one exchange over several turns: "I went to a support group
//! yesterday" answers a question asked one turn before, and "Yes, it was great!" is about the
//! turn before it. So a search ranks a record by its own score plus a share of its best
//! neighbour's ([`SearchQuery::context`](super::SearchQuery::context), `β`):
//!
//! ```text
//! score'(d) = score(d) + β · max(score(prev(d)), score(next(d)))
//! ```
//!
//! where `prev` and `next` are the records just before and after `d` in its thread, in the
//! thread's order (creation time, then insertion: turns of one session often share one
//! timestamp). The searcher adds the neighbours of the strongest candidates (the top
//! `max(k, 10)` of either signal) to the pool and scores them exactly, so a record whose own
//! words miss the query can still rise on its neighbour's (its own score is then 0). A
//! neighbour that fails the query's filter is not in the pool: it neither lends nor becomes
//! a hit. A missing neighbour, or one with a negative score, lends nothing.
//!
//! Thread scope ([`SearchQuery::thread_scope`](super::SearchQuery::thread_scope), `γ`) works
//! one level up: the thread (a conversation, a session) where the query's best match is
//! likely holds more of what it asks, so every candidate also gains `γ ·` the best own score
//! among the candidates of its thread (its own included):
//!
//! ```text
//! score''(d) = score'(d) + γ · max { score(e) : e a candidate, thread(e) = thread(d) }
//! ```
//!
//! A memory kept in one long thread gets the same gain everywhere: scope changes nothing
//! there. Neither part looks at what a thread is called or holds; only at its order.

use std::collections::BTreeMap;
use std::vec::Vec;

use super::by_slot::BySlot;
use crate::float::max;
use crate::store::Store;
use memdag_types::Slot;

impl Store {
    /// The live records just before and just after `slot` in its thread.
    pub fn thread_neighbours(&self, slot: Slot) -> [Option<Slot>; 2] {
        self.search.threads.neighbours(slot)
    }

    /// The thread neighbours of `lenders`, each once, in slot order.
    pub(crate) fn context_pool(&self, lenders: impl Iterator<Item = Slot>) -> Vec<Slot> {
        let mut out: Vec<Slot> = lenders
            .flat_map(|s| self.thread_neighbours(s))
            .flatten()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Adds to each member of `scores` `beta ·` the best `own` score of its two thread
    /// neighbours. A neighbour outside `own`, or with a negative score, lends nothing.
    pub(crate) fn borrow(&self, own: &BySlot<f32>, scores: &mut BySlot<f32>, beta: f32) {
        let of = |s: Option<Slot>| s.and_then(|s| own.get(s).copied()).unwrap_or(0.0);
        for (slot, s) in scores.iter_mut() {
            let [prev, next] = self.thread_neighbours(slot);
            *s += beta * max(max(of(prev), of(next)), 0.0);
        }
    }

    /// Adds to each member of `scores` `gamma ·` the best `own` score in its thread.
    pub(crate) fn scope(&self, own: &BySlot<f32>, scores: &mut BySlot<f32>, gamma: f32) {
        let thread = |slot: Slot| self.search.threads.thread_of(slot);
        let mut best: BTreeMap<u32, f32> = BTreeMap::new();
        for (slot, &s) in own.iter() {
            if let Some(t) = thread(slot) {
                let b = best.entry(t).or_insert(s);
                *b = max(*b, s);
            }
        }
        for (slot, s) in scores.iter_mut() {
            if let Some(b) = thread(slot).and_then(|t| best.get(&t)) {
                *s += gamma * max(*b, 0.0);
            }
        }
    }
}
