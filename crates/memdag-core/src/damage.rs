//! What a damaged store lost: the report of [`Store::verify`](crate::Store::verify) and of a
//! salvaging open ([`Store::load_salvaging`](crate::Store::load_salvaging)).
//!
//! Damage is counted in stored values and, from format v5, in the blocks inside a segment
//! part (see [`crate::block`]). A damaged block's bytes cannot be trusted, so what it held is
//! a best guess: the ids read from its bytes as found, as far as they still decode, and the
//! range of sequence numbers its records lie in, from the intact blocks around it (records are
//! written in sequence order). An id read from damaged bytes may itself be altered; the range
//! holds whatever the bytes say. Lost ids are those read from a damaged block that no intact
//! block holds.
//!
//! The serde form (camelCase) is the JSON shape of every face. This module depends on the
//! commit's [`Warning`] only.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::commit::Warning;

/// One damaged stored value, or one damaged block inside a segment part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DamagedBlock {
    /// The storage key.
    pub key: String,
    /// The block inside the part (format v5), counted from 0; `None` for the whole value.
    pub block: Option<u32>,
    pub reason: String,
    /// Ids of the records it held (turns), read from its bytes as found: the damaged byte may
    /// have altered one of them.
    pub records: Vec<String>,
    /// Ids of the long-term memory items it held, read the same way.
    pub items: Vec<String>,
    /// Its records' sequence numbers lie above `after_seq` and below `before_seq`, as the
    /// intact blocks around it say (either side unknown when `None`): this holds whatever its
    /// bytes decode to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_seq: Option<u64>,
    /// Whether its bytes still decode whole, so that `records` and `items` name every record
    /// it held (but for an id the damage altered).
    pub ids_known: bool,
}

/// Everything a salvaging open skipped, and what it lost by id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Damage {
    /// Every damaged key and block.
    pub damaged: Vec<DamagedBlock>,
    /// Records, items, blobs and working-memory documents a damaged block held that no intact
    /// block holds.
    pub lost_records: Vec<String>,
    pub lost_items: Vec<String>,
    pub lost_blobs: Vec<String>,
    pub lost_documents: Vec<String>,
    /// Records and items whose newest version was in a damaged block: an older intact version
    /// was opened instead.
    pub older_versions: Vec<String>,
    /// `[record, parent]`: parents dropped from intact records because the parent was lost.
    pub detached: Vec<[String; 2]>,
}

impl Damage {
    /// Whether nothing was damaged.
    pub fn is_empty(&self) -> bool {
        self.damaged.is_empty()
    }

    /// One line a person reads: how many keys and blocks, and the first few of them.
    pub fn summary(&self) -> String {
        let mut out = alloc::format!("{} damaged", self.damaged.len());
        out.push_str(if self.damaged.len() == 1 {
            " value or block: "
        } else {
            " values or blocks: "
        });
        for (i, d) in self.damaged.iter().take(8).enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            out.push_str(&d.key);
            if let Some(b) = d.block {
                out.push_str(&alloc::format!(" block {b}"));
            }
            out.push_str(&alloc::format!(" ({})", d.reason));
        }
        if self.damaged.len() > 8 {
            out.push_str(&alloc::format!("; and {} more", self.damaged.len() - 8));
        }
        out
    }
}

/// What [`Store::verify`](crate::Store::verify) found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// No damage at all: a plain open succeeds.
    pub intact: bool,
    /// Stored values read, and blocks among them.
    pub keys: usize,
    /// What a salvaging open holds: records (turns), items, blobs and documents.
    pub records: usize,
    pub items: usize,
    pub blobs: usize,
    pub documents: usize,
    /// What the open recovered from, though it lost nothing (`COMMIT_RECOVERED`).
    pub warnings: Vec<Warning>,
    #[serde(flatten)]
    pub damage: Damage,
}

/// The code of the warning a salvaging open gives for each damaged value or block it skipped.
pub const BLOCK_SKIPPED: &str = "BLOCK_SKIPPED";
