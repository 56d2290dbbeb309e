//! grep over the workload's store: the p50 of a few patterns a user or an agent would type,
//! each one of the paths `memdag_core::search::grep` takes.
//!
//! The LoCoMo turns hold curly quotes and other non-ASCII text, so a pattern with a Unicode
//! word boundary (`\b`) sends part of the store to grep's fallback engine, and its literal
//! check decides how much (see `src/search/grep.rs` in memdag-core).

use memdag_core::search::GrepQuery;
use memdag_core::Store;
use serde::Serialize;

use crate::workload::{percentile, Clock};

/// The patterns: plain literals, word-bounded ones (the fallback on non-ASCII text, with a
/// literal to check at the start or only at the end), case-insensitive, an alternation, one
/// with no literal at all, and one that matches nothing.
pub const PATTERNS: [(&str, bool); 7] = [
    ("camping", false),
    (r"\bcamping\b", false),
    (r"\w+ing\b adoption", false),
    ("pottery class", true),
    ("dog|cat|horse|painting", false),
    (r"\b\w{12,}\b", false),
    ("zzqx", false),
];

/// One pattern's figures.
#[derive(Debug, Serialize)]
pub struct GrepRow {
    pub records: usize,
    pub pattern: String,
    pub case_insensitive: bool,
    pub matches: usize,
    pub p50_ms: f64,
}

/// Times each pattern of [`PATTERNS`] over `store` (`runs` greps each, up to 10,000 matches).
pub fn grep_times(store: &Store, runs: usize, clock: Clock) -> Vec<GrepRow> {
    PATTERNS
        .iter()
        .map(|&(pattern, case_insensitive)| {
            let q = GrepQuery {
                pattern: pattern.into(),
                case_insensitive,
                max_matches: 10_000,
                ..Default::default()
            };
            let mut matches = 0;
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let start = clock();
                matches = store.grep(&q).map_or(0, |m| m.len());
                times.push(clock() - start);
            }
            GrepRow {
                records: store.len(),
                pattern: pattern.into(),
                case_insensitive,
                matches,
                p50_ms: percentile(&times, 50.0),
            }
        })
        .collect()
}

/// The Markdown table of `rows`.
pub fn table(rows: &[GrepRow]) -> String {
    let mut s =
        String::from("| records | pattern | (?i) | matches | p50 ms |\n|---|---|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {:.3} |\n",
            r.records,
            r.pattern.replace('|', "\\|"),
            if r.case_insensitive { "yes" } else { "no" },
            r.matches,
            r.p50_ms
        ));
    }
    s
}
