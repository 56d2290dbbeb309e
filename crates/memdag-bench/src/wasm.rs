//! The wasm face of the benchmark, for `tests/bench/run-wasm.mjs` under Node. The script
//! passes the LoCoMo files as text; results come back as JSON text.

use wasm_bindgen::prelude::*;

use crate::corpus::{synthetic_texts, Rng};
use crate::locomo::{self, Conversation};
use crate::{run_size, table, Options, SizeReport};

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: milliseconds with sub-millisecond resolution.
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

fn clock() -> f64 {
    now()
}

fn conversations(turns: Vec<String>, questions: Vec<String>) -> Vec<Conversation> {
    turns
        .into_iter()
        .zip(questions)
        .map(|(t, q)| Conversation {
            turns_jsonl: t,
            questions_jsonl: q,
        })
        .collect()
}

/// Runs the workload at `n` records; `turns[i]`/`questions[i]` are the jsonl texts of one
/// LoCoMo conversation (empty lists: a synthetic corpus). Returns one JSON object.
#[wasm_bindgen]
pub fn run_size_json(
    n: u32,
    turns: Vec<String>,
    questions: Vec<String>,
    vector_queries: u32,
    rebuild: bool,
) -> String {
    let convs = conversations(turns, questions);
    let (base, qs) = if convs.is_empty() {
        let mut rng = Rng(1);
        (
            synthetic_texts(&mut rng, 5000),
            synthetic_texts(&mut rng, 300),
        )
    } else {
        (locomo::turn_texts(&convs), locomo::question_texts(&convs))
    };
    let opts = Options {
        vector_queries: vector_queries as usize,
        measure_rebuild: rebuild,
        ..Options::default()
    };
    let r = run_size(n as usize, &base, &qs, &opts, &clock, "wasm");
    serde_json::to_string(&r).unwrap_or_default()
}

/// LoCoMo evidence recall as JSON (a list of rows), or `{"error": ...}`.
#[wasm_bindgen]
pub fn locomo_json(turns: Vec<String>, questions: Vec<String>) -> String {
    match locomo::evaluate(&conversations(turns, questions)) {
        Ok(rows) => serde_json::to_string(&rows).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// The Markdown table of size reports given as a JSON array.
#[wasm_bindgen]
pub fn sizes_table(reports_json: &str) -> String {
    let reports: Vec<SizeReport> = serde_json::from_str(reports_json).unwrap_or_default();
    table::sizes(&reports)
}

/// The Markdown table of LoCoMo rows given as JSON.
#[wasm_bindgen]
pub fn recall_table(rows_json: &str) -> String {
    let rows: Vec<locomo::Recall> = serde_json::from_str(rows_json).unwrap_or_default();
    table::recall(&rows)
}
