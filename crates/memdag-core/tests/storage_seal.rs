//! Encryption at rest (see `memdag_core::seal`): an encrypted store round-trips, no stored byte
//! shows its content, a wrong, missing or unexpected key is `LOCKED` and loads nothing, a value
//! altered or moved to another key is `CORRUPT_DATA` naming the key, and `set_cipher`
//! encrypts, re-keys and decrypts a store crash-safely. Every open here also runs through
//! `Store::load_owned` (sealed values opened in place), which must agree with it.

mod common;

use common::{dump, same_open, turn, v1_image};
use memdag_core::keys::HEAD_KEY;
use memdag_core::seal::{is_sealed, OVERHEAD};
use memdag_core::{Change, Cipher, Error, NewTurn, Store};
use std::collections::BTreeMap;

type Kv = BTreeMap<String, Vec<u8>>;

const KEY: [u8; 32] = [7; 32];
const OTHER_KEY: [u8; 32] = [9; 32];

/// Strings that must never appear in a stored byte of an encrypted store.
const SECRETS: [&str; 6] = [
    "quokka-sapphire-9431",
    "narwhal-thread",
    "axolotl-user",
    "id-pangolin-77",
    "blob-of-ocelot-secrets",
    "tag-marmoset",
];

fn cipher(key: &[u8; 32]) -> Cipher {
    Cipher::new(key).expect("32 bytes")
}

fn write(kv: &mut Kv, changes: Vec<Change>) {
    for c in changes {
        match c.value {
            Some(v) => kv.insert(c.key, v),
            None => kv.remove(&c.key),
        };
    }
}

/// Opens `kv` with `key`, borrowing the entries; every open is checked against
/// `Store::load_owned` over a copy of them (sealed values opened in place): the same store, or
/// the same error.
fn load(kv: &Kv, key: Option<&[u8; 32]>) -> Result<Store, Error> {
    let borrowed = Store::load_with_cipher(
        kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        key.map(cipher),
    );
    let owned = Store::load_owned(
        kv.clone().into_iter().collect(),
        key.map(cipher),
        None::<Vec<String>>,
    );
    same_open(&borrowed, &owned);
    borrowed
}

fn secret_turn(i: usize) -> NewTurn {
    let mut t = turn(
        &format!("{}-{i}", SECRETS[3]),
        SECRETS[1],
        &format!("my bank password is {} number {i}", SECRETS[0]),
        &[],
    );
    t.user = SECRETS[2].into();
    t.tags = vec![SECRETS[5].into()];
    t.embedding = Some((0..8).map(|d| ((i * 7 + d) % 5) as f32 + 0.5).collect());
    t
}

/// An encrypted store of `n` turns and a blob, flushed after every add (so segments merge).
fn encrypted_store(kv: &mut Kv, n: usize) -> Store {
    let mut s = load(kv, Some(&KEY)).expect("an empty store opens with a key");
    assert!(s.is_encrypted());
    for i in 0..n {
        s.add_turn(secret_turn(i)).unwrap();
        if i == 3 {
            s.put_blob(format!("{} tool output", SECRETS[4])).unwrap();
        }
        write(kv, s.take_changes().unwrap());
    }
    s
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn assert_no_plaintext(kv: &Kv) {
    for (k, v) in kv {
        assert!(is_sealed(v), "{k} is not sealed");
        for secret in SECRETS {
            assert!(!k.contains(secret), "key {k} shows {secret}");
            assert!(
                !contains(v, secret.as_bytes()),
                "value of {k} shows {secret}"
            );
        }
    }
}

#[test]
fn an_encrypted_store_round_trips_and_no_stored_byte_shows_its_content() {
    let mut kv = Kv::new();
    let store = encrypted_store(&mut kv, 40);
    assert!(kv.keys().any(|k| k.starts_with("seg/")) && kv.contains_key(HEAD_KEY));
    assert_no_plaintext(&kv);
    let again = load(&kv, Some(&KEY)).unwrap();
    assert!(again.is_encrypted());
    assert_eq!(dump(&again), dump(&store));
    assert!(again.get(&format!("{}-5", SECRETS[3])).is_some());
    // The same store unencrypted does show the strings: the check above is not vacuous.
    let mut plain = Kv::new();
    let mut p = Store::new();
    p.add_turn(secret_turn(0)).unwrap();
    write(&mut plain, p.take_changes().unwrap());
    assert!(plain.values().any(|v| contains(v, SECRETS[0].as_bytes())));
}

#[test]
fn a_wrong_or_missing_key_is_locked_and_loads_nothing() {
    let mut kv = Kv::new();
    encrypted_store(&mut kv, 3);
    for key in [None, Some(&OTHER_KEY)] {
        let e = load(&kv, key).unwrap_err();
        assert_eq!(e.code(), "LOCKED", "{e}");
        assert_eq!(e.key(), Some(HEAD_KEY));
        assert_eq!(e.kind(), memdag_core::ErrorKind::Locked);
    }
    let head = &kv[HEAD_KEY];
    assert_eq!(Store::keys_to_read(head).unwrap_err().code(), "LOCKED");
    let wrong = cipher(&OTHER_KEY);
    assert_eq!(
        Store::keys_to_read_with_cipher(head, Some(&wrong))
            .unwrap_err()
            .code(),
        "LOCKED"
    );
    let named = Store::keys_to_read_with_cipher(head, Some(&cipher(&KEY))).unwrap();
    let parts: Vec<&String> = kv.keys().filter(|k| k.starts_with("seg/")).collect();
    assert_eq!(named.iter().collect::<Vec<_>>(), parts);
}

#[test]
fn a_key_for_a_plain_store_is_locked() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    s.add_turn(turn("a", "t", "plain", &[])).unwrap();
    write(&mut kv, s.take_changes().unwrap());
    let e = load(&kv, Some(&KEY)).unwrap_err();
    assert_eq!((e.code(), e.key()), ("LOCKED", Some(HEAD_KEY)), "{e}");
    assert_eq!(
        Store::keys_to_read_with_cipher(&kv[HEAD_KEY], None).unwrap(),
        Store::keys_to_read(&kv[HEAD_KEY]).unwrap()
    );
    // A v1 store too.
    let v1: Kv = v1_image(&s).into_iter().collect();
    assert_eq!(load(&v1, Some(&KEY)).unwrap_err().code(), "LOCKED");
    assert_eq!(load(&v1, None).unwrap().len(), 1);
}

#[test]
fn a_value_moved_to_another_key_or_altered_is_corrupt_data_naming_it() {
    let mut kv = Kv::new();
    encrypted_store(&mut kv, 3);
    let parts: Vec<String> = kv
        .keys()
        .filter(|k| k.starts_with("seg/"))
        .cloned()
        .collect();
    assert!(parts.len() >= 2, "{parts:?}");
    let (from, to) = (&parts[0], &parts[1]);
    let mut moved = kv.clone();
    let value = moved[from].clone();
    moved.insert(to.clone(), value);
    let e = load(&moved, Some(&KEY)).unwrap_err();
    assert_eq!(
        (e.code(), e.key()),
        ("CORRUPT_DATA", Some(to.as_str())),
        "{e}"
    );
    // Every byte of a sealed value is covered: header, nonce, ciphertext and tag.
    let len = kv[to].len();
    for at in [0, 4, 5, 13, 40, len / 2, len - 1] {
        let mut altered = kv.clone();
        altered.get_mut(to).unwrap()[at] ^= 1;
        let e = load(&altered, Some(&KEY)).unwrap_err();
        assert_eq!(e.key(), Some(to.as_str()), "byte {at}: {e}");
        // The seal version and the key check too: the commit naming the part opened with this
        // key, so a part that claims another key or version was altered, not locked.
        assert_eq!(e.code(), "CORRUPT_DATA", "byte {at}: {e}");
    }
    let mut cut = kv.clone();
    cut.get_mut(to).unwrap().truncate(OVERHEAD - 1);
    assert_eq!(load(&cut, Some(&KEY)).unwrap_err().code(), "CORRUPT_DATA");
    // A plain part in an encrypted store is damage, not a key problem.
    let mut mixed = kv.clone();
    mixed.insert(to.clone(), b"MDAG plain".to_vec());
    assert_eq!(load(&mixed, Some(&KEY)).unwrap_err().code(), "CORRUPT_DATA");
}

#[test]
fn the_cipher_seals_deterministically_and_binds_the_key() {
    let c = cipher(&KEY);
    let a = c.seal("seg/0000000000000001/0", b"value");
    assert_eq!(a.len(), 5 + OVERHEAD);
    assert!(is_sealed(&a) && !is_sealed(b"MDAG"));
    assert_eq!(a, c.seal("seg/0000000000000001/0", b"value"));
    assert_ne!(a, c.seal("seg/0000000000000001/1", b"value"));
    assert_ne!(
        a,
        cipher(&OTHER_KEY).seal("seg/0000000000000001/0", b"value")
    );
    assert_eq!(c.open("seg/0000000000000001/0", &a).unwrap(), b"value");
    let e = c.open("seg/0000000000000001/1", &a).unwrap_err();
    assert_eq!(e.code(), "CORRUPT_DATA");
    assert_eq!(e.key(), Some("seg/0000000000000001/1"));
    let e = cipher(&OTHER_KEY)
        .open("seg/0000000000000001/0", &a)
        .unwrap_err();
    assert_eq!(e.code(), "LOCKED");
    assert_eq!(c.open("head", b"MDAG").unwrap_err().code(), "LOCKED");
    // Seal v2 is a host's AES-GCM (tests/storage_seal_host.rs); 3 is from the future.
    let mut future = a.clone();
    future[4] = 3;
    assert_eq!(
        c.open("seg/0000000000000001/0", &future)
            .unwrap_err()
            .code(),
        "UNSUPPORTED_VERSION"
    );
    for bad in [&[0u8; 31][..], &[0u8; 33][..], &[][..]] {
        assert_eq!(Cipher::new(bad).unwrap_err().code(), "INVALID_INPUT");
    }
    assert_eq!(format!("{c:?}"), "Cipher { .. }");
}

#[test]
fn sealed_parts_fit_the_part_size() {
    let mut kv = Kv::new();
    let mut s = load(&kv, Some(&KEY)).unwrap();
    s.set_part_bytes(2048);
    for i in 0..30 {
        s.add_turn(secret_turn(i)).unwrap();
    }
    write(&mut kv, s.take_changes().unwrap());
    assert!(kv.len() > 3, "several parts");
    for (k, v) in &kv {
        assert!(v.len() <= 2048, "{k}: {} bytes", v.len());
    }
    assert_eq!(load(&kv, Some(&KEY)).unwrap().len(), 30);
}

#[test]
fn snapshots_and_requeued_change_sets_are_sealed() {
    let mut kv = Kv::new();
    let mut s = encrypted_store(&mut kv, 5);
    let snapshot: Kv = s.snapshot().unwrap().into_iter().collect();
    assert_no_plaintext(&snapshot);
    assert_eq!(load(&snapshot, Some(&KEY)).unwrap().len(), 5);
    assert_eq!(load(&snapshot, None).unwrap_err().code(), "LOCKED");
    s.add_turn(secret_turn(5)).unwrap();
    let lost = s.take_changes().unwrap();
    s.requeue(&lost);
    write(&mut kv, s.take_changes().unwrap());
    assert_no_plaintext(&kv);
    assert_eq!(dump(&load(&kv, Some(&KEY)).unwrap()), dump(&s));
}

#[test]
fn set_cipher_encrypts_rekeys_and_decrypts_a_store_crash_safely() {
    let mut kv = Kv::new();
    let mut s = Store::new();
    for i in 0..10 {
        s.add_turn(secret_turn(i)).unwrap();
        write(&mut kv, s.take_changes().unwrap());
    }
    assert!(!s.is_encrypted());
    let want = dump(&s);
    // Encrypt. A crash before the commit (every put but `head` written) leaves the old store.
    s.set_cipher(Some(cipher(&KEY)));
    assert!(s.is_encrypted());
    let changes = s.take_changes().unwrap();
    let mut crashed = kv.clone();
    for c in changes
        .iter()
        .filter(|c| c.key != HEAD_KEY && c.value.is_some())
    {
        crashed.insert(c.key.clone(), c.value.clone().unwrap());
    }
    assert_eq!(dump(&load(&crashed, None).unwrap()), want);
    write(&mut kv, changes);
    assert_no_plaintext(&kv);
    assert_eq!(dump(&load(&kv, Some(&KEY)).unwrap()), want);
    // Re-key: the old key no longer opens it.
    s.set_cipher(Some(cipher(&OTHER_KEY)));
    write(&mut kv, s.take_changes().unwrap());
    assert_eq!(load(&kv, Some(&KEY)).unwrap_err().code(), "LOCKED");
    let mut again = load(&kv, Some(&OTHER_KEY)).unwrap();
    assert_eq!(dump(&again), want);
    // Decrypt.
    again.set_cipher(None);
    write(&mut kv, again.take_changes().unwrap());
    assert!(kv.values().all(|v| !is_sealed(v)));
    assert_eq!(dump(&load(&kv, None).unwrap()), want);
}

#[test]
fn orphans_sealed_with_another_key_are_never_opened() {
    let mut kv = Kv::new();
    let mut s = encrypted_store(&mut kv, 2);
    s.set_cipher(Some(cipher(&OTHER_KEY)));
    let changes = s.take_changes().unwrap();
    // The rewrite's parts are stored, its commit is not: they are orphans under another key.
    for c in changes
        .iter()
        .filter(|c| c.key != HEAD_KEY && c.value.is_some())
    {
        kv.insert(c.key.clone(), c.value.clone().unwrap());
    }
    let mut reopened = load(&kv, Some(&KEY)).unwrap();
    assert_eq!(reopened.len(), 2);
    assert!(reopened.orphans().count() > 0);
    write(&mut kv, reopened.take_changes().unwrap());
    assert_eq!(reopened.orphans().count(), 0);
    assert_eq!(load(&kv, Some(&KEY)).unwrap().len(), 2);
}

/// Every seal version keeps opening: `store-v2-seal-v1.hex` is the format-v2 fixture rewritten
/// sealed with the key `[7; 32]` (seal version 1). A missing fixture is written with
/// `MEMDAG_WRITE_FIXTURES=1 cargo test -p memdag-core --test storage_seal`; an existing one is
/// never rewritten.
#[test]
fn the_sealed_fixture_still_opens() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let read = |name: &str| -> Kv {
        std::fs::read_to_string(dir.join(name))
            .expect("fixture")
            .lines()
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap();
                let bytes = (0..v.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&v[i..i + 2], 16).unwrap())
                    .collect();
                (k.to_string(), bytes)
            })
            .collect()
    };
    let sealed = dir.join("store-v2-seal-v1.hex");
    if std::env::var_os("MEMDAG_WRITE_FIXTURES").is_some() && !sealed.exists() {
        let mut store = load(&read("store-v2.hex"), None).unwrap();
        store.set_cipher(Some(cipher(&KEY)));
        let image: Kv = store
            .take_changes()
            .unwrap()
            .into_iter()
            .filter_map(|c| c.value.map(|v| (c.key, v)))
            .collect();
        let text: String = image
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k} {}\n",
                    v.iter().map(|b| format!("{b:02x}")).collect::<String>()
                )
            })
            .collect();
        std::fs::write(&sealed, text).unwrap();
    }
    let kv = read("store-v2-seal-v1.hex");
    assert!(kv.values().all(|v| is_sealed(v) && v[4] == 1));
    let store = load(&kv, Some(&KEY)).unwrap();
    let plain = load(&read("store-v2.hex"), None).unwrap();
    assert_eq!(dump(&store), dump(&plain));
    assert_eq!(store.get("b").unwrap().input, "记忆系统 works");
    assert_eq!(load(&kv, None).unwrap_err().code(), "LOCKED");
}
