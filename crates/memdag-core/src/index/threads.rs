//! Thread order for search: each record's thread, as a small number, and its neighbours in
//! the thread, so thread context (`crate::search::thread_context`) costs one array read per record.
//!
//! Each thread keeps its records' slots sorted by (creation time, sequence number), the order
//! of the store's thread index; each slot keeps its thread number and the slots just before and
//! after it. The sort keys are not kept here: they are read from the store's records when an
//! add lands out of order, which keeps a thread's list at 4 bytes a record where it took 24.
//! An add finds its place by binary search (an append when turns come in order, as they do)
//! and relinks its two neighbours; a delete links them to each other. Nothing here is
//! persisted: a load rebuilds it with the other indexes.

use core::mem::size_of;
use std::string::String;
use std::vec::Vec;

use crate::record::Record;
use memdag_types::Slot;

/// "No slot".
const NONE: Slot = Slot::MAX;

/// A slot's place in its thread.
#[derive(Debug, Clone, Copy)]
struct Place {
    thread: u32,
    prev: Slot,
    next: Slot,
}

const EMPTY: Place = Place {
    thread: u32::MAX,
    prev: NONE,
    next: NONE,
};

/// Threads by number, each in order, and each slot's place.
#[derive(Debug, Default)]
pub struct ThreadOrder {
    numbers: hashbrown::HashMap<String, u32>,
    /// Per thread: its slots, sorted by their records' [`OrderKey`].
    order: Vec<Vec<Slot>>,
    places: Vec<Place>,
}

/// Where a record sorts in its thread: (created_at, seq). Sequence numbers are unique, so no
/// two records share a key.
pub(crate) type OrderKey = (i64, u64);

/// The [`OrderKey`] of a record.
pub(crate) fn order_key(record: &Record) -> OrderKey {
    (record.created_at, record.seq)
}

/// The [`OrderKey`] of the record in a slot, read from the store's slots. Every slot a thread
/// lists holds a record; an empty one sorts last, which never happens.
pub(crate) fn key_in(slots: &[Option<Record>]) -> impl Fn(Slot) -> OrderKey + '_ {
    |slot| {
        slots
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map_or((i64::MAX, u64::MAX), order_key)
    }
}

impl ThreadOrder {
    /// Places the record in `slot` in its thread; `key_of` gives the key of a slot already
    /// placed (read only when the record does not sort last).
    pub fn add(&mut self, slot: Slot, record: &Record, key_of: &dyn Fn(Slot) -> OrderKey) {
        let next_number = self.order.len() as u32;
        // By reference: a thread's name is copied once, not once per record.
        let thread = *self
            .numbers
            .entry_ref(record.thread.as_str())
            .or_insert(next_number);
        if thread == next_number {
            self.order.push(Vec::new());
        }
        let list = &mut self.order[thread as usize];
        super::reserve_eighth(list, 1);
        let key = order_key(record);
        let at = match list.last() {
            Some(&last) if key_of(last) > key => list.partition_point(|&s| key_of(s) < key),
            _ => list.len(),
        };
        let prev = at.checked_sub(1).map_or(NONE, |i| list[i]);
        let next = list.get(at).copied().unwrap_or(NONE);
        list.insert(at, slot);
        super::resize_eighth(&mut self.places, slot as usize + 1, EMPTY);
        self.places[slot as usize] = Place { thread, prev, next };
        if prev != NONE {
            self.places[prev as usize].next = slot;
        }
        if next != NONE {
            self.places[next as usize].prev = slot;
        }
    }

    /// Makes room for the places of `slots` slots, so that a restore adding them grows
    /// nothing (see [`crate::room`]).
    pub(crate) fn reserve(&mut self, slots: usize) -> crate::Result<()> {
        let more = slots.saturating_sub(self.places.len());
        crate::room::reserve(&mut self.places, more, "its thread order")
    }

    /// Takes the record that was in `slot` out of its thread, linking its neighbours to each
    /// other; `key_of` gives the key of the other slots its thread lists.
    pub fn remove(&mut self, slot: Slot, record: &Record, key_of: &dyn Fn(Slot) -> OrderKey) {
        let Some(thread) = self.unlink(slot) else {
            return;
        };
        let key = order_key(record);
        let list = &mut self.order[thread as usize];
        // `slot` itself is the first slot whose key is not below its own.
        let at = list.partition_point(|&s| s != slot && key_of(s) < key);
        match list.get(at) {
            Some(&s) if s == slot => {
                list.remove(at);
            }
            // Keys that changed under the index would leave it elsewhere: found the slow way.
            _ => list.retain(|&s| s != slot),
        }
    }

    /// Takes several records out at once (their slots may no longer hold them): each is
    /// unlinked, then each thread they were in drops them in one pass.
    pub fn remove_many(&mut self, slots: impl IntoIterator<Item = Slot>) {
        let mut threads: Vec<u32> = slots.into_iter().filter_map(|s| self.unlink(s)).collect();
        threads.sort_unstable();
        threads.dedup();
        for thread in threads {
            let places = &self.places;
            self.order[thread as usize].retain(|&s| places[s as usize].thread != u32::MAX);
        }
    }

    /// Links `slot`'s neighbours to each other and forgets its place; its thread, if it was
    /// placed. Its thread's list still holds it.
    fn unlink(&mut self, slot: Slot) -> Option<u32> {
        let place = self.places.get(slot as usize).copied()?;
        if place.thread == u32::MAX {
            return None;
        }
        if place.prev != NONE {
            self.places[place.prev as usize].next = place.next;
        }
        if place.next != NONE {
            self.places[place.next as usize].prev = place.prev;
        }
        self.places[slot as usize] = EMPTY;
        Some(place.thread)
    }

    /// Forgets the names of threads left without records (their numbers are not reused).
    pub fn purge_empty(&mut self) {
        let order = &self.order;
        self.numbers.retain(|_, n| !order[*n as usize].is_empty());
    }

    /// The slots just before and after `slot` in its thread.
    pub fn neighbours(&self, slot: Slot) -> [Option<Slot>; 2] {
        let some = |s: Slot| (s != NONE).then_some(s);
        self.places
            .get(slot as usize)
            .map_or([None, None], |p| [some(p.prev), some(p.next)])
    }

    /// The number of `slot`'s thread (equal numbers, equal threads), if it is placed.
    pub fn thread_of(&self, slot: Slot) -> Option<u32> {
        self.places
            .get(slot as usize)
            .map(|p| p.thread)
            .filter(|&t| t != u32::MAX)
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        let lists: usize = self
            .order
            .iter()
            .map(|l| l.capacity() * size_of::<Slot>() + size_of::<Vec<Slot>>())
            .sum();
        let names: usize = self.numbers.keys().map(|k| k.capacity() + 40).sum();
        lists + names + self.places.capacity() * 12
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::format;

    /// Checks every placed slot's thread and neighbours against the records sorted by key.
    fn check(order: &ThreadOrder, slots: &[Option<Record>]) {
        let mut by_thread: BTreeMap<&str, Vec<(OrderKey, Slot)>> = BTreeMap::new();
        for (slot, r) in slots.iter().enumerate() {
            if let Some(r) = r {
                by_thread
                    .entry(r.thread.as_str())
                    .or_default()
                    .push((order_key(r), slot as Slot));
            }
        }
        let mut placed = 0;
        for list in by_thread.values_mut() {
            list.sort();
            let thread = order.thread_of(list[0].1);
            for (i, &(_, slot)) in list.iter().enumerate() {
                let prev = i.checked_sub(1).map(|j| list[j].1);
                let next = list.get(i + 1).map(|e| e.1);
                assert_eq!(order.neighbours(slot), [prev, next], "slot {slot}");
                assert_eq!(order.thread_of(slot), thread);
                placed += 1;
            }
        }
        let listed: usize = order.order.iter().map(Vec::len).sum();
        assert_eq!(listed, placed, "each thread lists exactly its records");
    }

    #[test]
    fn out_of_order_adds_and_removes_keep_each_thread_sorted_without_keeping_keys() {
        let mut next = crate::index::test_rng(0x2545_f491_4f6c_dd1d);
        let mut order = ThreadOrder::default();
        let mut slots: Vec<Option<Record>> = Vec::new();
        for seq in 0..600u64 {
            let record = Record {
                thread: format!("t{}", next(3)),
                // Mostly in order, a third out of order, some at the same time.
                created_at: if next(3) == 0 {
                    next(500) as i64
                } else {
                    seq as i64
                },
                ..crate::index::test_record(seq)
            };
            slots.push(Some(record));
            let slot = seq as Slot;
            let r = slots[slot as usize].clone().expect("just pushed");
            order.add(slot, &r, &key_in(&slots));
        }
        check(&order, &slots);
        // One at a time: the record leaves its slot first, as `Store::unlink` does.
        for _ in 0..100 {
            let slot = next(600) as Slot;
            if let Some(r) = slots[slot as usize].take() {
                order.remove(slot, &r, &key_in(&slots));
            }
        }
        check(&order, &slots);
        // Many at once, their slots emptied before, as an erase does.
        let gone: Vec<Slot> = (0..600).filter(|_| next(4) == 0).collect();
        for &slot in &gone {
            slots[slot as usize] = None;
        }
        order.remove_many(gone.iter().copied());
        check(&order, &slots);
        order.purge_empty();
        // 12 bytes of place and 4 of list a slot, and spare room: keys kept here (24 bytes
        // a slot) would be over.
        assert!(
            order.heap_bytes() < 600 * 20,
            "{} bytes",
            order.heap_bytes()
        );
    }
}
