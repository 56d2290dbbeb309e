//! `forget_user` and blob collection: after forgetting a user and writing the change set, no
//! stored byte and no in-memory index holds that user's text, the other users' memory is
//! intact, and the DAG is repaired as delete repairs it.

mod common;

use std::collections::BTreeMap;

use common::Rng;

use memdag_core::context::compact_tool_result;
use memdag_core::tokens::TokenCounter;
use memdag_core::{NewTurn, Step, Store};

/// A key-value map that applies change sets as a host would.
#[derive(Default)]
struct Kv(BTreeMap<String, Vec<u8>>);

impl Kv {
    fn flush(&mut self, s: &mut Store) {
        for c in s.take_changes().unwrap() {
            match c.value {
                Some(v) => {
                    self.0.insert(c.key, v);
                }
                None => {
                    self.0.remove(&c.key);
                }
            }
        }
    }

    fn holds(&self, needle: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
            .map(|(k, _)| k.as_str())
            .collect()
    }
}

fn turn(id: &str, thread: &str, user: &str, input: &str, parents: &[&str]) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: user.into(),
        created_at: 1_700_000_000_000,
        input: input.into(),
        output: format!("ok {input}"),
        parents: parents.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

/// Strings only Mallory's data contains.
const SECRETS: [&str; 5] = [
    "zebracorn",
    "quuxlemon",
    "mallory-vault-code",
    "thread-of-mallory",
    "tag-mallory-only",
];

fn store_with_mallory() -> (Store, Kv) {
    let mut s = Store::new();
    s.set_auto_embed(true);
    let mut kv = Kv::default();
    s.add_turn(turn("a1", "plans", "alice", "alice plans a picnic", &[]))
        .unwrap();
    let counter = TokenCounter::default();
    let long = format!("{} ", "mallory-vault-code zebracorn line").repeat(2000);
    let cut = compact_tool_result(&counter, &long, 50);
    assert!(cut.truncated);
    s.put_blob(cut.full.clone().unwrap()).unwrap();
    let mut m1 = turn(
        "m1",
        "thread-of-mallory",
        "mallory",
        "my zebracorn is hidden",
        &["a1"],
    );
    m1.steps = vec![Step {
        tool: "vault".into(),
        args: "{}".into(),
        result: cut.text.clone(),
        ok: true,
    }];
    m1.tags = vec!["tag-mallory-only".into()];
    s.add_turn(m1).unwrap();
    kv.flush(&mut s);
    s.add_turn(turn(
        "m2",
        "plans",
        "mallory",
        "quuxlemon for the picnic",
        &["m1"],
    ))
    .unwrap();
    s.add_turn(turn("b1", "plans", "bob", "bob brings bread", &["m2"]))
        .unwrap();
    kv.flush(&mut s);
    // An unrelated blob stays: nothing references it.
    s.put_blob("bob's own note").unwrap();
    kv.flush(&mut s);
    (s, kv)
}

#[test]
fn forgetting_a_user_leaves_none_of_their_bytes() {
    let (mut s, mut kv) = store_with_mallory();
    for secret in SECRETS {
        assert!(
            !kv.holds(secret).is_empty(),
            "the test is meaningful: {secret} was stored"
        );
        assert!(format!("{s:?}").contains(secret), "{secret} is in memory");
    }
    let forgotten = s.forget_user("mallory").unwrap();
    assert_eq!(forgotten.records, ["m1", "m2"]);
    assert_eq!(forgotten.blobs.len(), 1);
    kv.flush(&mut s);
    let in_memory = format!("{s:?}");
    for secret in SECRETS {
        assert_eq!(
            kv.holds(secret),
            Vec::<&str>::new(),
            "{secret} is still stored"
        );
        assert!(!in_memory.contains(secret), "{secret} is still in memory");
    }
    // Bob's turn took over Mallory's ancestry: b1 → m2 → m1 → a1 becomes b1 → a1.
    assert_eq!(s.get("b1").unwrap().parents, ["a1"]);
    assert_eq!(s.len(), 2);
    assert_eq!(s.blob_ids().count(), 1, "bob's unreferenced blob stays");
    // What is stored reloads to the same memory.
    let back = Store::load(kv.0.clone()).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(back.get("b1").unwrap().parents, ["a1"]);
    assert!(back.get("m1").is_none());
    assert!(!format!("{back:?}").contains("zebracorn"));
    let hits = back
        .search(&memdag_core::search::SearchQuery {
            text: "picnic".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits[0].id, "a1", "{hits:?}");
    assert!(hits.iter().all(|h| h.id != "m2"));
}

#[test]
fn forgetting_needs_a_user_and_an_unknown_user_is_a_no_op() {
    let (mut s, _) = store_with_mallory();
    assert_eq!(s.forget_user("").unwrap_err().code(), "INVALID_INPUT");
    let none = s.forget_user("nobody").unwrap();
    assert!(none.records.is_empty() && none.blobs.is_empty());
    assert_eq!(s.len(), 4);
}

#[test]
fn deleting_a_record_removes_the_blobs_only_it_referenced() {
    let mut s = Store::new();
    let counter = TokenCounter::default();
    let long = "a long tool output line\n".repeat(3000);
    let cut = compact_tool_result(&counter, &long, 40);
    let blob = s.put_blob(cut.full.unwrap()).unwrap();
    let with_step = |id: &str| {
        let mut t = turn(id, "t", "u", "ran the tool", &[]);
        t.steps = vec![Step {
            tool: "fetch".into(),
            result: cut.text.clone(),
            ok: true,
            ..Default::default()
        }];
        t
    };
    s.add_turn(with_step("r1")).unwrap();
    s.add_turn(with_step("r2")).unwrap();
    s.delete("r1").unwrap();
    assert!(s.blob(&blob).is_some(), "r2 still references the blob");
    s.delete("r2").unwrap();
    assert!(s.blob(&blob).is_none(), "no record references it any more");
    // A blob nobody references is the host's: deleting records never touches it.
    let free = s.put_blob("kept by the host").unwrap();
    s.add_turn(turn("r3", "t", "u", "plain", &[])).unwrap();
    s.delete("r3").unwrap();
    assert!(s.blob(&free).is_some());
}

/// Forgetting a user takes their postings out in one pass per posting list (`drop_postings`):
/// afterwards full-text search ranks and scores exactly as a store that never held them. Two
/// users' turns share one small vocabulary, so every list loses many postings at once.
#[test]
fn after_forgetting_a_user_bm25_is_as_if_they_never_wrote() {
    use memdag_core::search::{SearchMode, SearchQuery};
    const WORDS: [&str; 12] = [
        "deploy", "canary", "staging", "rollback", "invoice", "garden", "tomato", "kernel",
        "patch", "budget", "travel", "lisbon",
    ];
    let text = |i: usize| {
        let mut rng = Rng(i as u64);
        (0..3 + i % 5)
            .map(|_| WORDS[(rng.next() % WORDS.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut both = Store::new();
    let mut only_a = Store::new();
    for i in 0..400 {
        let user = if i % 3 == 0 { "b" } else { "a" };
        let t = turn(&format!("t{i}"), &format!("th{i}"), user, &text(i), &[]);
        if user == "a" {
            only_a.add_turn(t.clone()).unwrap();
        }
        both.add_turn(t).unwrap();
    }
    let gone = both.forget_user("b").unwrap();
    assert_eq!(gone.records.len(), 134);
    assert_eq!(both.len(), only_a.len());
    for q in WORDS
        .iter()
        .map(|w| w.to_string())
        .chain(["deploy canary budget".into()])
    {
        let query = SearchQuery {
            text: q.clone(),
            mode: SearchMode::Bm25,
            k: 30,
            context: 0.0,
            thread_scope: 0.0,
            ..SearchQuery::default()
        };
        let got = both.search(&query).unwrap();
        let want = only_a.search(&query).unwrap();
        assert!(!want.is_empty(), "{q}");
        assert_eq!(got.len(), want.len(), "{q}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.id, w.id, "{q}");
            let (gs, ws) = (g.bm25.unwrap(), w.bm25.unwrap());
            assert!(
                (gs - ws).abs() <= 1e-4 * ws.abs().max(1.0),
                "{q}: {gs} != {ws}"
            );
        }
    }
}
