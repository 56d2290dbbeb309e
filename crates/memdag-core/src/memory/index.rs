//! The store's item indexes ([`crate::index::items`]): rebuilt from the item records after a
//! load or when the aliases change.

use crate::store::Store;
use memdag_types::Slot;

pub use crate::index::items::{ItemIndex, Triple};

impl Store {
    /// Rebuilds the item indexes, e.g. after the aliases changed or a load.
    pub(crate) fn rebuild_item_index(&mut self) {
        let mut index = ItemIndex::with_aliases(self.memory_config().aliases);
        for (slot, r) in self.slots.iter().enumerate() {
            if let Some(r) = r.as_ref().filter(|r| r.is_item()) {
                index.add(slot as Slot, r);
            }
        }
        self.items = index;
    }

    /// The item indexes.
    pub fn item_index(&self) -> &ItemIndex {
        &self.items
    }
}
