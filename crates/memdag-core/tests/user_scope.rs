//! Issue 30, item 5: an empty (or blank) user never turns scoping off. Every entry point
//! of the core that reads on behalf of a user answers `INVALID_INPUT` for `""` and for
//! whitespace, and leaving the user out (`None`) is the explicit store-wide read.

use memdag_core::graph::GraphQuery;
use memdag_core::item::{ItemKind, NewItem};
use memdag_core::memory::{ExtractQuery, ItemQuery, ResolutionQuery};
use memdag_core::recall::RecallQuery;
use memdag_core::search::{GrepQuery, SearchFilter, SearchQuery};
use memdag_core::timeline::TimelineQuery;
use memdag_core::tools::ToolContext;
use memdag_core::{Direction, NewTurn, Store};

const BLANKS: [&str; 3] = ["", " ", "\t"];

/// Two users' turns and items, a fact for the graph.
fn store() -> Store {
    let mut s = Store::new();
    for (id, user) in [("a1", "alice"), ("b1", "bob")] {
        s.add_turn(NewTurn {
            id: Some(id.into()),
            thread: "shared-thread".into(),
            user: user.into(),
            created_at: 1_700_000_000_000,
            input: format!("secret plan of {user}"),
            output: "noted".into(),
            ..Default::default()
        })
        .unwrap();
        s.add_item(NewItem {
            id: Some(format!("m-{user}")),
            kind: Some(ItemKind::Fact),
            user: user.into(),
            text: format!("{user} lives in Oslo"),
            subject: Some(user.into()),
            relation: Some("residence".into()),
            object: Some("Oslo".into()),
            created_at: 1_700_000_000_000,
            ..Default::default()
        })
        .unwrap();
    }
    s
}

fn invalid<T: std::fmt::Debug>(what: &str, user: &str, r: memdag_core::Result<T>) {
    match r {
        Err(e) => assert_eq!(e.code(), "INVALID_INPUT", "{what} with user {user:?}: {e}"),
        Ok(v) => panic!("{what} with user {user:?} answered {v:?}"),
    }
}

#[test]
fn every_read_refuses_an_empty_or_blank_user() {
    let mut s = store();
    for blank in BLANKS {
        let user = Some(blank.to_string());
        let filter = SearchFilter {
            user: user.clone(),
            ..Default::default()
        };
        let search = SearchQuery {
            text: "secret plan".into(),
            filter: filter.clone(),
            ..Default::default()
        };
        invalid("search", blank, s.search(&search));
        invalid("search_full", blank, s.search_full(&search));
        let grep = GrepQuery {
            pattern: "secret".into(),
            filter,
            ..Default::default()
        };
        invalid("grep", blank, s.grep(&grep));
        let recall = RecallQuery {
            thread: "shared-thread".into(),
            user: user.clone(),
            ..Default::default()
        };
        invalid("recall_view", blank, s.recall_view(&recall));
        invalid("recall", blank, s.recall(&recall));
        invalid("get_as", blank, s.get_as(Some(blank), "a1"));
        invalid(
            "walk_as",
            blank,
            s.walk_as(Some(blank), "a1", Direction::Ancestors, 3, 10),
        );
        invalid("item_as", blank, s.item_as(Some(blank), "m-alice"));
        invalid("cited", blank, s.cited("[a1] [b1]", Some(blank)));
        invalid("by_user", blank, s.by_user(blank, 10));
        invalid(
            "recent_as",
            blank,
            s.recent_as(Some(blank), "shared-thread", 10),
        );
        invalid(
            "item_history_as",
            blank,
            s.item_history_as(Some(blank), "m-alice"),
        );
        invalid(
            "working_memory",
            blank,
            s.working_memory("shared-thread", Some(blank)),
        );
        invalid(
            "clear_work",
            blank,
            s.clear_work("shared-thread", Some(blank)),
        );
        let items = ItemQuery {
            user: user.clone(),
            ..Default::default()
        };
        invalid("list_items", blank, s.list_items(&items));
        let resolutions = ResolutionQuery {
            user: user.clone(),
            ..Default::default()
        };
        invalid("resolutions", blank, s.resolutions(&resolutions));
        let timeline = TimelineQuery {
            user: user.clone(),
            ..Default::default()
        };
        invalid("timeline", blank, s.timeline(&timeline));
        let graph = GraphQuery {
            user: user.clone(),
            ..Default::default()
        };
        invalid("neighbors", blank, s.neighbors("alice", 2, &graph));
        invalid("path", blank, s.path("alice", "bob", 4, &graph));
        invalid("subgraph", blank, s.subgraph(&[], &graph));
        let extract = ExtractQuery {
            user: user.clone(),
            ..Default::default()
        };
        invalid("propose", blank, s.propose(&extract));
        let ctx = ToolContext {
            user: user.clone(),
            ..Default::default()
        };
        for (tool, args) in [
            ("search", r#"{"query": "secret plan"}"#),
            ("grep", r#"{"pattern": "secret"}"#),
            ("get", r#"{"id": "b1"}"#),
            ("ancestors", r#"{"id": "b1"}"#),
            ("recall", r#"{"thread": "shared-thread"}"#),
            ("memories", "{}"),
            ("remember", r#"{"text": "x"}"#),
            ("forget", r#"{"id": "m-bob"}"#),
        ] {
            invalid(tool, blank, s.call_tool_json(tool, args, &ctx));
        }
    }
    assert_eq!(s.len(), 4, "no refused call wrote anything");
}

#[test]
fn a_named_user_sees_only_their_own_and_no_user_is_the_store_wide_choice() {
    let s = store();
    let search = |user: Option<&str>| {
        let q = SearchQuery {
            text: "secret plan".into(),
            filter: SearchFilter {
                user: user.map(String::from),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut ids: Vec<String> = s.search(&q).unwrap().into_iter().map(|h| h.id).collect();
        ids.sort();
        ids
    };
    assert_eq!(search(Some("alice")), ["a1"]);
    assert_eq!(search(None), ["a1", "b1"]);
    assert!(s.get_as(Some("alice"), "b1").unwrap().is_none());
    let recent = |user: Option<&str>| -> Vec<String> {
        s.recent_as(user, "shared-thread", 10)
            .unwrap()
            .iter()
            .map(|r| r.id.clone())
            .collect()
    };
    assert_eq!(
        recent(Some("alice")),
        ["a1"],
        "issue 30 item 7: recent keeps to the user"
    );
    assert_eq!(recent(None).len(), 2);
    assert_eq!(
        s.item_history_as(Some("alice"), "m-alice").unwrap().len(),
        1
    );
    assert_eq!(
        s.item_history_as(Some("alice"), "m-bob")
            .unwrap_err()
            .code(),
        "NOT_FOUND",
        "issue 30 item 7: another user's item history is not there"
    );
    assert!(s.get_as(None, "b1").unwrap().is_some());
    let ctx = ToolContext {
        user: Some("alice".into()),
        ..Default::default()
    };
    let mut s = s;
    let got = s.call_tool_json("get", r#"{"id": "b1"}"#, &ctx);
    assert_eq!(got.unwrap_err().code(), "NOT_FOUND");
    let all = ToolContext::default();
    assert!(s
        .call_tool_json("get", r#"{"id": "b1"}"#, &all)
        .unwrap()
        .contains("secret plan of bob"));
}
