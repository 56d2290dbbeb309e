//! Segments: the immutable unit of a v2 store, and the commit that names the live ones.
//!
//! A flush writes one new segment holding everything that changed (records, tombstones,
//! blobs, vector-graph nodes) and then the commit, `head`, naming every live segment in the
//! order they apply. Readers trust only what the commit names, so a crash at any point leaves
//! the store as it was before or after that flush. Segments are merged later (see
//! [`crate::storage`]); a segment is never modified in place.
//!
//! ```text
//!   head ──► Commit { generation 42, next_seq, dimension,
//!                     segments: [gen 7 (level 2), gen 31 (level 1), gen 40, gen 41, gen 42] }
//!                          │                 │                        apply in this order ─►
//!                          ▼                 ▼
//!   seg/0000000000000007/0 seg/…07/1 …   seg/000000000000001f/0        (parts ≤ part size)
//!   ┌──────────────────────────────────────────────────────────────────────┐
//!   │ part header: generation u64 · part u32 · parts u32 · chunk parts u32   │
//!   │ v5: frames, each b"MDBK" · length u32 · checksum32 u32 · one chunk     │
//!   │     (a block, see crate::block); before v5, the part is one chunk      │
//!   │ chunk = sections, each: tag u8 · length u32 LE · bytes                 │
//!   │   1 RECORDS      MessagePack [Record…] (fields by name, no vector),    │
//!   │                  in sequence order                                     │
//!   │   2 VECTORS      dim u32 · count u32 · owner u32 × count ·             │
//!   │                  f32 LE × dim × count   (one block, read in place)     │
//!   │   3 GONE_RECORDS varint count · varint seq × count (deleted records)   │
//!   │   4 BLOBS        MessagePack [[id, text]…]                             │
//!   │   5 GONE_BLOBS   MessagePack [id…]                                     │
//!   │   6 NODES        varint count · per node: varint seq · u8 level ·      │
//!   │                  per layer: varint n · varint seq × n                  │
//!   │   7 TEXT         the records' text analyses, so opening need not       │
//!   │                  analyze them: u8 version · u8 fields · varint n ·     │
//!   │                  n terms (varint length · UTF-8) · then per record:    │
//!   │                  fields × varint length · varint key length ·          │
//!   │                  varint m · m × (varint term · fields × u8 tf) ·       │
//!   │                  varint k · k × (varint term · u8 tf)                  │
//!   │   8 STATE        MessagePack [[name, bin]…]: named internal documents   │
//!   │                  (a thread's working memory, the memory settings)       │
//!   │   9 GONE_STATE   MessagePack [name…] (removed documents)                │
//!   │  10 USES         varint count · (varint seq · varint uses) × count      │
//!   │                  (how often recall returned a record)                   │
//!   │  11 COMMIT       MessagePack Commit: the commit of the change set that  │
//!   │                  wrote this segment (v4; last chunk only, see commit)  │
//!   │  12 CODES        int8 vectors (v6): dim u32 · count u32 ·             │
//!   │                  owner u32 × count · inverse norm f32 LE × count ·     │
//!   │                  i8 × dim × count   (one block, read in place)         │
//!   └──────────────────────────────────────────────────────────────────────┘
//! ```
//! Format v3 added sections 8 to 10 and the `item` field of a record (a long-term memory
//! item, see [`crate::item`]); v3 writes every part and the commit with format version 3, so a
//! v2 build refuses a v3 store with `UNSUPPORTED_VERSION` rather than misread it. A v3 build
//! reads v2 stores as they are. Format v4 added section 11 and each segment's checksum in the
//! commit (see [`crate::commit`]): the newest segment of every change set carries the commit it
//! makes, so a store whose `head` is lost, torn or rolled back opens its newest commit. v4 reads
//! v2 and v3 segments as they are.
//! Format v5 cuts chunks at [`crate::block::BLOCK_BYTES`] and stores each in a checksummed
//! frame, several to a part, so that a damaged byte costs one block's entries (see
//! [`crate::storage`]'s salvage); v5 reads v2 to v4 segments as they are.
//! Format v6 adds section 12: a store whose vectors are kept at int8 precision
//! ([`crate::index::vecstore`]) writes each record's vector as its int8 codes (of the unit
//! vector, under the per-dimension steps its commit carries) and the inverse norm of the vector
//! as given, `dim + 4` bytes instead of `4·dim`; a record's vector is in VECTORS or in CODES,
//! never both. v6 reads v2 to v5 segments as they are (their `f32` vectors are quantized on
//! open when the store is at int8).
//! Format v7 changes only the checksum of the envelope around each part and commit
//! ([`crate::envelope`]): [`crate::hash::checksum32_lanes`], the same word step over four
//! independent lanes, which an open computes over every stored byte about three times as fast.
//! The frames inside a part keep v5's checksum (they are read only when salvaging); v7 reads
//! v2 to v6 segments as they are.
//! A segment is a run of *chunks*, each a complete set of sections for some of its entries,
//! cut so that a chunk fits one block (before v5, one part): a reader parses each part in
//! place, with no copy. Only a
//! chunk larger than a part (one huge record) spans several parts, which are joined to read
//! it; its first part says how many (`chunk parts`; 0 on the parts that continue a chunk).
//!
//! Records are identified by their sequence number, which never changes and is never reused,
//! so tombstones name sequence numbers and a reader resolves versions without hashing ids.
//! Within a segment tombstones apply before puts; a later segment's version of a record, blob
//! or node replaces an earlier one; a node whose record is not live is ignored. Each part is a
//! value in the [`crate::envelope`] (kind `SegmentPart`) and carries its own generation and
//! numbers, so a part stored under the wrong key is caught and named (see [`crate::part`]).
//!
//! This module knows the byte format only; it imports neither the store nor the search index.

use alloc::format;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::part::{corrupt, PART_HEADER};

mod records;
mod view;
mod write;

pub use records::decode_records;

pub use view::{
    as_codes, chunk_codes, chunk_record_count, split_records, EntrySink, SegmentView, SplitChunk,
    TextCursor, TextEntries, TextView,
};
pub use write::{NodeEntry, RecordText, SegmentWriter, StoredVector};

pub use crate::commit::{decode_commit, encode_commit, Commit, SegmentInfo};
pub use crate::part::{
    read_chunks, split_parts, ChunkBytes, Parts, ReadSegment, DEFAULT_PART_BYTES, MIN_PART_BYTES,
};

const RECORDS: u8 = 1;
const VECTORS: u8 = 2;
const GONE_RECORDS: u8 = 3;
const BLOBS: u8 = 4;
const GONE_BLOBS: u8 = 5;
const NODES: u8 = 6;
const TEXT: u8 = 7;
const STATE: u8 = 8;
const GONE_STATE: u8 = 9;
const USES: u8 = 10;
const COMMIT: u8 = 11;
const CODES: u8 = 12;

/// The COMMIT section of a chunk (read from the part `key`), if it has one: found by walking
/// the section headers, without decoding the other sections.
pub fn commit_section<'a>(key: &str, chunk: &'a [u8]) -> Result<Option<&'a [u8]>> {
    let mut at = 0;
    while at < chunk.len() {
        let (tag, bytes, next) = next_section(key, chunk, at)?;
        if tag == COMMIT {
            return Ok(Some(bytes));
        }
        at = next;
    }
    Ok(None)
}

/// The section at `at`: its tag, its bytes and where the next one starts.
fn next_section<'a>(key: &str, body: &'a [u8], at: usize) -> Result<(u8, &'a [u8], usize)> {
    if body.len() - at < 5 {
        return Err(corrupt(key, "section header truncated"));
    }
    let tag = body[at];
    let len = u32::from_le_bytes(body[at + 1..at + 5].try_into().expect("4 bytes")) as usize;
    let start = at + 5;
    let bytes = body
        .get(start..start.saturating_add(len))
        .ok_or_else(|| corrupt(key, "section truncated"))?;
    Ok((tag, bytes, start + len))
}

fn section(body: &mut Vec<u8>, tag: u8, bytes: &[u8]) -> Result<()> {
    let len = u32::try_from(bytes.len()).map_err(|_| Error::Storage {
        message: "a segment section exceeds 4 GiB; flush more often".into(),
    })?;
    body.push(tag);
    body.extend_from_slice(&len.to_le_bytes());
    body.extend_from_slice(bytes);
    Ok(())
}

/// The decoded sections of one segment body. Vectors and nodes stay as bytes, read in place.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
}

/// Appends `v` as a LEB128 varint: the segments' integers, and the first doc of a posting
/// list ([`crate::index::posting_list`]).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes that MessagePack stores as one `bin` value, not as an array of numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> core::result::Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(
                self,
                v: Vec<u8>,
            ) -> core::result::Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_bytes(Visit)
    }
}

/// Decodes the little-endian floats of a vector.
pub fn read_f32s(bytes: &[u8], out: &mut Vec<f32>) {
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}
