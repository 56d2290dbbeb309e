//! A regression guard on the rule-based extractor (its figures are the benchmark's, `memdag-bench
//! --memory`): on the labelled dev set it keeps the targets: precision at least 0.9,
//! no duplicate and no superseded item left active. The held-out set is only measured.

#[test]
fn the_extractor_keeps_its_targets_on_the_dev_set() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/memory/dev.jsonl");
    let (all, en, zh) = memdag_bench::memory::score(&path).unwrap();
    assert!(
        all.conversations >= 40,
        "{} conversations",
        all.conversations
    );
    assert!(en.conversations > 0 && zh.conversations > 0);
    assert!(
        all.precision >= 0.9,
        "precision {:.3}: {:#?}",
        all.precision,
        all.misses
    );
    assert_eq!(all.duplicates, 0, "{:#?}", all.misses);
    assert_eq!(all.superseded_active, 0, "{:#?}", all.misses);
}
