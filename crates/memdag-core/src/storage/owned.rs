//! Opening from values the open owns (the JS face's and the component's copies, see
//! [`Store::load_owned`]), freeing each segment part once its records are decoded.
//!
//! A borrowing open ([`Store::load`]) holds every stored byte to its end, beside the store it
//! builds: at 100k records in wasm, 86.9 MiB of values under a 102.6 MiB store. This one
//! reads in three steps:
//!
//! 1. *Plan*, borrowing the values: choose the commit and read every segment it names
//!    exactly as [`Store::load`] does (each part's envelope, checksum and frames checked, the
//!    segment's checksum against the commit's). Each chunk is noted by place: its part and
//!    range, or the bytes joined from the parts it spans. Values no chunk lies in are freed.
//! 2. *Digest*, in apply order: each chunk's records are decoded, and its other sections
//!    (vectors, graph links, text analyses, tombstones, documents) are copied out; a part's
//!    value is freed once its last chunk is digested. The RECORDS section, about 30% of a
//!    store's bytes, is then held only as decoded records.
//! 3. *Restore*: the store is restored from the kept sections and the decoded records, as a
//!    borrowing open restores it from the chunks.
//!
//! Every error a stored byte can cause is found in step 1, while the values are whole, so
//! such an error lists the store's damage as [`Store::load`]'s does. A chunk that passed its
//! checksums yet does not decode in step 2 fails naming its key, without that list (its
//! values are partly freed). A store whose `head` may give way to the commit its newest
//! segment carries (see `choose::instead_of_head`) is opened by the borrowing open instead,
//! which can still try that commit after a failure.

use std::collections::HashMap;
use std::string::String;
use std::vec::Vec;

use super::choose::{choose, instead_of_head};
use super::load::restore_v2;
use super::values::{read_segment, Values};
use crate::commit::Warning;
use crate::error::{Error, Result};
use crate::keys::HEAD_KEY;
use crate::part::ChunkBytes;
use crate::record::Record;
use crate::segment::{split_records, Commit};
use crate::store::Store;

/// Values an open takes, by key: each plain (as stored, or opened), or the error opening it
/// gave, raised only if the open needs that value.
pub(crate) type OwnedValues = Vec<(String, Result<Vec<u8>>)>;

/// Where a chunk read in the plan lies.
enum Place {
    /// In place in a part: the value's index among the owned values, and the chunk's range.
    InPart(usize, core::ops::Range<usize>),
    /// Joined from the parts it spans (a copy already).
    Joined(Vec<u8>),
}

/// What the plan found.
enum Plan {
    /// Open with the borrowing open: a v1 store, or a `head` that may give way.
    Borrowing,
    /// Open freeing each part once read.
    Freeing {
        commit: Commit,
        warning: Option<Warning>,
        /// Every chunk in apply order: its segment's index, the key of its part, its place.
        chunks: Vec<(usize, String, Place)>,
    },
}

/// The owned values as the borrowing steps read them.
fn borrow(owned: &OwnedValues) -> Values<'_> {
    owned
        .iter()
        .map(|(k, v)| {
            (
                k.as_str(),
                v.as_ref().map(Vec::as_slice).map_err(Clone::clone),
            )
        })
        .collect()
}

/// Opens a store from owned values (see the module docs). `with_damage` turns an error found
/// while the values are whole into the one to return (the store's damage listed).
pub(crate) fn load_owned_values(
    mut owned: OwnedValues,
    with_damage: impl Fn(Error, &Values) -> Error,
) -> Result<Store> {
    let (commit, warning, chunks) = {
        let values = borrow(&owned);
        match plan(&owned, &values) {
            Ok(Plan::Freeing {
                commit,
                warning,
                chunks,
            }) => (commit, warning, chunks),
            Ok(Plan::Borrowing) => {
                return Store::load_values(&values).map_err(|e| with_damage(e, &values))
            }
            Err(e) => return Err(with_damage(e, &values)),
        }
    };
    let (kept, decoded) = digest(&mut owned, chunks).map_err(salvage_hint)?;
    // Only the keys are read from here on (the orphans among them).
    let keys: Values = owned
        .iter()
        .map(|(k, _)| (k.as_str(), Ok(&[][..])))
        .collect();
    restore_v2(commit, warning, kept, Some(decoded), &keys, None).map_err(salvage_hint)
}

/// An error found once values were freed: the store's other damage cannot be listed, but
/// the way out is the same.
fn salvage_hint(e: Error) -> Error {
    match e {
        Error::CorruptData { key, reason } => Error::CorruptData {
            key,
            reason: std::format!(
                "{reason}. Nothing was opened or changed: open it salvaging (`memdag salvage`, \
                 `salvage: true`) to keep everything intact"
            ),
        },
        e => e,
    }
}

/// Step 1: the commit, and where each of its chunks lies.
fn plan(owned: &OwnedValues, values: &Values) -> Result<Plan> {
    let Some(choice) = choose(values)? else {
        return Ok(Plan::Borrowing);
    };
    if choice.warning.is_none() {
        let probe = Error::CorruptData {
            key: HEAD_KEY.into(),
            reason: String::new(),
        };
        if instead_of_head(&choice.commit, &probe, values).is_some() {
            return Ok(Plan::Borrowing);
        }
    }
    let index_of: HashMap<&str, usize> = owned
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.as_str(), i))
        .collect();
    let mut commit = choice.commit;
    let mut chunks = Vec::new();
    for (si, info) in commit.segments.iter_mut().enumerate() {
        let read = read_segment(info, values)?;
        // A segment written before format v4 gets its checksum now, for the next commit.
        if info.sum == 0 {
            info.sum = read.sum;
        }
        for (key, chunk) in read.chunks {
            let place = match chunk {
                ChunkBytes::Joined(bytes) => Place::Joined(bytes),
                ChunkBytes::InPlace(bytes) => match in_part(owned, &index_of, &key, bytes) {
                    Some((vi, range)) => Place::InPart(vi, range),
                    // Not within the value of its key: never so, but a copy is as good.
                    None => Place::Joined(bytes.to_vec()),
                },
            };
            chunks.push((si, key, place));
        }
    }
    Ok(Plan::Freeing {
        commit,
        warning: choice.warning,
        chunks,
    })
}

/// The value a chunk read in place lies in (the one of its key) and its range there.
fn in_part(
    owned: &OwnedValues,
    index_of: &HashMap<&str, usize>,
    key: &str,
    chunk: &[u8],
) -> Option<(usize, core::ops::Range<usize>)> {
    let vi = *index_of.get(key)?;
    let value = owned[vi].1.as_ref().ok()?;
    let start = (chunk.as_ptr() as usize).checked_sub(value.as_ptr() as usize)?;
    let end = start.checked_add(chunk.len())?;
    (end <= value.len()).then_some((vi, start..end))
}

/// The chunks as a restore reads them, with the sections kept of each.
type Kept = Vec<(usize, String, ChunkBytes<'static>)>;

/// Step 2: each chunk's records decoded and its other sections kept, in apply order, each
/// part's value freed after its last chunk (and every value no chunk lies in, first).
fn digest(
    owned: &mut OwnedValues,
    chunks: Vec<(usize, String, Place)>,
) -> Result<(Kept, Vec<Vec<Record>>)> {
    let mut last_chunk: Vec<Option<usize>> = std::vec![None; owned.len()];
    for (ci, (_, _, place)) in chunks.iter().enumerate() {
        if let Place::InPart(vi, _) = place {
            last_chunk[*vi] = Some(ci);
        }
    }
    for (vi, last) in last_chunk.iter().enumerate() {
        if last.is_none() {
            owned[vi].1 = Ok(Vec::new());
        }
    }
    let mut kept: Kept = Vec::with_capacity(chunks.len());
    let mut decoded: Vec<Vec<Record>> = Vec::with_capacity(chunks.len());
    for (ci, (si, key, place)) in chunks.into_iter().enumerate() {
        let (records, rest) = match &place {
            Place::InPart(vi, range) => {
                // Freed only after its last chunk, so still held.
                let value = owned[*vi].1.as_ref().map_err(Clone::clone)?;
                split_records(&key, value.get(range.clone()).unwrap_or_default())?
            }
            Place::Joined(bytes) => split_records(&key, bytes)?,
        };
        if let Place::InPart(vi, _) = place {
            if last_chunk[vi] == Some(ci) {
                owned[vi].1 = Ok(Vec::new());
            }
        }
        kept.push((si, key, ChunkBytes::Joined(rest)));
        decoded.push(records);
    }
    Ok((kept, decoded))
}
