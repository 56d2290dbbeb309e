//! The storage engine under failure: a host that stops after any write of a change set leaves
//! a store that loads as it was before or after that change set; a failed change set handed
//! back with `requeue` is written again correctly; orphans are collected; v1 stores migrate.

mod common;

use common::{apply, dump, reload, turn, v1_image};
use memdag_core::codec::Change;
use memdag_core::keys::{parse_segment_key, HEAD_KEY};
use memdag_core::storage::FANOUT;
use memdag_core::{CompactNode, NewTurn, Store};
use std::collections::{BTreeMap, BTreeSet};

type Kv = BTreeMap<String, Vec<u8>>;

fn vector(i: usize) -> Vec<f32> {
    (0..8)
        .map(|d| ((i * 31 + d * 7) % 13) as f32 - 6.0)
        .collect()
}

fn vturn(i: usize, parents: &[&str]) -> NewTurn {
    let mut t = turn(
        &format!("r{i}"),
        &format!("t{}", i % 3),
        &format!("turn number {i} about topic {}", i % 5),
        parents,
    );
    t.embedding = Some(vector(i));
    t
}

fn write(kv: &mut Kv, changes: &[Change]) {
    for c in changes {
        match &c.value {
            Some(v) => kv.insert(c.key.clone(), v.clone()),
            None => kv.remove(&c.key),
        };
    }
}

/// Whether the written prefix `written` of `changes` holds `head` or every part of one of the
/// segments `changes` writes.
fn committed(written: &[Change], changes: &[Change]) -> bool {
    if written.iter().any(|c| c.key == HEAD_KEY) {
        return true;
    }
    let generations: BTreeSet<u64> = changes
        .iter()
        .filter(|c| c.value.is_some())
        .filter_map(|c| parse_segment_key(&c.key).map(|(g, _)| g))
        .collect();
    generations.iter().any(|&g| {
        changes
            .iter()
            .filter(|c| c.value.is_some() && parse_segment_key(&c.key).is_some_and(|k| k.0 == g))
            .all(|c| written.iter().any(|w| w.key == c.key))
    })
}

/// Whether a change set merged: it writes a second segment, the merge's (the segments it
/// replaces are deleted by the next change set).
fn merges(changes: &[Change]) -> bool {
    let written: BTreeSet<u64> = changes
        .iter()
        .filter(|c| c.value.is_some())
        .filter_map(|c| parse_segment_key(&c.key).map(|(g, _)| g))
        .collect();
    written.len() >= 2
}

/// A store with enough single-add flushes to have merged segments, persisted to `kv`.
fn grown(kv: &mut Kv, n: usize) -> Store {
    let mut s = Store::new();
    for i in 0..n {
        let parents: Vec<String> = if i > 0 {
            vec![format!("r{}", i - 1)]
        } else {
            vec![]
        };
        let p: Vec<&str> = parents.iter().map(String::as_str).collect();
        s.add_turn(vturn(i, &p)).unwrap();
        if i % 7 == 0 {
            s.put_blob(format!("blob {i}")).unwrap();
        }
        apply(kv, &mut s);
    }
    s
}

/// One flush that adds, deletes, compacts, puts and removes blobs.
fn mutate(s: &mut Store, round: usize) {
    let base = 1000 + round * 10;
    s.add_turn(vturn(base, &["r3"])).unwrap();
    s.add_turn(vturn(base + 1, &[])).unwrap();
    // The first round deletes an old record, later ones one the round before added.
    let gone = if round == 0 {
        "r4".to_string()
    } else {
        format!("r{}", base - 9)
    };
    s.delete(&gone).unwrap();
    s.set_compact(
        "r2",
        Some(CompactNode {
            summary: format!("compacted {round}"),
            sections: vec![],
        }),
    )
    .unwrap();
    s.put_blob(format!("new blob {round}")).unwrap();
    s.remove_blob(&memdag_core::blob::blob_id("blob 7"));
}

fn vector_top(s: &Store, i: usize) -> Vec<String> {
    s.search(&memdag_core::search::SearchQuery {
        embedding: Some(vector(i)),
        mode: memdag_core::search::SearchMode::Vector,
        k: 3,
        ..Default::default()
    })
    .unwrap()
    .into_iter()
    .map(|h| h.id)
    .collect()
}

#[test]
fn a_crash_after_any_write_leaves_the_state_before_or_after() {
    let mut kv = Kv::new();
    // 2·FANOUT flushes: the next change sets merge segments.
    let mut s = grown(&mut kv, 2 * FANOUT + 3);
    let mut merges_seen = 0;
    let mut merging_rounds = 0;
    let mut round = 0;
    // Crash rounds until three have run, at least one of them also merging segments.
    while round < 3 || merging_rounds == 0 {
        assert!(round < 4 * FANOUT, "no merge in {round} rounds");
        let before = dump(&reload(&kv).unwrap());
        assert_eq!(before, dump(&s));
        let segments_before = s.segments().len();
        mutate(&mut s, round);
        let changes = s.take_changes().unwrap();
        let after = dump(&s);
        if merges(&changes) && s.segments().len() <= segments_before {
            merges_seen += 1;
            merging_rounds += 1;
        }
        for stop in 0..=changes.len() {
            let mut crashed = kv.clone();
            write(&mut crashed, &changes[..stop]);
            let loaded =
                reload(&crashed).unwrap_or_else(|e| panic!("round {round}, stop {stop}: {e}"));
            let state = dump(&loaded);
            // The change set is durable once `head` or any of its segments is whole (the
            // segment carries the commit): the state is after it, else before it.
            if committed(&changes[..stop], &changes) {
                assert_eq!(state, after, "round {round}, stop {stop}");
            } else {
                assert_eq!(state, before, "round {round}, stop {stop}");
            }
            // The reloaded store works and can write on from where it stands.
            let mut loaded = loaded;
            loaded.add_turn(vturn(5000 + stop, &[])).unwrap();
            let mut next = crashed.clone();
            apply(&mut next, &mut loaded);
            let again = reload(&next).unwrap();
            assert_eq!(dump(&again), dump(&loaded));
            // Orphans were collected: what is left is named by the commit, or by the commit
            // before it (the segments its merge replaced, kept one more change set).
            let retired: BTreeSet<&str> = loaded.retired().collect();
            assert!(
                next.keys().all(|k| !k.starts_with("seg/")
                    || retired.contains(k.as_str())
                    || again.segments().iter().any(|s| s.keys().any(|x| &x == k))),
                "orphans were collected: {:?}",
                next.keys().collect::<Vec<_>>()
            );
        }
        write(&mut kv, &changes);
        round += 1;
    }
    // Many more single adds, so the tiered merge runs in between.
    for i in 0..FANOUT * FANOUT {
        s.add_turn(vturn(2000 + i, &[])).unwrap();
        let changes = s.take_changes().unwrap();
        if merges(&changes) {
            merges_seen += 1;
        }
        write(&mut kv, &changes);
    }
    assert!(merges_seen >= FANOUT, "merges: {merges_seen}");
    let loaded = reload(&kv).unwrap();
    assert_eq!(dump(&loaded), dump(&s));
    assert!(
        s.segments().len() < 2 * FANOUT,
        "{} segments",
        s.segments().len()
    );
    for i in [0, 7, 2000, 2010] {
        assert_eq!(vector_top(&loaded, i), vector_top(&s, i));
    }
}

#[test]
fn batched_flushes_keep_the_segment_count_bounded_as_merges_climb_classes() {
    // Each flush holds a batch of turns, as `memdag ingest` writes: merged segments land a
    // size class up, behind the flush that merged them, and must still merge in turn.
    let mut kv = Kv::new();
    let mut s = Store::new();
    let padding = "a line of a tool log that makes the turn about a kilobyte long. ".repeat(16);
    let flushes = 48 * FANOUT;
    for f in 0..flushes {
        for j in 0..5 {
            let i = f * 5 + j;
            let mut t = vturn(i, &[]);
            t.input = format!("{} {padding}", t.input);
            s.add_turn(t).unwrap();
        }
        apply(&mut kv, &mut s);
    }
    let classes: BTreeSet<u8> = s.segments().iter().map(|g| g.level).collect();
    assert!(classes.len() >= 2, "classes {classes:?}");
    // At most FANOUT - 1 segments wait in each class, and one flush more.
    let bound = classes.len() * (FANOUT - 1) + 1;
    assert!(
        s.segments().len() <= bound,
        "{} segments after {flushes} flushes (classes {classes:?}, bound {bound})",
        s.segments().len()
    );
    assert_eq!(dump(&reload(&kv).unwrap()), dump(&s));
}

#[test]
fn a_requeued_change_set_is_written_again_whatever_part_of_it_landed() {
    for stop_at in [0usize, 1, 2, 3, 5, 8, 100] {
        let mut kv = Kv::new();
        let mut s = grown(&mut kv, FANOUT + 2);
        mutate(&mut s, 0);
        let changes = s.take_changes().unwrap();
        let stop = stop_at.min(changes.len());
        write(&mut kv, &changes[..stop]);
        s.requeue(&changes);
        assert!(s.has_changes());
        mutate(&mut s, 1);
        apply(&mut kv, &mut s);
        let loaded = reload(&kv).unwrap();
        assert_eq!(dump(&loaded), dump(&s), "stop {stop}");
        assert_eq!(loaded.orphans().count(), 0, "stop {stop}");
    }
}

#[test]
fn one_add_into_a_grown_store_writes_few_keys() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    for i in 0..3000 {
        s.add_turn(vturn(i, &[])).unwrap();
    }
    apply(&mut kv, &mut s);
    let mut keys = 0;
    for i in 0..100 {
        s.add_turn(vturn(10_000 + i, &[])).unwrap();
        let changes = s.take_changes().unwrap();
        keys += changes.len();
        write(&mut kv, &changes);
    }
    let mean = keys as f64 / 100.0;
    assert!(mean <= 4.0, "mean keys per add {mean}");
    assert_eq!(dump(&reload(&kv).unwrap()), dump(&s));
}

#[test]
fn orphans_from_a_crash_are_found_and_deleted_after_the_next_commit() {
    let mut kv = Kv::new();
    let mut s = grown(&mut kv, 3);
    s.set_part_bytes(1024);
    let mut long = vturn(50, &[]);
    long.input = "a long turn cut into several parts ".repeat(100);
    s.add_turn(long).unwrap();
    let changes = s.take_changes().unwrap();
    // Crash: the first part of the new segment landed, the rest and the commit did not.
    let part = changes.iter().find(|c| c.key.starts_with("seg/")).unwrap();
    assert!(
        changes.iter().filter(|c| c.key.starts_with("seg/")).count() > 1,
        "the segment has several parts"
    );
    kv.insert(part.key.clone(), part.value.clone().unwrap());
    kv.insert("sync/generation".into(), b"7".to_vec()); // a host's own key: never touched
    let mut loaded = reload(&kv).unwrap();
    assert!(loaded.get("r50").is_none(), "a torn segment is no commit");
    assert!(loaded.load_warnings().is_empty());
    assert_eq!(loaded.orphans().collect::<Vec<_>>(), [part.key.as_str()]);
    assert!(loaded.has_changes());
    loaded.add_turn(vturn(51, &[])).unwrap();
    let changes = loaded.take_changes().unwrap();
    let head = changes.iter().position(|c| c.key == HEAD_KEY).unwrap();
    let delete = changes
        .iter()
        .position(|c| c.key == part.key && c.value.is_none())
        .unwrap();
    assert!(head < delete, "an orphan is deleted only after the commit");
    write(&mut kv, &changes);
    assert!(kv.contains_key("sync/generation"));
    assert!(reload(&kv).unwrap().get("r51").is_some());
}

#[test]
fn a_whole_segment_without_its_head_is_committed_and_head_is_written_again() {
    let mut kv = Kv::new();
    let mut s = grown(&mut kv, 3);
    s.add_turn(vturn(50, &[])).unwrap();
    let changes = s.take_changes().unwrap();
    // Crash after the segment, before `head`: the same as a `head` rolled back one commit.
    for c in changes.iter().filter(|c| c.key.starts_with("seg/")) {
        kv.insert(c.key.clone(), c.value.clone().unwrap());
    }
    let mut loaded = reload(&kv).unwrap();
    assert!(loaded.get("r50").is_some());
    assert_eq!(dump(&loaded), dump(&s));
    let warning = &loaded.load_warnings()[0];
    assert_eq!(
        (warning.code, warning.key.as_str()),
        ("COMMIT_RECOVERED", HEAD_KEY)
    );
    assert!(loaded.has_changes(), "the open rewrites `head`");
    apply(&mut kv, &mut loaded);
    let again = reload(&kv).unwrap();
    assert!(
        again.load_warnings().is_empty(),
        "{:?}",
        again.load_warnings()
    );
    assert_eq!(dump(&again), dump(&s));
}

#[test]
fn a_v1_store_opens_and_migrates_on_its_first_flush() {
    let mut kv = Kv::new();
    let mut s = grown(&mut kv, 12);
    s.delete("r5").unwrap();
    apply(&mut kv, &mut s);
    let mut v1 = v1_image(&s);
    // v1 also stored graph nodes; without them the graph is rebuilt, with them restored.
    let opened = reload(&v1).unwrap();
    assert_eq!(dump(&opened), dump(&s));
    assert!(
        opened.has_changes(),
        "a v1 store migrates on its first flush"
    );
    let mut opened = opened;
    let changes = opened.take_changes().unwrap();
    let head = changes.iter().position(|c| c.key == HEAD_KEY).unwrap();
    assert!(changes[..head]
        .iter()
        .all(|c| c.key.starts_with("seg/") && c.value.is_some()));
    let deleted: Vec<&str> = changes[head + 1..].iter().map(|c| c.key.as_str()).collect();
    assert!(
        deleted.contains(&"meta") && deleted.contains(&"rec/r0"),
        "{deleted:?}"
    );
    write(&mut v1, &changes);
    assert!(
        v1.keys().all(|k| k == HEAD_KEY || k.starts_with("seg/")),
        "{:?}",
        v1.keys()
    );
    let migrated = reload(&v1).unwrap();
    assert_eq!(dump(&migrated), dump(&s));
    assert!(!migrated.has_changes());
    assert_eq!(vector_top(&migrated, 3), vector_top(&s, 3));
}

#[test]
fn ids_of_any_allowed_length_never_reach_a_key() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    let long = "a".repeat(230);
    s.add_turn(NewTurn {
        id: Some(long.clone()),
        thread: "t".into(),
        embedding: Some(vector(1)),
        ..Default::default()
    })
    .unwrap();
    apply(&mut kv, &mut s);
    assert!(
        kv.keys().all(|k| k.len() <= memdag_core::keys::MAX_KEY_LEN),
        "{:?}",
        kv.keys()
    );
    let too_long = "a".repeat(300);
    let err = s
        .add_turn(NewTurn {
            id: Some(too_long),
            thread: "t".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT");
    assert!(!s.has_changes(), "a refused add writes nothing");
    let mut loaded = reload(&kv).unwrap();
    assert!(loaded.get(&long).is_some());
    loaded
        .add_turn(turn("next", "t", "still works", &[long.as_str()]))
        .unwrap();
    apply(&mut kv, &mut loaded);
    assert_eq!(reload(&kv).unwrap().get("next").unwrap().parents, [long]);
}

#[test]
fn small_parts_split_large_segments_and_load_back() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    s.set_part_bytes(2048);
    for i in 0..40 {
        s.add_turn(vturn(i, &[])).unwrap();
    }
    apply(&mut kv, &mut s);
    assert!(kv.len() > 5, "{} keys", kv.len());
    assert!(kv.values().all(|v| v.len() <= 2048));
    let head = kv[HEAD_KEY].clone();
    let needed = Store::keys_to_read(&head).unwrap();
    assert_eq!(needed.len(), kv.len() - 1);
    let only: Kv = needed
        .iter()
        .map(|k| (k.clone(), kv[k].clone()))
        .chain([(HEAD_KEY.to_string(), head)])
        .collect();
    assert_eq!(dump(&reload(&only).unwrap()), dump(&s));
}

#[test]
fn a_reloaded_store_ranks_exactly_as_the_store_it_was_saved_from() {
    let mut kv = Kv::new();
    let mut s = grown(&mut kv, 40);
    s.delete("r7").unwrap();
    s.put_blob("x").unwrap();
    apply(&mut kv, &mut s);
    let loaded = reload(&kv).unwrap();
    for text in [
        "turn number 12",
        "topic 3",
        "answer to turn",
        "number topic 4 about",
        "nothing here",
    ] {
        for mode in [
            memdag_core::search::SearchMode::Bm25,
            memdag_core::search::SearchMode::Hybrid,
        ] {
            let q = memdag_core::search::SearchQuery {
                text: text.into(),
                embedding: Some(vector(3)),
                mode,
                k: 10,
                ..Default::default()
            };
            let a: Vec<(String, f32)> = s
                .search(&q)
                .unwrap()
                .into_iter()
                .map(|h| (h.id, h.score))
                .collect();
            let b: Vec<(String, f32)> = loaded
                .search(&q)
                .unwrap()
                .into_iter()
                .map(|h| (h.id, h.score))
                .collect();
            assert_eq!(a, b, "{text:?} {mode:?}");
        }
    }
    // Terms of deleted records are not carried into the reloaded vocabulary.
    assert!(loaded.search_index().text().vocabulary() <= s.search_index().text().vocabulary());
    assert_eq!(
        loaded.search_index().text().docs(),
        s.search_index().text().docs()
    );
}

/// The commit before the last opens whole: a change set that merged keeps the segments the
/// merge replaced until the next commit, so losing `head` (emptied, cut short, flipped or
/// missing) together with the newest segment, the one carrying the last commit, opens the
/// commit before it, with every record (a merge changes no record).
#[test]
fn head_broken_every_way_with_the_newest_segment_lost_opens_the_commit_before() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    let mut merged = None;
    for i in 0..40 {
        let parents: Vec<String> = (i > 0).then(|| format!("r{}", i - 1)).into_iter().collect();
        let p: Vec<&str> = parents.iter().map(String::as_str).collect();
        s.add_turn(vturn(i, &p)).unwrap();
        let changes = s.take_changes().unwrap();
        write(&mut kv, &changes);
        if merges(&changes) {
            // This change set wrote a segment and a merge: stop after it.
            merged = changes
                .iter()
                .filter_map(|c| parse_segment_key(&c.key).map(|(g, _)| g))
                .max();
            break;
        }
    }
    let merged = merged.expect("a merge within 40 single-add flushes");
    let records = dump(&s);
    let before_merge: Kv = kv.clone();
    let newest: Vec<String> = kv
        .keys()
        .filter(|k| parse_segment_key(k).is_some_and(|(g, _)| g == merged))
        .cloned()
        .collect();
    let head = kv[HEAD_KEY].clone();
    let mut flipped = head.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 1;
    for (how, broken) in [
        ("emptied", Some(Vec::new())),
        ("cut short", Some(head[..head.len() / 2].to_vec())),
        ("flipped", Some(flipped)),
        ("missing", None),
    ] {
        let mut kv = before_merge.clone();
        match broken {
            Some(v) => kv.insert(HEAD_KEY.into(), v),
            None => kv.remove(HEAD_KEY),
        };
        for k in &newest {
            kv.remove(k);
        }
        let opened = reload(&kv).unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(opened.load_warnings()[0].code, "COMMIT_RECOVERED", "{how}");
        assert_eq!(
            dump(&opened),
            records,
            "{how}: every record of the commit before"
        );
        // Its next write commits again, and then the replaced segments go.
        let mut opened = opened;
        apply(&mut kv, &mut opened);
        assert_eq!(dump(&reload(&kv).unwrap()), records, "{how}");
    }
    // The replaced segments are deleted by the next change set.
    let replaced: Vec<String> = before_merge
        .keys()
        .filter(|k| {
            parse_segment_key(k).is_some()
                && !s.segments().iter().any(|i| i.keys().any(|x| &x == *k))
        })
        .cloned()
        .collect();
    assert!(
        !replaced.is_empty(),
        "the merge's inputs are kept for one more commit"
    );
    s.add_turn(vturn(100, &[])).unwrap();
    apply(&mut kv, &mut s);
    assert!(replaced.iter().all(|k| !kv.contains_key(k)), "then deleted");
}

/// A host that opens the store afresh for every change set and reads only the keys `head`
/// names (Workers KV, a Durable Object): the segments a merge replaced are still deleted by
/// the next change set, because the commit names them, so the stored keys stay bounded.
#[test]
fn the_replaced_segments_are_deleted_by_a_host_that_reopens_for_every_write() {
    let mut kv = Kv::new();
    for i in 0..60 {
        let mut s = match kv.get(HEAD_KEY) {
            None => Store::new(),
            Some(head) => {
                let keys = Store::keys_to_read(head).unwrap();
                Store::load(
                    std::iter::once((HEAD_KEY.to_string(), head.clone()))
                        .chain(keys.into_iter().map(|k| (k.clone(), kv[&k].clone()))),
                )
                .unwrap()
            }
        };
        s.add_turn(vturn(i, &[])).unwrap();
        apply(&mut kv, &mut s);
        let stored = kv.keys().filter(|k| parse_segment_key(k).is_some()).count();
        let named: usize = s.segments().iter().map(|x| x.parts as usize).sum();
        let kept = s.retired().count();
        assert_eq!(
            stored,
            named + kept,
            "flush {i}: only named and kept segments remain: {:?}",
            kv.keys().collect::<Vec<_>>()
        );
        assert!(kept <= FANOUT * 2, "flush {i}: {kept} kept");
    }
    assert!(kv.len() < 30, "{} keys after 60 flushes", kv.len());
    assert_eq!(reload(&kv).unwrap().len(), 60);
}
