//! `memdag search` (one query or a batch file) and `memdag grep`.
//!
//! A relative date in a query ("last week", "上周") is resolved by the component against a
//! clock: `--now`, else the host clock for one query. A batch resolves dates only with `--now`
//! (a data set's "last week" is not this week); each of its lines may give its own `now`.

use std::io::{BufReader, Write};
use std::time::Instant;

use serde::Deserialize;
use serde_json::json;

use memdag_host::{
    grep_query, search_query, Error, FieldWeights, Fusion, Memory, SearchHit, SearchMode,
    SearchQuery, TimeExpr,
};

use memdag_host::lines::{read_line, Line};

use crate::args::{Ranking, Search, SearchInput};
use crate::{shape, show};

/// One line of a batch file: a JSON string, or an object.
#[derive(Deserialize)]
#[serde(untagged)]
enum BatchLine {
    Text(String),
    Query(BatchQuery),
}

#[derive(Deserialize)]
struct BatchQuery {
    id: Option<serde_json::Value>,
    #[serde(default, alias = "query")]
    text: String,
    embedding: Option<Vec<f32>>,
    thread: Option<String>,
    user: Option<String>,
    /// The clock this query's relative dates resolve against (TIME).
    now: Option<serde_json::Value>,
}

fn mode(name: &str) -> SearchMode {
    match name {
        "bm25" => SearchMode::Bm25,
        "vector" => SearchMode::Vector,
        _ => SearchMode::Hybrid,
    }
}

/// A query for `text` with the search's mode, `k` and ranking options.
fn query(text: &str, s: &Search) -> SearchQuery {
    let mut q = search_query(text, mode(&s.mode), s.k);
    q.filter.scope = s.scope;
    q.filter.kinds.clone_from(&s.kinds);
    let r: &Ranking = &s.ranking;
    if r.rrf == Some(true) {
        q.fusion = Fusion::Rrf;
    }
    q.vector_weight = r.vector_weight;
    q.rrf_k = r.rrf_k;
    q.context = r.context;
    q.thread_scope = r.thread_scope;
    q.drop_stopwords = r.stopwords;
    q.derived_keys = r.derived_keys;
    if !r.field_weights.is_empty() {
        let w = |name: &str| {
            r.field_weights
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, w)| *w)
        };
        q.field_weights = Some(FieldWeights {
            input: w("input"),
            output: w("output"),
            compact: w("compact"),
            steps: w("steps"),
            keys: w("keys"),
        });
    }
    q
}

/// Sets the query's clock: relative dates resolve against it and expired items leave.
fn at(q: &mut SearchQuery, now: Option<i64>) {
    q.now = now;
    q.filter.now = now;
}

/// Runs `memdag search`; `clock` is the host clock, for one query without `--now`.
pub fn run(memory: &mut Memory, s: &Search, clock: i64, out: &mut dyn Write) -> Result<(), Error> {
    let given = s
        .now
        .as_deref()
        .map(|t| memory.parse_timestamp(t))
        .transpose()?;
    match &s.input {
        SearchInput::Text(text) => {
            let mut q = query(text, s);
            q.filter.thread = s.thread.clone();
            q.filter.user = s.user.clone();
            at(&mut q, Some(given.unwrap_or(clock)));
            let started = Instant::now();
            let found = memory.search_full(&q)?;
            let hits = found.hits;
            if s.json {
                writeln!(
                    out,
                    "{}",
                    hits_json(&json!(text), &hits, found.time.as_ref())
                )?;
                return Ok(());
            }
            if let Some(t) = &found.time {
                writeln!(
                    out,
                    "time: {:?} = {} UTC to {} UTC",
                    t.matched,
                    show::utc(t.since),
                    show::utc(t.until)
                )?;
            }
            for (rank, h) in hits.iter().enumerate() {
                let head = match (memory.get(&h.id)?, h.kind) {
                    (Some(r), Some(kind)) => format!(
                        "{}  {}  ({})  {}",
                        r.id,
                        show::utc(r.created_at),
                        shape::kind(kind).name(),
                        show::clip(&r.input, 48)
                    ),
                    (Some(r), None) => show::line(&r),
                    (None, _) => String::new(),
                };
                writeln!(out, "{:>2}. {:.4}  {head}", rank + 1, h.score)?;
                if !h.snippet.is_empty() {
                    writeln!(out, "      {}", show::clip(&h.snippet, 100))?;
                }
            }
            eprintln!(
                "{} hits in {:.1} ms ({} mode)",
                hits.len(),
                started.elapsed().as_secs_f64() * 1000.0,
                s.mode
            );
            Ok(())
        }
        SearchInput::Batch(file) => {
            let mut reader = BufReader::new(std::fs::File::open(file).map_err(|e| {
                Error::Io(std::io::Error::new(
                    e.kind(),
                    format!("{}: {e}", file.display()),
                ))
            })?);
            let started = Instant::now();
            let mut n = 0usize;
            let bad = |i: usize, why: String| {
                Error::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}:{}: {why}", file.display(), i + 1),
                ))
            };
            let mut bytes = Vec::new();
            for i in 0.. {
                match read_line(&mut reader, &mut bytes, crate::ingest::MAX_LINE_BYTES)? {
                    Line::End => break,
                    Line::TooLong => return Err(bad(i, "the line is too long".into())),
                    Line::Read => {}
                }
                let line = std::str::from_utf8(&bytes)
                    .map_err(|e| bad(i, format!("the line is not UTF-8 ({e})")))?;
                if line.trim().is_empty() {
                    continue;
                }
                let parsed: BatchLine =
                    serde_json::from_str(line).map_err(|e| bad(i, e.to_string()))?;
                let (id, mut q) = match parsed {
                    BatchLine::Text(t) => {
                        let mut q = query(&t, s);
                        at(&mut q, given);
                        (json!(i), q)
                    }
                    BatchLine::Query(b) => {
                        let mut q = query(&b.text, s);
                        q.embedding = b.embedding;
                        q.filter.thread = b.thread;
                        q.filter.user = b.user;
                        let now = match &b.now {
                            Some(v) => Some(line_time(memory, v).map_err(|e| {
                                Error::Io(std::io::Error::new(
                                    std::io::ErrorKind::InvalidData,
                                    format!("{}:{}: now: {e}", file.display(), i + 1),
                                ))
                            })?),
                            None => given,
                        };
                        at(&mut q, now);
                        (b.id.unwrap_or(json!(i)), q)
                    }
                };
                q.filter.thread = q.filter.thread.or_else(|| s.thread.clone());
                q.filter.user = q.filter.user.or_else(|| s.user.clone());
                q.snippets = Some(false);
                let found = memory.search_full(&q)?;
                writeln!(out, "{}", hits_json(&id, &found.hits, found.time.as_ref()))?;
                n += 1;
            }
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "{n} queries in {:.2} s ({:.2} ms a query, {} mode)",
                secs,
                secs * 1000.0 / n.max(1) as f64,
                s.mode
            );
            Ok(())
        }
    }
}

/// A batch line's `now`: ms, or a TIME string.
fn line_time(memory: &mut Memory, v: &serde_json::Value) -> Result<i64, Error> {
    match v {
        serde_json::Value::String(t) => memory.parse_timestamp(t),
        other => memory.parse_timestamp(&other.to_string()),
    }
}

/// `{"query": ..., "ids": [...], "scores": [...], "time": ...}` on one line; `time` is the
/// range the query's text named (the core's JSON shape), when it named one.
fn hits_json(query: &serde_json::Value, hits: &[SearchHit], time: Option<&TimeExpr>) -> String {
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    let scores: Vec<f32> = hits.iter().map(|h| h.score).collect();
    let mut line = json!({ "query": query, "ids": ids, "scores": scores });
    if let Some(t) = time {
        line["time"] = serde_json::to_value(shape::time_expr(t)).unwrap_or_default();
    }
    line.to_string()
}

/// Runs `memdag grep`.
pub fn grep(
    memory: &mut Memory,
    pattern: &str,
    case_insensitive: bool,
    fields: &[String],
    user: Option<String>,
    as_json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let mut q = grep_query(pattern);
    q.case_insensitive = case_insensitive;
    q.fields = fields.to_vec();
    q.filter.user = user;
    for m in memory.grep(&q)? {
        if as_json {
            let line = json!({ "id": m.id, "field": m.field, "line": m.line,
                               "start": m.start, "end": m.end, "text": m.text });
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{}  {}:{}  {}", m.id, m.field, m.line, m.text)?;
        }
    }
    Ok(())
}
