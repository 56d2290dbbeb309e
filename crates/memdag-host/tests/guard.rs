//! Issue 30 through the `memdag` binary: an empty user is refused and serving every user is
//! asked for by name (item 5), working memory per user (6), `--user` kept or refused (7),
//! and grep bounded by work (10).
//! Needs the built component (scripts/build-component.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::ok;

fn memdag(store: &Path) -> Command {
    common::memdag_cli(
        env!("CARGO_BIN_EXE_memdag"),
        store,
        "memdag-guard-test-cache",
    )
}

/// Runs a command that must fail; its stderr.
fn fails(cmd: &mut Command) -> (Output, String) {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "{cmd:?} should fail");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

const TURNS: &str = r#"{"id":"a1","thread":"default","user":"alice","createdAt":"2026-11-27T09:00:00Z","input":"alice plans the secret launch","output":"noted"}
{"id":"b1","thread":"default","user":"bob","createdAt":"2026-11-27T09:01:00Z","input":"bob plans the secret merger","output":"noted"}
"#;

/// A store holding [`TURNS`], in a temporary directory.
fn store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("turns.jsonl");
    std::fs::write(&file, TURNS).unwrap();
    let store = dir.path().join("store");
    ok(memdag(&store).arg("ingest").arg(&file));
    (dir, store)
}

#[test]
fn an_empty_user_is_refused_everywhere_and_serving_every_user_is_asked_for_by_name() {
    let (_dir, store) = store();
    let commands: [&[&str]; 10] = [
        &["search", "secret"],
        &["grep", "secret"],
        &["recall", "--thread", "default"],
        &["show", "b1"],
        &["recent", "default"],
        &["memory", "list"],
        &["timeline"],
        &["work", "show", "--thread", "default"],
        &["call-tool", "get", r#"{"id": "b1"}"#],
        &["mcp"],
    ];
    for args in commands {
        for blank in ["", " "] {
            let (out, stderr) = fails(memdag(&store).args(args).args(["--user", blank]));
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("names nobody"), "{args:?}: {stderr}");
        }
    }
    // The commands that serve an agent need a named user, or every user asked for by name.
    for args in [&["call-tool", "get", r#"{"id": "b1"}"#][..], &["mcp"]] {
        let (out, stderr) = fails(memdag(&store).args(args));
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr.contains("--all-users"), "{stderr}");
        let (_, stderr) = fails(
            memdag(&store)
                .args(args)
                .args(["--user", "a", "--all-users"]),
        );
        assert!(stderr.contains("not both"), "{stderr}");
    }
    let hidden =
        fails(memdag(&store).args(["call-tool", "get", r#"{"id": "b1"}"#, "--user", "alice"]));
    assert!(hidden.1.contains("NOT_FOUND"), "{}", hidden.1);
    let all = ok(memdag(&store).args(["call-tool", "get", r#"{"id": "b1"}"#, "--all-users"]));
    assert!(all.contains("secret merger"), "{all}");
    // --all-users belongs to those two only.
    let (_, stderr) = fails(memdag(&store).args(["search", "secret", "--all-users"]));
    assert!(stderr.contains("does not take --all-users"), "{stderr}");
}

#[test]
fn working_memory_is_per_user_in_work_recall_and_the_recall_tool() {
    let (_dir, store) = store();
    // The issue's case: bob's goal, set without a user, and a user's own.
    ok(memdag(&store).args(["work", "set", "--thread", "default", "goal", "bob goal"]));
    ok(memdag(&store).args([
        "work",
        "set",
        "--thread",
        "default",
        "--user",
        "bob",
        "goal",
        "merge quietly",
    ]));
    ok(memdag(&store).args([
        "work",
        "set",
        "--thread",
        "default",
        "--user",
        "alice",
        "goal",
        "launch on time",
    ]));
    let tool = ok(memdag(&store).args([
        "call-tool",
        "recall",
        r#"{"thread": "default"}"#,
        "--user",
        "alice",
    ]));
    assert!(tool.contains("launch on time"), "{tool}");
    assert!(
        !tool.contains("bob goal") && !tool.contains("merge quietly"),
        "{tool}"
    );
    let recall = ok(memdag(&store).args(["recall", "--thread", "default", "--user", "alice"]));
    assert!(
        recall.contains("launch on time") && !recall.contains("merge"),
        "{recall}"
    );
    let show = ok(memdag(&store).args(["work", "show", "--thread", "default", "--user", "alice"]));
    assert!(
        show.contains("launch on time") && !show.contains("bob"),
        "{show}"
    );
    let history = ok(memdag(&store).args([
        "work", "history", "--thread", "default", "--user", "bob", "--json",
    ]));
    let changes: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 1, "{history}");
    assert_eq!(changes[0]["value"], "merge quietly");
    let nobody = ok(memdag(&store).args(["work", "show", "--thread", "default"]));
    assert!(
        nobody.contains("bob goal") && !nobody.contains("launch"),
        "{nobody}"
    );
    ok(memdag(&store).args(["work", "clear", "--thread", "default", "--user", "bob"]));
    let carol = ok(memdag(&store).args(["work", "show", "--thread", "default", "--user", "bob"]));
    assert!(carol.contains("has no working memory"), "{carol}");
}

#[test]
fn user_is_kept_by_recent_and_memory_history_and_refused_where_it_would_be_ignored() {
    let (dir, store) = store();
    let recent = ok(memdag(&store).args(["recent", "default", "--user", "alice"]));
    assert!(recent.contains("a1") && !recent.contains("b1"), "{recent}");
    let added = ok(memdag(&store).args([
        "memory",
        "add",
        "--user",
        "bob",
        "--json",
        "Bob lives in Rome",
    ]));
    let item: serde_json::Value = serde_json::from_str(&added).unwrap();
    let id = item["item"]["id"].as_str().unwrap().to_string();
    let (_, stderr) = fails(memdag(&store).args(["memory", "history", &id, "--user", "alice"]));
    assert!(stderr.contains("NOT_FOUND"), "{stderr}");
    let history = ok(memdag(&store).args(["memory", "history", &id, "--user", "bob"]));
    assert!(history.contains("Rome"), "{history}");
    // Commands that are not kept to a user refuse the flag rather than ignore it.
    let out = dir.path().join("out.jsonl");
    let refused: [Vec<String>; 4] = [
        vec![
            "export".into(),
            "--format".into(),
            "jsonl".into(),
            out.display().to_string(),
        ],
        vec![
            "ingest".into(),
            dir.path().join("turns.jsonl").display().to_string(),
        ],
        vec!["delete".into(), "a1".into()],
        vec!["memory".into(), "delete".into(), id.clone()],
    ];
    for args in refused {
        let (out, stderr) = fails(memdag(&store).args(&args).args(["--user", "alice"]));
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr.contains("does not take --user"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!out.exists(), "the refused export wrote nothing");
}

/// A JSONL file of [`common::wordy`] turns.
fn wordy(file: &Path, turns: usize) {
    let text: String = common::wordy(turns)
        .into_iter()
        .enumerate()
        .map(|(i, input)| {
            let turn = serde_json::json!({"id": format!("w{i}"), "thread": "logs", "createdAt": 0, "input": input});
            format!("{turn}\n")
        })
        .collect();
    std::fs::write(file, text).unwrap();
}

#[test]
fn the_issues_grep_pattern_answers_over_a_store_of_real_looking_text() {
    let dir = tempfile::tempdir().unwrap();
    let (file, store) = (dir.path().join("words.jsonl"), dir.path().join("store"));
    wordy(&file, 1500);
    ok(memdag(&store).arg("ingest").arg(&file));
    let found = ok(memdag(&store).args(["grep", r"(?:\w+\s+){30}zzz", "--json"]));
    // One JSON line per match.
    let ids: Vec<String> = found
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    assert_eq!(ids, ["\"w750\""], "{found}");
    let tool = ok(memdag(&store).args([
        "call-tool",
        "grep",
        r#"{"pattern": "(?:\\w+\\s+){30}zzz"}"#,
        "--all-users",
    ]));
    assert!(tool.contains("w750"), "{tool}");
}
