//! The id index of a store: record id → slot, without a second copy of the id.
//!
//! Every record already owns its id, so the index keeps only `(hash of the id, slot)` pairs in
//! a hash table and compares a looked-up id with the id of the record in the slot. Keeping the
//! hash beside the slot means the table can grow without reading any record, so a slot whose
//! record is briefly taken out (while an item is rewritten) is never hashed. Opening a 10k
//! store inserted every id into a `BTreeMap<String, Slot>` before: a String clone and about
//! fourteen string comparisons an id, the largest single cost of building the store in wasm.
//!
//! The hasher is hashbrown's default (foldhash, seeded per index), so an id chosen to collide
//! with another costs a probe, never a wrong answer: equality is always checked on the id.

use core::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::store::Slot;

/// Id → slot for the live records of a store.
#[derive(Default, Clone)]
pub struct IdIndex {
    table: HashTable<(u64, Slot)>,
    hasher: DefaultHashBuilder,
}

impl core::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IdIndex")
            .field("len", &self.table.len())
            .finish()
    }
}

impl IdIndex {
    /// Number of ids.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Room for `more` ids without growing.
    pub fn reserve(&mut self, more: usize) {
        self.table.reserve(more, |&(h, _)| h);
    }

    fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    /// The slot of `id`; `id_of(slot)` gives the id of the record in a slot (None when the
    /// slot is empty).
    pub fn get<'a>(&self, id: &str, id_of: impl Fn(Slot) -> Option<&'a str>) -> Option<Slot> {
        self.table
            .find(self.hash(id), |&(_, s)| id_of(s) == Some(id))
            .map(|&(_, s)| s)
    }

    /// Adds `id` in `slot`. The caller has checked that `id` is not in the index.
    pub fn insert(&mut self, id: &str, slot: Slot) {
        let h = self.hash(id);
        self.table.insert_unique(h, (h, slot), |&(h, _)| h);
    }

    /// Removes `id`, known to be in `slot`. Returns whether it was there.
    pub fn remove(&mut self, id: &str, slot: Slot) -> bool {
        match self.table.find_entry(self.hash(id), |&(_, s)| s == slot) {
            Ok(entry) => {
                entry.remove();
                true
            }
            Err(_) => false,
        }
    }

    /// Heap bytes of the table (approximate).
    pub fn heap_bytes(&self) -> usize {
        self.table.capacity() * (core::mem::size_of::<(u64, Slot)>() + 1)
    }
}
