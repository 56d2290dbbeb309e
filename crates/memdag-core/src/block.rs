//! Blocks (format v5): the checksummed frames a segment part holds, so that damage stays local.
//!
//! A segment's body is a run of chunks, each a complete set of sections for some of its
//! entries (see [`crate::segment`]). From format v5 the writer cuts a chunk at [`BLOCK_BYTES`]
//! and stores each one in a frame with its own checksum; a part holds as many whole frames as
//! fit. Only a frame larger than a part (one huge record) spans several parts.
//!
//! ```text
//!   seg/<generation>/<part> = envelope { part header (20 bytes) · frame · frame · … }
//!   frame = magic b"MDBK" · length n u32 LE · checksum32 of the chunk u32 LE · chunk (n bytes)
//! ```
//!
//! The envelope's checksum still covers the whole part, so a strict open checks each byte once and
//! trusts the frames. A frame's checksum is [`checksum32`] in every format version from v5 (v7
//! changed the envelope's, not the frames'). When the envelope's checksum fails, the frames say
//! which blocks are damaged: a flipped byte costs the entries of one block (about 60 records of a
//! 384-d store), not the store. A frame whose header is damaged is found again by its magic:
//! [`scan`] looks for the next position where a magic, a length that fits and a matching checksum
//! line up, so damage to a header costs the blocks it hides, not the rest of the part.
//!
//! This module knows the frame's bytes only; it depends on the checksum and nothing else.

use alloc::vec::Vec;

use crate::hash::checksum32;

/// The bytes a writer aims at for one block: a chunk is cut when it reaches them. Small
/// enough that a damaged block loses few entries; large enough that the chunk's sections (its
/// term dictionary above all) are shared by many records.
pub const BLOCK_BYTES: usize = 128 << 10;

/// The four bytes that open every frame.
pub const BLOCK_MAGIC: [u8; 4] = *b"MDBK";

/// The bytes of a frame's header: magic, length, checksum.
pub const FRAME_HEADER: usize = 12;

/// Appends the frame of `chunk` to `out`.
pub fn push_frame(out: &mut Vec<u8>, chunk: &[u8]) {
    out.extend_from_slice(&BLOCK_MAGIC);
    out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(&checksum32(chunk).to_le_bytes());
    out.extend_from_slice(chunk);
}

/// The frame header at `at`, when `bytes` has one there whose length fits: `(length,
/// checksum)`.
fn header_at(bytes: &[u8], at: usize) -> Option<(usize, u32)> {
    let h = bytes.get(at..at.checked_add(FRAME_HEADER)?)?;
    if h[..4] != BLOCK_MAGIC {
        return None;
    }
    let len = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
    let sum = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    (len <= bytes.len() - at - FRAME_HEADER).then_some((len, sum))
}

/// The chunks of the frames in `bytes`, trusting their checksums (the envelope around them
/// verified); `Err(block)` names the first frame whose header is not where it should be.
pub fn frames(bytes: &[u8]) -> core::result::Result<Vec<&[u8]>, usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (len, _) = header_at(bytes, at).ok_or(out.len())?;
        let start = at + FRAME_HEADER;
        out.push(&bytes[start..start + len]);
        at = start + len;
    }
    Ok(out)
}

/// What [`scan`] found in a run of frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned<'a> {
    /// An intact block: its ordinal among the blocks found and its chunk.
    Intact { block: u32, chunk: &'a [u8] },
    /// A damaged block, or bytes between two intact blocks: its ordinal, the byte range it
    /// covers in the run, and the chunk's bytes as found when its header was readable (the
    /// damage is inside them), for a best guess at what it held.
    Damaged {
        block: u32,
        from: usize,
        to: usize,
        found: Option<&'a [u8]>,
    },
}

/// Every frame in `bytes`, each checked against its checksum: intact blocks, and the damaged
/// ranges between them. Never fails: bytes that hold no frame at all are one damaged range.
pub fn scan(bytes: &[u8]) -> Vec<Scanned<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut block = 0u32;
    while at < bytes.len() {
        if let Some((len, sum)) = header_at(bytes, at) {
            let start = at + FRAME_HEADER;
            let chunk = &bytes[start..start + len];
            if checksum32(chunk) == sum {
                out.push(Scanned::Intact { block, chunk });
                block += 1;
                at = start + len;
                continue;
            }
            // The header reads but the chunk does not match it: the damage is inside the
            // chunk, unless the length itself was hit; the next intact frame says which.
            let to = next_intact(bytes, at + 1).unwrap_or(bytes.len());
            let found = (to == start + len).then_some(chunk);
            out.push(Scanned::Damaged {
                block,
                from: at,
                to,
                found,
            });
            block += 1;
            at = to;
            continue;
        }
        let to = next_intact(bytes, at + 1).unwrap_or(bytes.len());
        out.push(Scanned::Damaged {
            block,
            from: at,
            to,
            found: None,
        });
        block += 1;
        at = to;
    }
    out
}

/// The first position at or after `from` where an intact frame starts.
fn next_intact(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at + FRAME_HEADER <= bytes.len() {
        let rel = bytes[at..].windows(4).position(|w| w == BLOCK_MAGIC)?;
        at += rel;
        if let Some((len, sum)) = header_at(bytes, at) {
            let start = at + FRAME_HEADER;
            if checksum32(&bytes[start..start + len]) == sum {
                return Some(at);
            }
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for c in chunks {
            push_frame(&mut out, c);
        }
        out
    }

    #[test]
    fn frames_round_trip_and_a_bad_header_is_named() {
        let bytes = run(&[b"one", b"", b"three"]);
        assert_eq!(frames(&bytes).unwrap(), [&b"one"[..], b"", b"three"]);
        let mut bad = bytes.clone();
        bad[FRAME_HEADER + 3] ^= 1; // the second frame's magic
        assert_eq!(frames(&bad), Err(1));
        assert_eq!(frames(&bytes[..bytes.len() - 1]), Err(2));
    }

    #[test]
    fn a_flipped_byte_anywhere_damages_one_block_and_keeps_the_others() {
        let chunks: [&[u8]; 3] = [b"first block", b"second block", b"third block"];
        let bytes = run(&chunks);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            let found = scan(&bad);
            let intact: Vec<&[u8]> = found
                .iter()
                .filter_map(|s| match s {
                    Scanned::Intact { chunk, .. } => Some(*chunk),
                    _ => None,
                })
                .collect();
            let damaged = found.len() - intact.len();
            assert_eq!(damaged, 1, "flip at {i}: {found:?}");
            assert_eq!(intact.len(), 2, "flip at {i}");
            assert!(intact.iter().all(|c| chunks.contains(c)), "flip at {i}");
        }
    }

    #[test]
    fn garbage_and_truncation_never_panic() {
        let bytes = run(&[b"alpha", b"beta"]);
        for cut in 0..bytes.len() {
            let found = scan(&bytes[..cut]);
            let intact = found
                .iter()
                .filter(|s| matches!(s, Scanned::Intact { .. }))
                .count();
            assert!(intact <= 2);
        }
        assert_eq!(scan(b"MDBKMDBKMDBK\xff\xff").len(), 1);
    }
}
