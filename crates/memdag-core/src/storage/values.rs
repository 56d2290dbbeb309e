//! The values an open reads, by key ([`Values`]), and reading the segments a commit names from
//! them: every part present, readable and the one the commit names.

use std::collections::{HashMap, HashSet};
use std::format;
use std::string::String;

use crate::error::{Error, Result};
use crate::segment::{read_chunks, Commit, ReadSegment, SegmentInfo};

/// The core's stored values an open may read, by key: each plain (as stored, or unsealed), or
/// the error opening it gave (a sealed value without its key, say), raised only if the open
/// needs that value.
pub(crate) type Values<'a> = HashMap<&'a str, core::result::Result<&'a [u8], Error>>;

/// The keys whose values a host opened itself before an open (see [`crate::seal`]): taken as
/// given. `None`: it opened none, and seals none of what the store writes.
pub(crate) type HostOpened = Option<HashSet<String>>;

/// The set of keys a host opened.
pub(crate) fn host_opened<S: AsRef<str>>(keys: impl IntoIterator<Item = S>) -> HostOpened {
    Some(keys.into_iter().map(|k| k.as_ref().into()).collect())
}

/// Checks that every part of `info` can be read (see [`named_part_error`]).
fn check_parts(info: &SegmentInfo, values: &Values) -> Result<()> {
    for key in info.keys() {
        if let Some(Err(e)) = values.get(key.as_str()) {
            return Err(named_part_error(e.clone()));
        }
    }
    Ok(())
}

/// The error of a part a commit names. A commit names only parts of its own format or older,
/// sealed as it is (with its key, or not at all), so a named part that claims a newer format,
/// another key, or is sealed when the commit is not (or the reverse) was altered: corrupt, not
/// locked or from the future, whatever the value's own header says.
fn named_part_error(e: Error) -> Error {
    match e {
        Error::UnsupportedVersion { key, found, .. } => Error::CorruptData {
            key,
            reason: format!(
                "claims format version {found}, newer than the commit naming it: the value was \
                 altered"
            ),
        },
        Error::Locked { key, reason } => Error::CorruptData {
            key,
            reason: format!("sealed otherwise than the commit naming it ({reason}): altered"),
        },
        e => e,
    }
}

/// Reads the segment `info` names from `values` (see [`read_chunks`]).
pub(super) fn read_segment<'a>(info: &SegmentInfo, values: &Values<'a>) -> Result<ReadSegment<'a>> {
    check_parts(info, values)?;
    read_chunks(info, |k| {
        values.get(k).and_then(|v| v.as_ref().ok().copied())
    })
    .map_err(named_part_error)
}

/// Checks that every segment `commit` names is stored whole and is the one it names.
pub(super) fn read_named(commit: &Commit, values: &Values) -> Result<()> {
    for info in &commit.segments {
        read_segment(info, values)?;
    }
    Ok(())
}
