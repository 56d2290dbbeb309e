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

use memdag_types::Slot;

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

    /// Makes room for `more` further ids, or fails with [`crate::Error::Storage`] when the
    /// memory refuses it (an open's, see `crate::room`).
    #[cfg(feature = "std")]
    pub(crate) fn try_reserve(&mut self, more: usize) -> crate::Result<()> {
        self.table.try_reserve(more, |&(h, _)| h).map_err(|_| {
            let bytes = more.saturating_mul(core::mem::size_of::<(u64, Slot)>() + 1);
            crate::room::out_of_memory("its index of record ids", bytes)
        })
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

    /// Adds `id` in `slot` unless the index has it already (false then), hashing it once;
    /// `id_of` as in [`IdIndex::get`].
    pub fn try_insert<'a>(
        &mut self,
        id: &str,
        slot: Slot,
        id_of: impl Fn(Slot) -> Option<&'a str>,
    ) -> bool {
        let h = self.hash(id);
        if self.table.find(h, |&(_, s)| id_of(s) == Some(id)).is_some() {
            return false;
        }
        self.table.insert_unique(h, (h, slot), |&(h, _)| h);
        true
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    #[test]
    fn finds_inserted_ids_and_forgets_removed_ones_through_growth() {
        let mut slots: Vec<Option<String>> = (0..5000).map(|i| Some(format!("id-{i}"))).collect();
        let mut index = IdIndex::default();
        for (slot, id) in slots.iter().enumerate() {
            index.insert(id.as_deref().unwrap(), slot as Slot);
        }
        assert_eq!(index.len(), 5000);
        for i in (0..5000).step_by(3) {
            assert!(index.remove(&format!("id-{i}"), i as Slot));
            assert!(
                !index.remove(&format!("id-{i}"), i as Slot),
                "removed twice"
            );
            slots[i] = None;
        }
        for (slot, id) in slots.iter().enumerate() {
            let want = format!("id-{slot}");
            let found = index.get(&want, |s| slots[s as usize].as_deref());
            assert_eq!(found, id.as_ref().map(|_| slot as Slot), "{want}");
        }
        assert_eq!(index.get("id-5000", |s| slots[s as usize].as_deref()), None);
    }

    #[test]
    fn a_slot_whose_record_is_taken_out_matches_nothing_and_is_found_again_when_back() {
        let mut slots = alloc::vec![Some(String::from("a")), Some(String::from("b"))];
        let mut index = IdIndex::default();
        index.insert("a", 0);
        index.insert("b", 1);
        let taken = slots[1].take();
        assert_eq!(index.get("b", |s| slots[s as usize].as_deref()), None);
        // Growing the table meanwhile reads no record.
        index.reserve(10_000);
        slots[1] = taken;
        assert_eq!(index.get("b", |s| slots[s as usize].as_deref()), Some(1));
        assert_eq!(index.get("a", |s| slots[s as usize].as_deref()), Some(0));
    }
}
