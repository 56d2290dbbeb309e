//! The envelope around every stored value: magic, format version, value kind and checksum.
//!
//! ```text
//! offset 0  4 bytes  magic  b"MDAG"
//! offset 4  1 byte   format version: 1 (v1 values), 2 to 7 (commit, segment parts)
//! offset 5  1 byte   kind, see [`Kind`]
//! offset 6  4 bytes  checksum of the body, little endian: CRC-32 (IEEE) for version 1,
//!                    [`checksum32`] for versions 2 to 6, [`checksum32_lanes`] from 7
//! offset 10 ...      body
//! ```
//! A value shorter than the header is truncated, a wrong magic is foreign (but a value opening
//! with `b"MDAS"` is sealed, see `crate::seal`, and read without a key is locked), a version above
//! [`FORMAT_VERSION`] is from the future, and a checksum failure is corrupt. Each of these is a
//! typed [`Error`] naming the key. This module depends only on [`crate::hash`] and
//! [`crate::error`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::hash::{checksum32, checksum32_lanes, crc32};

/// The four bytes that open every memdag value.
pub const MAGIC: [u8; 4] = *b"MDAG";
/// The magic of a sealed value (`crate::seal::MAGIC`; this module depends on no other).
const SEALED_MAGIC: [u8; 4] = *b"MDAS";
/// The newest format version this build writes and reads.
pub const FORMAT_VERSION: u8 = 7;
/// Length of the envelope header.
pub const HEADER_LEN: usize = 10;

/// What a stored value holds. The numbers are part of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// v1: one record (`rec/<id>`).
    Record = 1,
    /// v1: the store meta (`meta`).
    Meta = 2,
    /// v1: one blob (`blob/<id>`).
    Blob = 3,
    /// v1: one vector-graph node (`idx/hnsw/<id>`).
    IndexNode = 4,
    /// v2 to v5: the commit (`head`).
    Commit = 5,
    /// v2 to v5: one part of a segment (`seg/<gen>/<part>`).
    SegmentPart = 6,
}

impl Kind {
    /// The format version this build writes the kind with: 1 for the v1 kinds (only read,
    /// to migrate), [`FORMAT_VERSION`] for the commit and segment parts.
    pub fn version(self) -> u8 {
        match self {
            Kind::Record | Kind::Meta | Kind::Blob | Kind::IndexNode => 1,
            Kind::Commit | Kind::SegmentPart => FORMAT_VERSION,
        }
    }
}

/// Wraps `body` in the envelope of `kind`.
pub fn seal(kind: Kind, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&MAGIC);
    out.push(kind.version());
    out.push(kind as u8);
    out.extend_from_slice(&checksum(kind.version(), body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// The checksum a value of format `version` carries. Format v7 changed only this: an open
/// checks every stored byte once, and [`checksum32`]'s one chain of multiplies was a tenth of
/// opening a store natively and 6 of 95 ms of a first open of 10k records in wasm.
fn checksum(version: u8, body: &[u8]) -> u32 {
    match version {
        1 => crc32(body),
        2..=6 => checksum32(body),
        _ => checksum32_lanes(body),
    }
}

/// The checksum a plain value's envelope carries, without checking it: `None` for a value too
/// short or not a memdag value.
pub fn stored_checksum(value: &[u8]) -> Option<u32> {
    (value.len() >= HEADER_LEN && value[..4] == MAGIC)
        .then(|| u32::from_le_bytes([value[6], value[7], value[8], value[9]]))
}

/// Checks the envelope of the value stored under `key` and returns its body.
pub fn open<'a>(key: &str, kind: Kind, bytes: &'a [u8]) -> Result<&'a [u8]> {
    match open_unchecked(key, kind, bytes)? {
        (body, true) => Ok(body),
        (_, false) => Err(Error::CorruptData {
            key: key.into(),
            reason: "checksum mismatch (truncated or altered)".into(),
        }),
    }
}

/// As [`open`], but a body whose checksum does not match is returned, with `false`, rather
/// than refused: salvaging reads the intact blocks of a damaged part (see [`crate::block`]).
/// Every other damage (a value too short, foreign, of another kind or version) still fails.
pub fn open_unchecked<'a>(key: &str, kind: Kind, bytes: &'a [u8]) -> Result<(&'a [u8], bool)> {
    let corrupt = |reason: String| Error::CorruptData {
        key: key.into(),
        reason,
    };
    if bytes.len() >= 4 && bytes[..4] == SEALED_MAGIC {
        return Err(Error::Locked {
            key: key.into(),
            reason: "the store is encrypted: open it with its key".into(),
        });
    }
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
    if bytes[5] != kind as u8 {
        return Err(corrupt(format!(
            "expected value kind {}, found {}",
            kind as u8, bytes[5]
        )));
    }
    let body = &bytes[HEADER_LEN..];
    let stored = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
    Ok((body, checksum(version, body) == stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_then_open_and_every_damage_is_typed() {
        let v = seal(Kind::Commit, b"body");
        assert_eq!(open("head", Kind::Commit, &v).unwrap(), b"body");
        assert_eq!(v[4], FORMAT_VERSION);
        let wrong_kind = open("head", Kind::SegmentPart, &v).unwrap_err();
        assert_eq!(wrong_kind.code(), "CORRUPT_DATA");
        let mut future = v.clone();
        future[4] = 9;
        assert_eq!(
            open("head", Kind::Commit, &future).unwrap_err().code(),
            "UNSUPPORTED_VERSION"
        );
        let mut sealed = v.clone();
        sealed[..4].copy_from_slice(b"MDAS");
        assert_eq!(
            open("head", Kind::Commit, &sealed).unwrap_err().code(),
            "LOCKED"
        );
        for cut in 0..v.len() {
            let e = open("head", Kind::Commit, &v[..cut]).unwrap_err();
            assert_eq!(e.key(), Some("head"));
        }
    }
}
