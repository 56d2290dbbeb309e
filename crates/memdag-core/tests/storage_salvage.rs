//! Damage stays local: a flipped byte in a segment part costs the records of one block, not
//! the store. A plain open refuses a damaged store and lists every damaged key and block;
//! `Store::verify` says what is damaged and what it held; a salvaging open reads everything
//! intact, lists what was lost by id, and its next change set writes a store that opens
//! plainly. Random damage (flips, cuts, lost keys, garbage) never panics and never loses a
//! record whose block is intact.

mod common;

use common::{apply, dump, turn};
use memdag_core::damage::{Damage, BLOCK_SKIPPED};
use memdag_core::keys::{parse_segment_key, HEAD_KEY};
use memdag_core::{Cipher, Store};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

type Kv = BTreeMap<String, Vec<u8>>;

fn entries(kv: &Kv) -> impl Iterator<Item = (&str, &[u8])> {
    kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
}

/// A store of `n` turns with 32-d vectors and some text, written in `flushes` change sets (so
/// segments hold several blocks and some merge), with an item, a blob and working memory.
fn built(n: usize, flushes: usize, cipher: Option<Cipher>) -> (Store, Kv) {
    let mut kv = Kv::new();
    let mut s = Store::load_with_cipher(entries(&kv), cipher).unwrap();
    let per = n.div_ceil(flushes);
    for i in 0..n {
        let parents: Vec<String> = (i > 0 && i % 3 != 0)
            .then(|| format!("t{}", i - 1))
            .into_iter()
            .collect();
        let p: Vec<&str> = parents.iter().map(String::as_str).collect();
        let text = format!(
            "turn {i} about the harbour, the ferry timetable and lunch {}",
            i * 7
        );
        let mut t = turn(
            &format!("t{i}"),
            if i % 2 == 0 { "a" } else { "b" },
            &text,
            &p,
        );
        t.embedding = Some(
            (0..32)
                .map(|d| ((i * 31 + d * 7) % 97) as f32 / 97.0)
                .collect(),
        );
        s.add_turn(t).unwrap();
        if i == n / 2 {
            s.put_blob("the full output of a long tool call").unwrap();
            s.add_item(memdag_core::NewItem {
                id: Some("m1".into()),
                kind: Some(memdag_core::ItemKind::Personal),
                user: "ada".into(),
                text: "Ada takes the 8:15 ferry".into(),
                sources: vec![format!("t{i}")],
                created_at: 1_700_000_000_000,
                ..Default::default()
            })
            .unwrap();
        }
        if (i + 1) % per == 0 {
            apply(&mut kv, &mut s);
        }
    }
    apply(&mut kv, &mut s);
    (s, kv)
}

fn segment_keys(kv: &Kv) -> Vec<String> {
    kv.keys()
        .filter(|k| parse_segment_key(k).is_some())
        .cloned()
        .collect()
}

/// Checks what a salvage promises against the store before the damage: every record either
/// comes back as it was (but parents the report says were detached), or the report accounts
/// for it (lost by id, an older version, or within a damaged block's bounds).
fn check_accounted(before: &Store, salvaged: &Store, damage: &Damage) {
    let detached: BTreeSet<(String, String)> = damage
        .detached
        .iter()
        .map(|[r, p]| (r.clone(), p.clone()))
        .collect();
    for r in before.iter() {
        match salvaged.get(&r.id) {
            Some(got) => {
                if damage.older_versions.contains(&r.id) {
                    continue;
                }
                let mut want = common::whole(before, r);
                want.parents
                    .retain(|p| !detached.contains(&(r.id.clone(), p.clone())));
                let got = common::whole(salvaged, got);
                assert_eq!(got, want, "{} came back changed", r.id);
            }
            None => {
                let listed =
                    damage.lost_records.contains(&r.id) || damage.lost_items.contains(&r.id);
                let bounded = damage.damaged.iter().any(|d| {
                    d.after_seq.is_none_or(|a| r.seq > a) && d.before_seq.is_none_or(|b| r.seq < b)
                });
                assert!(
                    listed || bounded,
                    "{} (seq {}) is gone and the report does not say so: {damage:?}",
                    r.id,
                    r.seq
                );
            }
        }
    }
}

#[test]
fn one_flipped_byte_loses_one_block_and_every_face_of_the_report_names_it() {
    let (before, mut kv) = built(1500, 3, None);
    let keys = segment_keys(&kv);
    // The largest part: several blocks, one of them hit in its middle.
    let key = keys.iter().max_by_key(|k| kv[*k].len()).unwrap().clone();
    let at = kv[&key].len() / 2;
    kv.get_mut(&key).unwrap()[at] ^= 0x20;

    let err = Store::load(entries(&kv)).expect_err("a plain open refuses");
    assert_eq!(
        (err.code(), err.key()),
        ("CORRUPT_DATA", Some(key.as_str()))
    );
    let text = err.to_string();
    assert!(text.contains("1 damaged value or block"), "{text}");
    assert!(text.contains(&format!("{key} block")), "{text}");

    let verified = Store::verify(entries(&kv), None).unwrap();
    assert!(!verified.intact);
    assert_eq!(verified.damage.damaged.len(), 1, "{:?}", verified.damage);
    let d = &verified.damage.damaged[0];
    assert_eq!(d.key, key);
    assert!(d.block.is_some());
    // The records before the damage still read from the block; the rest are bounded.
    assert!(!d.records.is_empty(), "{d:?}");
    assert_eq!(
        verified.damage.lost_records, d.records,
        "each id read is lost"
    );
    assert!(d.ids_known || d.before_seq.is_some(), "{d:?}");

    let (salvaged, damage) = Store::load_salvaging(entries(&kv), None).unwrap();
    assert_eq!(damage, verified.damage);
    check_accounted(&before, &salvaged, &damage);
    let lost = before.len() - salvaged.len();
    assert!(
        lost > 0 && lost < 400,
        "one block, not the part: {lost} lost"
    );
    assert_eq!(verified.records + verified.items, salvaged.len());
    assert!(salvaged.item("m1").is_some() || damage.lost_items == ["m1"]);
    assert_eq!(
        salvaged
            .load_warnings()
            .iter()
            .filter(|w| w.code == BLOCK_SKIPPED)
            .count(),
        1
    );
    // The salvaged store is written whole; the damaged key goes after its commit.
    let mut salvaged = salvaged;
    apply(&mut kv, &mut salvaged);
    assert!(!kv.contains_key(&key) || Store::load(entries(&kv)).is_ok());
    let reopened = Store::load(entries(&kv)).unwrap();
    assert_eq!(dump(&reopened), dump(&salvaged));
    assert!(Store::verify(entries(&kv), None).unwrap().intact);
}

#[test]
fn damage_to_a_merged_segment_is_made_good_from_the_segments_it_replaced() {
    // Single-add flushes until one merges; the merge's inputs are kept until the next commit.
    let mut kv = Kv::new();
    let mut s = Store::new();
    let mut merged = None;
    for i in 0..60 {
        let mut t = turn(
            &format!("t{i}"),
            "a",
            &format!("turn {i} on the harbour"),
            &[],
        );
        t.embedding = Some((0..8).map(|d| ((i + d) % 7) as f32 + 1.0).collect());
        s.add_turn(t).unwrap();
        let changes = s.take_changes().unwrap();
        let generations: BTreeSet<u64> = changes
            .iter()
            .filter(|c| c.value.is_some())
            .filter_map(|c| parse_segment_key(&c.key).map(|(g, _)| g))
            .collect();
        for c in changes {
            match c.value {
                Some(v) => kv.insert(c.key, v),
                None => kv.remove(&c.key),
            };
        }
        if generations.len() == 2 {
            merged = generations.iter().max().copied();
            break;
        }
    }
    let merged = merged.expect("a merge within 60 flushes");
    let key = kv
        .keys()
        .find(|k| parse_segment_key(k).is_some_and(|(g, _)| g == merged))
        .unwrap()
        .clone();
    let at = kv[&key].len() / 2;
    kv.get_mut(&key).unwrap()[at] ^= 0x02;
    assert!(Store::load(entries(&kv)).is_err());
    let (salvaged, damage) = Store::load_salvaging(entries(&kv), None).unwrap();
    assert_eq!(damage.damaged.len(), 1, "{damage:?}");
    assert!(damage.lost_records.is_empty(), "{damage:?}");
    assert_eq!(
        dump(&salvaged),
        dump(&s),
        "every record, from the replaced segments"
    );
}

#[test]
fn an_intact_store_verifies_and_salvages_to_itself() {
    let (before, kv) = built(300, 2, None);
    let v = Store::verify(entries(&kv), None).unwrap();
    assert!(v.intact && v.damage.damaged.is_empty());
    assert_eq!((v.records, v.items, v.blobs), (300, 1, 1));
    assert_eq!(v.keys, kv.len());
    let (s, damage) = Store::load_salvaging(entries(&kv), None).unwrap();
    assert!(damage.is_empty());
    assert_eq!(dump(&s), dump(&before));
}

#[test]
fn a_broken_head_with_a_damaged_newest_block_still_salvages() {
    let (before, mut kv) = built(600, 3, None);
    kv.insert(HEAD_KEY.into(), b"MDAG\x05".to_vec());
    let newest = segment_keys(&kv)
        .into_iter()
        .max_by_key(|k| parse_segment_key(k))
        .unwrap();
    let last = kv[&newest].len() - 3;
    kv.get_mut(&newest).unwrap()[last] ^= 1;
    assert_eq!(
        Store::load(entries(&kv)).err().unwrap().code(),
        "CORRUPT_DATA"
    );
    let (s, damage) = Store::load_salvaging(entries(&kv), None).unwrap();
    assert!(!damage.is_empty());
    check_accounted(&before, &s, &damage);
    assert!(s.len() > 300, "most records survive: {}", s.len());
}

#[test]
fn a_sealed_store_salvages_the_parts_that_open() {
    let cipher = || Some(Cipher::new(&[3; 32]).unwrap());
    let (before, mut kv) = built(900, 3, cipher());
    let key = segment_keys(&kv)[0].clone();
    let at = kv[&key].len() / 2;
    kv.get_mut(&key).unwrap()[at] ^= 4;
    assert_eq!(
        Store::verify(entries(&kv), None).err().unwrap().code(),
        "LOCKED"
    );
    let (s, damage) = Store::load_salvaging(entries(&kv), cipher()).unwrap();
    // A sealed part is one AEAD value: damage loses the part (sealing whole blocks is
    // issue 29's item 4).
    assert_eq!(damage.damaged.len(), 1);
    assert_eq!(damage.damaged[0].block, None);
    check_accounted(&before, &s, &damage);
    assert!(s.is_encrypted());
}

/// A random act of damage.
#[derive(Debug, Clone)]
enum Harm {
    Flip {
        key: prop::sample::Index,
        at: prop::sample::Index,
        bit: u8,
    },
    Cut {
        key: prop::sample::Index,
        at: prop::sample::Index,
    },
    Lose {
        key: prop::sample::Index,
    },
    Garbage {
        key: prop::sample::Index,
        bytes: Vec<u8>,
    },
}

fn harm() -> impl Strategy<Value = Harm> {
    prop_oneof![
        4 => (any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0u8..8)
            .prop_map(|(key, at, bit)| Harm::Flip { key, at, bit }),
        1 => (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(key, at)| Harm::Cut { key, at }),
        1 => any::<prop::sample::Index>().prop_map(|key| Harm::Lose { key }),
        1 => (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(key, bytes)| Harm::Garbage { key, bytes }),
    ]
}

fn inflict(kv: &mut Kv, harm: &Harm) {
    let keys: Vec<String> = kv.keys().cloned().collect();
    match harm {
        Harm::Flip { key, at, bit } => {
            let v = kv.get_mut(key.get(&keys)).unwrap();
            if !v.is_empty() {
                let i = at.index(v.len());
                v[i] ^= 1 << bit;
            }
        }
        Harm::Cut { key, at } => {
            let v = kv.get_mut(key.get(&keys)).unwrap();
            let n = at.index(v.len() + 1);
            v.truncate(n);
        }
        Harm::Lose { key } => {
            kv.remove(key.get(&keys));
        }
        Harm::Garbage { key, bytes } => {
            kv.insert(key.get(&keys).clone(), bytes.clone());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_damage_never_panics_and_never_loses_an_intact_record(
        harms in prop::collection::vec(harm(), 1..4),
    ) {
        let mut kv = BUILT.with(Kv::clone);
        let before = Store::load(entries(&kv)).unwrap();
        for h in &harms {
            inflict(&mut kv, h);
        }
        let plain = Store::load(entries(&kv));
        let verified = Store::verify(entries(&kv), None);
        let salvaged = Store::load_salvaging(entries(&kv), None);
        match (plain, verified, salvaged) {
            (Ok(s), Ok(v), Ok((t, damage))) => {
                // What a plain open gives, a salvage gives too.
                prop_assert_eq!(v.damage.damaged.len(), damage.damaged.len());
                check_accounted(&s, &t, &damage);
                check_accounted(&before, &t, &allow_newer(&t, damage));
            }
            (Err(e), Ok(v), Ok((t, damage))) => {
                prop_assert!(matches!(e.code(), "CORRUPT_DATA"), "{e}");
                prop_assert!(!v.intact);
                prop_assert_eq!(&v.damage, &damage);
                check_accounted(&before, &t, &allow_newer(&t, damage));
                // What a salvage opened, written again, opens plainly.
                let mut t = t;
                let mut kv = kv.clone();
                apply(&mut kv, &mut t);
                let again = Store::load(entries(&kv)).unwrap();
                prop_assert_eq!(dump(&again), dump(&t));
            }
            (_, Err(e), _) | (_, _, Err(e)) => {
                // Nothing readable at all: still a typed error naming a key.
                prop_assert!(e.key().is_some(), "{e}");
            }
        }
    }
}

/// When the open fell back to an older commit (`head` unusable and the newest segment lost,
/// or its commit unreadable), the change sets after it are gone without a trace to report:
/// their records, newer than any the store opened, are let off.
fn allow_newer(t: &Store, mut damage: Damage) -> Damage {
    if t.load_warnings()
        .iter()
        .any(|w| w.code == "COMMIT_RECOVERED")
    {
        let newest = t.iter().map(|r| r.seq).max();
        damage.damaged.push(memdag_core::damage::DamagedBlock {
            after_seq: newest,
            ..Default::default()
        });
    }
    damage
}

thread_local! {
    static BUILT: Kv = built(700, 3, None).1;
}

/// The id of the best BM25 hit for `text`.
fn best_hit(store: &Store, text: &str) -> Option<String> {
    let query = memdag_core::search::SearchQuery {
        text: text.into(),
        mode: memdag_core::search::SearchMode::Bm25,
        k: 1,
        ..Default::default()
    };
    store
        .search(&query)
        .unwrap()
        .into_iter()
        .next()
        .map(|h| h.id)
}

/// A record deleted and added again under its id, whose tombstone is lost with a damaged
/// block: the salvage keeps the newer version and drops the older one, and every record
/// after it keeps its own stored text analysis (they once took their neighbour's).
#[test]
fn a_salvage_that_drops_an_older_version_keeps_each_records_own_text() {
    let mut kv = Kv::new();
    let mut s = Store::load(entries(&kv)).unwrap();
    s.add_turn(turn("dup", "a", "the original walrus", &[]))
        .unwrap();
    apply(&mut kv, &mut s);
    let filler = "ferry timetable harbour lunch ".repeat(60);
    for i in 0..200 {
        let text = format!("zq{i}x {filler}");
        s.add_turn(turn(&format!("w{i}"), "a", &text, &[])).unwrap();
    }
    s.delete("dup").unwrap();
    s.add_turn(turn("dup", "a", "the returning narwhal", &[]))
        .unwrap();
    apply(&mut kv, &mut s);
    let newest = segment_keys(&kv)
        .into_iter()
        .max_by_key(|k| parse_segment_key(k))
        .unwrap();
    let mut found = false;
    // Each block of the newest segment in turn: the one holding the tombstone loses it.
    for at in (64..kv[&newest].len()).step_by(16 << 10) {
        let mut damaged = kv.clone();
        damaged.get_mut(&newest).unwrap()[at] ^= 0x20;
        let Ok((salvaged, _)) = Store::load_salvaging(entries(&damaged), None) else {
            continue;
        };
        let versions = salvaged.iter().filter(|r| r.id == "dup").count();
        assert!(versions <= 1);
        if salvaged
            .get("dup")
            .is_some_and(|r| r.input.contains("narwhal"))
            && salvaged.iter().count() < 202
        {
            found = true;
        }
        for r in salvaged.iter().filter(|r| r.id.starts_with('w')) {
            let word = r.input.split(' ').next().unwrap();
            assert_eq!(
                best_hit(&salvaged, word).as_deref(),
                Some(r.id.as_str()),
                "{word}"
            );
        }
    }
    assert!(found, "no damaged block dropped the tombstone alone");
}
