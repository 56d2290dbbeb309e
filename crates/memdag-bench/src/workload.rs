//! The timed workload for one corpus size. Time comes from a clock closure (milliseconds), so
//! the same code runs natively (`std::time::Instant`) and in wasm (`performance.now()`).

use std::collections::BTreeMap;

use memdag_core::recall::RecallQuery;
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{Change, NewTurn, Store};
use serde::{Deserialize, Serialize};

use crate::corpus::{replicated, vector_corpus};

/// Vector dimension of the generated corpus.
pub const DIM: usize = 384;
/// Cluster centres and noise of the generated vectors.
pub const CENTRES: usize = 200;
pub const SIGMA: f64 = 0.06;
/// Threads the generated turns are spread over (one user).
pub const THREADS: usize = 50;
/// The fixed seed of the corpus.
pub const SEED: u64 = 0x6d65_6d64_6167_2026;

/// A clock in milliseconds.
pub type Clock<'a> = &'a dyn Fn() -> f64;

/// What the benchmark measures at one size. Field names are the issue's.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SizeReport {
    pub records: usize,
    pub ingest_per_s: f64,
    pub bm25_p50_ms: f64,
    pub bm25_p99_ms: f64,
    pub vector_p50_ms: f64,
    pub vector_p99_ms: f64,
    pub hybrid_p50_ms: f64,
    pub hybrid_p99_ms: f64,
    /// Mode-1 recall with a 2,000-token budget: thread, user and the question as query text.
    pub recall_p50_ms: f64,
    pub recall_p99_ms: f64,
    pub add_p99_ms: f64,
    pub vector_recall_at_10: f64,
    pub index_bytes_per_record: f64,
    /// `index_bytes_per_record` by part (see `SearchIndex::heap_parts`).
    pub index_parts: Vec<(String, f64)>,
    /// How the store kept its vectors (`f32`, `int8`, `int8+f32`).
    pub precision: String,
    /// Opening the stored memory (one bulk segment and 100 single-add segments, merged as
    /// they come) with its persisted graph: the first open of the process.
    pub load_ms: f64,
    /// The median of [`LOAD_RUNS`] - 1 opens after it, in memory the first one used.
    pub load_warm_ms: f64,
    /// Opening a format-v1 image of it without the graph keys, so the graph is rebuilt (for
    /// the decision to persist the graph).
    pub rebuild_load_ms: f64,
    /// Stored bytes per record (keys and values), after the bulk write and the 100 adds.
    pub stored_bytes_per_record: f64,
    /// Keys written by one add into the store (its own change set): mean of 100 adds.
    pub keys_per_add: f64,
    /// Bytes written by one add, mean of the same 100 adds.
    pub bytes_per_add: f64,
    pub exact_p50_ms: f64,
    /// The context pipeline's one call before a turn on this store, by the rules: the median
    /// of [`crate::prepare::PREPARE_CALLS`] calls with a 42-message conversation (see
    /// [`crate::prepare`]). Timed last, after the opens, as it writes blobs and a summary.
    pub prepare_p50_ms: f64,
    pub runtime: String,
    pub seed: u64,
    pub bm25_queries: usize,
    pub vector_queries: usize,
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct Options {
    pub vector_queries: usize,
    /// Timed passes over the text queries (after one warm-up pass).
    pub text_passes: usize,
    /// Also time a load that rebuilds the graph.
    pub measure_rebuild: bool,
    /// Give the records their vectors (off: a text-only store, to time the text index alone).
    pub with_vectors: bool,
    /// How the store keeps its vectors, and how many train the int8 steps.
    pub precision: memdag_core::index::vecstore::Precision,
    pub train: u32,
}

impl Options {
    /// The vector settings of the stores built.
    pub fn vector_settings(&self) -> memdag_core::index::vecstore::VectorSettings {
        memdag_core::index::vecstore::VectorSettings {
            precision: self.precision,
            train: self.train,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            vector_queries: 500,
            text_passes: 2,
            measure_rebuild: true,
            with_vectors: true,
            precision: Default::default(),
            train: memdag_core::index::vecstore::TRAIN as u32,
        }
    }
}

/// Opens timed: the first is `load_ms`, the median of the others `load_warm_ms`.
pub const LOAD_RUNS: usize = 5;

/// Single adds timed after the bulk write (`keys_per_add`).
pub const ADDS_AFTER: usize = 100;

/// The format-v1 image of a store without its graph keys: loading it rebuilds the graph.
fn v1_image_without_graph(store: &Store) -> Vec<(String, Vec<u8>)> {
    use memdag_core::codec;
    let mut out: Vec<(String, Vec<u8>)> = store
        .iter()
        .map(|r| {
            (
                codec::record_key(&r.id),
                codec::encode_record(r).expect("encode"),
            )
        })
        .collect();
    out.push((
        "meta".into(),
        codec::encode_meta(&store.meta()).expect("encode"),
    ));
    out
}

/// Applies a change set to the host's map of stored values, as every host does: a value is
/// written, a `None` deletes its key.
pub fn apply_changes(stored: &mut BTreeMap<String, Vec<u8>>, changes: Vec<Change>) {
    for c in changes {
        match c.value {
            Some(v) => stored.insert(c.key, v),
            None => stored.remove(&c.key),
        };
    }
}

/// The p-th percentile (0..=100) of unsorted samples.
pub fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// A store built for the workload, with its query vectors and the ingest timings.
pub struct Built {
    pub store: Store,
    /// The vector queries (generated after the record vectors, from the same seed).
    pub queries: Vec<Vec<f32>>,
    pub records: usize,
    /// Wall time of all the adds (the corpus is generated before the clock starts).
    pub ingest_ms: f64,
    adds: Vec<f64>,
}

/// The text of a BM25 query, as the workload asks it.
pub fn bm25_query(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        mode: SearchMode::Bm25,
        ..Default::default()
    }
}

/// A vector query, as the workload asks it (`ef` None: the default breadth).
pub fn vector_query(v: &[f32], ef: Option<usize>) -> SearchQuery {
    SearchQuery {
        embedding: Some(v.to_vec()),
        mode: SearchMode::Vector,
        ef,
        ..Default::default()
    }
}

/// A hybrid query, as the workload asks it.
pub fn hybrid_query(text: &str, v: &[f32]) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        embedding: Some(v.to_vec()),
        ..Default::default()
    }
}

/// The record index `i` of a slot (records are added as `r<i>`).
pub fn record_index(store: &Store, slot: u32) -> Option<u32> {
    store.slot(slot)?.id.strip_prefix('r')?.parse().ok()
}

/// Builds the store of `n` records whose text comes from `base` (replicated) and whose vectors
/// are generated, timing every add.
pub fn build(n: usize, base: &[String], opts: &Options, clock: Clock) -> Built {
    let (vectors, queries) = if opts.with_vectors {
        vector_corpus(SEED, CENTRES, DIM, SIGMA, n, opts.vector_queries)
    } else {
        (vec![Vec::new(); n], Vec::new())
    };
    let mut store = Store::new();
    store
        .set_vector_settings(opts.vector_settings())
        .expect("vector settings");
    let mut adds = Vec::with_capacity(n);
    let start = clock();
    for (i, v) in vectors.into_iter().enumerate() {
        let turn = NewTurn {
            id: Some(format!("r{i}")),
            thread: format!("t{}", i % THREADS),
            user: "u".into(),
            created_at: i as i64,
            input: replicated(base, i),
            embedding: opts.with_vectors.then_some(v),
            ..Default::default()
        };
        let t = clock();
        store.add_turn(turn).expect("add");
        adds.push(clock() - t);
    }
    let ingest_ms = clock() - start;
    Built {
        store,
        queries,
        records: n,
        ingest_ms,
        adds,
    }
}

/// Runs the workload on `n` records whose text comes from `base` (replicated) and whose
/// vectors are generated; `questions` are the text queries.
pub fn run_size(
    n: usize,
    base: &[String],
    questions: &[String],
    opts: &Options,
    clock: Clock,
    runtime: &str,
) -> SizeReport {
    let mut built = build(n, base, opts, clock);
    measure(&mut built, questions, opts, clock, runtime)
}

/// Times the queries on a built store, then a save and two loads (the store stays usable).
pub fn measure(
    built: &mut Built,
    questions: &[String],
    opts: &Options,
    clock: Clock,
    runtime: &str,
) -> SizeReport {
    let n = built.records;
    let store = &built.store;
    let vqs = &built.queries;
    let time = |q: &SearchQuery| {
        let t = clock();
        let hits = store.search(q).expect("search");
        (clock() - t, hits)
    };
    for q in questions {
        time(&bm25_query(q));
    }
    let mut bm25 = Vec::new();
    for _ in 0..opts.text_passes {
        bm25.extend(questions.iter().map(|q| time(&bm25_query(q)).0));
    }
    let mut vector = Vec::new();
    let mut exact = Vec::new();
    let (mut found, mut total) = (0usize, 0usize);
    for v in vqs {
        vector.push(time(&vector_query(v, None)).0);
        // The graph's recall against the exact scan: nearest neighbours alone, no context.
        let hits = store
            .search(&SearchQuery {
                context: 0.0,
                thread_scope: 0.0,
                ..vector_query(v, None)
            })
            .expect("search");
        let t = clock();
        let truth = store.search_index().vectors().exact(v, 10);
        exact.push(clock() - t);
        total += truth.len();
        found += truth
            .iter()
            .filter(|(slot, _)| {
                hits.iter()
                    .any(|h| Some(h.id.as_str()) == store.slot(*slot).map(|r| r.id.as_str()))
            })
            .count();
    }
    let mut hybrid = Vec::new();
    for (i, v) in vqs.iter().enumerate() {
        let text = questions
            .get(i % questions.len().max(1))
            .cloned()
            .unwrap_or_default();
        hybrid.push(time(&hybrid_query(&text, v)).0);
    }
    let mut recall = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let query = RecallQuery {
            thread: format!("t{}", i % THREADS),
            user: Some("u".into()),
            query_text: Some(q.clone()),
            budget_tokens: 2000,
            ..Default::default()
        };
        let t = clock();
        let block = store.recall_view(&query).expect("recall");
        recall.push(clock() - t);
        assert!(block.tokens <= 2000);
    }
    let index_bytes = store.search_index().heap_bytes();
    let index_parts: Vec<(String, f64)> = store
        .search_index()
        .heap_parts()
        .into_iter()
        .map(|(name, bytes)| (name.to_string(), bytes as f64 / n as f64))
        .collect();
    let precision = serde_json::to_value(store.search_index().vectors().precision())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();

    let mut stored: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let write = |stored: &mut BTreeMap<String, Vec<u8>>, changes: Vec<Change>| {
        let (mut keys, mut bytes) = (0usize, 0usize);
        for c in &changes {
            keys += 1;
            bytes += c.key.len() + c.value.as_ref().map_or(0, Vec::len);
        }
        apply_changes(stored, changes);
        (keys, bytes)
    };
    write(&mut stored, built.store.take_changes().expect("changes"));
    // Single adds into the grown store, each flushed on its own, as an agent does per turn.
    let (mut add_keys, mut add_bytes) = (0usize, 0usize);
    for i in 0..ADDS_AFTER {
        let turn = NewTurn {
            id: Some(format!("late{i}")),
            thread: format!("t{}", i % THREADS),
            user: "u".into(),
            created_at: (n + i) as i64,
            input: questions
                .get(i % questions.len().max(1))
                .cloned()
                .unwrap_or_default(),
            embedding: vqs.get(i % vqs.len().max(1)).cloned(),
            ..Default::default()
        };
        built.store.add_turn(turn).expect("add");
        let (k, b) = write(&mut stored, built.store.take_changes().expect("changes"));
        add_keys += k;
        add_bytes += b;
    }
    let stored_bytes: usize = stored.iter().map(|(k, v)| k.len() + v.len()).sum();
    // The first open pays for memory the process never touched before (in wasm, fresh pages
    // of linear memory): that is what an app opening its store once pays, and `load_ms`. The
    // opens after it reuse that memory; their median is `load_warm_ms`.
    let mut loads = Vec::with_capacity(LOAD_RUNS);
    for _ in 0..LOAD_RUNS {
        let t = clock();
        let loaded =
            Store::load(stored.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).expect("load");
        loads.push(clock() - t);
        assert_eq!(loaded.len(), n + ADDS_AFTER);
        drop(loaded);
    }
    let load_ms = loads[0];
    let load_warm_ms = percentile(&loads[1..], 50.0);
    let rebuild_load_ms = if opts.measure_rebuild {
        let image = v1_image_without_graph(&built.store);
        let t = clock();
        let rebuilt =
            Store::load(image.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).expect("load");
        let ms = clock() - t;
        drop(rebuilt);
        ms
    } else {
        0.0
    };
    let n_after = (n + ADDS_AFTER) as f64;
    let now = (n + ADDS_AFTER) as i64;
    let prepare = crate::prepare::prepare_times(&mut built.store, "t0", "u", now, clock);

    SizeReport {
        records: n,
        ingest_per_s: n as f64 / (built.ingest_ms / 1000.0),
        bm25_p50_ms: percentile(&bm25, 50.0),
        bm25_p99_ms: percentile(&bm25, 99.0),
        vector_p50_ms: percentile(&vector, 50.0),
        vector_p99_ms: percentile(&vector, 99.0),
        hybrid_p50_ms: percentile(&hybrid, 50.0),
        hybrid_p99_ms: percentile(&hybrid, 99.0),
        recall_p50_ms: percentile(&recall, 50.0),
        recall_p99_ms: percentile(&recall, 99.0),
        add_p99_ms: percentile(&built.adds, 99.0),
        vector_recall_at_10: found as f64 / total.max(1) as f64,
        index_bytes_per_record: index_bytes as f64 / n as f64,
        index_parts,
        precision,
        load_ms,
        load_warm_ms,
        rebuild_load_ms,
        stored_bytes_per_record: stored_bytes as f64 / n_after,
        keys_per_add: add_keys as f64 / ADDS_AFTER as f64,
        bytes_per_add: add_bytes as f64 / ADDS_AFTER as f64,
        exact_p50_ms: percentile(&exact, 50.0),
        prepare_p50_ms: percentile(&prepare, 50.0),
        runtime: runtime.into(),
        seed: SEED,
        bm25_queries: bm25.len(),
        vector_queries: vector.len(),
    }
}
