//! Working memory, graph, timeline, purge and time ranges as the core's types.
//!
//! Working-memory values cross the WIT boundary as JSON text; the component wrote them, so
//! they parse, and a value that would not is kept as a string.

use std::collections::BTreeMap;

use memdag_core::{erase, graph, time, timeline, work};
use memdag_host::{
    Edge, Grain, Purged, Subgraph, TimeExpr, TimelineDay, WorkChange, WorkOp, WorkingMemory,
};
use serde_json::Value;

fn value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()))
}

/// One change of working memory.
pub fn work_change(c: &WorkChange) -> work::WorkChange {
    work::WorkChange {
        at: c.at,
        field: c.field.clone(),
        op: match c.op {
            WorkOp::Set => work::WorkOp::Set,
            WorkOp::Push => work::WorkOp::Push,
            WorkOp::Pop => work::WorkOp::Pop,
            WorkOp::Patch => work::WorkOp::Patch,
            WorkOp::Remove => work::WorkOp::Remove,
        },
        value: c.value.as_deref().map(value),
        previous: c.previous.as_deref().map(value),
        stale: c.stale,
        user: c.user.clone(),
    }
}

pub fn working_memory(w: &WorkingMemory) -> work::WorkingMemory {
    let fields: BTreeMap<String, work::WorkField> = w
        .fields
        .iter()
        .map(|f| {
            let field = work::WorkField {
                value: value(&f.value),
                updated_at: f.updated_at,
                version: f.version,
            };
            (f.name.clone(), field)
        })
        .collect();
    work::WorkingMemory {
        thread: w.thread.clone(),
        user: w.user.clone(),
        fields,
        history: w.history.iter().map(work_change).collect(),
    }
}

pub fn edge(e: &Edge) -> graph::Edge {
    graph::Edge {
        id: e.id.clone(),
        from: e.from.clone(),
        relation: e.relation.clone(),
        to: e.to.clone(),
        text: e.text.clone(),
        sources: e.sources.clone(),
    }
}

pub fn subgraph(g: &Subgraph) -> graph::Subgraph {
    graph::Subgraph {
        nodes: g
            .nodes
            .iter()
            .map(|n| graph::Node {
                entity: n.entity.clone(),
                depth: n.depth as usize,
            })
            .collect(),
        edges: g.edges.iter().map(edge).collect(),
    }
}

pub fn timeline_day(d: &TimelineDay) -> timeline::TimelineDay {
    timeline::TimelineDay {
        date: d.date.clone(),
        entries: d
            .entries
            .iter()
            .map(|e| timeline::TimelineEntry {
                id: e.id.clone(),
                at: e.at,
                kind: e.kind.map(super::kind),
                thread: e.thread.clone(),
                user: e.user.clone(),
                text: e.text.clone(),
            })
            .collect(),
    }
}

pub fn purged(p: &Purged) -> erase::Purged {
    erase::Purged {
        items: p.items.clone(),
        blobs: p.blobs.clone(),
    }
}

pub fn time_expr(t: &TimeExpr) -> time::TimeExpr {
    time::TimeExpr {
        since: t.since,
        until: t.until,
        matched: t.matched.clone(),
        start: t.start as usize,
        end: t.end as usize,
        grain: match t.grain {
            Grain::Day => time::Grain::Day,
            Grain::Week => time::Grain::Week,
            Grain::Month => time::Grain::Month,
            Grain::Year => time::Grain::Year,
            Grain::Span => time::Grain::Span,
        },
    }
}
