//! The `prepare` benchmark times what it says: on a small workload store, every call cuts the
//! oversized tool outputs, compacts into the running summary by the rules, and fits.

use memdag_bench::prepare::{conversation, prepare_times, PREPARE_CALLS};
use memdag_bench::workload::{build, Options};

#[test]
fn every_call_cuts_compacts_and_fits() {
    let base = vec!["deploy notes for the canary".to_string()];
    let opts = Options {
        vector_queries: 0,
        with_vectors: false,
        ..Options::default()
    };
    let clock = || 0.0;
    let mut built = build(200, &base, &opts, &clock);
    assert_eq!(conversation().len(), 42);
    // prepare_times asserts that each call compacts and fits.
    let times = prepare_times(&mut built.store, "t0", "u", 200, &clock);
    assert_eq!(times.len(), PREPARE_CALLS);
    let summary = built.store.running_summary("t0", Some("u")).unwrap();
    assert_eq!(summary.version as usize, PREPARE_CALLS + 1);
    assert!(built.store.blob_ids().next().is_some());
}
