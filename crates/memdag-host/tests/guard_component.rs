//! Issue 30 in the WIT face, the component under Wasmtime through the host library: an empty
//! user (`some("")`) is invalid-input in every function and query that takes one (item 5),
//! working memory per user (6), `recent` and `item-history` kept to a user (7), and grep
//! bounded by work: the issue's pattern over a store runs within a deterministic fuel budget
//! (10). Needs `memdag_component.wasm`: run scripts/build-component.sh.

mod common;

use common::{ids, runtime, SharedKv};
use memdag_host::{
    extract_query, graph_query, grep_query, item_query, new_item, new_turn, recall_query,
    resolution_query, search_query, timeline_query, tool_context, work_update, Error, ItemKind,
    Limits, MemKv, Memory, Runtime, SearchMode, WorkOp,
};

/// Alice's and bob's turns on one thread id, and an item each; bob's item id.
fn two_users(memory: &mut Memory) -> String {
    for (id, user, at) in [("a1", "alice", 1_000), ("b1", "bob", 2_000)] {
        let mut t = new_turn("default", &format!("{user} plans the secret"), "noted");
        t.id = Some(id.into());
        t.user = user.into();
        t.created_at = at;
        memory.add_turn(t).unwrap();
    }
    memory
        .add_item(&new_item(
            ItemKind::Personal,
            "alice",
            "Alice lives in Oslo",
        ))
        .unwrap();
    let bob = memory
        .add_item(&new_item(ItemKind::Personal, "bob", "Bob lives in Rome"))
        .unwrap();
    bob.item.id
}

fn invalid<T: std::fmt::Debug>(what: &str, r: Result<T, Error>) {
    match r {
        Err(e) => assert_eq!(e.code(), Some("INVALID_INPUT"), "{what}: {e}"),
        Ok(v) => panic!("{what} answered {v:?}"),
    }
}

#[test]
fn some_empty_user_is_invalid_input_in_every_function_that_takes_one() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    let bob_item = two_users(&mut memory);
    for blank in ["", " "] {
        let user = Some(blank.to_string());
        invalid("get-as", memory.get_as(blank, "b1"));
        invalid("recent", memory.recent_as(blank, "default", 10));
        invalid("by-user", memory.by_user(blank, 10));
        invalid("ancestors", memory.ancestors_as(blank, "b1", 3, 10));
        invalid("descendants", memory.descendants_as(blank, "b1", 3, 10));
        invalid("cited", memory.cited("[b1]", Some(blank)));
        invalid("get-item", memory.get_item_as(blank, &bob_item));
        invalid("item-history", memory.item_history_as(blank, &bob_item));
        let mut q = search_query("secret", SearchMode::Bm25, 5);
        q.filter.user = user.clone();
        invalid("search", memory.search(&q));
        invalid("search-full", memory.search_full(&q));
        let mut g = grep_query("secret");
        g.filter.user = user.clone();
        invalid("grep", memory.grep(&g));
        invalid(
            "recall",
            memory.recall(&recall_query("default", Some(blank))),
        );
        invalid(
            "call-tool",
            memory.call_tool("get", r#"{"id": "b1"}"#, &tool_context(Some(blank))),
        );
        let mut items = item_query();
        items.user = user.clone();
        invalid("list-items", memory.list_items(&items));
        let mut res = resolution_query();
        res.user = user.clone();
        invalid("resolutions", memory.resolutions(&res));
        let mut t = timeline_query();
        t.user = user.clone();
        invalid("timeline", memory.timeline(&t));
        let mut gq = graph_query();
        gq.user = user.clone();
        invalid("neighbors", memory.neighbors("bob", 1, &gq));
        invalid("subgraph", memory.subgraph(&[], &gq));
        let mut x = extract_query(&[]);
        x.user = user.clone();
        invalid("propose", memory.propose(&x));
        invalid(
            "working-memory",
            memory.working_memory("default", Some(blank)),
        );
        invalid("clear-work", memory.clear_work("default", Some(blank)));
        let mut u = work_update("default", "goal", WorkOp::Set, Some("1"), 5);
        u.user = user.clone();
        invalid("update-work", memory.update_work(&u));
    }
    // None is the store-wide read; a named user sees their own.
    assert!(memory.get_as("alice", "b1").unwrap().is_none());
    assert_eq!(
        ids(&memory.recent_as("alice", "default", 10).unwrap()),
        ["a1"]
    );
    assert_eq!(ids(&memory.recent("default", 10).unwrap()), ["b1", "a1"]);
    let err = memory.item_history_as("alice", &bob_item).unwrap_err();
    assert_eq!(err.code(), Some("NOT_FOUND"));
    assert_eq!(memory.item_history_as("bob", &bob_item).unwrap().len(), 1);
    let all = memory
        .call_tool("get", r#"{"id": "b1"}"#, &tool_context(None))
        .unwrap();
    assert!(all.contains("bob plans"), "{all}");
}

#[test]
fn working_memory_is_per_user_and_survives_a_new_instance() {
    let kv = SharedKv::default();
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    two_users(&mut memory);
    let set = |user: Option<&str>, goal: &str| {
        let mut u = work_update("default", "goal", WorkOp::Set, Some(goal), 10);
        u.user = user.map(String::from);
        u
    };
    memory.update_work(&set(None, "\"bob goal\"")).unwrap();
    memory.update_work(&set(Some("bob"), "\"merge\"")).unwrap();
    memory
        .update_work(&set(Some("alice"), "\"launch\""))
        .unwrap();
    let recall = memory
        .recall(&recall_query("default", Some("alice")))
        .unwrap();
    let working = recall.working.unwrap();
    assert!(
        working.contains("launch") && !working.contains("merge") && !working.contains("bob goal")
    );
    let tool = memory
        .call_tool(
            "recall",
            r#"{"thread": "default"}"#,
            &tool_context(Some("alice")),
        )
        .unwrap();
    assert!(tool.contains("launch") && !tool.contains("merge"), "{tool}");
    let mut again = runtime().open(kv, None).unwrap();
    let goal = |m: &mut Memory, u: Option<&str>| {
        m.working_memory("default", u)
            .unwrap()
            .fields
            .first()
            .map(|f| f.value.clone())
    };
    assert_eq!(
        goal(&mut again, Some("alice")).as_deref(),
        Some("\"launch\"")
    );
    assert_eq!(goal(&mut again, Some("bob")).as_deref(), Some("\"merge\""));
    assert_eq!(goal(&mut again, None).as_deref(), Some("\"bob goal\""));
    assert_eq!(goal(&mut again, Some("carol")), None);
    assert_eq!(again.work_threads().unwrap(), ["default"]);
    assert!(again.clear_work("default", Some("bob")).unwrap());
    assert_eq!(goal(&mut again, Some("bob")), None);
    assert_eq!(
        goal(&mut again, Some("alice")).as_deref(),
        Some("\"launch\"")
    );
}

/// Fuel for one call (the open and the grep are one each). Both fit in 3e8 here; the `regex`
/// crate's PikeVM fallback, which the issue's pattern hit before, spent more than 1e10 on the
/// same grep of the same store (main at 9437a8b, measured with a metered runtime).
const GREP_FUEL: u64 = 1_000_000_000;

#[test]
fn the_issues_grep_pattern_runs_within_a_fuel_budget() {
    // Build the store without a budget, then grep it on an engine that counts fuel.
    let kv = SharedKv::default();
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    let turns: Vec<_> = common::wordy(1500)
        .into_iter()
        .enumerate()
        .map(|(i, input)| {
            let mut t = new_turn("logs", &input, "");
            t.id = Some(format!("w{i}"));
            t
        })
        .collect();
    for batch in turns.chunks(250) {
        memory.add_turns(batch).unwrap();
    }
    let limits = Limits {
        fuel: Some(GREP_FUEL),
        ..Limits::DEFAULT
    };
    let metered = Runtime::from_file_with(common::component_path(), limits).unwrap();
    let mut memory = metered
        .open(kv, None)
        .unwrap_or_else(|e| panic!("open: {e}"));
    let found = memory.grep(&grep_query(r"(?:\w+\s+){30}zzz")).unwrap();
    let ids: Vec<&str> = found.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["w750"]);
}

#[test]
fn imports_report_conflicting_ids_and_refuse_to_import_nothing() {
    // Item 13 in the WIT face: an id stored with other text is reported, not silently
    // skipped; an empty JSONL text and a snapshot that is only its magic are invalid-input.
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    let mut t = new_turn("default", "the original words", "ok");
    t.id = Some("t1".into());
    memory.add_turn(t).unwrap();
    let same = memory.import_jsonl(
        r#"{"id":"t1","thread":"default","input":"the original words","output":"ok","createdAt":1}"#,
        0,
    );
    let other = memory
        .import_jsonl(
            r#"{"id":"t1","thread":"default","input":"other words","output":"ok","createdAt":1}"#,
            0,
        )
        .unwrap();
    assert_eq!(other.skipped, vec!["t1".to_string()]);
    assert_eq!(other.conflicts, vec!["t1".to_string()]);
    assert_eq!(
        memory.get("t1").unwrap().unwrap().input,
        "the original words"
    );
    let same = same.unwrap();
    assert_eq!(same.skipped, vec!["t1".to_string()]);
    assert!(same.conflicts.is_empty(), "{:?}", same.conflicts);
    invalid("import-jsonl of nothing", memory.import_jsonl(" \n", 0));
    invalid("decode-snapshot of nothing", memory.decode_snapshot(b""));
    let magic_only = memory.encode_snapshot(&[]).unwrap();
    invalid(
        "decode-snapshot of the magic",
        memory.decode_snapshot(&magic_only),
    );
    let whole = memory.export_snapshot().unwrap();
    let file = memory.encode_snapshot(&whole).unwrap();
    assert_eq!(memory.decode_snapshot(&file).unwrap().len(), whole.len());
}
