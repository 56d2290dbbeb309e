//! Tools: every tool runs through `call_tool`, keeps to the host's user, refuses bad
//! arguments and unknown tools, and is emitted in every format.

use memdag_core::tools::{tool_schemas, ToolContext, ToolFormat, TOOLS};
use memdag_core::{NewTurn, Step, Store};
use serde_json::{json, Value};

const NOW: i64 = 1_710_428_400_000;

fn store() -> Store {
    let mut s = Store::new();
    for (id, user, input, parents) in [
        ("a1", "ada", "set up the staging deploy", vec![]),
        (
            "a2",
            "ada",
            "the deploy failed: missing region flag",
            vec!["a1"],
        ),
        ("b1", "bob", "bob's secret launch codes", vec![]),
    ] {
        s.add_turn(NewTurn {
            id: Some(id.into()),
            thread: format!("{user}-t"),
            user: user.into(),
            created_at: NOW - 3_600_000,
            input: input.into(),
            output: "done".into(),
            steps: vec![Step {
                tool: "deploy".into(),
                args: "{\"region\":\"eu\"}".into(),
                result: "ok".into(),
                ok: true,
            }],
            parents: parents.into_iter().map(String::from).collect(),
            ..NewTurn::default()
        })
        .unwrap();
    }
    s
}

fn ada() -> ToolContext {
    ToolContext {
        user: Some("ada".into()),
        thread: Some("ada-t".into()),
        now: Some(NOW),
    }
}

fn call(s: &mut Store, name: &str, args: Value) -> Value {
    s.call_tool(name, args, &ada())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_tool_runs_and_keeps_to_the_hosts_user() {
    let mut s = store();
    let hits = call(&mut s, "search", json!({"query": "deploy region"}));
    let ids: Vec<&str> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"a2") && !ids.contains(&"b1"), "{ids:?}");
    let none = call(&mut s, "search", json!({"query": "launch codes"}));
    assert!(
        none["hits"].as_array().unwrap().is_empty(),
        "bob's turn never reaches ada's tools"
    );
    let grep = call(
        &mut s,
        "grep",
        json!({"pattern": "region", "fields": ["input"]}),
    );
    assert_eq!(grep["matches"][0]["id"], "a2");
    let got = call(&mut s, "get", json!({"id": "a2"}));
    assert_eq!(got["steps"][0]["tool"], "deploy");
    assert_eq!(got["createdAt"], "2024-03-14T14:00:00Z");
    assert_eq!(
        s.call_tool("get", json!({"id": "b1"}), &ada())
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
    let up = call(&mut s, "ancestors", json!({"id": "a2"}));
    assert_eq!(up["records"][0]["id"], "a1");
    let down = call(&mut s, "descendants", json!({"id": "a1", "depth": 2}));
    assert_eq!(down["records"][0]["id"], "a2");
    let remembered = call(
        &mut s,
        "remember",
        json!({"text": "deploys need --region eu", "kind": "tool", "tool": "deploy", "sources": ["a2"], "ttl": "30d"}),
    );
    assert_eq!(remembered["outcome"], "added");
    let id = remembered["memory"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        s.item(&id).unwrap().user,
        "ada",
        "the item is the host's user's"
    );
    let again = call(
        &mut s,
        "remember",
        json!({"text": "Deploys need --region eu!", "kind": "tool", "tool": "deploy"}),
    );
    assert_eq!(again["outcome"], "corroborated");
    let listed = call(&mut s, "memories", json!({"kinds": ["tool"]}));
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
    let found = call(&mut s, "memories", json!({"query": "region"}));
    assert_eq!(found["memories"][0]["id"], id.as_str());
    let recall = call(
        &mut s,
        "recall",
        json!({"query": "which region do deploys need", "budget_tokens": 600}),
    );
    assert!(recall["block"].as_str().unwrap().contains("--region eu"));
    assert!(recall["tokens"].as_u64().unwrap() <= 600);
    let forgot = call(&mut s, "forget", json!({"id": id}));
    assert_eq!(forgot["forgotten"]["status"], "deleted");
    assert!(call(&mut s, "memories", json!({}))["memories"]
        .as_array()
        .unwrap()
        .is_empty());
    let bob = ToolContext {
        user: Some("bob".into()),
        ..ada()
    };
    assert_eq!(
        s.call_tool("forget", json!({"id": id}), &bob)
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
}

#[test]
fn bad_arguments_and_unknown_tools_are_invalid_input() {
    let mut s = store();
    let ctx = ada();
    for (name, args) in [
        ("search", json!({})),
        ("search", json!({"query": "x", "limit": 3})),
        ("search", json!({"query": "x", "since": "yesterday"})),
        ("grep", json!({"pattern": "("})),
        ("remember", json!({"text": "x", "kind": "dream"})),
        ("remember", json!({"text": "x", "ttl": "forever"})),
        ("memories", json!({"limit": "ten"})),
        ("teleport", json!({})),
    ] {
        let e = s.call_tool(name, args.clone(), &ctx).unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT", "{name} {args}");
    }
    assert_eq!(
        s.call_tool_json("get", "{not json", &ctx)
            .unwrap_err()
            .code(),
        "INVALID_INPUT"
    );
    let text = s.call_tool_json("get", r#"{"id":"a1"}"#, &ctx).unwrap();
    assert!(text.contains("\"id\":\"a1\""));
}

#[test]
fn schemas_in_every_format_name_every_tool() {
    for (format, path) in [
        (ToolFormat::Openai, "/function/parameters"),
        (ToolFormat::Anthropic, "/input_schema"),
        (ToolFormat::Mcp, "/inputSchema"),
    ] {
        let tools = tool_schemas(format);
        let tools = tools.as_array().unwrap();
        assert_eq!(tools.len(), TOOLS.len());
        for (t, def) in tools.iter().zip(TOOLS) {
            let schema = t.pointer(path).unwrap();
            assert_eq!(schema["type"], "object", "{}", def.name);
            assert_eq!(schema["additionalProperties"], false);
        }
    }
    assert_eq!(
        tool_schemas(ToolFormat::Openai)[0]["function"]["name"],
        "search"
    );
    assert!(ToolFormat::parse("gemini").is_err());
}
