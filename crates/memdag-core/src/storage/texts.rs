//! The stored text analyses an open reads ([`ChunkText`]): each chunk's terms interned in the
//! text index, and its records' entries, read in record order. Borrowing opens read the
//! entries in place in the chunks; an open that frees each part once read (see
//! [`super::owned`]) holds each chunk's TEXT section in a buffer of its own, which the restore
//! frees once it has read the entry of the chunk's last record, rather than at its end.

use std::string::String;
use std::vec::Vec;

use crate::error::{Error, Result};
use crate::index::bm25::FIELDS;
use crate::index::postings::{InvertedIndex, ANALYSIS_VERSION};
use crate::segment::{SegmentView, TextEntries, TextView};

/// A chunk's text analyses as an open reads them.
pub(super) struct ChunkText<'a> {
    /// Each term of the chunk's dictionary, by local id, as its id in the text index.
    pub ids: Vec<u32>,
    entries: Entries<'a>,
}

/// Where a chunk's entries are.
enum Entries<'a> {
    InPlace(TextEntries<'a>),
    /// The chunk's TEXT section, its entries from `at`.
    Apart {
        fields: u8,
        terms: u64,
        section: Vec<u8>,
        at: usize,
    },
}

/// Whether analyses of this version and number of fields are this build's.
fn usable(view: &TextView) -> bool {
    view.version == ANALYSIS_VERSION && view.fields as usize == FIELDS
}

impl<'a> ChunkText<'a> {
    /// The analyses of a chunk's view, read in place, with their terms interned in `index`;
    /// `None` without any of this build's version. A call a chunk, out of the restore's one
    /// long call, so that a wasm engine optimizes it within the open (see `restore_v2`).
    #[inline(never)]
    pub(super) fn in_view(view: &SegmentView<'a>, index: &mut InvertedIndex) -> Option<Self> {
        let text = view.text.as_ref().filter(|t| usable(t))?;
        Some(ChunkText {
            ids: text.dict.iter().map(|term| index.intern(term)).collect(),
            entries: Entries::InPlace(text.entries()),
        })
    }

    /// The analyses of a TEXT section held apart (empty for a chunk without one), with their
    /// terms interned in `index`. Fails as a chunk's parse does when the section's header or
    /// dictionary is malformed. Not inlined, as [`ChunkText::in_view`].
    #[inline(never)]
    pub(super) fn apart(
        key: &str,
        section: Vec<u8>,
        index: &mut InvertedIndex,
    ) -> Result<Option<ChunkText<'static>>> {
        if section.is_empty() {
            return Ok(None);
        }
        let Some(text) = TextView::parse(&section) else {
            return Err(Error::CorruptData {
                key: String::from(key),
                reason: "text section malformed".into(),
            });
        };
        if !usable(&text) {
            return Ok(None);
        }
        let ids = text.dict.iter().map(|term| index.intern(term)).collect();
        let (fields, terms) = (text.fields, text.dict.len() as u64);
        let at = section.len() - text.entries().len();
        Ok(Some(ChunkText {
            ids,
            entries: Entries::Apart {
                fields,
                terms,
                section,
                at,
            },
        }))
    }

    /// The entries, to read in record order.
    pub(super) fn entries(&self) -> TextEntries<'_> {
        match &self.entries {
            Entries::InPlace(entries) => *entries,
            Entries::Apart {
                fields,
                terms,
                section,
                at,
            } => TextEntries::new(*fields, *terms, &section[*at..]),
        }
    }
}
