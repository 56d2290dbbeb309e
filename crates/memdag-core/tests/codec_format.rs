//! The storage format: round trips, typed errors for bad bytes, and the version fixtures.

mod common;

use common::{apply, dump, turn, v1_image};
use memdag_core::codec::{decode_record, encode_record, record_key, FORMAT_VERSION, HEADER_LEN};
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::keys::HEAD_KEY;
use memdag_core::{
    CompactNode, Error, ItemKind, ItemMeta, ItemStatus, Record, Section, Step, Store,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn arb_step() -> impl Strategy<Value = Step> {
    (".{0,12}", ".{0,30}", ".{0,40}", any::<bool>()).prop_map(|(tool, args, result, ok)| Step {
        tool,
        args,
        result,
        ok,
    })
}

/// An item with every optional field sometimes set, a history and a log.
fn arb_item() -> impl Strategy<Value = ItemMeta> {
    use memdag_core::item::{Action, ItemVersion, Resolution};
    let opt = || prop::option::of(".{0,12}");
    (
        (
            prop::sample::select(ItemKind::ALL.to_vec()),
            prop::sample::select(ItemStatus::ALL.to_vec()),
        ),
        (opt(), opt(), opt(), opt(), opt(), opt()),
        (
            any::<u32>(),
            any::<i64>(),
            any::<i64>(),
            any::<Option<i64>>(),
        ),
        (
            any::<u32>(),
            0.0f32..=1.0,
            any::<i64>(),
            any::<Option<i64>>(),
        ),
        prop::collection::vec("[a-z]{1,6}", 0..3),
        prop::collection::vec((".{0,20}", opt(), any::<i64>(), any::<i64>()), 0..3),
        prop::collection::vec(
            (
                any::<i64>(),
                prop::sample::select(vec![Action::Added, Action::Superseded, Action::Expired]),
                opt(),
                ".{0,10}",
            ),
            0..3,
        ),
    )
        .prop_map(
            |(
                (kind, status),
                (subject, relation, object, task, tool, superseded_by),
                (version, updated_at, valid_from, valid_until),
                (corroborations, confidence, last_seen, expires_at),
                ids,
                history,
                log,
            )| ItemMeta {
                kind,
                subject,
                relation,
                object,
                task,
                tool,
                status,
                version,
                updated_at,
                valid_from,
                valid_until,
                corroborations,
                confidence,
                last_seen,
                expires_at,
                superseded_by,
                supersedes: ids.clone(),
                conflicts: ids.into_iter().rev().collect(),
                history: history
                    .into_iter()
                    .enumerate()
                    .map(
                        |(i, (text, subject, valid_from, valid_until))| ItemVersion {
                            version: i as u32 + 1,
                            text,
                            importance: 0.5,
                            subject,
                            relation: None,
                            object: Some("o".into()),
                            valid_from,
                            valid_until,
                        },
                    )
                    .collect(),
                log: log
                    .into_iter()
                    .map(|(at, action, other, reason)| Resolution {
                        at,
                        action,
                        other,
                        source: None,
                        by: "rule".into(),
                        reason,
                    })
                    .collect(),
            },
        )
}

fn arb_record() -> impl Strategy<Value = Record> {
    (
        "[a-z0-9]{1,20}",
        any::<u64>(),
        (".{1,10}", ".{0,10}", any::<i64>()),
        (".{0,80}", ".{0,80}"),
        prop::collection::vec(arb_step(), 0..4),
        prop::collection::vec("[a-z]{1,8}", 0..3),
        0.0f32..=1.0,
        prop::option::of((
            ".{0,40}",
            prop::collection::vec((".{1,10}", ".{0,20}"), 0..3),
        )),
        prop::option::of(prop::collection::vec(-1.0f32..1.0, 1..8)),
        prop::option::of(arb_item()),
    )
        .prop_map(
            |(
                id,
                seq,
                (thread, user, created_at),
                (input, output),
                steps,
                tags,
                importance,
                compact,
                embedding,
                item,
            )| Record {
                id,
                seq,
                thread,
                user,
                created_at,
                input,
                output,
                steps,
                parents: tags.iter().map(|t| format!("p-{t}")).collect(),
                tags,
                importance,
                compact: compact.map(|(summary, sections)| CompactNode {
                    summary,
                    sections: sections
                        .into_iter()
                        .map(|(name, text)| Section { name, text })
                        .collect(),
                }),
                embedding,
                item: item.map(Box::new),
            },
        )
}

/// Records whose integers are often near the edges of MessagePack's integer forms (fixint,
/// 8, 16, 32 and 64 bits, signed and unsigned), where a hand-written reader could misread.
fn arb_record_edges() -> impl Strategy<Value = Record> {
    let seq = prop_oneof![
        0u64..300,
        60_000u64..70_000,
        4_294_967_000u64..4_294_968_000,
        any::<u64>()
    ];
    let created_at = prop_oneof![
        -300i64..300,
        -40_000i64..70_000,
        -2_147_484_000i64..-2_147_483_000,
        2_147_483_000i64..4_294_968_000,
        any::<i64>()
    ];
    (arb_record(), seq, created_at).prop_map(|(mut r, seq, created_at)| {
        r.seq = seq;
        r.created_at = created_at;
        r
    })
}

proptest! {
    #[test]
    fn record_round_trips(record in arb_record()) {
        let key = record_key(&record.id);
        let bytes = encode_record(&record).unwrap();
        prop_assert_eq!(decode_record(&key, &bytes).unwrap(), record);
    }

    #[test]
    fn any_truncation_or_bit_flip_is_a_typed_error(record in arb_record(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>()) {
        let key = record_key(&record.id);
        let bytes = encode_record(&record).unwrap();
        let truncated = &bytes[..cut.index(bytes.len())];
        let err = decode_record(&key, truncated).unwrap_err();
        prop_assert_eq!(err.code(), "CORRUPT_DATA");
        prop_assert_eq!(err.key(), Some(key.as_str()));

        let mut flipped = bytes.clone();
        let at = flip.index(flipped.len());
        flipped[at] ^= 0x01;
        let err = decode_record(&key, &flipped).unwrap_err();
        prop_assert!(matches!(err.code(), "CORRUPT_DATA" | "UNSUPPORTED_VERSION"), "{err}");
        prop_assert_eq!(err.key(), Some(key.as_str()));
    }

    /// The core reads records with its own MessagePack reader (`memdag_core::msgpack`), not
    /// rmp-serde's: damaged or whole, a record must decode as rmp-serde decoded it.
    #[test]
    fn damaged_records_decode_as_rmp_serde_decodes_them(record in arb_record(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = rmp_serde::to_vec_named(&record).unwrap();
        prop_assert_eq!(&memdag_core::msgpack::from_slice::<Record>(&bytes).unwrap(), &record);
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let ours = memdag_core::msgpack::from_slice::<Record>(&bytes).ok();
        let theirs = rmp_serde::from_slice::<Record>(&bytes).ok();
        prop_assert_eq!(ours, theirs);
    }

    /// A RECORDS section is read by a hand-written decoder (`segment::decode_records`) that
    /// leaves to serde's decoder any record it does not take: whole, damaged or cut, a section
    /// must decode as serde decodes it, to the same records or the same error.
    #[test]
    fn records_sections_decode_as_serde_decodes_them(
        records in prop::collection::vec(arb_record_edges(), 0..4),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let key = "seg/0000000000000001/0";
        // Compared as text: a damaged byte may make a float NaN, which is not equal to itself.
        let text = |r: Result<Vec<Record>, Error>| format!("{:?}", r.map_err(|e| e.to_string()));
        let serde = |bytes: &[u8]| text(memdag_core::codec::from_msgpack::<Vec<Record>>(key, bytes));
        let ours = |bytes: &[u8]| text(memdag_core::segment::decode_records(key, bytes));
        let mut bytes = rmp_serde::to_vec_named(&records).unwrap();
        prop_assert_eq!(
            &memdag_core::segment::decode_records(key, &bytes).unwrap(),
            &records
        );
        let cut = cut.index(bytes.len() + 1);
        prop_assert_eq!(ours(&bytes[..cut]), serde(&bytes[..cut]));
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = byte;
            prop_assert_eq!(ours(&bytes), serde(&bytes));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assert!(decode_record("rec/x", &bytes).is_err());
        prop_assert!(Store::load([("rec/x", bytes.as_slice())]).is_err());
        let _ = Store::load([("meta", bytes.as_slice())]);
        prop_assert!(Store::load([("head", bytes.as_slice())]).is_err());
        let _ = Store::load([("seg/0000000000000001/0", bytes.as_slice())]);
    }
}

fn diamond() -> Store {
    let mut s = Store::new();
    s.add_turn(turn("a", "t", "root", &[])).unwrap();
    s.add_turn(turn("b", "t", "记忆系统 works", &["a"]))
        .unwrap();
    s
}

fn stored_diamond() -> BTreeMap<String, Vec<u8>> {
    let mut s = diamond();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    kv
}

fn load(kv: &BTreeMap<String, Vec<u8>>) -> Result<Store, Error> {
    Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())))
}

const PART: &str = "seg/0000000000000001/0";

#[test]
fn future_version_names_the_key() {
    let mut kv = stored_diamond();
    kv.get_mut(HEAD_KEY).unwrap()[4] = FORMAT_VERSION + 1;
    let err = load(&kv).unwrap_err();
    assert_eq!(
        err,
        Error::UnsupportedVersion {
            key: HEAD_KEY.into(),
            found: FORMAT_VERSION + 1,
            supported: FORMAT_VERSION
        }
    );
    assert_eq!(err.code(), "UNSUPPORTED_VERSION");
    // A commit of this format never names a part of a newer one: such a part was altered.
    let mut kv = stored_diamond();
    kv.get_mut(PART).unwrap()[4] = FORMAT_VERSION + 1;
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some(PART)));
    assert!(err.to_string().contains("newer than the commit"), "{err}");
    // A newer build's segment that never got its commit is not this build's to take or drop.
    let mut kv = stored_diamond();
    let mut ahead = kv[PART].clone();
    ahead[4] = FORMAT_VERSION + 1;
    kv.insert("seg/00000000000000ff/0".into(), ahead);
    let err = load(&kv).unwrap_err();
    assert_eq!(err.code(), "UNSUPPORTED_VERSION");
    assert_eq!(err.key(), Some("seg/00000000000000ff/0"));
    let mut v1 = v1_image(&diamond());
    v1.get_mut("rec/b").unwrap()[4] = FORMAT_VERSION + 1;
    assert_eq!(load(&v1).unwrap_err().key(), Some("rec/b"));
}

#[test]
fn truncated_foreign_missing_and_misplaced_values_name_the_key() {
    let mut kv = stored_diamond();
    kv.get_mut(PART).unwrap().truncate(HEADER_LEN + 3);
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some(PART)));

    // An unreadable `head` is named in the warning, and the commit the newest segment carries
    // opens instead: the same store.
    let mut kv = stored_diamond();
    kv.insert(HEAD_KEY.into(), b"{\"json\":true}".to_vec());
    let store = load(&kv).unwrap();
    let warning = &store.load_warnings()[0];
    assert_eq!(
        (warning.code, warning.key.as_str()),
        ("COMMIT_RECOVERED", HEAD_KEY)
    );
    assert!(warning.message.contains("magic"), "{warning:?}");
    assert_eq!(dump(&store), dump(&diamond()));

    let mut kv = stored_diamond();
    kv.remove(PART);
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some(PART)));
    assert!(err.to_string().contains("missing"), "{err}");

    // A part copied under another segment's key is caught by the header it carries.
    let mut s = diamond();
    s.set_part_bytes(1024);
    s.add_turn(turn("c", "t", &"long text ".repeat(300), &["b"]))
        .unwrap();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let p0 = kv["seg/0000000000000001/0"].clone();
    kv.insert("seg/0000000000000001/1".into(), p0);
    let err = load(&kv).unwrap_err();
    assert_eq!(
        (err.code(), err.key()),
        ("CORRUPT_DATA", Some("seg/0000000000000001/1"))
    );

    let mut v1 = v1_image(&diamond());
    let b = v1.remove("rec/b").unwrap();
    v1.insert("rec/c".into(), b);
    let err = load(&v1).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/c")));
}

#[test]
fn a_missing_parent_on_load_is_corrupt_data() {
    let mut kv = v1_image(&diamond());
    kv.remove("rec/a");
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/b")));
}

/// The store every fixture of format v2 and later holds: a record with an embedding, steps and a
/// compact node, a blob, a deleted record (a tombstone), several segments one of which was
/// merged, and the commit. From format v6 its vectors are kept as int8 codes, the steps
/// trained on the first two (so later ones saturate in the third dimension).
fn fixture_store() -> BTreeMap<String, Vec<u8>> {
    let mut s = Store::new();
    s.set_vector_settings(VectorSettings {
        precision: Precision::Int8,
        train: 2,
    })
    .unwrap();
    let mut kv = BTreeMap::new();
    let mut a = turn("a", "t", "root", &[]);
    a.embedding = Some(vec![1.0, 0.0, 0.5]);
    s.add_turn(a).unwrap();
    apply(&mut kv, &mut s);
    let mut b = turn("b", "t", "记忆系统 works", &["a"]);
    b.embedding = Some(vec![0.0, 1.0, 0.5]);
    b.compact = Some(CompactNode {
        summary: "searched once".into(),
        sections: vec![Section {
            name: "Goal".into(),
            text: "find it".into(),
        }],
    });
    s.add_turn(b).unwrap();
    s.put_blob("the full tool output").unwrap();
    apply(&mut kv, &mut s);
    for i in 0..memdag_core::storage::FANOUT {
        let mut t = turn(&format!("x{i}"), "u", "to be deleted", &[]);
        t.embedding = Some(vec![0.5, 0.5, i as f32]);
        s.add_turn(t).unwrap();
        apply(&mut kv, &mut s);
    }
    for i in 0..memdag_core::storage::FANOUT {
        s.delete(&format!("x{i}")).unwrap();
    }
    apply(&mut kv, &mut s);
    // Format v3: a long-term memory item with a version in its history and a log, the memory
    // settings and a thread's working memory (documents), and a use count.
    let mut config = s.memory_config();
    config.conflict = memdag_core::memory::ConflictStrategy::Keep;
    s.set_memory_config(config).unwrap();
    let item = s
        .add_item(memdag_core::item::NewItem {
            id: Some("m1".into()),
            kind: Some(memdag_core::ItemKind::Personal),
            user: "ada".into(),
            text: "Ada lives in Oslo".into(),
            relation: Some("residence".into()),
            object: Some("Oslo".into()),
            sources: vec!["b".into()],
            created_at: 1_700_000_000_000,
            embedding: Some(vec![0.2, 0.2, 0.9]),
            ..Default::default()
        })
        .unwrap();
    s.update_item(
        &item.item.id,
        memdag_core::item::ItemUpdate {
            text: Some("Ada lives in central Oslo".into()),
            at: 1_700_000_100_000,
            ..Default::default()
        },
    )
    .unwrap();
    s.update_work(&memdag_core::work::WorkUpdate {
        thread: "t".into(),
        field: "goal".into(),
        op: memdag_core::work::WorkOp::Set,
        value: Some(serde_json::json!("keep the format")),
        at: 1_700_000_200_000,
        user: Some("ada".into()),
    })
    .unwrap();
    s.recall(&memdag_core::recall::RecallQuery {
        thread: "t".into(),
        ..Default::default()
    })
    .unwrap();
    apply(&mut kv, &mut s);
    kv
}

/// Every format version ever written keeps loading. A missing fixture of the newest version is
/// written with `MEMDAG_WRITE_FIXTURES=1 cargo test -p memdag-core --test codec_format`; an
/// existing one is never rewritten.
#[test]
fn format_fixtures_still_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let newest = dir.join(format!("store-v{FORMAT_VERSION}.hex"));
    if std::env::var_os("MEMDAG_WRITE_FIXTURES").is_some() && !newest.exists() {
        let text: String = fixture_store()
            .iter()
            .map(|(k, v)| format!("{k} {}\n", hex(v)))
            .collect();
        std::fs::write(&newest, text).unwrap();
    }
    let mut seen = 0;
    for version in 1..=FORMAT_VERSION {
        let text = std::fs::read_to_string(dir.join(format!("store-v{version}.hex")))
            .expect("fixture for every version");
        let kv: BTreeMap<String, Vec<u8>> = text
            .lines()
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap();
                (k.to_string(), unhex(v))
            })
            .collect();
        let store = load(&kv).unwrap();
        assert_eq!(store.get("b").unwrap().parents, ["a"]);
        assert_eq!(store.get("b").unwrap().input, "记忆系统 works");
        if version >= 3 {
            assert_eq!(
                store.len(),
                3,
                "the tombstones hide x0..x7; a, b and the item m1"
            );
            let m1 = store.item("m1").unwrap();
            assert_eq!(m1.text, "Ada lives in central Oslo");
            assert_eq!(m1.meta.version, 2);
            assert_eq!(m1.meta.history[0].text, "Ada lives in Oslo");
            assert_eq!(m1.sources, ["b"]);
            assert!(!m1.meta.log.is_empty());
            assert_eq!(
                store.memory_config().conflict,
                memdag_core::memory::ConflictStrategy::Keep
            );
            // The fixture's working memory is a document from before working memory was per
            // user (`work/t`), whose every change is ada's: it reads as hers, and no one else's.
            assert_eq!(
                store.working_memory("t", Some("ada")).unwrap().fields["goal"].value,
                serde_json::json!("keep the format")
            );
            assert!(store.working_memory("t", None).unwrap().fields.is_empty());
            assert!(store
                .working_memory("t", Some("bob"))
                .unwrap()
                .fields
                .is_empty());
            assert_eq!(store.access_count("b"), 1, "use counts persist");
        } else if version == 2 {
            assert_eq!(store.len(), 2, "the tombstones hide x0..x7");
        }
        if version >= 6 {
            // b's codes stand for its vector exactly: the steps were trained on a and b.
            let v = store.embedding("b").unwrap();
            assert!(
                v.iter()
                    .zip([0.0, 1.0, 0.5])
                    .all(|(x, y)| (x - y).abs() < 1e-6),
                "{v:?}"
            );
            assert_eq!(store.vector_settings().precision, Precision::Int8);
            let steps = store
                .search_index()
                .vectors()
                .steps()
                .expect("steps persist");
            assert_eq!(steps.len(), 3);
            // The fixture's vectors are stored as codes (CODES sections).
            let (mut coded, mut plain) = (0, 0);
            for info in store.segments() {
                let read =
                    memdag_core::segment::read_chunks(info, |k| kv.get(k).map(|v| &v[..])).unwrap();
                for (key, chunk) in &read.chunks {
                    let view =
                        memdag_core::segment::SegmentView::parse(key, chunk.bytes()).unwrap();
                    coded += view.code_count();
                    plain += view.vector_count();
                }
            }
            assert!(coded >= 3 && plain == 0, "codes {coded}, f32 {plain}");
        } else if version >= 2 {
            assert_eq!(store.embedding("b").as_deref(), Some(&[0.0, 1.0, 0.5][..]));
            assert_eq!(store.vector_settings(), VectorSettings::F32);
        }
        if version >= 2 {
            let b = store.get("b").unwrap();
            assert_eq!(b.embedding, None, "the vector index keeps the only copy");
            assert_eq!(b.compact.as_ref().unwrap().sections[0].name, "Goal");
            assert_eq!(b.steps[0].tool, "search");
            assert_eq!(store.blob_ids().count(), 1);
            assert!(store.segments().len() >= 2, "{:?}", store.segments());
            assert!(store
                .segments()
                .iter()
                .any(|s| s.level > 0 || s.entries > 10));
            let hits = store
                .search(&memdag_core::search::SearchQuery {
                    embedding: Some(vec![0.0, 1.0, 0.5]),
                    mode: memdag_core::search::SearchMode::Vector,
                    k: 1,
                    ..Default::default()
                })
                .unwrap();
            assert_eq!(hits[0].id, "b");
            // Opening a fixture and writing it again must not change what it holds.
            let mut store = store;
            let mut kv = kv.clone();
            apply(&mut kv, &mut store);
            assert_eq!(dump(&load(&kv).unwrap()), dump(&store));
        }
        seen += 1;
    }
    assert_eq!(seen, FORMAT_VERSION as usize);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}
