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
//!   └──────────────────────────────────────────────────────────────────────┘
//! ```
//! Format v3 added sections 8 to 10 and the `item` field of a record (a long-term memory
//! item, see [`crate::item`]); v3 writes every part and the commit with format version 3, so a
//! v2 build refuses a v3 store with `UNSUPPORTED_VERSION` rather than misread it. A v3 build
//! reads v2 stores as they are. Format v4 added section 11 and each segment's checksum in the
//! commit (see [`crate::commit`]): the newest segment of every change set carries the commit it
//! makes, so a store whose `head` is lost, torn or rolled back opens its newest commit. v4 reads
//! v2 and v3 segments as they are.
//! A segment is a run of *chunks*, each a complete set of sections for some of its entries,
//! cut so that a chunk fits one part: a reader parses each part in place, with no copy. Only a
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
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::codec::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::item::ItemMeta;
use crate::part::{corrupt, PART_HEADER};
use crate::record::{CompactNode, Record, Step};

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

/// A record as a segment stores it: every field but the vector, by name (as [`Record`]).
#[derive(Serialize)]
struct RecordFields<'a> {
    id: &'a str,
    seq: u64,
    thread: &'a str,
    user: &'a str,
    created_at: i64,
    input: &'a str,
    output: &'a str,
    steps: &'a [Step],
    parents: &'a [String],
    tags: &'a [String],
    importance: f32,
    compact: &'a Option<CompactNode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    item: &'a Option<alloc::boxed::Box<ItemMeta>>,
}

/// A graph node as the store hands it to a segment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeEntry {
    pub seq: u64,
    pub level: u8,
    /// Links per layer, layer 0 first, as sequence numbers.
    pub links: Vec<Vec<u64>>,
}

/// Builds the chunks of one segment, starting a new chunk when one reaches the part size.
#[derive(Debug)]
pub struct SegmentWriter {
    chunk_bytes: usize,
    done: Vec<Vec<u8>>,
    current: Chunk,
    /// One record's MessagePack, reused for every record.
    scratch: Vec<u8>,
    /// Entries written, of every kind.
    pub entries: u64,
}

/// The sections of one chunk being written.
#[derive(Debug, Default)]
struct Chunk {
    records: Vec<u8>,
    record_count: u32,
    vector_owners: Vec<u32>,
    vector_data: Vec<u8>,
    dimension: u32,
    gone_records: Vec<u8>,
    gone_count: u64,
    blobs: Vec<(String, String)>,
    blob_bytes: usize,
    gone_blobs: Vec<String>,
    nodes: Vec<u8>,
    node_count: u64,
    state: Vec<(String, Bytes)>,
    state_bytes: usize,
    gone_state: Vec<String>,
    uses: Vec<u8>,
    uses_count: u64,
    /// The TEXT section being built: its dictionary, the records' entries, and whether every
    /// record so far came with an analysis (else the chunk has no TEXT section).
    text_terms: hashbrown::HashMap<String, u32>,
    text_dict: Vec<u8>,
    text_entries: Vec<u8>,
    text_version: Option<(u8, u8)>,
    text_complete: bool,
}

/// A record's text analysis, as a segment stores it (see `search::postings::Analysis`).
#[derive(Debug, Clone, Copy)]
pub struct RecordText<'a> {
    /// The analysis version and the number of fields.
    pub version: u8,
    pub fields: u8,
    /// Field lengths, `fields` of them.
    pub lens: &'a [u32],
    pub keys_len: u32,
    /// Distinct terms and their frequency per field (`fields` bytes each).
    pub terms: &'a [(&'a str, &'a [u8])],
    /// Distinct derived-key terms and their frequency.
    pub keys: &'a [(&'a str, u8)],
}

impl Chunk {
    fn bytes(&self) -> usize {
        self.text_dict.len()
            + self.text_entries.len()
            + self.records.len()
            + self.vector_owners.len() * 4
            + self.vector_data.len()
            + self.gone_records.len()
            + self.blob_bytes
            + self.gone_blobs.len() * 24
            + self.nodes.len()
            + self.state_bytes
            + self.gone_state.len() * 24
            + self.uses.len()
    }

    fn is_empty(&self) -> bool {
        self.record_count == 0
            && self.gone_count == 0
            && self.blobs.is_empty()
            && self.gone_blobs.is_empty()
            && self.node_count == 0
            && self.state.is_empty()
            && self.gone_state.is_empty()
            && self.uses_count == 0
    }

    fn finish(self) -> Result<Vec<u8>> {
        let mut body = Vec::with_capacity(self.bytes() + 64);
        if self.record_count > 0 {
            // A MessagePack array header, then the records written one by one.
            let mut records = Vec::with_capacity(self.records.len() + 5);
            records.push(0xdd);
            records.extend_from_slice(&self.record_count.to_be_bytes());
            records.extend_from_slice(&self.records);
            section(&mut body, RECORDS, &records)?;
        }
        if !self.vector_owners.is_empty() {
            let mut v =
                Vec::with_capacity(8 + self.vector_owners.len() * 4 + self.vector_data.len());
            v.extend_from_slice(&self.dimension.to_le_bytes());
            v.extend_from_slice(&(self.vector_owners.len() as u32).to_le_bytes());
            for o in &self.vector_owners {
                v.extend_from_slice(&o.to_le_bytes());
            }
            v.extend_from_slice(&self.vector_data);
            section(&mut body, VECTORS, &v)?;
        }
        if self.gone_count > 0 {
            let mut g = Vec::with_capacity(self.gone_records.len() + 10);
            put_varint(&mut g, self.gone_count);
            g.extend_from_slice(&self.gone_records);
            section(&mut body, GONE_RECORDS, &g)?;
        }
        if !self.blobs.is_empty() {
            section(&mut body, BLOBS, &to_msgpack(&self.blobs)?)?;
        }
        if !self.gone_blobs.is_empty() {
            section(&mut body, GONE_BLOBS, &to_msgpack(&self.gone_blobs)?)?;
        }
        if self.node_count > 0 {
            let mut n = Vec::with_capacity(self.nodes.len() + 10);
            put_varint(&mut n, self.node_count);
            n.extend_from_slice(&self.nodes);
            section(&mut body, NODES, &n)?;
        }
        if !self.state.is_empty() {
            section(&mut body, STATE, &to_msgpack(&self.state)?)?;
        }
        if !self.gone_state.is_empty() {
            section(&mut body, GONE_STATE, &to_msgpack(&self.gone_state)?)?;
        }
        if self.uses_count > 0 {
            let mut u = Vec::with_capacity(self.uses.len() + 10);
            put_varint(&mut u, self.uses_count);
            u.extend_from_slice(&self.uses);
            section(&mut body, USES, &u)?;
        }
        if let (true, Some((version, fields))) = (self.text_complete, self.text_version) {
            if self.record_count > 0 {
                let mut t = Vec::with_capacity(self.text_dict.len() + self.text_entries.len() + 12);
                t.push(version);
                t.push(fields);
                put_varint(&mut t, self.text_terms.len() as u64);
                t.extend_from_slice(&self.text_dict);
                t.extend_from_slice(&self.text_entries);
                section(&mut body, TEXT, &t)?;
            }
        }
        Ok(body)
    }

    /// Appends a record's analysis to the TEXT section.
    fn add_text(&mut self, text: Option<&RecordText<'_>>) {
        let first = self.record_count == 0;
        let Some(meta) = text else {
            self.text_complete = false;
            return;
        };
        if first {
            self.text_version = Some((meta.version, meta.fields));
            self.text_complete = true;
        } else if self.text_version != Some((meta.version, meta.fields)) {
            self.text_complete = false;
        }
        if !self.text_complete {
            return;
        }
        let e = &mut self.text_entries;
        for &l in meta.lens {
            put_varint(e, u64::from(l));
        }
        put_varint(e, u64::from(meta.keys_len));
        put_varint(e, meta.terms.len() as u64);
        for &(term, tf) in meta.terms {
            let id = local_id(&mut self.text_terms, &mut self.text_dict, term);
            put_varint(&mut self.text_entries, u64::from(id));
            self.text_entries.extend_from_slice(tf);
        }
        put_varint(&mut self.text_entries, meta.keys.len() as u64);
        for &(term, tf) in meta.keys {
            let id = local_id(&mut self.text_terms, &mut self.text_dict, term);
            put_varint(&mut self.text_entries, u64::from(id));
            self.text_entries.push(tf);
        }
    }
}

/// The chunk-local id of a term, added to the chunk's dictionary if new.
fn local_id(ids: &mut hashbrown::HashMap<String, u32>, dict: &mut Vec<u8>, term: &str) -> u32 {
    if let Some(&id) = ids.get(term) {
        return id;
    }
    let id = ids.len() as u32;
    ids.insert(term.into(), id);
    put_varint(dict, term.len() as u64);
    dict.extend_from_slice(term.as_bytes());
    id
}

impl SegmentWriter {
    /// An empty segment whose chunks aim at `part_bytes` bytes.
    pub fn new(part_bytes: usize) -> Self {
        SegmentWriter {
            chunk_bytes: part_bytes.max(MIN_PART_BYTES)
                - PART_HEADER
                - crate::envelope::HEADER_LEN
                - 64,
            done: Vec::new(),
            current: Chunk::default(),
            scratch: Vec::new(),
            entries: 0,
        }
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Starts a new chunk if `more` bytes would not fit the current one.
    fn room(&mut self, more: usize) -> Result<()> {
        if !self.current.is_empty() && self.current.bytes() + more > self.chunk_bytes {
            let full = core::mem::take(&mut self.current);
            self.done.push(full.finish()?);
        }
        Ok(())
    }

    /// Adds a record; its `embedding` (the store's, see [`crate::Store::embedding`]), if any,
    /// goes to the vector block, and its text analysis, if given, to the TEXT section. Add
    /// records in sequence order.
    pub fn record(
        &mut self,
        r: &Record,
        embedding: Option<&[f32]>,
        text: Option<&RecordText<'_>>,
    ) -> Result<()> {
        let fields = RecordFields {
            id: &r.id,
            seq: r.seq,
            thread: &r.thread,
            user: &r.user,
            created_at: r.created_at,
            input: &r.input,
            output: &r.output,
            steps: &r.steps,
            parents: &r.parents,
            tags: &r.tags,
            importance: r.importance,
            compact: &r.compact,
            item: &r.item,
        };
        self.scratch.clear();
        rmp_serde::encode::write_named(&mut self.scratch, &fields).map_err(|e| Error::Storage {
            message: e.to_string(),
        })?;
        let vector = embedding.map_or(0, |e| e.len() * 4 + 4);
        let text_bytes = text.map_or(0, |t| 8 + t.terms.len() * 8 + t.keys.len() * 4);
        self.room(self.scratch.len() + vector + text_bytes)?;
        self.current.add_text(text);
        let c = &mut self.current;
        c.records.extend_from_slice(&self.scratch);
        if let Some(e) = embedding {
            if c.dimension == 0 {
                c.dimension = e.len() as u32;
            }
            if e.len() as u32 == c.dimension {
                c.vector_owners.push(c.record_count);
                for x in e {
                    c.vector_data.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        c.record_count += 1;
        self.entries += 1;
        Ok(())
    }

    /// Adds the tombstone of the record with sequence number `seq`.
    pub fn gone_record(&mut self, seq: u64) -> Result<()> {
        self.room(10)?;
        put_varint(&mut self.current.gone_records, seq);
        self.current.gone_count += 1;
        self.entries += 1;
        Ok(())
    }

    /// Adds a blob.
    pub fn blob(&mut self, id: &str, text: &str) -> Result<()> {
        self.room(id.len() + text.len() + 16)?;
        self.current.blob_bytes += id.len() + text.len() + 16;
        self.current.blobs.push((id.into(), text.into()));
        self.entries += 1;
        Ok(())
    }

    /// Adds a blob tombstone.
    pub fn gone_blob(&mut self, id: &str) -> Result<()> {
        self.room(24)?;
        self.current.gone_blobs.push(id.into());
        self.entries += 1;
        Ok(())
    }

    /// Adds a named internal document (see [`crate::state`]).
    pub fn state(&mut self, name: &str, value: &[u8]) -> Result<()> {
        let size = name.len() + value.len() + 16;
        self.room(size)?;
        self.current.state_bytes += size;
        self.current
            .state
            .push((name.into(), Bytes(value.to_vec())));
        self.entries += 1;
        Ok(())
    }

    /// Adds the tombstone of a named internal document.
    pub fn gone_state(&mut self, name: &str) -> Result<()> {
        self.room(name.len() + 8)?;
        self.current.gone_state.push(name.into());
        self.entries += 1;
        Ok(())
    }

    /// Adds the use count of the record with sequence number `seq`.
    pub fn uses(&mut self, seq: u64, uses: u32) -> Result<()> {
        self.room(16)?;
        put_varint(&mut self.current.uses, seq);
        put_varint(&mut self.current.uses, u64::from(uses));
        self.current.uses_count += 1;
        self.entries += 1;
        Ok(())
    }

    /// Adds a graph node.
    pub fn node(&mut self, seq: u64, level: u8, links: &[&[u64]]) -> Result<()> {
        let estimate = 12 + links.iter().map(|l| 2 + l.len() * 5).sum::<usize>();
        self.room(estimate)?;
        let c = &mut self.current;
        put_varint(&mut c.nodes, seq);
        c.nodes.push(level);
        for layer in links {
            put_varint(&mut c.nodes, layer.len() as u64);
            for &s in *layer {
                put_varint(&mut c.nodes, s);
            }
        }
        c.node_count += 1;
        self.entries += 1;
        Ok(())
    }

    /// The segment's chunks.
    pub fn finish(mut self) -> Result<Vec<Vec<u8>>> {
        if !self.current.is_empty() {
            let last = core::mem::take(&mut self.current);
            self.done.push(last.finish()?);
        }
        Ok(self.done)
    }

    /// The segment's chunks, the last one carrying `commit` (an encoded
    /// [`crate::commit::Commit`]) as its COMMIT section; a segment with no entries is one
    /// chunk holding only that section.
    pub fn finish_with_commit(self, commit: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut chunks = self.finish()?;
        if chunks.is_empty() {
            chunks.push(Vec::new());
        }
        let last = chunks.last_mut().expect("one chunk at least");
        section(last, COMMIT, commit)?;
        Ok(chunks)
    }
}

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
#[derive(Debug, Default)]
pub struct SegmentView<'a> {
    pub records: Vec<Record>,
    /// `(record index, vector bytes)` pairs come from [`SegmentView::vector`].
    pub dimension: usize,
    owners: &'a [u8],
    vector_data: &'a [u8],
    pub gone_records: Vec<u64>,
    pub blobs: Vec<(String, String)>,
    pub gone_blobs: Vec<String>,
    nodes: &'a [u8],
    node_count: u64,
    /// Named internal documents, and the names of removed ones.
    pub state: Vec<(String, Bytes)>,
    pub gone_state: Vec<String>,
    /// `(seq, uses)` pairs.
    pub uses: Vec<(u64, u32)>,
    /// The TEXT section, when the chunk has one: version, fields, dictionary, and the byte
    /// offset of each record's entry.
    pub text: Option<TextView<'a>>,
    /// The COMMIT section, undecoded: the last chunk of a v4 segment has one.
    pub commit: Option<&'a [u8]>,
}

/// A chunk's TEXT section, read in place.
#[derive(Debug, Default)]
pub struct TextView<'a> {
    pub version: u8,
    pub fields: u8,
    /// The chunk's terms, by local id.
    pub dict: Vec<&'a str>,
    entries: &'a [u8],
    offsets: Vec<usize>,
}

impl<'a> TextView<'a> {
    fn parse(bytes: &'a [u8], records: usize) -> Option<Self> {
        let (&version, rest) = bytes.split_first()?;
        let (&fields, _) = rest.split_first()?;
        let mut r = Reader { bytes, at: 2 };
        let n = r.varint()? as usize;
        let mut dict = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            let len = r.varint()? as usize;
            let s = bytes.get(r.at..r.at.checked_add(len)?)?;
            dict.push(core::str::from_utf8(s).ok()?);
            r.at += len;
        }
        let entries = &bytes[r.at..];
        let mut e = Reader {
            bytes: entries,
            at: 0,
        };
        let mut offsets = Vec::with_capacity(records);
        for _ in 0..records {
            offsets.push(e.at);
            for _ in 0..=fields {
                e.varint()?;
            }
            let m = e.varint()? as usize;
            for _ in 0..m {
                if e.varint()? as usize >= dict.len() {
                    return None;
                }
                e.at = e.at.checked_add(fields as usize)?;
            }
            let k = e.varint()? as usize;
            for _ in 0..k {
                if e.varint()? as usize >= dict.len() {
                    return None;
                }
                e.at += 1;
            }
            if e.at > entries.len() {
                return None;
            }
        }
        Some(TextView {
            version,
            fields,
            dict,
            entries,
            offsets,
        })
    }

    /// The entry of record `ri`: calls `lens(field lengths, key length)`, then `term(local id,
    /// tf per field)` per term, then `key(local id, tf)` per derived key. Entries were
    /// checked by the parse.
    pub fn entry(
        &self,
        ri: usize,
        lens: &mut dyn FnMut(&[u32], u32),
        term: &mut dyn FnMut(u32, &[u8]),
        key: &mut dyn FnMut(u32, u8),
    ) {
        let fields = self.fields as usize;
        let mut r = Reader {
            bytes: self.entries,
            at: self.offsets[ri],
        };
        let mut l = [0u32; 16];
        for x in l.iter_mut().take(fields.min(16)) {
            *x = r.varint().unwrap_or(0) as u32;
        }
        let keys_len = r.varint().unwrap_or(0) as u32;
        lens(&l[..fields.min(16)], keys_len);
        let m = r.varint().unwrap_or(0);
        for _ in 0..m {
            let id = r.varint().unwrap_or(0) as u32;
            let tf = &self.entries[r.at..r.at + fields];
            r.at += fields;
            term(id, tf);
        }
        let k = r.varint().unwrap_or(0);
        for _ in 0..k {
            let id = r.varint().unwrap_or(0) as u32;
            let tf = r.byte().unwrap_or(0);
            key(id, tf);
        }
    }
}

impl<'a> SegmentView<'a> {
    /// Decodes a chunk; `key` (its first part) is named in errors. Not inlined, as the steps
    /// of opening a store are not (see `load_v2` in [`crate::storage`]).
    #[inline(never)]
    pub fn parse(key: &str, body: &'a [u8]) -> Result<Self> {
        let mut view = SegmentView::default();
        let mut text: Option<&'a [u8]> = None;
        let mut at = 0;
        while at < body.len() {
            let (tag, bytes, next) = next_section(key, body, at)?;
            at = next;
            match tag {
                RECORDS => view.records = from_msgpack(key, bytes)?,
                VECTORS => {
                    if bytes.len() < 8 {
                        return Err(corrupt(key, "vector block truncated"));
                    }
                    let dim = u32::from_le_bytes(bytes[0..4].try_into().expect("4")) as usize;
                    let count = u32::from_le_bytes(bytes[4..8].try_into().expect("4")) as usize;
                    let owners_end = 8 + count * 4;
                    if dim == 0 || bytes.len() != owners_end + count * dim * 4 {
                        return Err(corrupt(key, "vector block has the wrong length"));
                    }
                    view.dimension = dim;
                    view.owners = &bytes[8..owners_end];
                    view.vector_data = &bytes[owners_end..];
                }
                GONE_RECORDS => {
                    let mut r = Reader { bytes, at: 0 };
                    let bad = || corrupt(key, "tombstones malformed");
                    let n = r.varint().ok_or_else(bad)?;
                    for _ in 0..n {
                        view.gone_records.push(r.varint().ok_or_else(bad)?);
                    }
                }
                BLOBS => view.blobs = from_msgpack(key, bytes)?,
                GONE_BLOBS => view.gone_blobs = from_msgpack(key, bytes)?,
                NODES => {
                    let mut r = Reader { bytes, at: 0 };
                    view.node_count = r.varint().ok_or_else(|| corrupt(key, "node count"))?;
                    view.nodes = &bytes[r.at..];
                }
                TEXT => text = Some(bytes),
                COMMIT => view.commit = Some(bytes),
                STATE => view.state = from_msgpack(key, bytes)?,
                GONE_STATE => view.gone_state = from_msgpack(key, bytes)?,
                USES => {
                    let mut r = Reader { bytes, at: 0 };
                    let bad = || corrupt(key, "use counts malformed");
                    let n = r.varint().ok_or_else(bad)?;
                    for _ in 0..n {
                        let seq = r.varint().ok_or_else(bad)?;
                        let uses = r.varint().ok_or_else(bad)?;
                        view.uses
                            .push((seq, u32::try_from(uses).map_err(|_| bad())?));
                    }
                }
                other => {
                    return Err(corrupt(key, &format!("unknown section {other}")));
                }
            }
        }
        for i in 0..view.vector_count() {
            if view.vector_owner(i) as usize >= view.records.len() {
                return Err(corrupt(key, "a vector names no record"));
            }
        }
        if let Some(bytes) = text {
            view.text = Some(
                TextView::parse(bytes, view.records.len())
                    .ok_or_else(|| corrupt(key, "text section malformed"))?,
            );
        }
        Ok(view)
    }

    /// Number of vectors.
    pub fn vector_count(&self) -> usize {
        self.owners.len() / 4
    }

    /// The record index owning vector `i`.
    pub fn vector_owner(&self, i: usize) -> u32 {
        u32::from_le_bytes(self.owners[i * 4..i * 4 + 4].try_into().expect("4 bytes"))
    }

    /// The little-endian bytes of vector `i`.
    pub fn vector_bytes(&self, i: usize) -> &'a [u8] {
        let len = self.dimension * 4;
        &self.vector_data[i * len..(i + 1) * len]
    }

    /// Calls `f(seq, level, offset)` for every node; `offset` reads its links with
    /// [`SegmentView::node_links`]. Fails on a malformed node.
    pub fn for_each_node(&self, key: &str, mut f: impl FnMut(u64, u8, usize)) -> Result<()> {
        let mut r = Reader {
            bytes: self.nodes,
            at: 0,
        };
        let bad = || corrupt(key, "node block malformed");
        for _ in 0..self.node_count {
            let seq = r.varint().ok_or_else(bad)?;
            let level = r.byte().ok_or_else(bad)?;
            if level > 16 {
                return Err(bad());
            }
            let offset = r.at;
            for _ in 0..=level {
                let n = r.varint().ok_or_else(bad)?;
                for _ in 0..n {
                    r.varint().ok_or_else(bad)?;
                }
            }
            f(seq, level, offset);
        }
        Ok(())
    }

    /// The links of the node whose layers start at `offset`, layer by layer: calls
    /// `f(layer, seq)` for each link. Only for offsets given by [`SegmentView::for_each_node`].
    pub fn node_links(&self, offset: usize, level: u8, mut f: impl FnMut(u8, u64)) {
        let mut r = Reader {
            bytes: self.nodes,
            at: offset,
        };
        for lc in 0..=level {
            let n = r.varint().unwrap_or(0);
            for _ in 0..n {
                f(lc, r.varint().unwrap_or(0));
            }
        }
    }
}

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

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
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
