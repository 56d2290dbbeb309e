//! An owned open (`Store::load_owned`) under a memory cap that has no room for its buffer of
//! int8 codes, the largest allocation it makes (see `memdag_core::storage`'s owned open):
//! it fails with a STORAGE error and the values it was given stay a store that opens, where
//! an allocation that cannot fail would abort (in wasm, kill the instance). The cap is a
//! global allocator of this test binary refusing allocations above a size
//! (`memdag_bench::counting`), which holds this one test so that nothing else runs beside it.

use std::collections::BTreeMap;

use memdag_bench::counting::{refusing_larger_than, Counting};
use memdag_bench::workload::apply_changes;
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::{NewTurn, Store};

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn an_owned_open_without_room_for_its_codes_fails_with_storage_and_loses_nothing() {
    let mut store = Store::new();
    store
        .set_vector_settings(VectorSettings {
            precision: Precision::Int8,
            train: 64,
        })
        .unwrap();
    store.set_part_bytes(16 * 1024);
    for i in 0..3000 {
        let vector: Vec<f32> = (0..32)
            .map(|d| ((i * 13 + d * 7) % 29) as f32 - 14.0)
            .collect();
        store
            .add_turn(NewTurn {
                id: Some(format!("t{i}")),
                thread: "main".into(),
                input: format!("turn {i}"),
                embedding: Some(vector),
                ..Default::default()
            })
            .unwrap();
    }
    let mut kv = BTreeMap::new();
    apply_changes(&mut kv, store.take_changes().unwrap());
    drop(store);
    let entries: Vec<(String, Vec<u8>)> = kv.clone().into_iter().collect();
    // 3,000 rows of 32 codes: 96,000 bytes in one buffer; every other allocation of the
    // open's first two steps is smaller than 64 KiB (parts of 16 KiB).
    let refused = refusing_larger_than(64 * 1024, || {
        Store::load_owned(entries, None, None::<Vec<String>>).err()
    });
    let e = refused.expect("the open fails under the cap");
    assert_eq!(e.code(), "STORAGE", "{e}");
    assert!(e.to_string().contains("out of memory"), "{e}");
    // Nothing was written or lost: the same values open without the cap.
    let opened = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(opened.len(), 3000);
}
