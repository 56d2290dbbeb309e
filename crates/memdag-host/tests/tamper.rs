//! The file store tampered with, through the real `memdag` binary and component: for every file
//! of a store (`head`, each segment part, the lock file and a temporary file), each of these is
//! done to it: deleted, emptied, made a dangling symlink, renamed to an extreme generation, or
//! replaced by the file of the same name from another store. Then, with and without the key,
//! the store is opened and written to. Whatever happened, no acknowledged turn is ever deleted
//! (putting the file back gives every one of them), nothing plaintext is written into an
//! encrypted store, and a refusal is a typed error. Needs the built component
//! (scripts/build-component.sh).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memdag_host::{DirKv, OpenOptions};

const KEY: [u8; 32] = [0x5a; 32];

fn memdag(store: &Path) -> Command {
    let mut cmd = common::memdag_cli(
        env!("CARGO_BIN_EXE_memdag"),
        store,
        "memdag-tamper-test-cache",
    );
    cmd.env_remove("MEMDAG_KEY").env_remove("MEMDAG_KEY_FILE");
    cmd
}

/// `n` turns with ids `<name>-<i>` in thread `t`.
fn turns(dir: &Path, name: &str, from: usize, n: usize) -> PathBuf {
    let text: String = (from..from + n)
        .map(|i| {
            format!(
                "{{\"id\":\"{name}-{i}\",\"thread\":\"t\",\"user\":\"u\",\"created_at\":{},\"input\":\"secret otter {name} {i}\",\"output\":\"ok\"}}\n",
                1_700_000_000_000u64 + i as u64
            )
        })
        .collect();
    let path = dir.join(format!("{name}-{from}.jsonl"));
    std::fs::write(&path, text).unwrap();
    path
}

/// A store written by several ingests (so it has several segments, some merged), and the ids
/// of its acknowledged turns.
fn build(dir: &Path, name: &str, key_file: Option<&Path>) -> (PathBuf, BTreeSet<String>) {
    let store = dir.join(name);
    let mut acked = BTreeSet::new();
    for round in 0..10 {
        let file = turns(dir, name, round * 2, 2);
        let mut cmd = memdag(&store);
        if let Some(k) = key_file {
            cmd.arg("--key-file").arg(k);
        }
        common::ok(cmd.arg("ingest").arg(&file));
        acked.extend((round * 2..round * 2 + 2).map(|i| format!("{name}-{i}")));
    }
    (store, acked)
}

/// The ids the store holds, opened through the library (`None` when it does not open).
fn held(store: &Path, key: bool) -> Option<BTreeSet<String>> {
    let kv = DirKv::open_read_only(store).ok()?;
    let mut options = OpenOptions::new();
    if key {
        options = options.key(KEY.to_vec());
    }
    let mut memory = common::runtime().open_with(kv, options).ok()?;
    Some(
        memory
            .recent("t", 100_000)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect(),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The files of a store that the core writes (`head` and segment parts), by name.
fn store_files(store: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(store)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n == "head" || n.starts_with("seg%2F"))
        .collect();
    names.sort();
    names
}

#[derive(Debug, Clone, Copy)]
enum Damage {
    Delete,
    Empty,
    DanglingSymlink,
    /// Renamed to a segment generation memdag never reaches (u64::MAX) or the highest it takes.
    Extreme(u64),
    /// Replaced by the file of the same name (or `head`) of another store.
    Foreign,
}

const DAMAGES: [Damage; 6] = [
    Damage::Delete,
    Damage::Empty,
    Damage::DanglingSymlink,
    Damage::Extreme(u64::MAX),
    Damage::Extreme((1 << 53) - 1),
    Damage::Foreign,
];

/// Does `damage` to the file `name` of `store`; returns how to put it back.
fn harm(store: &Path, name: &str, damage: Damage, other: &Path) -> Box<dyn Fn()> {
    let path = store.join(name);
    let original = std::fs::read(&path).ok();
    match damage {
        Damage::Delete => {
            let _ = std::fs::remove_file(&path);
        }
        Damage::Empty => std::fs::write(&path, b"").unwrap(),
        Damage::DanglingSymlink => {
            let _ = std::fs::remove_file(&path);
            std::os::unix::fs::symlink(store.join("nowhere"), &path).unwrap();
        }
        Damage::Extreme(generation) => {
            let moved = store.join(format!("seg%2F{generation:016x}%2F0"));
            if path.exists() {
                std::fs::rename(&path, &moved).unwrap();
            }
            let (path, moved) = (path.clone(), moved);
            return Box::new(move || {
                if let Ok(bytes) = std::fs::read(&moved) {
                    let _ = std::fs::remove_file(&moved);
                    std::fs::write(&path, bytes).unwrap();
                }
            });
        }
        Damage::Foreign => {
            let from = other.join(name);
            let from = if from.exists() {
                from
            } else {
                other.join("head")
            };
            std::fs::copy(from, &path).unwrap();
        }
    }
    Box::new(move || {
        let _ = std::fs::remove_file(&path);
        if let Some(bytes) = &original {
            std::fs::write(&path, bytes).unwrap();
        }
    })
}

/// A refusal names its code.
fn refused_with_a_code(out: &Output) -> bool {
    let err = String::from_utf8_lossy(&out.stderr);
    [
        "CORRUPT_DATA",
        "LOCKED",
        "UNSUPPORTED_VERSION",
        "BUSY",
        "STORAGE",
    ]
    .iter()
    .any(|c| err.contains(c))
}

fn sealed(bytes: &[u8]) -> bool {
    bytes.starts_with(b"MDAS")
}

/// The core's files of a store with their bytes.
fn contents(store: &Path) -> BTreeMap<String, Vec<u8>> {
    store_files(store)
        .into_iter()
        .filter_map(|n| std::fs::read(store.join(&n)).ok().map(|b| (n, b)))
        .collect()
}

/// Every value memdag wrote into the store since `before` (new or changed) is sealed, and none
/// shows a turn's text.
fn no_plaintext_since(store: &Path, before: &BTreeMap<String, Vec<u8>>) -> bool {
    contents(store)
        .iter()
        .filter(|(n, b)| before.get(*n) != Some(*b))
        .all(|(_, b)| sealed(b) && !b.windows(12).any(|w| w == b"secret otter"))
}

fn run(store: &Path, key_file: Option<&Path>, args: &[&str], file: Option<&Path>) -> Output {
    let mut cmd = memdag(store);
    if let Some(k) = key_file {
        cmd.arg("--key-file").arg(k);
    }
    cmd.args(args);
    if let Some(f) = file {
        cmd.arg(f);
    }
    cmd.output().unwrap()
}

fn tamper_every_file(encrypted: bool) {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("memdag.key");
    std::fs::write(&key_file, KEY).unwrap();
    let key = encrypted.then_some(key_file.as_path());
    let (store, acked) = build(dir.path(), "mine", key);
    let (other, _) = build(dir.path(), "theirs", key);
    assert_eq!(held(&store, encrypted).unwrap(), acked);
    let mut names = store_files(&store);
    assert!(
        names.len() >= 3,
        "head and several segment parts: {names:?}"
    );
    names.push(".lock".into());
    names.push(".tmp-4242-0".into());
    let mut cases = 0;
    for name in &names {
        for damage in DAMAGES {
            let case = dir.path().join(format!("case-{cases}"));
            cases += 1;
            copy_dir(&store, &case);
            if name.starts_with(".tmp") {
                std::fs::write(case.join(name), b"a torn temporary file").unwrap();
            }
            let undo = harm(&case, name, damage, &other);
            let mut written = BTreeSet::new();
            for (round, with_key) in [(0, true), (1, false)] {
                let key_file = with_key.then_some(key_file.as_path());
                let what = format!("{name} {damage:?}, key {with_key}, encrypted {encrypted}");
                let read = run(&case, key_file, &["recent", "t", "100000"], None);
                if read.status.success() {
                    let out = String::from_utf8_lossy(&read.stdout);
                    for id in &acked {
                        assert!(
                            out.contains(id.as_str()),
                            "{what}: {id} missing from\n{out}"
                        );
                    }
                } else {
                    assert!(refused_with_a_code(&read), "{what}: {read:?}");
                }
                let file = turns(dir.path(), &format!("new{cases}"), round, 1);
                let before = contents(&case);
                let write = run(&case, key_file, &["ingest"], Some(&file));
                if write.status.success() {
                    written.insert(format!("new{cases}-{round}"));
                } else {
                    assert!(refused_with_a_code(&write), "{what}: {write:?}");
                }
                if encrypted {
                    assert!(
                        no_plaintext_since(&case, &before),
                        "{what}: plaintext written"
                    );
                }
            }
            // Put the file back: every acknowledged turn is there.
            undo();
            let back = held(&case, encrypted)
                .unwrap_or_else(|| panic!("{name} {damage:?}: the repaired store does not open"));
            for id in acked.iter().chain(&written) {
                assert!(back.contains(id), "{name} {damage:?}: {id} lost");
            }
        }
    }
    assert_eq!(cases, names.len() * DAMAGES.len());
}

#[test]
fn tampering_with_any_file_of_an_encrypted_store_loses_no_acknowledged_turn() {
    tamper_every_file(true);
}

#[test]
fn tampering_with_any_file_of_a_plain_store_loses_no_acknowledged_turn() {
    tamper_every_file(false);
}
