//! instant-distance beside memdag's own HNSW, on the same generated vectors, in one native run.
//! A measurement for issue 3's choice of vector index, not a test:
//!
//! `cargo run -p memdag-bench --release --example instant_distance -- 10000,100000`
//!
//! instant-distance has no insert after `build`, so its "add p99" is the cost of a rebuild.

use std::time::Instant;

use instant_distance::{Builder, Point, Search};
use memdag_bench::corpus::vector_corpus;
use memdag_bench::workload::{percentile, vector_query, CENTRES, DIM, SEED, SIGMA};
use memdag_core::{NewTurn, Store};

#[derive(Clone)]
struct Unit(Vec<f32>);

impl Point for Unit {
    fn distance(&self, other: &Self) -> f32 {
        // Cosine distance of unit vectors; 16 accumulators so the compiler vectorizes it.
        let mut acc = [0f32; 16];
        for (a, b) in self.0.chunks_exact(16).zip(other.0.chunks_exact(16)) {
            for i in 0..16 {
                acc[i] += a[i] * b[i];
            }
        }
        1.0 - acc.iter().sum::<f32>()
    }
}

fn exact(vectors: &[Vec<f32>], q: &[f32], k: usize) -> Vec<usize> {
    let mut scored: Vec<(f32, usize)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum::<f32>(), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(k).map(|(_, i)| i).collect()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!("| index | N | build s | add p99 ms | query p50 ms | query p99 ms | recall@10 |");
    println!("|---|---|---|---|---|---|---|");
    for n in sizes {
        let (vectors, queries) = vector_corpus(SEED, CENTRES, DIM, SIGMA, n, 200);
        let truth: Vec<Vec<usize>> = queries.iter().map(|q| exact(&vectors, q, 10)).collect();
        let recall = |found: &[Vec<usize>]| {
            let hit: usize = found
                .iter()
                .zip(&truth)
                .map(|(f, t)| f.iter().filter(|i| t.contains(i)).count())
                .sum();
            hit as f64 / (truth.len() * 10) as f64
        };

        let t = Instant::now();
        let points: Vec<Unit> = vectors.iter().cloned().map(Unit).collect();
        let (hnsw, pids) = Builder::default()
            .ef_construction(100)
            .ef_search(64)
            .seed(SEED)
            .build_hnsw(points);
        let build_s = ms(t) / 1000.0;
        let index_of: std::collections::HashMap<_, _> =
            pids.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let mut search = Search::default();
        let mut times = Vec::new();
        let mut found = Vec::new();
        for q in &queries {
            let t = Instant::now();
            let ids: Vec<usize> = hnsw
                .search(&Unit(q.clone()), &mut search)
                .take(10)
                .map(|item| index_of[&item.pid])
                .collect();
            times.push(ms(t));
            found.push(ids);
        }
        println!(
            "| instant-distance 0.6 (ef_c 100, ef 64) | {n} | {build_s:.2} | {:.0} (rebuild) | {:.3} | {:.3} | {:.4} |",
            build_s * 1000.0,
            percentile(&times, 50.0),
            percentile(&times, 99.0),
            recall(&found)
        );

        let t = Instant::now();
        let mut store = Store::new();
        let mut adds = Vec::with_capacity(n);
        for (i, v) in vectors.iter().enumerate() {
            let a = Instant::now();
            store
                .add_turn(NewTurn {
                    id: Some(format!("r{i}")),
                    thread: "t".into(),
                    embedding: Some(v.clone()),
                    ..Default::default()
                })
                .expect("add");
            adds.push(ms(a));
        }
        let build_s = ms(t) / 1000.0;
        let mut times = Vec::new();
        let mut found = Vec::new();
        for q in &queries {
            let query = vector_query(q, None);
            let t = Instant::now();
            let hits = store.search(&query).expect("search");
            times.push(ms(t));
            found.push(hits.iter().filter_map(|h| h.id[1..].parse().ok()).collect());
        }
        println!(
            "| memdag incremental HNSW (M 16, ef_c 100, ef 64) | {n} | {build_s:.2} | {:.3} | {:.3} | {:.3} | {:.4} |",
            percentile(&adds, 99.0),
            percentile(&times, 50.0),
            percentile(&times, 99.0),
            recall(&found)
        );
    }
}
