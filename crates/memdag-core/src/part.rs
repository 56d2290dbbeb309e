//! Segment parts: how the chunks of a segment are cut into stored values, and read back.
//!
//! ```text
//!   seg/<generation>/<part> = envelope(kind SegmentPart) {
//!       generation u64 LE · part u32 LE · parts u32 LE · chunk parts u32 LE · piece of a chunk }
//! ```
//! A chunk fits one part, so a reader parses each part in place, with no copy; only a chunk
//! larger than a part (one huge record) spans several, which are joined to read it: its first
//! part says how many (`chunk parts`; 0 on the parts that continue a chunk). Every part carries
//! its own generation and numbers, so a part stored under the wrong key is caught and named.
//! A segment's checksum in the commit ([`crate::commit::parts_sum`]) is taken over its parts'
//! envelope checksums, so no part can be swapped for another without the commit noticing.
//!
//! This module depends on the envelope, the keys and the commit's entry of a segment only.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::block::{frames, push_frame, FRAME_HEADER};
use crate::commit::{parts_sum, SegmentInfo};
use crate::envelope::{open, seal, stored_checksum, Kind, HEADER_LEN};
use crate::error::{Error, Result};
use crate::keys::segment_key;

/// Bytes of the header every part carries before its share of a chunk.
pub(crate) const PART_HEADER: usize = 20;

/// The default largest stored value of a part, in bytes. Hosts with a smaller value limit
/// (Durable Object storage: 128 KiB) set their own with `Store::set_part_bytes`.
pub const DEFAULT_PART_BYTES: usize = 1 << 20;
/// The smallest part size accepted.
pub const MIN_PART_BYTES: usize = 1024;

/// A segment cut into part values.
pub struct Parts {
    /// `(key, value)` of every part, in order.
    pub values: Vec<(String, Vec<u8>)>,
    /// The segment's checksum over its parts, for its entry in the commit.
    pub sum: u64,
}

/// Seals a segment's chunks as part values, each at most `part_bytes` long: each chunk in its
/// frame (see [`crate::block`]), as many whole frames to a part as fit, and a frame too large
/// for one part alone in as many parts as it needs.
pub fn split_parts(generation: u64, chunks: &[Vec<u8>], part_bytes: usize) -> Parts {
    let share = part_bytes.max(MIN_PART_BYTES) - PART_HEADER - HEADER_LEN;
    // Each part's body after its header, with its `chunk parts` word.
    let mut pieces: Vec<(Vec<u8>, u32)> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    for chunk in chunks {
        let framed = FRAME_HEADER + chunk.len();
        if !current.is_empty() && current.len() + framed > share {
            pieces.push((core::mem::take(&mut current), 1));
        }
        if framed <= share {
            push_frame(&mut current, chunk);
            continue;
        }
        let mut frame = Vec::with_capacity(framed);
        push_frame(&mut frame, chunk);
        let n = frame.len().div_ceil(share) as u32;
        for (i, piece) in frame.chunks(share).enumerate() {
            pieces.push((piece.to_vec(), if i == 0 { n } else { 0 }));
        }
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push((current, 1));
    }
    let parts = pieces.len() as u32;
    let values: Vec<(String, Vec<u8>)> = pieces
        .into_iter()
        .enumerate()
        .map(|(i, (piece, chunk_parts))| {
            let mut v = Vec::with_capacity(PART_HEADER + piece.len());
            v.extend_from_slice(&generation.to_le_bytes());
            v.extend_from_slice(&(i as u32).to_le_bytes());
            v.extend_from_slice(&parts.to_le_bytes());
            v.extend_from_slice(&chunk_parts.to_le_bytes());
            v.extend_from_slice(&piece);
            (
                segment_key(generation, i as u32),
                seal(Kind::SegmentPart, &v),
            )
        })
        .collect();
    let sum = parts_sum(values.iter().filter_map(|(_, v)| stored_checksum(v)));
    Parts { values, sum }
}

/// One chunk of a segment as read: in place from its part, or joined from several.
#[derive(Debug)]
pub enum ChunkBytes<'a> {
    InPlace(&'a [u8]),
    Joined(Vec<u8>),
}

impl ChunkBytes<'_> {
    /// The chunk's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            ChunkBytes::InPlace(b) => b,
            ChunkBytes::Joined(v) => v,
        }
    }
}

/// A segment's chunks as read, each with the key of its first part (for errors), and the
/// checksum of its parts.
pub struct ReadSegment<'a> {
    pub chunks: Vec<(String, ChunkBytes<'a>)>,
    pub sum: u64,
}

/// Opens the parts of a segment (found with `get`) and returns its chunks. Fails naming the
/// part when one is missing, damaged, stored under another key, or not the part the commit
/// names (`info.sum`, when known).
#[inline(never)]
pub fn read_chunks<'a>(
    info: &SegmentInfo,
    mut get: impl FnMut(&str) -> Option<&'a [u8]>,
) -> Result<ReadSegment<'a>> {
    let mut out: Vec<(String, ChunkBytes<'a>)> = Vec::new();
    // A chunk spanning parts: the key of its first part, its bytes so far, the parts still to
    // come, and whether it is framed (format v5).
    let mut pending: Option<(String, Vec<u8>, u32, bool)> = None;
    let mut checksums = Vec::with_capacity(info.parts as usize);
    for (i, key) in info.keys().enumerate() {
        let value = get(&key).ok_or_else(|| Error::CorruptData {
            key: key.clone(),
            reason: format!(
                "missing: the commit names segment {} with {} parts",
                info.generation, info.parts
            ),
        })?;
        let part = open(&key, Kind::SegmentPart, value)?;
        let framed = value[4] >= FRAMED_VERSION;
        checksums.extend(stored_checksum(value));
        let header = PartHeader::parse(&key, part)?;
        header.check(&key, info, i)?;
        let piece = &part[PART_HEADER..];
        match (&mut pending, header.chunk_parts) {
            (None, 1) if framed => {
                let found = frames(piece).map_err(|block| frame_damaged(&key, block))?;
                out.extend(
                    found
                        .into_iter()
                        .map(|c| (key.clone(), ChunkBytes::InPlace(c))),
                );
            }
            (None, 1) => out.push((key, ChunkBytes::InPlace(piece))),
            (None, n) if n > 1 => pending = Some((key, piece.to_vec(), n - 1, framed)),
            (Some((_, joined, left, _)), 0) => {
                joined.extend_from_slice(piece);
                *left -= 1;
                if *left == 0 {
                    let (first, joined, _, framed) = pending.take().expect("pending chunk");
                    out.push((first.clone(), joined_chunk(&first, joined, framed)?));
                }
            }
            _ => return Err(corrupt(&key, "chunk parts out of order")),
        }
    }
    if let Some((first, _, _, _)) = pending {
        return Err(corrupt(&first, "a chunk's last part is missing"));
    }
    let sum = parts_sum(checksums);
    if info.sum != 0 && info.sum != sum {
        return Err(corrupt(
            &segment_key(info.generation, 0),
            &format!(
                "segment {} is not the one the commit names (its parts' checksum differs): a part \
                 was replaced, by an older copy or one of another store",
                info.generation
            ),
        ));
    }
    Ok(ReadSegment { chunks: out, sum })
}

/// The first format version whose parts hold framed blocks (see [`crate::block`]).
pub const FRAMED_VERSION: u8 = 5;

/// A chunk joined from the parts it spans: the frame's chunk from format v5, the bytes as
/// they are before.
fn joined_chunk(key: &str, mut joined: Vec<u8>, framed: bool) -> Result<ChunkBytes<'static>> {
    if framed {
        let len = match frames(&joined) {
            Ok(found) if found.len() == 1 => found[0].len(),
            Ok(_) => return Err(corrupt(key, "a chunk spanning parts holds several blocks")),
            Err(block) => return Err(frame_damaged(key, block)),
        };
        joined.drain(..FRAME_HEADER);
        joined.truncate(len);
    }
    Ok(ChunkBytes::Joined(joined))
}

pub(crate) fn frame_damaged(key: &str, block: usize) -> Error {
    corrupt(key, &format!("block {block}: its frame header is damaged"))
}

/// How many parts the segment of `generation` has, by its first part's header: `None` when
/// that part is absent (a segment torn before its first part landed). Fails naming the part
/// when it is damaged or belongs elsewhere.
pub fn parts_of(generation: u64, first: Option<&[u8]>) -> Result<Option<u32>> {
    let key = segment_key(generation, 0);
    let Some(value) = first else {
        return Ok(None);
    };
    let header = PartHeader::parse(&key, open(&key, Kind::SegmentPart, value)?)?;
    if header.generation != generation || header.index != 0 || header.parts == 0 {
        return Err(corrupt(
            &key,
            &format!(
                "holds part {}/{} of segment {}: not where memdag wrote it",
                header.index, header.parts, header.generation
            ),
        ));
    }
    Ok(Some(header.parts))
}

/// The header of a part.
pub(crate) struct PartHeader {
    pub generation: u64,
    pub index: u32,
    pub parts: u32,
    pub chunk_parts: u32,
}

impl PartHeader {
    /// Fails naming `key` unless this is part `index` of the segment `info` names.
    pub(crate) fn check(&self, key: &str, info: &SegmentInfo, index: usize) -> Result<()> {
        if self.generation != info.generation
            || self.index as usize != index
            || self.parts != info.parts
        {
            return Err(corrupt(
                key,
                &format!(
                    "holds part {}/{} of segment {}",
                    self.index, self.parts, self.generation
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn parse(key: &str, part: &[u8]) -> Result<Self> {
        if part.len() < PART_HEADER {
            return Err(corrupt(key, "part header truncated"));
        }
        let word = |at: usize| u32::from_le_bytes(part[at..at + 4].try_into().expect("4 bytes"));
        Ok(PartHeader {
            generation: u64::from_le_bytes(part[0..8].try_into().expect("8 bytes")),
            index: word(8),
            parts: word(12),
            chunk_parts: word(16),
        })
    }
}

pub(crate) fn corrupt(key: &str, reason: &str) -> Error {
    Error::CorruptData {
        key: key.into(),
        reason: reason.into(),
    }
}
