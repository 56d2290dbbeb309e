//! What the storage engine knows of a store's stored form ([`PersistState`]): the commit of
//! the last change set, where each record, node, blob and document was last written, the
//! tombstones, orphans and the cipher. A plain part of [`crate::Store`], with no behaviour of
//! the store itself.

use std::collections::{BTreeMap, BTreeSet};
use std::string::String;
use std::vec::Vec;

use crate::commit::Warning;
use crate::segment::{Commit, SegmentInfo, DEFAULT_PART_BYTES};

/// Home of something never written to a segment.
pub(super) const UNWRITTEN: u64 = 0;

/// What the storage engine knows of the stored form of a store.
#[derive(Debug, Clone)]
pub struct PersistState {
    /// The commit of the last change set.
    pub(super) commit: Commit,
    pub(crate) part_bytes: usize,
    /// The segment holding each slot's current record, [`UNWRITTEN`] if none.
    pub(super) record_home: Vec<u64>,
    /// The segment holding each graph node's current links.
    pub(super) node_home: Vec<u64>,
    pub(super) blob_home: BTreeMap<String, u64>,
    /// Tombstones written, by the deleted record's sequence number, with the segment holding
    /// them.
    pub(super) gone_records: BTreeMap<u64, u64>,
    pub(super) gone_blobs: BTreeMap<String, u64>,
    /// The segment holding each named document, and the tombstones of removed ones.
    pub(super) state_home: BTreeMap<String, u64>,
    pub(super) gone_state: BTreeMap<String, u64>,
    /// The segment holding each slot's current use count, [`UNWRITTEN`] if none.
    pub(super) uses_home: Vec<u64>,
    /// Keys to delete after the next commit.
    pub(super) orphans: BTreeSet<String>,
    /// Keys the commit before the last one named and the last one dropped (the segments a
    /// merge replaced): kept until the next commit is durable, so that the commit before the
    /// last still opens whole (see [`crate::storage`]). Not a reason to write.
    pub(super) retired: BTreeSet<String>,
    /// Write everything as one segment next time (a v1 migration).
    pub(super) full_rewrite: bool,
    /// What the last change set did, to undo it if the host could not write it.
    pub(super) last: Option<Taken>,
    /// Seals every value written, when the store is encrypted (see [`crate::seal`]).
    pub(crate) cipher: Option<crate::cipher::Cipher>,
    /// The host seals every value written (seal v2): change sets stay plain (see
    /// [`crate::seal`]).
    pub(crate) host_seals: bool,
    /// What the open that made this store recovered from (see [`Store::load_warnings`]).
    pub(super) warnings: Vec<Warning>,
    /// The open chose a commit `head` does not hold: the next change set writes `head`.
    pub(super) rewrite_head: bool,
}

impl Default for PersistState {
    fn default() -> Self {
        PersistState {
            commit: Commit::default(),
            part_bytes: DEFAULT_PART_BYTES,
            record_home: Vec::new(),
            node_home: Vec::new(),
            blob_home: BTreeMap::new(),
            gone_records: BTreeMap::new(),
            gone_blobs: BTreeMap::new(),
            state_home: BTreeMap::new(),
            gone_state: BTreeMap::new(),
            uses_home: Vec::new(),
            orphans: BTreeSet::new(),
            retired: BTreeSet::new(),
            full_rewrite: false,
            last: None,
            cipher: None,
            host_seals: false,
            warnings: Vec::new(),
            rewrite_head: false,
        }
    }
}

/// What [`Store::write_live`] wrote: slots, graph nodes, blob ids, document names and the
/// slots of use counts.
pub(super) struct Written {
    pub(super) slots: Vec<usize>,
    pub(super) nodes: Vec<u32>,
    pub(super) blobs: Vec<String>,
    pub(super) state: Vec<String>,
    pub(super) uses: Vec<usize>,
}

#[derive(Debug, Clone)]
pub(super) struct Taken {
    pub(super) created: Vec<u64>,
    pub(super) removed: Vec<SegmentInfo>,
    pub(super) deletes: Vec<String>,
}

impl PersistState {
    /// Whether the next change set has work even with nothing dirty (orphans, a migration, a
    /// recovered commit).
    pub(crate) fn must_write(&self) -> bool {
        self.full_rewrite || self.rewrite_head || !self.orphans.is_empty()
    }

    /// Makes the next change set write every live entry under new keys and delete every
    /// key the store had, so no byte of erased data stays in an old segment.
    pub(crate) fn force_full_rewrite(&mut self) {
        self.full_rewrite = true;
    }
}

pub(super) fn set_home(homes: &mut Vec<u64>, at: usize, generation: u64) {
    if homes.len() <= at {
        homes.resize(at + 1, UNWRITTEN);
    }
    homes[at] = generation;
}
