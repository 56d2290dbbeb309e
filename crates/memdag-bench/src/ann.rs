//! The ANN rows: the raw vector index against an exact scan, at several search widths.
//!
//! The workload's vector row ([`crate::workload`]) times what a user gets from
//! `search(mode: vector)`: the graph walk, then thread context, scope and dedup. Those steps
//! change which ten come back, so that row's recall says little about the graph. These rows
//! time [`VectorIndex::search`] alone (no filter, no re-ranking) and count how many of the exact
//! scan's ten nearest it finds, at each `ef`: the figure to set beside hnswlib's.
//!
//! The corpus is the workload's: 384-d unit vectors around 200 centres, from its seed.

use memdag_core::index::vectors::VectorIndex;
use memdag_core::Store;
use serde::{Deserialize, Serialize};

use crate::workload::{percentile, vector_query};

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
    /// The exact scan's median time, ms.
    pub exact_p50_ms: f64,
    pub rows: Vec<AnnRow>,
    /// What a user gets: `search` in vector mode with its default options (thread context,
    /// scope and dedup on) at each width, its recall against the same exact ten.
    pub search_rows: Vec<AnnRow>,
}

/// Runs `queries` through the raw index of `store` at each of `efs`; `clock` gives ms.
pub fn measure(
    store: &Store,
    queries: &[Vec<f32>],
    efs: &[usize],
    clock: &dyn Fn() -> f64,
) -> AnnReport {
    let index: &VectorIndex = store.search_index().vectors();
    let mut exact_times = Vec::with_capacity(queries.len());
    let truth: Vec<Vec<u32>> = queries
        .iter()
        .map(|q| {
            let t = clock();
            let found = index.exact(q, 10);
            exact_times.push(clock() - t);
            found.into_iter().map(|(slot, _)| slot).collect()
        })
        .collect();
    let row = |ef: usize, run: &dyn Fn(&[f32]) -> Vec<u32>| {
        let mut times = Vec::with_capacity(queries.len());
        let (mut found, mut total) = (0usize, 0usize);
        for (q, want) in queries.iter().zip(&truth) {
            let t = clock();
            let hits = run(q);
            times.push(clock() - t);
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
        exact_p50_ms: percentile(&exact_times, 50.0),
        rows,
        search_rows,
    }
}

/// The rows as a Markdown table.
pub fn table(reports: &[AnnReport]) -> String {
    let mut out = String::from(
        "| records | ef | raw index p50 / p99 ms | raw recall@10 | search(vector) p50 ms | its recall@10 | exact p50 ms |\n|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        for (raw, full) in r.rows.iter().zip(&r.search_rows) {
            out.push_str(&format!(
                "| {} | {} | {:.3} / {:.3} | {:.4} | {:.3} | {:.4} | {:.3} |\n",
                r.records,
                raw.ef,
                raw.p50_ms,
                raw.p99_ms,
                raw.recall_at_10,
                full.p50_ms,
                full.recall_at_10,
                r.exact_p50_ms
            ));
        }
    }
    out
}
