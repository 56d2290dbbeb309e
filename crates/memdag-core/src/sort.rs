//! Stable sorting off the hot paths, with one merge sort compiled for all of them.
//!
//! The standard library's stable sort is generic over the element type and the comparison, so
//! every `sort_by` with its own closure compiles its own driftsort, quicksort and small sorts:
//! about 4 KB of wasm each. The JS package held 45 of them, 184 KB of its 2.8 MB (issue 28's
//! size breakdown). Here the merge runs over element indices and asks a `dyn` comparison, so
//! it is compiled once; a call site compiles only its comparison and the permutation that puts
//! the elements in place.
//!
//! A comparison is then a dynamic call and the sort allocates two index buffers, so this is
//! for paths that run rarely: exports, erasure, the DAG views and timeline, the v1 open, a
//! flush's list of deletions. What runs every turn (recall, learning) and what is measured
//! (the open, BM25 and vector search, the graph's inserts) keeps the standard sorts.
//!
//! The permutation that puts the elements in place, a walk over its cycles ([`permute_by`]),
//! holds nothing but the order and runs once per element, so it also serves the open: it
//! gathers the rows of int8 codes the vector index takes (see `index::vecstore`) and the
//! records the store's slots take (see `storage::records`) in place ([`gather_by`]).
//!
//! This module knows nothing of the store; it imports nothing from the crate.

// Without `std` only the store's own sort is compiled in.
#![cfg_attr(not(feature = "std"), allow(dead_code))]

use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sorts `v` stably by `compare`, as `slice::sort_by` does.
pub(crate) fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = stable_order(v.len(), &mut |a, b| {
        compare(&v[a as usize], &v[b as usize]) == Ordering::Greater
    });
    permute(v, order);
}

/// Sorts `v` stably by the key `key` gives each element, as `slice::sort_by_key` does (the key
/// is taken anew for every comparison).
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in ascending order, as `slice::sort` does.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The stable sorted order of `n` elements: the index of the element that goes first, then
/// second, and so on. `after(a, b)` says whether element `a` must come after element `b`.
/// A bottom-up merge sort: runs of 1, 2, 4… elements are merged pairwise from one buffer into
/// the other, taking the left run's element on ties, which keeps equal elements in order.
#[inline(never)]
fn stable_order(n: usize, after: &mut dyn FnMut(u32, u32) -> bool) -> Vec<u32> {
    let mut from: Vec<u32> = (0..n as u32).collect();
    let mut to: Vec<u32> = Vec::with_capacity(n);
    let mut width = 1;
    while width < n {
        to.clear();
        let mut start = 0;
        while start < n {
            let middle = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut left, mut right) = (start, middle);
            while left < middle && right < end {
                if after(from[left], from[right]) {
                    to.push(from[right]);
                    right += 1;
                } else {
                    to.push(from[left]);
                    left += 1;
                }
            }
            to.extend_from_slice(&from[left..middle]);
            to.extend_from_slice(&from[right..end]);
            start = end;
        }
        core::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// Puts `v` in `order` (`order[i]` is the index of the element that goes to `i`).
fn permute<T>(v: &mut [T], order: Vec<u32>) {
    permute_by(order, |a, b| v.swap(a, b));
}

/// Puts a sequence in `order` (`order[i]` is the index of the element that goes to `i`, a
/// permutation of `0..order.len()`), walking each cycle of the permutation with `swap(a, b)`
/// of two distinct places: for elements a slice cannot hold, as the rows of a buffer. `order`
/// marks each place done by pointing it at itself, so a cycle met again from a later start
/// ends at once.
pub(crate) fn permute_by(mut order: Vec<u32>, mut swap: impl FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let next = order[at] as usize;
            order[at] = at as u32;
            if next == start {
                break;
            }
            swap(at, next);
            at = next;
        }
    }
}

/// Moves the places `picked` names (of `0..total`) to the front, in that order, and the
/// others after them in their order, with `swap` along the permutation's cycles
/// ([`permute_by`]). `Ok(false)`, with nothing moved, when `picked` names a place twice or one
/// past `total`; `Err` when the memory refuses the order (`total` indices and flags).
pub(crate) fn gather_by(
    total: usize,
    picked: impl IntoIterator<Item = usize>,
    swap: impl FnMut(usize, usize),
) -> Result<bool, alloc::collections::TryReserveError> {
    let mut order: Vec<u32> = Vec::new();
    order.try_reserve_exact(total)?;
    let mut named: Vec<bool> = Vec::new();
    named.try_reserve_exact(total)?;
    named.resize(total, false);
    for p in picked {
        match named.get_mut(p) {
            Some(seen) if !*seen => *seen = true,
            _ => return Ok(false),
        }
        order.push(p as u32);
    }
    order.extend((0..total as u32).filter(|&p| !named[p as usize]));
    drop(named);
    permute_by(order, swap);
    Ok(true)
}

/// The set of `items`, given sorted and without repeats, built a piece at a time: a
/// `BTreeSet` collected from an iterator sorts it again, with a scratch buffer as large as
/// what it sorts (2.4 MB for the order of a 100k-record user, see `Store::build_orders`),
/// where each piece here is collected on its own and appended (a merge that frees the nodes
/// it has read).
#[cfg(feature = "std")]
pub(crate) fn sorted_set<T: Ord>(
    items: impl Iterator<Item = T>,
) -> alloc::collections::BTreeSet<T> {
    const PIECE: usize = 16_384;
    let mut set = alloc::collections::BTreeSet::new();
    let mut piece: Vec<T> = Vec::new();
    let mut items = items.peekable();
    while items.peek().is_some() {
        piece.extend(items.by_ref().take(PIECE));
        let mut part: alloc::collections::BTreeSet<T> = piece.drain(..).collect();
        set.append(&mut part);
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard stable sort, equal keys kept in their order: the
        /// elements carry their first place, and only the key is compared.
        #[test]
        fn sorts_as_the_standard_stable_sort(keys in proptest::collection::vec(0u8..8, 0..300)) {
            let tagged: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut ours = tagged.clone();
            sort_by_key(&mut ours, |&(k, _)| k);
            let mut std_sorted = tagged.clone();
            std_sorted.sort_by_key(|&(k, _)| k);
            prop_assert_eq!(ours, std_sorted);
            let mut descending = tagged.clone();
            sort_by(&mut descending, |a, b| b.0.cmp(&a.0));
            let mut std_descending = tagged;
            std_descending.sort_by_key(|b| core::cmp::Reverse(b.0));
            prop_assert_eq!(descending, std_descending);
        }

        /// Pieces of any size, the last one short, make the set the items make.
        #[test]
        fn a_set_built_in_pieces_is_the_set_of_its_items(len in 0usize..40_000, step in 1u64..4) {
            let items: Vec<u64> = (0..len as u64).map(|i| i * step).collect();
            let set = sorted_set(items.iter().copied());
            prop_assert_eq!(set.len(), len);
            prop_assert!(set.iter().copied().eq(items.iter().copied()));
        }

        #[test]
        fn sorts_owned_values_in_place(mut words in proptest::collection::vec("[a-c]{0,3}", 0..60)) {
            let mut expected = words.clone();
            expected.sort();
            sort(&mut words);
            prop_assert_eq!(words, expected);
        }
    }

    #[test]
    fn short_slices_and_sorted_runs_are_left_as_they_are() {
        let mut empty: Vec<u32> = vec![];
        sort(&mut empty);
        assert!(empty.is_empty());
        let mut one = vec![7];
        sort(&mut one);
        assert_eq!(one, [7]);
        let mut sorted: Vec<u32> = (0..100).collect();
        sort(&mut sorted);
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        let mut reversed: Vec<u32> = (0..100).rev().collect();
        sort(&mut reversed);
        assert_eq!(reversed, (0..100).collect::<Vec<_>>());
    }
}
