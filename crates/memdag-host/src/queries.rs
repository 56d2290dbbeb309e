//! Starting points for the long-term memory, working memory, graph and tool calls: each
//! helper gives a value with every option at its default, to change the fields a call needs.
//! Times come from the caller; [`now_ms`] is the host clock.

use crate::bindings::exports::memdag::core::memory::ToolContext;
use crate::bindings::memdag::core::graph::{GraphQuery, TimelineQuery};
use crate::bindings::memdag::core::items::{
    ExtractQuery, ItemKind, ItemOrder, ItemQuery, ItemUpdate, NewItem, PurgeQuery, ResolutionQuery,
};
use crate::bindings::memdag::core::work::{WorkOp, WorkUpdate};

/// The host clock in ms since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A new item of `kind` for `user` saying `text`, said now (the host clock), every other field
/// empty or default.
pub fn new_item(kind: ItemKind, user: &str, text: &str) -> NewItem {
    NewItem {
        id: None,
        kind: Some(kind),
        user: user.into(),
        text: text.into(),
        subject: None,
        relation: None,
        object: None,
        task: None,
        tool: None,
        importance: None,
        confidence: None,
        created_at: now_ms(),
        sources: Vec::new(),
        tags: Vec::new(),
        embedding: None,
        ttl_ms: None,
    }
}

/// An update that changes nothing yet, happening at `at`.
pub fn item_update(at: i64) -> ItemUpdate {
    ItemUpdate {
        text: None,
        subject: None,
        relation: None,
        object: None,
        task: None,
        tool: None,
        importance: None,
        tags: None,
        embedding: None,
        ttl_ms: None,
        at,
    }
}

/// Every active item, newest first, at most 100.
pub fn item_query() -> ItemQuery {
    ItemQuery {
        user: None,
        kinds: Vec::new(),
        task: None,
        tool: None,
        statuses: Vec::new(),
        all: false,
        since: None,
        until: None,
        as_of: None,
        now: None,
        order: ItemOrder::Created,
        ascending: false,
        limit: None,
        offset: 0,
    }
}

/// Every logged resolution, newest first, at most 100.
pub fn resolution_query() -> ResolutionQuery {
    ResolutionQuery {
        user: None,
        item: None,
        actions: Vec::new(),
        since: None,
        until: None,
        limit: None,
    }
}

/// An extraction of the default kinds (personal, procedural, tool) from these turns.
pub fn extract_query(ids: &[&str]) -> ExtractQuery {
    ExtractQuery {
        ids: ids.iter().map(|id| id.to_string()).collect(),
        thread: None,
        user: None,
        kinds: Vec::new(),
    }
}

/// A purge of the items expired at `now`, nothing else.
pub fn purge_query(now: i64) -> PurgeQuery {
    PurgeQuery {
        now,
        expired: true,
        ended: false,
        blob_max_age_ms: None,
        unreferenced_blobs: false,
    }
}

/// A change of `field` in `thread`'s working memory at `at`, by no named user. `value` is
/// JSON text (e.g. `"\"ship it\""` for a string).
pub fn work_update(
    thread: &str,
    field: &str,
    op: WorkOp,
    value: Option<&str>,
    at: i64,
) -> WorkUpdate {
    WorkUpdate {
        thread: thread.into(),
        field: field.into(),
        op,
        value: value.map(str::to_string),
        at,
        user: String::new(),
    }
}

/// A walk over every active item of every user.
pub fn graph_query() -> GraphQuery {
    GraphQuery {
        user: None,
        as_of: None,
        now: None,
    }
}

/// The whole store's timeline in UTC days, the newest 500 entries.
pub fn timeline_query() -> TimelineQuery {
    TimelineQuery {
        user: None,
        thread: None,
        since: None,
        until: None,
        offset_minutes: None,
        items_only: false,
        turns_only: false,
        limit: None,
    }
}

/// A tool call for `user` (empty: none) at the host clock's now, with no default thread.
pub fn tool_context(user: &str) -> ToolContext {
    ToolContext {
        user: (!user.is_empty()).then(|| user.to_string()),
        thread: None,
        now: Some(now_ms()),
    }
}
