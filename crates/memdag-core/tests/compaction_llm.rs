//! Compaction through a scripted fake LLM: prompt, parse, apply; malformed answers change nothing.

use memdag_core::compact::{detect_language, parse_answer, render, Language, SECTIONS};
use memdag_core::{CompactNode, NewTurn, Step, Store};

const ANSWER: &str = "Here is the note:\n\n## Summary\nFixed the wasm build by pinning wasm-bindgen.\n\n\
## Goal\nMake `cargo build --target wasm32-unknown-unknown` pass.\n\n## Constraints\n- No new dependencies.\n\n\
## Progress\n- Found a schema mismatch.\n- Pinned the crate.\n\n## Key Decisions\n- Pin `=0.2.130` to match the CLI.\n\n\
## Next Steps\nNone\n\n## Critical Context\n- crates/memdag-wasm/Cargo.toml\n- error: rust Wasm file schema version: 0.2.129\n";

fn store_with_turn(input: &str) -> Store {
    let mut store = Store::new();
    store
        .add_turn(NewTurn {
            id: Some("t1".into()),
            thread: "main".into(),
            user: "ada".into(),
            input: input.into(),
            output: "Pinned wasm-bindgen; the build passes.".into(),
            steps: vec![
                Step {
                    tool: "shell".into(),
                    args: "cargo build".into(),
                    result: "error: schema 0.2.129".into(),
                    ok: false,
                },
                Step {
                    tool: "edit".into(),
                    args: "crates/memdag-wasm/Cargo.toml".into(),
                    result: "ok".into(),
                    ok: true,
                },
            ],
            ..Default::default()
        })
        .unwrap();
    store.take_changes().unwrap();
    store
}

#[test]
fn a_scripted_llm_compacts_a_turn() {
    let mut store = store_with_turn("Please fix the wasm build.");
    let mut seen_prompt = String::new();
    let record = store
        .compact_with("t1", None, |prompt| {
            seen_prompt = prompt.to_string();
            Ok(ANSWER.to_string())
        })
        .unwrap();
    let node = record.compact.clone().unwrap();
    assert_eq!(
        node.summary,
        "Fixed the wasm build by pinning wasm-bindgen."
    );
    let names: Vec<&str> = node.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, SECTIONS);
    assert_eq!(node.sections[4].text, "None");
    assert!(node.sections[5].text.contains("schema version"));
    for name in SECTIONS {
        assert!(
            seen_prompt.contains(&format!("## {name}")),
            "prompt names {name}"
        );
    }
    assert!(seen_prompt.contains("Please fix the wasm build."));
    assert!(seen_prompt.contains("tool=\"shell\" status=\"error\""));
    assert!(
        store.has_changes(),
        "the new compact node is in the change set"
    );
}

#[test]
fn a_malformed_answer_changes_nothing() {
    let mut store = store_with_turn("Please fix the wasm build.");
    let before = store.get("t1").unwrap().clone();
    let missing = ANSWER.replace("## Next Steps\nNone\n\n", "");
    let repeated = format!("{ANSWER}\n## Goal\nagain");
    let emptied = ANSWER.replace("- No new dependencies.", "");
    let cases: [(&str, &str); 5] = [
        ("", "empty"),
        ("   \n ", "empty"),
        (&missing, "missing sections: Next Steps"),
        (&repeated, "\"Goal\" appears twice"),
        (&emptied, "empty sections: Constraints"),
    ];
    for (answer, why) in cases {
        let err = store.apply_compaction("t1", answer).unwrap_err();
        assert_eq!(err.code(), "HOST");
        assert!(err.to_string().contains(why), "{err} should say {why}");
        assert_eq!(store.get("t1").unwrap(), &before);
        assert!(!store.has_changes());
    }
    let err = store
        .compact_with("t1", None, |_| Err("model overloaded".into()))
        .unwrap_err();
    assert_eq!(err.code(), "HOST");
    assert!(err.to_string().contains("model overloaded"));
    assert_eq!(store.get("t1").unwrap(), &before);
    assert!(!store.has_changes());
    assert_eq!(
        store.apply_compaction("nope", ANSWER).unwrap_err().code(),
        "NOT_FOUND"
    );
}

#[test]
fn lenient_about_form_strict_about_content() {
    // `**Goal:**` lines instead of `## Goal` headings.
    let bold: String = ANSWER
        .lines()
        .map(|l| match l.strip_prefix("## ") {
            Some(name) => format!("**{name}:**\n"),
            None => format!("{l}\n"),
        })
        .collect();
    let node = parse_answer(&bold).unwrap();
    assert_eq!(node.sections.len(), 6);
    let fenced = format!(
        "```markdown\n{}\n```",
        ANSWER.replace(
            "## Summary\nFixed the wasm build by pinning wasm-bindgen.\n\n",
            ""
        )
    );
    let node = parse_answer(&fenced).unwrap();
    assert_eq!(
        node.summary, "Found a schema mismatch.",
        "summary derived from Progress"
    );
}

#[test]
fn incremental_prompts_carry_the_previous_note() {
    let mut store = store_with_turn("Please fix the wasm build.");
    store.apply_compaction("t1", ANSWER).unwrap();
    let previous: CompactNode = store.get("t1").unwrap().compact.clone().unwrap();
    let prompt = store.compaction_prompt("t1", Some(&previous)).unwrap();
    assert!(prompt.contains("<previous_note>"));
    assert!(prompt.contains("Pin `=0.2.130` to match the CLI."));
    assert_eq!(
        parse_answer(&render(&previous)).unwrap(),
        previous,
        "render and parse round-trip"
    );
    let fresh = store.compaction_prompt("t1", None).unwrap();
    assert!(!fresh.contains("<previous_note>"));
}

#[test]
fn the_prompt_asks_for_the_conversation_language() {
    let store = store_with_turn("请修复 wasm 构建，不要添加新的依赖。");
    let r = store.get("t1").unwrap();
    assert_eq!(detect_language(r), Language::Chinese);
    let prompt = store.compaction_prompt("t1", None).unwrap();
    assert!(prompt.contains("Chinese (用中文撰写)"));
    let latin = store_with_turn("Please fix the build.");
    assert_eq!(detect_language(latin.get("t1").unwrap()), Language::Latin);
    let ja = store_with_turn("ビルドを直してください。依存関係は追加しないでください。");
    assert_eq!(detect_language(ja.get("t1").unwrap()), Language::Japanese);
}

#[test]
fn long_turns_give_bounded_prompts() {
    let mut store = Store::new();
    let steps = (0..100)
        .map(|i| Step {
            tool: "read".into(),
            args: format!("file{i}.rs"),
            result: "x ".repeat(5000),
            ok: true,
        })
        .collect();
    store
        .add_turn(NewTurn {
            id: Some("big".into()),
            thread: "t".into(),
            steps,
            ..Default::default()
        })
        .unwrap();
    let prompt = store.compaction_prompt("big", None).unwrap();
    assert!(prompt.contains("<omitted steps=\"40\"/>"));
    assert!(prompt.len() < 200_000, "{} bytes", prompt.len());
}
