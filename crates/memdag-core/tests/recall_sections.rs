//! Recall: the four sections, dedup, ids, ancestors nearest first, compact vs raw, access counts.

mod common;

use memdag_core::recall::{RecallQuery, RecallSection};
use memdag_core::{CompactNode, NewTurn, Section, Step, Store};

const HOUR: i64 = 3_600_000;

fn add(
    store: &mut Store,
    id: &str,
    thread: &str,
    user: &str,
    at: i64,
    input: &str,
    parents: &[&str],
) {
    store
        .add_turn(NewTurn {
            id: Some(id.into()),
            thread: thread.into(),
            user: user.into(),
            created_at: at * HOUR,
            input: input.into(),
            output: format!("done: {input}"),
            steps: vec![Step {
                tool: "shell".into(),
                args: format!("run {id}"),
                result: format!("output of {id}"),
                ok: true,
            }],
            parents: parents.iter().map(|p| p.to_string()).collect(),
            ..Default::default()
        })
        .unwrap();
}

/// Thread "web" of ada, built on records of thread "design"; bob works elsewhere.
fn sample() -> Store {
    let mut s = Store::new();
    add(
        &mut s,
        "d1",
        "design",
        "ada",
        1,
        "choose a storage format",
        &[],
    );
    add(
        &mut s,
        "d2",
        "design",
        "ada",
        2,
        "write the codec for MessagePack",
        &["d1"],
    );
    add(
        &mut s,
        "x1",
        "ops",
        "bob",
        3,
        "rotate the certificates",
        &[],
    );
    add(
        &mut s,
        "w1",
        "web",
        "ada",
        10,
        "start the web face",
        &["d2"],
    );
    add(
        &mut s,
        "w2",
        "web",
        "ada",
        11,
        "add IndexedDB adapter",
        &["w1"],
    );
    add(
        &mut s,
        "o1",
        "notes",
        "ada",
        12,
        "remember the flamingo deadline",
        &[],
    );
    s
}

fn query(thread: &str, user: &str) -> RecallQuery {
    RecallQuery {
        thread: thread.into(),
        user: (!user.is_empty()).then(|| user.into()),
        ..Default::default()
    }
}

#[test]
fn sections_ids_and_dedup() {
    let mut s = sample();
    let mut q = query("web", "ada");
    q.keywords = vec!["certificates".into()];
    // Bob's record matches the keyword, but ada's recall keeps to ada's memory.
    let own = s.recall(&q).unwrap();
    assert!(own.items.iter().all(|i| i.id != "x1"), "{:?}", own.items);
    // An admin view may match across users.
    q.match_user_only = false;
    let r = s.recall(&q).unwrap();
    let got: Vec<(&str, RecallSection)> =
        r.items.iter().map(|i| (i.id.as_str(), i.section)).collect();
    assert_eq!(
        got,
        [
            ("w2", RecallSection::Thread),
            ("w1", RecallSection::Thread),
            ("o1", RecallSection::User),
            ("x1", RecallSection::Match),
            ("d2", RecallSection::Ancestor),
            ("d1", RecallSection::Ancestor),
        ]
    );
    for item in &r.items {
        assert!(item.text.starts_with(&format!("[{}]", item.id)));
        assert!(r.block.contains(&item.text));
        assert_eq!(
            r.block.matches(&format!("[{}]", item.id)).count(),
            1,
            "each record once"
        );
    }
    assert!(r.tokens <= q.budget_tokens);
    assert_eq!(r.omitted, 0);
    let pos = |needle: &str| r.block.find(needle).unwrap();
    assert!(pos("## This thread") < pos("## Same user") && pos("## Same user") < pos("## Matches"));
    assert!(pos("## Matches") < pos("## Earlier records"));
    assert!(pos("[d2]") < pos("[d1]"), "ancestors nearest first");
}

#[test]
fn ancestors_appear_in_recall() {
    let s = sample();
    let mut q = query("web", "");
    q.thread_limit = 1; // only w2; its ancestors are w1, d2, d1
    let r = s.recall_view(&q).unwrap();
    let ancestors: Vec<&str> = r
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Ancestor)
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ancestors, ["w1", "d2", "d1"]);
    q.ancestor_depth = 2;
    let r = s.recall_view(&q).unwrap();
    assert!(
        !r.items.iter().any(|i| i.id == "d1"),
        "depth bounds the walk"
    );
}

#[test]
fn compact_nodes_first_raw_logs_only_when_the_budget_allows() {
    let mut s = sample();
    let node = CompactNode {
        summary: "Added the IndexedDB adapter".into(),
        sections: vec![Section {
            name: "Goal".into(),
            text: "persist in the browser".into(),
        }],
    };
    s.set_compact("w2", Some(node)).unwrap();
    let mut q = query("web", "ada");
    let roomy = s.recall_view(&q).unwrap();
    let w2 = &roomy.items[0];
    assert!(
        w2.text.contains("summary: Added the IndexedDB adapter")
            && w2.text.contains("Goal: persist")
    );
    assert!(
        w2.raw && w2.text.contains("1. shell(run w2) ok: output of w2"),
        "room for the raw log: {}",
        w2.text
    );
    q.budget_tokens = 90;
    let tight = s.recall_view(&q).unwrap();
    assert!(tight.tokens <= 90);
    assert!(!tight.items.is_empty());
    assert_eq!(
        tight.items[0].id, "w2",
        "the best item is cut to fit rather than skipped"
    );
    assert!(!tight.items[0].raw, "no raw log in a tight budget");
    assert!(tight.omitted > 0);
}

#[test]
fn recall_counts_accesses_and_the_counts_persist() {
    let mut s = sample();
    let q = query("web", "ada");
    s.recall(&q).unwrap();
    s.recall(&q).unwrap();
    assert_eq!(s.access_count("w2"), 2);
    s.recall_view(&q).unwrap();
    assert_eq!(s.access_count("w2"), 2, "recall_view does not count");
    assert_eq!(s.access_count("x1"), 0);
    let mut kv = std::collections::BTreeMap::new();
    common::apply(&mut kv, &mut s);
    s.recall(&q).unwrap();
    assert!(s.has_changes(), "a recall changes the stored use counts");
    let changes = s.take_changes().unwrap();
    assert!(
        changes.len() <= 3,
        "a use count costs one small segment: {}",
        changes.len()
    );
    for c in changes {
        match c.value {
            Some(v) => kv.insert(c.key, v),
            None => kv.remove(&c.key),
        };
    }
    let reloaded = common::reload(&kv).unwrap();
    assert_eq!(reloaded.access_count("w2"), 3);
    assert_eq!(reloaded.access_count("x1"), 0);
}

#[test]
fn a_new_thread_of_a_known_user_still_gets_context() {
    let s = sample();
    let r = s.recall_view(&query("brand-new", "ada")).unwrap();
    assert!(!r.items.is_empty());
    assert!(r.items.iter().all(|i| i.section == RecallSection::User));
    assert_eq!(r.items[0].id, "o1", "newest first");
    let nothing = s.recall_view(&query("brand-new", "nobody")).unwrap();
    assert!(nothing.items.is_empty() && nothing.block.is_empty() && nothing.tokens == 0);
}

#[test]
fn extreme_budgets_neither_panic_nor_overflow() {
    let s = sample();
    let mut q = query("web", "ada");
    q.budget_tokens = usize::MAX;
    q.item_tokens = usize::MAX;
    q.raw_item_tokens = usize::MAX;
    assert_eq!(s.recall_view(&q).unwrap().items.len(), 5);
    for budget in 0..40 {
        q.budget_tokens = budget;
        assert!(s.recall_view(&q).unwrap().tokens <= budget);
    }
}

#[test]
fn bad_weights_are_refused() {
    let s = sample();
    let mut q = query("web", "ada");
    q.weights.recency = -1.0;
    assert_eq!(s.recall_view(&q).unwrap_err().code(), "INVALID_INPUT");
    let mut q = query("web", "ada");
    q.half_life_ms = 0;
    assert_eq!(s.recall_view(&q).unwrap_err().code(), "INVALID_INPUT");
}

#[test]
fn importance_and_relevance_rank_matches() {
    let mut s = Store::new();
    for i in 0..20 {
        s.add_turn(NewTurn {
            id: Some(format!("r{i}")),
            thread: format!("t{i}"),
            user: "u".into(),
            created_at: i,
            input: if i % 5 == 0 {
                format!("kiwi orchard {i}")
            } else {
                format!("note {i}")
            },
            importance: Some(if i == 5 { 1.0 } else { 0.5 }),
            ..Default::default()
        })
        .unwrap();
    }
    let q = RecallQuery {
        thread: "t19".into(),
        keywords: vec!["kiwi".into()],
        ..Default::default()
    };
    let r = s.recall_view(&q).unwrap();
    let matches: Vec<&str> = r
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Match)
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(matches.len(), 4);
    let best = r
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Match)
        .max_by(|a, b| a.score.total_cmp(&b.score));
    assert_eq!(
        best.unwrap().id,
        "r5",
        "equal relevance, the important one ranks first"
    );
}
