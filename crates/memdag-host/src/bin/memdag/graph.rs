//! `memdag graph ...` and `memdag timeline`: the entity graph and the turns and items by day.

use std::io::Write;

use memdag_host::{graph_query, timeline_query, Edge, Error, Memory, Subgraph};

use crate::args::{Graph, Timeline};
use crate::{shape, show};

/// `ada -[works at]-> acme  (m1f…, from t1)`
fn edge_line(e: &Edge) -> String {
    let from = if e.sources.is_empty() {
        String::new()
    } else {
        format!(", from {}", e.sources.join(", "))
    };
    format!("{} -[{}]-> {}  ({}{from})", e.from, e.relation, e.to, e.id)
}

fn print_subgraph(g: &Subgraph, json: bool, out: &mut dyn Write) -> Result<(), Error> {
    if json {
        return Ok(writeln!(out, "{}", shape::line(&shape::subgraph(g)))?);
    }
    for n in &g.nodes {
        writeln!(out, "{}  {}", n.depth, n.entity)?;
    }
    for e in &g.edges {
        writeln!(out, "  {}", edge_line(e))?;
    }
    Ok(())
}

/// Runs `memdag graph ...`; `user` keeps it to what that user may see.
pub fn run(
    memory: &mut Memory,
    g: &Graph,
    user: Option<String>,
    now: i64,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let mut q = graph_query();
    q.user = user;
    q.now = Some(now);
    match g {
        Graph::Neighbors { entity, depth } => {
            print_subgraph(&memory.neighbors(entity, *depth, &q)?, json, out)?;
        }
        Graph::Export { entities } => {
            print_subgraph(&memory.subgraph(entities, &q)?, json, out)?;
        }
        Graph::Path {
            from,
            to,
            max_depth,
        } => {
            let paths = memory.path(from, to, *max_depth, &q)?;
            if json {
                let paths: Vec<Vec<_>> = paths
                    .iter()
                    .map(|p| p.iter().map(shape::edge).collect())
                    .collect();
                writeln!(out, "{}", shape::line(&paths))?;
                return Ok(());
            }
            if paths.is_empty() {
                writeln!(out, "no path of at most {max_depth} edges")?;
            }
            for (i, p) in paths.iter().enumerate() {
                writeln!(out, "path {} ({} edges):", i + 1, p.len())?;
                for e in p {
                    writeln!(out, "  {}", edge_line(e))?;
                }
            }
        }
    }
    Ok(())
}

/// Runs `memdag timeline`.
pub fn timeline(
    memory: &mut Memory,
    t: &Timeline,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let mut q = timeline_query();
    q.user.clone_from(&t.user);
    q.thread.clone_from(&t.thread);
    q.since = t
        .since
        .as_deref()
        .map(|s| memory.parse_timestamp(s))
        .transpose()?;
    q.until = t
        .until
        .as_deref()
        .map(|s| memory.parse_timestamp(s))
        .transpose()?;
    q.offset_minutes = t.offset_minutes;
    let days = memory.timeline(&q)?;
    if json {
        let days: Vec<_> = days.iter().map(shape::timeline_day).collect();
        return Ok(writeln!(out, "{}", shape::line(&days))?);
    }
    let offset = t.offset_minutes.unwrap_or(0);
    for day in &days {
        writeln!(out, "{}", day.date)?;
        for e in &day.entries {
            let what = match e.kind {
                Some(k) => format!("({})", shape::kind(k).name()),
                None => format!("[{}]", e.thread),
            };
            writeln!(
                out,
                "  {}  {}  {what}  {}",
                show::clock(e.at, offset),
                e.id,
                show::clip(&e.text, 80)
            )?;
        }
    }
    Ok(())
}
