//! The storage engine: change sets, commits, segment merges, loading, and v1 migration.
//!
//! The store lives in memory; the host persists the change sets this module makes (key →
//! bytes, or a deletion). The format is described in [`crate::segment`], [`crate::part`] and
//! [`crate::commit`], and the keys in [`crate::keys`]. Each change set is, in this order:
//!
//! 1. the parts of one new segment holding everything that changed since the last change set
//!    (records, tombstones of deleted records and blobs, blobs, vector-graph nodes);
//! 2. at most one merge: the parts of a segment replacing a run of older segments;
//! 3. `head`, the commit naming the live segments;
//! 4. deletions of the keys the new commit no longer names (keys orphaned by an earlier crash,
//!    v1 keys after a migration, everything of the old store after a full rewrite), and of
//!    the segments the *previous* change set's merge replaced: a merge's inputs are kept until
//!    the next commit ([`Store::retired`]), because the commit before the last names them, and
//!    that commit must open whole when the last one's newest segment is lost with `head`.
//!
//! The newest segment of a change set carries the commit it makes (section COMMIT), so the
//! commit is durable once that segment is whole: a host that stops at any point leaves the
//! store as it was before or after the change set, never a mix, and a lost, torn or rolled-back
//! `head` loses nothing (see `choose`). Keys written before a crash and never committed are
//! orphans: [`Store::load`] finds them (when the host lists its keys) and the next change set
//! deletes them, after its commit. Nothing is deleted that a commit the open could choose
//! still names, and no key outside the shapes memdag writes is ever deleted.
//!
//! ```text
//!   storage/
//!     mod.rs     the state kept of the stored form; snapshot, keys to read
//!     write.rs   change sets: new segment, merge, commit, deletes; requeue
//!     merge.rs   which run to merge (size-tiered), tombstones of a merged run
//!     choose.rs  which commit an open trusts
//!     load.rs    reading the chosen commit's segments, restoring the store
//!     records.rs every chunk's records in one array, taken in place into the slots
//!     vectors.rs the vectors an open reads: in place, or from pages of codes
//!     texts.rs   the text analyses an open reads: in place, or apart and freed once read
//!     owned.rs   an open that frees each part once read (values it owns)
//!     salvage.rs a salvaging open, verify: everything intact in a damaged store
//!     v1.rs      opening a format-v1 store, to migrate it
//! ```
//!
//! One add into a large store writes one segment part and `head`: two keys. Merges are
//! size-tiered: when [`FANOUT`] adjacent segments below the new one share a size class and
//! together hold at most [`MERGE_CAP`] bytes, they are rewritten as one (the newest such run;
//! the merged segment takes its place). A segment whose live
//! entries have fallen below half (its records deleted, its graph nodes rewritten by later
//! segments) is rewritten alone. So a flush never merges more than [`MERGE_CAP`] bytes, and
//! the number of segments grows with the size of the store, not with the number of flushes.
//! Merged segments are written from the in-memory state, never read back.
//!
//! A v1 store (one key per record, see [`crate::codec`]) opens as before and is rewritten as
//! one segment by its first change set, which then deletes every v1 key after the commit.

mod choose;
mod load;
mod merge;
mod owned;
mod policy;
mod records;
mod restore;
mod salvage;
pub(crate) mod state;
mod texts;
mod v1;
mod values;
mod vectors;
mod write;

pub use policy::{FANOUT, MERGE_CAP};
pub use state::PersistState;

pub(crate) use owned::{load_owned_values, OwnedValues};
pub(crate) use salvage::damage_of;
pub(crate) use values::{host_opened, HostOpened, Values};

use std::string::{String, ToString};
use std::vec::Vec;

use crate::codec::Meta;
use crate::commit::{encode_embedded, Warning};
use crate::error::Result;
use crate::keys::{self, segment_key, HEAD_KEY};
use crate::segment::MIN_PART_BYTES;
use crate::segment::{decode_commit, encode_commit, SegmentInfo, SegmentWriter};
use crate::store::Store;
use write::{push_segment, unwritten};

impl Store {
    /// Sets the largest value a segment part may have, in bytes (default 1 MiB; at least
    /// 1 KiB). Hosts with a value-size limit set theirs, e.g. 128 KiB for Durable Objects.
    /// An encrypted store cuts its parts [`crate::seal::OVERHEAD`] bytes smaller, so that a
    /// sealed part fits too.
    pub fn set_part_bytes(&mut self, bytes: usize) {
        self.persist.part_bytes = bytes.max(MIN_PART_BYTES);
    }

    /// The generation of the last change set taken (or of the loaded commit).
    pub fn generation(&self) -> u64 {
        self.persist.commit.generation
    }

    /// The live segments, oldest first, as the last commit names them.
    pub fn segments(&self) -> &[SegmentInfo] {
        &self.persist.commit.segments
    }

    /// The store counters as they are persisted.
    pub fn meta(&self) -> Meta {
        Meta {
            next_seq: self.next_seq,
            dimension: self.search.vectors.dimension() as u32,
        }
    }

    /// Every key and value of the store as a fresh image: one segment (carrying its commit)
    /// and the commit under `head` (for export, or a first write elsewhere). Changes nothing.
    pub fn snapshot(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let part_bytes = self.plain_part_bytes();
        let mut w = SegmentWriter::new(part_bytes);
        self.write_live(&mut w, &|_| true)?;
        let mut segments = vec![unwritten(1, w.entries)];
        let entries = w.entries;
        let chunks = w.finish_with_commit(&encode_embedded(&self.commit_of(1, &segments))?)?;
        let mut puts = Vec::new();
        segments[0] = push_segment(&mut puts, 1, &chunks, entries, part_bytes);
        let mut out: Vec<(String, Vec<u8>)> = puts
            .into_iter()
            .filter_map(|c| c.value.map(|v| (c.key, v)))
            .collect();
        out.push((
            HEAD_KEY.to_string(),
            encode_commit(&self.commit_of(1, &segments))?,
        ));
        self.seal_entries(&mut out);
        Ok(out)
    }

    /// The keys a host must read to open a store whose `head` holds `head_bytes`: for hosts
    /// that read keys one by one (Workers KV) rather than listing them. [`Store::load`] then
    /// takes those entries and `head`.
    pub fn keys_to_read(head_bytes: &[u8]) -> Result<Vec<String>> {
        let commit = decode_commit(head_bytes)?;
        Ok(commit
            .segments
            .iter()
            .flat_map(|s| s.keys().collect::<Vec<_>>())
            .collect())
    }

    /// Makes this store's next change set replace a store stored under `existing_keys` (all of
    /// a host's keys, or at least the core's): it writes this store whole under generations
    /// none of those keys use, then its commit, then deletes every old core key. A crash before
    /// the commit leaves the old store; after it, this one. For snapshot import.
    pub fn prepare_to_replace<'a>(&mut self, existing_keys: impl IntoIterator<Item = &'a str>) {
        let p = &mut self.persist;
        p.full_rewrite = true;
        p.last = None;
        p.orphans.extend(
            existing_keys
                .into_iter()
                .filter(|k| keys::is_core_key(k) && *k != HEAD_KEY)
                .map(str::to_string),
        );
        skip_orphan_generations(p);
    }

    /// The keys a host that reads keys one by one (rather than listing them) also reads when
    /// it opens the store whose `head` holds `head_bytes` (decoded as [`Store::keys_to_read`]
    /// does): the first parts of the next two generations. When any of them exists, `head`
    /// is older than a segment (a change set stopped before its commit, or `head` was rolled
    /// back), and the host must list its keys and open with all of them, so that the newer
    /// commit is found and nothing it names is overwritten.
    pub fn keys_ahead(head_bytes: &[u8]) -> Result<Vec<String>> {
        let commit = decode_commit(head_bytes)?;
        Ok((1..=2)
            .filter_map(|step| commit.generation.checked_add(step))
            .filter(|&g| g <= keys::MAX_GENERATION)
            .map(|g| segment_key(g, 0))
            .collect())
    }

    /// What the open that made this store recovered from, each with a stable code: a store
    /// whose `head` was missing, unreadable or older than a complete segment opened the
    /// newest commit its segments carry ([`crate::commit::COMMIT_RECOVERED`]), and its next
    /// change set writes `head` again. Empty for a store opened from its `head`, or new.
    pub fn load_warnings(&self) -> &[Warning] {
        &self.persist.warnings
    }

    /// Keys found by [`Store::load`] that the commit does not name; the next change set
    /// deletes them.
    pub fn orphans(&self) -> impl Iterator<Item = &str> {
        self.persist.orphans.iter().map(String::as_str)
    }

    /// Keys of the segments the last change set's merge replaced: the commit before it names
    /// them, so they are kept until the next change set, which deletes them after its commit.
    pub fn retired(&self) -> impl Iterator<Item = &str> {
        self.persist.retired.iter().map(String::as_str)
    }
}

/// New segments never take the generation of an orphan, so an orphan's parts are never
/// mistaken for, or overwritten by, a live segment's.
pub(super) fn skip_orphan_generations(p: &mut PersistState) {
    let newest = p
        .orphans
        .iter()
        .filter_map(|k| keys::parse_segment_key(k))
        .map(|(g, _)| g)
        .max();
    if let Some(g) = newest {
        p.commit.generation = p.commit.generation.max(g);
    }
}
