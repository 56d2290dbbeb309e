//! Reading a segment body in place ([`SegmentView`], [`TextView`]): records decoded, vectors,
//! graph links and postings left as bytes (see [`super`] for the format).

use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::codec::from_msgpack;
use crate::error::Result;
use crate::record::Record;

/// A chunk split by an open that frees each part as it reads it (see `storage::owned`).
#[derive(Debug, Default)]
pub struct SplitChunk<'b> {
    /// The RECORDS section's records, decoded.
    pub records: Vec<Record>,
    /// The other sections as they are stored, but the CODES section's codes when they were
    /// moved out: read back with [`SegmentView::parse_apart`].
    pub rest: Vec<u8>,
    /// The CODES section's codes (`dim` bytes a vector), when moved out; else empty.
    pub codes: &'b [u8],
    /// The TEXT section, always left out of the rest (empty without one): an open frees it
    /// once it has read the entries of the chunk's records.
    pub text: &'b [u8],
}

/// The vectors a chunk holds, by its section headers: the dimension and count of its CODES
/// section (0 and 0 without one), which must be as long as they say, and whether it has a
/// VECTORS section.
pub fn chunk_codes(key: &str, body: &[u8]) -> Result<(usize, usize, bool)> {
    let (mut dim, mut count, mut vectors) = (0, 0, false);
    let mut at = 0;
    while at < body.len() {
        let (tag, bytes, next) = next_section(key, body, at)?;
        if tag == VECTORS {
            vectors = true;
        } else if tag == CODES {
            // Checked as the chunk's parse checks it, so that the count sizes nothing the
            // section does not hold.
            code_header_len(bytes)
                .ok_or_else(|| corrupt(key, "code block has the wrong length"))?;
            dim = u32::from_le_bytes(bytes[0..4].try_into().expect("4")) as usize;
            count = u32::from_le_bytes(bytes[4..8].try_into().expect("4")) as usize;
        }
        at = next;
    }
    Ok((dim, count, vectors))
}

/// Splits a chunk: its records decoded, its TEXT section apart, and the rest kept as stored;
/// with `move_codes`, the CODES section's codes are left out of the rest and returned apart.
/// Every section but RECORDS is checked when read back (the rest with
/// [`SegmentView::parse_apart`], the text with [`TextView::parse`]).
pub fn split_records<'b>(key: &str, body: &'b [u8], move_codes: bool) -> Result<SplitChunk<'b>> {
    let mut split = SplitChunk::default();
    // The sections the rest keeps, with the length each keeps, first: the rest is then
    // allocated once at its size, as these copies are most of what such an open holds beside
    // the store.
    let mut keep: Vec<(usize, usize, u8)> = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let (tag, bytes, next) = next_section(key, body, at)?;
        if tag == RECORDS {
            split.records = decode_records(key, bytes)?;
        } else if tag == TEXT {
            split.text = bytes;
        } else if tag == CODES && move_codes {
            let kept = code_header_len(bytes)
                .ok_or_else(|| corrupt(key, "code block has the wrong length"))?;
            split.codes = &bytes[kept..];
            keep.push((at, kept, tag));
        } else {
            keep.push((at, bytes.len(), tag));
        }
        at = next;
    }
    let size = keep.iter().map(|&(_, len, _)| 5 + len).sum();
    crate::room::reserve(&mut split.rest, size, "a copy of a part's sections")?;
    for (at, len, tag) in keep {
        split.rest.push(tag);
        split.rest.extend_from_slice(&(len as u32).to_le_bytes());
        split.rest.extend_from_slice(&body[at + 5..at + 5 + len]);
    }
    Ok(split)
}

/// Stored codes as the signed bytes they are.
pub fn as_codes(bytes: &[u8]) -> &[i8] {
    // SAFETY: i8 and u8 have the same size and alignment, and every bit pattern is valid for
    // both.
    unsafe { core::slice::from_raw_parts(bytes.as_ptr() as *const i8, bytes.len()) }
}

/// The length of a CODES section without its codes (dim, count, owners, norms), when the
/// section is as long as they say.
fn code_header_len(bytes: &[u8]) -> Option<usize> {
    let dim = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?) as usize;
    let count = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?) as usize;
    let header = count.checked_mul(8)?.checked_add(8)?;
    (bytes.len() == header.checked_add(count.checked_mul(dim)?)?).then_some(header)
}

/// How many records a chunk's RECORDS section says it holds, by its array header; 0 when the
/// chunk has none or the header is not an array's. Sizes the one array an open decodes every
/// chunk's records into before any is decoded: a count that is wrong costs a regrowth, as
/// the section is then decoded (and checked) in full.
pub fn chunk_record_count(body: &[u8]) -> usize {
    let Some(bytes) = first_records_section(body) else {
        return 0;
    };
    let count = match bytes {
        [b @ 0x90..=0x9f, ..] => usize::from(b & 0x0f),
        [0xdc, a, b, ..] => usize::from(u16::from_be_bytes([*a, *b])),
        [0xdd, a, b, c, d, ..] => u32::from_be_bytes([*a, *b, *c, *d]) as usize,
        _ => 0,
    };
    // A record takes a byte at least: a larger count is not the section's.
    count.min(bytes.len())
}

/// The RECORDS section's bytes, when the chunk's section headers read up to it.
fn first_records_section(body: &[u8]) -> Option<&[u8]> {
    let mut at = 0;
    while at < body.len() {
        let (tag, bytes, next) = next_section("", body, at).ok()?;
        if tag == RECORDS {
            return Some(bytes);
        }
        at = next;
    }
    None
}

#[derive(Debug, Default)]
pub struct SegmentView<'a> {
    /// The RECORDS section's records, decoded; empty when the open holds them apart.
    pub records: Vec<Record>,
    /// How many records the chunk has (in `records`, or held apart).
    pub record_count: usize,
    /// `(record index, vector bytes)` pairs come from [`SegmentView::vector_bytes`].
    pub dimension: usize,
    owners: &'a [u8],
    vector_data: &'a [u8],
    /// The CODES section: owners, inverse norms and codes.
    code_owners: &'a [u8],
    code_norms: &'a [u8],
    code_data: &'a [u8],
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
    /// The TEXT section, when the chunk has one: version, fields, dictionary, and the
    /// records' entries, read on demand.
    pub text: Option<TextView<'a>>,
    /// The COMMIT section, undecoded: the last chunk of a v4 segment has one.
    pub commit: Option<&'a [u8]>,
}

/// A chunk's TEXT section, read in place: its dictionary on parse, its records' entries one
/// at a time through a [`TextCursor`], each checked as it is read.
#[derive(Debug, Default)]
pub struct TextView<'a> {
    pub version: u8,
    pub fields: u8,
    /// The chunk's terms, by local id.
    pub dict: Vec<&'a str>,
    entries: &'a [u8],
}

/// A chunk's text entries apart from its dictionary, of which they need only the size: what
/// an open reads in record order (see [`TextView::entries`]).
#[derive(Debug, Clone, Copy)]
pub struct TextEntries<'e> {
    fields: u8,
    terms: u64,
    bytes: &'e [u8],
}

/// Where a forward walk over a [`TextView`]'s entries stands: the index of the next entry and
/// its byte offset. An open reads a chunk's entries in record order, so each is found by
/// reading on from the last one read, where a table of every entry's offset took a walk over
/// the whole section before the first could be read (without it, a warm open of the LoCoMo
/// workload's 10k records in wasm takes 0.92x the time).
#[derive(Debug, Clone, Copy, Default)]
pub struct TextCursor {
    next: usize,
    at: usize,
}

/// The entry reader's callbacks: `lens(field lengths, key length)`, then `term(local id, tf
/// per field)` per term, then `key(local id, tf)` per derived key.
pub struct EntrySink<'s> {
    pub lens: &'s mut dyn FnMut(&[u32], u32),
    pub term: &'s mut dyn FnMut(u32, &[u8]),
    pub key: &'s mut dyn FnMut(u32, u8),
}

impl<'a> TextView<'a> {
    /// The section's header and dictionary; `None` when they are malformed. The entries are
    /// checked as [`TextEntries::entry`] reads them. Not inlined into [`SegmentView::parse`]: a
    /// wasm engine optimizes a small function called once a chunk sooner than the large one
    /// around it (see `restore_v2` in [`crate::storage`]).
    #[inline(never)]
    pub fn parse(bytes: &'a [u8]) -> Option<Self> {
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
        Some(TextView {
            version,
            fields,
            dict,
            entries: &bytes[r.at..],
        })
    }

    /// The entries, to read apart from the dictionary.
    pub fn entries(&self) -> TextEntries<'a> {
        TextEntries {
            fields: self.fields,
            terms: self.dict.len() as u64,
            bytes: self.entries,
        }
    }
}

impl<'e> TextEntries<'e> {
    /// The entries `bytes` of a section of `fields` fields and a dictionary of `terms` terms.
    pub fn new(fields: u8, terms: u64, bytes: &'e [u8]) -> Self {
        TextEntries {
            fields,
            terms,
            bytes,
        }
    }

    /// The bytes of the entries.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Reads the entry of record `ri` into `sink`, reading on from `cursor` (past the entries
    /// before it, which are checked too); `None` when an entry up to it is malformed: a term
    /// outside the dictionary, or bytes past the section's end. `sink` may have been called
    /// for part of a malformed entry. A record before the cursor starts the walk over.
    pub fn entry(&self, cursor: &mut TextCursor, ri: usize, sink: &mut EntrySink) -> Option<()> {
        if ri < cursor.next {
            *cursor = TextCursor::default();
        }
        while cursor.next < ri {
            cursor.at = self.read_entry(cursor.at, None)?;
            cursor.next += 1;
        }
        cursor.at = self.read_entry(cursor.at, Some(sink))?;
        cursor.next += 1;
        Some(())
    }

    /// Reads the entry at byte `at`, into `sink` if given; returns the offset after it.
    fn read_entry(&self, at: usize, mut sink: Option<&mut EntrySink>) -> Option<usize> {
        let fields = self.fields as usize;
        let terms = self.terms;
        let mut r = Reader {
            bytes: self.bytes,
            at,
        };
        let mut l = [0u32; 16];
        for x in l.iter_mut().take(fields.min(16)) {
            *x = r.varint()? as u32;
        }
        for _ in 16..fields {
            r.varint()?;
        }
        let keys_len = r.varint()? as u32;
        if let Some(s) = sink.as_deref_mut() {
            (s.lens)(&l[..fields.min(16)], keys_len);
        }
        let m = r.varint()?;
        for _ in 0..m {
            let id = r.varint()?;
            let tf = self.bytes.get(r.at..r.at.checked_add(fields)?)?;
            if id >= terms {
                return None;
            }
            r.at += fields;
            if let Some(s) = sink.as_deref_mut() {
                (s.term)(id as u32, tf);
            }
        }
        let k = r.varint()?;
        for _ in 0..k {
            let id = r.varint()?;
            let tf = r.byte()?;
            if id >= terms {
                return None;
            }
            if let Some(s) = sink.as_deref_mut() {
                (s.key)(id as u32, tf);
            }
        }
        Some(r.at)
    }
}

impl<'a> SegmentView<'a> {
    /// Decodes a chunk; `key` (its first part) is named in errors.
    pub fn parse(key: &str, body: &'a [u8]) -> Result<Self> {
        SegmentView::parse_apart(key, body, None, false)
    }

    /// As [`SegmentView::parse`], and for the rest of a chunk split by [`split_records`]:
    /// with `records_apart`, the number of its RECORDS section's records, held apart by the
    /// open (the view's `records` stay empty), and `codes_moved` says that its CODES section
    /// lacks the codes (then [`SegmentView::codes`] gives none). Not inlined, as the steps of
    /// opening a store are not (see `load_v2` in [`crate::storage`]).
    #[inline(never)]
    pub fn parse_apart(
        key: &str,
        body: &'a [u8],
        records_apart: Option<usize>,
        codes_moved: bool,
    ) -> Result<Self> {
        let mut view = SegmentView {
            record_count: records_apart.unwrap_or(0),
            ..SegmentView::default()
        };
        let mut text: Option<&'a [u8]> = None;
        let mut at = 0;
        while at < body.len() {
            let (tag, bytes, next) = next_section(key, body, at)?;
            at = next;
            match tag {
                RECORDS => {
                    view.records = decode_records(key, bytes)?;
                    view.record_count = view.records.len();
                }
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
                    if view.dimension != 0 && view.dimension != dim {
                        return Err(corrupt(key, "vector blocks of two dimensions"));
                    }
                    view.dimension = dim;
                    view.owners = &bytes[8..owners_end];
                    view.vector_data = &bytes[owners_end..];
                }
                CODES => {
                    if bytes.len() < 8 {
                        return Err(corrupt(key, "code block truncated"));
                    }
                    let dim = u32::from_le_bytes(bytes[0..4].try_into().expect("4")) as usize;
                    let count = u32::from_le_bytes(bytes[4..8].try_into().expect("4")) as usize;
                    let owners_end = 8 + count * 4;
                    let norms_end = owners_end + count * 4;
                    let data = if codes_moved { 0 } else { count * dim };
                    if dim == 0 || bytes.len() != norms_end + data {
                        return Err(corrupt(key, "code block has the wrong length"));
                    }
                    if view.dimension != 0 && view.dimension != dim {
                        return Err(corrupt(key, "vector blocks of two dimensions"));
                    }
                    let finite_positive = bytes[owners_end..norms_end].chunks_exact(4).all(|c| {
                        let n = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                        n.is_finite() && n > 0.0
                    });
                    if !finite_positive {
                        return Err(corrupt(key, "a coded vector's norm is not finite"));
                    }
                    view.dimension = dim;
                    view.code_owners = &bytes[8..owners_end];
                    view.code_norms = &bytes[owners_end..norms_end];
                    view.code_data = &bytes[norms_end..];
                }
                NODES => {
                    let mut r = Reader { bytes, at: 0 };
                    view.node_count = r.varint().ok_or_else(|| corrupt(key, "node count"))?;
                    view.nodes = &bytes[r.at..];
                }
                TEXT => text = Some(bytes),
                COMMIT => view.commit = Some(bytes),
                _ => view.small_section(key, tag, bytes)?,
            }
        }
        view.check_owners(key)?;
        if let Some(bytes) = text {
            view.text =
                Some(TextView::parse(bytes).ok_or_else(|| corrupt(key, "text section malformed"))?);
        }
        Ok(view)
    }

    /// The sections a chunk has few of, or none: tombstones, blobs, documents, use counts; any
    /// other tag is an unknown section. Out of `parse`, whose loop over the sections runs in every
    /// open: the MessagePack decoders made `parse` a 22 KB function, which V8 spent about 60 ms of
    /// background compiling on in the first open of 10k records, while the functions that restore
    /// the vectors and the graph waited behind it in the same queue.
    #[inline(never)]
    fn small_section(&mut self, key: &str, tag: u8, bytes: &'a [u8]) -> Result<()> {
        match tag {
            GONE_RECORDS => {
                let mut r = Reader { bytes, at: 0 };
                let bad = || corrupt(key, "tombstones malformed");
                let n = r.varint().ok_or_else(bad)?;
                for _ in 0..n {
                    self.gone_records.push(r.varint().ok_or_else(bad)?);
                }
            }
            BLOBS => self.blobs = from_msgpack(key, bytes)?,
            GONE_BLOBS => self.gone_blobs = from_msgpack(key, bytes)?,
            STATE => self.state = from_msgpack(key, bytes)?,
            GONE_STATE => self.gone_state = from_msgpack(key, bytes)?,
            USES => {
                let mut r = Reader { bytes, at: 0 };
                let bad = || corrupt(key, "use counts malformed");
                let n = r.varint().ok_or_else(bad)?;
                for _ in 0..n {
                    let seq = r.varint().ok_or_else(bad)?;
                    let uses = r.varint().ok_or_else(bad)?;
                    self.uses
                        .push((seq, u32::try_from(uses).map_err(|_| bad())?));
                }
            }
            other => return Err(corrupt(key, &format!("unknown section {other}"))),
        }
        Ok(())
    }

    /// Fails unless every vector names a record of the chunk, and no record has two.
    #[inline(never)]
    fn check_owners(&self, key: &str) -> Result<()> {
        let mut owned = alloc::vec![false; self.record_count];
        let owners = (0..self.vector_count())
            .map(|i| self.vector_owner(i))
            .chain((0..self.code_count()).map(|i| self.code_owner(i)));
        for o in owners {
            match owned.get_mut(o as usize) {
                None => return Err(corrupt(key, "a vector names no record")),
                Some(true) => return Err(corrupt(key, "a record has two vectors")),
                Some(seen) => *seen = true,
            }
        }
        Ok(())
    }

    /// The records a damaged chunk still yields, read one by one from the start of its
    /// RECORDS section up to the first that does not decode; `true` when every one did. For a
    /// best guess at what a damaged block held: its bytes are not to be trusted otherwise.
    pub fn readable_records(body: &[u8]) -> (Vec<Record>, bool) {
        use serde::Deserialize;
        let mut out = Vec::new();
        let Some(bytes) = first_records_section(body) else {
            return (out, false);
        };
        if bytes.len() < 5 || bytes[0] != 0xdd {
            return (out, false);
        }
        let count = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]) as usize;
        let mut de = crate::msgpack::Reader::new(&bytes[5..]);
        for _ in 0..count {
            match Record::deserialize(&mut de) {
                Ok(r) => out.push(r),
                Err(_) => return (out, false),
            }
        }
        (out, true)
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

    /// Number of vectors stored as codes.
    pub fn code_count(&self) -> usize {
        self.code_owners.len() / 4
    }

    /// The record index owning coded vector `i`.
    pub fn code_owner(&self, i: usize) -> u32 {
        u32::from_le_bytes(
            self.code_owners[i * 4..i * 4 + 4]
                .try_into()
                .expect("4 bytes"),
        )
    }

    /// The codes of coded vector `i` and the inverse norm of the vector they were made from
    /// (no codes when they were moved out, see [`split_records`]).
    pub fn codes(&self, i: usize) -> (&'a [i8], f32) {
        let bytes = self
            .code_data
            .get(i * self.dimension..(i + 1) * self.dimension)
            .unwrap_or_default();
        let codes = as_codes(bytes);
        let n = u32::from_le_bytes(self.code_norms[i * 4..i * 4 + 4].try_into().expect("4"));
        (codes, f32::from_bits(n))
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

    /// The links of the node whose layers start at `offset`, layer by layer: appends
    /// `(layer, seq)` to `out` for each link. Only for offsets given by
    /// [`SegmentView::for_each_node`].
    pub fn node_links(&self, offset: usize, level: u8, out: &mut Vec<(u8, u64)>) {
        let mut r = Reader {
            bytes: self.nodes,
            at: offset,
        };
        for lc in 0..=level {
            let n = r.varint().unwrap_or(0);
            for _ in 0..n {
                out.push((lc, r.varint().unwrap_or(0)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count is read from the RECORDS section's array header, in each of MessagePack's
    /// three array forms; a chunk without the section, or with a header that is no array's or
    /// counts more records than the section has bytes, gives 0 or the section's length.
    #[test]
    fn a_chunks_record_count_is_its_records_array_header() {
        let chunk = |records: &[u8]| {
            let mut body = Vec::new();
            super::super::section(&mut body, TEXT, &[3, 2, 0]).unwrap();
            super::super::section(&mut body, RECORDS, records).unwrap();
            body
        };
        let mut array16 = alloc::vec![0xdc, 0x01, 0x2c];
        array16.resize(3 + 300, 0xc0);
        let mut array32 = alloc::vec![0xdd, 0, 0x01, 0x11, 0x70];
        array32.resize(5 + 70_000, 0xc0);
        assert_eq!(chunk_record_count(&chunk(&[0x93, 0xc0, 0xc0, 0xc0])), 3);
        assert_eq!(chunk_record_count(&chunk(&[0x90])), 0);
        assert_eq!(chunk_record_count(&chunk(&array16)), 300);
        assert_eq!(chunk_record_count(&chunk(&array32)), 70_000);
        // A count past the section's bytes is not believed.
        assert_eq!(
            chunk_record_count(&chunk(&[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0])),
            6
        );
        assert_eq!(chunk_record_count(&chunk(&[0x81, 0xc0, 0xc0])), 0);
        assert_eq!(chunk_record_count(&[]), 0);
    }

    /// One record's entry in a two-field TEXT section: field lengths, key length, terms
    /// (local id, tf per field) and derived keys (local id, tf).
    type Entry = ([u32; 2], u32, Vec<(u64, [u8; 2])>, Vec<(u64, u8)>);

    /// A TEXT section of two fields with `dict` and `entries`, as the segment writer lays it.
    fn section(dict: &[&str], entries: &[Entry]) -> Vec<u8> {
        let mut t = alloc::vec![3u8, 2];
        put_varint(&mut t, dict.len() as u64);
        for term in dict {
            put_varint(&mut t, term.len() as u64);
            t.extend_from_slice(term.as_bytes());
        }
        for (lens, keys_len, terms, keys) in entries {
            for &l in lens {
                put_varint(&mut t, u64::from(l));
            }
            put_varint(&mut t, u64::from(*keys_len));
            put_varint(&mut t, terms.len() as u64);
            for (id, tf) in terms {
                put_varint(&mut t, *id);
                t.extend_from_slice(tf);
            }
            put_varint(&mut t, keys.len() as u64);
            for (id, tf) in keys {
                put_varint(&mut t, *id);
                t.push(*tf);
            }
        }
        t
    }

    /// Reads entry `ri` through `cursor` back into an [`Entry`].
    fn read(view: &TextView, cursor: &mut TextCursor, ri: usize) -> Option<Entry> {
        let (mut lens, mut keys_len) = ([0u32; 2], 0);
        let (mut terms, mut keys) = (Vec::new(), Vec::new());
        view.entries().entry(
            cursor,
            ri,
            &mut EntrySink {
                lens: &mut |l, k| {
                    lens.copy_from_slice(l);
                    keys_len = k;
                },
                term: &mut |id, tf| terms.push((u64::from(id), [tf[0], tf[1]])),
                key: &mut |id, tf| keys.push((u64::from(id), tf)),
            },
        )?;
        Some((lens, keys_len, terms, keys))
    }

    fn entries() -> Vec<Entry> {
        (0..40u64)
            .map(|i| {
                (
                    [i as u32 * 3, 200 + i as u32],
                    i as u32 % 5,
                    (0..i % 7).map(|t| ((i + t) % 4, [t as u8, 1])).collect(),
                    (0..i % 3).map(|k| (4 + k, k as u8 + 1)).collect(),
                )
            })
            .collect()
    }

    const DICT: [&str; 6] = ["alpha", "beta", "gamma", "delta", "user:ann", "year:2026"];

    /// Entries read in order, with records skipped, or out of order, are the ones written.
    #[test]
    fn a_cursor_reads_every_entry_in_order_with_gaps_and_after_a_step_back() {
        let want = entries();
        let bytes = section(&DICT, &want);
        let view = TextView::parse(&bytes).expect("parses");
        assert_eq!(view.dict, DICT);
        let mut cursor = TextCursor::default();
        for (ri, w) in want.iter().enumerate() {
            assert_eq!(read(&view, &mut cursor, ri).as_ref(), Some(w), "entry {ri}");
        }
        let mut cursor = TextCursor::default();
        for ri in [1usize, 2, 7, 8, 30, 39] {
            assert_eq!(
                read(&view, &mut cursor, ri).as_ref(),
                Some(&want[ri]),
                "{ri}"
            );
        }
        // A step back starts the walk over.
        for ri in [5usize, 3, 0, 39, 20] {
            assert_eq!(
                read(&view, &mut cursor, ri).as_ref(),
                Some(&want[ri]),
                "{ri}"
            );
        }
        // Past the last entry there is none.
        assert_eq!(read(&view, &mut cursor, want.len()), None);
    }

    /// A term outside the dictionary, in a term or a derived key, is malformed, for the entry
    /// that has it and for every entry read past it; the entries before it read as written.
    #[test]
    fn an_entry_naming_a_term_outside_the_dictionary_is_malformed() {
        for bad_key in [false, true] {
            let mut want = entries();
            if bad_key {
                want[12].3 = alloc::vec![(DICT.len() as u64, 1)];
            } else {
                want[12].2 = alloc::vec![(DICT.len() as u64, [1, 0])];
            }
            let bytes = section(&DICT, &want);
            let view = TextView::parse(&bytes).expect("the dictionary parses");
            let mut cursor = TextCursor::default();
            assert_eq!(read(&view, &mut cursor, 11).as_ref(), Some(&want[11]));
            assert_eq!(read(&view, &mut cursor, 12), None, "bad key: {bad_key}");
            assert_eq!(read(&view, &mut TextCursor::default(), 20), None);
        }
    }

    /// No cut of a section panics: its dictionary fails to parse, or each entry reads as
    /// written or is malformed, and no entry past a malformed one reads.
    #[test]
    fn a_truncated_section_reads_what_it_holds_and_never_panics() {
        let want = entries();
        let bytes = section(&DICT, &want);
        for cut in 0..bytes.len() {
            let Some(view) = TextView::parse(&bytes[..cut]) else {
                continue;
            };
            let mut cursor = TextCursor::default();
            let mut broken = false;
            for (ri, w) in want.iter().enumerate() {
                match read(&view, &mut cursor, ri) {
                    Some(got) => {
                        assert!(!broken, "cut {cut}: entry {ri} read past a malformed one");
                        assert_eq!(&got, w, "cut {cut}: entry {ri}");
                    }
                    None => broken = true,
                }
            }
            assert!(broken, "cut {cut}: a cut section still read every entry");
        }
    }
}
