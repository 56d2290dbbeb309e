//! One flipped byte costs one block, through the WIT component under Wasmtime and the real
//! `memdag` binary: a plain open refuses the store naming the key and every damaged block,
//! `verify` (WIT `store.verify`, `memdag verify`) reports the damage and what it held,
//! `open-salvaging` (`OpenOptions::salvaging`) and `memdag salvage SRC DST` keep everything
//! intact and list what was lost by id. Needs the built component
//! (scripts/build-component.sh).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{ok, runtime, wordy, SharedKv};
use memdag_host::{DirKv, Error, ErrorCode, Kv, OpenOptions};

fn memdag(store: &Path) -> std::process::Command {
    common::memdag_cli(
        env!("CARGO_BIN_EXE_memdag"),
        store,
        "memdag-salvage-test-cache",
    )
}

/// Flips one bit in the middle of the largest value whose key starts with `seg`; returns that
/// key.
fn flip_in_largest_segment(entries: &mut BTreeMap<String, Vec<u8>>, prefix: &str) -> String {
    let key = entries
        .iter()
        .filter(|(k, _)| k.starts_with(&format!("{prefix}seg")))
        .max_by_key(|(_, v)| v.len())
        .map(|(k, _)| k.clone())
        .unwrap();
    let v = entries.get_mut(&key).unwrap();
    let at = v.len() / 2;
    v[at] ^= 0x08;
    key
}

/// A store of `n` wordy turns under `prefix`, sealed with `key` if given.
fn grown(n: usize, prefix: &str, key: Option<[u8; 32]>) -> SharedKv {
    let kv = SharedKv::default();
    let mut options = OpenOptions::new().prefix(prefix);
    if let Some(k) = key {
        options = options.key(k.to_vec());
    }
    let mut memory = runtime().open_with(kv.clone(), options).unwrap();
    let turns: Vec<_> = wordy(n)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let mut t = common::turn(&format!("w{i}"), "t", 1_700_000_000_000 + i as i64, &[]);
            t.input = text;
            t
        })
        .collect();
    for batch in turns.chunks(100) {
        memory.add_turns(batch).unwrap();
    }
    kv
}

fn set(kv: &SharedKv, entries: BTreeMap<String, Vec<u8>>) {
    kv.0.lock().unwrap().entries = entries;
}

#[test]
fn the_component_verifies_and_salvages_a_flipped_byte_under_a_prefix() {
    let kv = grown(400, "p/", None);
    let intact = runtime().verify(kv.clone(), Some("p/"), None).unwrap();
    assert!(intact.intact && intact.damage.damaged.is_empty());
    assert_eq!(intact.records, 400);

    let mut entries = kv.entries();
    let key = flip_in_largest_segment(&mut entries, "p/");
    set(&kv, entries);

    let refused = runtime()
        .open_with(kv.clone(), OpenOptions::new().prefix("p/"))
        .err()
        .expect("a plain open refuses");
    match &refused {
        Error::Memory(e) => {
            assert_eq!(e.code, ErrorCode::CorruptData);
            assert_eq!(e.key.as_deref(), Some(key.as_str()));
            assert!(
                e.message.contains("1 damaged value or block"),
                "{}",
                e.message
            );
        }
        other => panic!("{other:?}"),
    }

    let v = runtime().verify(kv.clone(), Some("p/"), None).unwrap();
    assert!(!v.intact);
    assert_eq!(v.damage.damaged.len(), 1);
    let d = &v.damage.damaged[0];
    assert_eq!(d.key, key, "the key carries the prefix");
    assert!(d.block.is_some());
    assert!(!d.records.is_empty());
    let lost = 400 - v.records;
    assert!(lost > 0 && lost < 200, "one block's records: {lost}");

    let mut salvaged = runtime()
        .open_with(kv.clone(), OpenOptions::new().prefix("p/").salvaging())
        .unwrap();
    let damage = salvaged.damage().unwrap().clone();
    assert_eq!(damage, v.damage);
    assert_eq!(salvaged.len().unwrap(), v.records);
    let warnings = salvaged.load_warnings().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        (warnings[0].code.as_str(), warnings[0].key.as_str()),
        ("BLOCK_SKIPPED", key.as_str())
    );
    // Every id the report lists as lost is gone; a surviving one answers.
    for id in &damage.lost_records {
        assert!(salvaged.get(id).unwrap().is_none(), "{id}");
    }
    assert!(salvaged.get("w0").unwrap().is_some() || damage.lost_records.contains(&"w0".into()));
    // Its next write rewrites the store whole; then a plain open works, and nothing is damaged.
    salvaged
        .add_turn(common::turn("after", "t", 1_800_000_000_000, &[]))
        .unwrap();
    let reopened = runtime()
        .open_with(kv.clone(), OpenOptions::new().prefix("p/"))
        .unwrap();
    drop(reopened);
    let again = runtime().verify(kv.clone(), Some("p/"), None).unwrap();
    assert!(again.intact);
    assert_eq!(again.records, v.records + 1);
}

#[test]
fn an_encrypted_store_verifies_only_with_its_key_and_loses_the_sealed_part() {
    let key = [0x42; 32];
    let kv = grown(200, "", Some(key));
    let mut entries = kv.entries();
    let damaged = flip_in_largest_segment(&mut entries, "");
    set(&kv, entries);
    let locked = runtime().verify(kv.clone(), None, None).err().unwrap();
    assert!(
        matches!(&locked, Error::Memory(e) if e.code == ErrorCode::Locked),
        "{locked:?}"
    );
    let v = runtime().verify(kv.clone(), None, Some(&key)).unwrap();
    assert_eq!(v.damage.damaged.len(), 1);
    assert_eq!(v.damage.damaged[0].key, damaged);
    assert_eq!(
        v.damage.damaged[0].block, None,
        "a sealed part is one AEAD value"
    );
}

fn wordy_jsonl(dir: &Path, n: usize) -> PathBuf {
    let text: String = wordy(n)
        .into_iter()
        .enumerate()
        .map(|(i, input)| {
            serde_json::json!({
                "id": format!("w{i}"), "thread": "t", "user": "u",
                "created_at": 1_700_000_000_000u64 + i as u64, "input": input, "output": "ok"
            })
            .to_string()
                + "\n"
        })
        .collect();
    let path = dir.join("turns.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn memdag_verify_and_salvage_on_a_store_with_one_flipped_byte() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let file = wordy_jsonl(dir.path(), 400);
    ok(memdag(&store).arg("ingest").arg(&file));
    let clean = ok(memdag(&store).arg("verify"));
    assert!(
        clean.contains("intact (") && clean.contains("400 records"),
        "{clean}"
    );

    let mut entries: BTreeMap<String, Vec<u8>> = {
        let mut kv = DirKv::open(&store).unwrap();
        kv.list_by_prefix("").unwrap().into_iter().collect()
    };
    let key = flip_in_largest_segment(&mut entries, "");
    std::fs::write(store.join(key.replace('/', "%2F")), &entries[&key]).unwrap();

    let search = memdag(&store)
        .args(["search", "anything"])
        .output()
        .unwrap();
    assert!(!search.status.success());
    let err = String::from_utf8_lossy(&search.stderr);
    assert!(
        err.contains("CORRUPT_DATA") && err.contains(&key) && err.contains("block"),
        "{err}"
    );

    let verify = memdag(&store).arg("verify").output().unwrap();
    assert!(!verify.status.success(), "verify exits 1 on damage");
    let report = String::from_utf8_lossy(&verify.stdout);
    assert!(
        report.contains("DAMAGED") && report.contains(&format!("{key} block")),
        "{report}"
    );
    assert!(report.contains("lost records ("), "{report}");

    let copy = dir.path().join("copy");
    let salvaged = ok(memdag(&store).arg("salvage").arg(&store).arg(&copy));
    assert!(salvaged.contains("lost records ("), "{salvaged}");
    let lost: usize = salvaged
        .split("lost records (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap()
        .parse()
        .unwrap();
    let copied = ok(memdag(&copy).arg("verify"));
    assert!(
        copied.contains(&format!("{} records", 400 - lost)),
        "{copied}\n{salvaged}"
    );
    // The source is only read: it is as damaged as before.
    assert!(!memdag(&store)
        .arg("verify")
        .output()
        .unwrap()
        .status
        .success());
    // A salvage never writes over a store.
    let again = memdag(&store)
        .arg("salvage")
        .arg(&store)
        .arg(&copy)
        .output()
        .unwrap();
    assert!(!again.status.success());
}
