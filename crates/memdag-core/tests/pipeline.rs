//! The context pipeline: a scripted agent loop of 30 turns through `prepare` and `finish`,
//! with a scripted LLM and oversized tool outputs; an LLM that fails or answers badly; the
//! running summary kept per user and erased with them; a cut tool result read back by line.

mod common;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

use common::{apply, reload};
use memdag_core::context::{marker_blob_id, Message, Role};
use memdag_core::pipeline::{FinishOptions, PrepareOptions, Prepared, SummarizedBy};
use memdag_core::tokens::TokenCounter;
use memdag_core::{NewTurn, Store};

const WINDOW: usize = 3000;

fn clock() -> impl Fn() -> f64 {
    let t = Cell::new(0.0);
    move || {
        t.set(t.get() + 1.0);
        t.get()
    }
}

fn options(user: &str, turn: i64) -> PrepareOptions {
    PrepareOptions {
        thread: "deploy".into(),
        user: Some(user.into()),
        window: WINDOW,
        now: Some(1_700_000_000_000 + turn * 60_000),
        ..PrepareOptions::default()
    }
}

fn msg(role: Role, content: String) -> Message {
    Message {
        role,
        content,
        ..Message::default()
    }
}

/// A tool log of `lines` numbered lines: oversized every third turn.
fn tool_output(turn: usize, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!("turn {turn} line {i}: build step ok, artifact /srv/app/build-{turn}-{i}.tar\n")
        })
        .collect()
}

/// The messages of one turn: the user, an assistant tool call, its result, the reply.
fn turn_messages(turn: usize) -> Vec<Message> {
    let call = format!("call-{turn}");
    let lines = if turn.is_multiple_of(3) { 400 } else { 12 };
    vec![
        msg(
            Role::User,
            format!("Turn {turn}: please deploy service {turn} to staging; never touch prod."),
        ),
        Message {
            role: Role::Assistant,
            content: format!("Running the deploy script for service {turn}."),
            tool_calls: vec![call.clone()],
            ..Message::default()
        },
        Message {
            role: Role::Tool,
            content: tool_output(turn, lines),
            tool_call_id: Some(call),
            ..Message::default()
        },
        msg(
            Role::Assistant,
            format!("Service {turn} is deployed; we decided to keep the canary at 5%."),
        ),
    ]
}

/// Every tool result kept has the assistant message with its call kept before it.
fn assert_pairs_whole(messages: &[Message]) {
    let mut calls = BTreeSet::new();
    for m in messages {
        calls.extend(m.tool_calls.iter().cloned());
        if let Some(id) = &m.tool_call_id {
            assert!(calls.contains(id), "tool result {id} kept without its call");
        }
    }
}

/// A scripted LLM: answers every summary prompt with the six sections, naming the turns it
/// saw, and records the prompts.
fn scripted(prompts: &mut Vec<String>) -> impl FnMut(&str) -> Result<String, String> + '_ {
    move |prompt: &str| {
        prompts.push(prompt.to_string());
        let turns: Vec<&str> = prompt
            .match_indices("Turn ")
            .map(|(i, _)| prompt[i + 5..].split(':').next().unwrap_or(""))
            .collect();
        Ok(format!(
            "## Summary\nDeploying services to staging.\n## Goal\nDeploy services to staging.\n\
             ## Constraints\nNever touch prod.\n## Progress\nDeployed turns {}.\n\
             ## Key Decisions\nCanary at 5%.\n## Next Steps\nNone\n## Critical Context\n/srv/app",
            turns.join(", ")
        ))
    }
}

#[test]
fn thirty_turns_keep_the_window_the_pairs_and_an_incremental_summary() {
    let counter = TokenCounter::default();
    let mut store = Store::new();
    let mut kv = BTreeMap::new();
    let mut held: Vec<Message> = vec![msg(Role::System, "You deploy services.".into())];
    let mut prompts = Vec::new();
    let mut compactions = 0;
    let mut cut_seen = 0;
    let mut last_record: Option<String> = None;
    let time = clock();
    for turn in 1..=30 {
        // A turn starts with the user's message; prepare runs before the model sees it.
        let mut messages = turn_messages(turn);
        let rest = messages.split_off(1);
        held.extend(messages);
        let mut llm = scripted(&mut prompts);
        let p: Prepared = store
            .prepare_with(
                held.clone(),
                options("ana", turn as i64),
                Some(&mut llm),
                &time,
            )
            .unwrap();
        // The kept messages, the summary and the recall block fit the window.
        assert!(
            p.fits,
            "turn {turn}: {} + {} + {}",
            p.kept_tokens, p.summary_tokens, p.recall_tokens
        );
        assert!(p.kept_tokens + p.summary_tokens + p.recall_tokens <= WINDOW);
        assert_eq!(
            p.kept_tokens,
            p.messages.iter().map(|m| m.tokens(&counter)).sum::<usize>()
        );
        assert_pairs_whole(&p.messages);
        assert_eq!(
            p.messages[0].role,
            Role::System,
            "the system message stays first"
        );
        assert!(p.timings.total_ms >= p.timings.truncate_ms + p.timings.check_ms);
        if p.compacted > 0 {
            compactions += 1;
            assert_eq!(p.summarized_by, SummarizedBy::Llm);
            assert_eq!(p.summary_version, compactions);
            assert!(p
                .summary
                .as_deref()
                .unwrap()
                .contains("## Critical Context"));
        }
        // Every cut tool result reads back exactly from the line its marker names.
        for m in p.messages.iter().filter(|m| m.role == Role::Tool) {
            if let Some(id) = marker_blob_id(&m.content) {
                cut_seen += 1;
                let line: usize = m
                    .content
                    .rsplit("more from line ")
                    .next()
                    .unwrap()
                    .trim_end_matches(']')
                    .parse()
                    .unwrap();
                let full = store.blob(id).unwrap().to_string();
                let head: String = full.split_inclusive('\n').take(line - 1).collect();
                assert!(
                    m.content.starts_with(&head),
                    "the marker's line follows the shown head"
                );
                let mut read = head.clone();
                let mut next = Some(line);
                while let Some(from) = next {
                    let page = store.read_blob(id, from, 50).unwrap();
                    read.push_str(&page.text);
                    next = page.next_line;
                }
                assert_eq!(read, full);
            }
        }
        // The newest user message is always kept.
        assert_eq!(
            p.messages.last().unwrap().content,
            held.last().unwrap().content
        );
        // The agent goes on with what prepare kept (its tool loop and reply), and writes the
        // turn citing the last one.
        held = p.messages;
        held.extend(rest);
        // The reply cites the turn before as [id]; one turn also names a parent that does not
        // exist (a model's typo), which is dropped, not fatal.
        let cites = last_record
            .as_ref()
            .map(|id| format!(" (as in [{id}])"))
            .unwrap_or_default();
        let named: Vec<String> = if turn == 5 {
            vec!["t-typo".into()]
        } else {
            Vec::new()
        };
        let finished = store
            .finish(
                NewTurn {
                    id: Some(format!("t{turn}")),
                    thread: "deploy".into(),
                    user: "ana".into(),
                    input: format!("Turn {turn}: deploy service {turn}"),
                    output: format!("Service {turn} deployed{cites}"),
                    parents: named.clone(),
                    created_at: 1_700_000_000_000 + turn as i64 * 60_000,
                    ..NewTurn::default()
                },
                FinishOptions::default(),
            )
            .unwrap();
        let record = finished.record;
        let parents: Vec<String> = last_record.iter().cloned().collect();
        assert_eq!(record.parents, parents);
        assert_eq!(finished.cited, parents);
        assert_eq!(finished.dropped, named);
        assert_eq!(finished.learned.unwrap().turns, 1);
        last_record = Some(record.id);
        apply(&mut kv, &mut store);
    }
    assert!(compactions >= 3, "compactions: {compactions}");
    assert!(cut_seen > 0, "no tool result was cut");
    // From the second compaction on, the prompt carried the previous summary.
    assert_eq!(prompts.len(), compactions as usize);
    assert!(!prompts[0].contains("<previous_summary>"));
    for (i, p) in prompts.iter().enumerate().skip(1) {
        assert!(
            p.contains("<previous_summary>\n## Summary\nDeploying services"),
            "prompt {i}"
        );
    }
    // The summary and the blobs are stored: a reload has them.
    let again = reload(&kv).unwrap();
    assert_eq!(
        again.running_summary("deploy", Some("ana")),
        store.running_summary("deploy", Some("ana"))
    );
    assert_eq!(
        again
            .running_summary("deploy", Some("ana"))
            .unwrap()
            .version,
        compactions
    );
}

fn long_conversation() -> Vec<Message> {
    let mut m = vec![msg(Role::System, "sys".into())];
    for turn in 1..=12 {
        m.extend(turn_messages(turn));
    }
    m
}

#[test]
fn without_an_llm_or_with_one_that_fails_the_rules_summarise_and_nothing_is_lost() {
    let time = clock();
    let mut store = Store::new();
    let plain = store
        .prepare_with(long_conversation(), options("ana", 1), None, &time)
        .unwrap();
    assert_eq!(plain.summarized_by, SummarizedBy::Rules);
    assert!(plain.compacted > 0 && plain.llm_error.is_none() && plain.fits);
    assert!(plain
        .summary
        .as_deref()
        .unwrap()
        .contains("never touch prod"));

    let mut failing = |_: &str| -> Result<String, String> { Err("model overloaded".into()) };
    let failed = store
        .prepare_with(
            long_conversation(),
            options("ben", 1),
            Some(&mut failing),
            &time,
        )
        .unwrap();
    assert_eq!(failed.summarized_by, SummarizedBy::Rules);
    assert!(
        failed.llm_error.as_deref().unwrap().starts_with("HOST: "),
        "{:?}",
        failed.llm_error
    );
    assert!(failed
        .llm_error
        .as_deref()
        .unwrap()
        .contains("model overloaded"));
    assert_eq!(
        failed.messages, plain.messages,
        "the same messages are kept"
    );
    assert_eq!(failed.compacted, plain.compacted);

    let mut garbled = |_: &str| -> Result<String, String> { Ok("sure! here you go".into()) };
    let bad = store
        .prepare_with(
            long_conversation(),
            options("cy", 1),
            Some(&mut garbled),
            &time,
        )
        .unwrap();
    assert_eq!(bad.summarized_by, SummarizedBy::Rules);
    assert!(bad.llm_error.is_some());
    // The rules' second update merges into the first: the goal stands, progress grows.
    let first = store.running_summary("deploy", Some("ana")).unwrap();
    let mut more = long_conversation();
    for turn in 13..=20 {
        more.extend(turn_messages(turn));
    }
    store
        .prepare_with(more, options("ana", 2), None, &time)
        .unwrap();
    let second = store.running_summary("deploy", Some("ana")).unwrap();
    assert_eq!(second.version, first.version + 1);
    assert!(second.messages > first.messages);
    let goal = |s: &memdag_core::pipeline::RunningSummary| s.node.sections[0].text.clone();
    assert_eq!(goal(&second), goal(&first));
}

#[test]
fn a_short_conversation_is_left_whole_and_bad_options_change_nothing() {
    let time = clock();
    let mut store = Store::new();
    let short = turn_messages(1)[..2].to_vec();
    let p = store
        .prepare_with(short.clone(), options("ana", 1), None, &time)
        .unwrap();
    assert_eq!(
        (p.messages, p.compacted, p.summary),
        (short.clone(), 0, None)
    );
    assert_eq!(p.summarized_by, SummarizedBy::None);
    for bad in [
        PrepareOptions {
            window: 0,
            ..options("ana", 1)
        },
        PrepareOptions {
            thread: String::new(),
            ..options("ana", 1)
        },
        PrepareOptions {
            summary_tokens: Some(WINDOW),
            ..options("ana", 1)
        },
        PrepareOptions {
            user: Some(String::new()),
            ..options("ana", 1)
        },
    ] {
        let e = store
            .prepare_with(long_conversation(), bad, None, &time)
            .unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT");
    }
    assert_eq!(store.running_summary("deploy", Some("ana")), None);
    assert!(!store.has_changes() || store.blob_ids().next().is_none());
}

#[test]
fn a_running_summary_is_its_users_and_goes_with_them() {
    let time = clock();
    let mut store = Store::new();
    store
        .prepare_with(long_conversation(), options("ana", 1), None, &time)
        .unwrap();
    store
        .prepare_with(long_conversation(), options("ben", 1), None, &time)
        .unwrap();
    assert!(store.running_summary("deploy", Some("ana")).is_some());
    assert_eq!(
        store.running_summary("deploy", None),
        None,
        "no user's is another"
    );
    assert_eq!(store.running_summary("deploy", Some("cy")), None);
    store.forget_user("ana").unwrap();
    assert_eq!(store.running_summary("deploy", Some("ana")), None);
    assert!(store.running_summary("deploy", Some("ben")).is_some());
    assert!(store.clear_running_summary("deploy", Some("ben")));
    assert!(!store.clear_running_summary("deploy", Some("ben")));
}

#[test]
fn read_blob_pages_by_line_and_names_a_missing_blob() {
    let mut store = Store::new();
    let text = "one\ntwo\nthree\nfour";
    let id = store.put_blob(text).unwrap();
    let page = store.read_blob(&id, 2, 2).unwrap();
    assert_eq!(
        (page.text.as_str(), page.from_line, page.lines),
        ("two\nthree\n", 2, 2)
    );
    assert_eq!((page.total_lines, page.next_line), (4, Some(4)));
    let last = store.read_blob(&id, 4, 10).unwrap();
    assert_eq!(
        (last.text.as_str(), last.lines, last.next_line),
        ("four", 1, None)
    );
    let all = store.read_blob(&id, 0, 0).unwrap();
    assert_eq!((all.text.as_str(), all.from_line), (text, 1));
    let past = store.read_blob(&id, 9, 1).unwrap();
    assert_eq!(
        (past.text.as_str(), past.lines, past.next_line),
        ("", 0, None)
    );
    assert_eq!(
        store
            .read_blob("b0000000000000000", 1, 1)
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
}
