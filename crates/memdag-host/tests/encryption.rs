//! Encryption at rest through the component under Wasmtime (`OpenOptions::key`, the WIT
//! `open` key) and through the CLI (`--key-file`, `$MEMDAG_KEY`): stored bytes show no
//! content, a missing, wrong or unexpected key is the WIT `locked` error and writes nothing,
//! and snapshots stay sealed. Needs the built component (scripts/build-component.sh).

mod common;

use common::{ok, runtime, turn, SharedKv};
use memdag_host::{Error, ErrorCode, MemoryError, OpenOptions};
use std::path::Path;
use std::process::Command;

const KEY: [u8; 32] = [0x42; 32];
const OTHER: [u8; 32] = [0x24; 32];
const SECRET: &str = "the vault code is 7391-otter";

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

fn locked(e: Error) -> String {
    match e {
        Error::Memory(MemoryError {
            code: ErrorCode::Locked,
            message,
            key,
            ..
        }) => {
            assert!(key.is_some(), "a locked error names the key");
            message
        }
        other => panic!("expected the locked error, got {other}"),
    }
}

#[test]
fn an_encrypted_store_round_trips_through_the_component_and_shows_nothing() {
    let kv = SharedKv::default();
    let open = |key: Option<&[u8; 32]>| {
        let mut options = OpenOptions::new().prefix("agent/");
        if let Some(k) = key {
            options = options.key(k.to_vec());
        }
        runtime().open_with(kv.clone(), options)
    };
    {
        let mut memory = open(Some(&KEY)).unwrap();
        let mut t = turn("a", "main", 1_000, &[]);
        t.input = SECRET.into();
        memory.add_turn(t).unwrap();
        memory.add_turn(turn("b", "main", 2_000, &["a"])).unwrap();
        memory.put_blob(&format!("blob: {SECRET}")).unwrap();
    }
    let stored = kv.entries();
    assert!(stored.contains_key("agent/head"), "{:?}", stored.keys());
    for (k, v) in &stored {
        assert!(v.starts_with(b"MDAS"), "{k} is not sealed");
        assert!(!contains(v, SECRET) && !contains(v, "input of b"), "{k}");
    }
    let mut memory = open(Some(&KEY)).unwrap();
    assert_eq!(memory.get("a").unwrap().unwrap().input, SECRET);
    assert_eq!(memory.len().unwrap(), 2);

    // Missing, wrong and unexpected keys: `locked`, naming the kv key; nothing is written.
    for key in [None, Some(&OTHER)] {
        let m = locked(open(key).err().expect("refused"));
        assert!(m.contains("agent/head"), "{m}");
    }
    assert_eq!(kv.entries(), stored);
    let short = runtime().open_with(
        kv.clone(),
        OpenOptions::new().prefix("agent/").key(vec![1; 5]),
    );
    match short.err().expect("refused") {
        Error::Memory(e) if e.code == ErrorCode::InvalidInput => {
            assert!(e.message.contains("32 bytes"), "{}", e.message)
        }
        other => panic!("{other}"),
    }
    let plain = SharedKv::default();
    runtime()
        .open(plain.clone(), None)
        .unwrap()
        .add_turn(turn("p", "main", 1, &[]))
        .unwrap();
    locked(
        runtime()
            .open_with(plain, OpenOptions::new().key(KEY.to_vec()))
            .err()
            .expect("refused"),
    );

    // A snapshot is sealed, and imports into a store with the same key.
    let snapshot = memory.export_snapshot().unwrap();
    assert!(snapshot.iter().all(|(_, v)| v.starts_with(b"MDAS")));
    let copy = SharedKv::default();
    let mut other = runtime()
        .open_with(copy.clone(), OpenOptions::new().key(KEY.to_vec()))
        .unwrap();
    assert_eq!(other.import_snapshot(&snapshot).unwrap(), 2);
    let mut unkeyed = runtime().open(SharedKv::default(), None).unwrap();
    locked(unkeyed.import_snapshot(&snapshot).unwrap_err());
    drop(other);
    let mut reopened = runtime()
        .open_with(copy, OpenOptions::new().key(KEY.to_vec()))
        .unwrap();
    assert_eq!(reopened.get("a").unwrap().unwrap().input, SECRET);
}

/// Every byte of every file under `dir`.
fn all_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(all_bytes(&path));
        } else {
            out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    out
}

fn memdag(store: &Path) -> Command {
    let mut cmd = common::memdag_cli(env!("CARGO_BIN_EXE_memdag"), store, "memdag-cli-test-cache");
    cmd.env_remove("MEMDAG_KEY").env_remove("MEMDAG_KEY_FILE");
    cmd
}

#[test]
fn the_cli_encrypts_with_a_key_file_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("memdag.key");
    std::fs::write(&key_file, KEY).unwrap();
    let session = dir.path().join("session.jsonl");
    std::fs::write(
        &session,
        format!(
            "{{\"id\":\"a\",\"thread\":\"main\",\"user\":\"lin\",\"created_at\":1,\"input\":\"{SECRET}\",\"output\":\"ok\"}}\n"
        ),
    )
    .unwrap();
    let store = dir.path().join("store");
    let out = ok(memdag(&store)
        .arg("--key-file")
        .arg(&key_file)
        .arg("ingest")
        .arg(&session));
    assert!(out.contains("ingested 1 turns"), "{out}");
    for (path, bytes) in all_bytes(&store) {
        assert!(!contains(&bytes, SECRET), "{path} shows the secret");
    }
    let shown = ok(memdag(&store)
        .arg("--key-file")
        .arg(&key_file)
        .arg("show")
        .arg("a"));
    assert!(shown.contains(SECRET), "{shown}");
    // The same key as hex, from the environment.
    let hex: String = KEY.iter().map(|b| format!("{b:02x}")).collect();
    let found = ok(memdag(&store)
        .env("MEMDAG_KEY", &hex)
        .args(["grep", "otter"]));
    assert!(found.contains("a"), "{found}");
    let hex_file = dir.path().join("hex.key");
    std::fs::write(&hex_file, format!("{hex}\n")).unwrap();
    ok(memdag(&store)
        .env("MEMDAG_KEY_FILE", &hex_file)
        .args(["get", "a"]));

    // No key or another key: the locked error, and the store is untouched.
    let before = all_bytes(&store);
    let other: String = OTHER.iter().map(|b| format!("{b:02x}")).collect();
    for cmd in [
        memdag(&store).args(["show", "a"]).output().unwrap(),
        memdag(&store)
            .env("MEMDAG_KEY", &other)
            .arg("ingest")
            .arg(&session)
            .output()
            .unwrap(),
    ] {
        assert!(!cmd.status.success());
        let err = String::from_utf8_lossy(&cmd.stderr);
        assert!(err.contains("LOCKED: "), "{err}");
    }
    assert_eq!(all_bytes(&store), before);
    let bad = memdag(&store)
        .env("MEMDAG_KEY", "abc")
        .args(["show", "a"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("64 hex digits"));
}

/// A store the JS package sealed with WebCrypto's AES-256-GCM (seal v2; written by
/// `tests/node/encryption-host.test.mjs` with the key `[0x42; 32]`): the CLI, whose core
/// opens v2 in software, reads it in place, shows nothing without the key, imports it as a
/// snapshot, and the component opens it.
#[test]
fn the_cli_and_the_component_open_a_store_a_browser_sealed() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/cross-face/sealed-v2.mdagexp");
    let file = std::fs::read(&fixture).unwrap();
    let entries = runtime()
        .open(memdag_host::MemKv::default(), None)
        .unwrap()
        .decode_snapshot(&file)
        .unwrap();
    assert!(entries
        .iter()
        .all(|(_, v)| v.starts_with(b"MDAS") && v[4] == 2));

    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    {
        let mut kv = memdag_host::DirKv::open(&store).unwrap();
        for (k, v) in &entries {
            memdag_host::Kv::put(&mut kv, k, v).unwrap();
        }
    }
    let key_file = dir.path().join("memdag.key");
    std::fs::write(&key_file, KEY).unwrap();
    let shown = ok(memdag(&store)
        .arg("--key-file")
        .arg(&key_file)
        .args(["show", "c2"]));
    assert!(shown.contains("继续：写文档"), "{shown}");
    let other = OTHER.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let refused = memdag(&store)
        .env("MEMDAG_KEY", &other)
        .args(["show", "c2"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("LOCKED: "));

    let copy = dir.path().join("copy");
    let out = ok(memdag(&copy)
        .arg("--key-file")
        .arg(&key_file)
        .arg("import")
        .arg(&fixture));
    assert!(out.contains("imported a snapshot of 4 records"), "{out}");

    let kv = SharedKv::default();
    for (k, v) in &entries {
        memdag_host::Kv::put(&mut kv.clone(), k, v).unwrap();
    }
    let mut memory = runtime()
        .open_with(kv, OpenOptions::new().key(KEY.to_vec()))
        .unwrap();
    assert_eq!(memory.len().unwrap(), 4);
    assert_eq!(memory.get("c3").unwrap().unwrap().thread, "other");
}
