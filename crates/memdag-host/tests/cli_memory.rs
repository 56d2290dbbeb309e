//! The `memdag` binary end to end, memory: long-term memory (`ingest --extract`, `memory ...`,
//! `purge`), working memory (`work ...`), `timeline`, `graph ...`, relative dates in search,
//! `tools` and `call-tool` (learning through a scripted LLM), export and import, and `mcp`
//! over stdio. Needs the built component (scripts/build-component.sh).

mod common;

use common::cli::*;
use common::ok;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

#[test]
fn ingest_extract_and_the_memory_commands() {
    let (_dir, store) = fact_store();
    // `memory list --json`: one JSON array of items, in the core's shape.
    let list = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    let items = list.as_array().unwrap();
    assert_eq!(items.len(), 2, "{list}");
    for i in items {
        for key in [
            "id",
            "kind",
            "user",
            "text",
            "status",
            "version",
            "corroborations",
            "sources",
        ] {
            assert!(i.get(key).is_some(), "{key} missing in {i}");
        }
        assert_eq!(i["status"], "active");
    }
    let austin = items.iter().find(|i| i["user"] == "ada").unwrap();
    assert_eq!(austin["kind"], "personal");
    assert_eq!(austin["object"], "Austin");
    assert_eq!(austin["sources"], serde_json::json!(["f1"]));
    let beijing = items.iter().find(|i| i["user"] == "mei").unwrap();
    assert!(
        beijing["object"].as_str().unwrap().contains("北京"),
        "{beijing}"
    );
    let mei = json(&ok(
        memdag(&store).args(["memory", "list", "--user", "mei", "--json"])
    ));
    assert_eq!(mei.as_array().unwrap().len(), 1);

    // A contradiction supersedes; --all lists the superseded item too, with its history.
    let moved = json(&ok(memdag(&store).args([
        "memory",
        "add",
        "--user",
        "ada",
        "--relation",
        "residence",
        "--object",
        "Denver",
        "--source",
        "f3",
        "--json",
        "Ada lives in Denver",
    ])));
    assert_eq!(moved["outcome"], "superseded", "{moved}");
    let id = moved["item"]["id"].as_str().unwrap().to_string();
    let old = austin["id"].as_str().unwrap();
    assert_eq!(moved["others"], serde_json::json!([old]));
    let active = json(&ok(
        memdag(&store).args(["memory", "list", "--user", "ada", "--json"])
    ));
    assert_eq!(active.as_array().unwrap().len(), 1);
    let all = json(&ok(
        memdag(&store).args(["memory", "list", "--all", "--json"])
    ));
    assert_eq!(all.as_array().unwrap().len(), 3);
    let history = json(&ok(
        memdag(&store).args(["memory", "history", &id, "--json"])
    ));
    let texts: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Lives in Austin", "Ada lives in Denver"]);

    // get, update, delete (soft), resolutions.
    let got = json(&ok(memdag(&store).args(["memory", "get", &id, "--json"])));
    assert_eq!(got["supersedes"], serde_json::json!([old]));
    let text =
        ok(memdag(&store).args(["memory", "update", &id, "--text", "Ada lives in Denver, CO"]));
    assert!(text.contains("(v2, active)"), "{text}");
    let gone = json(&ok(memdag(&store).args(["memory", "delete", &id, "--json"])));
    assert_eq!(gone["status"], "deleted");
    let log = json(&ok(memdag(&store).args([
        "memory",
        "resolutions",
        "--user",
        "ada",
        "--json",
    ])));
    let actions: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert!(actions.starts_with(&["deleted", "updated"]), "{actions:?}");
    let out = failed(memdag(&store).args(["memory", "get", "ghost"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"));

    // Extraction by id, again: it corroborates.
    let report = json(&ok(
        memdag(&store).args(["memory", "extract", "f2", "--json"])
    ));
    assert_eq!(report["learned"][0]["outcome"], "corroborated", "{report}");

    // Search keeps to items by scope and kind; recall shows the known section.
    let hits = json(&ok(memdag(&store).args([
        "search", "北京", "--scope", "items", "--kind", "personal", "--mode", "bm25", "--json",
    ])));
    assert_eq!(hits["ids"], serde_json::json!([beijing["id"]]));
    let turns = json(&ok(memdag(&store).args([
        "search", "北京", "--scope", "turns", "--mode", "bm25", "--json",
    ])));
    assert_eq!(turns["ids"], serde_json::json!(["f2"]));
    let recall = ok(memdag(&store).args(["recall", "--thread", "聊天", "--user", "mei"]));
    assert!(
        recall.contains("## Known about this user and task"),
        "{recall}"
    );
}

#[test]
fn memory_add_with_a_ttl_expires_and_purge_removes_every_byte() {
    let (_dir, store) = fact_store();
    let added = json(&ok(memdag(&store).args([
        "memory",
        "add",
        "--user",
        "ada",
        "--kind",
        "procedural",
        "--task",
        "parking",
        "--ttl",
        "90s",
        "--now",
        "2023-11-14T12:00:00Z",
        "--json",
        "Parked on level zeta-nine",
    ])));
    assert_eq!(added["outcome"], "added");
    assert_eq!(added["item"]["kind"], "procedural");
    assert_eq!(added["item"]["task"], "parking");
    let id = added["item"]["id"].as_str().unwrap().to_string();
    // 2023-11-14T12:00:00Z plus 90 s.
    assert_eq!(added["item"]["expiresAt"], 1_699_963_290_000i64);
    assert!(!stored_anywhere(&store, "zeta-nine").is_empty());
    let out = failed(memdag(&store).args(["memory", "add", "--user", "ada", "--ttl", "soon", "x"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("INVALID_INPUT"));

    // Still alive a minute later; after 90 s it is expired, then purged for good.
    let early = json(&ok(memdag(&store).args([
        "purge",
        "--now",
        "2023-11-14T12:01:00Z",
        "--json",
    ])));
    assert_eq!(early["items"], serde_json::json!([]));
    let purged = json(&ok(memdag(&store).args([
        "purge",
        "--now",
        "2023-11-14T12:02:00Z",
        "--json",
    ])));
    assert_eq!(purged["items"], serde_json::json!([id]));
    assert_eq!(stored_anywhere(&store, "zeta-nine"), Vec::<PathBuf>::new());
    let out = failed(memdag(&store).args(["memory", "get", &id]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"));
    let left = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(left.as_array().unwrap().len(), 2, "the other items stay");
}

#[test]
fn work_timeline_graph_and_relative_dates() {
    let (_dir, store) = fact_store();
    // The example of the issue, verbatim.
    ok(memdag(&store).args(["work", "set", "--thread", "T", "goal", "ship it"]));
    let shown = json(&ok(
        memdag(&store).args(["work", "show", "--thread", "T", "--json"])
    ));
    assert_eq!(shown["fields"]["goal"]["value"], "ship it", "{shown}");
    ok(memdag(&store).args([
        "work",
        "push",
        "--thread",
        "T",
        "tasks",
        r#"{"text": "tag v2", "status": "open"}"#,
    ]));
    ok(memdag(&store).args(["work", "push", "--thread", "T", "tasks", "write notes"]));
    let popped = json(&ok(
        memdag(&store).args(["work", "pop", "--thread", "T", "tasks", "--json"])
    ));
    assert_eq!(popped["value"], "write notes");
    ok(memdag(&store).args([
        "work",
        "patch",
        "--thread",
        "T",
        "notes",
        r#"{"env": "prod"}"#,
    ]));
    let text = ok(memdag(&store).args(["work", "show", "--thread", "T"]));
    assert!(
        text.starts_with("Goal: ship it\n- [open] tag v2\n"),
        "{text}"
    );
    let history = json(&ok(
        memdag(&store).args(["work", "history", "--thread", "T", "--json"])
    ));
    assert_eq!(history.as_array().unwrap().len(), 5);
    let recall = ok(memdag(&store).args(["recall", "--thread", "T", "--json"]));
    assert!(
        json(&recall)["working"]
            .as_str()
            .unwrap()
            .contains("Goal: ship it"),
        "{recall}"
    );
    // Changes made with no --user are the working memory of no user, not ada's.
    let ada = ok(memdag(&store).args(["recall", "--thread", "T", "--user", "ada", "--json"]));
    assert!(json(&ada)["working"].is_null(), "{ada}");
    let cleared = json(&ok(
        memdag(&store).args(["work", "clear", "--thread", "T", "--json"])
    ));
    assert_eq!(cleared["cleared"], true);
    let empty = json(&ok(
        memdag(&store).args(["work", "show", "--thread", "T", "--json"])
    ));
    assert_eq!(empty["fields"], serde_json::json!({}));

    // A timeline by day.
    let days = json(&ok(memdag(&store).args([
        "timeline",
        "--user",
        "ada",
        "--until",
        "2023-11-14",
        "--json",
    ])));
    assert_eq!(days[0]["date"], "2023-11-13", "{days}");
    let ids: Vec<&str> = days[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"f1"), "{ids:?}");
    let text = ok(memdag(&store).args(["timeline", "--thread", "chat", "--until", "2023-11-14"]));
    assert!(text.starts_with("2023-11-13\n  10:00  "), "{text}");

    // A graph of three hops.
    for (s, r, o) in [
        ("Ada", "works at", "Acme"),
        ("Acme", "located in", "Berlin"),
        ("Berlin", "part of", "Germany"),
    ] {
        ok(memdag(&store).args([
            "memory",
            "add",
            "--user",
            "ada",
            "--kind",
            "fact",
            "--subject",
            s,
            "--relation",
            r,
            "--object",
            o,
            "--source",
            "f1",
            &format!("{s} {r} {o}"),
        ]));
    }
    let paths = json(&ok(
        memdag(&store).args(["graph", "path", "Ada", "germany", "--json"])
    ));
    let hops: Vec<(&str, &str)> = paths[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect();
    assert_eq!(
        hops,
        [("ada", "acme"), ("acme", "berlin"), ("berlin", "germany")]
    );
    assert_eq!(paths[0][1]["sources"], serde_json::json!(["f1"]));
    let none = json(&ok(memdag(&store).args([
        "graph",
        "path",
        "ada",
        "germany",
        "--max-depth",
        "2",
        "--json",
    ])));
    assert_eq!(none, serde_json::json!([]));
    let near = json(&ok(memdag(&store).args([
        "graph",
        "neighbors",
        "berlin",
        "--json",
    ])));
    assert_eq!(near["nodes"].as_array().unwrap().len(), 3);
    let export = json(&ok(memdag(&store).args(["graph", "export", "--json"])));
    assert!(export["edges"].as_array().unwrap().len() >= 4, "{export}");
    let theirs = json(&ok(
        memdag(&store).args(["graph", "export", "--user", "mei", "--json"])
    ));
    assert!(theirs["edges"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["text"] != "Ada works at Acme"));

    // A relative date resolves against --now and is printed.
    let found = json(&ok(memdag(&store).args([
        "search",
        "Austin yesterday",
        "--now",
        "2023-11-14T12:00:00Z",
        "--mode",
        "bm25",
        "--json",
    ])));
    assert_eq!(found["time"]["matched"], "yesterday", "{found}");
    assert_eq!(found["ids"][0], "f1");
    let later = json(&ok(memdag(&store).args([
        "search",
        "Austin yesterday",
        "--now",
        "2023-11-20T12:00:00Z",
        "--mode",
        "bm25",
        "--scope",
        "turns",
        "--json",
    ])));
    assert_eq!(later["ids"], serde_json::json!([]), "{later}");
    let text = ok(memdag(&store).args([
        "search",
        "Austin yesterday",
        "--now",
        "2023-11-14T12:00:00Z",
        "--mode",
        "bm25",
    ]));
    assert!(
        text.starts_with("time: \"yesterday\" = 2023-11-13 00:00 UTC to 2023-11-14 00:00 UTC\n"),
        "{text}"
    );
}

#[test]
fn tools_and_call_tool() {
    // The schemas need no store.
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("no-store");
    let tools = json(&ok(memdag(&nowhere).args(["tools", "--format", "openai"])));
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        ["search", "recall", "remember", "memories", "forget"]
            .iter()
            .all(|n| names.contains(n)),
        "{names:?}"
    );
    assert!(!nowhere.exists(), "tools creates no store");
    let anthropic = json(&ok(memdag(&nowhere).args([
        "tools",
        "--format",
        "anthropic",
    ])));
    assert!(anthropic[0]["input_schema"].is_object());
    let out = failed(memdag(&nowhere).args(["tools", "--format", "cobol"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tool format"));

    // A store to call tools on (learning through an LLM is in tests/cli_llm.rs).
    let file = dir.path().join("facts.jsonl");
    std::fs::write(&file, FACTS).unwrap();
    let store = dir.path().join("store");
    ok(memdag(&store).arg("ingest").arg(&file));

    // call-tool runs one tool under the host's user.
    let answer = json(&ok(memdag(&store).args([
        "call-tool",
        "remember",
        r#"{"text": "Ada is allergic to peanuts"}"#,
        "--user",
        "ada",
    ])));
    assert_eq!(answer["outcome"], "added");
    let theirs = ok(memdag(&store).args(["call-tool", "memories", "{}", "--user", "ada"]));
    assert!(theirs.contains("peanuts"), "{theirs}");
    let others = ok(memdag(&store).args(["call-tool", "memories", "{}", "--user", "mei"]));
    assert!(!others.contains("peanuts"), "{others}");
    let out =
        failed(memdag(&store).args(["call-tool", "remember", r#"{"txt": 1}"#, "--user", "ada"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("INVALID_INPUT"));
}

#[test]
fn export_and_import_markdown_jsonl_and_snapshots() {
    let (dir, store) = store();
    ok(memdag(&store).args([
        "memory",
        "add",
        "--user",
        "lin",
        "--relation",
        "residence",
        "--object",
        "Oslo",
        "Lin lives in Oslo",
    ]));
    ok(memdag(&store).args(["work", "set", "--thread", "main", "goal", "ship it"]));
    let md = dir.path().join("md");
    let said = ok(memdag(&store).args(["export", "--format", "md"]).arg(&md));
    assert!(said.contains("files under"), "{said}");
    let main = std::fs::read_dir(md.join("threads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("main-")
        })
        .unwrap();
    let text = std::fs::read_to_string(&main).unwrap();
    assert!(
        text.contains("The deploy failed with a timeout") && text.contains("### Step 1 · failed"),
        "{text}"
    );
    assert!(text.contains("## Working memory"));
    // Import into a new store, export again: the same files.
    let copy = dir.path().join("copy");
    let imported = ok(memdag(&copy).arg("import").arg(&md).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(imported.trim()).unwrap();
    assert_eq!(
        (v["turns"].as_u64(), v["items"].as_u64(), v["work"].as_u64()),
        (Some(4), Some(1), Some(1))
    );
    let md2 = dir.path().join("md2");
    ok(memdag(&copy).args(["export", "--format", "md"]).arg(&md2));
    let tree = |root: &Path| -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for sub in ["", "threads", "memory", "blobs"] {
            let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
                continue;
            };
            for e in rd {
                let p = e.unwrap().path();
                if p.is_file() {
                    out.insert(
                        format!("{sub}/{}", p.file_name().unwrap().to_string_lossy()),
                        std::fs::read_to_string(&p).unwrap(),
                    );
                }
            }
        }
        out
    };
    assert_eq!(
        tree(&md2),
        tree(&md),
        "export, import, export gives the same files"
    );
    // An edit in the Markdown is read back.
    let edited = dir.path().join("edited");
    for (rel, body) in tree(&md) {
        let target = edited.join(rel.trim_start_matches('/'));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(
            target,
            body.replace("Raised the timeout to 600s", "Raised the timeout to 900s"),
        )
        .unwrap();
    }
    let third = dir.path().join("third");
    ok(memdag(&third).arg("import").arg(&edited));
    let shown = ok(memdag(&third).args(["show", "a"]));
    assert!(shown.contains("900s"), "{shown}");
    // JSONL to stdout, then into a store; a snapshot into an empty store only.
    let text = ok(memdag(&store).args(["export", "--format", "jsonl", "-"]));
    assert_eq!(
        text.lines().count(),
        4 + 1 + 1,
        "4 turns, 1 item, 1 working memory"
    );
    let file = dir.path().join("export.jsonl");
    std::fs::write(&file, &text).unwrap();
    let fourth = dir.path().join("fourth");
    ok(memdag(&fourth).arg("import").arg(&file));
    let again = ok(memdag(&fourth).arg("import").arg(&file));
    assert!(again.contains("imported 0 turns, 0 items"), "{again}");
    let snap = dir.path().join("store.mdagexp");
    ok(memdag(&store)
        .args(["export", "--format", "snapshot"])
        .arg(&snap));
    assert_eq!(&std::fs::read(&snap).unwrap()[..8], b"MDAGEXP1");
    let fifth = dir.path().join("fifth");
    let said = ok(memdag(&fifth).arg("import").arg(&snap));
    assert!(said.contains("snapshot of 5 records"), "{said}");
    let refused = failed(memdag(&store).arg("import").arg(&snap));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("INVALID_INPUT"));
    let bad = failed(memdag(&store).args(["export", "--format", "pdf", "x"]));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown export format"));
}

#[test]
fn mcp_over_stdio_lists_calls_and_reads() {
    use std::io::{BufRead, BufReader, Write};
    let (_dir, store) = store();
    let mut child = memdag(&store)
        .args(["mcp", "--user", "lin", "--thread", "main"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut ask = |id: u64, method: &str, params: serde_json::Value| -> serde_json::Value {
        let msg =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap()
    };
    let init = ask(
        1,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "memdag");
    let tools = ask(2, "tools/list", serde_json::json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"search") && names.contains(&"remember"),
        "{names:?}"
    );
    let hit = ask(
        3,
        "tools/call",
        serde_json::json!({"name": "search", "arguments": {"query": "deploy timeout"}}),
    );
    let text = hit["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"a\""), "{text}");
    assert!(!text.contains("杭州"), "mei's turn stays hers");
    let missing = ask(
        4,
        "tools/call",
        serde_json::json!({"name": "get", "arguments": {"id": "zzz"}}),
    );
    assert_eq!(missing["result"]["isError"], true);
    let unknown = ask(
        5,
        "tools/call",
        serde_json::json!({"name": "teleport", "arguments": {}}),
    );
    assert_eq!(unknown["error"]["code"], -32602);
    let res = ask(6, "resources/list", serde_json::json!({}));
    assert!(res["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["name"] != "c"));
    let read = ask(
        7,
        "resources/read",
        serde_json::json!({"uri": "memdag://record/a"}),
    );
    assert!(read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("deadline exceeded"));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn recall_leaves_out_an_item_expired_by_the_clock_unless_now_is_earlier() {
    let (_dir, store) = fact_store();
    ok(memdag(&store).args([
        "memory",
        "add",
        "--user",
        "ada",
        "--kind",
        "personal",
        "--ttl",
        "90s",
        "--now",
        "2023-11-14T12:00:00Z",
        "Ada parks on level zeta-nine",
    ]));
    // Without --now, recall counts from the clock, as `memory list` does: long expired.
    let listed = ok(memdag(&store).args(["memory", "list", "--user", "ada", "--all", "--json"]));
    assert!(listed.contains("\"expired\""), "{listed}");
    let by_clock = ok(memdag(&store).args(["recall", "--user", "ada"]));
    assert!(!by_clock.contains("zeta-nine"), "{by_clock}");
    // Within its time to live it is known.
    let then =
        ok(memdag(&store).args(["recall", "--user", "ada", "--now", "2023-11-14T12:00:30Z"]));
    assert!(then.contains("zeta-nine"), "{then}");
}
