//! Text blobs: large texts kept by reference, such as the full output of a tool call that
//! [`crate::context::compact_tool_result`] truncated.
//!
//! A blob's id is derived from its content ([`blob_id`]), so the same text always gets the same
//! id and storing it twice stores it once. Blobs are persisted under the key `blob/<id>` (see
//! [`crate::codec`]) and come back with [`Store::load`](crate::Store::load). They are not
//! records: recall and search never see them.

use alloc::format;
use alloc::string::String;

use crate::error::{Error, Result};
use crate::store::Store;

pub use crate::hash::blob_id;

pub use crate::record::{blob_references, BLOB_REFERENCE};

impl Store {
    /// Stores `text` as a blob and returns its id, [`blob_id`] of the text. Idempotent.
    ///
    /// Errors: [`Error::InvalidInput`] in the (non-adversarial: never seen) case that another
    /// text already holds the same id; nothing is written then.
    pub fn put_blob(&mut self, text: impl Into<String>) -> Result<String> {
        let text = text.into();
        let id = blob_id(&text);
        match self.blobs.get(&id) {
            Some(existing) if *existing == text => {}
            Some(_) => {
                return Err(Error::invalid(format!(
                    "blob id {id} is taken by another text"
                )))
            }
            None => {
                self.blobs.insert(id.clone(), text);
                self.dirty.mark(crate::dirty::Touched::Blob(id.clone()));
            }
        }
        Ok(id)
    }

    /// The text of a blob, or `None` if there is no blob with this id.
    pub fn blob(&self, id: &str) -> Option<&str> {
        self.blobs.get(id).map(String::as_str)
    }

    /// Removes a blob. Idempotent: returns whether a blob was removed.
    pub fn remove_blob(&mut self, id: &str) -> bool {
        let removed = self.blobs.remove(id).is_some();
        if removed {
            self.dirty.mark(crate::dirty::Touched::Blob(id.into()));
        }
        removed
    }

    /// The ids of every blob, in order.
    pub fn blob_ids(&self) -> impl Iterator<Item = &str> {
        self.blobs.keys().map(String::as_str)
    }
}
