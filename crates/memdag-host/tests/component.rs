//! The built component, driven through the host library: persistence across instances,
//! error cases, and kv failures. Needs `memdag_component.wasm`: run scripts/build-component.sh.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};

mod common;

use common::{ids, runtime, turn};
use memdag_host::{locate, DirKv, Error, ErrorCode, Kv, MemKv, Runtime, Step};

/// Every file of a directory with its bytes.
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

fn message(e: &Error) -> String {
    match e {
        Error::Memory(m) => format!("{m:?}"),
        other => panic!("expected a component error, got {other}"),
    }
}

#[test]
fn turns_and_ancestors_survive_a_new_instance() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c, d_id);
    {
        let mut memory = runtime()
            .open(DirKv::open(dir.path()).unwrap(), None)
            .unwrap();
        assert!(memory.is_empty().unwrap());
        a = memory.add_turn(turn("a", "main", 1_000, &[])).unwrap();
        b = memory.add_turn(turn("b", "main", 2_000, &["a"])).unwrap();
        let mut t = turn("c", "旁支", 3_000, &["a", "b"]);
        t.input = "查一下天气".into();
        t.steps = vec![Step {
            tool: "weather".into(),
            args: "{}".into(),
            result: "小雨".into(),
            ok: true,
        }];
        t.importance = Some(0.9);
        c = memory.add_turn(t).unwrap();
        let mut d = turn("unused", "main", 4_000, &["c"]);
        d.id = None;
        d_id = memory.add_turn(d).unwrap().id;
        assert_eq!(d_id.len(), 16, "a derived id is 16 hex digits: {d_id}");
        assert_eq!(memory.len().unwrap(), 4);
    } // every handle, instance and store is dropped here

    let mut memory = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    assert_eq!(memory.len().unwrap(), 4);
    assert_eq!(memory.get("a").unwrap(), Some(a));
    assert_eq!(memory.get("b").unwrap(), Some(b));
    assert_eq!(memory.get("c").unwrap().as_ref(), Some(&c));
    assert_eq!(c.steps[0].result, "小雨");
    assert_eq!(c.importance, 0.9);
    assert_eq!(
        ids(&memory.ancestors(&d_id, 10, 10).unwrap()),
        ["c", "a", "b"]
    );
    assert_eq!(ids(&memory.ancestors(&d_id, 1, 10).unwrap()), ["c"]);
    assert_eq!(
        ids(&memory.descendants("a", 10, 10).unwrap()),
        ["b", "c", d_id.as_str()]
    );
    assert_eq!(
        ids(&memory.recent("main", 10).unwrap()),
        [d_id.as_str(), "b", "a"]
    );
    assert_eq!(
        ids(&memory.by_user("lin", 2).unwrap()),
        [d_id.as_str(), "c"]
    );

    // A delete is durable too, and splices the DAG: c's children take c's parents.
    assert_eq!(memory.delete("c").unwrap().id, "c");
    drop(memory);
    let mut memory = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    assert_eq!(memory.len().unwrap(), 3);
    assert_eq!(memory.get("c").unwrap(), None);
    assert_eq!(ids(&memory.ancestors(&d_id, 10, 10).unwrap()), ["a", "b"]);
}

#[test]
fn unknown_parent_is_invalid_input_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut memory = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();
    let before = files(dir.path());

    let err = memory
        .add_turn(turn("b", "main", 2, &["a", "ghost"]))
        .unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::UnknownParent && e.ids == ["ghost"]),
        "{err}"
    );
    assert_eq!(err.code(), Some("UNKNOWN_PARENT"));
    let err = memory.add_turn(turn("a", "main", 3, &[])).unwrap_err();
    assert_eq!(err.code(), Some("DUPLICATE_ID"), "{err}");
    let err = memory.add_turn(turn("e", "", 3, &[])).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::InvalidInput),
        "{err}"
    );

    assert_eq!(
        files(dir.path()),
        before,
        "a refused turn must not touch the store"
    );
    assert_eq!(memory.len().unwrap(), 1);
    assert_eq!(memory.get("b").unwrap(), None);
    let err = memory.ancestors("ghost", 3, 3).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::NotFound && e.ids.len() == 1),
        "{err}"
    );
    let err = memory.delete("ghost").unwrap_err();
    assert_eq!(err.code(), Some("NOT_FOUND"), "{err}");
    assert_eq!(files(dir.path()), before);
}

#[test]
fn corrupt_bytes_give_corrupt_data_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut memory = runtime()
            .open(DirKv::open(dir.path()).unwrap(), None)
            .unwrap();
        memory.add_turn(turn("a", "main", 1, &[])).unwrap();
        memory.add_turn(turn("b", "main", 2, &["a"])).unwrap();
    }
    let mut kv = DirKv::open(dir.path()).unwrap();
    let part = "seg/0000000000000002/0";
    std::fs::write(
        kv.path_of(part).unwrap(),
        b"MDAG\x02\x06garbage, not a part",
    )
    .unwrap();
    let err = runtime()
        .open(kv.clone(), None)
        .err()
        .expect("a corrupt store must not open");
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::CorruptData && e.key.as_deref() == Some(part)),
        "{err}"
    );

    // Under a prefix the error names the full kv key.
    kv.put("p/head", b"junk").unwrap();
    let err = runtime()
        .open(kv, Some("p/"))
        .err()
        .expect("a corrupt store must not open");
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::CorruptData && e.key.as_deref() == Some("p/head")),
        "{}",
        message(&err)
    );
}

#[test]
fn a_lost_head_opens_the_newest_commit_with_a_warning_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let kv = DirKv::open(dir.path()).unwrap();
    {
        let mut memory = runtime().open(kv.clone(), Some("p/")).unwrap();
        memory.add_turn(turn("a", "main", 1, &[])).unwrap();
        memory.add_turn(turn("b", "main", 2, &["a"])).unwrap();
        assert!(memory.load_warnings().unwrap().is_empty());
    }
    let mut kv2 = kv.clone();
    kv2.delete("p/head").unwrap();
    let mut memory = runtime().open(kv.clone(), Some("p/")).unwrap();
    let warnings = memory.load_warnings().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].code, "COMMIT_RECOVERED");
    assert_eq!(warnings[0].key, "p/head");
    assert_eq!(ids(&memory.recent("main", 10).unwrap()), ["b", "a"]);
    // The next write stores `head` again: a later open has nothing to recover from.
    memory.add_turn(turn("c", "main", 3, &["b"])).unwrap();
    assert!(kv2.get("p/head").unwrap().is_some());
    let mut again = runtime().open(kv, Some("p/")).unwrap();
    assert!(again.load_warnings().unwrap().is_empty());
    assert_eq!(again.len().unwrap(), 3);
}

#[test]
fn prefixes_keep_stores_apart() {
    let dir = tempfile::tempdir().unwrap();
    // One writer handle on the directory, shared by the stores under it.
    let kv = DirKv::open(dir.path()).unwrap();
    let mut one = runtime().open(kv.clone(), Some("agent-1/")).unwrap();
    let mut two = runtime().open(kv.clone(), Some("agent-2/")).unwrap();
    one.add_turn(turn("x", "main", 1, &[])).unwrap();
    two.add_turn(turn("x", "other", 1, &[])).unwrap();
    two.add_turn(turn("y", "other", 2, &["x"])).unwrap();
    drop((one, two, kv));
    let kv = DirKv::open(dir.path()).unwrap();
    let mut one = runtime().open(kv.clone(), Some("agent-1/")).unwrap();
    assert_eq!(one.len().unwrap(), 1);
    assert_eq!(one.get("x").unwrap().unwrap().thread, "main");
    let mut root = runtime().open(kv.clone(), None).unwrap();
    assert_eq!(
        root.len().unwrap(),
        0,
        "the unprefixed store ignores prefixed keys"
    );
    for bad in ["agent-3", "rec/", "idx/x/", "seg/"] {
        let err = runtime().open(kv.clone(), Some(bad)).err().unwrap();
        assert!(
            matches!(&err, Error::Memory(e) if e.code == ErrorCode::InvalidInput),
            "{bad}: {err}"
        );
    }
}

/// Which kv calls fail.
#[derive(Clone, Copy, PartialEq)]
enum Fail {
    Nothing,
    Puts,
    Deletes,
    Everything,
}

/// A [`MemKv`] shared with the test, whose calls fail on demand.
#[derive(Clone)]
struct FlakyKv {
    inner: Arc<Mutex<MemKv>>,
    fail: Arc<Mutex<Fail>>,
}

impl FlakyKv {
    fn check(&self, call: Fail) -> io::Result<()> {
        let fail = *self.fail.lock().unwrap();
        if fail == call || fail == Fail::Everything {
            return Err(io::Error::other("injected failure"));
        }
        Ok(())
    }

    fn set(&self, fail: Fail) {
        *self.fail.lock().unwrap() = fail;
    }
}

impl Kv for FlakyKv {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        self.check(Fail::Everything)?;
        self.inner.lock().unwrap().get(key)
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        self.check(Fail::Puts)?;
        self.inner.lock().unwrap().put(key, value)
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        self.check(Fail::Deletes)?;
        self.inner.lock().unwrap().delete(key)
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        self.check(Fail::Everything)?;
        self.inner.lock().unwrap().list_by_prefix(prefix)
    }
}

#[test]
fn a_failed_kv_write_leaves_memory_equal_to_kv() {
    let kv = FlakyKv {
        inner: Arc::default(),
        fail: Arc::new(Mutex::new(Fail::Nothing)),
    };
    let mut memory = runtime().open(kv.clone(), None).unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();

    // A failed put: the turn is not kept in memory either.
    kv.set(Fail::Puts);
    let err = memory.add_turn(turn("b", "main", 2, &["a"])).unwrap_err();
    assert!(
        matches!(&err, Error::Memory(e) if e.code == ErrorCode::Storage && e.message.contains("injected failure")),
        "{err}"
    );
    assert_eq!(memory.get("b").unwrap(), None);
    assert_eq!(memory.len().unwrap(), 1);
    kv.set(Fail::Nothing);
    memory.add_turn(turn("b", "main", 2, &["a"])).unwrap();
    memory.add_turn(turn("c", "main", 3, &["b"])).unwrap();

    // A delete whose write fails changes nothing: c keeps b as its parent.
    kv.set(Fail::Puts);
    let err = memory.delete("b").unwrap_err();
    assert_eq!(err.code(), Some("STORAGE"), "{err}");
    assert!(memory.get("b").unwrap().is_some());
    assert_eq!(memory.get("c").unwrap().unwrap().parents, ["b"]);

    // Deletions come after the commit: when they fail (here through the merges of many
    // flushes), the change sets still land, and the keys left behind are orphans.
    kv.set(Fail::Deletes);
    for i in 0..20 {
        memory
            .add_turn(turn(&format!("m{i}"), "more", 10 + i, &[]))
            .unwrap();
    }
    kv.set(Fail::Nothing);
    let keys_with_orphans = kv.inner.lock().unwrap().entries.len();
    let mut reopened = runtime().open(kv.clone(), None).unwrap();
    assert_eq!(reopened.len().unwrap(), 23);
    reopened.add_turn(turn("n", "more", 99, &[])).unwrap();
    assert!(
        kv.inner.lock().unwrap().entries.len() < keys_with_orphans,
        "the next change set deletes the orphans"
    );
    drop(reopened);
    let mut memory = runtime().open(kv.clone(), None).unwrap();

    // When the reload fails too, every call retries it until kv answers again.
    kv.set(Fail::Everything);
    let err = memory.add_turn(turn("d", "main", 4, &[])).unwrap_err();
    assert_eq!(err.code(), Some("STORAGE"), "{err}");
    assert_eq!(memory.len().unwrap_err().code(), Some("STORAGE"));
    kv.set(Fail::Nothing);
    assert_eq!(memory.len().unwrap(), 24);

    // Memory and kv agree: a fresh instance sees the same records.
    let mut fresh = runtime().open(kv.clone(), None).unwrap();
    for id in ["a", "b", "c", "d", "m0", "m19", "n"] {
        assert_eq!(fresh.get(id).unwrap(), memory.get(id).unwrap(), "{id}");
    }
}

#[test]
fn a_missing_component_says_how_to_build_it() {
    let err =
        locate::component_path(Some(Path::new("/nonexistent/memdag_component.wasm"))).unwrap_err();
    assert!(
        err.to_string().contains("scripts/build-component.sh"),
        "{err}"
    );
    assert!(matches!(
        Runtime::from_file("/nonexistent/c.wasm"),
        Err(Error::ComponentNotFound { .. })
    ));
}

#[test]
fn ids_never_reach_a_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut memory = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();
    // 80 CJK characters are a valid 240-byte id; escaped they would exceed a file name, but
    // no v2 key holds an id, so it is stored like any other.
    let long = "记".repeat(80);
    memory.add_turn(turn(&long, "main", 2, &["a"])).unwrap();
    memory.add_turn(turn("after", "main", 3, &[&long])).unwrap();
    assert_eq!(memory.len().unwrap(), 3);
    // An id over the core's limit is refused before anything is written.
    let err = memory
        .add_turn(turn(&"记".repeat(90), "main", 4, &[]))
        .unwrap_err();
    assert_eq!(err.code(), Some("INVALID_INPUT"), "{err}");
    drop(memory);
    let mut reopened = runtime()
        .open(DirKv::open(dir.path()).unwrap(), None)
        .unwrap();
    assert_eq!(reopened.get("after").unwrap().unwrap().parents, [long]);
}
