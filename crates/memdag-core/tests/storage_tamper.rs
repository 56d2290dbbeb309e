//! The stored form under tampering: a lost, emptied, torn, rolled-back or foreign `head`, a stray
//! or foreign segment, with and without encryption. Whatever is done to the keys, an open
//! either gives back every record that was committed or fails with a typed error naming a key,
//! and no write after it deletes a committed record or writes plaintext into an encrypted store.

mod common;

use common::{apply, dump, turn};
use memdag_core::keys::{parse_segment_key, segment_key, HEAD_KEY, MAX_GENERATION};
use memdag_core::seal::{is_sealed, Cipher};
use memdag_core::storage::FANOUT;
use memdag_core::Store;
use proptest::prelude::*;
use std::collections::BTreeMap;

type Kv = BTreeMap<String, Vec<u8>>;

const KEY: [u8; 32] = [9; 32];

fn cipher() -> Cipher {
    Cipher::new(&KEY).unwrap()
}

/// Opens `kv` borrowing its values and taking a copy (see [`common::compared_open`]).
fn load(kv: &Kv, key: bool) -> Result<Store, memdag_core::Error> {
    common::compared_open(kv, || key.then(cipher))
}

/// A store of `n` turns written one flush each (so segments merge), and its keys.
fn grown(n: usize, key: bool) -> (Store, Kv) {
    grown_with(n, key, "secret turn")
}

/// [`grown`] with turns saying `text`.
fn grown_with(n: usize, key: bool, text: &str) -> (Store, Kv) {
    let mut kv = Kv::new();
    let mut s = load(&kv, key).unwrap();
    for i in 0..n {
        let parents: Vec<String> = (i > 0).then(|| format!("t{}", i - 1)).into_iter().collect();
        let p: Vec<&str> = parents.iter().map(String::as_str).collect();
        s.add_turn(turn(&format!("t{i}"), "main", &format!("{text} {i}"), &p))
            .unwrap();
        apply(&mut kv, &mut s);
    }
    (s, kv)
}

fn ids(s: &Store) -> Vec<String> {
    let mut ids: Vec<String> = s.iter().map(|r| r.id.clone()).collect();
    ids.sort();
    ids
}

fn newest_segment(kv: &Kv) -> u64 {
    kv.keys()
        .filter_map(|k| parse_segment_key(k))
        .map(|(g, _)| g)
        .max()
        .unwrap()
}

#[test]
fn a_missing_emptied_or_torn_head_opens_the_newest_commit_and_loses_nothing() {
    for key in [false, true] {
        let (s, kv) = grown(2 * FANOUT + 3, key);
        let head = kv[HEAD_KEY].clone();
        let breaks: Vec<(&str, Option<Vec<u8>>)> = vec![
            ("missing", None),
            ("empty", Some(Vec::new())),
            ("truncated", Some(head[..head.len() / 2].to_vec())),
            ("flipped", {
                let mut h = head.clone();
                let at = h.len() - 3;
                h[at] ^= 0x40;
                Some(h)
            }),
        ];
        for (how, value) in breaks {
            let mut broken = kv.clone();
            match value {
                None => broken.remove(HEAD_KEY),
                Some(v) => broken.insert(HEAD_KEY.into(), v),
            };
            let mut opened = load(&broken, key).unwrap_or_else(|e| panic!("{how}: {e}"));
            assert_eq!(dump(&opened), dump(&s), "{how}, key {key}");
            let warning = &opened.load_warnings()[0];
            assert_eq!(warning.code, "COMMIT_RECOVERED", "{how}");
            assert_eq!(warning.key, HEAD_KEY);
            // The next change set writes `head` again and deletes nothing the store needs.
            opened
                .add_turn(turn("after", "main", "after", &[]))
                .unwrap();
            apply(&mut broken, &mut opened);
            let again = load(&broken, key).unwrap();
            assert!(again.load_warnings().is_empty(), "{how}");
            assert_eq!(again.len(), s.len() + 1, "{how}");
            if key {
                assert!(
                    broken.values().all(|v| is_sealed(v)),
                    "{how}: plaintext written"
                );
            }
        }
    }
}

#[test]
fn an_encrypted_store_without_its_head_is_locked_without_the_key_and_nothing_is_written() {
    let (s, mut kv) = grown(5, true);
    kv.remove(HEAD_KEY);
    let e = load(&kv, false).unwrap_err();
    assert_eq!(e.code(), "LOCKED", "{e}");
    assert_eq!(ids(&load(&kv, true).unwrap()), ids(&s));
}

#[test]
fn a_store_holding_segments_but_no_usable_commit_is_refused_not_new() {
    // Format v3 segments carry no commit: without `head` nothing says which are live.
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store-v3.hex");
    let mut kv: Kv = std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap();
            let bytes = (0..v.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&v[i..i + 2], 16).unwrap())
                .collect();
            (k.to_string(), bytes)
        })
        .collect();
    kv.remove(HEAD_KEY);
    let e = load(&kv, false).unwrap_err();
    assert_eq!((e.code(), e.key()), ("CORRUPT_DATA", Some(HEAD_KEY)));
    assert!(e.to_string().contains("refusing"), "{e}");
    // Every segment torn: nothing to open, and nothing opened as new.
    let (_, kv) = grown(3, false);
    let torn: Kv = kv
        .into_iter()
        .filter(|(k, _)| k != HEAD_KEY && !k.ends_with("/0"))
        .collect();
    if !torn.is_empty() {
        assert_eq!(load(&torn, false).unwrap_err().key(), Some(HEAD_KEY));
    }
}

#[test]
fn a_segment_key_out_of_range_is_refused_by_name_and_the_generation_never_wraps() {
    let (s, mut kv) = grown(5, false);
    let part = kv.keys().find(|k| k.starts_with("seg/")).unwrap().clone();
    let stray = segment_key(u64::MAX, 0);
    kv.insert(stray.clone(), kv[&part].clone());
    let e = load(&kv, false).unwrap_err();
    assert_eq!((e.code(), e.key()), ("CORRUPT_DATA", Some(stray.as_str())));
    assert!(e.to_string().contains("out of range"), "{e}");
    // Moved away, the store opens whole.
    kv.remove(&stray);
    assert_eq!(dump(&load(&kv, false).unwrap()), dump(&s));
    // The highest generation memdag takes is still refused by name when it is a stray copy.
    let edge = segment_key(MAX_GENERATION, 0);
    kv.insert(edge.clone(), kv[&part].clone());
    assert_eq!(load(&kv, false).unwrap_err().key(), Some(edge.as_str()));
}

#[test]
fn a_rolled_back_head_opens_the_newer_commit_even_after_merges() {
    let (mut s, mut kv) = grown(3, false);
    let old_head = kv[HEAD_KEY].clone();
    // Enough flushes that the old head's segments are merged away and deleted.
    for i in 0..FANOUT * 2 {
        s.add_turn(turn(&format!("n{i}"), "main", "newer", &[]))
            .unwrap();
        apply(&mut kv, &mut s);
    }
    // One commit back: head's segments all still there.
    let head_before_last = kv[HEAD_KEY].clone();
    s.add_turn(turn("last", "main", "last", &[])).unwrap();
    apply(&mut kv, &mut s);
    let newer = dump(&s);
    let mut one_back = kv.clone();
    one_back.insert(HEAD_KEY.into(), head_before_last);
    let opened = load(&one_back, false).unwrap();
    assert_eq!(dump(&opened), newer, "the newest commit wins");
    assert_eq!(opened.load_warnings()[0].code, "COMMIT_RECOVERED");
    // Far back: the old head names segments that are gone.
    kv.insert(HEAD_KEY.into(), old_head);
    let mut opened = load(&kv, false).unwrap();
    assert_eq!(dump(&opened), newer);
    apply(&mut kv, &mut opened);
    assert_eq!(dump(&load(&kv, false).unwrap()), newer);
    assert!(load(&kv, false).unwrap().load_warnings().is_empty());
}

#[test]
fn a_part_or_head_from_another_store_is_refused_by_name() {
    let (mine, kv) = grown(6, false);
    let (_, theirs) = grown_with(7, false, "another store's turn");
    // Their part over one of mine: its checksum is not the one my commit names.
    let part = segment_key(newest_segment(&kv), 0);
    let mut swapped = kv.clone();
    swapped.insert(part.clone(), theirs[&part].clone());
    let e = load(&swapped, false).unwrap_err();
    assert_eq!(e.code(), "CORRUPT_DATA", "{e}");
    assert!(e.key().is_some_and(|k| k.starts_with("seg/")), "{e}");
    // Their newest segment put ahead of my head, under its own generation: its commit names
    // segments that are not theirs here.
    let ahead = newest_segment(&theirs);
    let mut stray = kv.clone();
    for (k, v) in theirs
        .iter()
        .filter(|(k, _)| parse_segment_key(k).is_some_and(|(g, _)| g == ahead))
    {
        stray.insert(k.clone(), v.clone());
    }
    if ahead > newest_segment(&kv) {
        assert_eq!(load(&stray, false).unwrap_err().code(), "CORRUPT_DATA");
    }
    // Their head over mine: it names their segments. Of the same generation as mine, my own
    // newest segment carries my commit, which opens; of a newer one, the open is refused.
    let (_, twin) = grown_with(6, false, "another store's turn");
    let mut foreign_head = kv.clone();
    foreign_head.insert(HEAD_KEY.into(), twin[HEAD_KEY].clone());
    let opened = load(&foreign_head, false).unwrap();
    assert_eq!(ids(&opened), ids(&mine));
    assert_eq!(opened.load_warnings()[0].code, "COMMIT_RECOVERED");
    foreign_head.insert(HEAD_KEY.into(), theirs[HEAD_KEY].clone());
    assert_eq!(
        load(&foreign_head, false).unwrap_err().code(),
        "CORRUPT_DATA"
    );
}

#[test]
fn keys_ahead_name_the_next_two_generations() {
    let (s, kv) = grown(2, false);
    let ahead = Store::keys_ahead(&kv[HEAD_KEY]).unwrap();
    assert_eq!(
        ahead,
        [
            segment_key(s.generation() + 1, 0),
            segment_key(s.generation() + 2, 0)
        ]
    );
    assert!(ahead.iter().all(|k| !kv.contains_key(k)));
}

/// What can happen to one stored value.
#[derive(Debug, Clone)]
enum Tamper {
    Delete,
    Empty,
    Truncate(usize),
    Flip(usize),
    /// Stored again under a generation far ahead.
    Move(u64),
    /// Replaced by the value of the same key in another store.
    Foreign,
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        Just(Tamper::Delete),
        Just(Tamper::Empty),
        any::<usize>().prop_map(Tamper::Truncate),
        any::<usize>().prop_map(Tamper::Flip),
        prop_oneof![Just(u64::MAX), Just(MAX_GENERATION), 1_000u64..2_000].prop_map(Tamper::Move),
        Just(Tamper::Foreign),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Whatever happens to one key, an open gives back every committed record or a typed error,
    /// and a write after a successful open never loses a committed record or writes plaintext
    /// into an encrypted store.
    #[test]
    fn one_tampered_key_loses_no_committed_record(which in any::<prop::sample::Index>(), how in tamper(), key in any::<bool>()) {
        let (s, kv) = grown(FANOUT + 4, key);
        let (_, other) = grown_with(FANOUT + 5, key, "another store's turn");
        let keys: Vec<String> = kv.keys().cloned().collect();
        let target = which.get(&keys).clone();
        let mut broken = kv.clone();
        match &how {
            Tamper::Delete => { broken.remove(&target); }
            Tamper::Empty => { broken.insert(target.clone(), Vec::new()); }
            Tamper::Truncate(at) => { let v = broken.get_mut(&target).unwrap(); let n = at % v.len().max(1); v.truncate(n); }
            Tamper::Flip(at) => { let v = broken.get_mut(&target).unwrap(); let n = at % v.len(); v[n] ^= 1 << (at % 8); }
            Tamper::Move(g) => { let v = broken.remove(&target).unwrap(); broken.insert(segment_key(*g, 0), v); }
            Tamper::Foreign => { if let Some(v) = other.get(&target) { broken.insert(target.clone(), v.clone()); } }
        }
        for with_key in [key, !key] {
            match load(&broken, with_key) {
                Ok(mut opened) => {
                    prop_assert_eq!(with_key, key, "opened with the wrong key setting");
                    prop_assert_eq!(ids(&opened), ids(&s));
                    opened.add_turn(turn("after", "main", "after", &[])).unwrap();
                    let mut written = broken.clone();
                    apply(&mut written, &mut opened);
                    let again = load(&written, key).unwrap();
                    prop_assert_eq!(again.len(), s.len() + 1);
                    if key {
                        prop_assert!(written.values().all(|v| is_sealed(v)), "plaintext written");
                    }
                }
                Err(e) => {
                    prop_assert!(matches!(e.code(), "CORRUPT_DATA" | "LOCKED" | "UNSUPPORTED_VERSION"), "{e}");
                    prop_assert!(e.key().is_some(), "{e}");
                }
            }
        }
    }
}

/// A LEB128 varint at `at`: (value, its length in bytes).
fn varint_at(bytes: &[u8], at: usize) -> (u64, usize) {
    let (mut value, mut n) = (0u64, 0);
    loop {
        let b = bytes[at + n];
        value |= u64::from(b & 0x7f) << (7 * n);
        n += 1;
        if b & 0x80 == 0 {
            return (value, n);
        }
    }
}

/// Makes the first term of the first entry of the TEXT section of `chunk` name a term past
/// the chunk's dictionary (in place: one byte). False when the chunk has no TEXT section.
fn break_first_text_entry(chunk: &mut [u8]) -> bool {
    const TEXT: u8 = 7;
    let mut at = 0;
    while at < chunk.len() {
        let (tag, len) = (
            chunk[at],
            u32::from_le_bytes(chunk[at + 1..at + 5].try_into().unwrap()),
        );
        let start = at + 5;
        if tag == TEXT {
            let t = &mut chunk[start..start + len as usize];
            let fields = t[1] as usize;
            let (terms, n) = varint_at(t, 2);
            assert!(terms < 0x7f, "a one-byte id past the dictionary");
            let mut p = 2 + n;
            for _ in 0..terms {
                let (l, n) = varint_at(t, p);
                p += n + l as usize;
            }
            for _ in 0..=fields {
                p += varint_at(t, p).1;
            }
            let (m, n) = varint_at(t, p);
            assert!(m > 0, "the first record has terms");
            p += n;
            assert_eq!(varint_at(t, p).1, 1, "a one-byte term id");
            t[p] = 0x7f;
            return true;
        }
        at = start + len as usize;
    }
    false
}

/// The store's keys with one chunk's TEXT section malformed, the rest intact (see
/// [`with_first_chunk_changed`]). Returns the part's key.
fn with_malformed_text(kv: &Kv) -> (Kv, String) {
    with_first_chunk_changed(kv, |chunk| {
        assert!(break_first_text_entry(chunk), "the chunk has text analyses");
    })
}

/// The store's keys with the first chunk of its first segment part changed by `change`: the
/// chunk is framed and sealed again, and `head` states no segment checksums (as a store
/// written before format v4), so that only what `change` did is wrong. Returns the part's key.
fn with_first_chunk_changed(kv: &Kv, change: impl FnOnce(&mut Vec<u8>)) -> (Kv, String) {
    use memdag_core::block::{frames, push_frame};
    use memdag_core::envelope::{open, seal, Kind};
    let mut kv = kv.clone();
    let key = kv
        .keys()
        .find(|k| parse_segment_key(k).is_some())
        .expect("a segment part")
        .clone();
    let body = open(&key, Kind::SegmentPart, &kv[&key]).unwrap().to_vec();
    const PART_HEADER: usize = 20;
    let mut chunks: Vec<Vec<u8>> = frames(&body[PART_HEADER..])
        .unwrap()
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    change(&mut chunks[0]);
    let mut rebuilt = body[..PART_HEADER].to_vec();
    for c in &chunks {
        push_frame(&mut rebuilt, c);
    }
    kv.insert(key.clone(), seal(Kind::SegmentPart, &rebuilt));
    without_segment_sums(&mut kv);
    (kv, key)
}

/// Rewrites `head` without its segments' checksums, as a store written before format v4
/// has none: a part may then change without its segment's sum failing the open.
fn without_segment_sums(kv: &mut Kv) {
    use memdag_core::segment::{decode_commit, encode_commit};
    let mut commit = decode_commit(&kv[HEAD_KEY]).unwrap();
    for s in &mut commit.segments {
        s.sum = 0;
    }
    kv.insert(HEAD_KEY.into(), encode_commit(&commit).unwrap());
}

#[test]
fn a_malformed_text_section_is_refused_by_name_and_salvaged_whole() {
    use memdag_core::search::{SearchMode, SearchQuery};
    let mut s = Store::new();
    for i in 0..30 {
        s.add_turn(turn(
            &format!("t{i}"),
            "main",
            &format!("walrus number {i} sings"),
            &[],
        ))
        .unwrap();
    }
    let mut kv = Kv::new();
    apply(&mut kv, &mut s);
    // Intact, the store opens; the change keeps `head` and the part readable.
    let (broken, key) = with_malformed_text(&kv);
    let mut intact = kv.clone();
    without_segment_sums(&mut intact);
    assert_eq!(load(&intact, false).unwrap().len(), 30);

    match load(&broken, false) {
        Err(memdag_core::Error::CorruptData { key: k, reason }) => {
            assert_eq!(k, key);
            // The plain open says what a salvaging one would keep: the same damage.
            assert!(reason.starts_with("text section malformed; "), "{reason}");
            assert!(
                reason.contains(&format!("{key} block 0 (text section malformed)")),
                "{reason}"
            );
        }
        other => panic!("expected CorruptData, got {:?}", other.map(|s| s.len())),
    }
    let (salvaged, damage) =
        Store::load_salvaging(broken.iter().map(|(k, v)| (k.as_str(), v.as_slice())), None)
            .unwrap();
    assert_eq!(damage.damaged.len(), 1, "{damage:?}");
    assert_eq!(damage.damaged[0].key, key);
    assert_eq!(damage.damaged[0].reason, "text section malformed");
    assert!(damage.lost_records.is_empty(), "{damage:?}");
    assert_eq!(ids(&salvaged), ids(&s));
    // The records whose analyses were malformed are analyzed anew: text finds every one.
    let q = SearchQuery {
        text: "walrus".into(),
        mode: SearchMode::Bm25,
        context: 0.0,
        k: 50,
        ..Default::default()
    };
    let mut found: Vec<String> = salvaged
        .search(&q)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    found.sort();
    assert_eq!(found, ids(&s));
    let q = SearchQuery {
        text: "number 0 sings".into(),
        ..q
    };
    assert_eq!(salvaged.search(&q).unwrap()[0].id, "t0");
}

/// A CODES section (tag 12) whose count claims more vectors than it holds, its chunk framed
/// and sealed again (see [`with_malformed_text`]): an owned open sizes its buffer of codes
/// from that count, so both opens must refuse the part by name, allocating nothing for it.
#[test]
fn a_code_block_claiming_more_than_it_holds_is_refused_by_name() {
    use memdag_core::index::vecstore::{Precision, VectorSettings};
    let mut s = Store::new();
    s.set_vector_settings(VectorSettings {
        precision: Precision::Int8,
        train: 16,
    })
    .unwrap();
    for i in 0..40 {
        let mut t = turn(&format!("t{i}"), "main", &format!("turn {i}"), &[]);
        t.embedding = Some(
            (0..8)
                .map(|d| ((i * 7 + d * 3) % 11) as f32 - 5.0)
                .collect(),
        );
        s.add_turn(t).unwrap();
    }
    let mut kv = Kv::new();
    apply(&mut kv, &mut s);
    // The first chunk's CODES section: its count (after the dimension) made huge.
    let (kv, key) = with_first_chunk_changed(&kv, |chunk| {
        let mut at = 0;
        let mut found = false;
        while at + 5 <= chunk.len() {
            let len = u32::from_le_bytes(chunk[at + 1..at + 5].try_into().unwrap()) as usize;
            if chunk[at] == 12 {
                chunk[at + 9..at + 13].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
                found = true;
            }
            at += 5 + len;
        }
        assert!(found, "the chunk has codes");
    });
    match load(&kv, false) {
        Err(memdag_core::Error::CorruptData { key: k, reason }) => {
            assert_eq!(k, key);
            assert!(
                reason.starts_with("code block has the wrong length"),
                "{reason}"
            );
        }
        other => panic!("expected CorruptData, got {:?}", other.map(|s| s.len())),
    }
}
