//! Section (k) of a recall: what is known about the user and the task, from long-term memory.
//!
//! The user's active personal items (their own and those tagged `shared`), best first by
//! importance, use and freshness, at most twice [`RecallQuery::known_limit`]; then the
//! procedural, tool and fact items (and any personal ones) that match the query text, with
//! their relevance: sharing a term with it, or a cosine of at least `MATCHING_COSINE` (0.35).
//! The nearest of a few unrelated items is no match. Expired items (at the query's `now`) are left out; so are items of other
//! users, and items whose confidence is below the memory settings' `recallConfidence`.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::matches::search_hits;
use super::RecallQuery;
use crate::error::Result;
use crate::item::{ItemKind, ItemStatus};
use crate::memory::crud::is_expired;
use crate::record::Record;
use crate::search::{Scope, SearchFilter};
use crate::store::Store;

/// The candidates of the known section with their relevance, in a stable order.
pub(super) fn known<'a>(store: &'a Store, q: &RecallQuery) -> Result<Vec<(&'a Record, f32)>> {
    if q.known_limit == 0 || store.items_by_user.is_empty() {
        return Ok(Vec::new());
    }
    // Each hit with its relevance and whether it truly matches the query (a shared term, or a
    // close vector). A personal item shows anyway, with its relevance; any other item only
    // when it truly matches, not because it is merely the nearest of a few.
    let mut relevance: BTreeMap<&'a str, (&'a Record, f32, bool)> = BTreeMap::new();
    let filter = SearchFilter {
        scope: Scope::Items,
        ..SearchFilter::default()
    };
    for hit in search_hits(store, q, filter, q.known_limit.saturating_mul(2))? {
        relevance.insert(&hit.0.id, hit);
    }
    // Items the rules or an LLM were unsure of wait for corroboration before they show.
    let least = store.memory_config().recall_confidence;
    relevance.retain(|_, (r, _, _)| r.item.as_ref().is_none_or(|m| m.confidence >= least));
    let mut personal: Vec<&'a Record> = Vec::new();
    if let Some(user) = q.user.as_deref() {
        for slot in store.item_slots(Some(user)) {
            let Some(r) = store.slot(slot) else { continue };
            let Some(m) = &r.item else { continue };
            if m.kind == ItemKind::Personal
                && m.status == ItemStatus::Active
                && m.confidence >= least
                && !is_expired(m, q.now)
                && r.visible_to(Some(user))
            {
                personal.push(r);
            }
        }
        let worth = |r: &Record| {
            let uses = store
                .slot_of(&r.id)
                .and_then(|s| store.access.get(&s))
                .copied()
                .unwrap_or(0);
            let seen = r
                .item
                .as_ref()
                .map_or(r.created_at, |m| m.last_seen.max(r.created_at));
            (r.importance, uses, seen)
        };
        personal.sort_by(|a, b| {
            let (ia, ua, sa) = worth(a);
            let (ib, ub, sb) = worth(b);
            ib.total_cmp(&ia).then(ub.cmp(&ua)).then(sb.cmp(&sa))
        });
        personal.truncate(q.known_limit.saturating_mul(2));
    }
    let mut out: Vec<(&'a Record, f32)> = Vec::new();
    for r in personal {
        let rel = relevance
            .remove(r.id.as_str())
            .map_or(0.0, |(_, rel, _)| rel);
        out.push((r, rel));
    }
    let mut matched: Vec<(&'a Record, f32)> = relevance
        .into_values()
        .filter(|&(r, _, matches)| matches && r.visible_to(q.user.as_deref()))
        .map(|(r, rel, _)| (r, rel))
        .collect();
    matched.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.seq.cmp(&b.0.seq)));
    out.extend(matched);
    Ok(out)
}
