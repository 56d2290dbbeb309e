//! The CLI learning through an LLM: `--llm-cmd` with a scripted program (one call a thread,
//! a bad fact refused alone with its code, the cost printed and in `--json`, the rules
//! learning a batch whose answer is prose or whose program fails), and the example program
//! scripts/llm-openai.py against a stand-in OpenAI-compatible server.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::ok;

fn memdag(store: &Path) -> Command {
    common::memdag_cli(
        env!("CARGO_BIN_EXE_memdag"),
        store,
        "memdag-cli-llm-test-cache",
    )
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// An executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Ada in one thread (f1, f3), Mei in another (f2).
const FACTS: &str = r#"{"id":"f1","thread":"chat","user":"ada","createdAt":"2023-11-13T10:00:00Z","input":"I live in Austin."}
{"id":"f2","thread":"聊天","user":"mei","createdAt":1699900000000,"input":"我住在北京海淀"}
{"id":"f3","thread":"chat","user":"ada","input":"Thanks, that is all."}
"#;

#[test]
fn ingest_and_memory_extract_through_a_scripted_llm() {
    let dir = tempfile::tempdir().unwrap();
    // Ingest with --extract through a scripted LLM: one call a thread, a bad fact refused
    // alone with its code, the calls and tokens counted.
    let file = dir.path().join("facts.jsonl");
    std::fs::write(&file, FACTS).unwrap();
    let store = dir.path().join("store");
    let llm = script(
        dir.path(),
        "llm.sh",
        r#"prompt=$(cat)
echo "$prompt" >> "$0.prompts"
case "$prompt" in
  *'[f1] Ada'*) echo '{"facts": [{"op": "add", "source": "f1", "text": "Ada lives in Austin, Texas", "relation": "residence", "object": "Austin"}, {"op": "add", "source": "f2", "text": "not this batch"}]}' ;;
  *) echo '{"facts": []}' ;;
esac"#,
    );
    let out = ok(memdag(&store)
        .arg("ingest")
        .arg(&file)
        .arg("--extract")
        .arg("--llm-cmd")
        .arg(&llm));
    assert!(out.contains("learned 1 memory items"), "{out}");
    let prompts = std::fs::read_to_string(dir.path().join("llm.sh.prompts")).unwrap();
    assert_eq!(
        prompts.matches("You keep the long-term memory").count(),
        2,
        "one call a thread"
    );
    let items = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(items[0]["text"], "Ada lives in Austin, Texas");
    assert_eq!(items[0]["sources"], serde_json::json!(["f1"]));
    let out = ok(memdag(&store)
        .args(["memory", "extract", "--user", "ada", "--llm-cmd"])
        .arg(&llm));
    assert!(
        out.contains("refused: batch 0, fact 1: UNKNOWN_SOURCE: source \"f2\""),
        "{out}"
    );
    assert!(out.contains("LLM: 1 calls, "), "{out}");
    let report = json(&ok(memdag(&store)
        .args(["memory", "extract", "--user", "ada", "--json", "--llm-cmd"])
        .arg(&llm)));
    assert_eq!(report["refused"][0]["code"], "UNKNOWN_SOURCE");
    assert_eq!(report["refused"][0]["fact"], 1);
    assert_eq!(report["llm"]["calls"], 1);
    assert!(report["llm"]["promptTokens"].as_u64().unwrap() > 500);
    assert_eq!(report["learned"][0]["outcome"], "corroborated", "{report}");

    // An answer that is no facts object: the rules learn the batch instead, and say so.
    let babbling = script(
        dir.path(),
        "babble.sh",
        "cat > /dev/null\necho 'Ada lives in Austin, I believe.'",
    );
    let out = ok(memdag(&store)
        .args(["memory", "extract", "--user", "ada", "--llm-cmd"])
        .arg(&babbling));
    assert!(
        out.contains("refused: batch 0, the answer: NOT_JSON"),
        "{out}"
    );
    assert!(
        out.contains("learned by the rules instead: f1, f3"),
        "{out}"
    );
    let failing = script(dir.path(), "fail.sh", "cat > /dev/null\nexit 3");
    let out = ok(memdag(&store)
        .args(["memory", "extract", "--user", "ada", "--llm-cmd"])
        .arg(&failing));
    assert!(out.contains("the LLM call failed"), "{out}");
    let items = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(items.as_array().unwrap().len(), 1, "{items}");
}

/// A stand-in OpenAI-compatible server on 127.0.0.1 answering `requests` requests: for a
/// prompt showing turn f1 with strict structured outputs asked, a fact about it; for any
/// other JSON-mode prompt no facts; without JSON mode, plain text. Returns its base URL and
/// the request bodies it saw.
fn stand_in_endpoint(requests: usize) -> (String, std::thread::JoinHandle<Vec<serde_json::Value>>) {
    use std::io::{BufRead, BufReader, Read, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let serve = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut line, mut length) = (String::new(), 0usize);
            reader.read_line(&mut line).unwrap();
            assert!(line.starts_with("POST /v1/chat/completions "), "{line}");
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
            let strict = body["response_format"]["json_schema"]["strict"] == true;
            let content = match (strict, prompt.contains("[f1] Ada")) {
                (true, true) => serde_json::json!({"facts": [{"op": "add", "source": "f1",
                    "text": "Ada lives in Austin", "relation": "residence", "object": "Austin"}]})
                .to_string(),
                (true, false) => r#"{"facts": []}"#.to_string(),
                (false, _) => "plain text".to_string(),
            };
            let answer =
                serde_json::json!({"choices": [{"message": {"content": content}}]}).to_string();
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            )
            .unwrap();
            seen.push(body);
        }
        seen
    });
    (url, serve)
}

#[test]
fn the_openai_example_script_learns_through_an_endpoint() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/llm-openai.py");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("facts.jsonl");
    std::fs::write(&file, FACTS).unwrap();
    let store = dir.path().join("store");
    // Two threads in FACTS: two calls.
    let (url, serve) = stand_in_endpoint(2);
    let out = ok(memdag(&store)
        .env("MEMDAG_LLM_BASE_URL", &url)
        .env("MEMDAG_LLM_MODEL", "stand-in")
        .env("OPENAI_API_KEY", "sk-test")
        .arg("ingest")
        .arg(&file)
        .arg("--extract")
        .arg("--llm-cmd")
        .arg(script));
    assert!(out.contains("learned 1 memory items"), "{out}");
    let seen = serve.join().unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen.iter().all(|b| b["model"] == "stand-in"));
    assert_eq!(
        seen[0]["response_format"]["json_schema"]["schema"]["required"],
        serde_json::json!(["facts"])
    );
    let items = json(&ok(memdag(&store).args(["memory", "list", "--json"])));
    assert_eq!(items[0]["text"], "Ada lives in Austin");
    assert_eq!(items[0]["sources"], serde_json::json!(["f1"]));

    // No endpoint: the script fails, memdag says so and the rules learn the batch.
    let out = ok(memdag(&store)
        .env("MEMDAG_LLM_BASE_URL", "http://127.0.0.1:9/v1")
        .env("MEMDAG_LLM_MODEL", "stand-in")
        .args(["memory", "extract", "--user", "mei", "--llm-cmd"])
        .arg(script));
    assert!(out.contains("the LLM call failed"), "{out}");
    assert!(out.contains("learned by the rules instead: f2"), "{out}");
}
