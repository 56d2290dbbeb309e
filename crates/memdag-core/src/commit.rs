//! The commit: which segments are live, in what order, and the store counters. It is kept in
//! two places, so that no single lost or stale key can lose a store:
//!
//! - under `head`, the fast path: one read tells a host every key to load;
//! - inside the newest segment of every change set (format v4), as that segment's COMMIT
//!   section: the commit the change set makes, with the segment's own entry left for the
//!   reader to fill in (its parts, bytes and checksum are known only once it is written).
//!
//! ```text
//!   head ──► Commit { generation 42, next_seq, dimension, vectors, steps,
//!                     segments: [gen 7 (sum a1…), gen 31 (sum 9c…), gen 42 (sum 07…)] }
//!   seg/000000000000002a/last part ─ COMMIT section ─► the same commit, gen 42's entry blank
//! ```
//!
//! Each segment's entry carries `sum`, the FNV-1a of its parts' envelope checksums in order, so a
//! part replaced by another (an older copy, a part of another store) fails the commit that
//! names it, with an error naming the part. A segment written before format v4 has sum 0 until
//! a v4 build opens it and writes the next commit: its sum is then taken from the parts read.
//!
//! Opening chooses the commit (see `storage::choose`): `head`, unless a complete segment newer
//! than it carries a commit whose every segment verifies, or `head` is missing or unreadable.
//! Generations never wrap: every one is at most [`MAX_GENERATION`].
//!
//! This module knows the commit's encoding only; it imports neither the store nor the segments'
//! sections.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::codec::{from_msgpack, to_msgpack};
use crate::envelope::{open, seal, Kind};
use crate::error::{Error, Result};
use crate::hash::Fnv;
use crate::index::vecstore::VectorSettings;
use crate::keys::{segment_key, HEAD_KEY, MAX_GENERATION};

/// The commit, stored under `head`: which segments are live, in apply order, and the counters.
/// Its default is what a stored commit without fields says: each field left out reads as its
/// [`Default`] (so `vectors` is [`VectorSettings::unstated`], not a new store's settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Commit {
    /// The generation of the newest flush; every flush takes a new one.
    pub generation: u64,
    /// The next insertion sequence number.
    pub next_seq: u64,
    /// The dimension of the store's vectors; 0 before the first one.
    pub dimension: u32,
    /// How the store keeps its vectors (format v6). Left out when all `f32`, and read as that
    /// when left out: the default of every store written before int8 became it.
    #[serde(skip_serializing_if = "VectorSettings::is_unstated")]
    pub vectors: VectorSettings,
    /// The int8 steps, one per dimension, once trained (format v6): the CODES sections of
    /// the segments are codes under them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<f32>,
    /// The live segments, oldest first.
    pub segments: Vec<SegmentInfo>,
    /// The segments the commit before this one named and this one dropped (a merge's inputs,
    /// format v5): still stored, so that the commit before opens whole, and deleted by the
    /// next change set after its commit. Not live: nothing is read from them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<SegmentInfo>,
}

impl Default for Commit {
    fn default() -> Self {
        Commit {
            generation: 0,
            next_seq: 0,
            dimension: 0,
            vectors: VectorSettings::unstated(),
            steps: Vec::new(),
            segments: Vec::new(),
            retired: Vec::new(),
        }
    }
}

/// What the commit knows of one segment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SegmentInfo {
    pub generation: u64,
    /// Number of parts: keys `seg/<generation>/0` to `seg/<generation>/<parts - 1>`.
    pub parts: u32,
    /// Size class: 0 below 64 KiB, one more for each eight times larger (the merge fan-out).
    pub level: u8,
    /// Records, nodes, blobs and tombstones written in it.
    pub entries: u64,
    /// Body bytes.
    pub bytes: u64,
    /// The checksum of its parts ([`parts_sum`]); 0 when not known (written before v4).
    #[serde(skip_serializing_if = "is_zero")]
    pub sum: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl SegmentInfo {
    /// The keys of its parts.
    pub fn keys(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.parts).map(|p| segment_key(self.generation, p))
    }
}

/// The checksum of a segment: FNV-1a of its parts' envelope checksums, in part order. Never 0
/// (0 means "not known").
pub fn parts_sum(checksums: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = Fnv::new();
    for c in checksums {
        h.write(&c.to_le_bytes());
    }
    h.finish().max(1)
}

/// Encodes the commit as the value of `head`.
pub fn encode_commit(commit: &Commit) -> Result<Vec<u8>> {
    Ok(seal(Kind::Commit, &to_msgpack(commit)?))
}

/// Decodes the value of `head`.
#[inline(never)]
pub fn decode_commit(bytes: &[u8]) -> Result<Commit> {
    let commit: Commit = from_msgpack(HEAD_KEY, open(HEAD_KEY, Kind::Commit, bytes)?)?;
    check(HEAD_KEY, &commit)?;
    Ok(commit)
}

/// Encodes a commit as a segment's COMMIT section (no envelope: the part has one).
pub fn encode_embedded(commit: &Commit) -> Result<Vec<u8>> {
    to_msgpack(commit)
}

/// Decodes the COMMIT section of the segment `own` names, read from the part `key`, and fills in
/// that segment's own entry from `own` (its parts, size class, bytes and sum as read; the
/// number of entries is the one written).
pub fn decode_embedded(key: &str, bytes: &[u8], own: &SegmentInfo) -> Result<Commit> {
    let mut commit: Commit = from_msgpack(key, bytes)?;
    let corrupt = |reason: String| Error::CorruptData {
        key: key.into(),
        reason,
    };
    if commit.generation != own.generation {
        return Err(corrupt(format!(
            "segment {} carries the commit of generation {}",
            own.generation, commit.generation
        )));
    }
    let entry = commit
        .segments
        .iter_mut()
        .find(|s| s.generation == own.generation)
        .ok_or_else(|| corrupt(format!("segment {}'s commit omits it", own.generation)))?;
    *entry = SegmentInfo {
        entries: entry.entries,
        ..own.clone()
    };
    check(key, &commit)?;
    Ok(commit)
}

/// A commit's generations are distinct, none after its own, none above [`MAX_GENERATION`].
fn check(key: &str, commit: &Commit) -> Result<()> {
    let mut seen = alloc::collections::BTreeSet::new();
    if commit.generation > MAX_GENERATION {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: format!("generation {} is out of range", commit.generation),
        });
    }
    let steps_ok = commit.steps.is_empty()
        || (commit.steps.len() == commit.dimension as usize
            && commit.steps.iter().all(|s| s.is_finite() && *s > 0.0));
    if !steps_ok {
        return Err(Error::CorruptData {
            key: key.into(),
            reason: format!(
                "{} int8 steps for dimension {}, or a step that is not finite and positive",
                commit.steps.len(),
                commit.dimension
            ),
        });
    }
    for s in &commit.segments {
        if !seen.insert(s.generation) || s.generation > commit.generation {
            return Err(Error::CorruptData {
                key: key.into(),
                reason: format!("segment generation {} is repeated or ahead", s.generation),
            });
        }
    }
    Ok(())
}

/// Something an open did that the host should know, though it lost nothing: each with a
/// stable code. Its serde form (`{ code, key, message }`) is the JSON shape of every face.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// `COMMIT_RECOVERED`: `head` was missing, unreadable or older than a complete segment, and
    /// the store opened the newest commit a segment carries; the next change set writes `head`.
    pub code: &'static str,
    /// The key concerned (`head`).
    pub key: String,
    pub message: String,
}

/// The code of [`Warning`] for a commit recovered from a segment.
pub const COMMIT_RECOVERED: &str = "COMMIT_RECOVERED";

#[cfg(test)]
mod tests {
    use super::*;

    fn info(generation: u64) -> SegmentInfo {
        SegmentInfo {
            generation,
            parts: 1,
            entries: 3,
            bytes: 10,
            sum: parts_sum([generation as u32]),
            ..Default::default()
        }
    }

    #[test]
    fn an_embedded_commit_gets_its_own_entry_from_the_parts_read() {
        let blank = SegmentInfo {
            generation: 9,
            entries: 40,
            ..Default::default()
        };
        let commit = Commit {
            generation: 9,
            next_seq: 5,
            dimension: 3,
            vectors: VectorSettings {
                precision: crate::index::vecstore::Precision::Int8,
                train: 2,
            },
            steps: vec![0.01, 0.02, 0.03],
            segments: vec![info(2), blank],
            retired: vec![info(1)],
        };
        let bytes = encode_embedded(&commit).unwrap();
        let own = SegmentInfo {
            generation: 9,
            parts: 2,
            level: 1,
            bytes: 77,
            sum: 12,
            ..Default::default()
        };
        let got = decode_embedded("seg/x", &bytes, &own).unwrap();
        assert_eq!(got.segments[0], info(2));
        assert_eq!(
            got.segments[1],
            SegmentInfo {
                entries: 40,
                ..own.clone()
            }
        );
        let other = SegmentInfo {
            generation: 8,
            ..own
        };
        assert_eq!(
            decode_embedded("seg/x", &bytes, &other).unwrap_err().code(),
            "CORRUPT_DATA"
        );
    }

    #[test]
    fn generations_out_of_range_or_ahead_are_corrupt() {
        let mut commit = Commit {
            generation: MAX_GENERATION + 1,
            ..Default::default()
        };
        let head = encode_commit(&commit).unwrap();
        assert_eq!(decode_commit(&head).unwrap_err().key(), Some(HEAD_KEY));
        commit.generation = 4;
        commit.segments = vec![info(5)];
        assert!(decode_commit(&encode_commit(&commit).unwrap()).is_err());
        commit.segments = vec![info(3), info(3)];
        assert!(decode_commit(&encode_commit(&commit).unwrap()).is_err());
        commit.segments = vec![info(3), info(4)];
        assert_eq!(
            decode_commit(&encode_commit(&commit).unwrap()).unwrap(),
            commit
        );
    }

    #[test]
    fn a_parts_sum_depends_on_every_checksum_and_their_order() {
        assert_ne!(parts_sum([1, 2]), parts_sum([2, 1]));
        assert_ne!(parts_sum([1, 2]), parts_sum([1, 3]));
        assert_ne!(parts_sum([]), 0);
    }
}
