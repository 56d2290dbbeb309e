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
//! timestamp). The searcher adds the neighbours of every candidate to the pool and scores
//! them exactly, so a record whose own words miss the query can still rise on its
//! neighbour's (its own score is then 0). A neighbour that fails the query's filter is not
//! in the pool: it neither lends nor becomes a hit. A missing neighbour, or one with a
//! negative score, lends nothing.
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
//! there.

use core::ops::Bound;
use std::collections::BTreeMap;

use crate::store::{Slot, Store};

/// Links between pool members: the previous and next record in the thread, when known.
pub type Links = BTreeMap<Slot, [Option<Slot>; 2]>;

impl Store {
    /// The live records just before and just after `slot` in its thread.
    pub fn thread_neighbours(&self, slot: Slot) -> [Option<Slot>; 2] {
        let Some(r) = self.slot(slot) else {
            return [None, None];
        };
        let Some(set) = self.by_thread.get(&r.thread) else {
            return [None, None];
        };
        let key = (r.created_at, r.seq, slot);
        let prev = set.range(..key).next_back().map(|c| c.2);
        let next = set
            .range((Bound::Excluded(key), Bound::Unbounded))
            .next()
            .map(|c| c.2);
        [prev, next]
    }

    /// The neighbours of each slot of `base`, as symmetric links: `base`'s own, and the
    /// reverse link on each neighbour. Neighbours not in `base` appear with the link back.
    pub(crate) fn context_links(&self, base: impl Iterator<Item = Slot>) -> Links {
        let mut links: Links = BTreeMap::new();
        for slot in base {
            let [prev, next] = self.thread_neighbours(slot);
            let own = links.entry(slot).or_default();
            own[0] = prev;
            own[1] = next;
            if let Some(p) = prev {
                links.entry(p).or_default()[1] = Some(slot);
            }
            if let Some(n) = next {
                links.entry(n).or_default()[0] = Some(slot);
            }
        }
        links
    }
}

impl Store {
    /// Adds `gamma ·` the best of `own` in each member's thread to its `scores`.
    pub(crate) fn scope(
        &self,
        own: &BTreeMap<Slot, f32>,
        scores: &mut BTreeMap<Slot, f32>,
        gamma: f32,
    ) {
        let thread = |slot: Slot| self.slot(slot).map(|r| r.thread.as_str());
        let mut best: BTreeMap<&str, f32> = BTreeMap::new();
        for (&slot, &s) in own {
            if let Some(t) = thread(slot) {
                let b = best.entry(t).or_insert(s);
                *b = b.max(s);
            }
        }
        for (&slot, s) in scores.iter_mut() {
            if let Some(b) = thread(slot).and_then(|t| best.get(t)) {
                *s += gamma * b.max(0.0);
            }
        }
    }
}

/// The context scores: each of `scores`' members plus `beta` times its best linked member's
/// score. A neighbour without a score, or with a negative one, lends nothing.
pub(crate) fn borrow(
    scores: &BTreeMap<Slot, f32>,
    links: &Links,
    beta: f32,
) -> BTreeMap<Slot, f32> {
    let of = |s: Option<Slot>| s.and_then(|s| scores.get(&s).copied()).unwrap_or(0.0);
    scores
        .iter()
        .map(|(&slot, &own)| {
            let [prev, next] = links.get(&slot).copied().unwrap_or_default();
            let lent = of(prev).max(of(next)).max(0.0);
            (slot, own + beta * lent)
        })
        .collect()
}
