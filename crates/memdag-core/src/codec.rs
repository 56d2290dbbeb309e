//! The storage format: keys, and the envelope around every MessagePack value.
//!
//! # Keys
//! | key          | value                                   |
//! |--------------|-----------------------------------------|
//! | `meta`       | [`Meta`]: store-wide counters           |
//! | `rec/<id>`   | one [`Record`], MessagePack (rmp-serde) |
//! | `blob/<id>`  | one text blob (a MessagePack string), see [`crate::blob`] |
//! | `idx/hnsw/<id>` | the vector-graph node of record `<id>`, see [`crate::search::persist`] |
//!
//! Keys under other prefixes are reserved for later components (indexes) and are
//! ignored by [`Store::load`] of this version.
//!
//! # Value envelope (format version 1)
//! ```text
//! offset 0  4 bytes  magic  b"MDAG"
//! offset 4  1 byte   format version (1)
//! offset 5  1 byte   kind: 1 = record, 2 = meta, 3 = blob, 4 = index node
//! offset 6  4 bytes  CRC-32 (IEEE) of the body, little endian
//! offset 10 ...      body: MessagePack of the value, fields by name (rmp-serde `to_vec_named`)
//! ```
//! A value shorter than the header is truncated, a wrong magic is foreign, a version above
//! [`FORMAT_VERSION`] is from the future, and a checksum or MessagePack failure is corrupt.
//! Each of these is a typed [`Error`] naming the key. Fixtures of every format version live in
//! `crates/memdag-core/tests/fixtures/` and are loaded by a test.
//!
//! # Write order
//! [`Store::take_changes`] lists puts before deletes and record keys before `meta`. A host that
//! applies changes in that order and stops midway leaves a store that still loads: a deleted
//! record's children are rewritten before the record itself is removed.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::record::Record;
use crate::search::persist::HNSW_PREFIX;
use crate::store::Store;

/// The four bytes that open every memdag value.
pub const MAGIC: [u8; 4] = *b"MDAG";
/// The newest format version this build writes and reads.
pub const FORMAT_VERSION: u8 = 1;
/// Length of the envelope header.
pub const HEADER_LEN: usize = 10;
/// The key of the store's [`Meta`].
pub const META_KEY: &str = "meta";
/// The prefix of record keys.
pub const RECORD_PREFIX: &str = "rec/";
/// The prefix of blob keys.
pub const BLOB_PREFIX: &str = "blob/";

const KIND_RECORD: u8 = 1;
const KIND_META: u8 = 2;
const KIND_BLOB: u8 = 3;
const KIND_INDEX: u8 = 4;

/// Store-wide state persisted under [`META_KEY`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// The next insertion sequence number.
    pub next_seq: u64,
    /// The dimension of the store's vectors, fixed by the first one; 0 before it.
    pub dimension: u32,
}

/// One entry of a change set: a key and its new bytes, or `None` for a deletion.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub key: String,
    pub value: Option<Vec<u8>>,
}

/// The storage key of a record id.
pub fn record_key(id: &str) -> String {
    format!("{RECORD_PREFIX}{id}")
}

/// The storage key of a blob id.
pub fn blob_key(id: &str) -> String {
    format!("{BLOB_PREFIX}{id}")
}

/// Wraps a value in the envelope.
fn encode<T: Serialize>(kind: u8, value: &T) -> Result<Vec<u8>> {
    let body = rmp_serde::to_vec_named(value).map_err(|e| Error::Storage {
        message: e.to_string(),
    })?;
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.push(kind);
    out.extend_from_slice(&crc32(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Opens the envelope and decodes the value, naming `key` in any error.
fn decode<T: DeserializeOwned>(key: &str, kind: u8, bytes: &[u8]) -> Result<T> {
    let corrupt = |reason: String| Error::CorruptData {
        key: key.into(),
        reason,
    };
    if bytes.len() < HEADER_LEN {
        if bytes.len() >= 4 && bytes[..4] != MAGIC {
            return Err(corrupt("not a memdag value (bad magic)".into()));
        }
        return Err(corrupt(format!(
            "truncated: {} bytes, header needs {HEADER_LEN}",
            bytes.len()
        )));
    }
    if bytes[..4] != MAGIC {
        return Err(corrupt("not a memdag value (bad magic)".into()));
    }
    let version = bytes[4];
    if version > FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            key: key.into(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if version == 0 {
        return Err(corrupt("format version 0 does not exist".into()));
    }
    if bytes[5] != kind {
        return Err(corrupt(format!(
            "expected value kind {kind}, found {}",
            bytes[5]
        )));
    }
    let body = &bytes[HEADER_LEN..];
    let stored = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
    if crc32(body) != stored {
        return Err(corrupt("checksum mismatch (truncated or altered)".into()));
    }
    rmp_serde::from_slice(body).map_err(|e| corrupt(format!("undecodable body: {e}")))
}

/// Encodes one record as a stored value.
pub fn encode_record(record: &Record) -> Result<Vec<u8>> {
    encode(KIND_RECORD, record)
}

/// Decodes one stored record value; `key` is named in errors.
pub fn decode_record(key: &str, bytes: &[u8]) -> Result<Record> {
    let record: Record = decode(key, KIND_RECORD, bytes)?;
    if record_key(&record.id) != key {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: format!("holds record {:?}", record.id),
        });
    }
    Ok(record)
}

/// Encodes one blob's text as a stored value.
pub fn encode_blob(text: &str) -> Result<Vec<u8>> {
    encode(KIND_BLOB, &text)
}

/// Decodes one stored blob value; `key` is named in errors.
pub fn decode_blob(key: &str, bytes: &[u8]) -> Result<String> {
    let text: String = decode(key, KIND_BLOB, bytes)?;
    if blob_key(&crate::blob::blob_id(&text)) != key {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: "blob content does not match its id".into(),
        });
    }
    Ok(text)
}

/// Encodes the store meta.
pub fn encode_meta(meta: &Meta) -> Result<Vec<u8>> {
    encode(KIND_META, meta)
}

/// Encodes one search-index value (a graph node).
pub(crate) fn encode_index<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    encode(KIND_INDEX, value)
}

/// Decodes one search-index value; `key` is named in errors.
pub(crate) fn decode_index<T: DeserializeOwned>(key: &str, bytes: &[u8]) -> Result<T> {
    decode(key, KIND_INDEX, bytes)
}

/// Decodes the store meta.
pub fn decode_meta(bytes: &[u8]) -> Result<Meta> {
    decode(META_KEY, KIND_META, bytes)
}

impl Store {
    /// Takes the change set accumulated since the last call: every touched key with its new
    /// bytes, or `None` where the key was deleted. Puts come before deletes, `meta` last among
    /// puts. If the host fails to write them, hand them back with [`Store::requeue`].
    pub fn take_changes(&mut self) -> Result<Vec<Change>> {
        let (ids, meta) = self.take_dirty();
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for id in &ids {
            let key = record_key(id);
            match self.get(id) {
                Some(r) => match encode_record(r) {
                    Ok(v) => puts.push(Change {
                        key,
                        value: Some(v),
                    }),
                    Err(e) => {
                        self.restore_dirty(&ids, meta);
                        return Err(e);
                    }
                },
                None => deletes.push(Change { key, value: None }),
            }
        }
        let blob_ids = core::mem::take(&mut self.blobs_dirty);
        for id in &blob_ids {
            let key = blob_key(id);
            match self.blobs.get(id) {
                Some(text) => match encode_blob(text) {
                    Ok(v) => puts.push(Change {
                        key,
                        value: Some(v),
                    }),
                    Err(e) => {
                        self.restore_dirty(&ids, meta);
                        self.blobs_dirty.extend(blob_ids);
                        return Err(e);
                    }
                },
                None => deletes.push(Change { key, value: None }),
            }
        }
        let (index_puts, index_deletes) = self.take_index_changes()?;
        puts.extend(index_puts);
        deletes.extend(index_deletes);
        if meta {
            puts.push(Change {
                key: META_KEY.into(),
                value: Some(encode_meta(&self.meta())?),
            });
        }
        puts.extend(deletes);
        Ok(puts)
    }

    /// Marks the keys of a change set dirty again, so the next `take_changes` repeats them.
    /// Use it when the host could not write a change set.
    pub fn requeue(&mut self, changes: &[Change]) {
        let mut ids = Vec::new();
        let mut meta = false;
        for c in changes {
            if c.key == META_KEY {
                meta = true;
            } else if let Some(id) = c.key.strip_prefix(RECORD_PREFIX) {
                ids.push(id.to_string());
            } else if let Some(id) = c.key.strip_prefix(BLOB_PREFIX) {
                self.blobs_dirty.insert(id.to_string());
            } else if let Some(id) = c.key.strip_prefix(HNSW_PREFIX) {
                self.requeue_index(id);
            }
        }
        self.restore_dirty(&ids, meta);
    }

    /// The store meta as it would be persisted.
    pub fn meta(&self) -> Meta {
        Meta {
            next_seq: self.next_seq,
            dimension: self.search.vectors.dimension() as u32,
        }
    }

    /// Every key and value of the store, as a full snapshot (for export or a first write).
    pub fn snapshot(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::with_capacity(self.len() + 1);
        for r in self.iter() {
            out.push((record_key(&r.id), encode_record(r)?));
        }
        for (id, text) in &self.blobs {
            out.push((blob_key(id), encode_blob(text)?));
        }
        out.extend(self.index_snapshot()?);
        out.push((META_KEY.into(), encode_meta(&self.meta())?));
        Ok(out)
    }

    /// Rebuilds a store from stored entries, in any order. The loaded store has no pending
    /// changes. Fails with a typed error naming the first bad key; nothing is half-loaded.
    pub fn load<K, V, I>(entries: I) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        let mut records = Vec::new();
        let mut meta = Meta::default();
        let mut blobs = alloc::collections::BTreeMap::new();
        let mut nodes = alloc::collections::BTreeMap::new();
        for (key, value) in entries {
            let key = key.as_ref();
            if key == META_KEY {
                meta = decode_meta(value.as_ref())?;
            } else if key.starts_with(RECORD_PREFIX) {
                records.push((key.to_string(), decode_record(key, value.as_ref())?));
            } else if let Some(id) = key.strip_prefix(BLOB_PREFIX) {
                blobs.insert(id.to_string(), decode_blob(key, value.as_ref())?);
            } else if let Some(id) = key.strip_prefix(HNSW_PREFIX) {
                nodes.insert(id.to_string(), decode_index(key, value.as_ref())?);
            }
        }
        let mut store = Store::from_records(records, meta.next_seq)?;
        store.blobs = blobs;
        store.restore_search(nodes, meta.dimension as usize)?;
        Ok(store)
    }
}

/// CRC-32 (IEEE 802.3, reflected), table-driven.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc = CRC_TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};
