//! Text blobs: large texts kept by reference, such as the full output of a tool call that
//! [`crate::context::compact_tool_result`] truncated.
//!
//! A blob's id is derived from its content ([`blob_id`]), so the same text always gets the same
//! id and storing it twice stores it once. Blobs are persisted under the key `blob/<id>` (see
//! [`crate::codec`]) and come back with [`Store::load`](crate::Store::load). They are not
//! records: recall and search never see them.

use alloc::format;
use alloc::string::String;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::Store;

pub use crate::hash::blob_id;

pub use crate::record::{blob_references, BLOB_REFERENCE};

/// The document prefix of a blob's metadata (`crate::retention`): `blob-meta/<id>`. Named
/// here, so that removing a blob removes its metadata without this module naming retention.
pub const BLOB_META_PREFIX: &str = "blob-meta/";

/// The document name of a blob's metadata.
#[cfg(feature = "std")]
pub(crate) fn meta_name(id: &str) -> String {
    format!("{BLOB_META_PREFIX}{id}")
}

/// The most lines one [`Store::read_blob`] returns.
pub const MAX_READ_LINES: usize = 2000;

/// A page of a blob's lines, from [`Store::read_blob`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobPage {
    pub id: String,
    /// The lines, each with its line break: the pages of a blob, read one after another,
    /// concatenate to its exact text.
    pub text: String,
    /// The first line of the page, counted from 1.
    pub from_line: usize,
    /// Lines in the page.
    pub lines: usize,
    /// Lines in the whole blob (a final line without a break counts).
    pub total_lines: usize,
    /// The line to read on from, when the blob goes on after the page.
    pub next_line: Option<usize>,
}

impl Store {
    /// Lines `from_line` (counted from 1; 0 reads as 1) to `from_line + max_lines - 1` of a
    /// blob, at most [`MAX_READ_LINES`] (0: that many): how an agent reads a cut tool result
    /// back from the line its marker names. A `from_line` past the end gives an empty page.
    /// [`Error::NotFound`] if there is no blob with this id.
    pub fn read_blob(&self, id: &str, from_line: usize, max_lines: usize) -> Result<BlobPage> {
        let text = self
            .blob(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        let from = from_line.max(1);
        let max = match max_lines {
            0 => MAX_READ_LINES,
            n => n.min(MAX_READ_LINES),
        };
        let mut total = 0;
        let mut start = text.len();
        let mut end = text.len();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            total += 1;
            if total == from {
                start = offset;
            }
            offset += line.len();
            if total == from + max - 1 {
                end = offset;
            }
        }
        let start = start.min(end);
        let lines = total.saturating_sub(from - 1).min(max);
        let next = from + lines;
        Ok(BlobPage {
            id: id.into(),
            text: text[start..end].into(),
            from_line: from,
            lines,
            total_lines: total,
            next_line: (next <= total).then_some(next),
        })
    }

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
        #[cfg(feature = "std")]
        self.remove_state(&meta_name(id));
        removed
    }

    /// The ids of every blob, in order.
    pub fn blob_ids(&self) -> impl Iterator<Item = &str> {
        self.blobs.keys().map(String::as_str)
    }
}
