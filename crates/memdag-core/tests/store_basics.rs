//! The store's contract: parents, delete semantics, recent/by_user, change sets.

mod common;

use common::{apply, turn};
use memdag_core::{Error, NewTurn, Store};
use std::collections::BTreeMap;

fn ids(records: &[&memdag_core::Record]) -> Vec<String> {
    records.iter().map(|r| r.id.clone()).collect()
}

#[test]
fn unknown_parent_is_refused_and_nothing_is_written() {
    let mut store = Store::new();
    store.add_turn(turn("a", "t", "hello", &[])).unwrap();
    store.take_changes().unwrap();
    let err = store
        .add_turn(turn("b", "t", "x", &["a", "ghost", "phantom"]))
        .unwrap_err();
    assert_eq!(
        err,
        Error::UnknownParents {
            ids: vec!["ghost".into(), "phantom".into()]
        }
    );
    assert_eq!(err.code(), "UNKNOWN_PARENT");
    assert!(store.get("b").is_none());
    assert_eq!(store.len(), 1);
    assert!(
        !store.has_changes(),
        "a refused turn must not touch the change set"
    );
    assert!(store.recent("t", 10).iter().all(|r| r.id == "a"));
}

#[test]
fn duplicate_and_bad_ids_are_refused() {
    let mut store = Store::new();
    store.add_turn(turn("a", "t", "hello", &[])).unwrap();
    assert_eq!(
        store
            .add_turn(turn("a", "t", "again", &[]))
            .unwrap_err()
            .code(),
        "DUPLICATE_ID"
    );
    assert_eq!(
        store.add_turn(turn("", "t", "x", &[])).unwrap_err().code(),
        "INVALID_INPUT"
    );
    assert_eq!(
        store
            .add_turn(turn("a\nb", "t", "x", &[]))
            .unwrap_err()
            .code(),
        "INVALID_INPUT"
    );
    let mut no_thread = turn("z", "", "x", &[]);
    no_thread.thread.clear();
    assert_eq!(
        store.add_turn(no_thread).unwrap_err().code(),
        "INVALID_INPUT"
    );
    assert_eq!(store.len(), 1);
}

#[test]
fn derived_ids_are_deterministic_and_unique() {
    let build = || {
        let mut s = Store::new();
        let mut out = Vec::new();
        for _ in 0..3 {
            let mut t = turn("x", "t", "same", &[]);
            t.id = None;
            out.push(s.add_turn(t).unwrap().id.clone());
        }
        out
    };
    let first = build();
    assert_eq!(first, build());
    assert_eq!(first.len(), 3);
    assert!(first[0] != first[1] && first[1] != first[2]);
}

#[test]
fn recent_and_by_user_are_newest_first() {
    let mut store = Store::new();
    for (i, thread) in ["t1", "t2", "t1", "t1"].iter().enumerate() {
        let mut t = turn(&format!("r{i}"), thread, "x", &[]);
        t.created_at = 1000 + i as i64;
        t.user = if i == 1 { "bob".into() } else { "ada".into() };
        store.add_turn(t).unwrap();
    }
    assert_eq!(ids(&store.recent("t1", 2)), ["r3", "r2"]);
    assert_eq!(ids(&store.recent("t1", 10)), ["r3", "r2", "r0"]);
    assert_eq!(ids(&store.by_user("bob", 10).unwrap()), ["r1"]);
    assert_eq!(store.by_user(" ", 10).unwrap_err().code(), "INVALID_INPUT");
    assert!(store.recent("none", 5).is_empty());
}

/// a <- b <- d, a <- c <- d, d <- e
fn diamond() -> Store {
    let mut s = Store::new();
    s.add_turn(turn("a", "t", "root", &[])).unwrap();
    s.add_turn(turn("b", "t", "left", &["a"])).unwrap();
    s.add_turn(turn("c", "t", "right", &["a"])).unwrap();
    s.add_turn(turn("d", "t", "join", &["b", "c"])).unwrap();
    s.add_turn(turn("e", "t", "tip", &["d"])).unwrap();
    s
}

#[test]
fn ancestors_and_descendants_are_breadth_first_nearest_first() {
    let s = diamond();
    assert_eq!(
        ids(&s.ancestors("e", 10, 10).unwrap()),
        ["d", "b", "c", "a"]
    );
    assert_eq!(ids(&s.ancestors("e", 2, 10).unwrap()), ["d", "b", "c"]);
    assert_eq!(ids(&s.ancestors("e", 10, 2).unwrap()), ["d", "b"]);
    assert_eq!(
        ids(&s.descendants("a", 10, 10).unwrap()),
        ["b", "c", "d", "e"]
    );
    assert!(s.ancestors("a", 10, 10).unwrap().is_empty());
    assert_eq!(s.ancestors("nope", 1, 1).unwrap_err().code(), "NOT_FOUND");
}

#[test]
fn delete_splices_the_record_out_of_the_dag() {
    let mut s = diamond();
    s.take_changes().unwrap();
    let gone = s.delete("d").unwrap();
    assert_eq!(gone.id, "d");
    assert!(s.get("d").is_none());
    // e inherits d's parents, in d's order.
    assert_eq!(s.get("e").unwrap().parents, ["b", "c"]);
    assert_eq!(ids(&s.ancestors("e", 10, 10).unwrap()), ["b", "c", "a"]);
    assert!(s.children("b").contains(&"e".to_string()));
    assert!(s.children("d").is_empty());
    // The change set is one new segment (the rewritten child and d's tombstone), then the
    // commit.
    let changes = s.take_changes().unwrap();
    let keys: Vec<(&str, bool)> = changes
        .iter()
        .map(|c| (c.key.as_str(), c.value.is_some()))
        .collect();
    assert_eq!(keys, [("seg/0000000000000002/0", true), ("head", true)]);
    assert_eq!(s.delete("d").unwrap_err().code(), "NOT_FOUND");
}

#[test]
fn delete_of_a_root_leaves_children_as_roots_and_dedups_shared_parents() {
    let mut s = diamond();
    s.delete("a").unwrap();
    assert!(s.get("b").unwrap().parents.is_empty());
    assert!(s.get("c").unwrap().parents.is_empty());
    // d already had b; deleting b gives d only one more parent edge to nothing new.
    let mut s = diamond();
    s.add_turn(turn("f", "t", "both", &["b", "a"])).unwrap();
    s.delete("b").unwrap();
    assert_eq!(s.get("f").unwrap().parents, ["a"]);
    assert_eq!(s.get("d").unwrap().parents, ["a", "c"]);
}

#[test]
fn change_set_round_trips_through_a_map() {
    let mut s = diamond();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    s.delete("c").unwrap();
    apply(&mut kv, &mut s);
    let loaded = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(loaded.len(), s.len());
    for r in s.iter() {
        assert_eq!(loaded.get(&r.id), Some(r));
    }
    assert_eq!(
        ids(&loaded.ancestors("e", 9, 9).unwrap()),
        ids(&s.ancestors("e", 9, 9).unwrap())
    );
    assert!(!loaded.has_changes());
    // The counter survives, so new derived ids never collide with old ones.
    assert_eq!(loaded.meta(), s.meta());
}

#[test]
fn requeue_repeats_a_change_set_the_host_failed_to_write() {
    let mut s = diamond();
    let first = s.take_changes().unwrap();
    assert!(!s.has_changes());
    s.requeue(&first);
    assert!(s.has_changes());
    let again = s.take_changes().unwrap();
    // The same content under a new generation; the first attempt's keys are deleted after the
    // commit, whether or not they landed.
    let mut kv = BTreeMap::new();
    for c in &again {
        if let Some(v) = &c.value {
            kv.insert(c.key.clone(), v.clone());
        }
    }
    let loaded = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(loaded.len(), s.len());
    for r in s.iter() {
        assert_eq!(loaded.get(&r.id), Some(r));
    }
    let deleted: Vec<&str> = again
        .iter()
        .filter(|c| c.value.is_none())
        .map(|c| c.key.as_str())
        .collect();
    assert_eq!(deleted, [first[0].key.as_str()]);
}

#[test]
fn limits_refuse_oversized_turns_and_change_nothing() {
    use memdag_core::Limits;
    let mut s = Store::new();
    let huge = "x".repeat(64 << 20);
    let e = s
        .add_turn(NewTurn {
            thread: "t".into(),
            input: huge,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
    assert!(e.to_string().contains("maxFieldBytes"), "{e}");
    assert!(s.is_empty() && !s.has_changes());
    s.set_limits(Limits {
        max_tags: 1,
        ..Limits::default()
    })
    .unwrap();
    assert_eq!(s.limits().max_tags, 1);
    let two_tags = NewTurn {
        thread: "t".into(),
        tags: vec!["a".into(), "b".into()],
        ..Default::default()
    };
    assert_eq!(s.add_turn(two_tags).unwrap_err().code(), "INVALID_INPUT");
    assert_eq!(
        s.set_limits(Limits {
            max_steps: 0,
            ..Limits::default()
        })
        .unwrap_err()
        .code(),
        "INVALID_INPUT"
    );
    assert_eq!(
        s.limits().max_tags,
        1,
        "a refused change keeps the old limits"
    );
}

#[test]
fn cited_ids_are_found_in_a_reply_and_unknown_parents_can_be_dropped() {
    use memdag_core::cite::AddOptions;
    let mut store = Store::new();
    store.add_turn(turn("a", "t", "hello", &[])).unwrap();
    let mut bobs = turn("b", "t", "bob's", &[]);
    bobs.user = "bob".into();
    store.add_turn(bobs).unwrap();
    let reply = "As noted in [a] and [ghost], and again [a]; see [b].\n[not closed";
    assert_eq!(store.cited(reply, None).unwrap(), ["a", "b"]);
    assert_eq!(
        store.cited(reply, Some("")).unwrap_err().code(),
        "INVALID_INPUT"
    );
    assert_eq!(
        store.cited(reply, Some("ada")).unwrap(),
        ["a"],
        "bob's record is not ada's to cite"
    );
    let t = turn("c", "t", "next", &["a", "ghost", "b"]);
    assert_eq!(
        store.add_turn(t.clone()).unwrap_err().code(),
        "UNKNOWN_PARENT"
    );
    let added = store
        .add_turn_with(
            t,
            AddOptions {
                drop_unknown_parents: true,
            },
        )
        .unwrap();
    assert_eq!(added.record.parents, ["a", "b"]);
    assert_eq!(added.dropped, ["ghost"]);
}

/// A store keeps one copy of each vector, in its index: the record holds none, the store gives
/// the vector back exactly as the host gave it (not normalized), through a flush and a reload,
/// and a deleted record is handed back with it.
#[test]
fn a_vector_is_kept_once_and_given_back_exactly() {
    let mut s = Store::new();
    let given = vec![3.0f32, 4.0, 0.1];
    let mut t = turn("v", "t", "vectors", &[]);
    t.embedding = Some(given.clone());
    s.add_turn(t).unwrap();
    assert_eq!(
        s.get("v").unwrap().embedding,
        None,
        "the index holds the only copy"
    );
    assert_eq!(s.embedding("v").as_deref(), Some(&given[..]));
    let hits = s
        .search(&memdag_core::search::SearchQuery {
            embedding: Some(vec![0.6, 0.8, 0.02]),
            mode: memdag_core::search::SearchMode::Vector,
            k: 1,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits[0].id, "v");
    let cosine = hits[0].vector.expect("a vector score");
    assert!(
        (cosine - 1.0).abs() < 1e-4,
        "cosine of a scaled copy is 1, got {cosine}"
    );

    let mut kv = std::collections::BTreeMap::new();
    apply(&mut kv, &mut s);
    let mut back = common::reload(&kv).unwrap();
    assert_eq!(
        back.embedding("v").as_deref(),
        Some(&given[..]),
        "bit for bit after a reload"
    );
    assert_eq!(back.get("v").unwrap().embedding, None);
    let deleted = back.delete("v").unwrap();
    assert_eq!(
        deleted.embedding,
        Some(given),
        "a deleted record comes back whole"
    );
    assert_eq!(back.embedding("v").as_deref(), None);
}

/// A vector whose norm an `f32` inverse cannot carry is refused before anything changes;
/// large but storable components still rank by cosine (the dot product is rescaled).
#[test]
fn a_vector_too_long_to_store_is_refused_and_large_ones_still_rank() {
    let mut s = Store::new();
    let mut t = turn("huge", "t", "x", &[]);
    t.embedding = Some(vec![1e31, 0.0]);
    let err = s.add_turn(t).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT", "{err}");
    assert!(s.is_empty() && !s.has_changes());
    for (id, v) in [("a", [1e25f32, 1e25]), ("b", [1e25, -1e25])] {
        let mut t = turn(id, "t", id, &[]);
        t.embedding = Some(v.to_vec());
        s.add_turn(t).unwrap();
    }
    let hits = s
        .search(&memdag_core::search::SearchQuery {
            embedding: Some(vec![1.0, 0.9]),
            mode: memdag_core::search::SearchMode::Vector,
            k: 2,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits[0].id, "a");
    assert!(hits[0].vector.unwrap() > 0.99 && hits[1].vector.unwrap().abs() < 0.1);
}
