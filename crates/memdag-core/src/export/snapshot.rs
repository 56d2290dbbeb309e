//! The binary snapshot: every stored entry of a store in one file.
//!
//! ```text
//! offset 0  8 bytes  magic "MDAGEXP1"
//! then, per entry: u32 LE key length, the key (UTF-8), u32 LE value length, the value
//! ```
//! The values are the storage format's own (envelope, checksum, sealed when the store is
//! encrypted), so a damaged file fails to open with `CORRUPT_DATA` naming the key. A file
//! that is not a snapshot, is cut short, or holds no store (no commit `head`, nor a v1
//! `meta`: an empty or magic-only file) is `INVALID_INPUT`.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::error::{Error, Result};

/// The magic that opens a snapshot file.
pub const SNAPSHOT_MAGIC: &[u8; 8] = b"MDAGEXP1";

/// Encodes entries as a snapshot file.
pub fn encode_snapshot(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let size = 8 + entries
        .iter()
        .map(|(k, v)| 8 + k.len() + v.len())
        .sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(SNAPSHOT_MAGIC);
    for (k, v) in entries {
        out.extend_from_slice(&(k.len() as u32).to_le_bytes());
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
    }
    out
}

/// Decodes a snapshot file into its entries.
pub fn decode_snapshot(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>> {
    let bad = |why: &str| Error::invalid(format!("not a memdag snapshot file ({why})"));
    if bytes.len() < 8 || &bytes[..8] != SNAPSHOT_MAGIC {
        return Err(bad("bad magic"));
    }
    let mut at = 8;
    let take = |at: &mut usize| -> Result<&[u8]> {
        let n = bytes.get(*at..*at + 4).ok_or_else(|| bad("truncated"))?;
        let n = u32::from_le_bytes(n.try_into().expect("4 bytes")) as usize;
        let slice = bytes
            .get(*at + 4..(*at + 4).saturating_add(n))
            .ok_or_else(|| bad("truncated"))?;
        *at += 4 + n;
        Ok(slice)
    };
    let mut entries = Vec::new();
    while at < bytes.len() {
        let key =
            String::from_utf8(take(&mut at)?.to_vec()).map_err(|_| bad("a key is not UTF-8"))?;
        let value = take(&mut at)?.to_vec();
        entries.push((key, value));
    }
    let holds_store = entries
        .iter()
        .any(|(k, _)| k == crate::keys::HEAD_KEY || k == crate::keys::V1_META_KEY);
    if !holds_store {
        return Err(bad(if entries.is_empty() {
            "it holds no entry"
        } else {
            "it holds no store commit"
        }));
    }
    Ok(entries)
}

impl crate::store::Store {
    /// The store as a snapshot file (see the module docs).
    pub fn export_snapshot(&self) -> Result<Vec<u8>> {
        Ok(encode_snapshot(&self.snapshot()?))
    }
}
