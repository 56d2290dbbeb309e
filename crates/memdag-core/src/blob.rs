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

/// The words before a blob id in a truncation marker (see
/// [`crate::context::compact_tool_result`]): how a record references a blob.
pub const BLOB_REFERENCE: &str = "; full text in blob ";

/// The blob ids referenced by truncation markers anywhere in `text`.
pub fn blob_references(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(BLOB_REFERENCE)
        .filter_map(move |(at, _)| {
            let rest = &text[at + BLOB_REFERENCE.len()..];
            let id = rest.get(..17)?;
            let well_formed = id.starts_with('b')
                && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
                && rest[17..].starts_with(']');
            well_formed.then_some(id)
        })
}

impl crate::record::Record {
    /// The blob ids this record references, from its output, input and tool results.
    pub fn blob_references(&self) -> impl Iterator<Item = &str> {
        [self.input.as_str(), self.output.as_str()]
            .into_iter()
            .chain(self.steps.iter().map(|s| s.result.as_str()))
            .flat_map(blob_references)
    }
}

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
