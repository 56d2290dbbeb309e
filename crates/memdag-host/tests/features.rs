//! Every function of the WIT interface through the host library: batches, search in each mode
//! with filters, grep, recall, compaction (LLM, failing LLM, extractive), the context tools,
//! blobs, the host embedder, and export/import.

mod common;

use std::sync::{Arc, Mutex};

use memdag_host::{
    grep_query, recall_query, search_query, Compactor, Error, ErrorCode, MemKv, Memory, Message,
    OpenOptions, RecallSection, Role, SearchMode, Step, ToolResultLimits,
};

use common::{ids, runtime, turn, SharedKv};

/// A small session: a deploy thread with tool calls, and a travel thread in Chinese.
fn session(memory: &mut Memory) {
    let mut turns = vec![
        turn("d1", "deploy", 1_000, &[]),
        turn("d2", "deploy", 2_000, &["d1"]),
        turn("d3", "deploy", 3_000, &["d2"]),
        turn("t1", "travel", 4_000, &[]),
        turn("t2", "travel", 5_000, &["t1", "d3"]),
    ];
    turns[0].input = "The deploy to staging failed with a timeout".into();
    turns[0].steps = vec![Step {
        tool: "shell".into(),
        args: "kubectl rollout status deploy/api".into(),
        result: "error: deadline exceeded waiting for rollout".into(),
        ok: false,
    }];
    turns[0].tags = vec!["ops".into()];
    turns[1].input = "Retry the rollout with a longer timeout".into();
    turns[1].output = "Raised the timeout to 600s in deploy.yaml; rollout finished.".into();
    turns[2].input = "Write a note about the fix".into();
    turns[3].input = "周末去杭州玩，帮我查一下天气".into();
    turns[3].output = "杭州周末有小雨，记得带伞。".into();
    turns[3].user = "mei".into();
    turns[4].input = "顺便订西湖边的酒店".into();
    turns[4].user = "mei".into();
    memory.add_turns(&turns).unwrap();
}

#[test]
fn search_covers_every_mode_and_filter() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    session(&mut memory);

    let hits = memory
        .search(&search_query("rollout timeout", SearchMode::Bm25, 3))
        .unwrap();
    assert_eq!(hits[0].id, "d2", "{hits:?}");
    assert!(hits.iter().all(|h| h.vector.is_none()));
    // A bm25 hit without a query term is there by thread context alone.
    let mut flat = search_query("rollout timeout", SearchMode::Bm25, 3);
    flat.context = Some(0.0);
    assert!(memory
        .search(&flat)
        .unwrap()
        .iter()
        .all(|h| h.bm25.is_some()));
    assert!(hits[0].snippet.contains('«'), "{}", hits[0].snippet);

    // The built-in embedder gives every turn a vector, so vector and hybrid work out of the box.
    let hits = memory
        .search(&search_query("deploy timeout", SearchMode::Vector, 5))
        .unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.vector.is_some()));
    let hits = memory
        .search(&search_query("杭州 天气", SearchMode::Hybrid, 2))
        .unwrap();
    assert_eq!(hits[0].id, "t1", "{hits:?}");

    let mut q = search_query("timeout", SearchMode::Bm25, 10);
    q.filter.tags = vec!["ops".into()];
    assert_eq!(ids_of(&memory.search(&q).unwrap()), ["d1"]);
    q.filter.tags.clear();
    q.filter.since = Some(2_000);
    q.filter.until = Some(3_000);
    assert_eq!(ids_of(&memory.search(&q).unwrap()), ["d2"]);
    let mut q = search_query("酒店", SearchMode::Bm25, 10);
    q.filter.user = Some("lin".into());
    assert!(memory.search(&q).unwrap().is_empty());
    q.filter.user = Some("mei".into());
    q.filter.thread = Some("travel".into());
    // t1 passes the filter too and comes just before t2 in its thread: context brings it in.
    assert_eq!(ids_of(&memory.search(&q).unwrap()), ["t2", "t1"]);
    q.context = Some(0.0);
    assert_eq!(ids_of(&memory.search(&q).unwrap()), ["t2"]);

    let err = memory
        .search(&search_query("x", SearchMode::Bm25, 0))
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
}

#[test]
fn ranking_options_cross_the_boundary() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    session(&mut memory);
    // Thread context: d3, which never says "rollout", follows d2 in its thread.
    let q = search_query("rollout", SearchMode::Bm25, 10);
    let default = memory.search(&q).unwrap();
    assert!(ids_of(&default).contains(&"d3"), "{default:?}");
    let mut flat = q.clone();
    flat.context = Some(0.0);
    flat.thread_scope = Some(0.0);
    let hits = memory.search(&flat).unwrap();
    let mut got = ids_of(&hits);
    got.sort();
    assert_eq!(got, ["d1", "d2"]);
    // Derived keys: mei's turns never say her name.
    let q = search_query("mei", SearchMode::Bm25, 10);
    let hits = memory.search(&q).unwrap();
    let mut got = ids_of(&hits);
    got.sort();
    assert_eq!(got, ["t1", "t2"]);
    let mut off = q.clone();
    off.derived_keys = Some(false);
    assert!(memory.search(&off).unwrap().is_empty());
    let mut zero = q.clone();
    zero.field_weights = Some(memdag_host::FieldWeights {
        input: None,
        output: None,
        compact: None,
        steps: None,
        keys: Some(0.0),
    });
    assert!(memory.search(&zero).unwrap().is_empty());
    let mut bad = q;
    bad.context = Some(2.0);
    assert_eq!(
        memory.search(&bad).unwrap_err().code(),
        Some("INVALID_INPUT")
    );
}

fn ids_of(hits: &[memdag_host::SearchHit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

#[test]
fn grep_finds_raw_log_lines() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    session(&mut memory);
    let found = memory.grep(&grep_query(r"deadline \w+")).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, "d1");
    assert_eq!(found[0].field, "steps[0].result");
    assert_eq!(found[0].text, "deadline exceeded");
    let mut q = grep_query("ROLLOUT");
    q.case_insensitive = true;
    q.fields = vec!["input".into()];
    assert_eq!(memory.grep(&q).unwrap().len(), 1);
    let err = memory.grep(&grep_query("(")).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::InvalidInput),
        "{err}"
    );
}

#[test]
fn recall_builds_a_block_within_budget() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    session(&mut memory);
    let mut q = recall_query("travel", Some("mei"));
    q.budget_tokens = Some(300);
    let recall = memory.recall(&q).unwrap();
    assert!(recall.tokens <= 300 && !recall.block.is_empty());
    assert_eq!(recall.items[0].section, RecallSection::Thread);
    assert_eq!(recall.items[0].id, "t2");
    assert!(recall.block.contains("[t1]"), "{}", recall.block);
    // t2's parent d3 is lin's turn: mei's recall keeps to mei's memory.
    assert!(
        recall.items.iter().all(|i| i.id != "d3") && !recall.block.contains("[d3]"),
        "{:?}",
        recall.items
    );
    // A store-wide recall (no user) follows the DAG into it.
    let mut q = recall_query("travel", None);
    q.budget_tokens = Some(300);
    let recall = memory.recall(&q).unwrap();
    assert!(
        recall
            .items
            .iter()
            .any(|i| i.section == RecallSection::Ancestor && i.id == "d3"),
        "{:?}",
        recall.items
    );
}

#[test]
fn compaction_with_an_llm_a_failing_llm_and_the_extractive_compactor() {
    let answer = "## Summary\nFixed the staging deploy.\n\n## Goal\nDeploy api.\n\n\
                  ## Constraints\nNone\n\n## Progress\nRollout done.\n\n## Key Decisions\n\
                  Timeout 600s.\n\n## Next Steps\nNone\n\n## Critical Context\ndeploy.yaml";
    let prompts = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = prompts.clone();
    let fail = Arc::new(Mutex::new(false));
    let failing = fail.clone();
    let kv = SharedKv::default();
    let options = OpenOptions::new().llm(move |prompt: &str| {
        seen.lock().unwrap().push(prompt.to_string());
        if *failing.lock().unwrap() {
            Err("model overloaded".to_string())
        } else {
            Ok(answer.to_string())
        }
    });
    let mut memory = runtime().open_with(kv.clone(), options).unwrap();
    session(&mut memory);

    let record = memory.compact("d1", Compactor::Llm).unwrap();
    let node = record.compact.clone().unwrap();
    assert_eq!(node.summary, "Fixed the staging deploy.");
    assert_eq!(node.sections.len(), 6);
    assert!(prompts.lock().unwrap()[0].contains("kubectl rollout status"));
    // The next prompt carries the current note, for the LLM to update.
    let prompt = memory.compaction_prompt("d1").unwrap();
    assert!(prompt.contains("Fixed the staging deploy."), "{prompt}");

    // A failing LLM or a malformed answer leaves the record and the kv unchanged.
    let before = kv.entries();
    *fail.lock().unwrap() = true;
    let err = memory.compact("d1", Compactor::Llm).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::Host && e.message.contains("model overloaded")),
        "{err}"
    );
    let err = memory
        .apply_compaction("d1", "no sections here")
        .unwrap_err();
    assert_eq!(err.code(), Some("HOST"), "{err}");
    assert_eq!(memory.get("d1").unwrap().unwrap(), record);
    assert_eq!(kv.entries(), before);
    let err = memory.compact("ghost", Compactor::Extractive).unwrap_err();
    assert_eq!(err.code(), Some("NOT_FOUND"));

    // The extractive compactor needs no LLM and is durable.
    let record = memory.compact("d2", Compactor::Extractive).unwrap();
    assert!(!record.compact.as_ref().unwrap().summary.is_empty());
    let mut reopened = runtime().open(kv, None).unwrap();
    assert_eq!(reopened.get("d2").unwrap().unwrap().compact, record.compact);

    // Without an LLM plugged in, asking for one is a host error.
    let err = reopened.compact("d3", Compactor::Llm).unwrap_err();
    assert_eq!(err.code(), Some("HOST"), "{err}");
}

#[test]
fn context_tools_count_split_and_cut() {
    let mut memory = runtime().open(MemKv::default(), None).unwrap();
    assert!(memory.count_tokens("hello world", None).unwrap() >= 2);
    let msg = |role, content: &str| Message {
        role,
        content: content.into(),
        tool_call_id: None,
        tool_calls: Vec::new(),
    };
    let long = "word ".repeat(400);
    let messages = vec![
        msg(Role::System, "be brief"),
        msg(Role::User, &long),
        msg(Role::Assistant, &long),
        msg(Role::User, "and now?"),
        msg(Role::Assistant, "done"),
    ];
    let check = memory.check_context(&messages, 200, 50).unwrap();
    assert!(check.needs_compaction);
    assert_eq!(check.to_keep[0].role, Role::System);
    assert_eq!(check.to_keep.last().unwrap().content, "done");
    assert!(!check.to_compact.is_empty());

    let cut = memory.compact_tool_result(&long, 50).unwrap();
    assert!(cut.truncated && cut.tokens <= 50, "{cut:?}");
    let blob = cut.blob_id.clone().unwrap();
    assert!(cut.text.contains(&blob));

    // The store version keeps the full text as a blob.
    let mut tool = msg(Role::Tool, &long);
    tool.tool_call_id = Some("c1".into());
    let limits = ToolResultLimits {
        recent_tokens: 50,
        old_tokens: 20,
        recent_count: 1,
    };
    let out = memory.compact_tool_results(&[tool], limits).unwrap();
    assert_eq!(out.blob_ids, std::slice::from_ref(&blob));
    assert_eq!(
        memory.get_blob(&blob).unwrap().as_deref(),
        Some(long.as_str())
    );
    assert_eq!(memory.put_blob(&long).unwrap(), blob);
}

#[test]
fn add_turns_is_all_or_nothing() {
    let kv = SharedKv::default();
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();
    let before = kv.entries();
    let batch = [
        turn("b", "main", 2, &["a"]),
        turn("c", "main", 3, &["b"]),
        turn("d", "main", 4, &["ghost"]),
    ];
    let err = memory.add_turns(&batch).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::UnknownParent && e.message.starts_with("turn 2: ") && !e.ids.is_empty()),
        "{err}"
    );
    assert_eq!(kv.entries(), before);
    assert_eq!(memory.len().unwrap(), 1);
    assert_eq!(memory.get("b").unwrap(), None);
    let added = memory.add_turns(&batch[..2]).unwrap();
    assert_eq!(ids(&added), ["b", "c"]);
    assert_eq!(ids(&memory.ancestors("c", 5, 5).unwrap()), ["b", "a"]);
}

#[test]
fn a_host_embedder_gives_vectors_and_its_failure_writes_nothing() {
    let calls = Arc::new(Mutex::new(0usize));
    let counted = calls.clone();
    let fail = Arc::new(Mutex::new(false));
    let failing = fail.clone();
    // A toy embedder: [has "rain", has "deploy", 1].
    let embedder = move |texts: &[String]| {
        *counted.lock().unwrap() += 1;
        if *failing.lock().unwrap() {
            return Err("embedding service down".to_string());
        }
        Ok(texts
            .iter()
            .map(|t| {
                let has = |w: &str| if t.contains(w) { 1.0 } else { 0.0 };
                vec![has("rain"), has("deploy"), 0.1]
            })
            .collect())
    };
    let kv = SharedKv::default();
    let mut memory = runtime()
        .open_with(kv.clone(), OpenOptions::new().embedder(embedder))
        .unwrap();
    let mut a = turn("a", "main", 1, &[]);
    a.input = "rain tomorrow".into();
    let mut b = turn("b", "main", 2, &[]);
    b.input = "deploy tomorrow".into();
    memory.add_turns(&[a, b]).unwrap();
    assert_eq!(*calls.lock().unwrap(), 1, "one embedder call for the batch");
    assert_eq!(
        memory.get("a").unwrap().unwrap().embedding.unwrap().len(),
        3
    );

    let hits = memory
        .search(&search_query("deploy", SearchMode::Vector, 1))
        .unwrap();
    assert_eq!(hits[0].id, "b");

    *fail.lock().unwrap() = true;
    let before = kv.entries();
    let err = memory.add_turn(turn("c", "main", 3, &[])).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::Host && e.message.contains("embedding service down")),
        "{err}"
    );
    assert_eq!(kv.entries(), before);
    let err = memory
        .search(&search_query("deploy", SearchMode::Hybrid, 1))
        .unwrap_err();
    assert_eq!(err.code(), Some("HOST"));
    // BM25 needs no vector, so it still works.
    assert_eq!(
        memory
            .search(&search_query("deploy", SearchMode::Bm25, 1))
            .unwrap()[0]
            .id,
        "b"
    );
}

#[test]
fn export_and_import_move_a_store() {
    let mut from = runtime().open(MemKv::default(), None).unwrap();
    session(&mut from);
    from.compact("d1", Compactor::Extractive).unwrap();
    let blob = from.put_blob("the full tool output").unwrap();
    let snapshot = from.export_snapshot().unwrap();

    let kv = SharedKv::default();
    let mut to = runtime().open(kv.clone(), Some("agent-7/")).unwrap();
    to.add_turn(turn("stale", "old", 1, &[])).unwrap();
    assert_eq!(to.import_snapshot(&snapshot).unwrap(), 5);
    assert_eq!(to.get("stale").unwrap(), None);
    assert!(kv.entries().keys().all(|k| k.starts_with("agent-7/")));
    assert!(!kv.entries().contains_key("agent-7/rec/stale"));

    let mut reopened = runtime().open(kv.clone(), Some("agent-7/")).unwrap();
    assert_eq!(reopened.get("d1").unwrap(), from.get("d1").unwrap());
    assert_eq!(
        ids(&reopened.ancestors("t2", 5, 10).unwrap()),
        ids(&from.ancestors("t2", 5, 10).unwrap())
    );
    assert_eq!(
        reopened.get_blob(&blob).unwrap().as_deref(),
        Some("the full tool output")
    );
    assert_eq!(
        reopened
            .search(&search_query("rollout", SearchMode::Hybrid, 3))
            .unwrap(),
        from.search(&search_query("rollout", SearchMode::Hybrid, 3))
            .unwrap()
    );

    // A corrupt snapshot writes nothing.
    let before = kv.entries();
    let mut bad = snapshot.clone();
    bad[0].1 = b"junk".to_vec();
    let err = reopened.import_snapshot(&bad).unwrap_err();
    assert_eq!(err.code(), Some("CORRUPT_DATA"), "{err}");
    let err = reopened
        .import_snapshot(&[("other".into(), b"x".to_vec())])
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    assert_eq!(kv.entries(), before);
    assert_eq!(reopened.len().unwrap(), 5);
}

#[test]
fn reindex_moves_the_store_to_a_new_model_through_the_host_embedder() {
    // The old model: 3 dimensions.
    let old = |texts: &[String]| -> Result<Vec<Vec<f32>>, String> {
        Ok(texts.iter().map(|_| vec![1.0, 0.5, 0.1]).collect())
    };
    let kv = SharedKv::default();
    let mut memory = runtime()
        .open_with(kv.clone(), OpenOptions::new().embedder(old))
        .unwrap();
    let words = ["rain tomorrow", "deploy tomorrow", "rain and deploy"];
    for (i, w) in words.iter().enumerate() {
        let mut t = turn(&format!("t{i}"), "main", i as i64, &[]);
        t.input = (*w).into();
        memory.add_turn(t).unwrap();
    }
    drop(memory);

    // The new model: 5 dimensions, [has "rain", has "deploy", 0.1, 0.1, 0.1].
    let calls = Arc::new(Mutex::new(Vec::<usize>::new()));
    let seen = calls.clone();
    let fail = Arc::new(Mutex::new(false));
    let failing = fail.clone();
    let new = move |texts: &[String]| {
        seen.lock().unwrap().push(texts.len());
        if *failing.lock().unwrap() {
            return Err("model unavailable".to_string());
        }
        Ok(texts
            .iter()
            .map(|t| {
                let has = |w: &str| if t.contains(w) { 1.0 } else { 0.0 };
                vec![has("rain"), has("deploy"), 0.1, 0.1, 0.1]
            })
            .collect())
    };
    let mut memory = runtime()
        .open_with(kv.clone(), OpenOptions::new().embedder(new))
        .unwrap();
    // Before the reindex the new model's vectors do not fit.
    let mut t = turn("x", "main", 9, &[]);
    t.input = "snow".into();
    let refused = memory.add_turn(t.clone()).unwrap_err();
    assert_eq!(refused.code(), Some("INVALID_INPUT"), "{refused}");

    *fail.lock().unwrap() = true;
    let before = kv.entries();
    let err = memory.reindex(Some(2)).unwrap_err();
    assert_eq!(err.code(), Some("HOST"), "{err}");
    assert_eq!(kv.entries(), before, "a failed reindex writes nothing");
    *fail.lock().unwrap() = false;
    calls.lock().unwrap().clear();

    let done = memory.reindex(Some(2)).unwrap();
    assert_eq!(
        (done.records, done.previous_dimension, done.dimension),
        (3, 3, 5)
    );
    assert_eq!(*calls.lock().unwrap(), vec![2, 1], "batches of 2");
    let hits = memory
        .search(&search_query("deploy", SearchMode::Vector, 1))
        .unwrap();
    assert_eq!(hits[0].id, "t1");
    memory.add_turn(t).unwrap();

    // Stored: a new instance opens it with the new dimension.
    let mut reopened = runtime().open(kv.clone(), None).unwrap();
    assert_eq!(
        reopened
            .get("t0")
            .unwrap()
            .unwrap()
            .embedding
            .unwrap()
            .len(),
        5
    );
    // And the built-in embedder takes it back.
    let back = reopened.reindex(None).unwrap();
    assert_eq!((back.previous_dimension, back.dimension), (5, 256));
}
