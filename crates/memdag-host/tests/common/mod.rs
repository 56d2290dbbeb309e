//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod cli;

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use memdag_host::{locate, new_turn, Kv, MemKv, NewTurn, Record, Runtime};

/// The built component. Fails, never skips, when it is not built.
pub fn component_path() -> PathBuf {
    locate::component_path(None).unwrap_or_else(|e| {
        panic!("the memdag component is not built: run scripts/build-component.sh first (or set MEMDAG_COMPONENT)\n{e}")
    })
}

/// One compiled component with the default limits for all tests of a binary.
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let path = component_path();
        Runtime::from_file(&path).unwrap_or_else(|e| {
            panic!(
                "cannot load {}: {e}\nrebuild it with scripts/build-component.sh",
                path.display()
            )
        })
    })
}

/// A turn of user `lin` with this id, thread, time and parents.
pub fn turn(id: &str, thread: &str, at: i64, parents: &[&str]) -> NewTurn {
    let mut t = new_turn(
        thread,
        &format!("input of {id}"),
        &format!("output of {id}"),
    );
    t.id = Some(id.into());
    t.user = "lin".into();
    t.created_at = at;
    t.parents = parents.iter().map(|p| p.to_string()).collect();
    t
}

/// The ids of records, in order.
pub fn ids(records: &[Record]) -> Vec<&str> {
    records.iter().map(|r| r.id.as_str()).collect()
}

/// A [`MemKv`] the test keeps a handle on.
#[derive(Clone, Default)]
pub struct SharedKv(pub Arc<Mutex<MemKv>>);

impl SharedKv {
    /// Every entry, sorted by key.
    pub fn entries(&self) -> std::collections::BTreeMap<String, Vec<u8>> {
        self.0.lock().unwrap().entries.clone()
    }
}

impl Kv for SharedKv {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        self.0.lock().unwrap().get(key)
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        self.0.lock().unwrap().put(key, value)
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        self.0.lock().unwrap().delete(key)
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        self.0.lock().unwrap().list_by_prefix(prefix)
    }
}

/// The `memdag` binary on `store`, with a compiled-code cache shared by the tests of this run.
pub fn memdag_cli(bin: &str, store: &std::path::Path, cache: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(bin);
    cmd.env("MEMDAG_COMPONENT", component_path())
        .env("MEMDAG_CACHE_DIR", std::env::temp_dir().join(cache))
        .arg("--store")
        .arg(store);
    cmd
}

/// Runs and returns the output, failing with stderr when the command fails.
pub fn ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `turns` inputs of about 1 KB of made-up words each, as real logs are (many distinct words
/// of many lengths), from a reproducible stream; the letters are a to y, so that no word is
/// `zzz`, and the middle input ends with `zzz` (a match of issue 30's grep pattern).
pub fn wordy(turns: usize) -> Vec<String> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let vocabulary: Vec<String> = (0..5000)
        .map(|_| {
            let len = 2 + next() % 8;
            (0..len)
                .map(|_| (b'a' + (next() % 25) as u8) as char)
                .collect()
        })
        .collect();
    (0..turns)
        .map(|i| {
            let mut words: Vec<&str> = (0..180)
                .map(|_| vocabulary[(next() % 5000) as usize].as_str())
                .collect();
            if i == turns / 2 {
                words.push("zzz");
            }
            words.join(" ")
        })
        .collect()
}
