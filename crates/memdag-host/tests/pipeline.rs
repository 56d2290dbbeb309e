//! The context pipeline of the WIT face on the real component under Wasmtime, through the
//! host library: `prepare` with the host's LLM (incremental running summary, a failing LLM,
//! tool results read back by line with `read-blob`, kept to their user), `finish` with cited
//! parents, `retain-blobs`, `running-summary`; and the functions no other test ran: `cited`,
//! `add-turn-with`, `users`, the `as-of` fields of item and graph queries, recall's weights
//! and half-life, and search's importance and recency weights. Needs the built component
//! (scripts/build-component.sh).

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use memdag_host::{
    finish_options, graph_query, item_query, item_update, new_item, prepare_options, recall_query,
    search_query, ItemKind, Memory, Message, OpenOptions, RecallWeights, Role, SearchMode,
    SummarizedBy,
};

use common::{runtime, turn, SharedKv};

const DAY: i64 = 86_400_000;

fn message(role: Role, content: String) -> Message {
    Message {
        role,
        content,
        tool_call_id: None,
        tool_calls: Vec::new(),
    }
}

fn tool_output(turn: usize, lines: usize) -> String {
    (0..lines)
        .map(|i| format!("turn {turn} line {i}: step ok, artifact /srv/app/build-{turn}-{i}.tar\n"))
        .collect()
}

/// The user's message, a tool call, its (every third turn oversized) result, the reply.
fn turn_messages(turn: usize) -> Vec<Message> {
    let call = format!("call-{turn}");
    let lines = if turn.is_multiple_of(3) { 400 } else { 12 };
    vec![
        message(
            Role::User,
            format!("Turn {turn}: deploy service {turn}; never touch prod."),
        ),
        Message {
            tool_calls: vec![call.clone()],
            ..message(Role::Assistant, "Deploying.".into())
        },
        Message {
            tool_call_id: Some(call),
            ..message(Role::Tool, tool_output(turn, lines))
        },
        message(Role::Assistant, format!("Service {turn} deployed.")),
    ]
}

fn assert_pairs_whole(messages: &[Message]) {
    let mut calls = BTreeSet::new();
    for m in messages {
        calls.extend(m.tool_calls.iter().cloned());
        if let Some(id) = &m.tool_call_id {
            assert!(calls.contains(id), "tool result {id} kept without its call");
        }
    }
}

/// A blob read back page by page from `line`.
fn read_back(memory: &mut Memory, id: &str, line: u32, user: &str) -> String {
    let (mut text, mut next) = (String::new(), Some(line));
    while let Some(from) = next {
        let page = memory.read_blob(id, from, 64, Some(user)).unwrap();
        text.push_str(&page.text);
        next = page.next_line;
    }
    text
}

#[test]
fn prepare_and_finish_keep_the_window_fold_incrementally_and_read_back_by_line() {
    let kv = SharedKv::default();
    let prompts = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = prompts.clone();
    let llm = move |prompt: &str| {
        seen.lock().unwrap().push(prompt.to_string());
        Ok("## Summary\nDeploying.\n## Goal\nDeploy services.\n## Constraints\nNever touch prod.\n\
            ## Progress\nSome deployed.\n## Key Decisions\nNone\n## Next Steps\nNone\n\
            ## Critical Context\n/srv/app"
            .to_string())
    };
    let mut memory = runtime()
        .open_with(kv.clone(), OpenOptions::new().llm(llm))
        .unwrap();
    let t0 = memdag_host::now_ms();
    let mut held = vec![message(Role::System, "You deploy services.".into())];
    let (mut compactions, mut cut_seen) = (0, 0);
    let mut last: Option<String> = None;
    for n in 1..=20usize {
        let mut messages = turn_messages(n);
        let rest = messages.split_off(1);
        held.extend(messages);
        let mut options = prepare_options("deploy", Some("ana"), 2400);
        options.use_llm = true;
        options.now = Some(t0 + n as i64 * 60_000);
        let p = memory.prepare(&held, &options).unwrap();
        assert!(p.fits && p.kept_tokens + p.summary_tokens + p.recall_tokens <= 2400);
        assert_pairs_whole(&p.messages);
        assert_eq!(p.messages[0].role, Role::System);
        assert!(p.timings.total_ms >= p.timings.recall_ms);
        if p.compacted > 0 {
            compactions += 1;
            assert_eq!(p.summarized_by, SummarizedBy::Llm);
            assert_eq!(p.summary_version, compactions);
        }
        for m in p.messages.iter().filter(|m| m.role == Role::Tool) {
            let Some(at) = m.content.rfind("; full text in blob ") else {
                continue;
            };
            cut_seen += 1;
            let id = &m.content[at + 20..at + 37];
            let line: u32 = m
                .content
                .rsplit("more from line ")
                .next()
                .unwrap()
                .trim_end_matches(']')
                .parse()
                .unwrap();
            let turn: usize = m.tool_call_id.as_ref().unwrap()[5..].parse().unwrap();
            let full = tool_output(turn, if turn.is_multiple_of(3) { 400 } else { 12 });
            let head: String = full.split_inclusive('\n').take(line as usize - 1).collect();
            let read = head + &read_back(&mut memory, id, line, "ana");
            assert!(read == full, "turn {turn}: the blob read back differs");
            let other = memory.read_blob(id, 1, 1, Some("ben")).unwrap_err();
            assert_eq!(other.code(), Some("NOT_FOUND"));
        }
        held = p.messages;
        held.extend(rest);
        let mut t = turn(&format!("t{n}"), "deploy", t0 + n as i64 * 60_000, &[]);
        t.user = "ana".into();
        t.output = match &last {
            Some(id) => format!("Deployed, as in [{id}]"),
            None => "Deployed".into(),
        };
        t.parents = if n == 4 {
            vec!["t-typo".into()]
        } else {
            Vec::new()
        };
        let done = memory.finish(&t, finish_options()).unwrap();
        let expected: Vec<String> = last.iter().cloned().collect();
        assert_eq!(done.record.parents, expected);
        assert_eq!(done.cited, expected);
        assert_eq!(done.dropped.len(), usize::from(n == 4));
        assert_eq!(done.learned.as_ref().unwrap().turns, 1);
        last = Some(done.record.id);
    }
    assert!(compactions >= 2 && cut_seen > 0, "{compactions} {cut_seen}");
    let asked = prompts.lock().unwrap().clone();
    assert_eq!(asked.len() as u32, compactions);
    assert!(asked
        .iter()
        .skip(1)
        .all(|p| p.contains("<previous_summary>")));
    assert!(!asked[0].contains("<previous_summary>"));
    let summary = memory
        .running_summary("deploy", Some("ana"))
        .unwrap()
        .unwrap();
    assert!(summary.contains("## Critical Context"));
    assert_eq!(memory.running_summary("deploy", Some("ben")).unwrap(), None);
    // A reopened store has the summary, and retention by a clock two weeks on empties the blobs.
    let mut again = runtime().open(kv.clone(), None).unwrap();
    assert_eq!(
        again.running_summary("deploy", Some("ana")).unwrap(),
        Some(summary)
    );
    let gone = again.retain_blobs(Some(t0 + 14 * DAY)).unwrap();
    assert!(!gone.is_empty());
    assert_eq!(again.get_blob(&gone[0]).unwrap(), None);
}

#[test]
fn a_failing_llm_leaves_the_rules_to_summarise_and_keeps_the_messages() {
    let llm = |_: &str| -> Result<String, String> { Err("model overloaded".into()) };
    let mut memory = runtime()
        .open_with(SharedKv::default(), OpenOptions::new().llm(llm))
        .unwrap();
    let mut messages = vec![message(Role::System, "sys".into())];
    for n in 1..=12 {
        messages.extend(turn_messages(n));
    }
    let mut options = prepare_options("deploy", Some("ana"), 3000);
    options.use_llm = true;
    let failed = memory.prepare(&messages, &options).unwrap();
    assert_eq!(failed.summarized_by, SummarizedBy::Rules);
    let why = failed.llm_error.unwrap();
    assert!(
        why.starts_with("HOST: ") && why.contains("model overloaded"),
        "{why}"
    );
    options.use_llm = false;
    options.thread = "other".into();
    let rules = memory.prepare(&messages, &options).unwrap();
    assert_eq!(rules.llm_error, None);
    assert_eq!(
        rules.messages, failed.messages,
        "the same messages are kept"
    );
    options.window = 0;
    assert_eq!(
        memory.prepare(&messages, &options).unwrap_err().code(),
        Some("INVALID_INPUT")
    );
}

#[test]
fn cited_add_turn_with_users_as_of_and_the_ranking_knobs() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    let now = memdag_host::now_ms();
    for (id, user, input) in [
        ("a", "ana", "the staging database runs postgres"),
        ("b", "ben", "the staging database is read only"),
    ] {
        let mut t = turn(id, "db", now - DAY, &[]);
        t.user = user.into();
        t.input = input.into();
        memory.add_turn(t).unwrap();
    }
    // cited: only ids the user may see, once each, in order.
    assert_eq!(
        memory.cited("see [b], [a], [a] and [zz]", None).unwrap(),
        ["b", "a"]
    );
    assert_eq!(memory.cited("see [b], [a]", Some("ana")).unwrap(), ["a"]);
    assert_eq!(
        memory.cited("x", Some(" ")).unwrap_err().code(),
        Some("INVALID_INPUT")
    );
    // add-turn-with: unknown parents dropped and reported, or refused.
    let mut t = turn("c", "db", now, &["a", "ghost"]);
    t.user = "ana".into();
    t.input = "the staging database got a new index".into();
    let added = memory.add_turn_with(&t, true).unwrap();
    assert_eq!(
        (added.record.parents.clone(), added.dropped.clone()),
        (vec!["a".to_string()], vec!["ghost".to_string()])
    );
    t.id = Some("d".into());
    assert_eq!(
        memory.add_turn_with(&t, false).unwrap_err().code(),
        Some("UNKNOWN_PARENT")
    );
    // threads, and the Markdown and JSONL exports read back into a new store.
    let threads = memory.thread_groups().unwrap();
    assert_eq!((threads[0].name.as_str(), threads[0].count), ("db", 3));
    let markdown = memory.export_markdown().unwrap();
    assert!(markdown
        .iter()
        .any(|(path, text)| path.contains("db") && text.contains("read only")));
    let mut copy = runtime().open(SharedKv::default(), None).unwrap();
    let imported = copy.import_markdown(&markdown).unwrap();
    assert_eq!(imported.turns, 3);
    assert_eq!(copy.get("c").unwrap().unwrap().parents, ["a"]);
    let jsonl = memory.export_jsonl().unwrap();
    assert_eq!(jsonl.lines().count(), 3);
    assert!(jsonl.lines().all(|l| l.starts_with('{')));
    // users: every user with records, newest activity first.
    let users = memory.user_groups().unwrap();
    let names: Vec<&str> = users.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["ana", "ben"]);
    assert_eq!(users[0].count, 2);

    // as-of: an item as it was before its update, and the graph as it was.
    let mut item = new_item(ItemKind::Personal, "ana", "Ana lives in Lisbon");
    item.subject = Some("ana".into());
    item.relation = Some("residence".into());
    item.object = Some("Lisbon".into());
    item.created_at = now - 10 * DAY;
    let learned = memory.add_item(&item).unwrap();
    let mut change = item_update(now - DAY);
    change.text = Some("Ana lives in Porto".into());
    change.object = Some("Porto".into());
    memory.update_item(&learned.item.id, &change).unwrap();
    let mut q = item_query();
    q.user = Some("ana".into());
    assert_eq!(memory.list_items(&q).unwrap()[0].text, "Ana lives in Porto");
    q.as_of = Some(now - 5 * DAY);
    assert_eq!(
        memory.list_items(&q).unwrap()[0].text,
        "Ana lives in Lisbon"
    );
    let mut g = graph_query();
    g.as_of = Some(now - 5 * DAY);
    let then = memory.neighbors("ana", 1, &g).unwrap();
    assert!(
        then.nodes
            .iter()
            .any(|n| n.entity.eq_ignore_ascii_case("lisbon")),
        "{:?}",
        then.nodes
    );
    g.as_of = None;
    let today = memory.neighbors("ana", 1, &g).unwrap();
    assert!(today
        .nodes
        .iter()
        .any(|n| n.entity.eq_ignore_ascii_case("porto")));

    // Recall's weights and half-life change the scores.
    let mut r = recall_query("db", Some("ana"));
    r.now = Some(now);
    let plain = memory.recall(&r).unwrap();
    r.weights = Some(RecallWeights {
        recency: 0.0,
        importance: 0.0,
        access: 0.0,
        relevance: 1.0,
        known: 1.0,
        thread: 0.1,
        user: 0.6,
        matched: 0.8,
        ancestor: 0.9,
    });
    r.half_life_ms = Some(DAY);
    let weighed = memory.recall(&r).unwrap();
    let score =
        |rc: &memdag_host::Recall, id: &str| rc.items.iter().find(|i| i.id == id).map(|i| i.score);
    assert!(score(&plain, "c").is_some());
    assert_ne!(score(&plain, "c"), score(&weighed, "c"));
    r.weights.as_mut().unwrap().recency = -1.0;
    assert_eq!(memory.recall(&r).unwrap_err().code(), Some("INVALID_INPUT"));

    // Search: importance and recency reorder when asked, and are range-checked.
    let mut s = search_query("staging database", SearchMode::Bm25, 5);
    s.context = Some(0.0);
    s.thread_scope = Some(0.0);
    let ids = |m: &mut Memory, q: &memdag_host::SearchQuery| -> Vec<String> {
        m.search(q).unwrap().into_iter().map(|h| h.id).collect()
    };
    let before = ids(&mut memory, &s);
    s.recency_weight = Some(1.0);
    s.half_life_ms = Some(DAY / 24);
    s.now = Some(now);
    let recent = ids(&mut memory, &s);
    assert_eq!(
        recent[0], "c",
        "the newest turn first: {recent:?} (before {before:?})"
    );
    s.importance_weight = Some(2.0);
    assert_eq!(memory.search(&s).unwrap_err().code(), Some("INVALID_INPUT"));
}
