//! Thread order for search: each record's thread, as a small number, and its neighbours in
//! the thread, so thread context (`crate::search::thread_context`) costs one array read per record.
//!
//! Each thread keeps its records sorted by (creation time, sequence number), the order of the
//! store's thread index; each slot keeps its thread number and the slots just before and after
//! it. An add finds its place by binary search (an append when turns come in order, as they
//! do) and relinks its two neighbours; a delete links them to each other. Nothing here is
//! persisted: a load rebuilds it with the other indexes.

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
    /// Per thread: (created_at, seq, slot), sorted.
    order: Vec<Vec<(i64, u64, Slot)>>,
    places: Vec<Place>,
}

impl ThreadOrder {
    /// Places the record in `slot` in its thread.
    pub fn add(&mut self, slot: Slot, record: &Record) {
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
        let key = (record.created_at, record.seq, slot);
        let at = match list.last() {
            Some(last) if *last > key => list.binary_search(&key).unwrap_or_else(|at| at),
            _ => list.len(),
        };
        let prev = at.checked_sub(1).map_or(NONE, |i| list[i].2);
        let next = list.get(at).map_or(NONE, |e| e.2);
        list.insert(at, key);
        super::resize_eighth(&mut self.places, slot as usize + 1, EMPTY);
        self.places[slot as usize] = Place { thread, prev, next };
        if prev != NONE {
            self.places[prev as usize].next = slot;
        }
        if next != NONE {
            self.places[next as usize].prev = slot;
        }
    }

    /// Takes the record in `slot` out of its thread, linking its neighbours to each other.
    pub fn remove(&mut self, slot: Slot, record: &Record) {
        let Some(place) = self.places.get(slot as usize).copied() else {
            return;
        };
        if place.thread == u32::MAX {
            return;
        }
        let list = &mut self.order[place.thread as usize];
        if let Ok(at) = list.binary_search(&(record.created_at, record.seq, slot)) {
            list.remove(at);
        }
        if place.prev != NONE {
            self.places[place.prev as usize].next = place.next;
        }
        if place.next != NONE {
            self.places[place.next as usize].prev = place.prev;
        }
        self.places[slot as usize] = EMPTY;
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
        let lists: usize = self.order.iter().map(|l| l.capacity() * 24 + 24).sum();
        let names: usize = self.numbers.keys().map(|k| k.capacity() + 40).sum();
        lists + names + self.places.capacity() * 12
    }
}
