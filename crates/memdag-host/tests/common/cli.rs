//! Helpers of the `memdag` binary's end-to-end tests (cli.rs, cli_memory.rs): the binary with
//! a shared compiled-code cache, the sample sessions, and looking at a store's files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::ok;

/// The binary under test, with a compiled-code cache shared by the tests of this run.
pub fn memdag(store: &Path) -> Command {
    super::memdag_cli(env!("CARGO_BIN_EXE_memdag"), store, "memdag-cli-test-cache")
}

pub fn failed(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "{cmd:?} should fail");
    out
}

pub const SESSION: &str = r#"{"id":"a","thread":"main","user":"lin","created_at":"2026-11-27T09:00:00Z","input":"The deploy failed with a timeout","output":"Raised the timeout to 600s","steps":[{"tool":"shell","args":"kubectl rollout status","result":"error: deadline exceeded\nrollout aborted","ok":false}]}
{"id":"b","thread":"main","user":"lin","created_at":1795770060000,"input":"Write a note about the fix","output":"Noted in deploy.md","parents":["a"]}

{"id":"c","thread":"travel","user":"mei","created_at":"2026-11-27T17:02:00+08:00","input":"杭州周末天气怎么样","output":"周末有小雨","parents":["a"]}
{"id":"d","thread":"main","user":"lin","created_at":1795770180000,"input":"Ship it","output":"Shipped","parents":["b","c"]}
"#;

/// A fresh store holding [`SESSION`].
pub fn store() -> (tempfile::TempDir, PathBuf) {
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

pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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

/// Writes an executable shell script.
pub fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Every file under `dir`, recursively, with its bytes.
pub fn all_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
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

pub fn stored_anywhere(dir: &Path, needle: &str) -> Vec<PathBuf> {
    all_bytes(dir)
        .into_iter()
        .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(p, _)| p)
        .collect()
}

/// Turns that state facts about their users, in English and Chinese.
pub const FACTS: &str = r#"{"id":"f1","thread":"chat","user":"ada","createdAt":"2023-11-13T10:00:00Z","input":"I live in Austin."}
{"id":"f2","thread":"聊天","user":"mei","createdAt":1699900000000,"input":"我住在北京海淀","steps":[{"tool":"weather","args":{"city":"北京"}}]}
{"id":"f3","thread":"chat","user":"ada","input":"Thanks, that is all."}
"#;

/// A store holding [`FACTS`], ingested with `--extract` (the rules).
pub fn fact_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("facts.jsonl");
    std::fs::write(&file, FACTS).unwrap();
    let store = dir.path().join("store");
    let out = ok(memdag(&store).arg("ingest").arg(&file).arg("--extract"));
    assert!(out.contains("ingested 3 turns"), "{out}");
    assert!(out.contains("learned 2 memory items"), "{out}");
    (dir, store)
}

pub fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}
