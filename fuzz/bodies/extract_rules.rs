//! What the `extract_rules` fuzz target runs on one input. The target and the regression test
//! of committed crash inputs (`crates/memdag-core/tests/fuzz_regressions.rs`) both include
//! this file, so a kept crash input is replayed through exactly what found it.
//!
//! The rule-based extractor on any text (and any steps): it never panics, every proposal has
//! a text, and learning the proposals leaves a store that writes and reloads.

use memdag_core::memory::ExtractQuery;
use memdag_core::{NewTurn, Step, Store};

/// Runs the input: the input text, then the step args and result, split by U+0001.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\u{1}');
    let input = parts.next().unwrap_or_default().to_string();
    let args = parts.next().unwrap_or_default().to_string();
    let result = parts.next().unwrap_or_default().to_string();
    let mut store = Store::new();
    let turn = NewTurn {
        id: Some("t".into()),
        thread: "t".into(),
        user: "u".into(),
        input,
        steps: vec![
            Step {
                tool: "x".into(),
                args: args.clone(),
                result: result.clone(),
                ok: false,
            },
            Step {
                tool: "x".into(),
                args: result,
                result: args,
                ok: true,
            },
        ],
        ..NewTurn::default()
    };
    if store.add_turn(turn).is_err() {
        return;
    }
    let q = ExtractQuery {
        ids: vec!["t".into()],
        ..ExtractQuery::default()
    };
    for p in store.propose(&q).expect("propose") {
        assert!(!p.text.trim().is_empty());
    }
    let _ = store.extract(&q);
    let changes = store.take_changes().expect("encodes");
    let entries: Vec<(String, Vec<u8>)> = changes
        .into_iter()
        .filter_map(|c| c.value.map(|v| (c.key, v)))
        .collect();
    let loaded = Store::load(entries).expect("loads");
    assert_eq!(loaded.len(), store.len());
}
