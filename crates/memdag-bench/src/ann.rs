//! The ANN rows: the raw vector index against an exact scan, at several search widths.
//!
//! The workload's vector row ([`crate::workload`]) times what a user gets from
//! `search(mode: vector)`: the graph walk, then thread context, scope and dedup. Those steps
//! change which ten come back, so that row's recall says little about the graph. These rows
//! time [`VectorIndex::search`] alone (no filter, no re-ranking) and count how many of the exact
//! scan's ten nearest it finds, at each `ef`: the figure to set beside hnswlib's.
//!
//! The corpus is the workload's: 384-d unit vectors around 200 centres, from its seed. The
//! reference ten come from the `f32` vectors themselves ([`truth`]), not from the store's own
//! exact scan, which at an int8 precision scans the codes.

use memdag_core::index::vectors::VectorIndex;
use memdag_core::Store;
use serde::{Deserialize, Serialize};

use crate::corpus::true_nearest;
use crate::workload::{percentile, record_index, vector_query, CENTRES, DIM, SEED, SIGMA};

/// The exact ten nearest records of each of the workload's `queries` at `n` records.
pub fn truth(n: usize, queries: &[Vec<f32>]) -> Vec<Vec<u32>> {
    true_nearest(SEED, CENTRES, DIM, SIGMA, n, queries, 10)
}

/// Exact scans timed (the first queries): the figure is the scan's speed, not its answers.
const EXACT_TIMED: usize = 50;

/// The widths every run measures.
pub const EFS: [usize; 4] = [32, 64, 128, 256];

/// One width's row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnnRow {
    pub ef: usize,
    /// Median time of one query, ms.
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The share of the exact ten nearest that the graph returned.
    pub recall_at_10: f64,
}

/// The ANN rows of one store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnnReport {
    pub records: usize,
    pub queries: usize,
    /// How the store keeps its vectors (`f32`, `int8`, `int8+f32`).
    #[serde(default)]
    pub precision: String,
    /// Heap bytes of the vectors and graph, per record.
    #[serde(default)]
    pub vector_bytes_per_record: f64,
    /// The exact scan's median time, ms (over the store's own form of the vectors).
    pub exact_p50_ms: f64,
    pub rows: Vec<AnnRow>,
    /// What a user gets: `search` in vector mode with its default options (thread context,
    /// scope and dedup on) at each width, its recall against the same exact ten.
    pub search_rows: Vec<AnnRow>,
}

/// Runs `queries` through the raw index of `store` at each of `efs`, counting recall against
/// `truth` (record indices, see [`truth`]); `clock` gives ms.
pub fn measure(
    store: &Store,
    queries: &[Vec<f32>],
    truth: &[Vec<u32>],
    efs: &[usize],
    clock: &dyn Fn() -> f64,
) -> AnnReport {
    let index: &VectorIndex = store.search_index().vectors();
    let exact_times: Vec<f64> = queries
        .iter()
        .take(EXACT_TIMED)
        .map(|q| {
            let t = clock();
            core::hint::black_box(index.exact(q, 10));
            clock() - t
        })
        .collect();
    // `run` returns slots; they become record indices after the clock stops.
    let row = |ef: usize, run: &dyn Fn(&[f32]) -> Vec<u32>| {
        let mut times = Vec::with_capacity(queries.len());
        let (mut found, mut total) = (0usize, 0usize);
        for (q, want) in queries.iter().zip(truth) {
            let t = clock();
            let slots = run(q);
            times.push(clock() - t);
            let hits: Vec<u32> = slots
                .into_iter()
                .filter_map(|slot| record_index(store, slot))
                .collect();
            total += want.len();
            found += want.iter().filter(|s| hits.contains(s)).count();
        }
        AnnRow {
            ef,
            p50_ms: percentile(&times, 50.0),
            p99_ms: percentile(&times, 99.0),
            recall_at_10: found as f64 / total.max(1) as f64,
        }
    };
    let rows = efs
        .iter()
        .map(|&ef| {
            row(ef, &|q| {
                let hits = index.search(q, 10, ef, false, &|_| true);
                hits.into_iter().map(|(slot, _)| slot).collect()
            })
        })
        .collect();
    let search_rows = efs
        .iter()
        .map(|&ef| {
            row(ef, &|q| {
                let hits = store
                    .search(&vector_query(q, Some(ef)))
                    .expect("vector search");
                hits.iter().filter_map(|h| store.slot_of(&h.id)).collect()
            })
        })
        .collect();
    AnnReport {
        records: store.len(),
        queries: queries.len(),
        precision: serde_json::to_value(index.precision())
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        vector_bytes_per_record: index.heap_bytes() as f64 / store.len().max(1) as f64,
        exact_p50_ms: percentile(&exact_times, 50.0),
        rows,
        search_rows,
    }
}

/// Recall@10 of the raw index of `store` at width `ef` against `truth` (record indices): the
/// quality half of a row, untimed.
pub fn raw_recall(store: &Store, queries: &[Vec<f32>], truth: &[Vec<u32>], ef: usize) -> f64 {
    let index = store.search_index().vectors();
    let (mut found, mut total) = (0usize, 0usize);
    for (q, want) in queries.iter().zip(truth) {
        let hits: Vec<u32> = index
            .search(q, 10, ef, false, &|_| true)
            .into_iter()
            .filter_map(|(slot, _)| record_index(store, slot))
            .collect();
        total += want.len();
        found += want.iter().filter(|s| hits.contains(s)).count();
    }
    found as f64 / total.max(1) as f64
}

/// Recall@10 of the raw index on real embeddings: LoCoMo's dev turns (all-MiniLM-L6-v2,
/// 384-d), one store per conversation kept as `settings` say, each question's vector against
/// the exact ten of its conversation's `f32` turn vectors, at width `ef`. Returns the recall and
/// the number of questions.
pub fn locomo_recall(
    convs: &[crate::locomo::Conversation],
    settings: memdag_core::index::vecstore::VectorSettings,
    ef: usize,
) -> Result<(f64, usize), String> {
    use crate::locomo::{parse, Question, Turn};
    let (mut found, mut total, mut asked) = (0usize, 0usize, 0usize);
    for conv in convs {
        let turns: Vec<Turn> = parse(&conv.turns_jsonl)?;
        let questions: Vec<Question> = parse(&conv.questions_jsonl)?;
        let mut store = Store::new();
        store
            .set_vector_settings(settings)
            .map_err(|e| e.to_string())?;
        for (i, t) in turns.iter().enumerate() {
            store
                .add_turn(memdag_core::NewTurn {
                    id: Some(format!("r{i}")),
                    thread: t.thread.clone(),
                    embedding: Some(t.embedding.clone()),
                    ..Default::default()
                })
                .map_err(|e| e.to_string())?;
        }
        let index = store.search_index().vectors();
        for q in &questions {
            let unit = index.prepare(&q.embedding).map_err(|e| e.to_string())?;
            let mut exact: Vec<(f32, u32)> = turns
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let n = memdag_core::index::distance::dot(&t.embedding, &t.embedding).sqrt();
                    (
                        memdag_core::index::distance::dot(&unit, &t.embedding) / n,
                        i as u32,
                    )
                })
                .collect();
            exact.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let hits: Vec<u32> = index
                .search(&unit, 10, ef, false, &|_| true)
                .into_iter()
                .filter_map(|(slot, _)| record_index(&store, slot))
                .collect();
            total += 10;
            found += exact
                .iter()
                .take(10)
                .filter(|(_, i)| hits.contains(i))
                .count();
            asked += 1;
        }
    }
    Ok((found as f64 / total.max(1) as f64, asked))
}

/// The rows as a Markdown table.
pub fn table(reports: &[AnnReport]) -> String {
    let mut out = String::from(
        "| records | precision | ef | raw index p50 / p99 ms | raw recall@10 | search(vector) p50 ms | its recall@10 | exact p50 ms | vector B/rec |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        for (raw, full) in r.rows.iter().zip(&r.search_rows) {
            out.push_str(&format!(
                "| {} | {} | {} | {:.3} / {:.3} | {:.4} | {:.3} | {:.4} | {:.3} | {:.0} |\n",
                r.records,
                r.precision,
                raw.ef,
                raw.p50_ms,
                raw.p99_ms,
                raw.recall_at_10,
                full.p50_ms,
                full.recall_at_10,
                r.exact_p50_ms,
                r.vector_bytes_per_record
            ));
        }
    }
    out
}
