//! Seal v2, sealed by a host (see `memdag_core::cipher` and `seal`): a store whose host seals
//! with its own AES-GCM round-trips through the host and through the core alone, mixes with
//! seal v1, and keeps every refusal of the core's own sealing: a wrong key is `LOCKED`, an
//! altered or moved value `CORRUPT_DATA` naming its key, and a plain value where a sealed one
//! belongs is refused unless the host opened it. The host here is RustCrypto's AES-GCM with
//! [`Cipher::host_key`], as the JS package's is WebCrypto's (`tests/node/encryption.test.mjs`);
//! `tests/data/cross-face/sealed-v2.hex` is a store that package wrote.

mod common;

use aes_gcm::aead::generic_array::GenericArray;
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::Aes256Gcm;
use common::{dump, same_open, turn};
use memdag_core::keys::HEAD_KEY;
use memdag_core::seal::{is_sealed, HostKey, BOUND_LEN, NONCE_V2, OVERHEAD_V2, SEAL_V1, SEAL_V2};
use memdag_core::{Change, Cipher, Error, Store};
use std::cell::Cell;
use std::collections::BTreeMap;

type Kv = BTreeMap<String, Vec<u8>>;

const KEY: [u8; 32] = [7; 32];
const OTHER_KEY: [u8; 32] = [9; 32];
const SECRET: &str = "the safe opens with 4471-capybara";

fn cipher(key: &[u8; 32]) -> Cipher {
    Cipher::new(key).expect("32 bytes")
}

/// A host with its own AES-GCM, as `pkg/seal.js` is: seals every value of a change set (v2),
/// opens what it can before an open.
struct Host {
    key: HostKey,
    aes: Aes256Gcm,
    /// Nonces: a counter here, so a run is repeatable; a real host draws them at random.
    next: Cell<u64>,
}

impl Host {
    fn new(master: &[u8; 32]) -> Host {
        let key = cipher(master).host_key();
        let aes = Aes256Gcm::new(GenericArray::from_slice(&key.key));
        Host {
            key,
            aes,
            next: Cell::new(1),
        }
    }

    fn aad(&self, key: &str) -> Vec<u8> {
        [&self.key.header[..], key.as_bytes()].concat()
    }

    fn seal(&self, key: &str, value: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_V2];
        nonce[..8].copy_from_slice(&self.next.get().to_le_bytes());
        self.next.set(self.next.get() + 1);
        let mut body = value.to_vec();
        let tag = self
            .aes
            .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &self.aad(key), &mut body)
            .unwrap();
        [&self.key.header[..], &nonce, &body, &tag].concat()
    }

    /// The plain value, when `value` is v2 under this key and its tag checks.
    fn open(&self, key: &str, value: &[u8]) -> Option<Vec<u8>> {
        if value.len() < OVERHEAD_V2 || value[..BOUND_LEN] != self.key.header {
            return None;
        }
        let (nonce, rest) = value[BOUND_LEN..].split_at(NONCE_V2);
        let (body, tag) = rest.split_at(rest.len() - 16);
        let mut plain = body.to_vec();
        self.aes
            .decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                &self.aad(key),
                &mut plain,
                GenericArray::from_slice(tag),
            )
            .ok()?;
        Some(plain)
    }

    /// Writes a change set, each value sealed.
    fn write(&self, kv: &mut Kv, changes: Vec<Change>) {
        for c in changes {
            match c.value {
                Some(v) => {
                    assert!(
                        !is_sealed(&v),
                        "{}: a host-sealed store writes plain",
                        c.key
                    );
                    kv.insert(c.key.clone(), self.seal(&c.key, &v))
                }
                None => kv.remove(&c.key),
            };
        }
    }

    /// Opens a store as the JS package does: what the host can open, opened and named; the
    /// rest handed over as stored.
    /// Checked against `Store::load_owned` over the same entries and keys opened.
    fn load(&self, kv: &Kv, master: &[u8; 32]) -> Result<Store, Error> {
        let (entries, opened) = self.open_all(kv);
        let owned = Store::load_owned(entries.clone(), Some(cipher(master)), Some(&opened));
        let borrowed = Store::load_host_sealed(entries, cipher(master), opened);
        same_open(&borrowed, &owned);
        borrowed
    }

    fn open_all(&self, kv: &Kv) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
        let mut opened = Vec::new();
        let entries = kv
            .iter()
            .map(|(k, v)| match self.open(k, v) {
                Some(plain) => {
                    opened.push(k.clone());
                    (k.clone(), plain)
                }
                None => (k.clone(), v.clone()),
            })
            .collect();
        (entries, opened)
    }
}

fn core_load(kv: &Kv, key: Option<&[u8; 32]>) -> Result<Store, Error> {
    Store::load_with_cipher(
        kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        key.map(cipher),
    )
}

fn secret_turn(i: usize) -> memdag_core::NewTurn {
    let mut t = turn(&format!("t{i}"), "vault", &format!("{SECRET} {i}"), &[]);
    t.embedding = Some((0..8).map(|d| ((i * 5 + d) % 7) as f32 + 0.25).collect());
    t
}

/// A store of `n` turns its host sealed, flushed after every add (so segments merge).
fn host_store(kv: &mut Kv, host: &Host, n: usize) -> Store {
    let mut s = host.load(kv, &KEY).expect("an empty store opens");
    assert!(s.is_encrypted() && s.host_seals());
    for i in 0..n {
        s.add_turn(secret_turn(i)).unwrap();
        host.write(kv, s.take_changes().unwrap());
    }
    s
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_host_sealed_store_opens_through_its_host_and_through_the_core_alone() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    let store = host_store(&mut kv, &host, 12);
    assert!(kv.len() > 2);
    for (k, v) in &kv {
        assert!(is_sealed(v) && v[4] == SEAL_V2, "{k}");
        assert!(!contains(v, SECRET.as_bytes()), "{k} shows the secret");
    }
    let through_host = host.load(&kv, &KEY).unwrap();
    assert!(through_host.host_seals());
    assert_eq!(dump(&through_host), dump(&store));
    // The CLI's way: no host cipher, the core opens v2 in software.
    let core_only = core_load(&kv, Some(&KEY)).unwrap();
    assert!(!core_only.host_seals());
    assert_eq!(dump(&core_only), dump(&store));
    assert_eq!(core_only.get("t3").unwrap().input, format!("{SECRET} 3"));
    // And the v2 key opens nothing sealed v1, nor the reverse.
    let v1 = cipher(&KEY).seal("head", b"MDAG value");
    assert!(host.open("head", &v1).is_none());
    assert_eq!(
        cipher(&KEY).open("head", &host.seal("head", b"v")).unwrap(),
        b"v"
    );
}

#[test]
fn the_host_key_is_a_subkey_with_the_shared_key_check() {
    let c = cipher(&KEY);
    let h = c.host_key();
    assert_eq!(&h.header[..4], b"MDAS");
    assert_eq!(h.header[4], SEAL_V2);
    let v1 = c.seal("head", b"x");
    assert_eq!(v1[4], SEAL_V1);
    assert_eq!(
        h.header[5..],
        v1[5..BOUND_LEN],
        "one key check for both versions"
    );
    assert_ne!(h.key, KEY, "a subkey, not the master key");
    let other = cipher(&OTHER_KEY).host_key();
    assert_ne!(other.key, h.key);
    assert_ne!(other.header, h.header);
    assert_eq!(format!("{h:?}"), "HostKey { .. }");
}

#[test]
fn a_wrong_or_missing_key_is_locked_and_a_moved_or_altered_value_corrupt() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    host_store(&mut kv, &host, 6);
    // Another key: its host opens nothing, and the core says locked, naming head.
    for e in [
        Host::new(&OTHER_KEY).load(&kv, &OTHER_KEY).unwrap_err(),
        core_load(&kv, Some(&OTHER_KEY)).unwrap_err(),
        core_load(&kv, None).unwrap_err(),
    ] {
        assert_eq!((e.code(), e.key()), ("LOCKED", Some(HEAD_KEY)), "{e}");
    }
    let parts: Vec<String> = kv
        .keys()
        .filter(|k| k.starts_with("seg/"))
        .cloned()
        .collect();
    assert!(parts.len() >= 2, "{parts:?}");
    let (from, to) = (&parts[0], &parts[parts.len() - 1]);
    let mut moved = kv.clone();
    moved.insert(to.clone(), kv[from].clone());
    for e in [
        host.load(&moved, &KEY).unwrap_err(),
        core_load(&moved, Some(&KEY)).unwrap_err(),
    ] {
        assert_eq!(
            (e.code(), e.key()),
            ("CORRUPT_DATA", Some(to.as_str())),
            "{e}"
        );
    }
    // Every byte is covered: magic, version, key check, nonce, ciphertext and tag.
    let len = kv[to].len();
    for at in [0, 4, 5, 12, 13, 24, 25, len / 2, len - 16, len - 1] {
        let mut altered = kv.clone();
        altered.get_mut(to).unwrap()[at] ^= 1;
        assert!(host.open(to, &altered[to]).is_none());
        for e in [
            host.load(&altered, &KEY).unwrap_err(),
            core_load(&altered, Some(&KEY)).unwrap_err(),
        ] {
            assert_eq!(
                (e.code(), e.key()),
                ("CORRUPT_DATA", Some(to.as_str())),
                "byte {at}: {e}"
            );
        }
    }
    let mut cut = kv.clone();
    cut.get_mut(to).unwrap().truncate(OVERHEAD_V2 - 1);
    assert_eq!(host.load(&cut, &KEY).unwrap_err().code(), "CORRUPT_DATA");
    // An altered head is not read: the open falls back to the commit the newest segment
    // carries, and says why.
    let mut bad_head = kv.clone();
    let at = bad_head[HEAD_KEY].len() / 2;
    bad_head.get_mut(HEAD_KEY).unwrap()[at] ^= 1;
    let fell_back = host.load(&bad_head, &KEY).unwrap();
    assert_eq!(dump(&fell_back), dump(&host.load(&kv, &KEY).unwrap()));
    let w = &fell_back.load_warnings()[0];
    assert_eq!((w.code, w.key.as_str()), ("COMMIT_RECOVERED", HEAD_KEY));
    assert!(w.message.contains("authentication failed"), "{}", w.message);
}

#[test]
fn a_plain_value_is_refused_unless_the_host_opened_it() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    host_store(&mut kv, &host, 6);
    let (entries, opened) = host.open_all(&kv);
    let plain: Kv = entries.into_iter().collect();
    let part = opened
        .iter()
        .find(|k| k.starts_with("seg/"))
        .unwrap()
        .clone();
    // The host names every key it opened: the store opens.
    assert_eq!(
        Store::load_host_sealed(&plain, cipher(&KEY), &opened)
            .unwrap()
            .len(),
        6
    );
    // A plain value the host did not name (it was stored plain): refused, naming its key.
    let unnamed: Vec<&String> = opened.iter().filter(|k| **k != part).collect();
    let e = Store::load_host_sealed(&plain, cipher(&KEY), unnamed).unwrap_err();
    assert_eq!(
        (e.code(), e.key()),
        ("CORRUPT_DATA", Some(part.as_str())),
        "{e}"
    );
    // The same for a plain value swapped into the stored store: the host cannot open it, so it
    // reaches the core as stored, and the core refuses it.
    let mut swapped = kv.clone();
    swapped.insert(part.clone(), plain[&part].clone());
    let e = host.load(&swapped, &KEY).unwrap_err();
    assert_eq!(
        (e.code(), e.key()),
        ("CORRUPT_DATA", Some(part.as_str())),
        "{e}"
    );
    // A plain head (here an older commit of the same store, stored plain) is not read: the
    // open falls back to the commit the newest segment carries, as for a store the core seals.
    let mut s = host.load(&kv, &KEY).unwrap();
    let want = dump(&s);
    s.add_turn(secret_turn(6)).unwrap();
    let mut newer = kv.clone();
    host.write(&mut newer, s.take_changes().unwrap());
    newer.insert(HEAD_KEY.into(), plain[HEAD_KEY].clone());
    let opened = host.load(&newer, &KEY).unwrap();
    assert_eq!(
        opened.len(),
        7,
        "the plain head's older commit was not taken"
    );
    let w = &opened.load_warnings()[0];
    assert_eq!((w.code, w.key.as_str()), ("COMMIT_RECOVERED", HEAD_KEY));
    assert!(w.message.contains("not encrypted"), "{}", w.message);
    // With no segment to fall back on, it is locked, naming head.
    let only_head: Kv = [(HEAD_KEY.to_string(), plain[HEAD_KEY].clone())].into();
    let e = host.load(&only_head, &KEY).unwrap_err();
    assert_eq!((e.code(), e.key()), ("LOCKED", Some(HEAD_KEY)), "{e}");
    assert_ne!(want, dump(&opened));
    // A store written plain is not a host-sealed one: locked with a key, whoever opens it.
    let mut plain_store = Kv::new();
    let mut p = Store::new();
    p.add_turn(secret_turn(0)).unwrap();
    for c in p.take_changes().unwrap() {
        plain_store.insert(c.key, c.value.unwrap());
    }
    assert_eq!(host.load(&plain_store, &KEY).unwrap_err().code(), "LOCKED");
}

#[test]
fn stores_mixing_v1_and_v2_open_both_ways() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    // The core seals the first turns (v1), as the CLI does ...
    let mut s = core_load(&kv, Some(&KEY)).unwrap();
    for i in 0..4 {
        s.add_turn(secret_turn(i)).unwrap();
        for c in s.take_changes().unwrap() {
            match c.value {
                Some(v) => kv.insert(c.key, v),
                None => kv.remove(&c.key),
            };
        }
    }
    // ... then a host opens it, hands the v1 values over sealed, and seals what it adds (v2).
    let (_, opened) = host.open_all(&kv);
    assert!(opened.is_empty(), "no v2 value yet");
    let mut h = host.load(&kv, &KEY).unwrap();
    assert!(h.host_seals());
    h.add_turn(secret_turn(4)).unwrap();
    host.write(&mut kv, h.take_changes().unwrap());
    let versions: Vec<u8> = kv.values().map(|v| v[4]).collect();
    assert!(
        versions.contains(&SEAL_V1) && versions.contains(&SEAL_V2),
        "{versions:?}"
    );
    let want = dump(&h);
    assert_eq!(dump(&host.load(&kv, &KEY).unwrap()), want);
    let mut back = core_load(&kv, Some(&KEY)).unwrap();
    assert_eq!(dump(&back), want);
    // The core writes v1 into it again.
    back.add_turn(secret_turn(5)).unwrap();
    for c in back.take_changes().unwrap() {
        match c.value {
            Some(v) => {
                assert_eq!(v[4], SEAL_V1, "{}", c.key);
                kv.insert(c.key, v)
            }
            None => kv.remove(&c.key),
        };
    }
    assert_eq!(host.load(&kv, &KEY).unwrap().len(), 6);
    assert_eq!(
        core_load(&kv, Some(&OTHER_KEY)).unwrap_err().code(),
        "LOCKED"
    );
}

#[test]
fn snapshots_stay_sealed_by_the_core_and_set_cipher_takes_the_sealing_back() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    let mut s = host_store(&mut kv, &host, 3);
    let snapshot: Kv = s.snapshot().unwrap().into_iter().collect();
    assert!(snapshot.values().all(|v| is_sealed(v) && v[4] == SEAL_V1));
    assert_eq!(core_load(&snapshot, Some(&KEY)).unwrap().len(), 3);
    s.set_cipher(Some(cipher(&KEY)));
    assert!(!s.host_seals() && s.is_encrypted());
    let changes = s.take_changes().unwrap();
    assert!(changes
        .iter()
        .filter_map(|c| c.value.as_ref())
        .all(|v| v[4] == SEAL_V1));
}

#[test]
fn verify_and_salvage_of_a_host_sealed_store() {
    let host = Host::new(&KEY);
    let mut kv = Kv::new();
    host_store(&mut kv, &host, 20);
    let parts: Vec<String> = kv
        .keys()
        .filter(|k| k.starts_with("seg/"))
        .cloned()
        .collect();
    let bad = parts[0].clone();
    let len = kv[&bad].len();
    kv.get_mut(&bad).unwrap()[len / 2] ^= 1;
    let (entries, opened) = host.open_all(&kv);
    assert!(!opened.contains(&bad));
    let verified = Store::verify_host_sealed(entries.clone(), cipher(&KEY), &opened).unwrap();
    assert!(!verified.intact);
    assert!(
        verified.damage.damaged.iter().any(|d| d.key == bad),
        "{:?}",
        verified.damage
    );
    let (salvaged, damage) =
        Store::load_salvaging_host_sealed(entries.clone(), cipher(&KEY), &opened).unwrap();
    assert!(salvaged.host_seals());
    assert_eq!(damage.damaged.len(), verified.damage.damaged.len());
    assert!(salvaged.len() < 20, "{} records salvaged", salvaged.len());
    // A sealed part that fails its tag is lost whole: no block of it can be trusted.
    assert!(
        damage.damaged.iter().all(|d| d.block.is_none()),
        "{damage:?}"
    );
    // A plain value the host did not open is damage too, not an intact part.
    let unnamed: Vec<&String> = opened
        .iter()
        .filter(|k| k.starts_with("seg/"))
        .skip(1)
        .collect();
    let plain_unnamed = Store::verify_host_sealed(entries.clone(), cipher(&KEY), unnamed).unwrap();
    assert!(plain_unnamed.damage.damaged.len() > verified.damage.damaged.len());
}

#[test]
fn the_cipher_reads_v2_and_refuses_what_it_cannot_read() {
    let host = Host::new(&KEY);
    let c = cipher(&KEY);
    let key = "seg/0000000000000001/0";
    let sealed = host.seal(key, b"MDAG value");
    assert_eq!(sealed.len(), 10 + OVERHEAD_V2);
    assert_eq!(c.open(key, &sealed).unwrap(), b"MDAG value");
    let e = c.open("seg/0000000000000001/1", &sealed).unwrap_err();
    assert_eq!(
        (e.code(), e.key()),
        ("CORRUPT_DATA", Some("seg/0000000000000001/1"))
    );
    assert_eq!(
        cipher(&OTHER_KEY).open(key, &sealed).unwrap_err().code(),
        "LOCKED"
    );
    // Read as v1 (version byte changed), it fails: the version is bound too.
    let mut as_v1 = sealed.clone();
    as_v1[4] = SEAL_V1;
    assert_eq!(c.open(key, &as_v1).unwrap_err().code(), "CORRUPT_DATA");
    let mut future = sealed.clone();
    future[4] = 3;
    assert_eq!(
        c.open(key, &future).unwrap_err().code(),
        "UNSUPPORTED_VERSION"
    );
    assert_eq!(
        c.open(key, &sealed[..OVERHEAD_V2 - 1]).unwrap_err().code(),
        "CORRUPT_DATA"
    );
    assert_eq!(c.open(key, b"MDAS").unwrap_err().code(), "CORRUPT_DATA");
    // Random nonces: the same value sealed twice differs, and both open.
    let again = host.seal(key, b"MDAG value");
    assert_ne!(again, sealed);
    assert_eq!(c.open(key, &again).unwrap(), b"MDAG value");
}

/// A store the JS package wrote through WebCrypto (`tests/node/encryption-host.test.mjs`, key
/// `[0x42; 32]`, the turns of `tests/data/cross-face/turns.jsonl`): the core opens it alone.
#[test]
fn a_store_webcrypto_sealed_opens_in_the_core() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/cross-face/sealed-v2.mdagexp");
    let bytes = std::fs::read(path).expect("the committed fixture");
    let entries = memdag_core::export::snapshot::decode_snapshot(&bytes).unwrap();
    assert!(entries.iter().all(|(_, v)| is_sealed(v) && v[4] == SEAL_V2));
    let store = Store::load_with_cipher(entries.clone(), Some(cipher(&[0x42; 32]))).unwrap();
    assert_eq!(store.len(), 4);
    assert_eq!(store.get("c2").unwrap().input, "继续：写文档 ~~~ fences");
    assert_eq!(store.get("c3").unwrap().thread, "other");
    let e = Store::load_with_cipher(entries, Some(cipher(&KEY))).unwrap_err();
    assert_eq!(e.code(), "LOCKED");
}
