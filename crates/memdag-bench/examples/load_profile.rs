//! Where the time of `Store::load` goes (not a test): builds a store, writes it as one change
//! set and times the phases of opening it.
//! `cargo run -p memdag-bench --release --example load_profile -- N [PATH [f32|int8|int8+f32]]`
use std::time::Instant;

use memdag_bench::workload::{build, Options};
use memdag_core::export::snapshot;
use memdag_core::index::vecstore::Precision;
use memdag_core::search::postings::InvertedIndex;
use memdag_core::Store;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let base: Vec<String> = (0..500)
        .map(|i| {
            format!("turn {i}: hiking, the dog Max, a trip to Paris and the budget for item {i}")
        })
        .collect();
    // `load_profile N PATH`: reuse the store saved at PATH by an earlier run (to profile the
    // load alone), or save it there.
    let saved = std::env::args().nth(2).map(std::path::PathBuf::from);
    if let Some(path) = saved.as_ref().filter(|p| p.exists()) {
        time_load(&snapshot::decode_snapshot(&std::fs::read(path).unwrap()).unwrap());
        return;
    }
    let t0 = Instant::now();
    let clock = move || t0.elapsed().as_secs_f64() * 1000.0;
    // `load_profile N PATH int8`: vectors kept as int8 codes (f32, the default, otherwise).
    let precision = match std::env::args().nth(3).as_deref() {
        Some("int8") => Precision::Int8,
        Some("int8+f32") => Precision::Int8Exact,
        _ => Precision::F32,
    };
    let opts = Options {
        vector_queries: 0,
        precision,
        ..Default::default()
    };
    let mut built = build(n, &base, &opts, &clock);
    let t = Instant::now();
    let changes = built.store.take_changes().unwrap();
    println!("take_changes: {:.0} ms", ms(t));
    let entries: Vec<(String, Vec<u8>)> = changes
        .into_iter()
        .filter_map(|c| c.value.map(|v| (c.key, v)))
        .collect();
    if let Some(path) = &saved {
        std::fs::write(path, snapshot::encode_snapshot(&entries)).unwrap();
    }
    let bytes: usize = entries.iter().map(|(_, v)| v.len()).sum();
    println!(
        "{n} records, {} keys, {:.0} B/record",
        entries.len(),
        bytes as f64 / n as f64
    );
    let t = Instant::now();
    let crc = entries
        .iter()
        .fold(0, |a, (_, v)| a ^ memdag_core::hash::crc32(v));
    println!("crc32 of all values: {:.0} ms ({crc:x})", ms(t));
    let records: Vec<_> = built.store.iter().cloned().collect();
    let t = Instant::now();
    let mut text = InvertedIndex::default();
    for (i, r) in records.iter().enumerate() {
        text.add(i as u32, r);
    }
    println!("rebuild bm25 alone: {:.0} ms", ms(t));
    time_load(&entries);
}

/// Opens the store and prints how long it took.
fn time_load(entries: &[(String, Vec<u8>)]) {
    let t = Instant::now();
    let store = Store::load(entries.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap();
    println!(
        "Store::load total: {:.0} ms ({} records)",
        ms(t),
        store.len()
    );
}
