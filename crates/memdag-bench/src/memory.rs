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
#[derive(Debug, Clone, Default, Serialize)]
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

/// One add with dedup and conflict checks: the p50 and p99 of `adds` adds into a store of
/// `turns` turns and `items` items, in ms.
pub fn add_latency(turns: usize, items: usize, adds: usize, clock: &dyn Fn() -> f64) -> (f64, f64) {
    let mut store = Store::new();
    store.set_auto_embed(true);
    let words = [
        "tea", "maps", "boats", "rust", "jazz", "ink", "owls", "snow", "kites", "figs", "lamps",
        "trains", "pears", "clouds", "drums", "ferns",
    ];
    for i in 0..turns {
        store
            .add_turn(NewTurn {
                thread: format!("t{}", i / 20),
                user: format!("u{}", i % 50),
                created_at: 1_700_000_000_000 + i as i64 * 1000,
                input: format!(
                    "turn {i} about {} and {}",
                    words[i % 16],
                    words[(i / 16) % 16]
                ),
                output: format!("reply {i}"),
                ..NewTurn::default()
            })
            .expect("add turn");
    }
    let item = |i: usize| NewItem {
        kind: Some(if i.is_multiple_of(3) {
            ItemKind::Tool
        } else {
            ItemKind::Personal
        }),
        user: format!("u{}", i % 50),
        text: format!(
            "likes {} with {} number {i}",
            words[i % 16],
            words[(i / 16) % 16]
        ),
        relation: i.is_multiple_of(2).then(|| "likes".into()),
        object: i
            .is_multiple_of(2)
            .then(|| format!("{} {i}", words[i % 16])),
        created_at: 1_800_000_000_000 + i as i64,
        ..NewItem::default()
    };
    for i in 0..items {
        store.add_item(item(i)).expect("add item");
    }
    let mut times = Vec::with_capacity(adds);
    for i in 0..adds {
        let t = clock();
        store.add_item(item(items + i)).expect("add item");
        times.push(clock() - t);
    }
    times.sort_by(f64::total_cmp);
    let pick = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (pick(0.5), pick(0.99))
}
