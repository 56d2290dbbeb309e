//! The ranking techniques of the default search: thread context, derived keys, stop words,
//! stemming and equal-weight fusion. Each test turns one technique off to show what it
//! changes.

use std::collections::BTreeMap;

use memdag_core::search::{SearchFilter, SearchHit, SearchMode, SearchQuery};
use memdag_core::{NewTurn, Store};

mod common;

/// 2023-05-08T13:56:00Z, a Monday.
const MAY_8: i64 = 1_683_554_160_000;
const DAY: i64 = 86_400_000;

fn add(s: &mut Store, id: &str, thread: &str, user: &str, at: i64, input: &str) {
    s.add_turn(NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: user.into(),
        created_at: at,
        input: input.into(),
        ..Default::default()
    })
    .expect("add");
}

fn bm25(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        mode: SearchMode::Bm25,
        snippets: false,
        ..Default::default()
    }
}

fn hits(s: &Store, q: &SearchQuery) -> Vec<SearchHit> {
    s.search(q).expect("search")
}

fn ids(s: &Store, q: &SearchQuery) -> Vec<String> {
    hits(s, q).into_iter().map(|h| h.id).collect()
}

/// A chat where the answer to a question holds none of its words.
fn chat() -> Store {
    let mut s = Store::new();
    add(
        &mut s,
        "q",
        "s1",
        "mel",
        MAY_8,
        "Did you go to the support group?",
    );
    add(
        &mut s,
        "a",
        "s1",
        "caro",
        MAY_8,
        "Yes, yesterday. It was powerful.",
    );
    add(
        &mut s,
        "x",
        "s1",
        "mel",
        MAY_8,
        "Want to see my painting of a lake?",
    );
    add(
        &mut s,
        "y",
        "s2",
        "caro",
        MAY_8 + DAY,
        "I baked bread this morning.",
    );
    s
}

#[test]
fn an_answer_borrows_from_the_question_before_it() {
    let s = chat();
    let q = SearchQuery {
        thread_scope: 0.0,
        ..bm25("support group")
    };
    let with = hits(&s, &q);
    assert_eq!(with[0].id, "q");
    let a = with
        .iter()
        .find(|h| h.id == "a")
        .expect("the answer is a hit");
    // It holds no query term: its score is half its best neighbour's.
    assert_eq!(a.bm25, None);
    assert!((a.score - 0.5 * with[0].bm25.unwrap()).abs() < 1e-5);
    // Other threads lend nothing.
    assert!(with.iter().all(|h| h.id != "y"));
    let without = ids(&s, &SearchQuery { context: 0.0, ..q });
    assert_eq!(without, ["q"]);
}

#[test]
fn a_match_in_the_thread_of_the_best_match_gains() {
    let mut s = Store::new();
    add(&mut s, "c", "s2", "u", MAY_8, "group picture");
    add(&mut s, "a", "s1", "u", MAY_8, "support group for support");
    add(&mut s, "gap", "s1", "u", MAY_8, "lunch");
    add(&mut s, "b", "s1", "u", MAY_8, "group photo");
    let q = SearchQuery {
        context: 0.0,
        ..bm25("support group")
    };
    let h = hits(&s, &q);
    assert_eq!(ids(&s, &q), ["a", "b", "c"]);
    // b and c match alike; each gains a quarter of its thread's best: a's for b, its own
    // for c.
    assert_eq!(h[1].bm25, h[2].bm25);
    let gain = h[1].score - h[2].score;
    let expected = 0.25 * (h[0].bm25.unwrap() - h[2].bm25.unwrap());
    assert!((gain - expected).abs() < 1e-5, "{gain} {expected}");
    let flat = SearchQuery {
        thread_scope: 0.0,
        ..q
    };
    assert_eq!(ids(&s, &flat), ["a", "c", "b"]);
}

#[test]
fn a_neighbour_outside_the_filter_neither_lends_nor_is_a_hit() {
    let s = chat();
    let by = |user: &str| SearchQuery {
        filter: SearchFilter {
            user: Some(user.into()),
            ..Default::default()
        },
        ..bm25("support group")
    };
    assert_eq!(ids(&s, &by("mel")), ["q"]);
    assert!(ids(&s, &by("caro")).is_empty());
}

#[test]
fn thread_order_is_time_then_insertion() {
    let mut s = Store::new();
    add(&mut s, "late", "t", "u", 3_000, "late");
    add(&mut s, "early", "t", "u", 1_000, "early");
    add(&mut s, "same1", "t", "u", 2_000, "same one");
    add(&mut s, "same2", "t", "u", 2_000, "same two");
    add(&mut s, "other", "o", "u", 2_000, "other");
    let slot = |id: &str| s.slot_of(id).unwrap();
    let id = |x: Option<u32>| x.map(|x| s.slot(x).unwrap().id.clone());
    let [p, n] = s.thread_neighbours(slot("same1"));
    assert_eq!((id(p), id(n)), (Some("early".into()), Some("same2".into())));
    let [p, n] = s.thread_neighbours(slot("late"));
    assert_eq!((id(p), id(n)), (Some("same2".into()), None));
    assert_eq!(s.thread_neighbours(slot("other")), [None, None]);
    // A delete links its neighbours to each other.
    let (same1, same2, early, late) = (slot("same1"), slot("same2"), slot("early"), slot("late"));
    s.delete("same1").unwrap();
    assert_eq!(s.thread_neighbours(same2), [Some(early), Some(late)]);
    assert_eq!(s.thread_neighbours(same1), [None, None]);
}

#[test]
fn derived_keys_find_a_record_by_its_date_and_user() {
    let mut s = Store::new();
    add(
        &mut s,
        "june",
        "t",
        "bo",
        MAY_8 + 40 * DAY,
        "we planted tomatoes",
    );
    add(&mut s, "may", "t2", "ada", MAY_8, "we planted tomatoes too");
    let no_context = |text: &str| SearchQuery {
        context: 0.0,
        ..bm25(text)
    };
    assert_eq!(
        ids(&s, &no_context("tomatoes in May 2023")),
        ["may", "june"]
    );
    // Both planted (stemming folds "plant" and "planted"); ada's record comes first.
    assert_eq!(ids(&s, &no_context("what did ada plant")), ["may", "june"]);
    assert_eq!(ids(&s, &no_context("Monday")), ["may"]);
    let mut off = no_context("tomatoes in May 2023");
    off.bm25.weights.keys = 0.0;
    // Without keys only the words count: the shorter record wins.
    assert_eq!(ids(&s, &off), ["june", "may"]);
    off.text = "Monday".into();
    assert!(ids(&s, &off).is_empty());
}

#[test]
fn keys_leave_with_their_record_and_come_back_on_load() {
    let mut s = Store::new();
    add(&mut s, "a", "t", "ada", MAY_8, "hello");
    add(&mut s, "b", "t", "bo", MAY_8, "hello there");
    let q = bm25("ada");
    assert_eq!(ids(&s, &q), ["a", "b"]);
    let mut kv = BTreeMap::new();
    common::apply(&mut kv, &mut s);
    let loaded = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(hits(&loaded, &q), hits(&s, &q));
    s.delete("a").unwrap();
    assert!(ids(&s, &q).is_empty());
}

#[test]
fn stop_words_leave_the_query_but_not_the_index() {
    let mut s = Store::new();
    add(&mut s, "chat", "t1", "u", 0, "what did you do, what is it");
    add(&mut s, "fact", "t2", "u", 0, "Caroline painted a lake");
    let q = bm25("What did Caroline paint?");
    assert_eq!(ids(&s, &q), ["fact"]);
    let keep = SearchQuery {
        drop_stopwords: false,
        ..q
    };
    // Kept, the stop words match the chat too ("paint" still meets "painted" first).
    assert_eq!(ids(&s, &keep), ["fact", "chat"]);
    // A query of stop words only keeps them.
    assert_eq!(ids(&s, &bm25("what is it")), ["chat"]);
}

#[test]
fn hybrid_weighs_both_signals_equally_by_default() {
    let mut s = Store::new();
    let one = |i: usize| {
        let mut v = vec![0.0f32; 4];
        v[i] = 1.0;
        v
    };
    for (id, text, v) in [
        ("words", "solar panel invoice", vec![0.6, 0.8, 0.0, 0.0]),
        ("vector", "unrelated note", one(0)),
        ("none", "nothing here", one(3)),
    ] {
        s.add_turn(NewTurn {
            id: Some(id.into()),
            thread: id.into(),
            input: text.into(),
            embedding: Some(v),
            ..Default::default()
        })
        .unwrap();
    }
    let q = SearchQuery {
        text: "solar invoice".into(),
        embedding: Some(one(0)),
        snippets: false,
        ..Default::default()
    };
    assert_eq!(q.vector_weight, 0.5);
    let h = hits(&s, &q);
    // "words" is top in BM25 and second in cosine; "vector" is top in cosine only.
    assert_eq!(h[0].id, "words");
    let heavy = SearchQuery {
        vector_weight: 0.9,
        ..q
    };
    assert_eq!(hits(&s, &heavy)[0].id, "vector");
}

#[test]
fn stemming_folds_inflections_on_both_sides_and_survives_a_reload() {
    let turns = [
        ("camp", "we went camping at the beach"),
        ("hike", "the kids hiked all day"),
        ("city", "I love big cities"),
    ];
    let mut s = Store::new();
    let mut exact = Store::new();
    assert!(s.search_index().text().stemming());
    assert!(exact.set_stemming(false));
    for (id, text) in turns {
        add(&mut s, id, id, "u", MAY_8, text);
        add(&mut exact, id, id, "u", MAY_8, text);
    }
    assert!(!exact.set_stemming(true), "only an empty store can change");
    for (q, want) in [
        ("Where has Melanie camped?", "camp"),
        ("Do they like hiking?", "hike"),
        ("Which city?", "city"),
    ] {
        assert_eq!(ids(&s, &bm25(q)), [want], "{q}");
        assert!(ids(&exact, &bm25(q)).iter().all(|id| id != want), "{q}");
    }
    // Snippets mark the word in the record's own form.
    let q = SearchQuery {
        snippets: true,
        ..bm25("camped")
    };
    assert_eq!(hits(&s, &q)[0].snippet, "we went «camping» at the beach");
    // The stored analyses are stemmed, so a reloaded store answers the same.
    let mut kv = BTreeMap::new();
    common::apply(&mut kv, &mut s);
    let loaded = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    let q = bm25("camped hiking cities");
    assert_eq!(hits(&loaded, &q), hits(&s, &q));
}
