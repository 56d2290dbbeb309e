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
//! 2. *Digest*, in apply order: each chunk's records are decoded, its TEXT section is copied
//!    into a buffer of its own, and so are its other sections (graph links, tombstones,
//!    documents), but the codes of an int8 store, which are appended to pages of rows for all
//!    chunks ([`crate::index::rows`]). A part's value is freed once its last chunk is
//!    digested, so the pages fill as the values go: the codes are never held beside every
//!    value. The RECORDS section, about 30% of a store's bytes, is then held only as decoded
//!    records.
//! 3. *Restore*: the store is restored from what was kept and the decoded records, as a
//!    borrowing open restores it from the chunks, with two differences. The vector index takes
//!    the pages of codes as its own, rows reordered in place, rather than copying each node's
//!    (`NodeVectors::adopt_codes`). And each chunk's TEXT buffer is freed once the entry of
//!    its last record is read (see [`super::texts`]).
//!
//! The records of every chunk are decoded into one array ([`super::records`]),
//! made at the start of step 2, while every value is still held: the restore reorders it in
//! place into the store's slots, where it used to hold one array per chunk and the slots
//! beside them. The restore reads every stored text analysis (freeing them) before it makes
//! the graph's arrays, and restores the search indexes before the store's own (by id, the
//! DAG, the time orders), which it makes once the views, the kept chunks and the stored
//! graph's maps are freed (see `restore_v2`).
//!
//! At 100k records of the LoCoMo workload (int8) in wasm, the live peak of a borrowing open is
//! 203 MiB (86.9 of values and a 102.6 MiB store). This one's is 106.2 MiB, as the graph's
//! links are set: the search indexes beside what the restore reads from (the kept chunks,
//! mostly their stored graph nodes, and the maps of the stored nodes); the store's own
//! indexes then peak at 103.8 and the digest at 103.2 (the store is 102.1). Under a 128 MiB
//! Worker cap (`worker-128mb.mjs`), 100k int8 records open and answer in 127.2 MiB (90k in
//! 118.8): the wasm memory holds some 20 MiB more than the live peak, in holes the freed
//! values leave.
//!
//! Every error a stored byte can cause is found in step 1, while the values are whole, so
//! such an error lists the store's damage as [`Store::load`]'s does. A chunk that passed its
//! checksums yet does not decode in step 2 or 3 fails naming its key, without that list (its
//! values are partly freed). A store whose `head` may give way to the commit its newest
//! segment carries (see `choose::instead_of_head`) is opened by the borrowing open instead,
//! which can still try that commit after a failure.

use std::collections::HashMap;
use std::string::String;
use std::vec::Vec;

use super::choose::{choose, instead_of_head};
use super::load::{restore_v2, Digested};
use super::records::ChunkRecords;
use super::values::{read_segment, Values};
use super::vectors::CodePool;
use crate::commit::Warning;
use crate::error::{Error, Result};
use crate::index::vecstore::code_rows;
use crate::keys::HEAD_KEY;
use crate::part::ChunkBytes;
use crate::segment::{as_codes, chunk_codes, chunk_record_count, split_records, Commit};
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

/// What the plan found for an open that frees each part once read (`None` from [`plan`]: open
/// with the borrowing open, for a v1 store or a `head` that may give way).
struct Plan {
    commit: Commit,
    warning: Option<Warning>,
    /// Every chunk in apply order: its segment's index, the key of its part, its place.
    chunks: Vec<(usize, String, Place)>,
    /// The codes' dimension, when every vector is stored as codes of the commit's
    /// dimension: they then go into pages of rows, which the vector index takes.
    pool: Option<usize>,
    /// The records of every chunk, by their sections' headers.
    records: usize,
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
    let Plan {
        commit,
        warning,
        chunks,
        pool,
        records,
    } = {
        let values = borrow(&owned);
        match plan(&owned, &values) {
            Ok(Some(plan)) => plan,
            Ok(None) => return Store::load_values(&values).map_err(|e| with_damage(e, &values)),
            Err(e) => return Err(with_damage(e, &values)),
        }
    };
    let (kept, digested) = digest(&mut owned, chunks, pool, records).map_err(salvage_hint)?;
    // Only the keys are read from here on (the orphans among them).
    let keys: Values = owned
        .iter()
        .map(|(k, _)| (k.as_str(), Ok(&[][..])))
        .collect();
    restore_v2(commit, warning, kept, Some(digested), &keys, None).map_err(salvage_hint)
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
fn plan(owned: &OwnedValues, values: &Values) -> Result<Option<Plan>> {
    let Some(choice) = choose(values)? else {
        return Ok(None);
    };
    if choice.warning.is_none() {
        let probe = Error::CorruptData {
            key: HEAD_KEY.into(),
            reason: String::new(),
        };
        if instead_of_head(&choice.commit, &probe, values).is_some() {
            return Ok(None);
        }
    }
    let index_of: HashMap<&str, usize> = owned
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.as_str(), i))
        .collect();
    let mut commit = choice.commit;
    let mut chunks = Vec::new();
    let mut records = 0usize;
    let dim = commit.dimension as usize;
    let mut pool = (commit.vectors.precision.quantizes() && dim > 0 && commit.steps.len() == dim)
        .then_some(dim);
    for (si, info) in commit.segments.iter_mut().enumerate() {
        let read = read_segment(info, values)?;
        // A segment written before format v4 gets its checksum now, for the next commit.
        if info.sum == 0 {
            info.sum = read.sum;
        }
        for (key, chunk) in read.chunks {
            records = records.saturating_add(chunk_record_count(chunk.bytes()));
            if pool.is_some() {
                // f32 vectors, or codes of another dimension: the codes are copied instead.
                let (d, count, f32s) = chunk_codes(&key, chunk.bytes())?;
                if f32s || (count > 0 && d != dim) {
                    pool = None;
                }
            }
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
    Ok(Some(Plan {
        commit,
        warning: choice.warning,
        chunks,
        pool,
        records,
    }))
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
/// part's value freed after its last chunk (and every value no chunk lies in, first). With
/// `pool` (the codes' dimension), the codes go into pages of rows of that dimension.
fn digest(
    owned: &mut OwnedValues,
    chunks: Vec<(usize, String, Place)>,
    pool: Option<usize>,
    records: usize,
) -> Result<(Kept, Digested)> {
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
    // The codes go into pages as the values they come from are freed: never the values and
    // a buffer of every code side by side (see `crate::index::rows`).
    let pool = pool.map(|dim| CodePool {
        codes: code_rows(dim),
        first_row: Vec::with_capacity(chunks.len()),
    });
    let mut kept: Kept = Vec::with_capacity(chunks.len());
    let mut digested = Digested {
        // Made while every value is still held, it is the open's one large allocation then,
        // so it lies below what the digest makes as the values go (see `ChunkRecords`).
        records: ChunkRecords::with_capacity(records, chunks.len())?,
        pool,
        texts: Vec::with_capacity(chunks.len()),
    };
    for (ci, (si, key, place)) in chunks.into_iter().enumerate() {
        let rest = match &place {
            Place::InPart(vi, range) => {
                // Freed only after its last chunk, so still held.
                let value = owned[*vi].1.as_ref().map_err(Clone::clone)?;
                let body = value.get(range.clone()).unwrap_or_default();
                take_chunk(&key, body, &mut digested)?
            }
            Place::Joined(bytes) => take_chunk(&key, bytes, &mut digested)?,
        };
        if let Place::InPart(vi, _) = place {
            if last_chunk[vi] == Some(ci) {
                owned[vi].1 = Ok(Vec::new());
            }
        }
        kept.push((si, key, ChunkBytes::Joined(rest)));
    }
    Ok((kept, digested))
}

/// Takes a chunk's records, and its codes when they go to the pool, into `digested`; returns
/// the rest of the chunk, to keep.
fn take_chunk(key: &str, body: &[u8], digested: &mut Digested) -> Result<Vec<u8>> {
    let mut split = split_records(key, body, digested.pool.is_some())?;
    digested.records.push_chunk(&mut split.records);
    let text = crate::room::copied(split.text, "a copy of a part's text analyses")?;
    digested.texts.push(text);
    if let Some(pool) = digested.pool.as_mut() {
        pool.first_row.push(pool.codes.len() as u32);
        // A copy a page at a time (`memory.copy` in wasm), fast in a first open's baseline
        // code too.
        pool.codes.try_extend(as_codes(split.codes))?;
    }
    Ok(split.rest)
}
