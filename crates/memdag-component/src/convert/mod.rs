//! Conversions between the core's types and the WIT types, in this crate only.
//!
//! Errors become the WIT `error` record: the core's stable code as `error-code`, its message,
//! and the storage key or record ids it concerns. Records and turns are here;
//! [`query`] converts search, grep and recall, [`context`] the context-window tools,
//! [`items`] long-term memory items, [`damage`] what a damaged store lost, [`learn`] their settings, extraction and purge, [`pipeline`]
//! `prepare` and `finish`, [`work`]
//! working memory, and [`graph`] the entity graph and the timeline.

pub mod context;
pub mod damage;
pub mod graph;
pub mod items;
pub mod learn;
pub mod pipeline;
pub mod query;
pub mod work;

use memdag_core::{CompactNode, Error as CoreError, NewTurn, Record, Section, Step, Store};

use crate::bindings::memdag::core::types as wit;

/// A core error as the WIT error: its code, its message, and the key or ids it concerns.
pub fn error(e: &CoreError) -> wit::Error {
    use wit::ErrorCode as C;
    let code = match e {
        CoreError::NotFound { .. } => C::NotFound,
        CoreError::UnknownParents { .. } => C::UnknownParent,
        CoreError::DuplicateId { .. } => C::DuplicateId,
        CoreError::InvalidInput { .. } => C::InvalidInput,
        CoreError::CorruptData { .. } => C::CorruptData,
        CoreError::UnsupportedVersion { .. } => C::UnsupportedVersion,
        CoreError::Locked { .. } => C::Locked,
        CoreError::Storage { .. } => C::Storage,
        CoreError::Host { .. } => C::Host,
        CoreError::Busy => C::Busy,
    };
    let ids = match e {
        CoreError::NotFound { id } | CoreError::DuplicateId { id } => vec![id.clone()],
        CoreError::UnknownParents { ids } => ids.clone(),
        _ => Vec::new(),
    };
    wit::Error {
        code,
        message: e.to_string(),
        key: e.key().map(String::from),
        ids,
    }
}

/// The same error with `context` before its message: `turn 3: unknown parent ids: a`.
pub fn with_context(mut e: wit::Error, context: &str) -> wit::Error {
    e.message = format!("{context}: {}", e.message);
    e
}

/// A core record as the WIT record.
/// A record of `store` (or one just taken out of it) as a WIT record, with its embedding
/// wherever the store keeps it ([`Store::embedding_of`]).
pub fn record(store: &Store, r: &Record) -> wit::Record {
    wit::Record {
        id: r.id.clone(),
        seq: r.seq,
        thread: r.thread.clone(),
        user: r.user.clone(),
        created_at: r.created_at,
        input: r.input.clone(),
        output: r.output.clone(),
        steps: r.steps.iter().map(step_out).collect(),
        parents: r.parents.clone(),
        tags: r.tags.clone(),
        importance: r.importance,
        compact: r.compact.as_ref().map(compact_out),
        embedding: store.embedding_of(r).map(|v| v.into_owned()),
    }
}

/// Core records of `store` as WIT records, in order.
pub fn records(store: &Store, rs: &[&Record]) -> Vec<wit::Record> {
    rs.iter().map(|r| record(store, r)).collect()
}

/// The record a store call just added or changed, by the id the call gave back (its
/// `&Record` borrows the store).
pub fn changed(store: &Store, id: Result<String, CoreError>) -> Result<wit::Record, CoreError> {
    let id = id?;
    match store.get(&id) {
        Some(r) => Ok(record(store, r)),
        None => Err(CoreError::NotFound { id }),
    }
}

/// A WIT new turn as the core's.
pub fn new_turn(t: wit::NewTurn) -> NewTurn {
    NewTurn {
        id: t.id,
        thread: t.thread,
        user: t.user,
        created_at: t.created_at,
        input: t.input,
        output: t.output,
        steps: t.steps.into_iter().map(step_in).collect(),
        parents: t.parents,
        tags: t.tags,
        importance: t.importance,
        compact: t.compact.map(compact_in),
        embedding: t.embedding,
    }
}

/// A core new turn (one parsed from JSON) as the WIT one.
pub fn new_turn_out(t: NewTurn) -> wit::NewTurn {
    wit::NewTurn {
        id: t.id,
        thread: t.thread,
        user: t.user,
        created_at: t.created_at,
        input: t.input,
        output: t.output,
        steps: t.steps.iter().map(step_out).collect(),
        parents: t.parents,
        tags: t.tags,
        importance: t.importance,
        compact: t.compact.as_ref().map(compact_out),
        embedding: t.embedding,
    }
}

fn step_out(s: &Step) -> wit::Step {
    wit::Step {
        tool: s.tool.clone(),
        args: s.args.clone(),
        result: s.result.clone(),
        ok: s.ok,
    }
}

fn step_in(s: wit::Step) -> Step {
    Step {
        tool: s.tool,
        args: s.args,
        result: s.result,
        ok: s.ok,
    }
}

fn compact_out(c: &CompactNode) -> wit::CompactNode {
    wit::CompactNode {
        summary: c.summary.clone(),
        sections: c
            .sections
            .iter()
            .map(|s| wit::Section {
                name: s.name.clone(),
                text: s.text.clone(),
            })
            .collect(),
    }
}

fn compact_in(c: wit::CompactNode) -> CompactNode {
    CompactNode {
        summary: c.summary,
        sections: c
            .sections
            .into_iter()
            .map(|s| Section {
                name: s.name,
                text: s.text,
            })
            .collect(),
    }
}

/// The core's limits as the WIT record.
pub fn limits_to_wit(l: &memdag_core::Limits) -> wit::Limits {
    wit::Limits {
        max_field_bytes: l.max_field_bytes as u64,
        max_turn_bytes: l.max_turn_bytes as u64,
        max_name_bytes: l.max_name_bytes as u64,
        max_tags: l.max_tags as u64,
        max_tag_bytes: l.max_tag_bytes as u64,
        max_parents: l.max_parents as u64,
        max_steps: l.max_steps as u64,
        max_sections: l.max_sections as u64,
        max_dimension: l.max_dimension as u64,
    }
}

/// The WIT limits as the core's; values past `usize` saturate.
pub fn limits_from_wit(l: &wit::Limits) -> memdag_core::Limits {
    let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    memdag_core::Limits {
        max_field_bytes: n(l.max_field_bytes),
        max_turn_bytes: n(l.max_turn_bytes),
        max_name_bytes: n(l.max_name_bytes),
        max_tags: n(l.max_tags),
        max_tag_bytes: n(l.max_tag_bytes),
        max_parents: n(l.max_parents),
        max_steps: n(l.max_steps),
        max_sections: n(l.max_sections),
        max_dimension: n(l.max_dimension),
    }
}
