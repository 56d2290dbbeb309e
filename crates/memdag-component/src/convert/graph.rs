//! The entity graph and the timeline: WIT queries to the core's, core answers to WIT.

use memdag_core::graph::{Edge, GraphQuery, Subgraph};
use memdag_core::timeline::{TimelineDay, TimelineQuery};

use super::items::kind_out;
use super::query::count;
use crate::bindings::memdag::core::graph as wit;

/// A WIT graph query as the core's.
pub fn graph_query(q: wit::GraphQuery) -> GraphQuery {
    GraphQuery {
        user: q.user,
        as_of: q.as_of,
        now: crate::clock::or_now(q.now),
    }
}

/// A core edge as the WIT one.
pub fn edge(e: Edge) -> wit::Edge {
    wit::Edge {
        id: e.id,
        from: e.from,
        relation: e.relation,
        to: e.to,
        text: e.text,
        sources: e.sources,
    }
}

/// A core subgraph as the WIT one.
pub fn subgraph(g: Subgraph) -> wit::Subgraph {
    wit::Subgraph {
        nodes: g
            .nodes
            .into_iter()
            .map(|n| wit::Node {
                entity: n.entity,
                depth: count(n.depth),
            })
            .collect(),
        edges: g.edges.into_iter().map(edge).collect(),
    }
}

/// A WIT timeline query as the core's.
pub fn timeline_query(q: wit::TimelineQuery) -> TimelineQuery {
    let d = TimelineQuery::default();
    TimelineQuery {
        user: q.user,
        thread: q.thread,
        since: q.since,
        until: q.until,
        offset_minutes: q.offset_minutes.unwrap_or(d.offset_minutes),
        items_only: q.items_only,
        turns_only: q.turns_only,
        limit: q.limit.map_or(d.limit, |n| n as usize),
    }
}

/// A core timeline day as the WIT one.
pub fn timeline_day(d: TimelineDay) -> wit::TimelineDay {
    wit::TimelineDay {
        date: d.date,
        entries: d
            .entries
            .into_iter()
            .map(|e| wit::TimelineEntry {
                id: e.id,
                at: e.at,
                kind: e.kind.map(kind_out),
                thread: e.thread,
                user: e.user,
                text: e.text,
            })
            .collect(),
    }
}
