//! A search's candidates and scores, kept by slot in sorted vectors.
//!
//! A ranked search holds a few hundred candidates at most (each signal's top `2·k`, and their
//! thread neighbours), looks each up a few times (to complete its other signal, to lend to
//! its neighbours, to make its hit) and walks them in slot order, which breaks ties among
//! equal scores. A vector sorted by slot does all of that: one sort, then binary searches,
//! where a `BTreeMap` allocated a node per few entries and chased pointers on every lookup
//! (in wasm, the B-tree's entry, insert, get and clone were about a fifth of what the hybrid
//! search added to its two legs, `node --cpu-prof` on `run-wasm.mjs` at 100k records).

use std::vec::Vec;

use memdag_types::Slot;

/// Entries sorted by slot, each slot once.
pub(crate) struct BySlot<V>(Vec<(Slot, V)>);

impl<V> BySlot<V> {
    /// The entries of `entries` by slot; where a slot comes more than once, `merge(kept,
    /// later)` folds each later entry into the first, in the order given.
    pub(crate) fn new(entries: Vec<(Slot, V)>, mut merge: impl FnMut(&mut V, V)) -> Self {
        // Unstable by (slot, place): the order of a slot's entries is kept, and no stable
        // sort is compiled for this type.
        let mut placed: Vec<(Slot, u32, V)> = entries
            .into_iter()
            .enumerate()
            .map(|(i, (s, v))| (s, i as u32, v))
            .collect();
        placed.sort_unstable_by_key(|&(s, i, _)| (s, i));
        let mut out: Vec<(Slot, V)> = Vec::with_capacity(placed.len());
        for (s, _, v) in placed {
            match out.last_mut() {
                Some((last, kept)) if *last == s => merge(kept, v),
                _ => out.push((s, v)),
            }
        }
        BySlot(out)
    }

    /// The entries of a vector already sorted by slot, each slot once (checked in debug
    /// builds).
    pub(crate) fn sorted(entries: Vec<(Slot, V)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        BySlot(entries)
    }

    pub(crate) fn get(&self, slot: Slot) -> Option<&V> {
        let i = self.0.binary_search_by_key(&slot, |e| e.0).ok()?;
        Some(&self.0[i].1)
    }

    pub(crate) fn contains(&self, slot: Slot) -> bool {
        self.get(slot).is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The entries, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Slot, &V)> {
        self.0.iter().map(|(s, v)| (*s, v))
    }

    /// The entries, in slot order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (Slot, &mut V)> {
        self.0.iter_mut().map(|(s, v)| (*s, v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = Slot> + '_ {
        self.0.iter().map(|e| e.0)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|e| &e.1)
    }

    /// Adds the slots of `fresh` (sorted, each once, none here yet: checked in debug builds),
    /// with `value`.
    pub(crate) fn add(&mut self, fresh: &[Slot], value: impl Fn() -> V) {
        debug_assert!(fresh.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(fresh.iter().all(|&s| !self.contains(s)));
        if fresh.is_empty() {
            return;
        }
        let old = core::mem::take(&mut self.0);
        let mut merged = Vec::with_capacity(old.len() + fresh.len());
        let mut fresh = fresh.iter().copied().peekable();
        for (s, v) in old {
            while let Some(f) = fresh.next_if(|&f| f < s) {
                merged.push((f, value()));
            }
            merged.push((s, v));
        }
        merged.extend(fresh.map(|f| (f, value())));
        self.0 = merged;
    }
}

impl<V: Clone> Clone for BySlot<V> {
    fn clone(&self) -> Self {
        BySlot(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    proptest::proptest! {
        /// Built from entries in any order, it holds what a `BTreeMap` filled in that order
        /// with the same merge holds, and finds, iterates and takes new slots as it does.
        #[test]
        fn holds_what_a_btree_map_holds(
            entries in proptest::collection::vec((0u32..40, 0u32..1000), 0..80),
            more in proptest::collection::btree_set(0u32..60, 0..20),
        ) {
            let mut model: BTreeMap<Slot, Vec<u32>> = BTreeMap::new();
            for &(s, v) in &entries {
                model.entry(s).or_default().push(v);
            }
            let mut ours = BySlot::new(
                entries.iter().map(|&(s, v)| (s, std::vec![v])).collect(),
                |kept, later| kept.extend(later),
            );
            proptest::prop_assert_eq!(ours.len(), model.len());
            proptest::prop_assert!(ours.iter().map(|(s, v)| (s, v.clone())).eq(model.clone()));
            for s in 0..45 {
                proptest::prop_assert_eq!(ours.get(s), model.get(&s));
            }
            let more: Vec<Slot> = more.into_iter().filter(|&s| !ours.contains(s)).collect();
            ours.add(&more, Vec::new);
            for &s in &more {
                model.entry(s).or_default();
            }
            proptest::prop_assert!(ours.keys().eq(model.keys().copied()));
            proptest::prop_assert!(ours.values().eq(model.values()));
        }
    }
}
