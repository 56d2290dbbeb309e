//! Issue 30, item 13: an import that holds nothing is an error, not an import of nothing, and
//! an id the store already has with other text is reported, not skipped silently.

use memdag_core::export::snapshot::{decode_snapshot, encode_snapshot, SNAPSHOT_MAGIC};
use memdag_core::{NewTurn, Store};

#[test]
fn an_empty_or_magic_only_snapshot_is_invalid_input() {
    for file in [Vec::new(), SNAPSHOT_MAGIC.to_vec()] {
        let e = decode_snapshot(&file).unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT", "{file:?}");
    }
    // Entries, but no store commit among them: nothing a store could open.
    let stray = encode_snapshot(&[("seg/0000000000000001/0".into(), vec![1, 2, 3])]);
    let e = decode_snapshot(&stray).unwrap_err();
    assert!(e.to_string().contains("no store commit"), "{e}");
    // An exported empty store still holds its commit, and imports.
    let file = Store::new().export_snapshot().unwrap();
    assert!(!decode_snapshot(&file).unwrap().is_empty());
}

#[test]
fn an_empty_jsonl_import_is_invalid_input() {
    let mut s = Store::new();
    for text in ["", "\n\n  \n"] {
        assert_eq!(
            s.import_jsonl(text, 0).unwrap_err().code(),
            "INVALID_INPUT",
            "{text:?}"
        );
    }
}

#[test]
fn an_imported_id_with_other_text_is_a_reported_conflict() {
    let mut s = Store::new();
    s.add_turn(NewTurn {
        id: Some("a".into()),
        thread: "t".into(),
        input: "the original".into(),
        ..Default::default()
    })
    .unwrap();
    s.add_turn(NewTurn {
        id: Some("b".into()),
        thread: "t".into(),
        input: "same".into(),
        ..Default::default()
    })
    .unwrap();
    let text = [
        r#"{"id": "a", "thread": "t", "createdAt": 0, "input": "a different text"}"#,
        r#"{"id": "b", "thread": "t", "createdAt": 0, "input": "same"}"#,
        r#"{"id": "c", "thread": "t", "createdAt": 0, "input": "new"}"#,
    ]
    .join("\n");
    let report = s.import_jsonl(&text, 0).unwrap();
    assert_eq!(report.turns, 1);
    assert_eq!(report.skipped, ["a", "b"]);
    assert_eq!(report.conflicts, ["a"], "b holds the same text");
    assert_eq!(s.get("a").unwrap().input, "the original");
}
