//! Gathering and scoring the candidates of a recall: sections (a) to (d), deduplicated.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use super::{RecallQuery, RecallSection};
use crate::error::{Error, Result};
use crate::record::Record;
use crate::store::Store;

/// How deep into the user's newest records (b) looks, per record wanted, to skip this thread's.
const USER_SCAN_FACTOR: usize = 8;
/// Relevance decay per position among the thread's (and the user's) newest records.
const POSITION_DECAY: f32 = 0.85;
/// Relevance decay per DAG edge of an ancestor.
const DEPTH_DECAY: f32 = 0.7;
/// The `k` of `n / (n + k)`, the saturation of access counts.
const ACCESS_HALF: f32 = 4.0;

/// A scored candidate.
pub(super) struct Cand<'a> {
    pub rec: &'a Record,
    pub section: RecallSection,
    /// Display order within the section.
    pub order: usize,
    pub score: f32,
}

/// Checks the numeric options of a query.
pub(super) fn validate(q: &RecallQuery) -> Result<()> {
    let w = &q.weights;
    let all = [
        w.recency,
        w.importance,
        w.access,
        w.relevance,
        w.known,
        w.thread,
        w.user,
        w.matched,
        w.ancestor,
    ];
    if all.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return Err(Error::invalid(
            "recall weights must be finite and non-negative",
        ));
    }
    crate::scope::user_scope(q.user.as_deref())?;
    if q.half_life_ms <= 0 {
        return Err(Error::invalid("half_life_ms must be positive"));
    }
    Ok(())
}

/// The candidates of sections (a) to (d), each record once, scored.
pub(super) fn candidates<'a>(store: &'a Store, q: &RecallQuery) -> Result<Vec<Cand<'a>>> {
    // (section, order, record, relevance) before scoring.
    let mut raw: Vec<(RecallSection, usize, &'a Record, f32)> = Vec::new();
    let mut claimed: BTreeSet<&'a str> = BTreeSet::new();
    // With a user named (and matches kept to the user), every section keeps to what that
    // user may see; a thread shared by several users shows only this user's turns.
    let viewer = if q.match_user_only {
        q.user.as_deref()
    } else {
        None
    };
    let thread: Vec<&'a Record> = if q.thread.is_empty() {
        Vec::new()
    } else if viewer.is_none() {
        store.recent(&q.thread, q.thread_limit)
    } else {
        store
            .recent(&q.thread, q.thread_limit.saturating_mul(USER_SCAN_FACTOR))
            .into_iter()
            .filter(|r| r.visible_to(viewer))
            .take(q.thread_limit)
            .collect()
    };
    for (i, r) in thread.iter().enumerate() {
        claimed.insert(&r.id);
        raw.push((RecallSection::Thread, i, r, POSITION_DECAY.powi(i as i32)));
    }
    for (i, (r, depth)) in ancestors(store, &thread, q).into_iter().enumerate() {
        if r.visible_to(viewer) && claimed.insert(&r.id) {
            raw.push((
                RecallSection::Ancestor,
                i,
                r,
                DEPTH_DECAY.powi(depth as i32 - 1),
            ));
        }
    }
    let mut known_seen = 0;
    for (i, (r, rel)) in super::known::known(store, q)?.into_iter().enumerate() {
        if known_seen < q.known_limit.saturating_mul(2) && claimed.insert(&r.id) {
            raw.push((RecallSection::Known, i, r, rel));
            known_seen += 1;
        }
    }
    let matches = super::matches::matches(store, q)?;
    let mut taken = 0;
    for (i, (r, rel)) in matches.iter().enumerate() {
        if taken < q.match_limit && r.visible_to(viewer) && claimed.insert(&r.id) {
            raw.push((RecallSection::Match, i, r, *rel));
            taken += 1;
        }
    }
    if let Some(user) = q.user.as_deref().filter(|_| q.user_limit > 0) {
        let scan = store.newest_of_user(
            user,
            q.user_limit.saturating_mul(USER_SCAN_FACTOR) + q.thread_limit,
        );
        let others = scan
            .into_iter()
            .filter(|r| r.thread != q.thread)
            .take(q.user_limit);
        for (i, r) in others.enumerate() {
            if claimed.insert(&r.id) {
                raw.push((
                    RecallSection::User,
                    i,
                    r,
                    0.5 * POSITION_DECAY.powi(i as i32),
                ));
            }
        }
    }
    if q.since.is_some() || q.until.is_some() {
        let in_range = |at: i64| q.since.is_none_or(|s| at >= s) && q.until.is_none_or(|u| at < u);
        raw.retain(|c| in_range(c.2.created_at));
    }
    let matched: BTreeMap<&str, f32> = matches
        .iter()
        .map(|(r, rel)| (r.id.as_str(), *rel))
        .collect();
    let now = q
        .now
        .unwrap_or_else(|| raw.iter().map(|c| c.2.created_at).max().unwrap_or(0));
    let w = &q.weights;
    let total = (w.recency + w.importance + w.access + w.relevance).max(f32::MIN_POSITIVE);
    let half_lives = if raw.iter().any(|c| c.2.is_item()) {
        store.memory_config().half_life_ms
    } else {
        Default::default()
    };
    let cands: Vec<Cand<'a>> = raw
        .into_iter()
        .map(|(section, order, rec, rel)| {
            let rel = rel.max(matched.get(rec.id.as_str()).copied().unwrap_or(0.0));
            // An item is as fresh as the last turn that said it.
            let seen = rec
                .item
                .as_ref()
                .map_or(rec.created_at, |m| m.last_seen.max(rec.created_at));
            let age = now.saturating_sub(seen).max(0) as f64;
            let recency = 0.5f64.powf(age / q.half_life_ms as f64) as f32;
            let n = store
                .slot_of(&rec.id)
                .and_then(|s| store.access.get(&s))
                .copied()
                .unwrap_or(0) as f32;
            let access = n / (n + ACCESS_HALF);
            let base = w.recency * recency
                + w.importance * rec.importance
                + w.access * access
                + w.relevance * rel;
            let decay = rec.item.as_ref().map_or(1.0, |m| {
                let h = half_lives.get(&m.kind).copied();
                crate::recall::score::decay_of(rec.importance, n as u32, seen, now, h)
            });
            let multiplier = match section {
                RecallSection::Known => w.known,
                RecallSection::Thread => w.thread,
                RecallSection::User => w.user,
                RecallSection::Match => w.matched,
                RecallSection::Ancestor => w.ancestor,
            };
            Cand {
                rec,
                section,
                order,
                score: decay * multiplier * base / total,
            }
        })
        .collect();
    let mut cands = cands;
    // What is known shows best first: it has no order of its own.
    let mut known: Vec<usize> = (0..cands.len())
        .filter(|&i| cands[i].section == RecallSection::Known)
        .collect();
    known.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b)));
    for (rank, i) in known.into_iter().enumerate() {
        cands[i].order = rank;
    }
    Ok(cands)
}

/// The ancestors of the thread records, breadth-first from all of them at once (nearest
/// first, then in the thread's newest-first order), with their distance in edges.
fn ancestors<'a>(
    store: &'a Store,
    thread: &[&'a Record],
    q: &RecallQuery,
) -> Vec<(&'a Record, usize)> {
    let mut seen: BTreeSet<&str> = thread.iter().map(|r| r.id.as_str()).collect();
    let mut out = Vec::new();
    let mut frontier: Vec<&'a Record> = thread.to_vec();
    for depth in 1..=q.ancestor_depth {
        let mut next = Vec::new();
        for r in &frontier {
            for p in &r.parents {
                if out.len() >= q.ancestor_limit {
                    return out;
                }
                if let Some(parent) = store.get(p) {
                    if seen.insert(parent.id.as_str()) {
                        out.push((parent, depth));
                        next.push(parent);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out
}
