//! Long-term memory items: the WIT `items` types to the core's and back.
//!
//! Kinds, statuses and actions map one to one; a WIT `option` left none takes the core's
//! default (which lives in the core's `Default` impls only). The learning side (settings,
//! extraction, outcomes, purge) is in [`super::learn`].

use memdag_core::item::{
    Action, ItemKind, ItemStatus, ItemUpdate, ItemVersion, MemoryItem, NewItem, Resolution,
};
use memdag_core::memory::{HistoryEntry, ItemOrder, ItemQuery, LoggedResolution, ResolutionQuery};

use crate::bindings::memdag::core::items as wit;

/// A WIT kind as the core's.
pub fn kind(k: wit::ItemKind) -> ItemKind {
    match k {
        wit::ItemKind::Personal => ItemKind::Personal,
        wit::ItemKind::Procedural => ItemKind::Procedural,
        wit::ItemKind::Tool => ItemKind::Tool,
        wit::ItemKind::Fact => ItemKind::Fact,
    }
}

/// A core kind as the WIT one.
pub fn kind_out(k: ItemKind) -> wit::ItemKind {
    match k {
        ItemKind::Personal => wit::ItemKind::Personal,
        ItemKind::Procedural => wit::ItemKind::Procedural,
        ItemKind::Tool => wit::ItemKind::Tool,
        ItemKind::Fact => wit::ItemKind::Fact,
    }
}

/// A WIT status as the core's.
pub fn status(s: wit::ItemStatus) -> ItemStatus {
    match s {
        wit::ItemStatus::Active => ItemStatus::Active,
        wit::ItemStatus::Superseded => ItemStatus::Superseded,
        wit::ItemStatus::Deleted => ItemStatus::Deleted,
        wit::ItemStatus::Expired => ItemStatus::Expired,
    }
}

/// A core status as the WIT one.
pub fn status_out(s: ItemStatus) -> wit::ItemStatus {
    match s {
        ItemStatus::Active => wit::ItemStatus::Active,
        ItemStatus::Superseded => wit::ItemStatus::Superseded,
        ItemStatus::Deleted => wit::ItemStatus::Deleted,
        ItemStatus::Expired => wit::ItemStatus::Expired,
    }
}

fn action(a: wit::Action) -> Action {
    match a {
        wit::Action::Added => Action::Added,
        wit::Action::Corroborated => Action::Corroborated,
        wit::Action::Updated => Action::Updated,
        wit::Action::Superseded => Action::Superseded,
        wit::Action::Flagged => Action::Flagged,
        wit::Action::Merged => Action::Merged,
        wit::Action::Deleted => Action::Deleted,
        wit::Action::Expired => Action::Expired,
    }
}

fn action_out(a: Action) -> wit::Action {
    match a {
        Action::Added => wit::Action::Added,
        Action::Corroborated => wit::Action::Corroborated,
        Action::Updated => wit::Action::Updated,
        Action::Superseded => wit::Action::Superseded,
        Action::Flagged => wit::Action::Flagged,
        Action::Merged => wit::Action::Merged,
        Action::Deleted => wit::Action::Deleted,
        Action::Expired => wit::Action::Expired,
    }
}

fn version_out(v: ItemVersion) -> wit::ItemVersion {
    wit::ItemVersion {
        version: v.version,
        text: v.text,
        importance: v.importance,
        subject: v.subject,
        relation: v.relation,
        object: v.object,
        valid_from: v.valid_from,
        valid_until: v.valid_until,
    }
}

fn resolution_out(r: Resolution) -> wit::Resolution {
    wit::Resolution {
        at: r.at,
        action: action_out(r.action),
        other: r.other,
        source: r.source,
        by: r.by,
        reason: r.reason,
    }
}

/// A core item as the WIT one.
pub fn memory_item(i: MemoryItem) -> wit::MemoryItem {
    let m = i.meta;
    wit::MemoryItem {
        id: i.id,
        user: i.user,
        text: i.text,
        importance: i.importance,
        created_at: i.created_at,
        sources: i.sources,
        tags: i.tags,
        uses: i.uses,
        kind: kind_out(m.kind),
        subject: m.subject,
        relation: m.relation,
        object: m.object,
        task: m.task,
        tool: m.tool,
        status: status_out(m.status),
        version: m.version,
        updated_at: m.updated_at,
        valid_from: m.valid_from,
        valid_until: m.valid_until,
        corroborations: m.corroborations,
        confidence: m.confidence,
        last_seen: m.last_seen,
        expires_at: m.expires_at,
        superseded_by: m.superseded_by,
        supersedes: m.supersedes,
        conflicts: m.conflicts,
        history: m.history.into_iter().map(version_out).collect(),
        log: m.log.into_iter().map(resolution_out).collect(),
    }
}

/// A WIT new item as the core's.
pub fn new_item(n: wit::NewItem) -> NewItem {
    NewItem {
        id: n.id,
        kind: n.kind.map(kind),
        user: n.user,
        text: n.text,
        subject: n.subject,
        relation: n.relation,
        object: n.object,
        task: n.task,
        tool: n.tool,
        importance: n.importance,
        confidence: n.confidence,
        created_at: n.created_at,
        sources: n.sources,
        tags: n.tags,
        embedding: n.embedding,
        ttl_ms: n.ttl_ms,
    }
}

/// A core new item (a proposal) as the WIT one.
pub fn new_item_out(n: NewItem) -> wit::NewItem {
    wit::NewItem {
        id: n.id,
        kind: n.kind.map(kind_out),
        user: n.user,
        text: n.text,
        subject: n.subject,
        relation: n.relation,
        object: n.object,
        task: n.task,
        tool: n.tool,
        importance: n.importance,
        confidence: n.confidence,
        created_at: n.created_at,
        sources: n.sources,
        tags: n.tags,
        embedding: n.embedding,
        ttl_ms: n.ttl_ms,
    }
}

/// A WIT item update as the core's.
pub fn item_update(u: wit::ItemUpdate) -> ItemUpdate {
    ItemUpdate {
        text: u.text,
        subject: u.subject,
        relation: u.relation,
        object: u.object,
        task: u.task,
        tool: u.tool,
        importance: u.importance,
        tags: u.tags,
        embedding: u.embedding,
        ttl_ms: u.ttl_ms,
        at: u.at,
    }
}

/// A WIT listing query as the core's.
pub fn item_query(q: wit::ItemQuery) -> ItemQuery {
    let d = ItemQuery::default();
    ItemQuery {
        user: q.user,
        kinds: q.kinds.into_iter().map(kind).collect(),
        task: q.task,
        tool: q.tool,
        statuses: q.statuses.into_iter().map(status).collect(),
        all: q.all,
        since: q.since,
        until: q.until,
        as_of: q.as_of,
        now: crate::clock::or_now(q.now),
        order: match q.order {
            wit::ItemOrder::Created => ItemOrder::Created,
            wit::ItemOrder::Updated => ItemOrder::Updated,
            wit::ItemOrder::Importance => ItemOrder::Importance,
            wit::ItemOrder::Uses => ItemOrder::Uses,
        },
        ascending: q.ascending,
        limit: q.limit.map_or(d.limit, |n| n as usize),
        offset: q.offset as usize,
    }
}

/// A core history entry as the WIT one.
pub fn history_entry(e: HistoryEntry) -> wit::HistoryEntry {
    wit::HistoryEntry {
        id: e.id,
        version: e.version,
        text: e.text,
        subject: e.subject,
        relation: e.relation,
        object: e.object,
        importance: e.importance,
        valid_from: e.valid_from,
        valid_until: e.valid_until,
        status: status_out(e.status),
    }
}

/// A WIT resolution query as the core's.
pub fn resolution_query(q: wit::ResolutionQuery) -> ResolutionQuery {
    ResolutionQuery {
        user: q.user,
        item: q.item,
        actions: q.actions.into_iter().map(action).collect(),
        since: q.since,
        until: q.until,
        limit: q.limit.map(|n| n as usize),
    }
}

/// A core logged resolution as the WIT one (flattened).
pub fn logged_resolution(l: LoggedResolution) -> wit::LoggedResolution {
    let r = l.resolution;
    wit::LoggedResolution {
        item: l.item,
        at: r.at,
        action: action_out(r.action),
        other: r.other,
        source: r.source,
        by: r.by,
        reason: r.reason,
    }
}
