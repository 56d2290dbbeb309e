//! Stored tool output: a blob's own age and owners (retention at `prepare`), the model's
//! `read_blob` tool kept to its user, and importance estimated at write time and weighed by
//! search when asked.

mod common;

use std::collections::BTreeMap;

use common::{apply, reload};
use memdag_core::context::{marker_blob_id, Message, Role};
use memdag_core::pipeline::{FinishOptions, PrepareOptions};
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::tools::ToolContext;
use memdag_core::{NewTurn, Step, Store};
use serde_json::json;

const DAY: i64 = 24 * 3600 * 1000;
const T0: i64 = 1_750_000_000_000;

fn log(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("row {i}: value {}\n", i * 7))
        .collect()
}

/// A conversation whose one tool result is `lines` long.
fn with_tool_output(lines: usize) -> Vec<Message> {
    vec![
        Message {
            role: Role::User,
            content: "list the rows".into(),
            ..Message::default()
        },
        Message {
            role: Role::Assistant,
            content: "Listing.".into(),
            tool_calls: vec!["c1".into()],
            ..Message::default()
        },
        Message {
            role: Role::Tool,
            content: log(lines),
            tool_call_id: Some("c1".into()),
            ..Message::default()
        },
    ]
}

fn prepare(
    store: &mut Store,
    user: &str,
    now: i64,
    lines: usize,
) -> memdag_core::pipeline::Prepared {
    let options = PrepareOptions {
        thread: "t".into(),
        user: Some(user.into()),
        window: 8000,
        now: Some(now),
        ..PrepareOptions::default()
    };
    store
        .prepare_with(with_tool_output(lines), options, None, &|| 0.0)
        .unwrap()
}

fn tool(
    store: &mut Store,
    user: &str,
    args: serde_json::Value,
) -> memdag_core::Result<serde_json::Value> {
    let ctx = ToolContext {
        user: Some(user.into()),
        ..ToolContext::default()
    };
    store.call_tool("read_blob", args, &ctx)
}

#[test]
fn a_cut_tool_output_ages_from_its_own_store_and_goes_after_the_max_age() {
    let mut store = Store::new();
    let mut kv = BTreeMap::new();
    let first = prepare(&mut store, "ana", T0, 2000);
    let id = first.blob_ids[0].clone();
    let meta = store.blob_meta(&id).unwrap();
    assert_eq!(
        (meta.stored_at, meta.users.clone()),
        (T0, vec!["ana".to_string()])
    );
    apply(&mut kv, &mut store);
    // The age and the owner are stored with the store.
    assert_eq!(reload(&kv).unwrap().blob_meta(&id), Some(meta));
    // Six days on, the same output is cut again: it ages from then.
    let again = prepare(&mut store, "ana", T0 + 6 * DAY, 2000);
    assert_eq!(again.blob_ids, vec![id.clone()]);
    assert!(again.expired_blobs.is_empty());
    assert_eq!(store.blob_meta(&id).unwrap().stored_at, T0 + 6 * DAY);
    // Past a week from its last store, another prepare removes it.
    let later = prepare(&mut store, "ana", T0 + 14 * DAY, 10);
    assert_eq!(later.expired_blobs, vec![id.clone()]);
    assert_eq!(store.blob(&id), None);
    assert_eq!(store.blob_meta(&id), None);
    apply(&mut kv, &mut store);
    assert_eq!(reload(&kv).unwrap().blob(&id), None);
}

#[test]
fn a_blob_a_record_references_lives_with_the_record_and_retention_can_be_off() {
    let mut store = Store::new();
    let p = prepare(&mut store, "ana", T0, 2000);
    let id = p.blob_ids[0].clone();
    let cut = p
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert_eq!(marker_blob_id(&cut), Some(id.as_str()));
    // The agent writes the turn with the cut result in its log.
    store
        .finish(
            NewTurn {
                thread: "t".into(),
                user: "ana".into(),
                input: "list the rows".into(),
                steps: vec![Step {
                    tool: "rows".into(),
                    args: "{}".into(),
                    result: cut,
                    ok: true,
                }],
                created_at: T0,
                ..NewTurn::default()
            },
            FinishOptions {
                learn: false,
                ..FinishOptions::default()
            },
        )
        .unwrap();
    assert!(store.retain_blobs(T0 + 30 * DAY).unwrap().is_empty());
    assert!(store.blob(&id).is_some(), "referenced by a record");
    assert_eq!(store.blob_meta(&id), None, "it no longer ages on its own");

    let mut off = Store::new();
    let mut config = off.memory_config();
    config.blob_max_age_ms = None;
    off.set_memory_config(config.clone()).unwrap();
    let p = prepare(&mut off, "ana", T0, 2000);
    assert!(off.retain_blobs(T0 + 365 * DAY).unwrap().is_empty());
    assert!(off.blob(&p.blob_ids[0]).is_some());
    config.blob_max_age_ms = Some(0);
    assert_eq!(
        off.set_memory_config(config).unwrap_err().code(),
        "INVALID_INPUT"
    );
}

#[test]
fn read_blob_reads_back_by_line_for_its_user_only() {
    let mut store = Store::new();
    let p = prepare(&mut store, "ana", T0, 2000);
    let id = &p.blob_ids[0];
    let cut = &p
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content;
    let line: usize = cut
        .rsplit("more from line ")
        .next()
        .unwrap()
        .trim_end_matches(']')
        .parse()
        .unwrap();
    let page = tool(
        &mut store,
        "ana",
        json!({"id": id, "from_line": line, "lines": 3}),
    )
    .unwrap();
    assert_eq!(page["fromLine"], line);
    assert_eq!(page["totalLines"], 2000);
    assert_eq!(page["nextLine"], line + 3);
    let expected: String = log(2000)
        .split_inclusive('\n')
        .skip(line - 1)
        .take(3)
        .collect();
    assert_eq!(page["text"], expected);
    // Another user cannot read it, nor learn that it exists.
    let e = tool(&mut store, "ben", json!({"id": id})).unwrap_err();
    assert_eq!(e.code(), "NOT_FOUND");
    let missing = tool(&mut store, "ben", json!({"id": "b0000000000000000"})).unwrap_err();
    assert_eq!(missing.code(), e.code());
    assert_eq!(
        e.to_string().replace(id.as_str(), "ID"),
        missing.to_string().replace("b0000000000000000", "ID")
    );
    // Bad arguments are refused.
    let bad = tool(&mut store, "ana", json!({"id": id, "offset": 3})).unwrap_err();
    assert_eq!(bad.code(), "INVALID_INPUT");
    // Forgetting the user removes the blob stored only for them.
    let forgotten = store.forget_user("ana").unwrap();
    assert_eq!(forgotten.blobs, vec![id.clone()]);
    assert_eq!(store.blob(id), None);
}

#[test]
fn importance_is_estimated_when_a_turn_states_none_and_search_weighs_it_when_asked() {
    let mut store = Store::new();
    let add = |store: &mut Store, id: &str, input: &str, at: i64, importance: Option<f32>| {
        store
            .add_turn(NewTurn {
                id: Some(id.into()),
                thread: "t".into(),
                user: "ana".into(),
                input: input.into(),
                output: "ok".into(),
                created_at: at,
                importance,
                ..NewTurn::default()
            })
            .unwrap()
            .importance
    };
    assert_eq!(
        add(
            &mut store,
            "plain",
            "the staging database runs postgres 15",
            T0,
            None
        ),
        0.5
    );
    let high = add(
        &mut store,
        "rule",
        "remember that the staging database is read only",
        T0,
        None,
    );
    assert!(high >= 0.8, "{high}");
    assert_eq!(
        add(
            &mut store,
            "given",
            "remember the staging database password rotates",
            T0,
            Some(0.1)
        ),
        0.1
    );
    let thanks = add(&mut store, "thanks", "thanks!", T0, None);
    assert!(thanks < 0.5);
    // Equal texts but for the signal: importance orders them only when asked.
    let q = |w: f32| SearchQuery {
        text: "staging database".into(),
        mode: SearchMode::Bm25,
        importance_weight: w,
        context: 0.0,
        thread_scope: 0.0,
        ..SearchQuery::default()
    };
    let ids = |w: f32| -> Vec<String> {
        store
            .search(&q(w))
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    let weighed = ids(1.0);
    assert_eq!(weighed[0], "rule");
    assert_eq!(weighed.last().unwrap(), "given");
    assert_ne!(ids(0.0), weighed);
    // Recency: the newer of two equal turns first, when asked.
    let mut s = Store::new();
    add(&mut s, "old", "deploy the web app", T0, Some(0.5));
    add(
        &mut s,
        "new",
        "deploy the web app today",
        T0 + 60 * DAY,
        Some(0.5),
    );
    let rq = |w: f32| SearchQuery {
        text: "deploy web app".into(),
        mode: SearchMode::Bm25,
        recency_weight: w,
        now: Some(T0 + 61 * DAY),
        context: 0.0,
        thread_scope: 0.0,
        dedup: false,
        ..SearchQuery::default()
    };
    assert_eq!(
        s.search(&rq(0.0)).unwrap()[0].id,
        "old",
        "shorter text, higher BM25"
    );
    assert_eq!(s.search(&rq(0.9)).unwrap()[0].id, "new");
    let out_of_range = SearchQuery {
        importance_weight: 1.5,
        ..q(0.0)
    };
    assert_eq!(
        store.search(&out_of_range).unwrap_err().code(),
        "INVALID_INPUT"
    );
}

#[test]
fn an_expired_item_is_gone_from_the_get_tool_too() {
    let mut store = Store::new();
    let ctx = ToolContext {
        user: Some("ana".into()),
        now: Some(T0),
        ..ToolContext::default()
    };
    let kept = store
        .call_tool(
            "remember",
            json!({"text": "Ana parks on level 3 today", "ttl": "1d"}),
            &ctx,
        )
        .unwrap();
    let id = kept["memory"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        store.call_tool("get", json!({"id": id}), &ctx).unwrap()["id"],
        id.as_str()
    );
    let later = ToolContext {
        now: Some(T0 + 2 * DAY),
        ..ctx
    };
    let e = store
        .call_tool("get", json!({"id": id}), &later)
        .unwrap_err();
    assert_eq!(e.code(), "NOT_FOUND");
}

#[test]
fn prepare_counts_the_llm_wait_and_recalls_what_the_user_just_asked() {
    let mut store = Store::new();
    store
        .add_turn(NewTurn {
            id: Some("old".into()),
            thread: "garden".into(),
            user: "ana".into(),
            input: "the tomato seedlings need repotting in May".into(),
            created_at: T0,
            ..NewTurn::default()
        })
        .unwrap();
    // Newer turns of hers crowd the tomato turn out of recall's user section: only a match
    // on what she just asked can bring it back.
    for i in 0..12 {
        store
            .add_turn(NewTurn {
                thread: format!("misc{i}"),
                user: "ana".into(),
                input: format!("note {i} about invoices and the quarterly budget"),
                created_at: T0 + 1000 + i,
                ..NewTurn::default()
            })
            .unwrap();
    }
    let ticks = std::cell::Cell::new(0.0);
    let clock = || {
        ticks.set(ticks.get() + 1.0);
        ticks.get()
    };
    let mut messages = with_tool_output(10);
    for i in 0..40 {
        messages.push(Message {
            role: Role::User,
            content: format!("filler question {i} about the weather"),
            ..Message::default()
        });
        messages.push(Message {
            role: Role::Assistant,
            content: format!("filler answer {i}"),
            ..Message::default()
        });
    }
    messages.push(Message {
        role: Role::User,
        content: "when do the tomato seedlings get repotted?".into(),
        ..Message::default()
    });
    let options = PrepareOptions {
        thread: "chat".into(),
        user: Some("ana".into()),
        window: 1200,
        now: Some(T0 + DAY),
        ..PrepareOptions::default()
    };
    // The LLM reads the clock ten times while it "thinks".
    let mut llm = |_: &str| -> Result<String, String> {
        for _ in 0..10 {
            clock();
        }
        Err("timeout".into())
    };
    let p = store
        .prepare_with(messages, options, Some(&mut llm), &clock)
        .unwrap();
    assert!(p.compacted > 0);
    assert!(p.timings.summarize_ms >= 10.0, "{:?}", p.timings);
    assert!(p.timings.total_ms >= p.timings.summarize_ms + p.timings.recall_ms);
    assert!(p.recall.contains("[old]"), "{}", p.recall);
}
