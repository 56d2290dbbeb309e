//! The core's MessagePack reader (`memdag_core::msgpack`) against rmp-serde's, the reader it
//! replaced: on every input both must agree, the same value or both an error. Stored values
//! written by earlier builds are read by the new reader, so a disagreement would be a store
//! that stops opening (or opens differently).
use memdag_core::msgpack::{from_slice, Reader};
use memdag_core::Record;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::Value;

mod common;

/// Any JSON value, nested a few levels (what tool calls and working memory hold).
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Both readers on the same bytes, as a comparable outcome.
fn both<T: serde::de::DeserializeOwned + PartialEq + core::fmt::Debug>(
    bytes: &[u8],
) -> (Option<T>, Option<T>) {
    (
        from_slice::<T>(bytes).ok(),
        rmp_serde::from_slice::<T>(bytes).ok(),
    )
}

proptest! {
    #[test]
    fn json_values_written_by_rmp_serde_read_the_same(value in arb_json()) {
        let bytes = rmp_serde::to_vec_named(&value).unwrap();
        prop_assert_eq!(from_slice::<Value>(&bytes).unwrap(), value);
    }

    #[test]
    fn arbitrary_bytes_decode_as_rmp_serde_decodes_them(bytes in prop::collection::vec(any::<u8>(), 0..48)) {
        let (ours, theirs) = both::<Value>(&bytes);
        prop_assert_eq!(ours, theirs);
        let (ours, theirs) = both::<Vec<(String, Vec<u8>)>>(&bytes);
        prop_assert_eq!(ours, theirs);
        let (ours, theirs) = both::<Option<Vec<Option<u32>>>>(&bytes);
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn damaged_json_values_decode_as_rmp_serde_decodes_them(value in arb_json(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = rmp_serde::to_vec_named(&value).unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let (ours, theirs) = both::<Value>(&bytes);
        prop_assert_eq!(ours, theirs);
    }
}

#[test]
fn a_reader_decodes_values_one_after_another() {
    let mut store = memdag_core::Store::new();
    for i in 0..5 {
        let id = format!("t{i}");
        let parents: Vec<&str> = if i > 0 { vec!["t0"] } else { vec![] };
        store
            .add_turn(common::turn(
                &id,
                "th",
                &format!("turn {i}: the dog Max, 名字"),
                &parents,
            ))
            .unwrap();
    }
    let records: Vec<Record> = store.iter().cloned().collect();
    assert_eq!(records.len(), 5);
    let mut bytes = Vec::new();
    for r in &records {
        bytes.extend(rmp_serde::to_vec_named(r).unwrap());
    }
    let mut reader = Reader::new(&bytes);
    for r in &records {
        assert_eq!(&Record::deserialize(&mut reader).unwrap(), r);
    }
    assert_eq!(reader.position(), bytes.len());
    assert!(
        Record::deserialize(&mut reader).is_err(),
        "read past the end"
    );
}
