//! Issue 30, item 6: working memory is per (user, thread). A thread id such as `default`
//! reused by two users gives each their own working memory, in reads, recall, the recall tool,
//! exports and erasure, and through a reload.

mod common;

use std::collections::BTreeMap;

use common::{apply, reload};
use memdag_core::recall::RecallQuery;
use memdag_core::tools::ToolContext;
use memdag_core::work::{WorkOp, WorkUpdate};
use memdag_core::{NewTurn, Store};
use serde_json::json;

fn set(thread: &str, user: Option<&str>, goal: &str, at: i64) -> WorkUpdate {
    WorkUpdate {
        thread: thread.into(),
        field: "goal".into(),
        op: WorkOp::Set,
        value: Some(json!(goal)),
        at,
        user: user.map(String::from),
    }
}

fn recall_block(s: &Store, thread: &str, user: Option<&str>) -> String {
    s.recall_view(&RecallQuery {
        thread: thread.into(),
        user: user.map(String::from),
        ..Default::default()
    })
    .unwrap()
    .block
}

fn store() -> Store {
    let mut s = Store::new();
    for user in ["alice", "bob"] {
        s.add_turn(NewTurn {
            thread: "default".into(),
            user: user.into(),
            input: format!("{user} says hi"),
            ..Default::default()
        })
        .unwrap();
    }
    s.update_work(&set("default", Some("bob"), "bob goal", 10))
        .unwrap();
    s.update_work(&set("default", Some("alice"), "alice goal", 5))
        .unwrap();
    s.update_work(&set("default", None, "nobody's goal", 1))
        .unwrap();
    s
}

#[test]
fn each_user_reads_and_recalls_only_their_own_working_memory_of_a_shared_thread() {
    let mut s = store();
    let goal = |s: &Store, user: Option<&str>| {
        s.working_memory("default", user).unwrap().fields["goal"]
            .value
            .clone()
    };
    assert_eq!(goal(&s, Some("bob")), json!("bob goal"));
    assert_eq!(
        goal(&s, Some("alice")),
        json!("alice goal"),
        "alice's older change is not stale against bob's: they are two working memories"
    );
    assert_eq!(goal(&s, None), json!("nobody's goal"));
    let alice = recall_block(&s, "default", Some("alice"));
    assert!(alice.contains("alice goal"), "{alice}");
    assert!(
        !alice.contains("bob goal") && !alice.contains("nobody's goal"),
        "{alice}"
    );
    let nobody = recall_block(&s, "default", None);
    assert!(nobody.contains("nobody's goal") && !nobody.contains("bob goal"));
    let ctx = ToolContext {
        user: Some("alice".into()),
        ..Default::default()
    };
    let tool = s
        .call_tool_json("recall", r#"{"thread": "default"}"#, &ctx)
        .unwrap();
    assert!(
        tool.contains("alice goal") && !tool.contains("bob goal"),
        "{tool}"
    );
    assert_eq!(s.work_threads(), ["default"]);
    assert_eq!(
        s.working_memory("default", Some("")).unwrap_err().code(),
        "INVALID_INPUT"
    );
    assert_eq!(
        s.update_work(&set("default", Some(" "), "x", 20))
            .unwrap_err()
            .code(),
        "INVALID_INPUT"
    );
}

#[test]
fn per_user_working_memory_survives_a_reload_an_export_and_erasure() {
    let mut s = store();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    for user in [Some("alice"), Some("bob"), None] {
        assert_eq!(
            back.working_memory("default", user).unwrap(),
            s.working_memory("default", user).unwrap()
        );
    }
    let mut copy = Store::new();
    copy.import_jsonl(&s.export_jsonl(), 0).unwrap();
    assert_eq!(
        copy.working_memory("default", Some("bob")).unwrap().fields["goal"].value,
        json!("bob goal")
    );
    assert_eq!(
        copy.working_memory("default", Some("alice"))
            .unwrap()
            .fields["goal"]
            .value,
        json!("alice goal")
    );
    let gone = s.forget_user("bob").unwrap();
    assert_eq!(gone.work, ["default"]);
    assert!(s
        .working_memory("default", Some("bob"))
        .unwrap()
        .fields
        .is_empty());
    assert!(s.clear_work("default", Some("alice")).unwrap());
    assert!(
        !s.clear_work("default", Some("alice")).unwrap(),
        "idempotent"
    );
    assert_eq!(
        s.working_memory("default", None).unwrap().fields["goal"].value,
        json!("nobody's goal")
    );
}
