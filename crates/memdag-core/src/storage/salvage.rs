//! Salvaging: opening everything intact in a damaged store ([`Store::load_salvaging`]), and
//! saying what is damaged without opening ([`Store::verify`]).
//!
//! A plain open refuses a damaged store and loses nothing further; its error names the first
//! bad key and lists every damaged value and block (see [`Store::load_with_cipher`]). A
//! salvaging open reads what is intact instead:
//!
//! - **the commit**: the one a plain open would choose; else `head` when it decodes; else the
//!   newest commit a segment's intact last block carries; else every stored segment in
//!   generation order (the order they were written, which is their apply order but after a
//!   merge);
//! - **each segment part** it names: a part whose envelope checks is read whole; a part of
//!   format v5 whose envelope fails is read block by block (see [`crate::block`]), keeping each
//!   intact block; a part of an older format, or one missing or sealed otherwise, is lost
//!   whole;
//! - **what the blocks hold**: a chunk that does not decode, a blob whose id does not match
//!   its content and a malformed node list are skipped; of two records with one id the newest
//!   is kept; a parent that was lost is dropped from the intact records that cite it
//!   (`detached`); a record whose graph node was lost gets a new one.
//!
//! What was lost is listed by id ([`Damage`]); every skipped value or block is also a
//! [`BLOCK_SKIPPED`] warning of the open. The salvaged store's next change set rewrites it
//! whole and then deletes the old keys, damaged ones included. A v1 store (one key per
//! record) is not salvaged block by block: it opens as a plain open does.

use std::collections::BTreeSet;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use super::choose::choose;
use super::load::{restore_v2, Lenient};
use super::v1::load_v1;
use super::values::{host_opened, HostOpened, Values};
use crate::block::{scan, Scanned};
use crate::commit::COMMIT_RECOVERED;
use crate::commit::{decode_commit, decode_embedded, Commit, SegmentInfo, Warning};
use crate::damage::{Damage, DamagedBlock, Verified, BLOCK_SKIPPED};
use crate::envelope::{open_unchecked, Kind};
use crate::error::{Error, Result};
use crate::keys::{parse_segment_key, HEAD_KEY};
use crate::part::{ChunkBytes, PartHeader, FRAMED_VERSION, PART_HEADER};
use crate::segment::{commit_section, SegmentView};
use crate::store::Store;

impl Store {
    /// Opens everything intact in a store that a plain open refuses (see the module docs):
    /// the store, and what was damaged and lost. Fails only when nothing can be read at all:
    /// [`Error::Locked`] (a sealed store without its key), [`Error::UnsupportedVersion`] (a
    /// `head` from a newer build), or a v1 store's error.
    pub fn load_salvaging<K, V, I>(
        entries: I,
        cipher: Option<crate::Cipher>,
    ) -> Result<(Store, Damage)>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        Store::salvage_sealed(entries, cipher, None)
    }

    /// [`Store::load_salvaging`] for a store whose host seals: `opened` as in
    /// [`Store::load_host_sealed`], and the salvaged store's change sets are plain.
    pub fn load_salvaging_host_sealed<K, V, I, S>(
        entries: I,
        cipher: crate::Cipher,
        opened: impl IntoIterator<Item = S>,
    ) -> Result<(Store, Damage)>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
        S: AsRef<str>,
    {
        Store::salvage_sealed(entries, Some(cipher), host_opened(opened))
    }

    fn salvage_sealed<K, V, I>(
        entries: I,
        cipher: Option<crate::Cipher>,
        opened: HostOpened,
    ) -> Result<(Store, Damage)>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        let entries: Vec<(K, V)> = entries.into_iter().collect();
        let (mut store, damage) =
            Store::with_values(&entries, cipher.as_ref(), &opened, salvage_values)?;
        store.persist.cipher = cipher;
        store.persist.host_seals = opened.is_some();
        Ok((store, damage))
    }

    /// What is damaged in a store, and what a salvaging open would hold and lose, without
    /// keeping the store. Fails as [`Store::load_salvaging`] does.
    pub fn verify<K, V, I>(entries: I, cipher: Option<crate::Cipher>) -> Result<Verified>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        Store::verify_sealed(entries, cipher, None)
    }

    /// [`Store::verify`] for a store whose host seals: `opened` as in
    /// [`Store::load_host_sealed`].
    pub fn verify_host_sealed<K, V, I, S>(
        entries: I,
        cipher: crate::Cipher,
        opened: impl IntoIterator<Item = S>,
    ) -> Result<Verified>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
        S: AsRef<str>,
    {
        Store::verify_sealed(entries, Some(cipher), host_opened(opened))
    }

    fn verify_sealed<K, V, I>(
        entries: I,
        cipher: Option<crate::Cipher>,
        opened: HostOpened,
    ) -> Result<Verified>
    where
        K: AsRef<str>,
        V: AsRef<[u8]>,
        I: IntoIterator<Item = (K, V)>,
    {
        let entries: Vec<(K, V)> = entries.into_iter().collect();
        let keys = entries
            .iter()
            .filter(|(k, _)| crate::keys::is_core_key(k.as_ref()))
            .count();
        let (store, damage) =
            Store::with_values(&entries, cipher.as_ref(), &opened, salvage_values)?;
        let items = store
            .slots
            .iter()
            .flatten()
            .filter(|r| r.item.is_some())
            .count();
        Ok(Verified {
            intact: damage.is_empty(),
            keys,
            records: store.len() - items,
            items,
            blobs: store.blobs.len(),
            documents: store.state.len(),
            warnings: store
                .load_warnings()
                .iter()
                .filter(|w| w.code != BLOCK_SKIPPED)
                .cloned()
                .collect(),
            damage,
        })
    }
}

/// The damage a salvaging open of `values` finds, for the error of a plain open that failed.
pub(crate) fn damage_of(values: &Values) -> Option<Damage> {
    salvage_values(values).ok().map(|(_, d)| d)
}

fn salvage_values(values: &Values) -> Result<(Store, Damage)> {
    let mut damage = Damage::default();
    let Some((commit, warning)) = salvage_commit(values, &mut damage)? else {
        return load_v1(values).map(|s| (s, damage));
    };
    let mut lenient = Lenient {
        damage: &mut damage,
        blocks: Vec::new(),
        gaps: Vec::new(),
        found_blobs: Vec::new(),
        found_documents: Vec::new(),
    };
    let mut commit = commit;
    let mut chunks: Vec<(usize, String, ChunkBytes)> = Vec::new();
    for (si, info) in commit.segments.iter().enumerate() {
        read_lenient(info, si, values, &mut lenient, &mut chunks);
    }
    if !lenient.damage.damaged.is_empty() {
        prepend_kept(&mut commit, values, &mut chunks, &mut lenient);
    }
    let found_blobs = core::mem::take(&mut lenient.found_blobs);
    let found_documents = core::mem::take(&mut lenient.found_documents);
    let mut store = restore_v2(commit, warning, chunks, None, values, Some(&mut lenient))?;
    // Written again whole by its next change set, which then deletes every old key.
    store.prepare_to_replace(values.keys().copied());
    settle(&store, &mut damage, found_blobs, found_documents);
    store
        .persist
        .warnings
        .extend(damage.damaged.iter().map(|d| Warning {
            code: BLOCK_SKIPPED,
            key: d.key.clone(),
            message: match d.block {
                Some(b) => format!("block {b} skipped: {}", d.reason),
                None => format!("skipped: {}", d.reason),
            },
        }));
    Ok((store, damage))
}

/// When the commit's segments are damaged, the stored segments that an older commit carried by
/// them still names (a merge's inputs, kept until the next commit; see [`crate::storage`]) are
/// read too, and apply first: what a damaged block held comes back in its older intact form,
/// and anything newer wins over it. Segments no commit names (a change set that never
/// committed) are not read.
fn prepend_kept<'a>(
    commit: &mut Commit,
    values: &Values<'a>,
    chunks: &mut Vec<(usize, String, ChunkBytes<'a>)>,
    lenient: &mut Lenient,
) {
    let named: BTreeSet<u64> = commit.segments.iter().map(|s| s.generation).collect();
    let mut older_named: BTreeSet<u64> = BTreeSet::new();
    for (_, key, chunk) in chunks.iter() {
        if let Ok(Some(section)) = commit_section(key, chunk.bytes()) {
            if let Ok(c) = crate::codec::from_msgpack::<Commit>(key, section) {
                older_named.extend(c.segments.iter().map(|s| s.generation));
            }
        }
    }
    let kept: Vec<SegmentInfo> = stored_generations(values)
        .into_iter()
        .filter(|(g, _)| !named.contains(g) && older_named.contains(g) && *g < commit.generation)
        .map(|(generation, parts)| SegmentInfo {
            generation,
            parts,
            ..SegmentInfo::default()
        })
        .collect();
    if kept.is_empty() {
        return;
    }
    // Damage to a kept segment costs nothing the store holds: it is not reported.
    let mut scratch = Damage::default();
    let mut older = Lenient {
        damage: &mut scratch,
        blocks: Vec::new(),
        gaps: Vec::new(),
        found_blobs: Vec::new(),
        found_documents: Vec::new(),
    };
    let mut older_chunks = Vec::new();
    for (si, info) in kept.iter().enumerate() {
        read_lenient(info, si, values, &mut older, &mut older_chunks);
    }
    let (k, n) = (kept.len(), older_chunks.len());
    for c in chunks.iter_mut() {
        c.0 += k;
    }
    for gap in lenient.gaps.iter_mut() {
        gap.1 += n;
        gap.2 += k;
    }
    let mut blocks = older.blocks;
    blocks.append(&mut lenient.blocks);
    lenient.blocks = blocks;
    older_chunks.append(chunks);
    *chunks = older_chunks;
    let mut segments = kept;
    segments.append(&mut commit.segments);
    commit.segments = segments;
}

/// Sorts what the damaged blocks held into lost (no intact copy) and older versions.
fn settle(store: &Store, damage: &mut Damage, blobs: Vec<String>, documents: Vec<String>) {
    let mut lost_records = BTreeSet::new();
    let mut lost_items = BTreeSet::new();
    let mut older = BTreeSet::new();
    for d in &damage.damaged {
        for id in &d.records {
            if store.contains(id) {
                older.insert(id.clone());
            } else {
                lost_records.insert(id.clone());
            }
        }
        for id in &d.items {
            if store.contains(id) {
                older.insert(id.clone());
            } else {
                lost_items.insert(id.clone());
            }
        }
    }
    damage.lost_records = lost_records.into_iter().collect();
    damage.lost_items = lost_items.into_iter().collect();
    damage.older_versions = older.into_iter().collect();
    let unique = |v: Vec<String>, keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        v.into_iter()
            .filter(|x| keep(x))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    damage.lost_blobs = unique(blobs, &|id| !store.blobs.contains_key(id));
    damage.lost_documents = unique(documents, &|name| !store.state.contains_key(name));
}

/// The commit a salvaging open reads (see the module docs), with the warning to give; `None`
/// for a v1 or empty store.
fn salvage_commit(
    values: &Values,
    damage: &mut Damage,
) -> Result<Option<(Commit, Option<Warning>)>> {
    let failure = match choose(values) {
        Ok(Some(c)) => return Ok(Some((c.commit, c.warning))),
        Ok(None) => return Ok(None),
        Err(e @ (Error::Locked { .. } | Error::UnsupportedVersion { .. })) => return Err(e),
        Err(e) => e,
    };
    damage.damaged.push(DamagedBlock {
        key: failure.key().unwrap_or(HEAD_KEY).to_string(),
        reason: failure.to_string(),
        ..DamagedBlock::default()
    });
    if let Some(Ok(bytes)) = values.get(HEAD_KEY) {
        if let Ok(commit) = decode_commit(bytes) {
            return Ok(Some((commit, None)));
        }
    }
    let generations = stored_generations(values);
    let recovered = |message: String| Warning {
        code: COMMIT_RECOVERED,
        key: HEAD_KEY.into(),
        message,
    };
    for (&generation, &parts) in generations.iter().rev() {
        if let Some(commit) = intact_embedded_commit(generation, parts, values) {
            let message = format!(
                "`head` is unusable: opened the commit the intact last block of segment \
                 {generation} carries"
            );
            return Ok(Some((commit, Some(recovered(message)))));
        }
    }
    let segments: Vec<SegmentInfo> = generations
        .iter()
        .map(|(&generation, &parts)| SegmentInfo {
            generation,
            parts,
            ..SegmentInfo::default()
        })
        .collect();
    let commit = Commit {
        generation: segments.last().map_or(0, |s| s.generation),
        segments,
        ..Commit::default()
    };
    let message = "no commit is readable: opened every stored segment in generation order".into();
    Ok(Some((commit, Some(recovered(message)))))
}

/// Every stored segment generation with its number of parts: as its first part says when that
/// part reads, else one more than the highest part stored.
fn stored_generations(values: &Values) -> std::collections::BTreeMap<u64, u32> {
    let mut out = std::collections::BTreeMap::new();
    for key in values.keys() {
        if let Some((generation, part)) = parse_segment_key(key) {
            let n = out.entry(generation).or_insert(0u32);
            *n = (*n).max(part + 1);
        }
    }
    for (generation, parts) in out.iter_mut() {
        let first = crate::keys::segment_key(*generation, 0);
        if let Some(Ok(value)) = values.get(first.as_str()) {
            if let Ok((body, _)) = open_unchecked(&first, Kind::SegmentPart, value) {
                if let Ok(h) = PartHeader::parse(&first, body) {
                    if h.generation == *generation && h.index == 0 && h.parts > 0 {
                        *parts = h.parts;
                    }
                }
            }
        }
    }
    out
}

/// The commit a segment's last chunk carries, when that chunk is intact.
fn intact_embedded_commit(generation: u64, parts: u32, values: &Values) -> Option<Commit> {
    let probe = SegmentInfo {
        generation,
        parts,
        ..SegmentInfo::default()
    };
    let mut scratch = Damage::default();
    let mut lenient = Lenient {
        damage: &mut scratch,
        blocks: Vec::new(),
        gaps: Vec::new(),
        found_blobs: Vec::new(),
        found_documents: Vec::new(),
    };
    let mut chunks = Vec::new();
    read_lenient(&probe, 0, values, &mut lenient, &mut chunks);
    let (_, last_key, last) = chunks.last()?;
    let section = commit_section(last_key, last.bytes()).ok()??;
    let bytes: u64 = chunks.iter().map(|(_, _, c)| c.bytes().len() as u64).sum();
    let own = SegmentInfo {
        generation,
        parts,
        bytes,
        ..SegmentInfo::default()
    };
    decode_embedded(last_key, section, &own).ok()
}

/// Reads the parts of the segment `info` (the `si`th of the commit) block by block, pushing
/// its intact chunks to `chunks` and noting the rest in `lenient`. Never fails.
fn read_lenient<'a>(
    info: &SegmentInfo,
    si: usize,
    values: &Values<'a>,
    lenient: &mut Lenient,
    chunks: &mut Vec<(usize, String, ChunkBytes<'a>)>,
) {
    // A block spanning parts: the key of its first part, its bytes so far, the parts to come.
    let mut pending: Option<(String, Vec<u8>, u32)> = None;
    for (i, key) in info.keys().enumerate() {
        let lose_pending = |pending: &mut Option<(String, Vec<u8>, u32)>, l: &mut Lenient| {
            if let Some((first, _, _)) = pending.take() {
                l.skip(
                    &first,
                    Some(0),
                    "a block spanning parts lost one of them".into(),
                );
            }
        };
        let value = match values.get(key.as_str()) {
            None => {
                lose_pending(&mut pending, lenient);
                let reason = format!(
                    "missing: the commit names segment {} with {} parts",
                    info.generation, info.parts
                );
                lenient.skip(&key, None, reason);
                continue;
            }
            Some(Err(e)) => {
                lose_pending(&mut pending, lenient);
                lenient.skip(&key, None, e.to_string());
                continue;
            }
            Some(Ok(v)) => *v,
        };
        let (body, intact) = match open_unchecked(&key, Kind::SegmentPart, value) {
            Ok(opened) => opened,
            Err(e) => {
                lose_pending(&mut pending, lenient);
                lenient.skip(&key, None, e.to_string());
                continue;
            }
        };
        let header = PartHeader::parse(&key, body).ok();
        let placed = header.as_ref().map(|h| h.check(&key, info, i));
        let framed = value[4] >= FRAMED_VERSION;
        let refusal = match (&placed, intact, framed) {
            (Some(Ok(())), true, _) | (_, false, true) => None,
            (Some(Err(e)), true, _) => Some(e.to_string()),
            (None, true, _) => Some("part header truncated".to_string()),
            (_, false, false) => Some(
                "checksum mismatch (a part of format v4 or older has no blocks: all of it is \
                 lost)"
                    .to_string(),
            ),
        };
        if let Some(reason) = refusal {
            lose_pending(&mut pending, lenient);
            lenient.skip(&key, None, reason);
            continue;
        }
        let piece = body.get(PART_HEADER..).unwrap_or_default();
        // A damaged header is not trusted to say how the part continues a block.
        let chunk_parts = match (&placed, &header) {
            (Some(Ok(())), Some(h)) => h.chunk_parts,
            _ => 1,
        };
        match (pending.as_mut(), chunk_parts) {
            (Some((_, joined, left)), 0) => {
                joined.extend_from_slice(piece);
                *left -= 1;
                if *left == 0 {
                    let (first, joined, _) = pending.take().expect("pending block");
                    push_joined(first, joined, framed, si, lenient, chunks);
                }
            }
            (None, 0) => {
                lenient.skip(
                    &key,
                    None,
                    "continues a block whose first part is lost".into(),
                );
            }
            (_, n) => {
                lose_pending(&mut pending, lenient);
                if n > 1 {
                    pending = Some((key, piece.to_vec(), n - 1));
                } else if framed {
                    let noted = lenient.damage.damaged.len();
                    let found = push_scanned(&key, piece, si, lenient, chunks);
                    if !intact && lenient.damage.damaged.len() == noted {
                        // Every frame found is intact, yet the part is not: it was cut short
                        // at a frame's end, or its header is damaged. What followed is lost.
                        let reason = "the part is cut short or its header is damaged: what \
                                      followed its intact blocks is lost";
                        note_damaged(&key, found, reason, None, si, chunks.len(), lenient);
                    }
                } else {
                    lenient.blocks.push(None);
                    chunks.push((si, key, ChunkBytes::InPlace(piece)));
                }
            }
        }
    }
    if let Some((first, _, _)) = pending {
        lenient.skip(
            &first,
            Some(0),
            "a block spanning parts lost its last part".into(),
        );
    }
}

/// Pushes the intact blocks of a part's frames, and notes the damaged ones; returns how many
/// blocks it found.
fn push_scanned<'a>(
    key: &str,
    piece: &'a [u8],
    si: usize,
    lenient: &mut Lenient,
    chunks: &mut Vec<(usize, String, ChunkBytes<'a>)>,
) -> u32 {
    let found = scan(piece);
    let blocks = found.len() as u32;
    for found in found {
        match found {
            Scanned::Intact { block, chunk } => {
                lenient.blocks.push(Some(block));
                chunks.push((si, key.to_string(), ChunkBytes::InPlace(chunk)));
            }
            Scanned::Damaged { block, found, .. } => {
                let reason = "checksum mismatch";
                note_damaged(key, block, reason, found, si, chunks.len(), lenient);
            }
        }
    }
    blocks
}

/// Pushes a block joined from the parts it spans, if it is intact.
fn push_joined<'a>(
    first: String,
    joined: Vec<u8>,
    framed: bool,
    si: usize,
    lenient: &mut Lenient,
    chunks: &mut Vec<(usize, String, ChunkBytes<'a>)>,
) {
    if !framed {
        lenient.blocks.push(None);
        chunks.push((si, first, ChunkBytes::Joined(joined)));
        return;
    }
    match scan(&joined).as_slice() {
        [Scanned::Intact { chunk, .. }] => {
            let chunk = chunk.to_vec();
            lenient.blocks.push(Some(0));
            chunks.push((si, first, ChunkBytes::Joined(chunk)));
        }
        found => {
            let bytes = found.iter().find_map(|s| match s {
                Scanned::Damaged { found, .. } => *found,
                _ => None,
            });
            let reason = "checksum mismatch";
            note_damaged(&first, 0, reason, bytes, si, chunks.len(), lenient);
        }
    }
}

/// Lists the ids of `records` in `d`, turns and items apart.
fn sort_ids(d: &mut DamagedBlock, records: &[crate::record::Record]) {
    for r in records {
        match r.item {
            Some(_) => d.items.push(r.id.clone()),
            None => d.records.push(r.id.clone()),
        }
    }
}

/// Notes a damaged block, with a best guess at what it held: the ids its bytes still decode
/// to, else a gap the intact blocks around it bound.
fn note_damaged(
    key: &str,
    block: u32,
    reason: &str,
    found: Option<&[u8]>,
    si: usize,
    next_chunk: usize,
    lenient: &mut Lenient,
) {
    let mut d = DamagedBlock {
        key: key.to_string(),
        block: Some(block),
        reason: reason.into(),
        ..DamagedBlock::default()
    };
    if let Some(view) = found.and_then(|bytes| SegmentView::parse(key, bytes).ok()) {
        sort_ids(&mut d, &view.records);
        d.ids_known = true;
        lenient
            .found_blobs
            .extend(view.blobs.iter().map(|(id, _)| id.clone()));
        lenient
            .found_documents
            .extend(view.state.iter().map(|(name, _)| name.clone()));
    } else {
        // The records up to the damage still read.
        let (records, _) = found.map_or((Vec::new(), false), SegmentView::readable_records);
        sort_ids(&mut d, &records);
    }
    // The bytes are damaged, so an id read from them may be altered too: the intact blocks
    // around it bound its records' sequence numbers whatever it still decodes to.
    lenient
        .gaps
        .push((lenient.damage.damaged.len(), next_chunk, si));
    lenient.damage.damaged.push(d);
}
