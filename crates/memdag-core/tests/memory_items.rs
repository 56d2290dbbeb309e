//! Long-term memory items: CRUD with versions, dedup, conflicts with history, the log, the
//! DAG of provenance, search scope, and persistence.

mod common;

use common::{apply, reload, turn};
use memdag_core::item::{Action, ItemKind, ItemStatus, ItemUpdate, NewItem};
use memdag_core::memory::{ConflictStrategy, ItemOrder, ItemQuery, Outcome, ResolutionQuery};
use memdag_core::search::{Scope, SearchFilter, SearchMode, SearchQuery};
use memdag_core::{Direction, Store};
use std::collections::BTreeMap;

const T0: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

fn item(user: &str, kind: ItemKind, text: &str, at: i64) -> NewItem {
    NewItem {
        kind: Some(kind),
        user: user.into(),
        text: text.into(),
        created_at: at,
        ..NewItem::default()
    }
}

fn fact(user: &str, relation: &str, object: &str, text: &str, at: i64) -> NewItem {
    NewItem {
        relation: Some(relation.into()),
        object: Some(object.into()),
        ..item(user, ItemKind::Personal, text, at)
    }
}

fn store_with_turns() -> Store {
    let mut s = Store::new();
    for (i, id) in ["t1", "t2", "t3"].iter().enumerate() {
        let mut t = turn(id, "chat", &format!("turn {id}"), &[]);
        t.created_at = T0 + i as i64 * DAY;
        s.add_turn(t).unwrap();
    }
    s
}

#[test]
fn a_contradiction_supersedes_and_keeps_the_history() {
    let mut s = store_with_turns();
    let mut paris = fact("ada", "residence", "Paris", "Ada lives in Paris", T0);
    paris.sources = vec!["t1".into()];
    let first = s.add_item(paris).unwrap();
    assert_eq!(first.outcome, Outcome::Added);
    let mut berlin = fact(
        "ada",
        "residence",
        "berlin",
        "Ada lives in Berlin now",
        T0 + DAY,
    );
    berlin.sources = vec!["t2".into()];
    let second = s.add_item(berlin).unwrap();
    assert_eq!(second.outcome, Outcome::Superseded);
    assert_eq!(second.others, vec![first.item.id.clone()]);
    let old = s.item(&first.item.id).unwrap();
    assert_eq!(old.meta.status, ItemStatus::Superseded);
    assert_eq!(old.meta.valid_until, Some(T0 + DAY));
    assert_eq!(
        old.meta.superseded_by.as_deref(),
        Some(second.item.id.as_str())
    );
    assert_eq!(second.item.meta.supersedes, vec![first.item.id.clone()]);
    // Only the new one is active, and the history shows both.
    let active = s
        .list_items(&ItemQuery {
            user: Some("ada".into()),
            ..ItemQuery::default()
        })
        .unwrap();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0].text, "Ada lives in Berlin now");
    let history = s.item_history(&second.item.id).unwrap();
    let texts: Vec<&str> = history.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(texts, ["Ada lives in Paris", "Ada lives in Berlin now"]);
    assert_eq!(history[0].valid_until, Some(T0 + DAY));
    assert_eq!(history[0].status, ItemStatus::Superseded);
    // The resolution is logged and can be queried.
    let log = s
        .resolutions(&ResolutionQuery {
            user: Some("ada".into()),
            actions: vec![Action::Superseded],
            ..ResolutionQuery::default()
        })
        .unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].item, first.item.id);
    assert_eq!(
        log[0].resolution.other.as_deref(),
        Some(second.item.id.as_str())
    );
    // A superseded item leaves search.
    let hits = s
        .search(&SearchQuery {
            text: "Paris".into(),
            mode: SearchMode::Bm25,
            filter: SearchFilter {
                scope: Scope::Items,
                ..SearchFilter::default()
            },
            ..SearchQuery::default()
        })
        .unwrap();
    assert!(hits.is_empty(), "{hits:?}");
}

#[test]
fn a_near_duplicate_corroborates_and_adds_nothing() {
    let mut s = store_with_turns();
    let mut a = item(
        "ada",
        ItemKind::Personal,
        "Ada loves hiking in the Alps",
        T0,
    );
    a.sources = vec!["t1".into()];
    let first = s.add_item(a).unwrap();
    let mut b = item(
        "ada",
        ItemKind::Personal,
        "ada loves hiking in the alps!",
        T0 + DAY,
    );
    b.sources = vec!["t2".into()];
    b.importance = Some(0.9);
    let again = s.add_item(b).unwrap();
    assert_eq!(again.outcome, Outcome::Corroborated);
    assert_eq!(again.item.id, first.item.id);
    assert_eq!(again.item.meta.corroborations, 1);
    assert_eq!(again.item.meta.last_seen, T0 + DAY);
    assert_eq!(again.item.sources, vec!["t1", "t2"]);
    assert_eq!(again.item.importance, 0.9);
    let all = s
        .list_items(&ItemQuery {
            all: true,
            ..ItemQuery::default()
        })
        .unwrap();
    assert_eq!(all.len(), 1, "no new item");
    // The corroborating turn now lists the item among its descendants.
    let below = s.descendants("t2", 4, 10).unwrap();
    assert_eq!(below[0].id, first.item.id);
    // A negation is not a duplicate.
    let no = s
        .add_item(item(
            "ada",
            ItemKind::Personal,
            "Ada doesn't love hiking in the Alps",
            T0,
        ))
        .unwrap();
    assert_eq!(no.outcome, Outcome::Added);
    // Another user's identical words are that user's own item.
    let bob = s
        .add_item(item(
            "bob",
            ItemKind::Personal,
            "Ada loves hiking in the Alps",
            T0,
        ))
        .unwrap();
    assert_eq!(bob.outcome, Outcome::Added);
}

#[test]
fn opposite_relations_of_one_object_contradict() {
    let mut s = Store::new();
    let likes = s
        .add_item(fact("ada", "likes", "cilantro", "Ada likes cilantro", T0))
        .unwrap();
    let hates = s
        .add_item(fact(
            "ada",
            "dislikes",
            "Cilantro",
            "Ada can't stand cilantro",
            T0 + 1,
        ))
        .unwrap();
    assert_eq!(hates.outcome, Outcome::Superseded);
    assert_eq!(hates.others, vec![likes.item.id]);
    // Two likes of different things are both kept.
    let tea = s
        .add_item(fact("ada", "likes", "tea", "Ada likes tea", T0 + 2))
        .unwrap();
    assert_eq!(tea.outcome, Outcome::Added);
}

#[test]
fn keep_both_flags_and_merge_without_an_llm_falls_back_to_newest() {
    let mut s = Store::new();
    let mut config = s.memory_config();
    config.conflict = ConflictStrategy::Keep;
    s.set_memory_config(config.clone()).unwrap();
    let a = s
        .add_item(fact("ada", "employer", "Acme", "Ada works at Acme", T0))
        .unwrap();
    let b = s
        .add_item(fact(
            "ada",
            "employer",
            "Globex",
            "Ada works at Globex",
            T0 + 1,
        ))
        .unwrap();
    assert_eq!(b.outcome, Outcome::Flagged);
    assert_eq!(b.item.meta.conflicts, vec![a.item.id.clone()]);
    assert_eq!(
        s.item(&a.item.id).unwrap().meta.conflicts,
        vec![b.item.id.clone()]
    );
    assert_eq!(s.item(&a.item.id).unwrap().meta.status, ItemStatus::Active);
    config.conflict = ConflictStrategy::Merge;
    s.set_memory_config(config).unwrap();
    let c = s
        .add_item(fact("ada", "job", "pilot", "Ada is a pilot", T0 + 2))
        .unwrap();
    let d = s
        .add_item(fact("ada", "job", "chef", "Ada is a chef", T0 + 3))
        .unwrap();
    assert_eq!(d.outcome, Outcome::Superseded);
    assert!(d.reason.contains("newest wins"), "{}", d.reason);
    assert_eq!(
        s.item(&c.item.id).unwrap().meta.status,
        ItemStatus::Superseded
    );
}

#[test]
fn judged_pairs_override_the_rules() {
    use memdag_core::memory::learn::{Judged, Verdict};
    let mut s = Store::new();
    let mut config = s.memory_config();
    config.conflict = ConflictStrategy::Merge;
    s.set_memory_config(config).unwrap();
    let a = s
        .add_item(item(
            "ada",
            ItemKind::Procedural,
            "Deploys need the VPN",
            T0,
        ))
        .unwrap();
    let new = item(
        "ada",
        ItemKind::Procedural,
        "Deploys need the VPN and a token",
        T0 + 1,
    );
    let cands = s.item_candidates(&new).unwrap();
    assert_eq!(cands[0].id, a.item.id);
    let judged = [Judged {
        item: a.item.id.clone(),
        verdict: Verdict::Contradicts,
        merged: Some("Deploys need the VPN and an API token".into()),
    }];
    let merged = s.add_item_judged(new, &judged).unwrap();
    assert_eq!(merged.outcome, Outcome::Merged);
    assert_eq!(merged.item.id, a.item.id);
    assert_eq!(merged.item.text, "Deploys need the VPN and an API token");
    assert_eq!(merged.item.meta.version, 2);
    assert_eq!(merged.item.meta.history[0].text, "Deploys need the VPN");
    assert_eq!(merged.item.meta.log.last().unwrap().by, "llm");
}

#[test]
fn update_versions_and_soft_delete_keep_the_history() {
    let mut s = Store::new();
    let a = s
        .add_item(item(
            "ada",
            ItemKind::Tool,
            "grep needs -E for alternation",
            T0,
        ))
        .unwrap()
        .item;
    let updated = s
        .update_item(
            &a.id,
            ItemUpdate {
                text: Some("grep needs -E for | alternation".into()),
                importance: Some(0.8),
                at: T0 + DAY,
                ..ItemUpdate::default()
            },
        )
        .unwrap();
    assert_eq!(updated.meta.version, 2);
    assert_eq!(updated.meta.history.len(), 1);
    assert_eq!(updated.meta.history[0].valid_until, T0 + DAY);
    assert_eq!(updated.importance, 0.8);
    let hits = s
        .search(&SearchQuery {
            text: "alternation".into(),
            mode: SearchMode::Bm25,
            ..SearchQuery::default()
        })
        .unwrap();
    assert_eq!(hits[0].id, a.id);
    assert_eq!(hits[0].kind, Some(ItemKind::Tool));
    let deleted = s.delete_item(&a.id, T0 + 2 * DAY).unwrap();
    assert_eq!(deleted.meta.status, ItemStatus::Deleted);
    assert_eq!(s.item_history(&a.id).unwrap().len(), 2);
    assert!(s.list_items(&ItemQuery::default()).unwrap().is_empty());
    let all = s
        .list_items(&ItemQuery {
            all: true,
            ..ItemQuery::default()
        })
        .unwrap();
    assert_eq!(all[0].meta.status, ItemStatus::Deleted);
    assert!(s
        .search(&SearchQuery {
            text: "alternation".into(),
            mode: SearchMode::Bm25,
            ..SearchQuery::default()
        })
        .unwrap()
        .is_empty());
    assert_eq!(
        s.update_item("nope", ItemUpdate::default())
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
    assert_eq!(s.delete_item("nope", 0).unwrap_err().code(), "NOT_FOUND");
}

#[test]
fn list_filters_sorts_and_pages() {
    let mut s = Store::new();
    for i in 0..10 {
        let mut n = item(
            if i % 2 == 0 { "ada" } else { "bob" },
            if i < 5 {
                ItemKind::Personal
            } else {
                ItemKind::Tool
            },
            &format!(
                "distinct fact number {i} about {}",
                ["tea", "maps", "boats", "rust", "jazz", "ink", "owls", "snow", "kites", "figs"][i]
            ),
            T0 + i as i64,
        );
        n.importance = Some(i as f32 / 10.0);
        if i >= 5 {
            n.tool = Some("grep".into());
        }
        s.add_item(n).unwrap();
    }
    let q = |f: &dyn Fn(&mut ItemQuery)| {
        let mut q = ItemQuery::default();
        f(&mut q);
        s.list_items(&q).unwrap()
    };
    assert_eq!(q(&|_| {}).len(), 10);
    assert_eq!(q(&|q| q.user = Some("ada".into())).len(), 5);
    assert_eq!(q(&|q| q.kinds = vec![ItemKind::Tool]).len(), 5);
    assert_eq!(q(&|q| q.tool = Some("grep".into())).len(), 5);
    assert_eq!(q(&|q| q.since = Some(T0 + 8)).len(), 2);
    assert_eq!(q(&|q| q.until = Some(T0 + 2)).len(), 2);
    let newest = q(&|q| q.limit = 3);
    assert_eq!(newest[0].created_at, T0 + 9);
    let paged = q(&|q| {
        q.limit = 3;
        q.offset = 3;
    });
    assert_eq!(paged[0].created_at, T0 + 6);
    let by_importance = q(&|q| {
        q.order = ItemOrder::Importance;
        q.ascending = true;
    });
    assert_eq!(by_importance[0].importance, 0.0);
    assert!(s
        .list_items(&ItemQuery {
            limit: 0,
            ..ItemQuery::default()
        })
        .is_err());
}

#[test]
fn items_join_the_dag_and_search_scopes_them() {
    let mut s = store_with_turns();
    let mut n = item(
        "ada",
        ItemKind::Procedural,
        "release notes go in CHANGES.md",
        T0,
    );
    n.sources = vec!["t3".into(), "t3".into()];
    let it = s.add_item(n).unwrap().item;
    assert_eq!(it.sources, vec!["t3"]);
    let up = s
        .walk_as(None, &it.id, Direction::Ancestors, 4, 10)
        .unwrap();
    assert_eq!(up[0].id, "t3");
    assert!(s.recent("chat", 10).iter().all(|r| !r.is_item()));
    let search = |scope| {
        s.search(&SearchQuery {
            text: "CHANGES release turn".into(),
            mode: SearchMode::Bm25,
            filter: SearchFilter {
                scope,
                ..SearchFilter::default()
            },
            ..SearchQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect::<Vec<_>>()
    };
    assert_eq!(search(Scope::Items), vec![it.id.clone()]);
    assert!(!search(Scope::Turns).contains(&it.id));
    assert!(search(Scope::All).contains(&it.id) && search(Scope::All).contains(&"t3".to_string()));
    let mut bad = item("ada", ItemKind::Fact, "x", T0);
    bad.sources = vec!["ghost".into()];
    assert_eq!(s.add_item(bad).unwrap_err().code(), "UNKNOWN_PARENT");
    assert_eq!(
        s.add_item(NewItem {
            text: "x".into(),
            ..NewItem::default()
        })
        .unwrap_err()
        .code(),
        "INVALID_INPUT"
    );
    assert_eq!(
        s.add_item(item("ada", ItemKind::Fact, "  ", T0))
            .unwrap_err()
            .code(),
        "INVALID_INPUT"
    );
}

#[test]
fn items_settings_and_use_counts_survive_a_reload() {
    let mut s = store_with_turns();
    let mut kv = BTreeMap::new();
    let mut config = s.memory_config();
    config.conflict = ConflictStrategy::Keep;
    s.set_memory_config(config.clone()).unwrap();
    let a = s
        .add_item(fact("ada", "residence", "Paris", "Ada lives in Paris", T0))
        .unwrap();
    apply(&mut kv, &mut s);
    let b = s
        .add_item(fact(
            "ada",
            "residence",
            "Rome",
            "Ada lives in Rome",
            T0 + 1,
        ))
        .unwrap();
    let recall = s
        .recall(&memdag_core::recall::RecallQuery {
            thread: "chat".into(),
            user: Some("ada".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(!recall.items.is_empty());
    let used = recall.items[0].id.clone();
    assert!(s.has_changes(), "a recall changes use counts");
    apply(&mut kv, &mut s);
    let r = reload(&kv).unwrap();
    assert_eq!(r.memory_config(), config);
    assert_eq!(r.item(&a.item.id), s.item(&a.item.id));
    assert_eq!(r.item(&b.item.id), s.item(&b.item.id));
    assert_eq!(r.access_count(&used), 1, "use counts persist");
    // Many flushes and merges later, everything is still there.
    let mut s = r;
    for i in 0..20 {
        let mut t = turn(&format!("x{i}"), "chat", "more", &[]);
        t.created_at = T0 + 10 * DAY + i;
        s.add_turn(t).unwrap();
        apply(&mut kv, &mut s);
    }
    let r = reload(&kv).unwrap();
    assert_eq!(r.access_count(&used), 1);
    assert_eq!(r.memory_config().conflict, ConflictStrategy::Keep);
    assert_eq!(
        r.item(&b.item.id).unwrap().meta.conflicts,
        vec![a.item.id.clone()]
    );
}

#[test]
fn as_of_returns_items_as_they_were() {
    let mut s = Store::new();
    let a = s
        .add_item(fact("ada", "residence", "Paris", "Ada lives in Paris", T0))
        .unwrap();
    s.update_item(
        &a.item.id,
        ItemUpdate {
            text: Some("Ada lives in central Paris".into()),
            at: T0 + DAY,
            ..ItemUpdate::default()
        },
    )
    .unwrap();
    s.add_item(fact(
        "ada",
        "residence",
        "Lyon",
        "Ada lives in Lyon",
        T0 + 3 * DAY,
    ))
    .unwrap();
    let at = |t: i64| -> Vec<String> {
        s.list_items(&ItemQuery {
            as_of: Some(t),
            ..ItemQuery::default()
        })
        .unwrap()
        .into_iter()
        .map(|i| i.text)
        .collect()
    };
    assert!(at(T0 - 1).is_empty());
    assert_eq!(at(T0 + 1), ["Ada lives in Paris"]);
    assert_eq!(at(T0 + 2 * DAY), ["Ada lives in central Paris"]);
    assert_eq!(at(T0 + 4 * DAY), ["Ada lives in Lyon"]);
}

fn recall_query(user: &str, text: Option<&str>, budget: usize) -> memdag_core::recall::RecallQuery {
    memdag_core::recall::RecallQuery {
        thread: "chat".into(),
        user: (!user.is_empty()).then(|| user.into()),
        query_text: text.map(String::from),
        budget_tokens: budget,
        now: Some(T0 + 30 * DAY),
        ..Default::default()
    }
}

#[test]
fn recall_shows_what_is_known_first_and_keeps_to_the_budget() {
    use memdag_core::recall::RecallSection;
    let mut s = store_with_turns();
    s.add_item(fact("ada", "residence", "Oslo", "Ada lives in Oslo", T0))
        .unwrap();
    s.add_item(item(
        "ada",
        ItemKind::Tool,
        "the deploy tool needs --region eu-north-1",
        T0,
    ))
    .unwrap();
    s.add_item(fact("bob", "residence", "Rome", "Bob lives in Rome", T0))
        .unwrap();
    let r = s
        .recall_view(&recall_query("ada", Some("how do I deploy"), 2000))
        .unwrap();
    let known: Vec<&str> = r
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Known)
        .map(|i| i.text.as_str())
        .collect();
    assert_eq!(known.len(), 2, "{known:?}");
    assert!(known[0].contains("Oslo") || known[1].contains("Oslo"));
    assert!(known.iter().any(|t| t.contains("--region")));
    assert!(!r.block.contains("Rome"), "another user's item never shows");
    assert_eq!(
        r.items[0].section,
        RecallSection::Known,
        "known comes first"
    );
    assert!(r.block.find("## Known").unwrap() < r.block.find("## This thread").unwrap());
    for budget in [40, 80, 120, 400] {
        let tight = s
            .recall_view(&recall_query("ada", Some("deploy"), budget))
            .unwrap();
        assert!(tight.tokens <= budget, "{} > {budget}", tight.tokens);
    }
    // A superseded item leaves recall.
    s.add_item(fact(
        "ada",
        "residence",
        "Bergen",
        "Ada lives in Bergen",
        T0 + DAY,
    ))
    .unwrap();
    let r = s.recall_view(&recall_query("ada", None, 2000)).unwrap();
    assert!(
        r.block.contains("Bergen") && !r.block.contains("Oslo"),
        "{}",
        r.block
    );
}

#[test]
fn known_shows_a_task_item_only_when_it_matches_not_when_it_is_merely_nearest() {
    use memdag_core::recall::RecallSection;
    let mut s = store_with_turns();
    let with = |text: &str, v: [f32; 4]| NewItem {
        embedding: Some(v.to_vec()),
        ..item("ada", ItemKind::Tool, text, T0)
    };
    // Shares "deploy" with the query; its vector is far from the query's.
    s.add_item(with(
        "the deploy tool needs --region eu-north-1",
        [1.0, 0.0, 0.0, 0.0],
    ))
    .unwrap();
    // No shared word, but its vector is close: a semantic match.
    s.add_item(with(
        "ship builds with the release script",
        [0.0, 1.0, 0.0, 0.0],
    ))
    .unwrap();
    // No shared word and a far vector: only ever "a nearest neighbour".
    s.add_item(with(
        "book_ticket needs the visitors' names",
        [0.0, 0.0, 1.0, 0.0],
    ))
    .unwrap();
    let mut q = recall_query("ada", Some("how do I deploy"), 2000);
    q.embedding = Some(vec![0.3, 0.954, 0.0, 0.0]);
    let r = s.recall_view(&q).unwrap();
    let known: Vec<&str> = r
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Known)
        .map(|i| i.text.as_str())
        .collect();
    assert!(known.iter().any(|t| t.contains("--region")), "{known:?}");
    assert!(
        known.iter().any(|t| t.contains("release script")),
        "{known:?}"
    );
    assert!(
        !known.iter().any(|t| t.contains("book_ticket")),
        "{known:?}"
    );
}

#[test]
fn each_of_the_four_terms_changes_the_ranking_of_items() {
    use memdag_core::recall::{RecallQuery, RecallWeights};
    let only = |recency: f32, importance: f32, access: f32, relevance: f32| RecallWeights {
        recency,
        importance,
        access,
        relevance,
        ..RecallWeights::default()
    };
    let mut s = Store::new();
    let mut a = item("ada", ItemKind::Personal, "Ada keeps bees on her roof", T0);
    a.importance = Some(0.3);
    let a = s.add_item(a).unwrap().item.id;
    let mut b = item(
        "ada",
        ItemKind::Personal,
        "Ada rows a scull at dawn",
        T0 + 10 * DAY,
    );
    b.importance = Some(0.9);
    let b = s.add_item(b).unwrap().item.id;
    let first = |s: &Store, w: RecallWeights, text: Option<&str>| -> String {
        let q = RecallQuery {
            user: Some("ada".into()),
            query_text: text.map(String::from),
            now: Some(T0 + 11 * DAY),
            weights: w,
            ..Default::default()
        };
        s.recall_view(&q).unwrap().items[0].id.clone()
    };
    assert_eq!(
        first(&s, only(1.0, 0.0, 0.0, 0.0), None),
        b,
        "recency: b is newer"
    );
    assert_eq!(
        first(&s, only(0.0, 1.0, 0.0, 0.0), None),
        b,
        "importance: b is more important"
    );
    assert_eq!(
        first(&s, only(0.0, 0.0, 0.0, 1.0), Some("bees")),
        a,
        "relevance: a matches"
    );
    // Use: only a is returned by a tight recall, so only a is used.
    let tight = RecallQuery {
        user: Some("ada".into()),
        query_text: Some("bees".into()),
        budget_tokens: 60,
        weights: only(0.0, 0.0, 0.0, 1.0),
        ..Default::default()
    };
    for _ in 0..3 {
        let r = s.recall(&tight).unwrap();
        assert_eq!(r.items.len(), 1);
    }
    assert_eq!(s.item(&a).unwrap().uses, 3);
    assert_eq!(s.item(&b).unwrap().uses, 0);
    assert_eq!(
        first(&s, only(0.0, 0.0, 1.0, 0.0), None),
        a,
        "use: a was used"
    );
    // With the default weights, turning one term around turns the order around.
    assert_eq!(first(&s, RecallWeights::default(), None), b);
    assert_eq!(first(&s, RecallWeights::default(), Some("bees")), a);
}

#[test]
fn working_memory_comes_first_in_recall_within_the_budget() {
    use memdag_core::work::{WorkOp, WorkUpdate};
    let mut s = store_with_turns();
    let set = |field: &str, op: WorkOp, value: serde_json::Value, at: i64| WorkUpdate {
        thread: "chat".into(),
        field: field.into(),
        op,
        value: Some(value),
        at,
        user: Some("ada".into()),
    };
    s.update_work(&set(
        "goal",
        WorkOp::Set,
        serde_json::json!("ship the release"),
        T0,
    ))
    .unwrap();
    s.update_work(&set(
        "tasks",
        WorkOp::Push,
        serde_json::json!({"text": "tag v1", "status": "open"}),
        T0,
    ))
    .unwrap();
    let r = s.recall_view(&recall_query("ada", None, 2000)).unwrap();
    assert!(
        r.block
            .contains("## Working memory\nGoal: ship the release"),
        "{}",
        r.block
    );
    assert!(r.block.find("## Working memory").unwrap() < r.block.find("## This thread").unwrap());
    assert!(r.working.as_deref().unwrap().contains("[open] tag v1"));
    for budget in [20, 40, 60, 200] {
        let tight = s.recall_view(&recall_query("ada", None, budget)).unwrap();
        assert!(tight.tokens <= budget);
    }
    // Another user does not see it.
    let bob = s.recall_view(&recall_query("bob", None, 2000)).unwrap();
    assert!(!bob.block.contains("ship the release"));
    // It persists.
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    assert_eq!(
        reload(&kv)
            .unwrap()
            .working_memory("chat", Some("ada"))
            .unwrap(),
        s.working_memory("chat", Some("ada")).unwrap()
    );
}
