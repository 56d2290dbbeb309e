//! Issue 30 through the `memdag` binary: an empty user is refused and serving every user is
//! asked for by name (item 5), working memory per user (6), `--user` kept or refused (7),
//! grep bounded by work (10), host command output and input lines capped (11), control
//! characters escaped in human output (12), and ingest and import (13): id-less turns that do
//! not duplicate when a file is reformatted, conflicting ids reported, empty imports refused.
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

#[test]
fn host_command_output_and_input_lines_are_capped() {
    let (dir, store) = store();
    let file = dir.path().join("new.jsonl");
    std::fs::write(&file, r#"{"thread": "t", "input": "hello"}"#).unwrap();
    // A flooding embedder: stopped at the cap, not at the (long) timeout.
    let (_, stderr) = fails(
        memdag(&store)
            .args(["--embed-cmd", "yes", "--cmd-timeout", "600", "ingest"])
            .arg(&file),
    );
    assert!(stderr.contains("printed more than 64 MiB"), "{stderr}");
    let (_, stderr) = fails(memdag(&store).args([
        "--llm-cmd",
        "cat /dev/zero",
        "--cmd-timeout",
        "600",
        "compact",
        "a1",
    ]));
    assert!(stderr.contains("printed more than 64 MiB"), "{stderr}");
    // A line that never ends: refused at the cap, with its number.
    let (_, stderr) = fails(memdag(&store).args(["ingest", "/dev/zero"]));
    assert!(
        stderr.contains("/dev/zero:1") && stderr.contains("longer than 64 MiB"),
        "{stderr}"
    );
    let (_, stderr) = fails(memdag(&store).args(["search", "--batch", "/dev/zero"]));
    assert!(stderr.contains("too long"), "{stderr}");
    let (_, stderr) = fails(memdag(&store).args(["import", "/dev/zero"]));
    assert!(stderr.contains("larger than 256 MiB"), "{stderr}");
    let listed = ok(memdag(&store).args(["recent", "default"]));
    assert_eq!(listed.lines().count(), 2, "nothing was added: {listed}");
}

#[test]
fn stored_terminal_controls_are_escaped_in_human_output_and_kept_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let (file, store) = (dir.path().join("evil.jsonl"), dir.path().join("store"));
    let evil = "title \u{1b}]0;pwned\u{7} clear \u{1b}[2J bell \u{7} csi \u{9b}31m cr \r end";
    let turn = serde_json::json!({"id": "e1", "thread": "t", "createdAt": 0, "input": evil, "output": "ok"});
    std::fs::write(&file, format!("{turn}\n")).unwrap();
    ok(memdag(&store).arg("ingest").arg(&file));
    for (args, shows_it) in [
        (&["show", "e1"][..], true),
        (&["recent", "t"], true),
        (&["recall", "--thread", "t"], true),
        (&["search", "title clear bell"], false),
        (&["grep", "pwned.*end"], false),
    ] {
        let out = memdag(&store).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{9b}', '\r']),
            "{args:?} printed a raw control: {text:?}"
        );
        assert!(
            !shows_it || text.contains("\\x1b]0;pwned\\x07"),
            "{args:?} shows the escape: {text}"
        );
    }
    // JSON output keeps the exact text, in valid JSON, with no raw control byte either.
    let out = memdag(&store)
        .args(["search", "pwned", "--json"])
        .output()
        .unwrap();
    assert!(!out.stdout.iter().any(|&b| b == 0x1b || b == 0x07));
    let tool = ok(memdag(&store).args(["call-tool", "get", r#"{"id": "e1"}"#, "--all-users"]));
    assert!(!tool.contains('\u{9b}'), "{tool:?}");
    let record: serde_json::Value = serde_json::from_str(&tool).unwrap();
    assert_eq!(record["input"], evil);
    // A stored id with a control character cannot drive the terminal through an error.
    let (_, stderr) = fails(memdag(&store).args(["show", "no\u{1b}[2Jpe"]));
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

#[test]
fn id_less_turns_keep_their_ids_when_the_file_is_reformatted() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let turns: Vec<serde_json::Value> = (0..20)
        .map(|i| serde_json::json!({"thread": "t", "createdAt": 1000 + i, "input": format!("step {i}"), "output": "ok"}))
        .chain(vec![serde_json::json!({"thread": "t", "createdAt": 5000, "input": "yes"}); 2])
        .collect();
    // As written: blank lines between the turns.
    let spaced: String = turns.iter().map(|t| format!("{t}\n\n")).collect();
    let first = dir.path().join("first.jsonl");
    std::fs::write(&first, spaced).unwrap();
    let added = ok(memdag(&store).arg("ingest").arg(&first));
    assert!(
        added.contains("ingested 22 turns"),
        "two equal turns stay two: {added}"
    );
    // Reformatted: no blank lines, other spacing, keys in another order.
    let reformatted: String = turns
        .iter()
        .map(|t| {
            let o = t.as_object().unwrap();
            let mut keys: Vec<&String> = o.keys().collect();
            keys.reverse();
            let fields: Vec<String> = keys
                .iter()
                .map(|k| format!("{:?} : {}", k, o[*k]))
                .collect();
            format!("{{ {} }}\n", fields.join(" , "))
        })
        .collect();
    let second = dir.path().join("second.jsonl");
    std::fs::write(&second, reformatted).unwrap();
    let again = ok(memdag(&store).arg("ingest").arg(&second));
    assert!(
        again.contains("ingested 0 turns (22 already stored)"),
        "{again}"
    );
    // A store written by an earlier version holds ids from the line number and text.
    let legacy_store = dir.path().join("legacy");
    let line = r#"{"thread":"t","createdAt":7,"input":"from an older memdag"}"#;
    let mut h = memdag_core::hash::Fnv::new();
    h.write(&1u64.to_le_bytes());
    h.write(line.as_bytes());
    let old_id = format!("l{:016x}", h.finish());
    let old = serde_json::json!({"id": old_id, "thread": "t", "createdAt": 7, "input": "from an older memdag"});
    let seeded = dir.path().join("seed.jsonl");
    std::fs::write(&seeded, format!("{old}\n")).unwrap();
    ok(memdag(&legacy_store).arg("ingest").arg(&seeded));
    let plain = dir.path().join("plain.jsonl");
    std::fs::write(&plain, format!("{line}\n")).unwrap();
    let rerun = ok(memdag(&legacy_store).arg("ingest").arg(&plain));
    assert!(
        rerun.contains("ingested 0 turns (1 already stored)"),
        "{rerun}"
    );
}

#[test]
fn a_stored_id_with_other_text_is_reported_and_empty_imports_fail() {
    let (dir, store) = store();
    let other = dir.path().join("other.jsonl");
    std::fs::write(
        &other,
        concat!(
            r#"{"id":"a1","thread":"default","user":"alice","input":"a different text"}"#,
            "\n",
            r#"{"id":"b1","thread":"default","user":"bob","createdAt":"2026-11-27T09:01:00Z","input":"bob plans the secret merger","output":"noted"}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = memdag(&store).arg("ingest").arg(&other).output().unwrap();
    assert!(out.status.success());
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stdout.contains("2 already stored, 1 of them with other text"),
        "{stdout}"
    );
    assert!(
        stderr.contains("1 turns not added") && stderr.contains("a1"),
        "{stderr}"
    );
    let json = ok(memdag(&store).arg("ingest").arg(&other).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["conflicts"], serde_json::json!(["a1"]));
    assert_eq!(v["skipped"], 2);
    // The same through import.
    let imported = ok(memdag(&store).arg("import").arg(&other).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&imported).unwrap();
    assert_eq!(v["conflicts"], serde_json::json!(["a1"]), "{imported}");
    // Nothing to import is an error: an empty file, a snapshot that is only its magic.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let magic = dir.path().join("magic.mdagexp");
    std::fs::write(&magic, b"MDAGEXP1").unwrap();
    let fresh = dir.path().join("fresh");
    for file in [&empty, &magic] {
        let (out, stderr) = fails(memdag(&fresh).arg("import").arg(file));
        assert_ne!(out.status.code(), Some(0));
        assert!(stderr.contains("INVALID_INPUT"), "{stderr}");
    }
}
