//! The context pipeline through the `memdag` binary: a scripted agent loop of 30 turns, each
//! `memdag prepare` before it (with a scripted `--llm-cmd`) and `memdag finish` after it, with
//! oversized tool outputs read back by line with `memdag read-blob`; the thread and user
//! listings, the memory settings and `work remove`. Needs the built component
//! (scripts/build-component.sh).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use common::cli::*;
use common::ok;
use serde_json::{json, Value};

const WINDOW: u64 = 3000;

/// A tool log of `lines` numbered lines.
fn tool_output(turn: usize, lines: usize) -> String {
    (0..lines)
        .map(|i| format!("turn {turn} line {i}: step ok, artifact /srv/app/build-{turn}-{i}.tar\n"))
        .collect()
}

/// One turn's messages in OpenAI's shape: the user, a tool call, its result, the reply.
fn turn_messages(turn: usize) -> Vec<Value> {
    let lines = if turn.is_multiple_of(3) { 400 } else { 12 };
    vec![
        json!({"role": "user", "content": format!("Turn {turn}: deploy service {turn} to staging; never touch prod.")}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("call-{turn}"), "type": "function", "function": {"name": "deploy", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": format!("call-{turn}"), "content": tool_output(turn, lines)}),
        json!({"role": "assistant", "content": format!("Service {turn} is deployed; we keep the canary at 5%.")}),
    ]
}

/// Runs `cmd` with `input` on its stdin; its stdout.
fn with_stdin(cmd: &mut std::process::Command, input: &str) -> String {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every tool result kept has its call kept before it.
fn assert_pairs_whole(messages: &[Value]) {
    let mut calls = BTreeSet::new();
    for m in messages {
        for c in m["toolCalls"].as_array().into_iter().flatten() {
            calls.insert(c.as_str().unwrap().to_string());
        }
        if let Some(id) = m["toolCallId"].as_str() {
            assert!(calls.contains(id), "tool result {id} kept without its call");
        }
    }
}

/// Reads a blob back through `memdag read-blob` from `line`, page by page.
fn read_back(store: &Path, id: &str, line: usize, user: &str) -> String {
    let mut text = String::new();
    let mut next = Some(line);
    while let Some(from) = next {
        let page: Value = serde_json::from_str(&ok(memdag(store).args([
            "read-blob",
            id,
            "--from-line",
            &from.to_string(),
            "--lines",
            "150",
            "--user",
            user,
            "--json",
        ])))
        .unwrap();
        text.push_str(page["text"].as_str().unwrap());
        next = page["nextLine"].as_u64().map(|n| n as usize);
    }
    text
}

#[test]
fn thirty_turns_through_prepare_and_finish() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let prompts = dir.path().join("prompts");
    std::fs::create_dir(&prompts).unwrap();
    // The scripted LLM keeps each prompt and answers with the six sections.
    let llm = script(
        dir.path(),
        "llm.sh",
        &format!(
            "n=$(ls {p} | wc -l)\ncat > {p}/$(printf %04d \"$n\").txt\nprintf '## Summary\\nDeploying services to staging.\\n## Goal\\nDeploy services to staging.\\n## Constraints\\nNever touch prod.\\n## Progress\\nDeployed the services so far.\\n## Key Decisions\\nCanary at 5%%.\\n## Next Steps\\nNone\\n## Critical Context\\n/srv/app\\n'",
            p = prompts.display()
        ),
    );
    let llm = llm.display().to_string();
    let messages_file = dir.path().join("messages.json");
    let mut originals: BTreeMap<String, String> = BTreeMap::new();
    let mut held: Vec<Value> = vec![json!({"role": "system", "content": "You deploy services."})];
    let (mut compactions, mut cut_seen) = (0u64, 0);
    let mut last: Option<String> = None;
    // The host clock: every open runs tool-output retention by it.
    let t0 = memdag_host::now_ms();
    for turn in 1..=30usize {
        let mut messages = turn_messages(turn);
        originals.insert(
            format!("call-{turn}"),
            messages[2]["content"].as_str().unwrap().into(),
        );
        let rest = messages.split_off(1);
        held.extend(messages);
        std::fs::write(&messages_file, serde_json::to_string(&held).unwrap()).unwrap();
        let now = (t0 + turn as i64 * 60_000).to_string();
        let p: Value = serde_json::from_str(&ok(memdag(&store)
            .arg("prepare")
            .arg(&messages_file)
            .args([
                "--thread",
                "deploy",
                "--user",
                "ana",
                "--window",
                &WINDOW.to_string(),
            ])
            .args(["--now", &now, "--json", "--llm-cmd", &llm])))
        .unwrap();
        let kept = p["keptTokens"].as_u64().unwrap();
        let summary = p["summaryTokens"].as_u64().unwrap();
        let recall = p["recallTokens"].as_u64().unwrap();
        assert!(
            kept + summary + recall <= WINDOW,
            "turn {turn}: {kept} + {summary} + {recall}"
        );
        assert_eq!(p["fits"], true);
        let kept_messages = p["messages"].as_array().unwrap();
        assert_pairs_whole(kept_messages);
        assert_eq!(kept_messages[0]["role"], "system");
        assert_eq!(
            kept_messages.last().unwrap()["content"],
            held.last().unwrap()["content"]
        );
        if p["compacted"].as_u64().unwrap() > 0 {
            compactions += 1;
            assert_eq!(p["summarizedBy"], "llm", "{p}");
            assert_eq!(p["summaryVersion"], compactions);
            assert!(p["summary"]
                .as_str()
                .unwrap()
                .contains("## Critical Context"));
        }
        for m in kept_messages.iter().filter(|m| m["role"] == "tool") {
            let content = m["content"].as_str().unwrap();
            let Some(at) = content.rfind("; full text in blob ") else {
                continue;
            };
            cut_seen += 1;
            let id = &content[at + 20..at + 37];
            let line: usize = content
                .rsplit("more from line ")
                .next()
                .unwrap()
                .trim_end_matches(']')
                .parse()
                .unwrap();
            let full = &originals[m["toolCallId"].as_str().unwrap()];
            let head: String = full.split_inclusive('\n').take(line - 1).collect();
            assert!(
                content.starts_with(&head),
                "the marker's line follows the shown head"
            );
            assert_eq!(
                head + &read_back(&store, id, line, "ana"),
                *full,
                "turn {turn}"
            );
        }
        held = kept_messages.clone();
        held.extend(rest);
        // The reply cites the turn before; finish makes it a parent.
        let cites = last
            .as_ref()
            .map(|id| format!(" (as in [{id}])"))
            .unwrap_or_default();
        let t = json!({"id": format!("t{turn}"), "thread": "deploy", "user": "ana",
            "createdAt": t0 + turn as i64 * 60_000, "input": format!("deploy service {turn}"),
            "output": format!("Service {turn} deployed{cites}")});
        let done: Value = serde_json::from_str(&with_stdin(
            memdag(&store).args(["finish", "-", "--json"]),
            &t.to_string(),
        ))
        .unwrap();
        let parents: Vec<Value> = last.iter().map(|l| json!(l)).collect();
        assert_eq!(done["parents"], json!(parents));
        assert_eq!(done["learned"]["turns"], 1);
        last = Some(format!("t{turn}"));
    }
    assert!(compactions >= 3, "compactions: {compactions}");
    assert!(cut_seen > 0, "no cut tool result was kept");
    let mut asked: Vec<_> = std::fs::read_dir(&prompts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    asked.sort();
    assert_eq!(asked.len() as u64, compactions);
    for (i, path) in asked.iter().enumerate() {
        let prompt = std::fs::read_to_string(path).unwrap();
        assert_eq!(prompt.contains("<previous_summary>"), i > 0, "prompt {i}");
    }
    // Another user cannot read ana's tool output, nor tell it from a missing one.
    let first = originals.len();
    assert!(first > 0);
    let listing = ok(memdag(&store).args(["threads", "--json"]));
    let thread: Value = serde_json::from_str(listing.lines().next().unwrap()).unwrap();
    assert_eq!(
        (thread["name"].as_str(), thread["count"].as_u64()),
        (Some("deploy"), Some(30))
    );
    let users = ok(memdag(&store).args(["users"]));
    assert!(users.starts_with("ana  "), "{users}");
}

#[test]
fn read_blob_keeps_to_its_user_and_settings_and_work_remove_change_what_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let messages = dir.path().join("m.json");
    let big = tool_output(1, 600);
    let conv = json!([
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": "", "toolCalls": ["c"]},
        {"role": "tool", "toolCallId": "c", "content": big},
    ]);
    std::fs::write(&messages, conv.to_string()).unwrap();
    let p: Value = serde_json::from_str(&ok(memdag(&store).arg("prepare").arg(&messages).args([
        "--thread", "t", "--user", "ana", "--window", "4000", "--json",
    ])))
    .unwrap();
    let id = p["blobIds"][0].as_str().unwrap().to_string();
    assert_eq!(read_back(&store, &id, 1, "ana"), big);
    // Human output: the text, with where to read on said on stderr.
    let out = memdag(&store)
        .args([
            "read-blob",
            &id,
            "--from-line",
            "2",
            "--lines",
            "2",
            "--user",
            "ana",
        ])
        .output()
        .unwrap();
    let expected: String = big.split_inclusive('\n').skip(1).take(2).collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    assert!(String::from_utf8_lossy(&out.stderr).contains("read on with --from-line 4"));
    for (user, id) in [("ben", id.as_str()), ("ana", "b0000000000000000")] {
        let out = failed(memdag(&store).args(["read-blob", id, "--user", user]));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"),
            "{user}"
        );
    }
    let blank = failed(memdag(&store).args(["prepare", "-", "--thread", "t", "--window", "0"]));
    assert!(String::from_utf8_lossy(&blank.stderr).contains("--window"));
    let bad =
        failed(memdag(&store).args(["prepare", "/dev/null", "--thread", "t", "--window", "100"]));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("INVALID_INPUT"));

    // Settings: one name changed, the rest kept; an unknown name or a bad value refused.
    let set: Value = serde_json::from_str(&ok(memdag(&store).args([
        "memory",
        "settings",
        "--set",
        r#"{"blobMaxAgeMs": 3600000}"#,
        "--json",
    ])))
    .unwrap();
    assert_eq!(set["blobMaxAgeMs"], 3_600_000);
    assert_eq!(set["dedupCosine"], 0.92);
    let read: Value =
        serde_json::from_str(&ok(memdag(&store).args(["memory", "settings", "--json"]))).unwrap();
    assert_eq!(read, set);
    for bad in [
        r#"{"nope": 1}"#,
        r#"{"blobMaxAgeMs": -5}"#,
        r#"{"conflict": 3}"#,
        "[]",
    ] {
        let out = failed(memdag(&store).args(["memory", "settings", "--set", bad]));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("INVALID_INPUT"),
            "{bad}"
        );
    }
    // Two hours on, past the age just set, prepare removes the stored output.
    let later = (memdag_host::now_ms() + 2 * 3_600_000).to_string();
    std::fs::write(
        &messages,
        json!([{"role": "user", "content": "next"}]).to_string(),
    )
    .unwrap();
    let p: Value = serde_json::from_str(&ok(memdag(&store).arg("prepare").arg(&messages).args([
        "--thread", "t", "--user", "ana", "--window", "4000", "--now", &later, "--json",
    ])))
    .unwrap();
    assert_eq!(p["expiredBlobs"], json!([id]));
    let out = failed(memdag(&store).args(["read-blob", &id, "--user", "ana"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"));

    // work remove drops one field and keeps the others.
    ok(memdag(&store).args([
        "work", "set", "--thread", "t", "--user", "ana", "goal", "ship it",
    ]));
    ok(memdag(&store).args([
        "work",
        "push",
        "--thread",
        "t",
        "--user",
        "ana",
        "notes",
        "check logs",
    ]));
    ok(memdag(&store).args(["work", "remove", "--thread", "t", "--user", "ana", "notes"]));
    let wm: Value = serde_json::from_str(&ok(
        memdag(&store).args(["work", "show", "--thread", "t", "--user", "ana", "--json"])
    ))
    .unwrap();
    assert_eq!(wm["fields"]["goal"]["value"], "ship it");
    assert!(wm["fields"].get("notes").is_none(), "{wm}");
    assert_eq!(
        wm["history"].as_array().unwrap().last().unwrap()["op"],
        "remove"
    );
}
