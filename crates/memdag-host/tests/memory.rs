//! Long-term memory, working memory, time, the entity graph, purge and the tools through the
//! host library, on the real component under Wasmtime: every new function of `wit/memory.wit`
//! at least once (the LLM pass is in tests/llm.rs). Needs the built component (scripts/build-component.sh).

mod common;

use memdag_host::{
    extract_query, graph_query, item_query, item_update, new_item, purge_query, recall_query,
    resolution_query, search_query, timeline_query, tool_context, work_update, Action, DirKv,
    ItemKind, ItemStatus, Memory, Outcome, RecallSection, Scope, SearchMode, WorkOp,
};

use common::{runtime, turn, SharedKv};

/// A fixed "now": 2023-11-14T22:13:20Z, a Tuesday.
const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

/// A turn of `user` saying `input` at `at`.
fn said(memory: &mut Memory, id: &str, thread: &str, user: &str, input: &str, at: i64) {
    let mut t = turn(id, thread, at, &[]);
    t.user = user.into();
    t.input = input.into();
    t.output = "Noted.".into();
    memory.add_turn(t).unwrap();
}

/// A personal fact of `user`: relation and object, said at `at` in turn `source`.
fn fact(user: &str, relation: &str, object: &str, text: &str, at: i64) -> memdag_host::NewItem {
    let mut item = new_item(ItemKind::Personal, user, text);
    item.relation = Some(relation.into());
    item.object = Some(object.into());
    item.created_at = at;
    item
}

#[test]
fn items_corroborate_supersede_keep_history_and_survive_a_reload() {
    let kv = SharedKv::default();
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    said(
        &mut memory,
        "t1",
        "chat",
        "ada",
        "I live in Paris",
        NOW - 3 * DAY,
    );
    said(
        &mut memory,
        "t2",
        "chat",
        "ada",
        "We moved to Berlin",
        NOW - DAY,
    );

    let mut paris = fact(
        "ada",
        "residence",
        "Paris",
        "Ada lives in Paris",
        NOW - 3 * DAY,
    );
    paris.sources = vec!["t1".into()];
    let first = memory.add_item(&paris).unwrap();
    assert_eq!(first.outcome, Outcome::Added);
    assert_eq!(first.item.sources, ["t1"]);
    assert_eq!(first.item.version, 1);

    // A contradiction of a single-valued relation supersedes, keeping the old version.
    let mut berlin = fact(
        "ada",
        "residence",
        "Berlin",
        "Ada lives in Berlin",
        NOW - DAY,
    );
    berlin.sources = vec!["t2".into()];
    let second = memory.add_item(&berlin).unwrap();
    assert_eq!(second.outcome, Outcome::Superseded, "{}", second.reason);
    assert_eq!(second.others, [first.item.id.as_str()]);
    let old = memory.get_item(&first.item.id).unwrap().unwrap();
    assert_eq!(old.status, ItemStatus::Superseded);
    assert_eq!(old.superseded_by.as_deref(), Some(second.item.id.as_str()));
    assert_eq!(second.item.supersedes, [first.item.id.as_str()]);
    let history = memory.item_history(&second.item.id).unwrap();
    let texts: Vec<&str> = history.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(texts, ["Ada lives in Paris", "Ada lives in Berlin"]);
    assert_eq!(history[0].status, ItemStatus::Superseded);
    assert_eq!(history[0].valid_until, Some(NOW - DAY));

    // A near-duplicate corroborates: no new item, one more corroboration and source.
    let mut tea = new_item(ItemKind::Personal, "ada", "Ada likes green tea");
    tea.created_at = NOW - 2 * DAY;
    let tea = memory.add_item(&tea).unwrap();
    let mut again = new_item(ItemKind::Personal, "ada", "Ada really likes green tea");
    again.sources = vec!["t2".into()];
    again.created_at = NOW - DAY;
    let same = memory.add_item(&again).unwrap();
    assert_eq!(same.outcome, Outcome::Corroborated, "{}", same.reason);
    assert_eq!(same.item.id, tea.item.id);
    assert_eq!(same.item.corroborations, 1);
    assert_eq!(same.item.sources, ["t2"]);

    // An update makes a version; a soft delete keeps the item, listable with --all.
    let mut change = item_update(NOW);
    change.text = Some("Ada likes jasmine green tea".into());
    change.importance = Some(0.9);
    let updated = memory.update_item(&tea.item.id, &change).unwrap();
    assert_eq!(updated.version, 2);
    assert_eq!(updated.history[0].text, "Ada likes green tea");
    assert_eq!(updated.importance, 0.9);
    let deleted = memory.delete_item(&tea.item.id, NOW + 1).unwrap();
    assert_eq!(deleted.status, ItemStatus::Deleted);
    assert_eq!(memory.delete_item(&tea.item.id, NOW + 2).unwrap(), deleted);
    let active: Vec<String> = memory
        .list_items(&item_query())
        .unwrap()
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(active, [second.item.id.as_str()]);
    let mut all = item_query();
    all.all = true;
    assert_eq!(memory.list_items(&all).unwrap().len(), 3);
    let mut log = resolution_query();
    log.item = Some(tea.item.id.clone());
    let actions: Vec<Action> = memory
        .resolutions(&log)
        .unwrap()
        .iter()
        .map(|r| r.action)
        .collect();
    assert_eq!(
        actions,
        [
            Action::Deleted,
            Action::Updated,
            Action::Corroborated,
            Action::Added
        ],
        "newest first"
    );

    // Isolation, errors, and the settings.
    assert!(memory
        .get_item_as("bob", &second.item.id)
        .unwrap()
        .is_none());
    assert!(memory
        .get_item_as("ada", &second.item.id)
        .unwrap()
        .is_some());
    assert_eq!(memory.get_item("t1").unwrap(), None, "a turn is no item");
    let err = memory.update_item("ghost", &item_update(NOW)).unwrap_err();
    assert_eq!(err.code(), Some("NOT_FOUND"), "{err}");
    let err = memory
        .add_item(&new_item(ItemKind::Fact, "ada", "  "))
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    let mut config = memory.memory_config().unwrap();
    assert!(config.single_valued.iter().any(|r| r == "residence"));
    config.ttl_ms = vec![(ItemKind::Tool, 7 * DAY)];
    config.aliases = vec![("NYC".into(), "New York".into())];
    memory.set_memory_config(&config).unwrap();
    config.dedup_cosine = 2.0;
    let err = memory.set_memory_config(&config).unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");

    // Everything is durable: a fresh instance on the same kv sees it.
    let mut reopened = runtime().open(kv, None).unwrap();
    assert_eq!(
        reopened.get_item(&second.item.id).unwrap().unwrap(),
        memory.get_item(&second.item.id).unwrap().unwrap()
    );
    assert_eq!(reopened.item_history(&second.item.id).unwrap(), history);
    assert_eq!(
        reopened.memory_config().unwrap().ttl_ms,
        [(ItemKind::Tool, 7 * DAY)]
    );
    assert_eq!(reopened.entity("nyc").unwrap(), "new york");
}

#[test]
fn rules_learn_in_english_and_chinese() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    said(&mut memory, "en", "chat", "lin", "I live in Austin.", NOW);
    said(&mut memory, "zh", "聊天", "mei", "我住在北京海淀", NOW);

    let proposed = memory.propose(&extract_query(&["en"])).unwrap();
    assert_eq!(proposed.len(), 1);
    assert_eq!(proposed[0].relation.as_deref(), Some("residence"));
    assert!(
        memory.list_items(&item_query()).unwrap().is_empty(),
        "a dry run"
    );

    let report = memory.extract(&extract_query(&["en", "zh"])).unwrap();
    assert_eq!(report.turns, 2);
    let mut learned: Vec<(String, String, Vec<String>)> = report
        .learned
        .iter()
        .map(|l| {
            (
                l.item.user.clone(),
                l.item.object.clone().unwrap_or_default(),
                l.item.sources.clone(),
            )
        })
        .collect();
    learned.sort();
    assert_eq!(learned.len(), 2, "{learned:?}");
    assert_eq!(learned[0].0, "lin");
    assert!(learned[0].1.contains("Austin"), "{learned:?}");
    assert_eq!(learned[0].2, ["en"]);
    assert_eq!(learned[1].0, "mei");
    assert!(learned[1].1.contains("北京"), "{learned:?}");
    assert!(report
        .learned
        .iter()
        .all(|l| l.item.kind == ItemKind::Personal));
    // Learning the same turns again corroborates instead of adding.
    let again = memory.extract(&extract_query(&["en"])).unwrap();
    assert_eq!(again.learned[0].outcome, Outcome::Corroborated);
    let err = memory.extract(&extract_query(&["ghost"])).unwrap_err();
    assert_eq!(err.code(), Some("NOT_FOUND"), "{err}");
}

#[test]
fn working_memory_survives_a_reload_and_recall_shows_it_with_the_known_section() {
    let kv = SharedKv::default();
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    said(
        &mut memory,
        "d1",
        "deploy",
        "lin",
        "Roll out the api to staging",
        NOW - DAY,
    );
    let set = |field: &str, op: WorkOp, value: Option<&str>, at: i64| {
        let mut u = work_update("deploy", field, op, value, at);
        u.user = Some("lin".into());
        u
    };
    memory
        .update_work(&set("goal", WorkOp::Set, Some("\"ship the release\""), NOW))
        .unwrap();
    let task = r#"{"text": "run the migrations", "status": "open"}"#;
    memory
        .update_work(&set("tasks", WorkOp::Push, Some(task), NOW))
        .unwrap();
    memory
        .update_work(&set(
            "tasks",
            WorkOp::Push,
            Some(r#"{"text": "tag v2"}"#),
            NOW,
        ))
        .unwrap();
    let popped = memory
        .update_work(&set("tasks", WorkOp::Pop, None, NOW + 1))
        .unwrap();
    assert_eq!(popped.value.as_deref(), Some(r#"{"text":"tag v2"}"#));
    memory
        .update_work(&set("notes", WorkOp::Set, Some(r#"{"db": "pg"}"#), NOW))
        .unwrap();
    memory
        .update_work(&set(
            "notes",
            WorkOp::Patch,
            Some(r#"{"db": null, "env": "staging"}"#),
            NOW + 1,
        ))
        .unwrap();
    // An older change of a field loses to the newer one and is kept as stale.
    let stale = memory
        .update_work(&set("goal", WorkOp::Set, Some("\"an old goal\""), NOW - 5))
        .unwrap();
    assert!(stale.stale);
    let err = memory
        .update_work(&set("goal", WorkOp::Set, Some("not json"), NOW))
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    let err = memory
        .update_work(&set("goal", WorkOp::Push, Some("1"), NOW + 2))
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some("INVALID_INPUT"),
        "a push on a string: {err}"
    );
    memory
        .update_work(&work_update("scratch", "x", WorkOp::Set, Some("1"), NOW))
        .unwrap();
    memory
        .add_item(&new_item(
            ItemKind::Personal,
            "lin",
            "Lin prefers tabs over spaces",
        ))
        .unwrap();

    // A fresh instance on the same kv sees the same working memory.
    let mut memory = runtime().open(kv, None).unwrap();
    let wm = memory.working_memory("deploy", Some("lin")).unwrap();
    assert!(
        memory
            .working_memory("deploy", None)
            .unwrap()
            .fields
            .is_empty(),
        "lin's working memory is not the working memory of no user"
    );
    let fields: Vec<(&str, &str)> = wm
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.value.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("goal", "\"ship the release\""),
            ("notes", r#"{"env":"staging"}"#),
            (
                "tasks",
                r#"[{"status":"open","text":"run the migrations"}]"#
            ),
        ]
    );
    assert!(wm
        .rendered
        .starts_with("Goal: ship the release\n- [open] run the migrations"));
    assert_eq!(wm.history.len(), 7);
    assert_eq!(memory.work_threads().unwrap(), ["deploy", "scratch"]);
    assert!(memory.clear_work("scratch", None).unwrap());
    assert!(!memory.clear_work("scratch", None).unwrap(), "idempotent");
    assert_eq!(memory.work_threads().unwrap(), ["deploy"]);

    // Recall: the working memory first, then what is known, all within the budget.
    let mut q = recall_query("deploy", Some("lin"));
    q.budget_tokens = Some(300);
    q.now = Some(NOW);
    let recall = memory.recall(&q).unwrap();
    assert!(recall.tokens <= 300);
    let working = recall.working.clone().unwrap();
    assert!(working.contains("Goal: ship the release"), "{working}");
    let known: Vec<&str> = recall
        .items
        .iter()
        .filter(|i| i.section == RecallSection::Known)
        .map(|i| i.text.as_str())
        .collect();
    assert!(
        known.len() == 1 && known[0].contains("tabs over spaces"),
        "{known:?}"
    );
    assert_eq!(
        recall.items[0].section,
        RecallSection::Known,
        "known comes first"
    );
    let (w, k) = (
        recall.block.find("## Working memory").unwrap(),
        recall.block.find("## Known").unwrap(),
    );
    assert!(w < k, "{}", recall.block);
    q.work_tokens = Some(0);
    q.known_limit = Some(0);
    let bare = memory.recall(&q).unwrap();
    assert!(bare.working.is_none());
    assert!(bare.items.iter().all(|i| i.section != RecallSection::Known));
    // Another user does not see lin's working memory or items.
    let other = memory.recall(&recall_query("deploy", Some("mei"))).unwrap();
    assert!(
        other.working.is_none() && !other.block.contains("tabs"),
        "{other:?}"
    );
}

#[test]
fn relative_dates_resolve_against_a_fixed_now_and_the_timeline_groups_by_day() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    said(
        &mut memory,
        "old",
        "t",
        "ada",
        "went hiking with the team",
        NOW - 20 * DAY,
    );
    said(
        &mut memory,
        "last-week",
        "t",
        "ada",
        "went hiking in the hills",
        NOW - 8 * DAY,
    );
    said(
        &mut memory,
        "yesterday",
        "t",
        "ada",
        "wrote the quarterly report",
        NOW - DAY,
    );
    let mut q = search_query("where did I go hiking last week", SearchMode::Bm25, 10);
    q.now = Some(NOW);
    let found = memory.search_full(&q).unwrap();
    let hits: Vec<&str> = found.hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(hits, ["last-week"]);
    let time = found.time.unwrap();
    assert_eq!(time.matched, "last week");
    assert!(time.since <= NOW - 8 * DAY && NOW - 8 * DAY < time.until);
    let mut q = search_query("昨天", SearchMode::Bm25, 10);
    q.now = Some(NOW);
    let found = memory.search_full(&q).unwrap();
    assert_eq!(found.hits[0].id, "yesterday");
    assert_eq!(found.time.unwrap().matched, "昨天");
    // Without now, the range is the host clock's last week, as in every face: none of these
    // 2023 hikes is in it.
    let q = search_query("hiking last week", SearchMode::Bm25, 10);
    let found = memory.search_full(&q).unwrap();
    let time = found.time.expect("resolved against the host clock");
    assert!(time.since > NOW, "{time:?}");
    assert!(found.hits.is_empty(), "{:?}", found.hits);
    // Without a time expression every hike matches.
    let q = search_query("hiking", SearchMode::Bm25, 10);
    let hits: Vec<String> = memory
        .search(&q)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    assert!(
        hits.iter().any(|h| h == "old") && hits.iter().any(|h| h == "last-week"),
        "{hits:?}"
    );

    // Items are searched with turns, or alone by scope and kind.
    memory
        .add_item(&new_item(
            ItemKind::Procedural,
            "ada",
            "Hiking needs boots and water",
        ))
        .unwrap();
    let mut q = search_query("hiking", SearchMode::Bm25, 10);
    q.filter.scope = Some(Scope::Items);
    let items = memory.search(&q).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].kind, Some(ItemKind::Procedural));
    q.filter.scope = Some(Scope::Turns);
    assert!(memory.search(&q).unwrap().iter().all(|h| h.kind.is_none()));
    q.filter.scope = None;
    q.filter.kinds = vec![ItemKind::Personal];
    assert!(memory.search(&q).unwrap().is_empty());

    let mut tq = timeline_query();
    tq.user = Some("ada".into());
    tq.turns_only = true;
    let days = memory.timeline(&tq).unwrap();
    let dates: Vec<&str> = days.iter().map(|d| d.date.as_str()).collect();
    assert_eq!(dates, ["2023-10-25", "2023-11-06", "2023-11-13"]);
    assert_eq!(days[1].entries[0].id, "last-week");
    tq.since = Some(NOW - 10 * DAY);
    tq.offset_minutes = Some(9 * 60);
    let days = memory.timeline(&tq).unwrap();
    let dates: Vec<&str> = days.iter().map(|d| d.date.as_str()).collect();
    assert_eq!(dates, ["2023-11-07", "2023-11-14"], "days in UTC+9");
    tq.limit = Some(0);
    assert_eq!(
        memory.timeline(&tq).unwrap_err().code(),
        Some("INVALID_INPUT")
    );
}

#[test]
fn a_path_over_three_hops_with_its_facts_and_source_turns() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    for (id, text) in [
        ("t1", "Ada works at Acme"),
        ("t2", "Acme is in Berlin"),
        ("t3", "Berlin is in Germany"),
    ] {
        said(&mut memory, id, "t", "ada", text, NOW);
    }
    let hop = |subject: &str, relation: &str, object: &str, source: &str| {
        let mut item = new_item(
            ItemKind::Fact,
            "ada",
            &format!("{subject} {relation} {object}"),
        );
        item.subject = Some(subject.into());
        item.relation = Some(relation.into());
        item.object = Some(object.into());
        item.sources = vec![source.into()];
        item
    };
    memory
        .add_item(&hop("Ada", "works at", "Acme", "t1"))
        .unwrap();
    memory
        .add_item(&hop("ACME", "located in", "Berlin", "t2"))
        .unwrap();
    memory
        .add_item(&hop("berlin", "part of", "Germany", "t3"))
        .unwrap();
    let g = graph_query();
    let paths = memory.path("ada", "Germany ", 4, &g).unwrap();
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
    assert_eq!(paths[0][2].relation, "part of");
    assert!(
        memory.path("ada", "germany", 2, &g).unwrap().is_empty(),
        "too far"
    );
    let n = memory.neighbors("Berlin", 1, &g).unwrap();
    let names: Vec<(&str, u32)> = n
        .nodes
        .iter()
        .map(|x| (x.entity.as_str(), x.depth))
        .collect();
    assert_eq!(names, [("berlin", 0), ("acme", 1), ("germany", 1)]);
    assert_eq!(n.edges.len(), 2);
    let sub = memory.subgraph(&["ada".into(), "acme".into()], &g).unwrap();
    assert_eq!(sub.edges.len(), 1);
    assert_eq!(memory.subgraph(&[], &g).unwrap().edges.len(), 3);
    let mut bob = g.clone();
    bob.user = Some("bob".into());
    assert!(
        memory.path("ada", "germany", 4, &bob).unwrap().is_empty(),
        "not bob's"
    );
    let err = memory.neighbors("x", 9, &g).unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &std::path::Path, needle: &[u8]) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if std::fs::read(&path)
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle)
        {
            found.push(path);
        }
    }
    found
}

/// With no `now`, the component reads the host's clock (WASI), as the JS package and the CLI
/// do: an item whose time to live ran out before today is in no recall, search or listing,
/// and naming an earlier `now` brings it back.
#[test]
fn with_no_now_expiry_counts_from_the_host_clock() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    said(
        &mut memory,
        "t1",
        "chat",
        "ada",
        "note this down",
        NOW - 2 * DAY,
    );
    let mut temp = new_item(ItemKind::Personal, "ada", "Ada parked on level zeta-nine");
    temp.created_at = NOW - 2 * DAY;
    temp.ttl_ms = Some(DAY);
    memory.add_item(&temp).unwrap();

    let recall = memory.recall(&recall_query("chat", Some("ada"))).unwrap();
    assert!(!recall.block.contains("zeta-nine"), "{}", recall.block);
    let mut then = recall_query("chat", Some("ada"));
    then.now = Some(NOW - 2 * DAY + 1000);
    let recall = memory.recall(&then).unwrap();
    assert!(recall.block.contains("zeta-nine"), "{}", recall.block);

    let q = search_query("zeta-nine", SearchMode::Bm25, 5);
    assert!(memory.search(&q).unwrap().is_empty());
    let mut q = q;
    q.filter.now = Some(NOW - 2 * DAY);
    assert_eq!(memory.search(&q).unwrap().len(), 1);
    let mut listing = item_query();
    listing.statuses = vec![ItemStatus::Expired];
    assert_eq!(memory.list_items(&listing).unwrap().len(), 1);
}

#[test]
fn purge_removes_an_expired_item_from_every_file_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut memory = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    said(
        &mut memory,
        "t1",
        "chat",
        "ada",
        "note this down",
        NOW - 2 * DAY,
    );
    let mut keep = new_item(ItemKind::Personal, "ada", "Ada likes persimmons");
    keep.created_at = NOW - 2 * DAY;
    memory.add_item(&keep).unwrap();
    let mut temp = new_item(ItemKind::Personal, "ada", "Ada parked on level zeta-nine");
    temp.created_at = NOW - 2 * DAY;
    temp.ttl_ms = Some(memory.parse_duration("1d").unwrap());
    let temp = memory.add_item(&temp).unwrap().item;
    assert_eq!(temp.expires_at, Some(NOW - DAY));
    assert!(!files_holding(dir.path(), b"zeta-nine").is_empty());

    // Expired at now: out of listings and search at once, though still stored.
    let mut q = search_query("zeta-nine", SearchMode::Bm25, 5);
    q.filter.now = Some(NOW - 2 * DAY);
    assert_eq!(memory.search(&q).unwrap().len(), 1, "alive before its time");
    q.filter.now = Some(NOW);
    assert!(memory.search(&q).unwrap().is_empty());
    let mut listing = item_query();
    listing.now = Some(NOW);
    listing.statuses = vec![ItemStatus::Expired];
    assert_eq!(memory.list_items(&listing).unwrap()[0].id, temp.id);

    let purged = memory.purge(&purge_query(NOW)).unwrap();
    assert_eq!(purged.items, [temp.id.as_str()]);
    assert_eq!(
        files_holding(dir.path(), b"zeta-nine"),
        Vec::<std::path::PathBuf>::new()
    );
    assert!(!files_holding(dir.path(), b"persimmons").is_empty());
    assert_eq!(memory.get_item(&temp.id).unwrap(), None);
    drop(memory);
    let mut reopened = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    assert_eq!(reopened.get_item(&temp.id).unwrap(), None);
    assert_eq!(reopened.list_items(&item_query()).unwrap().len(), 1);
}

#[test]
fn tools_the_json_turn_shape_and_the_time_helpers() {
    let mut memory = runtime().open(SharedKv::default(), None).unwrap();
    let schemas: serde_json::Value =
        serde_json::from_str(&memory.tool_schemas("openai").unwrap()).unwrap();
    let names: Vec<&str> = schemas
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"remember") && names.contains(&"search"),
        "{names:?}"
    );
    let anthropic: serde_json::Value =
        serde_json::from_str(&memory.tool_schemas("anthropic").unwrap()).unwrap();
    assert!(anthropic[0]["input_schema"].is_object());
    assert_eq!(
        memory.tool_schemas("cobol").unwrap_err().code(),
        Some("INVALID_INPUT")
    );

    // The host's user binds the tools, whatever the model asks.
    let ada = tool_context(Some("ada"));
    let answer = memory
        .call_tool(
            "remember",
            r#"{"text": "Ada is allergic to peanuts", "ttl": "30d"}"#,
            &ada,
        )
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["outcome"], "added");
    let id = answer["memory"]["id"].as_str().unwrap().to_string();
    let item = memory.get_item(&id).unwrap().unwrap();
    assert_eq!(item.user, "ada");
    assert!(item.expires_at.is_some());
    let listed = memory.call_tool("memories", "{}", &ada).unwrap();
    assert!(listed.contains("peanuts"), "{listed}");
    let bob = memory
        .call_tool("memories", "", &tool_context(Some("bob")))
        .unwrap();
    assert!(!bob.contains("peanuts"), "{bob}");
    let err = memory
        .call_tool("remember", r#"{"txt": "x"}"#, &ada)
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    assert_eq!(
        memory.call_tool("launch", "{}", &ada).unwrap_err().code(),
        Some("INVALID_INPUT")
    );

    // The one JSON turn shape: ISO or ms times, ok defaults to true, now when missing.
    let json = r#"{"id": "j1", "thread": "t", "user": "ada", "createdAt": "2023-11-14T22:13:20Z",
                   "text": "hi", "steps": [{"tool": "search", "args": {"q": "x"}}]}"#;
    let parsed = memory.parse_turn_json(json, 5).unwrap();
    assert_eq!(parsed.created_at, NOW);
    assert_eq!(parsed.input, "hi");
    assert!(parsed.steps[0].ok);
    assert_eq!(parsed.steps[0].args, r#"{"q":"x"}"#);
    assert!(
        memory.get("j1").unwrap().is_none(),
        "parsing stores nothing"
    );
    let record = memory.add_turn_json(json, 5).unwrap();
    assert_eq!(record.created_at, NOW);
    let record = memory
        .add_turn_json(r#"{"thread": "t", "user": "ada"}"#, 42)
        .unwrap();
    assert_eq!(record.created_at, 42);
    let err = memory
        .add_turn_json(r#"{"thread": "t", "parent": ["j1"]}"#, 0)
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    assert_eq!(memory.len().unwrap(), 3, "two turns and an item");

    assert_eq!(memory.parse_duration("90s").unwrap(), 90_000);
    assert_eq!(memory.parse_duration("30d").unwrap(), 30 * DAY);
    assert!(memory.parse_duration("soon").is_err());
    assert_eq!(memory.parse_timestamp("2023-11-14T22:13:20Z").unwrap(), NOW);
    assert_eq!(memory.parse_timestamp("1700000000000").unwrap(), NOW);
    assert_eq!(memory.parse_timestamp("-5").unwrap(), -5);
    assert!(memory.parse_timestamp("noon").is_err());
    assert_eq!(
        memory.format_timestamp(NOW).unwrap(),
        "2023-11-14T22:13:20Z"
    );

    // Forgetting a user also erases their working memory.
    memory
        .update_work(&{
            let mut u = work_update("plans", "goal", WorkOp::Set, Some("\"x\""), NOW);
            u.user = Some("ada".into());
            u
        })
        .unwrap();
    let gone = memory.forget_user("ada").unwrap();
    assert_eq!(gone.work, ["plans"]);
    assert!(gone.records.contains(&id));
    assert!(memory.work_threads().unwrap().is_empty());
}
