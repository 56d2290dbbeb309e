//! An owned open (`Store::load_owned`) under a memory cap that has no room for one of its
//! largest arrays (see `memdag_core::storage`'s owned open and the core's `room` module): the
//! pages of int8 codes, the records, the vectors. It fails with a STORAGE error naming what
//! it could not allocate, and the values it was given stay a store that opens, where an
//! allocation that cannot fail would abort (in wasm, kill the instance). The cap is a global
//! allocator of this test binary refusing allocations above a size (`memdag_bench::counting`);
//! the tests take turns (`SERIAL`), so that no test allocates under another's cap.

use std::collections::BTreeMap;
use std::sync::Mutex;

use memdag_bench::counting::{refusing_larger_than, Counting};
use memdag_bench::workload::apply_changes;
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::{Error, NewTurn, Store};

#[global_allocator]
static ALLOC: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

/// The stored values of `turns` turns with vectors of `dim` kept at `precision`, written in
/// parts of 16 KiB (so that no value, nor anything the open's first two steps make of one, is
/// as large as the arrays the caps below refuse).
fn stored(precision: Precision, dim: usize, turns: usize) -> BTreeMap<String, Vec<u8>> {
    let mut store = Store::new();
    store
        .set_vector_settings(VectorSettings {
            precision,
            train: 64,
        })
        .unwrap();
    store.set_part_bytes(16 * 1024);
    for i in 0..turns {
        let vector: Vec<f32> = (0..dim)
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
    kv
}

/// Opens `kv` owned with allocations above `cap` refused; it must fail with STORAGE, out of
/// memory for `what`. Then the same values must open whole without the cap.
fn refused_then_opens(kv: &BTreeMap<String, Vec<u8>>, turns: usize, cap: usize, what: &str) {
    let entries: Vec<(String, Vec<u8>)> = kv.clone().into_iter().collect();
    let refused: Option<Error> = refusing_larger_than(cap, || {
        Store::load_owned(entries, None, None::<Vec<String>>).err()
    });
    let e = refused.expect("the open fails under the cap");
    assert_eq!(e.code(), "STORAGE", "{e}");
    let message = e.to_string();
    assert!(message.contains("out of memory"), "{message}");
    assert!(message.contains(what), "{message}");
    let opened = Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    assert_eq!(opened.len(), turns);
}

#[test]
fn an_owned_open_without_room_for_its_codes_fails_with_storage_and_loses_nothing() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 500 rows of 384 codes (192,000 bytes) in a page that grows by doubling: past 160 KiB
    // before the rows are in, where the records' array (500 of 296 bytes, made first) fits.
    let kv = stored(Precision::Int8, 384, 500);
    refused_then_opens(&kv, 500, 160 * 1024, "a page of its int8 vectors");
}

#[test]
fn an_open_without_room_for_its_records_fails_with_storage_and_loses_nothing() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The records' array (3,000 records, hundreds of KB) is the first allocation over 256 KiB;
    // smaller ones come before it (the text index's tables, the records' order).
    let kv = stored(Precision::F32, 32, 3000);
    refused_then_opens(&kv, 3000, 256 * 1024, "its records");
}

#[test]
fn an_open_without_room_for_its_vectors_fails_with_storage_and_loses_nothing() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 3,000 f32 vectors of 384: 4.6 MB in one array, past a 2 MiB cap that the records' array
    // fits under.
    let kv = stored(Precision::F32, 384, 3000);
    refused_then_opens(&kv, 3000, 2 << 20, "f32 vectors");
}
