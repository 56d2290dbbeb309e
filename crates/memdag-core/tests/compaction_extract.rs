//! The extractive compactor: a deterministic node from first/last steps, errors and decisions.

use memdag_core::compact::{extract, SECTIONS};
use memdag_core::{NewTurn, Step, Store};

fn turn() -> NewTurn {
    NewTurn {
        id: Some("t1".into()),
        thread: "main".into(),
        input: "Fix the failing test in src/store.rs. You must not change the public API.".into(),
        output: "I decided to keep the old signature and add a helper. Next: run the benches."
            .into(),
        steps: vec![
            Step {
                tool: "shell".into(),
                args: "cargo test".into(),
                result: "test store::load ... FAILED\nerror: assertion failed".into(),
                ok: false,
            },
            Step {
                tool: "read".into(),
                args: "src/store.rs".into(),
                result: "fn load_entries(...)".into(),
                ok: true,
            },
            Step {
                tool: "shell".into(),
                args: "cargo test".into(),
                result: "test result: ok".into(),
                ok: true,
            },
        ],
        ..Default::default()
    }
}

#[test]
fn extractive_compaction_fills_every_section() {
    let mut store = Store::new();
    store.add_turn(turn()).unwrap();
    let record = store.compact_extractive("t1").unwrap();
    let node = record.compact.clone().unwrap();
    let names: Vec<&str> = node.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, SECTIONS);
    let text = |name: &str| {
        node.sections
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .text
            .clone()
    };
    assert_eq!(text("Goal"), "Fix the failing test in src/store.rs.");
    assert!(text("Constraints").contains("must not change the public API"));
    let progress = text("Progress");
    assert!(progress.contains("3 tool calls, 1 failed"), "{progress}");
    assert!(
        progress.contains("first: shell(cargo test) failed"),
        "{progress}"
    );
    assert!(
        progress.contains("last: shell(cargo test) ok: test result: ok"),
        "{progress}"
    );
    assert!(text("Key Decisions").contains("decided to keep the old signature"));
    assert!(text("Next Steps").contains("run the benches"));
    let critical = text("Critical Context");
    assert!(
        critical.contains("error in shell: test store::load ... FAILED"),
        "{critical}"
    );
    assert!(critical.contains("src/store.rs"), "{critical}");
    assert!(critical.contains("load_entries"), "{critical}");
    assert!(node.summary.starts_with("Fix the failing test"));
}

#[test]
fn extraction_is_deterministic_and_says_none_in_the_conversation_language() {
    let mut store = Store::new();
    let r = store
        .add_turn(NewTurn {
            id: Some("z".into()),
            thread: "t".into(),
            input: "你好，今天天气怎么样".into(),
            output: "很好".into(),
            ..Default::default()
        })
        .unwrap()
        .clone();
    let a = extract(&r);
    assert_eq!(a, extract(&r));
    assert_eq!(a.sections[1].text, "无", "no constraints, said in Chinese");
    assert_eq!(a.sections[0].text, "你好，今天天气怎么样");
}

#[test]
fn an_empty_turn_still_gets_a_node() {
    let mut store = Store::new();
    store
        .add_turn(NewTurn {
            id: Some("e".into()),
            thread: "t".into(),
            ..Default::default()
        })
        .unwrap();
    let node = store
        .compact_extractive("e")
        .unwrap()
        .compact
        .clone()
        .unwrap();
    assert!(node.sections.iter().all(|s| !s.text.is_empty()));
    assert_eq!(
        store.compact_extractive("missing").unwrap_err().code(),
        "NOT_FOUND"
    );
}
