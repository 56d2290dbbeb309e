//! The `memdag` binary end to end, turns: ingest, search (one and batch), grep, recall, show,
//! dag, compaction through a scripted `--llm-cmd` (working and failing), `--embed-cmd`, a
//! reader that closes the pipe early, user-scoped reads, forget-user, delete and limits,
//! reindex, `bench` and `demo`. Long-term and working memory are in cli_memory.rs. Needs the
//! built component (scripts/build-component.sh).

mod common;

use common::cli::*;
use common::ok;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

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
