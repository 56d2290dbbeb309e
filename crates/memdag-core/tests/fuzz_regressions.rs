//! Every input a fuzz target ever crashed on (`tests/fixtures/fuzz/<target>-<hash>.bin`),
//! run again through what that target runs. A crash found by `cargo fuzz` is copied here
//! before it is fixed, so it can never come back.

use memdag_core::memory::rules::extract;
use memdag_core::{NewTurn, Step, Store};

/// What the `extract_rules` target does with its input.
fn extract_rules(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\u{1}');
    let input = parts.next().unwrap_or_default().to_string();
    let args = parts.next().unwrap_or_default().to_string();
    let result = parts.next().unwrap_or_default().to_string();
    let mut store = Store::new();
    let turn = NewTurn {
        id: Some("t".into()),
        thread: "t".into(),
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
    if store.add_turn(turn).is_ok() {
        let r = store.get("t").unwrap().clone();
        for e in extract(&r) {
            assert!(!e.text.trim().is_empty());
        }
    }
}

#[test]
fn every_committed_crash_input_runs_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        match name.split('-').next().unwrap() {
            "extract_rules" => extract_rules(&data),
            other => panic!("no runner for fuzz target {other} ({name})"),
        }
        ran += 1;
    }
    assert!(ran > 0, "the crash inputs are in {}", dir.display());
}
