//! Changing a stored record in place: the one path that keeps the text, vector and item
//! indexes and the dirty set in step with a record's new form.
//!
//! An item's update, supersede or corroboration ([`crate::memory`]) and a new compact node
//! ([`Store::set_compact`]) all go through [`Store::change_record`]. A record's thread, user
//! and id never change here; deleting and adding a record have their own paths in
//! [`crate::store`], and a reindex rebuilds the vector index as a whole.

use std::format;
use std::vec::Vec;

use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::record::Record;
use crate::store::Store;
use memdag_types::Slot;

impl Store {
    /// Changes the record in `slot` through `f`, keeping every index in step: the text index
    /// and dedup key always; the vector when the input or output changed (`vector`: a new
    /// one, else the built-in embedder's when it is on, else the old one is kept); the item
    /// index for an item. Marks the record dirty. A `vector` of the wrong dimension is refused
    /// before anything changes.
    pub(crate) fn change_record(
        &mut self,
        slot: Slot,
        vector: Option<Vec<f32>>,
        f: impl FnOnce(&mut Record),
    ) -> Result<()> {
        if let Some(v) = &vector {
            self.search.vectors.check(v)?;
        }
        let Some(mut record) = self.slots.take(slot) else {
            return Err(Error::NotFound {
                id: format!("slot {slot}"),
            });
        };
        let old = record.clone();
        f(&mut record);
        debug_assert_eq!(old.id, record.id, "a change keeps the record's id");
        if old.is_item() {
            self.items.remove(slot, &old);
        }
        self.search.change_text(slot, &old, &record);
        let text_changed = record.input != old.input || record.output != old.output;
        if text_changed && (vector.is_some() || self.search.auto_embed()) {
            // The index keeps the store's only copy (see `SearchIndex::admit`). With no vector
            // given, `admit` only embeds with the built-in embedder, which cannot fail.
            record.embedding = None;
            let new_vector = vector.or_else(|| self.search.admit(&mut record).unwrap_or(None));
            if let Some((_, repaired)) = self.search.vectors.remove(slot) {
                for node in repaired {
                    self.dirty.mark(Touched::Node(node));
                }
            }
            if let Some(v) = new_vector {
                for node in self.search.vectors.add(slot, record.seq, &v) {
                    self.dirty.mark(Touched::Node(node));
                }
            }
        }
        if record.is_item() {
            self.items.add(slot, &record);
        }
        self.dirty.mark(Touched::Record(record.id.clone()));
        self.slots.put(slot, record);
        Ok(())
    }
}
