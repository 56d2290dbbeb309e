//! The `memdag` binary end to end: ingest, search (one and batch), grep, recall, show, dag,
//! compaction through a scripted `--llm-cmd` (working and failing), `--embed-cmd`, a reader
//! that closes the pipe early, and long-term memory (`ingest --extract`, `memory ...`,
//! `purge`), working memory (`work ...`), `timeline`, `graph ...`, relative dates in search,
//! `tools` and `call-tool`. Needs the built component (scripts/build-component.sh).

mod common;

use common::ok;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test, with a compiled-code cache shared by the tests of this run.
fn memdag(store: &Path) -> Command {
    common::memdag_cli(env!("CARGO_BIN_EXE_memdag"), store, "memdag-cli-test-cache")
}

fn failed(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "{cmd:?} should fail");
    out
}

const SESSION: &str = r#"{"id":"a","thread":"main","user":"lin","created_at":"2026-11-27T09:00:00Z","input":"The deploy failed with a timeout","output":"Raised the timeout to 600s","steps":[{"tool":"shell","args":"kubectl rollout status","result":"error: deadline exceeded\nrollout aborted","ok":false}]}
{"id":"b","thread":"main","user":"lin","created_at":1795770060000,"input":"Write a note about the fix","output":"Noted in deploy.md","parents":["a"]}

{"id":"c","thread":"travel","user":"mei","created_at":"2026-11-27T17:02:00+08:00","input":"杭州周末天气怎么样","output":"周末有小雨","parents":["a"]}
{"id":"d","thread":"main","user":"lin","created_at":1795770180000,"input":"Ship it","output":"Shipped","parents":["b","c"]}
"#;

/// A fresh store holding [`SESSION`].
fn store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, SESSION).unwrap();
    let store = dir.path().join("store");
    let out = memdag(&store).arg("ingest").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("ingested 4 turns"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("4 added"),
        "progress goes to stderr"
    );
    (dir, store)
}

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn ingest_search_grep_recall_show_and_dag() {
    let (dir, store) = store();

    // Ingesting again skips what is stored; a bad line is reported with its number.
    let again = ok(memdag(&store)
        .arg("ingest")
        .arg(dir.path().join("session.jsonl")));
    assert!(
        again.contains("ingested 0 turns (4 already stored)"),
        "{again}"
    );
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\":\"e\",\"thread\":\"x\",\"created_at\":\"noon\"}\n",
    )
    .unwrap();
    let out = failed(memdag(&store).arg("ingest").arg(&bad));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl:1"));

    let line = ok(memdag(&store).args(["search", "timeout", "--mode", "bm25", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["ids"][0], "a", "{line}");
    assert!(v["scores"][0].as_f64().unwrap() > 0.0);
    let text = ok(memdag(&store).args(["search", "天气", "--k", "1", "--user", "mei"]));
    assert!(
        text.starts_with(" 1. ") && text.contains("[travel]"),
        "{text}"
    );
    let none = ok(memdag(&store).args(["search", "天气", "--thread", "main", "--mode", "bm25"]));
    assert!(none.is_empty(), "{none}");

    let queries = dir.path().join("queries.jsonl");
    std::fs::write(
        &queries,
        "\"note fix\"\n{\"id\": \"q2\", \"text\": \"ship\"}\n",
    )
    .unwrap();
    let batch = ok(memdag(&store)
        .args(["search", "--batch"])
        .arg(&queries)
        .args(["--mode", "hybrid", "--k", "2", "--json"]));
    let lines: Vec<serde_json::Value> = batch
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["query"], 0);
    assert_eq!(lines[0]["ids"][0], "b");
    assert_eq!(lines[1]["query"], "q2");
    assert_eq!(lines[1]["ids"][0], "d");

    // Ranking options: "mei" is only c's user, a derived key.
    let ids = |out: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let mei = ["search", "mei", "--mode", "bm25", "--json"];
    assert_eq!(ids(&ok(memdag(&store).args(mei))), ["c"]);
    let off = ok(memdag(&store).args(mei).args(["--derived-keys", "off"]));
    assert!(ids(&off).is_empty(), "{off}");
    let weights = ok(memdag(&store).args(mei).args(["--field-weights", "keys=0"]));
    assert!(ids(&weights).is_empty(), "{weights}");
    let all_off = [
        "--fusion",
        "rrf",
        "--vector-weight",
        "0.7",
        "--rrf-k",
        "30",
        "--context",
        "0",
        "--thread-scope",
        "0",
        "--stopwords",
        "off",
    ];
    assert_eq!(ids(&ok(memdag(&store).args(mei).args(all_off))), ["c"]);
    failed(memdag(&store).args(["search", "x", "--stopwords", "maybe"]));

    let grep = ok(memdag(&store).args(["grep", r"deadline \w+"]));
    assert_eq!(grep.trim(), "a  steps[0].result:1  deadline exceeded");

    let recall = ok(memdag(&store).args([
        "recall", "--thread", "main", "--user", "lin", "--budget", "400",
    ]));
    assert!(recall.contains("[d]") && recall.contains("[b]"), "{recall}");

    let raw = ok(memdag(&store).args(["show", "a", "--raw"]));
    assert!(
        raw.contains("error: deadline exceeded\nrollout aborted"),
        "{raw}"
    );

    let dag = ok(memdag(&store).args(["dag", "c"]));
    assert!(
        dag.contains("ancestors (1)") && dag.contains("└── a "),
        "{dag}"
    );
    assert!(
        dag.contains("descendants (1)") && dag.contains("└── d "),
        "{dag}"
    );
    let out = failed(memdag(&store).args(["dag", "ghost"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_FOUND"));
}

/// Writes an executable shell script.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn compact_through_a_scripted_llm_and_a_failing_one() {
    let (dir, store) = store();
    let prompt_file = dir.path().join("prompt.txt");
    let llm = script(
        dir.path(),
        "fake-llm.sh",
        &format!(
            "cat > '{}'\ncat <<'ANSWER'\n## Summary\nThe deploy timed out; the timeout was raised.\n\n\
             ## Goal\nDeploy.\n\n## Constraints\nNone\n\n## Progress\nDone.\n\n\
             ## Key Decisions\n600s timeout.\n\n## Next Steps\nNone\n\n## Critical Context\n\
             kubectl rollout status\nANSWER",
            prompt_file.display()
        ),
    );
    let out = ok(memdag(&store).args(["compact", "a", "--llm-cmd"]).arg(&llm));
    assert!(
        out.contains("summary: The deploy timed out; the timeout was raised."),
        "{out}"
    );
    let prompt = std::fs::read_to_string(&prompt_file).unwrap();
    assert!(
        prompt.contains("kubectl rollout status"),
        "the prompt came on stdin"
    );
    let shown = ok(memdag(&store).args(["show", "a"]));
    assert!(
        shown.contains("compact:    The deploy timed out"),
        "{shown}"
    );

    // A failing LLM: an error naming it, and the record and its files unchanged.
    let before = files(&store);
    let failing = script(
        dir.path(),
        "broken-llm.sh",
        "echo 'rate limited' >&2\nexit 7",
    );
    let out = failed(
        memdag(&store)
            .args(["compact", "a", "--llm-cmd"])
            .arg(&failing),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("HOST") && stderr.contains("rate limited"),
        "{stderr}"
    );
    // An answer that is not a compact note is refused the same way.
    let babbling = script(
        dir.path(),
        "babbling-llm.sh",
        "echo 'Sure! Here is a summary.'",
    );
    failed(
        memdag(&store)
            .args(["compact", "a", "--llm-cmd"])
            .arg(&babbling),
    );
    assert_eq!(files(&store), before);
    assert_eq!(ok(memdag(&store).args(["show", "a"])), shown);

    // Without --llm-cmd the extractive compactor is used.
    let out = ok(memdag(&store).args(["compact", "b"]));
    assert!(out.starts_with("summary: "), "{out}");
}

#[test]
fn embed_cmd_gives_the_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // Two turns bring their vectors, two get them from the program in one call.
    let file = dir.path().join("v.jsonl");
    std::fs::write(
        &file,
        r#"{"id":"r","thread":"t","created_at":1,"input":"rain","embedding":[1,0,0]}
{"id":"s","thread":"t","created_at":2,"input":"sun","embedding":[0,1,0]}
{"id":"x","thread":"t","created_at":3,"input":"snow"}
{"id":"y","thread":"t","created_at":4,"input":"wind"}
"#,
    )
    .unwrap();
    let calls = dir.path().join("calls");
    let embed = script(
        dir.path(),
        "fake-embed.sh",
        &format!(
            "cat >> '{}'\necho\nif [ \"$EMBED_ONE\" = 1 ]; then echo '[[0.9,0.1,0]]'; else echo '{{\"vectors\": [[0,0,1],[0,0.2,1]]}}'; fi",
            calls.display()
        ),
    );
    ok(memdag(&store)
        .arg("ingest")
        .arg(&file)
        .arg("--embed-cmd")
        .arg(&embed));
    let calls_text = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(calls_text.lines().count(), 1, "one call: {calls_text}");
    assert!(
        calls_text.contains(r#""texts":["snow\n","wind\n"]"#),
        "{calls_text}"
    );

    let out = ok(memdag(&store)
        .env("EMBED_ONE", "1")
        .args([
            "search",
            "drizzle",
            "--mode",
            "vector",
            "--k",
            "1",
            "--json",
            "--embed-cmd",
        ])
        .arg(&embed));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ids"][0], "r", "{out}");

    let failing = script(dir.path(), "down.sh", "exit 1");
    let out = failed(
        memdag(&store)
            .args(["search", "drizzle", "--mode", "vector", "--embed-cmd"])
            .arg(&failing),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("embedder failed"));
}

#[test]
fn a_reader_that_closes_early_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let file = dir.path().join("many.jsonl");
    let mut lines = String::new();
    for i in 0..1500 {
        lines += &format!(
            "{{\"id\":\"t{i}\",\"thread\":\"main\",\"created_at\":{i},\"input\":\"turn number {i} of a long and winding session\"}}\n"
        );
    }
    std::fs::write(&file, lines).unwrap();
    ok(memdag(&store).arg("ingest").arg(&file));
    // Over 100 KB of output, more than a pipe holds: the reader takes one line and leaves.
    let mut child = memdag(&store)
        .args(["recent", "main", "100000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(first.starts_with(b"t1499"));
}

/// Every file under `dir`, recursively, with its bytes.
fn all_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(all_bytes(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out
}

fn stored_anywhere(dir: &Path, needle: &str) -> Vec<PathBuf> {
    all_bytes(dir)
        .into_iter()
        .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn user_scoped_reads_forget_user_delete_and_limits() {
    let (_dir, store) = store();
    // Mei's turn c is a parent of lin's d: lin's walks pass through it without showing it.
    let dag = ok(memdag(&store).args(["dag", "d", "--user", "lin"]));
    assert!(
        dag.contains("b ") || dag.contains("[b]") || dag.contains("b:"),
        "{dag}"
    );
    assert!(!dag.contains("杭州"), "{dag}");
    let everyone = ok(memdag(&store).args(["ancestors", "d"]));
    assert!(everyone.contains("杭州"), "{everyone}");
    let hidden = failed(memdag(&store).args(["show", "c", "--user", "lin"]));
    assert!(String::from_utf8_lossy(&hidden.stderr).contains("NOT_FOUND"));
    let grep = ok(memdag(&store).args(["grep", ".", "--user", "lin", "--json"]));
    assert!(grep.lines().all(|l| !l.contains("\"id\":\"c\"")), "{grep}");
    assert!(grep.contains("\"id\":\"a\""), "{grep}");

    // Forgetting mei leaves no byte of hers in any file, and lin's DAG is repaired.
    assert!(
        !stored_anywhere(&store, "周末有小雨").is_empty(),
        "the test is meaningful"
    );
    let forgot = ok(memdag(&store).args(["forget-user", "mei"]));
    assert!(forgot.contains("forgot mei: 1 turns"), "{forgot}");
    assert_eq!(stored_anywhere(&store, "周末有小雨"), Vec::<PathBuf>::new());
    assert_eq!(stored_anywhere(&store, "杭州"), Vec::<PathBuf>::new());
    let d = ok(memdag(&store).args(["ancestors", "d"]));
    assert!(d.contains("Write a note") && !d.contains("杭州"), "{d}");

    // delete, and the limits: shown as the core's JSON, changed per run with --limits.
    assert!(ok(memdag(&store).args(["delete", "d"])).contains("deleted d"));
    assert!(!failed(memdag(&store).args(["delete", "d"]))
        .status
        .success());
    let limits = ok(memdag(&store).arg("limits"));
    assert!(limits.contains("\"maxFieldBytes\":8388608"), "{limits}");
    let changed = ok(memdag(&store).args(["limits", "--limits", "{\"maxTags\":3}"]));
    assert!(changed.contains("\"maxTags\":3"), "{changed}");
    let typo = failed(memdag(&store).args(["limits", "--limits", "{\"maxTagz\":3}"]));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("maxTagz"));
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    std::fs::write(
        &big,
        format!("{{\"thread\":\"x\",\"input\":\"{}\"}}\n", "y".repeat(2000)),
    )
    .unwrap();
    let refused = failed(
        memdag(&store)
            .args(["ingest", "--limits", "{\"maxFieldBytes\":1000}"])
            .arg(&big),
    );
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("maxFieldBytes"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn reindex_moves_a_store_to_another_model_and_back() {
    let (dir, store) = store();
    // A 5-dimensional "model": one vector per text, from its length.
    let model = script(
        dir.path(),
        "model5.sh",
        "python3 -c 'import json,sys; t=json.load(sys.stdin)[\"texts\"]; print(json.dumps([[len(x) % 7 + 1, 1, 2, 3, len(x) % 3 + 1] for x in t]))'",
    );
    let out = memdag(&store)
        .args(["reindex", "--batch-size", "3", "--embed-cmd"])
        .arg(&model)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("embedded 3 of 4 turns"), "{stderr}");
    assert!(stderr.contains("embedded 4 of 4 turns"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("reindexed 4 turns: dimension 256 -> 5"),
        "{stdout}"
    );
    // The new model answers vector queries; its vectors were stored.
    let hits = ok(memdag(&store)
        .args([
            "search",
            "rain",
            "--mode",
            "vector",
            "--json",
            "--embed-cmd",
        ])
        .arg(&model));
    let v: serde_json::Value = serde_json::from_str(&hits).unwrap();
    assert_eq!(v["ids"].as_array().unwrap().len(), 4, "{hits}");

    // A failing model changes nothing.
    let failing = script(dir.path(), "down.sh", "exit 3");
    let before = all_bytes(&store);
    let out = failed(
        memdag(&store)
            .args(["reindex", "--embed-cmd"])
            .arg(&failing),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("embedder failed"));
    assert_eq!(all_bytes(&store), before);

    // Back to the built-in embedder.
    let back = ok(memdag(&store).arg("reindex"));
    assert!(
        back.contains("reindexed 4 turns: dimension 5 -> 256"),
        "{back}"
    );
    let hits = ok(memdag(&store).args(["search", "rain", "--mode", "vector", "--json"]));
    assert!(!hits.contains("\"ids\":[]"), "{hits}");
}

/// Turns that state facts about their users, in English and Chinese.
const FACTS: &str = r#"{"id":"f1","thread":"chat","user":"ada","createdAt":"2023-11-13T10:00:00Z","input":"I live in Austin."}
{"id":"f2","thread":"聊天","user":"mei","createdAt":1699900000000,"input":"我住在北京海淀","steps":[{"tool":"weather","args":{"city":"北京"}}]}
{"id":"f3","thread":"chat","user":"ada","input":"Thanks, that is all."}
"#;

/// A store holding [`FACTS`], ingested with `--extract` (the rules).
fn fact_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("facts.jsonl");
    std::fs::write(&file, FACTS).unwrap();
    let store = dir.path().join("store");
    let out = ok(memdag(&store).arg("ingest").arg(&file).arg("--extract"));
    assert!(out.contains("ingested 3 turns"), "{out}");
    assert!(out.contains("learned 2 memory items"), "{out}");
    (dir, store)
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

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
    let recall = ok(memdag(&store).args(["recall", "--thread", "T", "--user", "ada", "--json"]));
    assert!(
        json(&recall)["working"]
            .as_str()
            .unwrap()
            .contains("Goal: ship it"),
        "{recall}"
    );
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
fn bench_runs_the_benchmark_binary_beside_memdag() {
    let out = Command::new(env!("CARGO_BIN_EXE_memdag"))
        .args(["bench", "--help"])
        .output()
        .unwrap();
    let beside = std::path::Path::new(env!("CARGO_BIN_EXE_memdag"))
        .with_file_name(format!("memdag-bench{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("--sizes"));
    } else {
        // Built alone, memdag says where the benchmark is instead of running the core itself.
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("no memdag-bench beside this binary"));
    }
}

#[test]
fn demo_ingests_compacts_and_learns_once_and_exports_readable_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let first = ok(memdag(&store).arg("demo"));
    assert!(first.contains("ingested 12 new turns"), "{first}");
    let learned: usize = first
        .split("learned ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no learned count in {first}"));
    assert!(learned >= 1, "{first}");
    assert!(
        first.contains("DAG ancestors of the last turn t12"),
        "{first}"
    );

    // The session gives no compact node for t02's tool loop: the demo compacted it.
    assert!(ok(memdag(&store).args(["show", "t02"])).contains("compact:"));
    let items = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(items.as_array().unwrap().len(), learned);

    // A second run adds nothing and learns nothing again.
    let again = ok(memdag(&store).arg("demo"));
    assert!(again.contains("ingested nothing new"), "{again}");
    assert!(!again.contains("learned"), "{again}");
    let items = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(items.as_array().unwrap().len(), learned);

    let md = dir.path().join("md");
    ok(memdag(&store).args(["export", "--format", "md"]).arg(&md));
    let thread = std::fs::read_dir(md.join("threads"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|t| t.contains("# Thread repo-ci"))
        .expect("the repo-ci thread file");
    assert!(thread.contains("### Compact node"), "{thread}");
    let memory_files = std::fs::read_dir(md.join("memory")).unwrap().count();
    assert_eq!(memory_files, 1, "one user's items");
}
