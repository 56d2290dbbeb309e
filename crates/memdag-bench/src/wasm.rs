//! The wasm face of the benchmark, for `tests/bench/run-wasm.mjs` under Node. The script
//! passes the LoCoMo files as text; results come back as JSON text.

use memdag_core::export::snapshot;
use wasm_bindgen::prelude::*;

use crate::corpus::{replicated, synthetic_texts, vector_corpus, Rng};
use crate::locomo::{self, Conversation};
use crate::workload::{
    bm25_query, build, hybrid_query, measure, record_index, vector_query, Built, CENTRES, DIM,
    SEED, SIGMA,
};
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
        .enumerate()
        .map(|(i, (t, q))| Conversation {
            name: format!("conversation {}", i + 1),
            turns_jsonl: t,
            questions_jsonl: q,
        })
        .collect()
}

/// The base texts and the text queries: the LoCoMo turns and questions, or synthetic ones.
fn texts(convs: &[Conversation]) -> (Vec<String>, Vec<String>) {
    if convs.is_empty() {
        let mut rng = Rng(1);
        (
            synthetic_texts(&mut rng, 5000),
            synthetic_texts(&mut rng, 300),
        )
    } else {
        (locomo::turn_texts(convs), locomo::question_texts(convs))
    }
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
    precision: String,
) -> Result<String, JsValue> {
    let (base, qs) = texts(&conversations(turns, questions));
    let opts = Options {
        vector_queries: vector_queries as usize,
        measure_rebuild: rebuild,
        precision: precision_named(&precision)?,
        ..Options::default()
    };
    let r = run_size(n as usize, &base, &qs, &opts, &clock, "wasm");
    Ok(serde_json::to_string(&r).unwrap_or_default())
}

/// The precision named `f32`, `int8` or `int8+f32`; empty: the store's default.
fn precision_named(name: &str) -> Result<memdag_core::index::vecstore::Precision, JsValue> {
    if name.is_empty() {
        return Ok(Default::default());
    }
    serde_json::from_value(serde_json::Value::String(name.to_string()))
        .map_err(|_| JsValue::from_str(&format!("unknown precision {name:?}")))
}

/// `prepare`'s p50 alone at `n` records (see [`crate::prepare`]), on the workload's store
/// built without vector queries, as `{"records", "prepare_p50_ms", "calls", "runtime"}`.
#[wasm_bindgen]
pub fn prepare_json(n: u32, turns: Vec<String>, questions: Vec<String>) -> String {
    let (base, _) = texts(&conversations(turns, questions));
    let opts = Options {
        vector_queries: 0,
        ..Options::default()
    };
    let mut built = build(n as usize, &base, &opts, &clock);
    let times = crate::prepare::prepare_times(&mut built.store, "t0", "u", n as i64, &clock);
    let ms = crate::workload::percentile(&times, 50.0);
    serde_json::json!({
        "records": n,
        "prepare_p50_ms": ms,
        "calls": crate::prepare::PREPARE_CALLS,
        "runtime": "wasm",
    })
    .to_string()
}

/// LoCoMo evidence recall as JSON (a list of rows), or `{"error": ...}`.
#[wasm_bindgen]
pub fn locomo_json(turns: Vec<String>, questions: Vec<String>) -> String {
    match locomo::evaluate(&conversations(turns, questions)) {
        Ok(rows) => serde_json::to_string(&rows).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// What [`seal_run`] measured, and the store it measured.
#[wasm_bindgen]
pub struct SealRun {
    report: String,
    image: Vec<u8>,
}

#[wasm_bindgen]
impl SealRun {
    /// The report, as one JSON object.
    #[wasm_bindgen(getter)]
    pub fn report(&self) -> String {
        self.report.clone()
    }

    /// The store's plain image as an export file (taken once: it is large).
    #[wasm_bindgen(js_name = takeImage)]
    pub fn take_image(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.image)
    }
}

/// Flush and cold open at `n` records, plain and sealed, over `rounds` timed rounds (see
/// [`crate::seal`]), and the store's image for the JS package's side of the benchmark.
#[wasm_bindgen]
pub fn seal_run(n: u32, turns: Vec<String>, questions: Vec<String>, rounds: u32) -> SealRun {
    let (base, _) = texts(&conversations(turns, questions));
    let mut built = build(n as usize, &base, &Options::default(), &clock);
    let r = crate::seal::seal_costs(&mut built.store, rounds as usize, &clock, "wasm");
    SealRun {
        report: serde_json::to_string(&r).unwrap_or_default(),
        image: crate::seal::image(&built.store),
    }
}

/// The Markdown table of seal reports given as a JSON array.
#[wasm_bindgen]
pub fn seal_table(reports_json: &str) -> String {
    let reports: Vec<crate::seal::SealReport> =
        serde_json::from_str(reports_json).unwrap_or_default();
    crate::seal::table(&reports)
}

/// The Markdown table of size reports given as a JSON array.
#[wasm_bindgen]
pub fn sizes_table(reports_json: &str) -> String {
    let reports: Vec<SizeReport> = serde_json::from_str(reports_json).unwrap_or_default();
    table::sizes(&reports)
}

/// The Markdown table of memory a record by part, of size reports given as JSON.
#[wasm_bindgen]
pub fn bytes_table(reports_json: &str) -> String {
    let reports: Vec<SizeReport> = serde_json::from_str(reports_json).unwrap_or_default();
    table::memory(&reports)
}

/// The Markdown table of LoCoMo rows given as JSON.
#[wasm_bindgen]
pub fn recall_table(rows_json: &str) -> String {
    let rows: Vec<locomo::Recall> = serde_json::from_str(rows_json).unwrap_or_default();
    table::recall(&rows)
}

/// The record and query vectors of the workload at `n` records, flat (`(n + queries) · 384`
/// floats, records first): the very vectors [`Bench`] and `run_size_json` index, for the peers.
#[wasm_bindgen]
pub fn corpus_vectors(n: u32, queries: u32) -> Vec<f32> {
    let (records, qs) = vector_corpus(SEED, CENTRES, DIM, SIGMA, n as usize, queries as usize);
    records.into_iter().chain(qs).flatten().collect()
}

/// The texts of the workload's `n` records (the base texts replicated, as the store holds them).
#[wasm_bindgen]
pub fn corpus_texts(n: u32, turns: Vec<String>, questions: Vec<String>) -> Vec<String> {
    let (base, _) = texts(&conversations(turns, questions));
    (0..n as usize).map(|i| replicated(&base, i)).collect()
}

/// The text queries of the workload (the LoCoMo questions, or synthetic ones).
#[wasm_bindgen]
pub fn corpus_questions(turns: Vec<String>, questions: Vec<String>) -> Vec<String> {
    texts(&conversations(turns, questions)).1
}

/// A built workload store kept alive, so Node can time single queries against it side by side
/// with the peers (`tests/bench/peers.mjs`), and then take the workload's own report.
#[wasm_bindgen]
pub struct Bench {
    built: Built,
    questions: Vec<String>,
    opts: Options,
    /// The exact ten nearest records of each vector query, from the `f32` corpus.
    truth: std::cell::OnceCell<Vec<Vec<u32>>>,
}

#[wasm_bindgen]
impl Bench {
    /// Builds the workload store at `n` records (same corpus as `run_size_json`); without
    /// `with_vectors` the records get no vectors (a text-only store). `precision` is how the
    /// store keeps its vectors (`f32`, `int8`, `int8+f32`; empty: the default).
    #[wasm_bindgen(constructor)]
    pub fn new(
        n: u32,
        turns: Vec<String>,
        questions: Vec<String>,
        vector_queries: u32,
        rebuild: bool,
        with_vectors: bool,
        precision: String,
    ) -> Result<Bench, JsValue> {
        let (base, qs) = texts(&conversations(turns, questions));
        let precision = precision_named(&precision)?;
        let opts = Options {
            vector_queries: vector_queries as usize,
            measure_rebuild: rebuild,
            with_vectors,
            precision,
            ..Options::default()
        };
        let built = build(n as usize, &base, &opts, &clock);
        Ok(Bench {
            built,
            questions: qs,
            opts,
            truth: Default::default(),
        })
    }

    /// Milliseconds the adds took (the corpus was generated before the clock started).
    pub fn ingest_ms(&self) -> f64 {
        self.built.ingest_ms
    }

    /// Runs the timed workload on the built store: the same JSON as `run_size_json`.
    pub fn report_json(&mut self) -> String {
        let r = measure(&mut self.built, &self.questions, &self.opts, &clock, "wasm");
        serde_json::to_string(&r).unwrap_or_default()
    }

    /// Runs text query `i` in BM25 mode; returns the number of hits.
    pub fn bm25(&self, i: u32) -> u32 {
        let q = bm25_query(&self.questions[i as usize % self.questions.len()]);
        self.built.store.search(&q).map_or(0, |h| h.len() as u32)
    }

    /// Runs vector query `i` (`ef` 0: the default); returns the record indices, best first.
    pub fn vector(&self, i: u32, ef: u32) -> Vec<u32> {
        let v = &self.built.queries[i as usize];
        let q = vector_query(v, (ef > 0).then_some(ef as usize));
        let hits = self.built.store.search(&q).unwrap_or_default();
        hits.iter()
            .filter_map(|h| h.id.strip_prefix('r')?.parse().ok())
            .collect()
    }

    /// Runs vector query `i` through the raw index at width `ef`: the graph walk alone, no
    /// thread context, scope or dedup (see `ann`). Returns the record indices, best first.
    pub fn raw_vector(&self, i: u32, ef: u32) -> Vec<u32> {
        let store = &self.built.store;
        let v = &self.built.queries[i as usize];
        store
            .search_index()
            .vectors()
            .search(v, 10, ef as usize, false, &|_| true)
            .into_iter()
            .filter_map(|(slot, _)| record_index(store, slot))
            .collect()
    }

    /// Runs hybrid query `i` (text `i` modulo the questions, vector `i`); returns the hit count.
    pub fn hybrid(&self, i: u32) -> u32 {
        let text = &self.questions[i as usize % self.questions.len()];
        let q = hybrid_query(text, &self.built.queries[i as usize]);
        self.built.store.search(&q).map_or(0, |h| h.len() as u32)
    }

    /// The exact `k` (at most 10) nearest records of vector query `i`, from the `f32` corpus
    /// whatever the store's precision (the recall reference; all queries' at the first call).
    pub fn exact(&self, i: u32, k: u32) -> Vec<u32> {
        let truth = self
            .truth
            .get_or_init(|| crate::ann::truth(self.built.records, &self.built.queries));
        let mut t = truth[i as usize].clone();
        t.truncate(k as usize);
        t
    }

    /// How the store keeps its vectors.
    pub fn precision(&self) -> String {
        serde_json::to_value(self.built.store.search_index().vectors().precision())
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// Heap bytes of the whole search index (text, vectors, graph), per record.
    pub fn index_bytes_per_record(&self) -> f64 {
        self.built.store.search_index().heap_bytes() as f64 / self.built.records as f64
    }

    /// Heap bytes of the inverted index alone, per record.
    pub fn text_bytes_per_record(&self) -> f64 {
        self.built.store.search_index().text().heap_bytes() as f64 / self.built.records as f64
    }

    /// Heap bytes of the vectors and graph alone, per record.
    pub fn vector_bytes_per_record(&self) -> f64 {
        self.built.store.search_index().vectors().heap_bytes() as f64 / self.built.records as f64
    }

    /// Bytes of wasm linear memory (it only grows).
    pub fn wasm_memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }
}

/// The long-term memory rows in wasm: extraction quality on the labelled sets given as JSONL
/// text, and the speed rows at `n` turns (a tenth as many items, `n` facts). One JSON object.
#[wasm_bindgen]
pub fn memory_json(
    n: u32,
    turns: Vec<String>,
    questions: Vec<String>,
    dev: String,
    heldout: String,
) -> String {
    let (base, _) = texts(&conversations(turns, questions));
    let n = n as usize;
    let mut out = serde_json::Map::new();
    for (name, set) in [("dev", dev), ("heldout", heldout)] {
        match crate::memory::score_text(&set) {
            Ok((all, en, zh)) => {
                out.insert(
                    name.into(),
                    serde_json::json!({"all": all, "en": en, "zh": zh}),
                );
            }
            Err(e) => return serde_json::json!({ "error": e }).to_string(),
        }
    }
    let speed = crate::memory::speed(&base, n, n / 10, n, &clock, "wasm");
    out.insert(
        "speed".into(),
        serde_json::to_value(&speed).unwrap_or_default(),
    );
    serde_json::Value::Object(out).to_string()
}

/// The speed rows of reports (a JSON list) as a table.
#[wasm_bindgen]
pub fn memory_table(reports: String) -> String {
    let rs: Vec<crate::memory::SpeedReport> = serde_json::from_str(&reports).unwrap_or_default();
    crate::memory::speed_table(&rs)
}

/// The observation figures (see [`crate::observations`]) of conversations given as their
/// turns and observations JSONL texts, pair by pair; `{"error"}` on bad input.
#[wasm_bindgen]
pub fn observations_json(turns: Vec<String>, observations: Vec<String>) -> String {
    let sets: Vec<(String, String)> = turns.into_iter().zip(observations).collect();
    match crate::observations::run(&sets, &clock, "wasm") {
        Ok(r) => serde_json::to_string(&r).unwrap_or_default(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// The observation figures as one line.
#[wasm_bindgen]
pub fn observations_line(report: String) -> String {
    serde_json::from_str(&report)
        .map(|r| crate::observations::line(&r))
        .unwrap_or_default()
}

/// Opens the store in a snapshot file (`examples/load_profile N PATH` saves one) `runs` times
/// and returns each open's milliseconds: the first pays for fresh memory and cold code, as
/// `load_ms`. For profiling an open in wasm (`node --cpu-prof`); not part of the workload.
#[wasm_bindgen]
pub fn time_opens(image: Vec<u8>, runs: u32) -> Vec<f64> {
    let entries = snapshot::decode_snapshot(&image).expect("a snapshot file");
    drop(image);
    (0..runs)
        .map(|_| {
            let t = clock();
            let store =
                memdag_core::Store::load(entries.iter().map(|(k, v)| (k.as_str(), v.as_slice())))
                    .expect("load");
            let ms = clock() - t;
            drop(store);
            ms
        })
        .collect()
}
