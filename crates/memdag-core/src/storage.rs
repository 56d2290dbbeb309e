//! The storage engine: change sets, commits, segment merges, loading, and v1 migration.
//!
//! The store lives in memory; the host persists the change sets this module makes (key →
//! bytes, or a deletion). The format is described in [`crate::segment`] and the keys in
//! [`crate::keys`]. Each change set is, in this order:
//!
//! 1. the parts of one new segment holding everything that changed since the last change set
//!    (records, tombstones of deleted records and blobs, blobs, vector-graph nodes);
//! 2. at most one merge: the parts of a segment replacing a run of older segments;
//! 3. `head`, the commit naming the live segments;
//! 4. deletions of the keys the new commit no longer names (merged segments, keys orphaned by
//!    an earlier crash, and v1 keys after a migration).
//!
//! A reader trusts only what `head` names, so a host that stops at any point leaves the store
//! as it was before or after the change set: never a mix. Keys written before a crash and never
//! named are orphans: [`Store::load`] finds them (when the host lists its keys) and the next
//! change set deletes them, after its commit.
//!
//! One add into a large store writes one segment part and `head`: two keys. Merges are
//! size-tiered: when the [`FANOUT`] newest segments below the new one share a size class and
//! together hold at most [`MERGE_CAP`] bytes, they are rewritten as one. A segment whose live
//! entries have fallen below half (its records deleted, its graph nodes rewritten by later
//! segments) is rewritten alone. So a flush never merges more than [`MERGE_CAP`] bytes, and
//! the number of segments grows with the size of the store, not with the number of flushes.
//! Merged segments are written from the in-memory state, never read back.
//!
//! A v1 store (one key per record, see [`crate::codec`]) opens as before and is rewritten as
//! one segment by its first change set, which then deletes every v1 key after the commit.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use crate::codec::{self, Change, Meta, StoredNode};
use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::keys::{self, HEAD_KEY};
use crate::record::Record;
use crate::search::bm25::FIELDS;
use crate::search::persist::{GraphSource, SeqMap, VectorSource};
use crate::search::postings::{InvertedIndex, ANALYSIS_VERSION};
use crate::segment::{
    decode_commit, encode_commit, read_chunks, read_f32s, split_parts, ChunkBytes, Commit,
    RecordText, SegmentInfo, SegmentView, SegmentWriter, DEFAULT_PART_BYTES, MIN_PART_BYTES,
};
use crate::store::{Slot, Store};

/// How many segments of one size class are merged at once.
pub const FANOUT: usize = 8;
/// The most bytes one merge rewrites.
pub const MERGE_CAP: u64 = 16 << 20;
/// Segments smaller than this are in size class 0; each class above is [`FANOUT`] times larger.
const CLASS_BASE: u64 = 64 << 10;
/// Home of something never written to a segment.
const UNWRITTEN: u64 = 0;

/// What the storage engine knows of the stored form of a store.
#[derive(Debug, Clone)]
pub struct PersistState {
    /// The commit of the last change set.
    commit: Commit,
    pub(crate) part_bytes: usize,
    /// The segment holding each slot's current record, [`UNWRITTEN`] if none.
    record_home: Vec<u64>,
    /// The segment holding each graph node's current links.
    node_home: Vec<u64>,
    blob_home: BTreeMap<String, u64>,
    /// Tombstones written, by the deleted record's sequence number, with the segment holding
    /// them.
    gone_records: BTreeMap<u64, u64>,
    gone_blobs: BTreeMap<String, u64>,
    /// The segment holding each named document, and the tombstones of removed ones.
    state_home: BTreeMap<String, u64>,
    gone_state: BTreeMap<String, u64>,
    /// The segment holding each slot's current use count, [`UNWRITTEN`] if none.
    uses_home: Vec<u64>,
    /// Keys to delete after the next commit.
    orphans: BTreeSet<String>,
    /// Write everything as one segment next time (a v1 migration).
    full_rewrite: bool,
    /// What the last change set did, to undo it if the host could not write it.
    last: Option<Taken>,
    /// Seals every value written, when the store is encrypted (see [`crate::seal`]).
    pub(crate) cipher: Option<crate::seal::Cipher>,
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
            full_rewrite: false,
            last: None,
            cipher: None,
        }
    }
}

/// What [`Store::write_live`] wrote: slots, graph nodes, blob ids, document names and the
/// slots of use counts.
struct Written {
    slots: Vec<usize>,
    nodes: Vec<u32>,
    blobs: Vec<String>,
    state: Vec<String>,
    uses: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Taken {
    created: Vec<u64>,
    removed: Vec<SegmentInfo>,
    deletes: Vec<String>,
}

impl PersistState {
    /// Whether the next change set has work even with nothing dirty (orphans, a migration).
    pub(crate) fn must_write(&self) -> bool {
        self.full_rewrite || !self.orphans.is_empty()
    }

    /// Makes the next change set write every live entry under new keys and delete every
    /// key the store had, so no byte of erased data stays in an old segment.
    pub(crate) fn force_full_rewrite(&mut self) {
        self.full_rewrite = true;
    }
}

/// The size class of a segment of `bytes` bytes.
fn size_class(bytes: u64) -> u8 {
    let mut class = 0;
    let mut bound = CLASS_BASE;
    while bytes >= bound && class < 32 {
        class += 1;
        bound = bound.saturating_mul(FANOUT as u64);
    }
    class
}

fn set_home(homes: &mut Vec<u64>, at: usize, generation: u64) {
    if homes.len() <= at {
        homes.resize(at + 1, UNWRITTEN);
    }
    homes[at] = generation;
}

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

    /// Takes the change set accumulated since the last call: every key with its new bytes, or
    /// `None` where the key is deleted, to be written in order (see the module docs). If the
    /// host fails to write it, hand it back with [`Store::requeue`]. Returns an empty change set
    /// when nothing changed. On an error nothing is taken.
    pub fn take_changes(&mut self) -> Result<Vec<Change>> {
        let marks = self.dirty.take();
        if marks.is_empty() && !self.persist.must_write() {
            return Ok(Vec::new());
        }
        // What a failure must restore is small; the per-record homes are not saved (that
        // would copy them on every flush): a failure makes the next change set a full rewrite
        // instead, which needs none of them.
        let commit = self.persist.commit.clone();
        let orphans = self.persist.orphans.clone();
        match self.build_changes(&marks) {
            Ok(mut changes) => {
                self.seal_changes(&mut changes);
                Ok(changes)
            }
            Err(e) => {
                let p = &mut self.persist;
                p.orphans = orphans;
                p.orphans.extend(
                    commit
                        .segments
                        .iter()
                        .flat_map(|s| s.keys().collect::<Vec<_>>()),
                );
                // New generations only: nothing this failed attempt named is reused.
                p.commit = Commit {
                    segments: Vec::new(),
                    ..commit
                };
                p.commit.generation += 2;
                p.full_rewrite = true;
                p.last = None;
                p.gone_records.clear();
                p.gone_blobs.clear();
                p.gone_state.clear();
                self.dirty.restore(marks);
                Err(e)
            }
        }
    }

    fn build_changes(&mut self, marks: &BTreeSet<Touched>) -> Result<Vec<Change>> {
        let generation = self.persist.commit.generation + 1;
        let full = self.persist.full_rewrite;
        let part_bytes = self.plain_part_bytes();
        let mut writer = SegmentWriter::new(part_bytes);
        let mut removed: Vec<SegmentInfo> = Vec::new();
        let mut segments = self.persist.commit.segments.clone();
        if full {
            removed = core::mem::take(&mut segments);
            self.write_all(&mut writer, generation, &|_| true)?;
        } else {
            self.write_touched(&mut writer, marks, generation, !segments.is_empty())?;
        }
        let mut puts: Vec<Change> = Vec::new();
        let mut created = Vec::new();
        if !writer.is_empty() {
            let entries = writer.entries;
            let chunks = writer.finish()?;
            push_segment(
                &mut puts,
                &mut segments,
                generation,
                &chunks,
                entries,
                part_bytes,
            );
            created.push(generation);
        }
        let mut last_generation = generation;
        if !full {
            if let Some(run) = self.plan_merge(&segments, created.len()) {
                let merged_generation = generation + 1;
                let in_run: BTreeSet<u64> =
                    segments[run.clone()].iter().map(|s| s.generation).collect();
                let bottom = run.start == 0;
                let mut w = SegmentWriter::new(part_bytes);
                self.write_all(&mut w, merged_generation, &|g| in_run.contains(&g))?;
                self.move_tombstones(&mut w, merged_generation, &in_run, bottom)?;
                let entries = w.entries;
                let chunks = w.finish()?;
                removed.extend(segments.drain(run.clone()));
                let mut merged = Vec::new();
                if entries > 0 {
                    push_segment(
                        &mut puts,
                        &mut merged,
                        merged_generation,
                        &chunks,
                        entries,
                        part_bytes,
                    );
                    created.push(merged_generation);
                }
                segments.splice(run.start..run.start, merged);
                last_generation = merged_generation;
            }
        }
        let commit = Commit {
            generation: last_generation,
            next_seq: self.next_seq,
            dimension: self.search.vectors.dimension() as u32,
            segments,
        };
        puts.push(Change {
            key: HEAD_KEY.into(),
            value: Some(encode_commit(&commit)?),
        });
        let mut deletes: Vec<String> = core::mem::take(&mut self.persist.orphans)
            .into_iter()
            .collect();
        for s in &removed {
            deletes.extend(s.keys());
        }
        // Never delete what the new commit names. A live segment's generation is never an
        // orphan's (see `skip_orphan_generations`), so the generation decides.
        let live: BTreeSet<u64> = commit.segments.iter().map(|s| s.generation).collect();
        deletes.retain(|k| {
            k != HEAD_KEY && keys::parse_segment_key(k).is_none_or(|(g, _)| !live.contains(&g))
        });
        deletes.sort();
        deletes.dedup();
        puts.extend(deletes.iter().map(|key| Change {
            key: key.clone(),
            value: None,
        }));
        self.persist.commit = commit;
        self.persist.full_rewrite = false;
        self.persist.last = Some(Taken {
            created,
            removed,
            deletes,
        });
        Ok(puts)
    }

    /// Writes what the marks name into the new segment, records in sequence order, and moves
    /// their homes there. Tombstones are written only if an `older` segment may hold the thing.
    fn write_touched(
        &mut self,
        w: &mut SegmentWriter,
        marks: &BTreeSet<Touched>,
        generation: u64,
        older: bool,
    ) -> Result<()> {
        let mut slots: Vec<Slot> = Vec::new();
        let mut nodes: Vec<u32> = Vec::new();
        let mut uses: Vec<Slot> = Vec::new();
        for mark in marks {
            match mark {
                // A record marked and then deleted has a `Removed` mark of its own.
                Touched::Record(id) => slots.extend(self.slot_of(id)),
                Touched::Removed(seq) => {
                    if older {
                        w.gone_record(*seq)?;
                        self.persist.gone_records.insert(*seq, generation);
                    }
                }
                Touched::Blob(id) => match self.blobs.get(id) {
                    Some(text) => {
                        w.blob(id, text)?;
                        self.persist.blob_home.insert(id.clone(), generation);
                    }
                    None => {
                        self.persist.blob_home.remove(id);
                        if older {
                            w.gone_blob(id)?;
                            self.persist.gone_blobs.insert(id.clone(), generation);
                        }
                    }
                },
                Touched::Node(node) => nodes.push(*node),
                Touched::State(name) => match self.state.get(name) {
                    Some(value) => {
                        w.state(name, value)?;
                        self.persist.state_home.insert(name.clone(), generation);
                    }
                    None => {
                        self.persist.state_home.remove(name);
                        if older {
                            w.gone_state(name)?;
                            self.persist.gone_state.insert(name.clone(), generation);
                        }
                    }
                },
                Touched::Uses(slot) => uses.push(*slot),
                Touched::Counters => {}
            }
        }
        for slot in uses {
            if self.write_uses(w, slot as usize)? {
                set_home(&mut self.persist.uses_home, slot as usize, generation);
            }
        }
        slots.sort_unstable();
        for slot in slots {
            if let Some(r) = self.slot(slot) {
                write_record(w, r, self.embedding_at(slot))?;
                set_home(&mut self.persist.record_home, slot as usize, generation);
            }
        }
        for node in nodes {
            if self.write_node(w, node)? {
                set_home(&mut self.persist.node_home, node as usize, generation);
            }
        }
        Ok(())
    }

    /// Writes the use count of a live record that has one; returns whether it wrote it.
    fn write_uses(&self, w: &mut SegmentWriter, slot: usize) -> Result<bool> {
        let uses = self.access.get(&(slot as Slot)).copied().unwrap_or(0);
        match self.slot(slot as Slot) {
            Some(r) if uses > 0 => {
                w.uses(r.seq, uses)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Writes a live node; returns whether it was live.
    fn write_node(&self, w: &mut SegmentWriter, node: u32) -> Result<bool> {
        let live = self
            .search
            .vectors
            .slot_of_node(node)
            .is_some_and(|s| self.slot(s).is_some());
        match (live, self.search.node_links(node)) {
            (true, Some((seq, level, links))) => {
                let layers: Vec<&[u64]> = links.iter().map(Vec::as_slice).collect();
                w.node(seq, level, &layers)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Writes every live record, node and blob whose home passes `keep`, moving it to
    /// `generation`.
    fn write_all(
        &mut self,
        w: &mut SegmentWriter,
        generation: u64,
        keep: &dyn Fn(u64) -> bool,
    ) -> Result<()> {
        let written = self.write_live(w, keep)?;
        let p = &mut self.persist;
        for slot in written.slots {
            set_home(&mut p.record_home, slot, generation);
        }
        for node in written.nodes {
            set_home(&mut p.node_home, node as usize, generation);
        }
        for id in written.blobs {
            p.blob_home.insert(id, generation);
        }
        for name in written.state {
            p.state_home.insert(name, generation);
        }
        for slot in written.uses {
            set_home(&mut p.uses_home, slot, generation);
        }
        Ok(())
    }

    /// Writes every live record, node and blob whose home passes `keep`; returns what it wrote.
    fn write_live(&self, w: &mut SegmentWriter, keep: &dyn Fn(u64) -> bool) -> Result<Written> {
        let p = &self.persist;
        let home = |homes: &[u64], i: usize| homes.get(i).copied().unwrap_or(UNWRITTEN);
        let mut slots = Vec::new();
        for (slot, r) in self.slots.iter().enumerate() {
            if let Some(r) = r.as_ref().filter(|_| keep(home(&p.record_home, slot))) {
                write_record(w, r, self.embedding_at(slot as Slot))?;
                slots.push(slot);
            }
        }
        let mut nodes = Vec::new();
        for node in 0..self.search.vectors.node_capacity() as u32 {
            if keep(home(&p.node_home, node as usize)) && self.write_node(w, node)? {
                nodes.push(node);
            }
        }
        let mut blobs = Vec::new();
        for (id, text) in &self.blobs {
            if keep(p.blob_home.get(id).copied().unwrap_or(UNWRITTEN)) {
                w.blob(id, text)?;
                blobs.push(id.clone());
            }
        }
        let mut state = Vec::new();
        for (name, value) in &self.state {
            if keep(p.state_home.get(name).copied().unwrap_or(UNWRITTEN)) {
                w.state(name, value)?;
                state.push(name.clone());
            }
        }
        let mut uses = Vec::new();
        for &slot in self.access.keys() {
            let slot = slot as usize;
            if keep(home(&p.uses_home, slot)) && self.write_uses(w, slot)? {
                uses.push(slot);
            }
        }
        Ok(Written {
            slots,
            nodes,
            blobs,
            state,
            uses,
        })
    }

    /// Carries the tombstones of merged segments into the merged one, or drops them when the
    /// merge reaches the oldest segment (nothing older is left for them to hide).
    fn move_tombstones(
        &mut self,
        w: &mut SegmentWriter,
        generation: u64,
        run: &BTreeSet<u64>,
        bottom: bool,
    ) -> Result<()> {
        let p = &mut self.persist;
        if bottom {
            p.gone_records.retain(|_, g| !run.contains(g));
            p.gone_blobs.retain(|_, g| !run.contains(g));
            p.gone_state.retain(|_, g| !run.contains(g));
            return Ok(());
        }
        for (seq, g) in p.gone_records.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_record(*seq)?;
        }
        for (id, g) in p.gone_blobs.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_blob(id)?;
        }
        for (name, g) in p.gone_state.iter_mut().filter(|(_, g)| run.contains(*g)) {
            *g = generation;
            w.gone_state(name)?;
        }
        Ok(())
    }

    /// The run of segments to merge in this change set, if any. The `fresh` newest segments
    /// (just written) are never merged in the change set that writes them.
    fn plan_merge(
        &self,
        segments: &[SegmentInfo],
        fresh: usize,
    ) -> Option<core::ops::Range<usize>> {
        let older = segments.len().checked_sub(fresh)?;
        if older >= FANOUT {
            let run = older - FANOUT..older;
            let class = segments[run.start].level;
            let bytes: u64 = segments[run.clone()].iter().map(|s| s.bytes).sum();
            if segments[run.clone()].iter().all(|s| s.level == class) && bytes <= MERGE_CAP {
                return Some(run);
            }
        }
        // A segment mostly shadowed by later ones is rewritten alone. Counting live entries
        // scans every record and node, so it is done every 16th generation only.
        if !self.persist.commit.generation.is_multiple_of(16) {
            return None;
        }
        let live = self.live_entries();
        segments[..older]
            .iter()
            .position(|s| {
                s.bytes <= MERGE_CAP
                    && s.entries >= 64
                    && live.get(&s.generation).copied().unwrap_or(0) * 2 < s.entries
            })
            .map(|i| i..i + 1)
    }

    /// Live entries per segment generation.
    fn live_entries(&self) -> BTreeMap<u64, u64> {
        let mut live: BTreeMap<u64, u64> = BTreeMap::new();
        let p = &self.persist;
        for (slot, r) in self.slots.iter().enumerate() {
            if r.is_some() {
                *live
                    .entry(p.record_home.get(slot).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        for node in 0..self.search.vectors.node_capacity() as u32 {
            if self.search.vectors.slot_of_node(node).is_some() {
                *live
                    .entry(p.node_home.get(node as usize).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        for g in p
            .blob_home
            .values()
            .chain(p.gone_records.values())
            .chain(p.gone_blobs.values())
            .chain(p.state_home.values())
            .chain(p.gone_state.values())
        {
            *live.entry(*g).or_default() += 1;
        }
        for &slot in self.access.keys() {
            if self.slot(slot).is_some() {
                *live
                    .entry(p.uses_home.get(slot as usize).copied().unwrap_or(0))
                    .or_default() += 1;
            }
        }
        live
    }

    /// Marks the keys of a change set dirty again, so the next `take_changes` writes what it
    /// would have. Use it when the host could not write a change set, in part or at all; it
    /// applies to the last change set taken. The next change set is correct whether or not
    /// any part of the failed one became durable.
    pub fn requeue(&mut self, changes: &[Change]) {
        if !changes.iter().any(|c| c.key == HEAD_KEY) {
            return;
        }
        let Some(taken) = self.persist.last.take() else {
            // Not the last change set: rewrite everything, deleting every key it named.
            self.persist.full_rewrite = true;
            self.persist.orphans.extend(
                changes
                    .iter()
                    .map(|c| c.key.clone())
                    .filter(|k| k != HEAD_KEY),
            );
            let keys: Vec<String> = self
                .persist
                .commit
                .segments
                .iter()
                .flat_map(|s| s.keys().collect::<Vec<_>>())
                .collect();
            self.persist.orphans.extend(keys);
            return;
        };
        let created: BTreeSet<u64> = taken.created.iter().copied().collect();
        // Everything whose newest stored form was in a segment of the failed change set is
        // written again by the next one.
        let p = &mut self.persist;
        let mut marks = Vec::new();
        for (slot, r) in self.slots.iter().enumerate() {
            if let (Some(r), Some(home)) = (r, p.record_home.get_mut(slot)) {
                if created.contains(home) {
                    *home = UNWRITTEN;
                    marks.push(Touched::Record(r.id.clone()));
                }
            }
        }
        for (node, home) in p.node_home.iter_mut().enumerate() {
            if created.contains(home) {
                *home = UNWRITTEN;
                marks.push(Touched::Node(node as u32));
            }
        }
        for (slot, home) in p.uses_home.iter_mut().enumerate() {
            if created.contains(home) {
                *home = UNWRITTEN;
                marks.push(Touched::Uses(slot as Slot));
            }
        }
        p.state_home.retain(|name, g| {
            let keep = !created.contains(g);
            if !keep {
                marks.push(Touched::State(name.clone()));
            }
            keep
        });
        p.gone_state.retain(|name, g| {
            let keep = !created.contains(g);
            if !keep {
                marks.push(Touched::State(name.clone()));
            }
            keep
        });
        p.blob_home.retain(|id, g| {
            let keep = !created.contains(g);
            if !keep {
                marks.push(Touched::Blob(id.clone()));
            }
            keep
        });
        p.gone_records.retain(|seq, g| {
            let keep = !created.contains(g);
            if !keep {
                marks.push(Touched::Removed(*seq));
            }
            keep
        });
        p.gone_blobs.retain(|id, g| {
            let keep = !created.contains(g);
            if !keep {
                marks.push(Touched::Blob(id.clone()));
            }
            keep
        });
        let orphans = &mut p.orphans;
        p.commit.segments.retain(|s| {
            let keep = !created.contains(&s.generation);
            if !keep {
                orphans.extend(s.keys());
            }
            keep
        });
        for s in &taken.removed {
            orphans.extend(s.keys());
        }
        orphans.extend(taken.deletes);
        self.dirty.restore(marks);
        self.dirty.mark(Touched::Counters);
    }

    /// Every key and value of the store as a fresh v2 image: one segment and its commit (for
    /// export, or a first write elsewhere). Changes nothing.
    pub fn snapshot(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let part_bytes = self.plain_part_bytes();
        let mut w = SegmentWriter::new(part_bytes);
        self.write_live(&mut w, &|_| true)?;
        let mut out = Vec::new();
        let mut segments = Vec::new();
        if !w.is_empty() {
            let entries = w.entries;
            let chunks = w.finish()?;
            let mut puts = Vec::new();
            push_segment(&mut puts, &mut segments, 1, &chunks, entries, part_bytes);
            out.extend(puts.into_iter().filter_map(|c| c.value.map(|v| (c.key, v))));
        }
        let commit = Commit {
            generation: 1,
            next_seq: self.next_seq,
            dimension: self.search.vectors.dimension() as u32,
            segments,
        };
        out.push((HEAD_KEY.to_string(), encode_commit(&commit)?));
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

    /// Keys found by [`Store::load`] that the commit does not name; the next change set
    /// deletes them.
    pub fn orphans(&self) -> impl Iterator<Item = &str> {
        self.persist.orphans.iter().map(String::as_str)
    }

    /// Opens a store from stored entries, in any order: all of the host's keys, or at least
    /// `head` and the keys it names. A v1 store opens too, and migrates on its first change
    /// set. Keys outside the core's namespaces are ignored. The loaded store has no pending
    /// changes but the deletion of orphans. Fails with a typed error naming the first bad key;
    /// nothing is half-loaded. An encrypted store is [`Error::Locked`]: open it with
    /// [`Store::load_with_cipher`].
    pub fn load<K, V, I>(entries: I) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        Store::load_with_cipher(entries, None)
    }

    /// Opens a store from its plain core entries by key.
    pub(crate) fn load_entries(by_key: &HashMap<&str, &[u8]>) -> Result<Store> {
        match by_key.get(HEAD_KEY) {
            Some(head) => load_v2(head, by_key),
            None => load_v1(by_key),
        }
    }
}

/// Writes a record with its text analysis, so that opening the store need not analyze it.
fn write_record(w: &mut SegmentWriter, r: &Record, embedding: Option<&[f32]>) -> Result<()> {
    let a = InvertedIndex::analysis(r);
    let terms: Vec<(&str, &[u8])> = a
        .terms
        .iter()
        .map(|(t, tf)| (t.as_str(), &tf[..]))
        .collect();
    let keys: Vec<(&str, u8)> = a.keys.iter().map(|(t, tf)| (t.as_str(), *tf)).collect();
    let text = RecordText {
        version: ANALYSIS_VERSION,
        fields: FIELDS as u8,
        lens: &a.lens,
        keys_len: a.keys_len,
        terms: &terms,
        keys: &keys,
    };
    w.record(r, embedding, Some(&text))
}

fn push_segment(
    puts: &mut Vec<Change>,
    segments: &mut Vec<SegmentInfo>,
    generation: u64,
    chunks: &[Vec<u8>],
    entries: u64,
    part_bytes: usize,
) {
    let parts = split_parts(generation, chunks, part_bytes);
    let bytes: usize = chunks.iter().map(Vec::len).sum();
    segments.push(SegmentInfo {
        generation,
        parts: parts.len() as u32,
        level: size_class(bytes as u64),
        entries,
        bytes: bytes as u64,
    });
    puts.extend(parts.into_iter().map(|(key, value)| Change {
        key,
        value: Some(value),
    }));
}

/// The graph nodes of a v2 store: for each sequence number, the segment and place of its
/// newest stored form.
struct SegmentGraph<'a> {
    views: &'a [SegmentView<'a>],
    nodes: SeqMap<(u32, u8, usize)>,
}

impl GraphSource for SegmentGraph<'_> {
    fn level(&self, seq: u64) -> Option<u8> {
        self.nodes.get(seq).map(|(_, level, _)| level)
    }

    fn links(&self, seq: u64, f: &mut dyn FnMut(u8, u64)) {
        if let Some((view, level, offset)) = self.nodes.get(seq) {
            self.views[view as usize].node_links(offset, level, &mut *f);
        }
    }
}

#[inline(never)]
fn load_v2(head: &[u8], by_key: &HashMap<&str, &[u8]>) -> Result<Store> {
    let commit = decode_commit(head)?;
    let mut named: BTreeSet<String> = BTreeSet::new();
    // Every chunk of every segment, in apply order, with its segment's index.
    let mut chunks: Vec<(usize, String, ChunkBytes)> = Vec::new();
    for (si, info) in commit.segments.iter().enumerate() {
        named.extend(info.keys());
        for (key, chunk) in read_chunks(info, |k| by_key.get(k).copied())? {
            chunks.push((si, key, chunk));
        }
    }
    let mut views: Vec<SegmentView> = Vec::with_capacity(chunks.len());
    for (_, key, chunk) in &chunks {
        views.push(SegmentView::parse(key, chunk.bytes())?);
    }
    // Each chunk's segment (its index in the commit) and generation.
    let segment_of: Vec<usize> = chunks.iter().map(|c| c.0).collect();
    let generation_of: Vec<u64> = segment_of
        .iter()
        .map(|&si| commit.segments[si].generation)
        .collect();
    let (chosen, gone_records) = choose_records(&views, &segment_of, &generation_of);
    // Vectors by (chunk, record index).
    let mut vector_of: Vec<Vec<u32>> = views
        .iter()
        .map(|v| vec![u32::MAX; v.records.len()])
        .collect();
    for (vi, v) in views.iter().enumerate() {
        for i in 0..v.vector_count() {
            vector_of[vi][v.vector_owner(i) as usize] = i as u32;
        }
    }
    let mut taken: Vec<Vec<Option<Record>>> = views
        .iter_mut()
        .map(|v| {
            core::mem::take(&mut v.records)
                .into_iter()
                .map(Some)
                .collect()
        })
        .collect();
    let mut records = Vec::with_capacity(chosen.len());
    let mut record_chunk: Vec<u32> = Vec::with_capacity(chosen.len());
    let mut homes = Vec::with_capacity(chosen.len());
    // Each loaded record's vector as (chunk, vector index): vectors are read straight from
    // the chunks into the vector index, the store's only copy of them.
    let mut vector_at: Vec<(u32, u32)> = Vec::with_capacity(chosen.len());
    for &(vi, ri) in &chosen {
        let (vi, ri) = (vi as usize, ri as usize);
        let Some(r) = taken[vi][ri].take() else {
            continue;
        };
        records.push(r);
        record_chunk.push(vi as u32);
        homes.push(generation_of[vi]);
        vector_at.push((vi as u32, vector_of[vi][ri]));
    }
    drop(taken);
    drop(vector_of);
    let mut store = Store::from_records(records, commit.next_seq, &|i| {
        chunks[record_chunk[i] as usize].1.clone()
    })?;
    let (gone_blobs, gone_state) =
        restore_named(&mut store, &mut views, &chunks, &segment_of, &generation_of)?;
    if !store.memory_config().aliases.is_empty() {
        store.rebuild_item_index();
    }
    restore_uses(&mut store, &views, &generation_of);
    // Graph nodes: the newest stored form of each sequence number.
    let mut nodes: Vec<(u64, (u32, u8, usize))> = Vec::new();
    for (vi, view) in views.iter().enumerate() {
        view.for_each_node(&chunks[vi].1, |seq, level, offset| {
            nodes.push((seq, (vi as u32, level, offset)));
        })?;
    }
    let graph = SegmentGraph {
        views: &views,
        nodes: SeqMap::new(nodes.iter().copied()),
    };
    // Stored text analyses of this build's version: chunk-local term ids become index ids
    // once per chunk; postings are counted first so each list grows once; then each record's
    // postings go in without analyzing its text.
    let usable = |vi: usize| {
        views[vi]
            .text
            .as_ref()
            .filter(|t| t.version == ANALYSIS_VERSION && t.fields as usize == FIELDS)
    };
    let mut text_index = InvertedIndex::default();
    let term_ids: Vec<Option<Vec<u32>>> = (0..views.len())
        .map(|vi| usable(vi).map(|t| t.dict.iter().map(|term| text_index.intern(term)).collect()))
        .collect();
    let mut term_counts = vec![0u32; text_index.vocabulary()];
    let mut key_counts = vec![0u32; text_index.vocabulary()];
    for &(vi, ri) in &chosen {
        if let (Some(text), Some(ids)) = (usable(vi as usize), &term_ids[vi as usize]) {
            text.entry(
                ri as usize,
                &mut |_, _| {},
                &mut |id, _| term_counts[ids[id as usize] as usize] += 1,
                &mut |id, _| key_counts[ids[id as usize] as usize] += 1,
            );
        }
    }
    text_index.reserve_postings(&term_counts, &key_counts);
    drop((term_counts, key_counts));
    // Buffers of one record's entry, reused for every record.
    let mut terms: Vec<(u32, [u8; FIELDS])> = Vec::new();
    let mut keys: Vec<(u32, u8)> = Vec::new();
    let mut stored_text = |slot: Slot, index: &mut InvertedIndex| -> bool {
        let Some(&(vi, ri)) = chosen.get(slot as usize) else {
            return false;
        };
        let (Some(text), Some(ids)) = (usable(vi as usize), &term_ids[vi as usize]) else {
            return false;
        };
        let mut lens = [0u32; FIELDS];
        let mut keys_len = 0;
        terms.clear();
        keys.clear();
        text.entry(
            ri as usize,
            &mut |l, k| {
                lens.copy_from_slice(&l[..FIELDS]);
                keys_len = k;
            },
            &mut |id, tf| {
                let mut f = [0u8; FIELDS];
                f.copy_from_slice(&tf[..FIELDS]);
                terms.push((ids[id as usize], f));
            },
            &mut |id, tf| keys.push((ids[id as usize], tf)),
        );
        index.add_analyzed(slot, &terms, lens, &keys, keys_len);
        true
    };
    let vectors = SegmentVectors {
        views: &views,
        count: vector_at.iter().filter(|a| a.1 != u32::MAX).count(),
        at: vector_at,
    };
    let inserted = restore_search(
        &mut store,
        commit.dimension as usize,
        &vectors,
        &graph,
        text_index,
        &mut stored_text,
    );
    // Slots follow sequence order, as `chosen` does.
    store.persist.record_home = homes;
    let mut node_home = node_homes(&store, &graph, &generation_of);
    for node in inserted {
        node_home[node as usize] = UNWRITTEN;
        store.dirty.mark(Touched::Node(node));
    }
    store.persist.node_home = node_home;
    store.persist.gone_records = gone_records;
    store.persist.gone_blobs = gone_blobs;
    store.persist.gone_state = gone_state;
    store.persist.orphans = by_key
        .keys()
        .filter(|k| **k != HEAD_KEY && !named.contains(**k))
        .map(|k| k.to_string())
        .collect();
    store.persist.commit = commit;
    skip_orphan_generations(&mut store.persist);
    Ok(store)
}

// The steps of `load_v2`, each a function of its own. V8 optimizes a wasm function in the
// background once it has run long enough, and a function that runs once gains nothing from
// it. With every step inlined into one function (85 kB of wasm), V8 spent 317 ms optimizing
// it during a 10k open (`node --trace-wasm-compilation-times`), on one of this machine's two
// cores; split, no function of the open takes more than 125 ms to optimize.

/// The chunk and index of the newest version of every live record, in sequence order, and
/// the tombstones of deleted records with the generation holding them.
#[inline(never)]
fn choose_records(
    views: &[SegmentView],
    segment_of: &[usize],
    generation_of: &[u64],
) -> (Vec<(u32, u32)>, BTreeMap<u64, u64>) {
    // Every version of every record as (seq, segment, is-put, chunk, index): the last one of
    // each sequence number, in apply order (tombstones before puts within a segment), wins.
    let mut events: Vec<(u64, u32, bool, u32, u32)> = Vec::new();
    let mut gone_records: BTreeMap<u64, u64> = BTreeMap::new();
    for (vi, view) in views.iter().enumerate() {
        let si = segment_of[vi] as u32;
        for &seq in &view.gone_records {
            events.push((seq, si, false, vi as u32, 0));
            gone_records.insert(seq, generation_of[vi]);
        }
        events.extend(
            view.records
                .iter()
                .enumerate()
                .map(|(ri, r)| (r.seq, si, true, vi as u32, ri as u32)),
        );
    }
    events.sort_unstable_by_key(|&(seq, si, put, _, _)| (seq, si, put));
    let mut chosen: Vec<(u32, u32)> = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let last_of_seq = events.get(i + 1).is_none_or(|next| next.0 != e.0);
        if last_of_seq && e.2 {
            chosen.push((e.3, e.4));
        }
    }
    (chosen, gone_records)
}

/// Moves the newest version of every blob and named document into `store`; returns the
/// tombstones of removed ones with the generation holding them.
#[inline(never)]
fn restore_named(
    store: &mut Store,
    views: &mut [SegmentView],
    chunks: &[(usize, String, ChunkBytes)],
    segment_of: &[usize],
    generation_of: &[u64],
) -> Result<(BTreeMap<String, u64>, BTreeMap<String, u64>)> {
    for (vi, view) in views.iter().enumerate() {
        for (id, text) in &view.blobs {
            if crate::hash::blob_id(text) != *id {
                return Err(Error::CorruptData {
                    key: chunks[vi].1.clone(),
                    reason: format!("blob {id} does not match its content"),
                });
            }
        }
    }
    let (blobs, gone_blobs) = newest_by_name(
        views,
        segment_of,
        generation_of,
        |v| &v.gone_blobs,
        |v| v.blobs.iter().map(|(id, _)| id),
    );
    let (state, gone_state) = newest_by_name(
        views,
        segment_of,
        generation_of,
        |v| &v.gone_state,
        |v| v.state.iter().map(|(name, _)| name),
    );
    for (id, (vi, bi)) in blobs {
        store
            .persist
            .blob_home
            .insert(id.clone(), generation_of[vi]);
        let text = core::mem::take(&mut views[vi].blobs[bi].1);
        store.blobs.insert(id, text);
    }
    for (name, (vi, di)) in state {
        store
            .persist
            .state_home
            .insert(name.clone(), generation_of[vi]);
        let bytes = core::mem::take(&mut views[vi].state[di].1 .0);
        store.state.insert(name, bytes);
    }
    Ok((gone_blobs, gone_state))
}

/// The newest version of each name of one kind (blobs by id, documents by name), in apply
/// order with tombstones first within a segment: the live ones as (chunk, index in `live`),
/// and the tombstones with the generation holding them.
fn newest_by_name<'v, 'a: 'v, I>(
    views: &'v [SegmentView<'a>],
    segment_of: &[usize],
    generation_of: &[u64],
    gone: impl Fn(&'v SegmentView<'a>) -> &'v [String],
    live: impl Fn(&'v SegmentView<'a>) -> I,
) -> (BTreeMap<String, (usize, usize)>, BTreeMap<String, u64>)
where
    I: Iterator<Item = &'v String>,
{
    let mut events: BTreeMap<String, (usize, Option<(usize, usize)>)> = BTreeMap::new();
    let mut tombstones: BTreeMap<String, u64> = BTreeMap::new();
    for (vi, view) in views.iter().enumerate() {
        for name in gone(view) {
            events.insert(name.clone(), (segment_of[vi], None));
            tombstones.insert(name.clone(), generation_of[vi]);
        }
    }
    for (vi, view) in views.iter().enumerate() {
        for (i, name) in live(view).enumerate() {
            let newer = events.get(name).is_none_or(|(si, _)| *si <= segment_of[vi]);
            if newer {
                events.insert(name.clone(), (segment_of[vi], Some((vi, i))));
            }
        }
    }
    let newest = events
        .into_iter()
        .filter_map(|(name, (_, at))| at.map(|at| (name, at)))
        .collect();
    (newest, tombstones)
}

/// Restores the use counts of the loaded records: the newest of each live record's sequence
/// number.
#[inline(never)]
fn restore_uses(store: &mut Store, views: &[SegmentView], generation_of: &[u64]) {
    let mut uses: Vec<(u64, usize, u32)> = Vec::new();
    for (vi, view) in views.iter().enumerate() {
        uses.extend(view.uses.iter().map(|&(seq, n)| (seq, vi, n)));
    }
    if !uses.is_empty() {
        // Slots follow sequence order, so a binary search finds a record by its number.
        uses.sort_by_key(|&(seq, vi, _)| (seq, vi));
        let mut uses_home = vec![UNWRITTEN; store.slots.len()];
        for (i, &(seq, vi, n)) in uses.iter().enumerate() {
            if uses.get(i + 1).is_some_and(|next| next.0 == seq) {
                continue;
            }
            let found = store
                .slots
                .binary_search_by_key(&seq, |r| r.as_ref().map_or(u64::MAX, |r| r.seq));
            if let Ok(slot) = found {
                store.access.insert(slot as Slot, n);
                uses_home[slot] = generation_of[vi];
            }
        }
        store.persist.uses_home = uses_home;
    }
}

/// The generation holding each graph node's stored links, [`UNWRITTEN`] for none.
#[inline(never)]
fn node_homes(store: &Store, graph: &SegmentGraph, generation_of: &[u64]) -> Vec<u64> {
    let mut node_home = vec![UNWRITTEN; store.search.vectors.node_capacity()];
    for (node, home) in node_home.iter_mut().enumerate() {
        let seq = store.search.node_seq(node as u32);
        if let Some((vi, _, _)) = graph.nodes.get(seq) {
            *home = generation_of[vi as usize];
        }
    }
    node_home
}

/// The vectors of a v2 store: each loaded record's (chunk, vector index) in slot order,
/// `u32::MAX` for none, read straight from the chunks' f32 blocks.
struct SegmentVectors<'a> {
    views: &'a [SegmentView<'a>],
    at: Vec<(u32, u32)>,
    count: usize,
}

impl VectorSource for SegmentVectors<'_> {
    fn count(&self) -> usize {
        self.count
    }

    /// Not inlined, here and in the other per-record steps of opening: V8 runs a function's
    /// first calls unoptimized and optimizes it for later calls, so the work of one record
    /// must be a call of its own to be optimized within one open.
    #[inline(never)]
    fn read(&self, slot: Slot, _: &Record, out: &mut Vec<f32>) -> bool {
        match self.at.get(slot as usize) {
            Some(&(vi, vx)) if vx != u32::MAX => {
                read_f32s(self.views[vi as usize].vector_bytes(vx as usize), out);
                true
            }
            _ => false,
        }
    }
}

/// The vectors of a v1 store, in its decoded records (how many have one).
struct RecordVectors(usize);

impl VectorSource for RecordVectors {
    fn count(&self) -> usize {
        self.0
    }

    fn read(&self, _: Slot, record: &Record, out: &mut Vec<f32>) -> bool {
        match &record.embedding {
            Some(e) => {
                out.extend_from_slice(e);
                true
            }
            None => false,
        }
    }
}

/// New segments never take the generation of an orphan, so an orphan's parts are never
/// mistaken for, or overwritten by, a live segment's.
fn skip_orphan_generations(p: &mut PersistState) {
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

/// v1 graph nodes by sequence number.
struct V1Graph(HashMap<u64, StoredNode>);

impl GraphSource for V1Graph {
    fn level(&self, seq: u64) -> Option<u8> {
        self.0
            .get(&seq)
            .filter(|n| n.links.len() == n.level as usize + 1)
            .map(|n| n.level)
    }

    fn links(&self, seq: u64, f: &mut dyn FnMut(u8, u64)) {
        if let Some(n) = self.0.get(&seq) {
            for (lc, layer) in n.links.iter().enumerate() {
                for &s in layer {
                    f(lc as u8, s);
                }
            }
        }
    }
}

fn load_v1(by_key: &HashMap<&str, &[u8]>) -> Result<Store> {
    let mut records = Vec::new();
    let mut meta = Meta::default();
    let mut blobs = BTreeMap::new();
    let mut nodes: BTreeMap<String, StoredNode> = BTreeMap::new();
    let mut orphans = BTreeSet::new();
    for (&key, &value) in by_key {
        if key == keys::V1_META_KEY {
            meta = codec::decode_meta(value)?;
        } else if key.starts_with(keys::V1_RECORD_PREFIX) {
            records.push((key.to_string(), codec::decode_record(key, value)?));
        } else if let Some(id) = key.strip_prefix(keys::V1_BLOB_PREFIX) {
            blobs.insert(id.to_string(), codec::decode_blob(key, value)?);
        } else if let Some(id) = key.strip_prefix(keys::V1_HNSW_PREFIX) {
            nodes.insert(id.to_string(), codec::decode_node(key, value)?);
        }
        orphans.insert(key.to_string());
    }
    records.sort_by_key(|(_, r): &(String, Record)| r.seq);
    let keys: Vec<String> = records.iter().map(|(k, _)| k.clone()).collect();
    let records = records.into_iter().map(|(_, r)| r).collect();
    let mut store = Store::from_records(records, meta.next_seq, &|i| keys[i].clone())?;
    store.blobs = blobs;
    // A v1 node belongs to the record of its key, and only if the sequence numbers agree.
    let by_seq: HashMap<u64, StoredNode> = nodes
        .into_iter()
        .filter_map(|(id, n)| {
            store
                .get(&id)
                .filter(|r| r.seq == n.seq)
                .map(|_| (n.seq, n))
        })
        .collect();
    let vectors = RecordVectors(store.iter().filter(|r| r.embedding.is_some()).count());
    restore_search(
        &mut store,
        meta.dimension as usize,
        &vectors,
        &V1Graph(by_seq),
        InvertedIndex::default(),
        &mut |_, _| false,
    );
    store.persist.full_rewrite =
        !store.is_empty() || !store.blobs.is_empty() || !orphans.is_empty();
    store.persist.orphans = orphans;
    skip_orphan_generations(&mut store.persist);
    Ok(store)
}

/// Restores the search indexes of a loaded store (see [`crate::search::SearchIndex::restore`]).
/// Afterwards a record whose vector the index took holds none, and one whose stored vector
/// the index refused (of another dimension, say) holds it, so no vector is kept twice or lost.
fn restore_search(
    store: &mut Store,
    dimension: usize,
    vectors: &dyn VectorSource,
    graph: &dyn GraphSource,
    text: InvertedIndex,
    stored_text: &mut dyn FnMut(Slot, &mut InvertedIndex) -> bool,
) -> Vec<u32> {
    let mut search = core::mem::take(&mut store.search);
    let inserted = search.restore(&store.slots, dimension, vectors, graph, text, stored_text);
    let mut buffer = Vec::new();
    for (slot, r) in store.slots.iter_mut().enumerate() {
        let Some(r) = r else { continue };
        let slot = slot as Slot;
        if search.vectors.node_of(slot).is_some() {
            r.embedding = None;
        } else if r.embedding.is_none() {
            buffer.clear();
            if vectors.read(slot, r, &mut buffer) {
                r.embedding = Some(buffer.clone());
            }
        }
    }
    store.search = search;
    inserted
}
