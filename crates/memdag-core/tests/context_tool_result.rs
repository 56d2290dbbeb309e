//! `compact_tool_result`: oversized outputs are cut, the full text stays retrievable by blob.

mod common;

use std::collections::BTreeMap;

use memdag_core::blob::blob_id;
use memdag_core::context::{compact_tool_result, marker_blob_id, Message, Role, ToolResultLimits};
use memdag_core::tokens::TokenCounter;
use memdag_core::Store;
use proptest::prelude::*;

fn long_output(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("line {i}: compiled crate number {i} without warnings"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\nerror: linking failed at the very end"
}

#[test]
fn short_results_are_left_alone() {
    let c = TokenCounter::default();
    let cut = compact_tool_result(&c, "all good", 100);
    assert!(!cut.truncated);
    assert_eq!(cut.text, "all good");
    assert_eq!(cut.blob_id, None);
    assert_eq!(cut.full, None);
}

#[test]
fn long_results_keep_head_tail_and_a_reference() {
    let c = TokenCounter::default();
    let text = long_output(400);
    let cut = compact_tool_result(&c, &text, 200);
    assert!(cut.truncated);
    assert!(cut.tokens <= 200, "{} tokens", cut.tokens);
    assert_eq!(cut.tokens, c.count(&cut.text));
    assert!(cut.text.starts_with("line 0:"));
    assert!(
        cut.text.contains("linking failed"),
        "the tail is kept: {}",
        cut.text
    );
    let id = cut.blob_id.clone().unwrap();
    assert_eq!(id, blob_id(&text));
    assert_eq!(marker_blob_id(&cut.text), Some(id.as_str()));
    assert_eq!(cut.full.as_deref(), Some(text.as_str()));
}

#[test]
fn recent_results_get_the_higher_limit_and_blobs_persist() {
    let c = TokenCounter::default();
    let mut store = Store::new();
    let big = long_output(300);
    let mut messages = vec![
        Message::new(Role::User, "build it"),
        Message::tool_call("", &["a"]),
        Message::tool_result("a", big.clone()),
        Message::tool_call("", &["b"]),
        Message::tool_result("b", big.clone() + " again"),
        Message::new(Role::Assistant, "done"),
    ];
    let limits = ToolResultLimits {
        recent_tokens: 600,
        old_tokens: 150,
        recent_count: 1,
    };
    let ids = store
        .compact_tool_results(&c, &mut messages, &limits)
        .unwrap();
    assert_eq!(ids.len(), 2);
    let (old, recent) = (c.count(&messages[2].content), c.count(&messages[4].content));
    assert!(
        old <= 150 && recent <= 600 && recent > old,
        "old {old}, recent {recent}"
    );
    assert_eq!(store.blob(&ids[1]), Some(big.as_str()));

    // Running again with smaller limits re-cuts from the stored full text, same reference.
    let tighter = ToolResultLimits {
        recent_tokens: 100,
        old_tokens: 80,
        recent_count: 1,
    };
    let again = store
        .compact_tool_results(&c, &mut messages, &tighter)
        .unwrap();
    assert_eq!(again, ids);
    assert!(c.count(&messages[4].content) <= 100);

    // Blobs go into the change set (in a segment) and come back with load.
    let mut kv = BTreeMap::new();
    common::apply(&mut kv, &mut store);
    assert!(kv.keys().any(|k| k.starts_with("seg/")));
    let loaded = Store::load(kv.iter()).unwrap();
    assert_eq!(loaded.blob(&ids[1]), Some(big.as_str()));
    assert_eq!(loaded.blob_ids().count(), 2);
    assert!(!loaded.has_changes());
}

#[test]
fn blobs_are_idempotent_and_removable() {
    let mut store = Store::new();
    let a = store.put_blob("hello").unwrap();
    assert_eq!(store.put_blob("hello").unwrap(), a);
    assert!(store.has_changes());
    let mut kv = BTreeMap::new();
    common::apply(&mut kv, &mut store);
    assert!(store.remove_blob(&a));
    assert!(!store.remove_blob(&a));
    common::apply(&mut kv, &mut store);
    let loaded = common::reload(&kv).unwrap();
    assert_eq!(loaded.blob_ids().count(), 0, "the removal is persisted");
}

#[test]
fn a_blob_under_the_wrong_key_is_corrupt() {
    let mut store = Store::new();
    let id = store.put_blob("hello").unwrap();
    let mut kv = common::v1_image(&store);
    let value = kv.remove(&format!("blob/{id}")).unwrap();
    kv.insert("blob/b0000000000000000".into(), value);
    let err = Store::load(kv.iter()).unwrap_err();
    assert_eq!(err.code(), "CORRUPT_DATA");
}

proptest! {
    #[test]
    fn a_cut_fits_its_limit(lines in 0usize..200, limit in 60usize..400) {
        let c = TokenCounter::default();
        let text = long_output(lines);
        let cut = compact_tool_result(&c, &text, limit);
        prop_assert!(c.count(&cut.text) <= limit);
        prop_assert_eq!(cut.truncated, c.count(&text) > limit);
    }
}
