//! Choosing the commit an open trusts: `head`, unless the segments prove a newer one.
//!
//! Every change set of format v4 writes its newest segment with the commit it makes (see
//! [`crate::commit`]) before it writes `head`. So the stored segments say which commits were
//! made, and `head` is a fast path, not the only record:
//!
//! 1. A segment key above [`MAX_GENERATION`] is refused by name: memdag never writes one, and
//!    taking it would wrap the generations.
//! 2. A `head` that a newer format wrote fails the open: nothing is guessed.
//! 3. Every segment newer than `head` (all of them when `head` is missing or unreadable) is a
//!    candidate, newest first. A candidate with a part missing is *torn*, a change set that
//!    stopped before its commit: it is skipped, and deleted after the next commit. So is a
//!    segment of an older format, which carries no commit, and one sealed otherwise than this
//!    open can read (a crash while the store was encrypted or given a new key: it opens with
//!    that key, and without it the store is as `head` has it). A candidate whose parts are damaged,
//!    or whose commit names a segment that is missing, damaged or not the one it names, fails
//!    the open with an error naming the key: the store was altered, and nothing is deleted.
//! 4. The first candidate whose commit verifies is opened, with a [`Warning`]; else `head`,
//!    unless its segments fail to load while the segment of its own generation carries
//!    another commit that verifies (a `head` copied from another store).
//!    With neither, an open of a store that holds segments fails (locked, when its segments are
//!    sealed with a key not given): it is never taken for a new, empty store whose first change
//!    set would delete them.
//!
//! A complete segment newer than `head` is either a change set that stopped after its segment
//! and before `head` (its caller was told it failed) or a `head` rolled back (restored from a
//! copy, say). The two cannot be told apart, and only the second loses data if the segment is
//! dropped: so the newer commit wins, as a database replays a log record that is complete.

use std::collections::BTreeSet;
use std::format;
use std::string::ToString;

use super::policy::size_class;
use super::values::{read_named, Values};
use crate::commit::{
    decode_commit, decode_embedded, Commit, SegmentInfo, Warning, COMMIT_RECOVERED,
};
use crate::error::{Error, Result};
use crate::keys::{parse_segment_key, segment_key, HEAD_KEY, MAX_GENERATION};
use crate::part::parts_of;
use crate::segment::commit_section;

/// The commit to open, and the warning to give when it is not `head`'s.
pub(super) struct Choice {
    pub commit: Commit,
    pub warning: Option<Warning>,
}

/// The commit to open from `values` (see the module docs), or `None` when they hold no store of
/// format v2 or later (no `head` and no segment: a v1 store, or a new one).
pub(super) fn choose(values: &Values) -> Result<Option<Choice>> {
    let mut generations = BTreeSet::new();
    for key in values.keys() {
        if let Some((generation, _)) = parse_segment_key(key) {
            if generation > MAX_GENERATION {
                return Err(Error::CorruptData {
                    key: key.to_string(),
                    reason: format!(
                        "segment generation {generation} is out of range (at most \
                         {MAX_GENERATION}): memdag never writes it; move the file out of the store"
                    ),
                });
            }
            generations.insert(generation);
        }
    }
    let head: core::result::Result<Commit, Option<Error>> = match values.get(HEAD_KEY) {
        None => Err(None),
        Some(Err(e)) => Err(Some(e.clone())),
        Some(Ok(bytes)) => decode_commit(bytes).map_err(Some),
    };
    if let Err(Some(e @ Error::UnsupportedVersion { .. })) = &head {
        return Err(e.clone());
    }
    // A candidate sealed otherwise than this open can read (a crash while a store was being
    // encrypted or given a new key): skipped, and the reason for a refusal if nothing opens.
    let mut locked: Option<Error> = None;
    let newer_than = head.as_ref().ok().map(|c| c.generation);
    for &generation in generations.iter().rev() {
        if newer_than.is_some_and(|h| generation <= h) {
            break;
        }
        let commit = match segment_commit(generation, values) {
            Ok(Some(commit)) => commit,
            Ok(None) => continue,
            Err(e @ Error::Locked { .. }) => {
                locked.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        read_named(&commit, values).map_err(|e| Error::CorruptData {
            key: segment_key(generation, 0),
            reason: format!(
                "segment {generation} is complete and newer than `head`, but the commit it carries \
                 does not match this store ({e}): if it came from another store, move it out"
            ),
        })?;
        let message = match &head {
            Ok(h) => format!(
                "`head` names generation {}, older than the complete segment {generation}: \
                 opened the commit it carries",
                h.generation
            ),
            Err(None) => {
                format!("`head` is missing: opened the commit segment {generation} carries")
            }
            Err(Some(e)) => {
                format!(
                    "`head` is unreadable ({e}): opened the commit segment {generation} carries"
                )
            }
        };
        return Ok(Some(Choice {
            commit,
            warning: Some(Warning {
                code: COMMIT_RECOVERED,
                key: HEAD_KEY.into(),
                message,
            }),
        }));
    }
    match head {
        Ok(commit) => Ok(Some(Choice {
            commit,
            warning: None,
        })),
        Err(Some(e)) => Err(e),
        Err(None) if generations.is_empty() => Ok(None),
        Err(None) => Err(locked.unwrap_or_else(|| Error::CorruptData {
            key: HEAD_KEY.into(),
            reason: format!(
                "missing, and no segment carries a complete commit ({} segment generations are \
                 stored): refusing to open the store as a new one",
                generations.len()
            ),
        })),
    }
}

/// When `head` opened but its commit failed to load (with `failure`), the commit its own
/// generation's segment carries, if that one differs from `head`'s and verifies: a `head`
/// copied from another store names segments that are not this one's, while the store's own
/// newest segment still carries the store's commit. `None` otherwise, and the open fails.
pub(super) fn instead_of_head(head: &Commit, failure: &Error, values: &Values) -> Option<Choice> {
    let commit = segment_commit(head.generation, values).ok()??;
    let same = |a: &Commit, b: &Commit| {
        a.segments.len() == b.segments.len()
            && a.segments.iter().zip(&b.segments).all(|(x, y)| {
                x.generation == y.generation
                    && x.parts == y.parts
                    && (x.sum == 0 || y.sum == 0 || x.sum == y.sum)
            })
    };
    if same(&commit, head) || read_named(&commit, values).is_err() {
        return None;
    }
    Some(Choice {
        commit,
        warning: Some(Warning {
            code: COMMIT_RECOVERED,
            key: HEAD_KEY.into(),
            message: format!(
                "`head` does not match the store's segments ({failure}): opened the commit \
                 segment {} carries",
                head.generation
            ),
        }),
    })
}

/// The commit the segment of `generation` carries, with its own entry filled in from its
/// parts; `None` for a torn segment (a part missing) or one with no COMMIT section (written
/// before format v4). Fails naming a part that is damaged or stored where it does not belong.
fn segment_commit(generation: u64, values: &Values) -> Result<Option<Commit>> {
    let first_key = segment_key(generation, 0);
    let first = match values.get(first_key.as_str()) {
        None => return Ok(None),
        Some(Err(e)) => return Err(e.clone()),
        Some(Ok(bytes)) => *bytes,
    };
    let Some(parts) = parts_of(generation, Some(first))? else {
        return Ok(None);
    };
    if (0..parts).any(|p| !values.contains_key(segment_key(generation, p).as_str())) {
        return Ok(None);
    }
    let probe = SegmentInfo {
        generation,
        parts,
        ..SegmentInfo::default()
    };
    let read = super::values::read_segment(&probe, values)?;
    let Some((last_key, last)) = read.chunks.last() else {
        return Ok(None);
    };
    let Some(section) = commit_section(last_key, last.bytes())? else {
        return Ok(None);
    };
    let bytes: u64 = read
        .chunks
        .iter()
        .map(|(_, c)| c.bytes().len() as u64)
        .sum();
    let own = SegmentInfo {
        generation,
        parts,
        level: size_class(bytes),
        entries: 0,
        bytes,
        sum: read.sum,
    };
    decode_embedded(last_key, section, &own).map(Some)
}
