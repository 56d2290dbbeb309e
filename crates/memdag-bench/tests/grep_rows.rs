//! The grep rows (`memdag-bench --grep`) time what they say: every pattern runs over the
//! store it is given and finds what a direct grep finds. The speed is the benchmark's to
//! measure, not this test's.

use std::cell::Cell;

use memdag_bench::grep::{grep_times, table, PATTERNS};
use memdag_bench::workload::{build, Options};
use memdag_core::search::GrepQuery;

#[test]
fn each_pattern_runs_over_the_store_and_counts_its_matches() {
    let base: Vec<String> = [
        "We went camping last weekend, it’s lovely",
        "I signed up for a Pottery Class and I love painting",
        "The adoption agency: I'm looking into adoption",
        "my dog and cat are fine",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let opts = Options {
        with_vectors: false,
        ..Options::default()
    };
    let built = build(40, &base, &opts, &|| 0.0);
    let ticks = Cell::new(0.0);
    let clock = || {
        ticks.set(ticks.get() + 1.0);
        ticks.get()
    };
    let rows = grep_times(&built.store, 3, &clock);
    assert_eq!(rows.len(), PATTERNS.len());
    for (row, &(pattern, case_insensitive)) in rows.iter().zip(PATTERNS.iter()) {
        let direct = built
            .store
            .grep(&GrepQuery {
                pattern: pattern.into(),
                case_insensitive,
                max_matches: 10_000,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(row.matches, direct.len(), "{pattern}");
        assert_eq!(row.records, 40);
        // Each grep read the clock twice, one tick apart.
        assert_eq!(row.p50_ms, 1.0, "{pattern}");
    }
    let count = |p: &str| rows.iter().find(|r| r.pattern == p).unwrap().matches;
    assert_eq!(count("camping"), 10);
    assert_eq!(count(r"\bcamping\b"), 10);
    assert_eq!(count("pottery class"), 10, "case-insensitively");
    assert_eq!(count(r"\w+ing\b adoption"), 0);
    assert_eq!(count("zzqx"), 0);
    let printed = table(&rows);
    assert_eq!(printed.lines().count(), 2 + PATTERNS.len());
    assert!(printed.contains(r"`dog\|cat\|horse\|painting`"));
}
