//! Arbitrary key sets: keys of every namespace with arbitrary values, half of them sealed with
//! a valid checksum for the kind their key suggests.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::envelope::{seal, Kind};
use memdag_core::Store;

fuzz_target!(|data: &[u8]| {
    const KEYS: [&str; 8] = [
        "head",
        "seg/0000000000000001/0",
        "seg/0000000000000001/1",
        "seg/0000000000000002/0",
        "meta",
        "rec/a",
        "blob/b0",
        "idx/hnsw/a",
    ];
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut at = 0;
    while at + 2 <= data.len() {
        let (k, len) = (data[at], data[at + 1] as usize);
        at += 2;
        let value = &data[at..(at + len).min(data.len())];
        at += len;
        let key = KEYS[(k & 7) as usize];
        let kind = match key {
            "head" => Kind::Commit,
            "meta" => Kind::Meta,
            "rec/a" => Kind::Record,
            "blob/b0" => Kind::Blob,
            "idx/hnsw/a" => Kind::IndexNode,
            _ => Kind::SegmentPart,
        };
        let value = if k & 8 != 0 {
            seal(kind, value)
        } else {
            value.to_vec()
        };
        entries.push((key.to_string(), value));
    }
    if let Ok(mut store) = Store::load(entries) {
        let _ = store.take_changes();
    }
});
