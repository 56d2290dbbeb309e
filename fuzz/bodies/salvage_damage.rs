//! What the `salvage_damage` fuzz target runs on one input. The target and the regression
//! test of committed crash inputs (`crates/memdag-core/tests/fuzz_regressions.rs`) both
//! include this file.
//!
//! Random damage to a valid store (bytes flipped or set, values cut short, keys lost or
//! replaced by garbage, driven by the input): `Store::verify`, `Store::load_salvaging` and a
//! plain open never panic; the salvage never loses a record it does not account for (lost by
//! id, an older version kept, within a damaged block's sequence range, or newer than a commit
//! it fell back to); and what it opened, written again, opens plainly with the same records.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use memdag_core::{NewTurn, Store};

type Kv = BTreeMap<String, Vec<u8>>;

/// A store of 300 turns in three change sets, with small parts (so a segment has several)
/// and vectors.
fn valid() -> &'static Kv {
    static STORE: OnceLock<Kv> = OnceLock::new();
    STORE.get_or_init(|| {
        let mut s = Store::new();
        s.set_part_bytes(48 << 10);
        let mut kv = Kv::new();
        for i in 0..300usize {
            let parents = if i % 4 == 0 || i == 0 {
                vec![]
            } else {
                vec![format!("t{}", i - 1)]
            };
            s.add_turn(NewTurn {
                id: Some(format!("t{i}")),
                thread: format!("th{}", i % 3),
                user: "u".into(),
                created_at: 1_700_000_000_000 + i as i64,
                input: format!("turn {i} about ferries, harbours and the {} bus", i * 13),
                output: "ok".into(),
                parents,
                embedding: Some(
                    (0..16)
                        .map(|d| ((i * 7 + d * 3) % 31) as f32 + 1.0)
                        .collect(),
                ),
                ..Default::default()
            })
            .unwrap();
            if i % 100 == 99 {
                apply(&mut kv, &mut s);
            }
        }
        kv
    })
}

fn apply(kv: &mut Kv, s: &mut Store) {
    for c in s.take_changes().unwrap() {
        match c.value {
            Some(v) => kv.insert(c.key, v),
            None => kv.remove(&c.key),
        };
    }
}

/// Damages `kv` as `data` says: 5 bytes an act (what, which key, where: u16, a byte).
fn damage(kv: &mut Kv, data: &[u8]) {
    for act in data.chunks_exact(5).take(8) {
        let keys: Vec<String> = kv.keys().cloned().collect();
        if keys.is_empty() {
            return;
        }
        let key = &keys[act[1] as usize % keys.len()];
        let at = u16::from_le_bytes([act[2], act[3]]) as usize;
        let value = kv.get_mut(key).unwrap();
        match act[0] % 6 {
            0 | 1 if !value.is_empty() => {
                let i = at % value.len();
                value[i] ^= act[4] | 1;
            }
            2 if !value.is_empty() => {
                let i = at * 37 % value.len();
                value[i] = act[4];
            }
            3 => value.truncate(at % (value.len() + 1)),
            4 => {
                kv.remove(key);
            }
            _ => *value = act.to_vec(),
        }
    }
}

pub fn run(data: &[u8]) {
    let before = Store::load(valid().iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    let mut kv = valid().clone();
    damage(&mut kv, data);
    let entries = || kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()));
    let plain = Store::load(entries());
    let verified = Store::verify(entries(), None);
    let salvaged = Store::load_salvaging(entries(), None);
    let (mut got, report) = match (verified, salvaged) {
        (Ok(v), Ok((got, report))) => {
            assert_eq!(v.damage, report);
            assert_eq!(v.intact, report.damaged.is_empty());
            (got, report)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.code(), b.code());
            assert!(plain.is_err());
            return;
        }
        (a, b) => panic!(
            "verify and salvage disagree: {a:?} / {:?}",
            b.map(|(_, d)| d)
        ),
    };
    if let Ok(p) = &plain {
        assert!(p.len() <= got.len() || !report.damaged.is_empty());
    }
    let fell_back = got
        .load_warnings()
        .iter()
        .any(|w| w.code == "COMMIT_RECOVERED");
    let newest = got.iter().map(|r| r.seq).max();
    for r in before.iter() {
        if let Some(g) = got.get(&r.id) {
            if !report.older_versions.contains(&r.id) {
                let mut want = r.clone();
                want.parents
                    .retain(|p| !report.detached.iter().any(|[c, q]| c == &r.id && q == p));
                assert_eq!(g.input, want.input, "{}", r.id);
                assert_eq!(g.parents, want.parents, "{}", r.id);
                assert_eq!(got.embedding(&r.id), before.embedding(&r.id), "{}", r.id);
            }
            continue;
        }
        let listed = report.lost_records.contains(&r.id);
        let bounded = report.damaged.iter().any(|d| {
            d.after_seq.is_none_or(|a| r.seq > a) && d.before_seq.is_none_or(|b| r.seq < b)
        });
        let later = fell_back && newest.is_none_or(|n| r.seq > n);
        assert!(
            listed || bounded || later,
            "{} lost without a word: {report:?}",
            r.id
        );
    }
    // Written again, the salvage opens plainly and holds the same records.
    let mut kv2 = kv.clone();
    apply(&mut kv2, &mut got);
    let again = Store::load(kv2.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(again.len(), got.len());
}
