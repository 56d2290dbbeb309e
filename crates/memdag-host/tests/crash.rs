//! The file store under abuse, through the real `memdag` binary and component: `kill -9`
//! during an ingest, two ingests at once on one store, and a record id long enough to have
//! poisoned a v1 file store. Needs the built component (scripts/build-component.sh).

mod common;

use common::ok;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memdag_host::DirKv;

fn memdag(store: &Path) -> Command {
    common::memdag_cli(
        env!("CARGO_BIN_EXE_memdag"),
        store,
        "memdag-crash-test-cache",
    )
}

/// `n` turns over three threads; every other one has no id (the ingest derives it).
fn turns_file(dir: &Path, name: &str, n: usize) -> std::path::PathBuf {
    let text: String = (0..n)
        .map(|i| {
            let id = if i % 2 == 0 { format!("\"id\":\"{name}-{i}\",") } else { String::new() };
            format!(
                "{{{id}\"thread\":\"t{}\",\"user\":\"u\",\"created_at\":{},\"input\":\"{name} turn {i} about the deploy\",\"output\":\"ok {i}\"}}\n",
                i % 3,
                1_700_000_000_000u64 + i as u64
            )
        })
        .collect();
    let path = dir.join(format!("{name}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Every record of threads t0..t2: (id, seq).
fn stored(store: &Path) -> Vec<(String, u64)> {
    if !store.join(".lock").exists() {
        return Vec::new(); // killed before it created the store
    }
    let mut memory = common::runtime()
        .open(DirKv::open_read_only(store).unwrap(), None)
        .unwrap();
    let mut out = Vec::new();
    for t in ["t0", "t1", "t2"] {
        for r in memory.recent(t, 1_000_000).unwrap() {
            out.push((r.id, r.seq));
        }
    }
    out
}

fn assert_each_once(records: &[(String, u64)], expected: usize) {
    let ids: BTreeSet<&str> = records.iter().map(|(i, _)| i.as_str()).collect();
    let seqs: BTreeSet<u64> = records.iter().map(|(_, s)| *s).collect();
    assert_eq!(ids.len(), records.len(), "a turn is stored twice");
    assert_eq!(seqs.len(), records.len(), "a sequence number is repeated");
    assert_eq!(records.len(), expected);
}

#[test]
fn kill_9_during_ingest_then_a_rerun_stores_every_turn_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = turns_file(dir.path(), "k", 4000);
    let store = dir.path().join("store");
    // Deterministic "random" kill points, spread over the ingest.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut killed_midway = 0;
    for round in 0..5 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let wait = Duration::from_millis(150 + (x >> 33) % 900);
        let mut child = memdag(&store)
            .arg("ingest")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while started.elapsed() < wait {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            killed_midway += 1;
        }
        child.wait().unwrap();
        // Every reopen loads, whatever the kill interrupted.
        let records = stored(&store);
        assert_each_once(&records, records.len());
        assert!(records.len() <= 4000, "round {round}");
    }
    ok(memdag(&store).arg("ingest").arg(&file));
    assert_each_once(&stored(&store), 4000);
    assert!(killed_midway >= 1, "no kill landed during an ingest");
    // A search works on the result.
    ok(memdag(&store).args(["search", "deploy", "--k", "3"]));
}

#[test]
fn two_ingests_at_once_lose_nothing_or_the_second_is_busy() {
    let dir = tempfile::tempdir().unwrap();
    let a = turns_file(dir.path(), "a", 1500);
    let b = turns_file(dir.path(), "b", 1500);
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let spawn = |file: &Path| {
        memdag(&store)
            .arg("ingest")
            .arg(file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (one, two) = (spawn(&a), spawn(&b));
    let outs = [
        one.wait_with_output().unwrap(),
        two.wait_with_output().unwrap(),
    ];
    let mut expected = 0;
    for out in &outs {
        if out.status.success() {
            expected += 1500;
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("BUSY"), "a refused writer says BUSY: {err}");
            assert!(err.contains("in use by another memdag process"), "{err}");
        }
    }
    assert!(expected >= 1500, "at least one writer succeeds");
    assert_each_once(&stored(&store), expected);
    // The refused file can be ingested now, and everything is there once.
    for f in [&a, &b] {
        ok(memdag(&store).arg("ingest").arg(f));
    }
    assert_each_once(&stored(&store), 3000);
}

#[test]
fn a_long_id_is_stored_and_the_store_keeps_working() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a".repeat(230);
    let file = dir.path().join("long.jsonl");
    std::fs::write(
        &file,
        format!("{{\"id\":\"{long}\",\"thread\":\"t0\",\"input\":\"long id\"}}\n"),
    )
    .unwrap();
    let store = dir.path().join("store");
    ok(memdag(&store).arg("ingest").arg(&file));
    let recalled = ok(memdag(&store).args(["recall", "--thread", "t0"]));
    assert!(recalled.contains("long id"));
    // An id over the core's limit is refused with INVALID_INPUT and writes nothing.
    let too_long = "a".repeat(300);
    std::fs::write(
        &file,
        format!("{{\"id\":\"{too_long}\",\"thread\":\"t0\",\"input\":\"x\"}}\n"),
    )
    .unwrap();
    let out = memdag(&store).arg("ingest").arg(&file).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("INVALID_INPUT"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stored(&store).len(), 1);
    for name in std::fs::read_dir(&store).unwrap() {
        let name = name.unwrap().file_name().into_string().unwrap();
        assert!(name.len() <= 64, "file name {name}");
    }
}
