//! Writing change sets: the new segment of what changed, at most one merge, the commit, and
//! the deletion of what the commit no longer names; and handing a failed change set back.

use std::collections::BTreeSet;
use std::format;
use std::string::String;
use std::vec::Vec;

use super::policy::size_class;
use super::state::{set_home, Taken, Written, UNWRITTEN};
use crate::codec::Change;
use crate::commit::encode_embedded;
use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::index::bm25::FIELDS;
use crate::index::postings::{InvertedIndex, ANALYSIS_VERSION};
use crate::keys::{self, HEAD_KEY};
use crate::record::Record;
use crate::segment::{
    encode_commit, split_parts, Commit, RecordText, SegmentInfo, SegmentWriter, StoredVector,
};
use crate::store::Store;
use memdag_types::Slot;

impl Store {
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
        let retired = self.persist.retired.clone();
        match self.build_changes(&marks) {
            Ok(mut changes) => {
                self.seal_changes(&mut changes);
                Ok(changes)
            }
            Err(e) => {
                let p = &mut self.persist;
                p.orphans = orphans;
                p.orphans.extend(retired);
                p.retired.clear();
                p.orphans.extend(
                    commit
                        .segments
                        .iter()
                        .flat_map(|s| s.keys().collect::<Vec<_>>()),
                );
                // New generations only: nothing this failed attempt named is reused.
                p.commit = Commit {
                    segments: Vec::new(),
                    retired: Vec::new(),
                    ..commit
                };
                p.commit.generation = p.commit.generation.saturating_add(2);
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
        let generation = next_generation(self.persist.commit.generation, 1)?;
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
        // A full rewrite writes its segment even when the store is empty: the newest segment
        // must carry the newest commit, or a lost `head` would bring the old segments back.
        if !writer.is_empty() || full {
            segments.push(unwritten(generation, writer.entries));
            let commit = self.commit_of(generation, &segments);
            let entries = writer.entries;
            let chunks = writer.finish_with_commit(&encode_embedded(&commit)?)?;
            let info = push_segment(&mut puts, generation, &chunks, entries, part_bytes);
            *segments.last_mut().expect("just pushed") = info;
            created.push(generation);
        }
        let mut last_generation = generation;
        if !full {
            if let Some(run) = self.plan_merge(&segments, created.len()) {
                let merged_generation = next_generation(generation, 1)?;
                let in_run: BTreeSet<u64> =
                    segments[run.clone()].iter().map(|s| s.generation).collect();
                let bottom = run.start == 0;
                let mut w = SegmentWriter::new(part_bytes);
                self.write_all(&mut w, merged_generation, &|g| in_run.contains(&g))?;
                self.move_tombstones(&mut w, merged_generation, &in_run, bottom)?;
                removed.extend(segments.drain(run.clone()));
                // Written even with no entries left, to carry the commit without the run.
                segments.insert(run.start, unwritten(merged_generation, w.entries));
                let mut commit = self.commit_of(merged_generation, &segments);
                commit.retired = removed.clone();
                let entries = w.entries;
                let chunks = w.finish_with_commit(&encode_embedded(&commit)?)?;
                segments[run.start] =
                    push_segment(&mut puts, merged_generation, &chunks, entries, part_bytes);
                created.push(merged_generation);
                last_generation = merged_generation;
            }
        }
        let mut commit = self.commit_of(last_generation, &segments);
        if !full {
            commit.retired = removed.clone();
        }
        puts.push(Change {
            key: HEAD_KEY.into(),
            value: Some(encode_commit(&commit)?),
        });
        let mut deletes: Vec<String> = core::mem::take(&mut self.persist.orphans)
            .into_iter()
            .collect();
        deletes.extend(core::mem::take(&mut self.persist.retired));
        // The segments a merge replaced stay until the next commit: the commit before this
        // one names them, and it must open whole if this one's newest segment is lost with
        // `head`. A full rewrite (a new key, an erasure, a salvage) deletes at once.
        let mut retired: BTreeSet<String> = BTreeSet::new();
        for s in &removed {
            if full {
                deletes.extend(s.keys());
            } else {
                retired.extend(s.keys());
            }
        }
        // Never delete what the new commit names. A live segment's generation is never an
        // orphan's (see `skip_orphan_generations`), so the generation decides.
        let live: BTreeSet<u64> = commit.segments.iter().map(|s| s.generation).collect();
        deletes.retain(|k| {
            k != HEAD_KEY && keys::parse_segment_key(k).is_none_or(|(g, _)| !live.contains(&g))
        });
        crate::sort::sort(&mut deletes);
        deletes.dedup();
        puts.extend(deletes.iter().map(|key| Change {
            key: key.clone(),
            value: None,
        }));
        retired.retain(|k| keys::parse_segment_key(k).is_none_or(|(g, _)| !live.contains(&g)));
        self.persist.retired = retired;
        self.persist.commit = commit;
        self.persist.full_rewrite = false;
        self.persist.rewrite_head = false;
        self.persist.last = Some(Taken {
            created,
            removed,
            deletes,
        });
        Ok(puts)
    }

    /// The commit naming `segments`, at `generation`, with the store's counters.
    pub(super) fn commit_of(&self, generation: u64, segments: &[SegmentInfo]) -> Commit {
        Commit {
            generation,
            next_seq: self.next_seq,
            dimension: self.search.vectors.dimension() as u32,
            vectors: self.search.vectors.settings(),
            steps: self
                .search
                .vectors
                .steps()
                .map(<[f32]>::to_vec)
                .unwrap_or_default(),
            segments: segments.to_vec(),
            retired: Vec::new(),
        }
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
                write_record(w, r, self.stored_vector_at(slot).as_ref())?;
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
    pub(super) fn write_live(
        &self,
        w: &mut SegmentWriter,
        keep: &dyn Fn(u64) -> bool,
    ) -> Result<Written> {
        let p = &self.persist;
        let home = |homes: &[u64], i: usize| homes.get(i).copied().unwrap_or(UNWRITTEN);
        let mut slots = Vec::new();
        for (slot, r) in self.slots.iter().enumerate() {
            if let Some(r) = r.as_ref().filter(|_| keep(home(&p.record_home, slot))) {
                write_record(w, r, self.stored_vector_at(slot as Slot).as_ref())?;
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

    /// Marks the keys of a change set dirty again, so the next `take_changes` writes what it
    /// would have. Use it when the host could not write a change set, in part or at all; it
    /// applies to the last change set taken. The next change set is correct whether or not
    /// any part of the failed one became durable.
    pub fn requeue(&mut self, changes: &[Change]) {
        if !changes.iter().any(|c| c.key == HEAD_KEY) {
            return;
        }
        // What the failed change set kept for later goes with the next one (the segments it
        // replaced are orphans below).
        self.persist.retired.clear();
        self.persist.commit.retired.clear();
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
}

/// Writes a record with its text analysis, so that opening the store need not analyze it.
pub(super) fn write_record(
    w: &mut SegmentWriter,
    r: &Record,
    vector: Option<&Vector<'_>>,
) -> Result<()> {
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
    let stored = vector.map(|v| match v {
        Vector::F32(v) => StoredVector::F32(v),
        Vector::Codes(codes, inv_norm) => StoredVector::Codes {
            codes,
            inv_norm: *inv_norm,
        },
    });
    w.record(r, stored, Some(&text))
}

/// A record's vector as the store holds it: `f32` (as given, or what the codes stand for in
/// a store that keeps no `f32`), or its codes.
pub(super) enum Vector<'a> {
    F32(alloc::borrow::Cow<'a, [f32]>),
    Codes(&'a [i8], f32),
}

impl Store {
    /// The vector of the record in `slot` as a segment stores it: its codes when the store
    /// keeps its vectors as codes only, else `f32`.
    pub(super) fn stored_vector_at(&self, slot: Slot) -> Option<Vector<'_>> {
        if let Some((codes, inv_norm)) = self.search.vectors.codes(slot) {
            return Some(Vector::Codes(codes, inv_norm));
        }
        self.embedding_at(slot).map(Vector::F32)
    }
}

/// The entry of a segment not yet cut into parts, as its own COMMIT section names it: the
/// reader fills in its parts, bytes and checksum (see [`crate::commit`]).
pub(super) fn unwritten(generation: u64, entries: u64) -> SegmentInfo {
    SegmentInfo {
        generation,
        entries,
        ..SegmentInfo::default()
    }
}

/// `generation` moved on by `step`, or a storage error once past [`keys::MAX_GENERATION`].
pub(super) fn next_generation(generation: u64, step: u64) -> Result<u64> {
    generation
        .checked_add(step)
        .filter(|&g| g <= keys::MAX_GENERATION)
        .ok_or_else(|| Error::Storage {
            message: format!("segment generation {generation} cannot grow further"),
        })
}

/// Cuts a segment's chunks into parts, adds them to `puts`, and returns its commit entry.
pub(super) fn push_segment(
    puts: &mut Vec<Change>,
    generation: u64,
    chunks: &[Vec<u8>],
    entries: u64,
    part_bytes: usize,
) -> SegmentInfo {
    let parts = split_parts(generation, chunks, part_bytes);
    let bytes: usize = chunks.iter().map(Vec::len).sum();
    let info = SegmentInfo {
        generation,
        parts: parts.values.len() as u32,
        level: size_class(bytes as u64),
        entries,
        bytes: bytes as u64,
        sum: parts.sum,
    };
    puts.extend(parts.values.into_iter().map(|(key, value)| Change {
        key,
        value: Some(value),
    }));
    info
}
