//! What an open that takes its values holds (`Store::load_owned`): it frees each segment part
//! once it has decoded the part's records, so its peak stays below the borrowing open's by at
//! least the RECORDS sections it no longer holds. Counted by a global allocator of this test
//! binary (`memdag_bench::counting`), which holds this one test so that nothing else
//! allocates beside it.

use std::collections::{BTreeMap, HashMap};

use memdag_bench::corpus::Rng;
use memdag_bench::counting::{peak_of, Counting};
use memdag_bench::workload::apply_changes;
use memdag_core::segment::{decode_commit, read_chunks};
use memdag_core::{NewTurn, Record, Store};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Every record, in id order.
fn dump(store: &Store) -> Vec<Record> {
    let mut records: Vec<Record> = store.iter().cloned().collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    records
}

/// The bytes of the RECORDS sections (tag 1) of every chunk the store's commit names.
fn records_section_bytes(kv: &HashMap<String, Vec<u8>>) -> usize {
    let commit = decode_commit(&kv["head"]).unwrap();
    let mut total = 0;
    for info in &commit.segments {
        let read = read_chunks(info, |k| kv.get(k).map(Vec::as_slice)).unwrap();
        for (_, chunk) in read.chunks {
            let body = chunk.bytes();
            let mut at = 0;
            while at + 5 <= body.len() {
                let len = u32::from_le_bytes(body[at + 1..at + 5].try_into().unwrap()) as usize;
                if body[at] == 1 {
                    total += len;
                }
                at += 5 + len;
            }
        }
    }
    total
}

#[test]
fn an_owned_open_peaks_below_a_borrowing_one_by_the_records_it_freed() {
    let mut rng = Rng(0x5eed);
    let mut kv = BTreeMap::new();
    let mut store = Store::new();
    store.set_part_bytes(16 * 1024);
    for i in 0..3000 {
        let words: Vec<String> = (0..12)
            .map(|_| format!("w{}", rng.next_u64() % 5000))
            .collect();
        let vector: Vec<f32> = (0..32)
            .map(|_| (rng.next_u64() % 2001) as f32 / 1000.0 - 1.0)
            .collect();
        store
            .add_turn(NewTurn {
                id: Some(format!("t{i}")),
                thread: format!("th{}", i % 7),
                input: words.join(" "),
                embedding: Some(vector),
                ..Default::default()
            })
            .unwrap();
        // A few flushes, so the store has several segments.
        if i % 1000 == 999 {
            apply_changes(&mut kv, store.take_changes().unwrap());
        }
    }
    apply_changes(&mut kv, store.take_changes().unwrap());
    let expected = dump(&store);
    drop(store);
    let kv: HashMap<String, Vec<u8>> = kv.into_iter().collect();
    let records = records_section_bytes(&kv);
    assert!(records > 300_000, "RECORDS sections: {records} B");

    let (borrowed, borrowed_peak) =
        peak_of(|| Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap());
    assert_eq!(dump(&borrowed), expected);
    drop(borrowed);
    let copy: Vec<(String, Vec<u8>)> = kv.into_iter().collect();
    let (owned, owned_peak) =
        peak_of(|| Store::load_owned(copy, None, None::<Vec<String>>).unwrap());
    assert_eq!(dump(&owned), expected);
    assert!(
        owned_peak + records / 2 < borrowed_peak,
        "owned open peak +{owned_peak} B, borrowing +{borrowed_peak} B, RECORDS {records} B"
    );
}
