//! Time, the entity graph and forgetting: relative dates in a search, the timeline, paths
//! over facts, time to live and purge (no byte left), decay in recall.

mod common;

use common::{apply, reload, turn};
use memdag_core::erase::PurgeQuery;
use memdag_core::graph::GraphQuery;
use memdag_core::item::{ItemKind, NewItem};
use memdag_core::memory::ItemQuery;
use memdag_core::recall::RecallQuery;
use memdag_core::search::{Scope, SearchFilter, SearchMode, SearchQuery, TimeUse};
use memdag_core::timeline::TimelineQuery;
use memdag_core::{NewTurn, Store};
use std::collections::BTreeMap;

const DAY: i64 = 86_400_000;
/// Thursday 2024-03-14 15:00 UTC.
const NOW: i64 = 1_710_428_400_000;

fn at(store: &mut Store, id: &str, thread: &str, input: &str, t: i64) {
    store
        .add_turn(NewTurn {
            id: Some(id.into()),
            thread: thread.into(),
            user: "ada".into(),
            created_at: t,
            input: input.into(),
            output: "ok".into(),
            ..NewTurn::default()
        })
        .unwrap();
}

fn fact(subject: &str, relation: &str, object: &str, sources: &[&str]) -> NewItem {
    NewItem {
        kind: Some(ItemKind::Fact),
        user: "ada".into(),
        text: format!("{subject} {relation} {object}"),
        subject: Some(subject.into()),
        relation: Some(relation.into()),
        object: Some(object.into()),
        sources: sources.iter().map(|s| s.to_string()).collect(),
        created_at: NOW - DAY,
        ..NewItem::default()
    }
}

#[test]
fn relative_dates_in_english_and_chinese_filter_a_search() {
    let mut s = Store::new();
    at(
        &mut s,
        "old",
        "t",
        "went hiking with the team",
        NOW - 20 * DAY,
    );
    at(
        &mut s,
        "last-week",
        "t",
        "went hiking in the hills",
        NOW - 8 * DAY,
    );
    at(
        &mut s,
        "yesterday",
        "t",
        "wrote the quarterly report",
        NOW - DAY,
    );
    let q = |text: &str| SearchQuery {
        text: text.into(),
        mode: SearchMode::Bm25,
        now: Some(NOW),
        ..SearchQuery::default()
    };
    let r = s
        .search_full(&q("where did I go hiking last week"))
        .unwrap();
    assert_eq!(
        r.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["last-week"]
    );
    let t = r.time.unwrap();
    assert_eq!(t.matched, "last week");
    assert!(t.since <= NOW - 8 * DAY && NOW - 8 * DAY < t.until);
    // Only a time: the records of that day, newest first.
    let r = s.search_full(&q("昨天")).unwrap();
    assert_eq!(r.hits[0].id, "yesterday");
    assert_eq!(r.time.unwrap().matched, "昨天");
    let r = s.search_full(&q("上周去哪里 hiking")).unwrap();
    assert_eq!(
        r.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["last-week"]
    );
    // Boost keeps everything, the range first; off ignores it; no now, no time.
    let mut boost = q("hiking last week");
    boost.time = TimeUse::Boost;
    let r = s.search_full(&boost).unwrap();
    assert_eq!(r.hits[0].id, "last-week");
    assert!(r.hits.iter().any(|h| h.id == "old"));
    let mut off = q("hiking last week");
    off.time = TimeUse::Off;
    assert!(s.search_full(&off).unwrap().time.is_none());
    let plain = SearchQuery {
        text: "hiking last week".into(),
        ..SearchQuery::default()
    };
    assert!(s.search_full(&plain).unwrap().time.is_none());
}

#[test]
fn the_timeline_groups_by_day_and_keeps_to_the_user() {
    let mut s = Store::new();
    at(&mut s, "a", "t1", "morning standup", NOW - DAY - 3_600_000);
    at(&mut s, "b", "t1", "evening retro", NOW - DAY + 3_600_000);
    at(&mut s, "c", "t2", "today's plan", NOW);
    let mut bob = turn("z", "t3", "bob's secret", &[]);
    bob.user = "bob".into();
    bob.created_at = NOW;
    s.add_turn(bob).unwrap();
    s.add_item(NewItem {
        kind: Some(ItemKind::Personal),
        user: "ada".into(),
        text: "Ada prefers mornings".into(),
        sources: vec!["a".into()],
        created_at: NOW - DAY,
        ..NewItem::default()
    })
    .unwrap();
    let days = s
        .timeline(&TimelineQuery {
            user: Some("ada".into()),
            ..TimelineQuery::default()
        })
        .unwrap();
    assert_eq!(days.len(), 2);
    assert_eq!(days[0].date, "2024-03-13");
    assert_eq!(days[0].entries.len(), 3, "two turns and the item");
    assert!(days[0]
        .entries
        .iter()
        .any(|e| e.kind == Some(ItemKind::Personal)));
    assert_eq!(days[1].date, "2024-03-14");
    assert!(days
        .iter()
        .flat_map(|d| &d.entries)
        .all(|e| e.user == "ada"));
    let thread = s
        .timeline(&TimelineQuery {
            thread: Some("t1".into()),
            turns_only: true,
            ..TimelineQuery::default()
        })
        .unwrap();
    assert_eq!(thread[0].entries.len(), 2);
    // In UTC+9 the standup is still on the 13th and the retro already on the 14th.
    let east = s
        .timeline(&TimelineQuery {
            thread: Some("t1".into()),
            offset_minutes: 540,
            ..TimelineQuery::default()
        })
        .unwrap();
    assert_eq!(east.len(), 2);
}

#[test]
fn a_path_over_three_hops_with_its_facts_and_source_turns() {
    let mut s = Store::new();
    at(&mut s, "t1", "t", "Ada works at Acme", NOW - 2 * DAY);
    at(&mut s, "t2", "t", "Acme is in Berlin", NOW - 2 * DAY);
    at(&mut s, "t3", "t", "Berlin is in Germany", NOW - 2 * DAY);
    s.add_item(fact("Ada", "works at", "Acme", &["t1"]))
        .unwrap();
    s.add_item(fact("ACME", "located in", "Berlin", &["t2"]))
        .unwrap();
    s.add_item(fact("berlin", "part of", "Germany", &["t3"]))
        .unwrap();
    s.add_item(fact("Bob", "works at", "Initech", &[])).unwrap();
    let g = GraphQuery::default();
    let paths = s.path("ada", "Germany ", 4, &g).unwrap();
    assert_eq!(paths.len(), 1);
    let hops: Vec<(&str, &str)> = paths[0]
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect();
    assert_eq!(
        hops,
        [("ada", "acme"), ("acme", "berlin"), ("berlin", "germany")]
    );
    assert_eq!(paths[0][1].sources, ["t2"]);
    assert!(
        s.path("ada", "germany", 2, &g).unwrap().is_empty(),
        "too far"
    );
    assert!(
        s.path("ada", "initech", 6, &g).unwrap().is_empty(),
        "not connected"
    );
    let n = s.neighbors("Berlin", 1, &g).unwrap();
    let names: Vec<&str> = n.nodes.iter().map(|x| x.entity.as_str()).collect();
    assert_eq!(names, ["berlin", "acme", "germany"]);
    assert_eq!(n.edges.len(), 2);
    let sub = s.subgraph(&["ada".into(), "acme".into()], &g).unwrap();
    assert_eq!(sub.edges.len(), 1);
    // Aliases the host declares join names.
    let mut config = s.memory_config();
    config
        .aliases
        .insert("Deutschland".into(), "Germany".into());
    s.set_memory_config(config).unwrap();
    assert_eq!(s.path("ada", "deutschland", 4, &g).unwrap().len(), 1);
    assert!(s.neighbors("x", 9, &g).is_err());
}

#[test]
fn expired_items_leave_search_and_recall_and_purge_leaves_no_byte() {
    let mut s = Store::new();
    let mut kv = BTreeMap::new();
    at(&mut s, "t1", "chat", "note this down", NOW - 2 * DAY);
    let keep = s
        .add_item(NewItem {
            kind: Some(ItemKind::Personal),
            user: "ada".into(),
            text: "Ada likes persimmons".into(),
            created_at: NOW - 2 * DAY,
            ..NewItem::default()
        })
        .unwrap()
        .item;
    let temp = s
        .add_item(NewItem {
            kind: Some(ItemKind::Personal),
            user: "ada".into(),
            text: "Ada parked on level zeta-nine".into(),
            created_at: NOW - 2 * DAY,
            ttl_ms: Some(memdag_core::time::parse_duration("1d").unwrap()),
            ..NewItem::default()
        })
        .unwrap()
        .item;
    assert_eq!(temp.meta.expires_at, Some(NOW - DAY));
    apply(&mut kv, &mut s);
    let search = |s: &Store, now: Option<i64>| {
        s.search(&SearchQuery {
            text: "zeta-nine".into(),
            mode: SearchMode::Bm25,
            filter: SearchFilter {
                scope: Scope::Items,
                now,
                ..SearchFilter::default()
            },
            ..SearchQuery::default()
        })
        .unwrap()
        .len()
    };
    assert_eq!(search(&s, Some(NOW - 2 * DAY)), 1, "alive before its time");
    assert_eq!(search(&s, Some(NOW)), 0, "gone at once when expired");
    let recall = s
        .recall_view(&RecallQuery {
            thread: "chat".into(),
            user: Some("ada".into()),
            now: Some(NOW),
            ..Default::default()
        })
        .unwrap();
    assert!(!recall.block.contains("zeta-nine") && recall.block.contains("persimmons"));
    let listed = s
        .list_items(&ItemQuery {
            now: Some(NOW),
            all: true,
            ..ItemQuery::default()
        })
        .unwrap();
    assert!(listed
        .iter()
        .any(|i| i.id == temp.id && i.meta.status.name() == "expired"));
    let purged = s
        .purge(&PurgeQuery {
            now: NOW,
            expired: true,
            ..PurgeQuery::default()
        })
        .unwrap();
    assert_eq!(purged.items, vec![temp.id.clone()]);
    apply(&mut kv, &mut s);
    let needle = b"zeta-nine";
    for (k, v) in &kv {
        assert!(
            !v.windows(needle.len()).any(|w| w == needle),
            "{k} still holds the purged text"
        );
    }
    assert!(!format!("{s:?}").contains("zeta-nine"), "no index keeps it");
    let r = reload(&kv).unwrap();
    assert!(r.item(&temp.id).is_none());
    assert_eq!(r.item(&keep.id).unwrap().text, "Ada likes persimmons");
}

#[test]
fn purge_removes_old_and_unreferenced_tool_outputs_on_request() {
    use memdag_core::context::compact_tool_result;
    let mut s = Store::new();
    let long = "line of tool output\n".repeat(400);
    let counter = memdag_core::tokens::TokenCounter::new(Default::default());
    let cut = compact_tool_result(&counter, &long, 100);
    s.put_blob(cut.full.clone().unwrap()).unwrap();
    let mut t = turn("t1", "chat", "ran a tool", &[]);
    t.created_at = NOW - 40 * DAY;
    t.steps[0].result = cut.text.clone();
    s.add_turn(t).unwrap();
    s.put_blob("nobody points at me").unwrap();
    assert_eq!(s.blob_ids().count(), 2);
    let none = s
        .purge(&PurgeQuery {
            now: NOW,
            ..PurgeQuery::default()
        })
        .unwrap();
    assert!(none.blobs.is_empty(), "nothing is forgotten unless asked");
    let unref = s
        .purge(&PurgeQuery {
            now: NOW,
            unreferenced_blobs: true,
            ..PurgeQuery::default()
        })
        .unwrap();
    assert_eq!(unref.blobs.len(), 1);
    let old = s
        .purge(&PurgeQuery {
            now: NOW,
            blob_max_age_ms: Some(30 * DAY),
            ..PurgeQuery::default()
        })
        .unwrap();
    assert_eq!(old.blobs.len(), 1);
    assert_eq!(s.blob_ids().count(), 0);
}

#[test]
fn decay_lowers_an_old_item_only_when_its_kind_has_a_half_life() {
    let mut s = Store::new();
    let add = |s: &mut Store, text: &str, t: i64| {
        s.add_item(NewItem {
            kind: Some(ItemKind::Personal),
            user: "ada".into(),
            text: text.into(),
            created_at: t,
            ..NewItem::default()
        })
        .unwrap()
        .item
        .id
    };
    let old = add(&mut s, "Ada collects stamps", NOW - 300 * DAY);
    let _new = add(&mut s, "Ada plays chess", NOW - DAY);
    let q = RecallQuery {
        user: Some("ada".into()),
        now: Some(NOW),
        ..Default::default()
    };
    let score_of = |s: &Store, id: &str| {
        s.recall_view(&q)
            .unwrap()
            .items
            .into_iter()
            .find(|i| i.id == id)
            .unwrap()
            .score
    };
    let before = score_of(&s, &old);
    let mut config = s.memory_config();
    config.half_life_ms.insert(ItemKind::Personal, 30 * DAY);
    s.set_memory_config(config).unwrap();
    let after = score_of(&s, &old);
    assert!(after < before * 0.5, "{after} vs {before}");
}
