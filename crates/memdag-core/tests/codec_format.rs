//! The storage format: round trips, typed errors for bad bytes, and the version fixtures.

mod common;

use common::{apply, turn};
use memdag_core::codec::{decode_record, encode_record, record_key, FORMAT_VERSION, HEADER_LEN};
use memdag_core::{CompactNode, Error, Record, Section, Step, Store};
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
            },
        )
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

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assert!(decode_record("rec/x", &bytes).is_err());
        prop_assert!(Store::load([("rec/x", bytes.as_slice())]).is_err());
        let _ = Store::load([("meta", bytes.as_slice())]);
    }
}

fn stored_diamond() -> BTreeMap<String, Vec<u8>> {
    let mut s = Store::new();
    s.add_turn(turn("a", "t", "root", &[])).unwrap();
    s.add_turn(turn("b", "t", "记忆系统 works", &["a"]))
        .unwrap();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    kv
}

fn load(kv: &BTreeMap<String, Vec<u8>>) -> Result<Store, Error> {
    Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())))
}

#[test]
fn future_version_names_the_key() {
    let mut kv = stored_diamond();
    kv.get_mut("rec/b").unwrap()[4] = FORMAT_VERSION + 1;
    let err = load(&kv).unwrap_err();
    assert_eq!(
        err,
        Error::UnsupportedVersion {
            key: "rec/b".into(),
            found: FORMAT_VERSION + 1,
            supported: FORMAT_VERSION
        }
    );
    assert_eq!(err.code(), "UNSUPPORTED_VERSION");
}

#[test]
fn truncated_foreign_and_misplaced_values_name_the_key() {
    let mut kv = stored_diamond();
    kv.get_mut("rec/a").unwrap().truncate(HEADER_LEN + 3);
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/a")));

    let mut kv = stored_diamond();
    kv.insert("rec/b".into(), b"{\"json\":true}".to_vec());
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/b")));
    assert!(err.to_string().contains("magic"), "{err}");

    let mut kv = stored_diamond();
    let b = kv.remove("rec/b").unwrap();
    kv.insert("rec/c".into(), b);
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/c")));
}

#[test]
fn a_missing_parent_on_load_is_corrupt_data() {
    let mut kv = stored_diamond();
    kv.remove("rec/a");
    let err = load(&kv).unwrap_err();
    assert_eq!((err.code(), err.key()), ("CORRUPT_DATA", Some("rec/b")));
}

/// Every format version ever written keeps loading. Regenerate the newest with
/// `MEMDAG_WRITE_FIXTURES=1 cargo test -p memdag-core --test codec_format`.
#[test]
fn format_fixtures_still_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let newest = dir.join(format!("store-v{FORMAT_VERSION}.hex"));
    if std::env::var_os("MEMDAG_WRITE_FIXTURES").is_some() {
        let text: String = stored_diamond()
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
