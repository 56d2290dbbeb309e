//! Opening a store: choosing its commit, reading the segments it names, and restoring the
//! records, documents, use counts and indexes in a few named steps.

use std::collections::{BTreeMap, BTreeSet};
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use super::choose::{choose, instead_of_head, Choice};
use super::records::ChunkRecords;
use super::restore::restore_search;
use super::skip_orphan_generations;
use super::state::UNWRITTEN;
use super::texts::ChunkText;
use super::v1::load_v1;
use super::values::{read_segment, Values};
use super::vectors::{CodePool, SegmentVectors, CODED};
use crate::commit::{Commit, Warning};
use crate::damage::{Damage, DamagedBlock};
use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::index::bm25::FIELDS;
use crate::index::postings::{InvertedIndex, PendingPostings};
use crate::index::restore::{GraphSource, SeqMap};
use crate::keys;
use crate::record::Record;
use crate::room;
use crate::segment::{ChunkBytes, EntrySink, SegmentView, TextCursor};
use crate::store::Store;
use memdag_types::Slot;

impl Store {
    /// Opens a store from stored entries, in any order: all of the host's keys, or at least
    /// `head` and the keys it names. A v1 store opens too, and migrates on its first change
    /// set. Keys outside the core's namespaces are ignored. The loaded store has no pending
    /// changes but the deletion of orphans. Fails with a typed error naming the first bad key;
    /// nothing is half-loaded. An encrypted store is [`Error::Locked`]: open it with
    /// [`Store::load_with_cipher`].
    ///
    /// `head` is trusted unless the segments prove a newer commit, and a store whose `head` is
    /// missing or unreadable opens the newest commit its segments carry (see
    /// [`Store::load_warnings`]); a store holding segments but no usable commit is refused,
    /// never opened as a new one.
    pub fn load<K, V, I>(entries: I) -> Result<Store>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        Store::load_with_cipher(entries, None)
    }

    /// Opens a store from its core values by key.
    pub(crate) fn load_values(values: &Values) -> Result<Store> {
        let Some(choice) = choose(values)? else {
            return load_v1(values);
        };
        let head = choice.warning.is_none().then(|| choice.commit.clone());
        match (load_v2(choice, values), head) {
            (Err(e), Some(head)) => match instead_of_head(&head, &e, values) {
                Some(other) => load_v2(other, values),
                None => Err(e),
            },
            (loaded, _) => loaded,
        }
    }
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

    fn links(&self, seq: u64, out: &mut Vec<(u8, u64)>) {
        if let Some((view, level, offset)) = self.nodes.get(seq) {
            self.views[view as usize].node_links(offset, level, out);
        }
    }
}

#[inline(never)]
fn load_v2(choice: Choice, values: &Values) -> Result<Store> {
    let Choice {
        mut commit,
        warning,
    } = choice;
    // Every chunk of every segment, in apply order, with its segment's index.
    let mut chunks: Vec<(usize, String, ChunkBytes)> = Vec::new();
    for (si, info) in commit.segments.iter_mut().enumerate() {
        let read = read_segment(info, values)?;
        // A segment written before format v4 gets its checksum now, for the next commit.
        if info.sum == 0 {
            info.sum = read.sum;
        }
        for (key, chunk) in read.chunks {
            chunks.push((si, key, chunk));
        }
    }
    restore_v2(commit, warning, chunks, None, values, None)
}

/// What a salvaging open tolerates (see [`super::salvage`]), and where it notes what it
/// skipped: a chunk that does not decode, a blob that does not match its id, a malformed
/// node list, a lost parent.
pub(super) struct Lenient<'d> {
    pub damage: &'d mut Damage,
    /// Each chunk's block in its part (format v5; `None` before), parallel to the chunks.
    pub blocks: Vec<Option<u32>>,
    /// Damaged blocks: (index in `damage.damaged`, index of the chunk read after it, its
    /// segment's index). Their records' sequence numbers are bounded by the intact chunks
    /// around them.
    pub gaps: Vec<(usize, usize, usize)>,
    /// Blobs and documents the damaged blocks held, as read from their bytes.
    pub found_blobs: Vec<String>,
    pub found_documents: Vec<String>,
}

impl Lenient<'_> {
    pub(super) fn skip(&mut self, key: &str, block: Option<u32>, reason: String) {
        self.damage.damaged.push(DamagedBlock {
            key: key.to_string(),
            block,
            reason,
            ..DamagedBlock::default()
        });
    }
}

/// What an open that frees each part as it reads it took out of the chunks before restoring
/// (see [`super::owned`]).
pub(super) struct Digested {
    /// Each chunk's records, decoded, in chunk order.
    pub records: ChunkRecords,
    /// The chunks' codes, when they were moved out of them.
    pub pool: Option<CodePool>,
    /// Each chunk's TEXT section (empty for none), held apart from the chunk.
    pub texts: Vec<Vec<u8>>,
}

/// Restores a store from the chunks of the segments `commit` names, in apply order: strictly
/// (`lenient` is `None`: any damage fails, naming its key), or salvaging. `digested`, when
/// given, holds what was taken out of the chunks' bytes before: their records, their text
/// analyses, and perhaps their codes. `values` are the stored values by key; only their keys
/// are read here.
pub(super) fn restore_v2(
    mut commit: Commit,
    warning: Option<Warning>,
    chunks: Vec<(usize, String, ChunkBytes)>,
    digested: Option<Digested>,
    values: &Values,
    mut lenient: Option<&mut Lenient>,
) -> Result<Store> {
    let named: BTreeSet<String> = commit.segments.iter().flat_map(|s| s.keys()).collect();
    let (records_apart, pool, mut texts_apart) = match digested {
        Some(d) => (Some(d.records), d.pool, Some(d.texts)),
        None => (None, None, None),
    };
    let mut views: Vec<SegmentView> = Vec::with_capacity(chunks.len());
    // Each chunk's stored text analyses, their terms interned chunk by chunk in apply order.
    let mut text_index = InvertedIndex::default();
    let mut texts: Vec<Option<ChunkText>> = Vec::with_capacity(chunks.len());
    for (ci, (_, key, chunk)) in chunks.iter().enumerate() {
        let apart = records_apart.as_ref().map(|r| r.of(ci).len());
        let parsed =
            SegmentView::parse_apart(key, chunk.bytes(), apart, pool.is_some()).and_then(|view| {
                let text = match texts_apart.as_mut() {
                    Some(apart) => {
                        let section = apart.get_mut(ci).map(core::mem::take);
                        ChunkText::apart(key, section.unwrap_or_default(), &mut text_index)?
                    }
                    None => ChunkText::in_view(&view, &mut text_index),
                };
                Ok((view, text))
            });
        match (parsed, lenient.as_deref_mut()) {
            (Ok((view, text)), _) => {
                views.push(view);
                texts.push(text);
            }
            (Err(e), None) => return Err(e),
            (Err(e), Some(l)) => {
                let block = l.blocks.get(ci).copied().flatten();
                l.skip(key, block, e.to_string());
                views.push(SegmentView::default());
                texts.push(None);
            }
        }
    }
    if let Some(l) = lenient.as_deref_mut() {
        bound_gaps(l, &views, &chunks);
        if commit.dimension == 0 {
            commit.dimension = views.iter().map(|v| v.dimension as u32).max().unwrap_or(0);
        }
    }
    // Each chunk's segment (its index in the commit) and generation.
    let segment_of: Vec<usize> = chunks.iter().map(|c| c.0).collect();
    let generation_of: Vec<u64> = segment_of
        .iter()
        .map(|&si| commit.segments[si].generation)
        .collect();
    let records = match records_apart {
        Some(records) => records,
        None => ChunkRecords::from_views(&mut views)?,
    };
    let (mut chosen, gone_records) = choose_records(&views, &records, &segment_of, &generation_of)?;
    let vector_of = vector_places(&views);
    // Codes are read under the commit's steps: a store with codes and no steps lost them.
    if commit.steps.is_empty() {
        if let Some(vi) = views.iter().position(|v| v.code_count() > 0) {
            let e = Error::CorruptData {
                key: chunks[vi].1.clone(),
                reason: "int8 vectors, and the commit has no steps to read them".into(),
            };
            match lenient.as_deref_mut() {
                None => return Err(e),
                Some(l) => l.skip(
                    &chunks[vi].1,
                    l.blocks.get(vi).copied().flatten(),
                    e.to_string(),
                ),
            }
        }
    }
    let Taken {
        mut records,
        mut record_chunk,
        mut homes,
        mut vector_at,
    } = take_chosen(records, &chosen, &generation_of, vector_of)?;
    if let Some(l) = lenient.as_deref_mut() {
        keep_loadable(
            l,
            &mut records,
            &mut chosen,
            &mut record_chunk,
            &mut homes,
            &mut vector_at,
        );
    }
    // The keys of the chunks, for errors found once their bytes are freed.
    let chunk_keys: Vec<String> = chunks.iter().map(|c| c.1.clone()).collect();
    let key_of = |i: usize| chunk_keys[record_chunk[i] as usize].clone();
    // The store's own indexes (by id, the DAG, time) are made after the search indexes, once
    // the views, the chunks and the stored graph are freed: made before, they lay beside all
    // of that at the open's peak (7 MiB of 118 at 100k records in wasm).
    let mut store = Store::with_records(records, commit.next_seq, &key_of)?;
    let (gone_blobs, gone_state) = restore_named(
        &mut store,
        &mut views,
        &chunks,
        &segment_of,
        &generation_of,
        lenient.as_deref_mut(),
    )?;
    restore_uses(&mut store, &views, &generation_of);
    let with_vectors = vector_at.iter().filter(|a| a.1 != u32::MAX).count();
    let graph = SegmentGraph {
        views: &views,
        nodes: stored_nodes(&views, &chunks, with_vectors, lenient.as_deref_mut())?,
    };
    // The slot of each chunk's last chosen record: its text is freed once that is read.
    let mut last_slot: Vec<usize> = vec![usize::MAX; views.len()];
    for (slot, &(vi, _)) in chosen.iter().enumerate() {
        last_slot[vi as usize] = slot;
    }
    // Buffers of one record's entry, reused for every record.
    let mut terms: Vec<(u32, [u8; FIELDS])> = Vec::new();
    let mut keys: Vec<(u32, u8)> = Vec::new();
    // Term postings go into their lists a list at a time (see `PendingPostings`), with the
    // chunk-local term ids made index ids once per chunk (`ChunkText::ids`), so no record's
    // text is analyzed. The lists are not counted first to size them: they grow by half again
    // as runs are appended and are shrunk to fit at the end, which took 0.89x the time of a
    // counting pass over every analysis (a warm open of the LoCoMo workload at 10k in wasm).
    // Each chunk's entries are read in record order, on from the last one read; `None` once
    // one was malformed. The chunks with a malformed entry, in the order found: a strict open
    // fails naming the first, once the indexes are filled; a salvaging one notes each as
    // damaged and analyzes their records from there on anew (nothing is lost).
    let mut cursors: Vec<Option<TextCursor>> = vec![Some(TextCursor::default()); views.len()];
    let mut malformed_text: Vec<usize> = Vec::new();
    let mut stored_text = |slot: Slot, index: &mut InvertedIndex, pending: &mut PendingPostings| {
        let mut lens = [0u32; FIELDS];
        let mut keys_len = 0;
        let read = chosen.get(slot as usize).and_then(|&(vi, ri)| {
            let vi = vi as usize;
            let text = texts[vi].as_ref()?;
            let ids = &text.ids;
            let cursor = cursors[vi].as_mut()?;
            terms.clear();
            keys.clear();
            let read = text.entries().entry(
                cursor,
                ri as usize,
                &mut EntrySink {
                    lens: &mut |l, k| {
                        lens.copy_from_slice(&l[..FIELDS]);
                        keys_len = k;
                    },
                    term: &mut |id, tf| {
                        let mut f = [0u8; FIELDS];
                        f.copy_from_slice(&tf[..FIELDS]);
                        terms.push((ids[id as usize], f));
                    },
                    key: &mut |id, tf| keys.push((ids[id as usize], tf)),
                },
            );
            if read.is_none() {
                cursors[vi] = None;
                malformed_text.push(vi);
            }
            if last_slot[vi] == slot as usize {
                // Read to its end: a text held apart is freed now, not with the store's open.
                texts[vi] = None;
            }
            read
        });
        if read.is_none() {
            // The record is analyzed anew and indexed at once: the postings held go first, so
            // that every list is filled in slot order.
            index.flush(pending);
            return false;
        }
        index.add_analyzed_later(slot, &terms, lens, &keys, keys_len, pending);
        true
    };
    store.search.vectors.set_settings(commit.vectors);
    let mut vectors = SegmentVectors {
        views: &views,
        count: with_vectors,
        at: vector_at,
        steps: (!commit.steps.is_empty())
            .then(|| crate::index::quant::Quantizer::from_steps(commit.steps.clone())),
        pool,
    };
    let inserted = restore_search(
        &mut store,
        commit.dimension as usize,
        &mut vectors,
        &graph,
        text_index,
        &mut stored_text,
    )?;
    for &vi in &malformed_text {
        let key = &chunk_keys[vi];
        let reason = "text section malformed";
        match lenient.as_deref_mut() {
            None => {
                return Err(Error::CorruptData {
                    key: key.clone(),
                    reason: reason.into(),
                })
            }
            Some(l) => l.skip(key, l.blocks.get(vi).copied().flatten(), reason.into()),
        }
    }
    // Slots follow sequence order, as `chosen` does.
    store.persist.record_home = homes;
    let mut node_home = node_homes(&store, &graph, &generation_of);
    for node in inserted {
        node_home[node as usize] = UNWRITTEN;
        store.dirty.mark(Touched::Node(node));
    }
    store.persist.node_home = node_home;
    // What the search indexes were restored from goes before the store's indexes are made.
    drop(vectors);
    drop(graph);
    drop(chosen);
    drop(views);
    drop(chunks);
    store.index_records(&key_of)?;
    if !store.memory_config().aliases.is_empty() {
        store.rebuild_item_index();
    }
    store.persist.gone_records = gone_records;
    store.persist.gone_blobs = gone_blobs;
    store.persist.gone_state = gone_state;
    // The segments the commit keeps for the commit before it are deleted by the next change
    // set, without forcing a write. A host that reads only the keys `head` names has not read
    // them, so they are taken from the commit, not from the keys read.
    let retired: BTreeSet<String> = commit.retired.iter().flat_map(|s| s.keys()).collect();
    // Only keys memdag writes are collected; a `seg/` key of another shape is left alone.
    store.persist.orphans = values
        .keys()
        .filter(|k| {
            (keys::parse_segment_key(k).is_some() || keys::is_v1_key(k))
                && !named.contains(**k)
                && !retired.contains(**k)
        })
        .map(|k| k.to_string())
        .collect();
    store.persist.retired = retired;
    store.persist.rewrite_head = warning.is_some();
    store.persist.warnings = warning.into_iter().collect();

    store.persist.commit = commit;
    skip_orphan_generations(&mut store.persist);
    Ok(store)
}

/// Bounds the sequence numbers of the damaged blocks by the records of the intact chunks of
/// the same segment around them (records are written in sequence order).
fn bound_gaps(l: &mut Lenient, views: &[SegmentView], chunks: &[(usize, String, ChunkBytes)]) {
    for &(di, at, si) in &l.gaps {
        let same = |ci: &usize| chunks[*ci].0 == si && !views[*ci].records.is_empty();
        let after = (0..at)
            .rev()
            .find(same)
            .map(|ci| views[ci].records.last().map(|r| r.seq));
        let before = (at..chunks.len())
            .find(same)
            .map(|ci| views[ci].records.first().map(|r| r.seq));
        let d = &mut l.damage.damaged[di];
        d.after_seq = after.flatten();
        d.before_seq = before.flatten();
    }
}

/// Drops what a plain open would refuse among salvaged records: a second record of one id
/// (the newest is kept) and parents that were lost (noted in `detached`). The lists parallel
/// to the records lose the same entries: `chosen` too, by which each slot reads its stored
/// text analysis.
fn keep_loadable(
    l: &mut Lenient,
    records: &mut Vec<Record>,
    chosen: &mut Vec<(u32, u32)>,
    record_chunk: &mut Vec<u32>,
    homes: &mut Vec<u64>,
    vector_at: &mut Vec<(u32, u32)>,
) {
    let mut newest: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, r) in records.iter().enumerate() {
        newest.insert(r.id.as_str(), i);
    }
    let keep: Vec<bool> = records
        .iter()
        .enumerate()
        .map(|(i, r)| newest.get(r.id.as_str()) == Some(&i))
        .collect();
    drop(newest);
    retain_by(records, &keep);
    retain_by(chosen, &keep);
    retain_by(record_chunk, &keep);
    retain_by(homes, &keep);
    retain_by(vector_at, &keep);
    let ids: BTreeSet<String> = records.iter().map(|r| r.id.clone()).collect();
    for r in records.iter_mut() {
        let lost: Vec<String> = r
            .parents
            .iter()
            .filter(|p| !ids.contains(*p))
            .cloned()
            .collect();
        if !lost.is_empty() {
            r.parents.retain(|p| ids.contains(p));
            for p in lost {
                l.damage.detached.push([r.id.clone(), p]);
            }
        }
    }
}

/// Keeps the elements of `list` whose flag in `keep` is set.
fn retain_by<T>(list: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    list.retain(|_| *flags.next().unwrap_or(&true));
}

// The steps of `load_v2`, each a function of its own. V8 optimizes a wasm function in the
// background once it has run long enough, and a function that runs once gains nothing from
// it. With every step inlined into one function (85 kB of wasm), V8 spent 317 ms optimizing
// it during a 10k open (`node --trace-wasm-compilation-times`), on one of this machine's two
// cores; split, no function of the open takes more than 125 ms to optimize.

/// Each chunk's vectors by record index: the vector's index in the chunk ([`CODED`] set for
/// codes), `u32::MAX` for none.
#[inline(never)]
fn vector_places(views: &[SegmentView]) -> Vec<Vec<u32>> {
    let mut vector_of: Vec<Vec<u32>> = views
        .iter()
        .map(|v| vec![u32::MAX; v.record_count])
        .collect();
    for (vi, v) in views.iter().enumerate() {
        for i in 0..v.vector_count() {
            vector_of[vi][v.vector_owner(i) as usize] = i as u32;
        }
        for i in 0..v.code_count() {
            vector_of[vi][v.code_owner(i) as usize] = i as u32 | CODED;
        }
    }
    vector_of
}

/// The chosen records, taken out of their chunks' views, in order.
#[derive(Default)]
struct Taken {
    records: Vec<Record>,
    /// Each record's chunk.
    record_chunk: Vec<u32>,
    /// Each record's home: the generation of the segment holding it.
    homes: Vec<u64>,
    /// Each record's vector as (chunk, vector index): vectors are read straight from the
    /// chunks into the vector index, the store's only copy of them.
    vector_at: Vec<(u32, u32)>,
}

/// Takes the `chosen` records out of `records`, in order (see [`ChunkRecords::take`]).
#[inline(never)]
fn take_chosen(
    records: ChunkRecords,
    chosen: &[(u32, u32)],
    generation_of: &[u64],
    vector_of: Vec<Vec<u32>>,
) -> Result<Taken> {
    let n = chosen.len();
    let mut out = Taken::default();
    room::reserve(&mut out.record_chunk, n, "the records' places")?;
    room::reserve(&mut out.homes, n, "the records' places")?;
    room::reserve(&mut out.vector_at, n, "the vectors' places")?;
    for &(vi, ri) in chosen {
        out.record_chunk.push(vi);
        out.homes.push(generation_of[vi as usize]);
        out.vector_at
            .push((vi, vector_of[vi as usize][ri as usize]));
    }
    out.records = records.take(chosen)?;
    Ok(out)
}

/// The graph nodes of every chunk: the newest stored form of each sequence number. A
/// salvaging open skips a chunk whose node list is malformed (the graph is repaired later:
/// a record whose node is lost gets a new one).
#[inline(never)]
fn stored_nodes(
    views: &[SegmentView],
    chunks: &[(usize, String, ChunkBytes)],
    with_vectors: usize,
    mut lenient: Option<&mut Lenient>,
) -> Result<SeqMap<(u32, u8, usize)>> {
    // About a node a record with a vector: sized so, it grows only past that (older versions
    // of nodes), not by doubling from empty.
    let mut nodes: Vec<(u64, (u32, u8, usize))> = Vec::new();
    room::reserve(&mut nodes, with_vectors, "its graph's nodes")?;
    for (vi, view) in views.iter().enumerate() {
        let before = nodes.len();
        let read = view.for_each_node(&chunks[vi].1, |seq, level, offset| {
            nodes.push((seq, (vi as u32, level, offset)));
        });
        match (read, lenient.as_deref_mut()) {
            (Ok(()), _) => {}
            (Err(e), None) => return Err(e),
            (Err(e), Some(l)) => {
                nodes.truncate(before);
                let block = l.blocks.get(vi).copied().flatten();
                l.skip(&chunks[vi].1, block, e.to_string());
            }
        }
    }
    SeqMap::new(nodes.iter().copied())
}

/// What [`choose_records`] returns: each chosen record's (chunk, index), in sequence order,
/// and the generation holding each tombstoned sequence number.
type Chosen = (Vec<(u32, u32)>, BTreeMap<u64, u64>);

/// The chunk and index of the newest version of every live record, in sequence order, and
/// the tombstones of deleted records with the generation holding them.
#[inline(never)]
fn choose_records(
    views: &[SegmentView],
    records: &ChunkRecords,
    segment_of: &[usize],
    generation_of: &[u64],
) -> Result<Chosen> {
    // Every version of every record as (seq, segment, is-put, chunk, index): the last one of
    // each sequence number, in apply order (tombstones before puts within a segment), wins.
    // Sized first: grown by doubling, it held up to three times its size at once.
    let mut events: Vec<(u64, u32, bool, u32, u32)> = Vec::new();
    let versions = views.iter().map(|v| v.gone_records.len() + v.record_count);
    room::reserve(&mut events, versions.sum(), "the versions of its records")?;
    let mut gone_records: BTreeMap<u64, u64> = BTreeMap::new();
    for (vi, view) in views.iter().enumerate() {
        let si = segment_of[vi] as u32;
        for &seq in &view.gone_records {
            events.push((seq, si, false, vi as u32, 0));
            gone_records.insert(seq, generation_of[vi]);
        }
        events.extend(
            records
                .of(vi)
                .iter()
                .enumerate()
                .map(|(ri, r)| (r.seq, si, true, vi as u32, ri as u32)),
        );
    }
    events.sort_unstable_by_key(|&(seq, si, put, _, _)| (seq, si, put));
    let mut chosen: Vec<(u32, u32)> = Vec::new();
    room::reserve(&mut chosen, events.len(), "the places of its records")?;
    for (i, e) in events.iter().enumerate() {
        let last_of_seq = events.get(i + 1).is_none_or(|next| next.0 != e.0);
        if last_of_seq && e.2 {
            chosen.push((e.3, e.4));
        }
    }
    Ok((chosen, gone_records))
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
    mut lenient: Option<&mut Lenient>,
) -> Result<(BTreeMap<String, u64>, BTreeMap<String, u64>)> {
    for (vi, view) in views.iter_mut().enumerate() {
        let mut bad = Vec::new();
        for (i, (id, text)) in view.blobs.iter().enumerate() {
            if crate::hash::blob_id(text) != *id {
                let reason = format!("blob {id} does not match its content");
                match lenient.as_deref_mut() {
                    None => {
                        return Err(Error::CorruptData {
                            key: chunks[vi].1.clone(),
                            reason,
                        })
                    }
                    Some(l) => {
                        let block = l.blocks.get(vi).copied().flatten();
                        l.skip(&chunks[vi].1, block, reason);
                        bad.push(i);
                    }
                }
            }
        }
        for i in bad.into_iter().rev() {
            view.blobs.remove(i);
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
