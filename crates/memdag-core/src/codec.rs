//! The v1 value codec: one MessagePack value per record, blob, graph node and the meta.
//!
//! Format v1 stored every record under its own key (see [`crate::keys`]); v2 packs them into
//! segments (see [`crate::segment`]). This build reads v1 stores to migrate them on their first
//! flush, and writes v1 values only in tests and fixtures. Each value is a MessagePack body
//! (rmp-serde `to_vec_named`, fields by name, read back by [`crate::msgpack`]) in the
//! [`crate::envelope`] of its kind.
//!
//! This module knows value formats only: it imports neither the store nor the search index.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::envelope::{open, seal, Kind};
use crate::error::{Error, Result};
use crate::hash::blob_id;
use crate::keys::{V1_BLOB_PREFIX, V1_HNSW_PREFIX, V1_META_KEY, V1_RECORD_PREFIX};
use crate::record::Record;

pub use crate::envelope::{FORMAT_VERSION, HEADER_LEN, MAGIC};
pub use crate::hash::crc32;

/// Store-wide counters, persisted under `meta` in v1 and inside the commit in v2.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// The next insertion sequence number.
    pub next_seq: u64,
    /// The dimension of the store's vectors, fixed by the first one; 0 before it.
    pub dimension: u32,
}

/// The v1 stored form of one vector-graph node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredNode {
    /// The sequence number of the node's record.
    pub seq: u64,
    pub level: u8,
    /// Links per layer, from layer 0 up, as sequence numbers.
    pub links: Vec<Vec<u64>>,
}

/// One entry of a change set: a key and its new bytes, or `None` for a deletion.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub key: String,
    pub value: Option<Vec<u8>>,
}

/// The v1 key of a record id.
pub fn record_key(id: &str) -> String {
    format!("{V1_RECORD_PREFIX}{id}")
}

/// The v1 key of a blob id.
pub fn blob_key(id: &str) -> String {
    format!("{V1_BLOB_PREFIX}{id}")
}

/// The v1 key of a record's graph node.
pub fn node_key(id: &str) -> String {
    format!("{V1_HNSW_PREFIX}{id}")
}

/// MessagePack of a value, fields by name.
pub fn to_msgpack<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    rmp_serde::to_vec_named(value).map_err(|e| Error::Storage {
        message: e.to_string(),
    })
}

/// A MessagePack value; `key` is named in errors.
pub fn from_msgpack<T: DeserializeOwned>(key: &str, body: &[u8]) -> Result<T> {
    crate::msgpack::from_slice(body).map_err(|e| undecodable(key, &e))
}

/// The error of a value stored under `key` whose body does not decode.
pub(crate) fn undecodable(key: &str, e: &crate::msgpack::DecodeError) -> Error {
    Error::CorruptData {
        key: key.into(),
        reason: format!("undecodable body: {e}"),
    }
}

fn encode<T: Serialize>(kind: Kind, value: &T) -> Result<Vec<u8>> {
    Ok(seal(kind, &to_msgpack(value)?))
}

fn decode<T: DeserializeOwned>(key: &str, kind: Kind, bytes: &[u8]) -> Result<T> {
    from_msgpack(key, open(key, kind, bytes)?)
}

/// Encodes one record as a v1 value.
pub fn encode_record(record: &Record) -> Result<Vec<u8>> {
    encode(Kind::Record, record)
}

/// Decodes one v1 record value; `key` is named in errors.
pub fn decode_record(key: &str, bytes: &[u8]) -> Result<Record> {
    let record: Record = decode(key, Kind::Record, bytes)?;
    if record_key(&record.id) != key {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: format!("holds record {:?}", record.id),
        });
    }
    Ok(record)
}

/// Encodes one blob's text as a v1 value.
pub fn encode_blob(text: &str) -> Result<Vec<u8>> {
    encode(Kind::Blob, &text)
}

/// Decodes one v1 blob value; `key` is named in errors.
pub fn decode_blob(key: &str, bytes: &[u8]) -> Result<String> {
    let text: String = decode(key, Kind::Blob, bytes)?;
    if blob_key(&blob_id(&text)) != key {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: "blob content does not match its id".into(),
        });
    }
    Ok(text)
}

/// Encodes the v1 store meta.
pub fn encode_meta(meta: &Meta) -> Result<Vec<u8>> {
    encode(Kind::Meta, meta)
}

/// Decodes the v1 store meta.
pub fn decode_meta(bytes: &[u8]) -> Result<Meta> {
    decode(V1_META_KEY, Kind::Meta, bytes)
}

/// Encodes one v1 graph node.
pub fn encode_node(node: &StoredNode) -> Result<Vec<u8>> {
    encode(Kind::IndexNode, node)
}

/// Decodes one v1 graph node; `key` is named in errors.
pub fn decode_node(key: &str, bytes: &[u8]) -> Result<StoredNode> {
    decode(key, Kind::IndexNode, bytes)
}
