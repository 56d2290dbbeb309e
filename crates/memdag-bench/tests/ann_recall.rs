//! The raw vector index finds the true nearest neighbours on the benchmark's clustered data.
//!
//! The benchmark's vector rows (`memdag-bench --ann`, `tests/bench/peers.mjs`) time the raw index
//! beside hnswlib; this pins the quality side of that row: on a seeded 10k sample of the same
//! corpus (384-d, 200 centres, noise 0.06), recall@10 against the exact scan at ef 128 is at
//! least 0.98. The speed is the benchmark's to measure, not this test's.

use memdag_bench::ann;
use memdag_bench::corpus::{synthetic_texts, Rng};
use memdag_bench::workload::{build, Options};

#[test]
fn raw_index_recall_at_ef_128_is_at_least_098_on_the_clustered_corpus() {
    let base = synthetic_texts(&mut Rng(1), 500);
    let opts = Options {
        vector_queries: 100,
        ..Options::default()
    };
    let built = build(10_000, &base, &opts, &|| 0.0);
    let report = ann::measure(&built.store, &built.queries, &[32, 128], &|| 0.0);
    assert_eq!(report.records, 10_000);
    assert_eq!(report.queries, 100);
    let at = |ef: usize| {
        report
            .rows
            .iter()
            .find(|r| r.ef == ef)
            .map(|r| r.recall_at_10)
            .expect("a row per width")
    };
    assert!(at(128) >= 0.98, "raw recall@10 at ef 128: {}", at(128));
    // A wider walk never finds less on the same graph and queries.
    assert!(at(128) >= at(32), "ef 128 {} < ef 32 {}", at(128), at(32));
}
