//! Writing a segment ([`SegmentWriter`]): the sections of one body, cut into chunks that
//! each fit a part, the COMMIT section in the last (see [`super`] for the format).

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;

use super::*;
use crate::codec::to_msgpack;
use crate::error::{Error, Result};
use crate::item::ItemMeta;
use crate::record::{CompactNode, Record, Step};

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

/// A record's vector as a segment stores it: `f32` as given (VECTORS), or int8 codes under
/// the store's steps with the given vector's inverse norm (CODES, format v6).
#[derive(Debug, Clone, Copy)]
pub enum StoredVector<'a> {
    F32(&'a [f32]),
    Codes { codes: &'a [i8], inv_norm: f32 },
}

impl StoredVector<'_> {
    fn len(&self) -> usize {
        match self {
            StoredVector::F32(v) => v.len(),
            StoredVector::Codes { codes, .. } => codes.len(),
        }
    }
}

/// Builds the chunks of one segment, starting a new chunk when one reaches the block size.
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
    /// The CODES section: owners, inverse norms (f32 LE) and codes.
    code_owners: Vec<u32>,
    code_norms: Vec<u8>,
    code_data: Vec<u8>,
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
            + self.code_owners.len() * 8
            + self.code_data.len()
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
        if !self.code_owners.is_empty() {
            let n = self.code_owners.len();
            let mut v = Vec::with_capacity(8 + n * 8 + self.code_data.len());
            v.extend_from_slice(&self.dimension.to_le_bytes());
            v.extend_from_slice(&(n as u32).to_le_bytes());
            for o in &self.code_owners {
                v.extend_from_slice(&o.to_le_bytes());
            }
            v.extend_from_slice(&self.code_norms);
            v.extend_from_slice(&self.code_data);
            section(&mut body, CODES, &v)?;
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
    /// An empty segment whose chunks aim at one block ([`crate::block::BLOCK_BYTES`]), or at
    /// one part of `part_bytes` bytes when that is smaller.
    pub fn new(part_bytes: usize) -> Self {
        let part_share = part_bytes.max(MIN_PART_BYTES) - PART_HEADER - crate::envelope::HEADER_LEN;
        SegmentWriter {
            chunk_bytes: part_share.min(crate::block::BLOCK_BYTES)
                - crate::block::FRAME_HEADER
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

    /// Adds a record; its vector (the store's), if any, goes to the VECTORS or CODES block,
    /// and its text analysis, if given, to the TEXT section. Add records in sequence order.
    pub fn record(
        &mut self,
        r: &Record,
        vector: Option<StoredVector<'_>>,
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
        let vector_bytes = vector.map_or(0, |v| match v {
            StoredVector::F32(e) => e.len() * 4 + 4,
            StoredVector::Codes { codes, .. } => codes.len() + 8,
        });
        let text_bytes = text.map_or(0, |t| 8 + t.terms.len() * 8 + t.keys.len() * 4);
        self.room(self.scratch.len() + vector_bytes + text_bytes)?;
        self.current.add_text(text);
        let c = &mut self.current;
        c.records.extend_from_slice(&self.scratch);
        if let Some(v) = vector {
            if c.dimension == 0 {
                c.dimension = v.len() as u32;
            }
            if v.len() as u32 == c.dimension {
                match v {
                    StoredVector::F32(e) => {
                        c.vector_owners.push(c.record_count);
                        for x in e {
                            c.vector_data.extend_from_slice(&x.to_le_bytes());
                        }
                    }
                    StoredVector::Codes { codes, inv_norm } => {
                        c.code_owners.push(c.record_count);
                        c.code_norms.extend_from_slice(&inv_norm.to_le_bytes());
                        c.code_data.extend(codes.iter().map(|&x| x as u8));
                    }
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
