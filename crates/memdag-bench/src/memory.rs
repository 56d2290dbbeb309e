//! Long-term memory quality and speed: the rule-based extractor on the labelled sets of
//! `tests/data/memory/` (see its README for the format and the matching rules), and one item
//! add with its dedup and conflict checks in a large store.
//!
//! Each conversation is learned from an empty store, turn by turn as `memdag ingest
//! --extract` does; then its active items are matched against the expected ones.

use std::collections::BTreeMap;
use std::path::Path;

use memdag_core::item::{ItemKind, NewItem};
use memdag_core::memory::{ExtractQuery, ItemQuery};
use memdag_core::{NewTurn, Step, Store};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Conversation {
    id: String,
    lang: String,
    user: String,
    turns: Vec<Turn>,
    #[serde(default)]
    expect: Vec<Expected>,
    #[serde(default)]
    gone: Vec<Expected>,
}

#[derive(Deserialize)]
struct Turn {
    thread: String,
    created_at: String,
    input: String,
    output: String,
    #[serde(default)]
    steps: Vec<Step>,
}

#[derive(Deserialize)]
struct Expected {
    kind: ItemKind,
    keywords: Vec<String>,
}

/// The quality of the extractor on one set, in total and by language.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Quality {
    pub conversations: usize,
    pub active_items: usize,
    pub matched_items: usize,
    pub expected: usize,
    pub found: usize,
    pub precision: f64,
    pub recall: f64,
    /// Active items beyond the first that match the same expected item.
    pub duplicates: usize,
    /// `gone` entries (superseded or retracted values) still active.
    pub superseded_active: usize,
    /// Ids of conversations with a wrong or missing item, for reading.
    pub misses: Vec<String>,
}

impl Quality {
    fn finish(mut self) -> Self {
        self.precision = ratio(self.matched_items, self.active_items);
        self.recall = ratio(self.found, self.expected);
        self
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

fn fold(s: &str) -> String {
    // NFKC is what the README asks; the sets are plain text where lower-casing is the rest.
    s.to_lowercase()
}

fn matches(kind: ItemKind, text: &str, e: &Expected) -> bool {
    kind == e.kind && e.keywords.iter().all(|k| fold(text).contains(&fold(k)))
}

/// Scores the extractor on a set file: (all, English, Chinese).
pub fn score(path: &Path) -> Result<(Quality, Quality, Quality), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    score_text(&text)
}

/// Scores the extractor on the JSONL text of a set: (all, English, Chinese).
pub fn score_text(text: &str) -> Result<(Quality, Quality, Quality), String> {
    let mut by_lang: BTreeMap<String, Quality> = BTreeMap::new();
    let mut all = Quality::default();
    for (n, line) in text.lines().enumerate() {
        let c: Conversation =
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let q = conversation(&c)?;
        for target in [&mut all, by_lang.entry(c.lang.clone()).or_default()] {
            target.conversations += 1;
            target.active_items += q.active_items;
            target.matched_items += q.matched_items;
            target.expected += q.expected;
            target.found += q.found;
            target.duplicates += q.duplicates;
            target.superseded_active += q.superseded_active;
            target.misses.extend(q.misses.iter().cloned());
        }
    }
    let en = by_lang.remove("en").unwrap_or_default().finish();
    let zh = by_lang.remove("zh").unwrap_or_default().finish();
    Ok((all.finish(), en, zh))
}

fn conversation(c: &Conversation) -> Result<Quality, String> {
    let mut store = Store::new();
    for (i, t) in c.turns.iter().enumerate() {
        let id = format!("{}-{i}", c.id);
        store
            .add_turn(NewTurn {
                id: Some(id.clone()),
                thread: t.thread.clone(),
                user: c.user.clone(),
                created_at: iso_ms(&t.created_at).ok_or("bad created_at")?,
                input: t.input.clone(),
                output: t.output.clone(),
                steps: t.steps.clone(),
                ..NewTurn::default()
            })
            .map_err(|e| e.to_string())?;
        store
            .extract(&ExtractQuery {
                ids: vec![id],
                ..ExtractQuery::default()
            })
            .map_err(|e| e.to_string())?;
    }
    let active = store
        .list_items(&ItemQuery {
            user: Some(c.user.clone()),
            limit: 10_000,
            ..ItemQuery::default()
        })
        .map_err(|e| e.to_string())?;
    let mut q = Quality {
        active_items: active.len(),
        expected: c.expect.len(),
        ..Quality::default()
    };
    for item in &active {
        if c.expect
            .iter()
            .any(|e| matches(item.meta.kind, &item.text, e))
        {
            q.matched_items += 1;
        }
    }
    for e in &c.expect {
        let n = active
            .iter()
            .filter(|i| matches(i.meta.kind, &i.text, e))
            .count();
        if n > 0 {
            q.found += 1;
        }
        q.duplicates += n.saturating_sub(1);
    }
    for g in &c.gone {
        if active.iter().any(|i| matches(i.meta.kind, &i.text, g)) {
            q.superseded_active += 1;
        }
    }
    let gone = c
        .gone
        .iter()
        .any(|g| active.iter().any(|i| matches(i.meta.kind, &i.text, g)));
    if q.matched_items < q.active_items || q.found < q.expected || q.duplicates > 0 || gone {
        let got: Vec<String> = active
            .iter()
            .map(|i| format!("{}:{}", i.meta.kind.name(), i.text))
            .collect();
        q.misses.push(format!("{} -> {got:?}", c.id));
    }
    Ok(q)
}

/// Milliseconds of an RFC 3339 UTC time (`2024-01-02T09:00:00Z`).
fn iso_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let days = memdag_core::time::civil::days_from_civil(y, m as u32, d as u32);
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000)
}

/// The speed rows of long-term memory, working memory, the graph and purge.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SpeedReport {
    pub runtime: String,
    /// Turns and items of the store the adds went into.
    pub turns: usize,
    pub items: usize,
    /// One item add with its dedup and conflict checks (vectors included).
    pub memory_add_p50_ms: f64,
    pub memory_add_p99_ms: f64,
    /// Shortest paths between random entities of a graph of `facts` facts.
    pub facts: usize,
    pub path_p50_ms: f64,
    pub path_p99_ms: f64,
    /// One working-memory change (set or push, history growing to its cap).
    pub work_update_p50_ms: f64,
    pub work_update_p99_ms: f64,
    /// Purging `expired` expired items from the store of `turns` turns.
    pub expired: usize,
    pub purge_ms: f64,
}

/// Measures the speed rows: a store of `turns` turns (the workload's texts and vectors) and
/// `items` items for the adds, a graph of `facts` facts, `expired` items to purge.
pub fn speed(
    base: &[String],
    turns: usize,
    items: usize,
    facts: usize,
    clock: &dyn Fn() -> f64,
    runtime: &str,
) -> SpeedReport {
    use crate::corpus::{vector_corpus, Rng};
    use crate::workload::{build, percentile, Options, CENTRES, DIM, SEED, SIGMA};
    let mut r = SpeedReport {
        runtime: runtime.into(),
        turns,
        items,
        facts,
        expired: items,
        ..SpeedReport::default()
    };
    let opts = Options {
        vector_queries: 0,
        ..Options::default()
    };
    let mut store = build(turns, base, &opts, clock).store;
    let adds = 200;
    let (vectors, _) = vector_corpus(SEED ^ 7, CENTRES, DIM, SIGMA, items + adds, 0);
    let users = 50;
    let item = |i: usize, v: &[f32]| NewItem {
        kind: Some(match i % 3 {
            0 => ItemKind::Personal,
            1 => ItemKind::Procedural,
            _ => ItemKind::Tool,
        }),
        user: format!("u{}", i % users),
        text: format!("{} (memory {i})", base[i % base.len()]),
        relation: i.is_multiple_of(4).then(|| "likes".into()),
        object: i.is_multiple_of(4).then(|| format!("thing {i}")),
        created_at: 1_800_000_000_000 + i as i64,
        ttl_ms: Some(1000),
        embedding: Some(v.to_vec()),
        ..NewItem::default()
    };
    for (i, v) in vectors.iter().take(items).enumerate() {
        store.add_item(item(i, v)).expect("add item");
    }
    let mut times = Vec::with_capacity(adds);
    for (i, v) in vectors.iter().enumerate().skip(items) {
        let new = item(i, v);
        let t = clock();
        store.add_item(new).expect("add item");
        times.push(clock() - t);
    }
    r.memory_add_p50_ms = percentile(&times, 50.0);
    r.memory_add_p99_ms = percentile(&times, 99.0);

    // Working memory: sets and pushes on one thread.
    let mut times = Vec::new();
    for i in 0..1000 {
        let u = memdag_core::work::WorkUpdate {
            thread: "t0".into(),
            field: if i % 2 == 0 {
                "goal".into()
            } else {
                "tasks".into()
            },
            op: if i % 2 == 0 {
                memdag_core::work::WorkOp::Set
            } else {
                memdag_core::work::WorkOp::Push
            },
            value: Some(serde_json::json!(format!("step {i}"))),
            at: 1_800_000_000_000 + i,
            user: Some("u0".into()),
        };
        if i % 100 == 99 {
            // Keep the task list from growing past its size cap.
            store.clear_work("t0", Some("u0")).expect("clear work");
        }
        let t = clock();
        store.update_work(&u).expect("work");
        times.push(clock() - t);
    }
    r.work_update_p50_ms = percentile(&times, 50.0);
    r.work_update_p99_ms = percentile(&times, 99.0);

    // Purge: every item expired long ago.
    let t = clock();
    let purged = store
        .purge(&memdag_core::erase::PurgeQuery {
            now: 1_900_000_000_000,
            expired: true,
            ..Default::default()
        })
        .expect("purge");
    r.purge_ms = clock() - t;
    r.expired = purged.items.len();

    // The graph: `facts` facts over facts/2 entities, random edges.
    let mut g = Store::new();
    let mut rng = Rng(SEED);
    let entities = (facts / 2).max(2);
    for i in 0..facts {
        let a = rng.next_u64() as usize % entities;
        let b = rng.next_u64() as usize % entities;
        g.add_item(NewItem {
            kind: Some(ItemKind::Fact),
            user: "u".into(),
            text: format!("e{a} → e{b}"),
            subject: Some(format!("e{a}")),
            relation: Some(format!("r{}", i % 7)),
            object: Some(format!("e{b}")),
            created_at: i as i64,
            ..NewItem::default()
        })
        .expect("fact");
    }
    let q = memdag_core::graph::GraphQuery::default();
    let mut times = Vec::new();
    for _ in 0..200 {
        let a = rng.next_u64() as usize % entities;
        let b = rng.next_u64() as usize % entities;
        let t = clock();
        let _ = g
            .path(&format!("e{a}"), &format!("e{b}"), 4, &q)
            .expect("path");
        times.push(clock() - t);
    }
    r.path_p50_ms = percentile(&times, 50.0);
    r.path_p99_ms = percentile(&times, 99.0);
    r
}

/// The speed rows as a table, one row per report (native and wasm side by side).
pub fn speed_table(reports: &[SpeedReport]) -> String {
    let mut t = String::from(
        "| runtime | turns | items | memory_add p50 / p99 ms | facts | path p50 / p99 ms | work_update p50 / p99 ms | purge_ms (expired) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        t.push_str(&format!(
            "| {} | {} | {} | {:.3} / {:.3} | {} | {:.3} / {:.3} | {:.3} / {:.3} | {:.1} ({}) |\n",
            r.runtime,
            r.turns,
            r.items,
            r.memory_add_p50_ms,
            r.memory_add_p99_ms,
            r.facts,
            r.path_p50_ms,
            r.path_p99_ms,
            r.work_update_p50_ms,
            r.work_update_p99_ms,
            r.purge_ms,
            r.expired
        ));
    }
    t
}
