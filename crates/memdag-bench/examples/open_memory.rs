//! What an open holds (not a test): builds the workload store, writes it as one change set, and
//! opens it under a counting allocator: the bytes live with the values alone, the peak during
//! `Store::load`, and what stays once the values are dropped, split into the search index (by
//! part), the records (their slots, strings and lists) and the rest. Native sizes (64-bit
//! pointers); the wasm build's headers are about half.
//! `cargo run -p memdag-bench --release --example open_memory -- N [f32|int8] [sealed]`
//!
//! Plain, it is also opened taking a copy of the values (`Store::load_owned`, which frees each
//! segment part once read), with that open's peak above the values beside the borrowing one's.
//!
//! With `sealed`, the store is encrypted at rest (seal v1, the core's cipher), and it is opened
//! twice: borrowing the values (`Store::load_with_cipher`, each value opened into a new buffer
//! while the sealed one is held) and taking them (`Store::load_owned`, each opened in place),
//! with the peak above the values of each.
use memdag_bench::counting::{live, peak_of, Counting};
use memdag_bench::workload::{build, Options};
use memdag_core::index::vecstore::Precision;
use memdag_core::{Cipher, Record, Store};

#[global_allocator]
static ALLOC: Counting = Counting;

fn mib(b: usize) -> String {
    format!("{:.1} MiB", b as f64 / 1048576.0)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let precision = match std::env::args().nth(2).as_deref() {
        Some("f32") => Precision::F32,
        _ => Precision::Int8,
    };
    let sealed = std::env::args().nth(3).as_deref() == Some("sealed");
    let base: Vec<String> = (0..500)
        .map(|i| {
            format!("turn {i}: hiking, the dog Max, a trip to Paris and the budget for item {i}")
        })
        .collect();
    let opts = Options {
        vector_queries: 0,
        precision,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let clock = move || t0.elapsed().as_secs_f64() * 1000.0;
    let mut built = build(n, &base, &opts, &clock);
    let cipher = Cipher::new(&[7; 32]).unwrap();
    if sealed {
        // The next change set rewrites the whole store sealed.
        built.store.set_cipher(Some(cipher.clone()));
    }
    let entries: Vec<(String, Vec<u8>)> = built
        .store
        .take_changes()
        .unwrap()
        .into_iter()
        .filter_map(|c| c.value.map(|v| (c.key, v)))
        .collect();
    drop(built);
    let values: usize = entries.iter().map(|(k, v)| k.len() + v.len()).sum();
    if sealed {
        return open_sealed(entries, values, cipher, n);
    }
    // The open that takes its values and frees each part once read, over a copy, first.
    let copy = entries.clone();
    let (store, owned_peak, owned_ms) =
        measured(|| Store::load_owned(copy, None, None::<Vec<String>>).unwrap());
    let owned_len = store.len();
    drop(store);
    let before = live();
    let (store, above) =
        peak_of(|| Store::load(entries.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap());
    let peak = before + above;
    let with_values = live();
    drop(entries);
    let after = live();
    let per = |b: usize| b as f64 / n as f64;
    println!(
        "{n} records ({precision:?}): values {} ({:.0} B/rec)",
        mib(values),
        per(values)
    );
    println!(
        "live before the open (values and the rest): {}",
        mib(before)
    );
    println!(
        "peak during the open: {} (+{} over before, {:.0} B/rec)",
        mib(peak),
        mib(peak - before),
        per(peak - before)
    );
    println!(
        "after the open, values held: {}; values dropped: {} (the store: {:.0} B/rec)",
        mib(with_values),
        mib(after),
        per(after.saturating_sub(before - values))
    );
    println!(
        "transient above the final store + values: {} ({:.0} B/rec)",
        mib(peak - with_values),
        per(peak - with_values)
    );
    assert_eq!(owned_len, store.len());
    println!(
        "load_owned (each part freed once read): peak +{} over the values ({:.0} B/rec), \
         {:.2}x the borrowing open's +{}; {owned_ms:.0} ms",
        mib(owned_peak),
        per(owned_peak),
        owned_peak as f64 / (peak - before) as f64,
        mib(peak - before)
    );
    let index = store.search_index().heap_bytes();
    let records = records_bytes(&store);
    println!(
        "of the store: search index {:.0} B/rec, records {:.0} B/rec (the slots {} B each, and \
         their strings and lists), the rest (ids, DAG, orders, allocator) {:.0} B/rec",
        per(index),
        per(records),
        std::mem::size_of::<Option<Record>>(),
        per((after + values).saturating_sub(before + index + records))
    );
    for (part, bytes) in store.search_index().heap_parts() {
        println!("  index part {part}: {:.1} B/rec", per(bytes));
    }
}

/// The bytes the records take: their slots, and the heap their strings and lists hold (by
/// capacity; the allocator's own overhead is not counted).
fn records_bytes(store: &Store) -> usize {
    let text = |s: &String| s.capacity();
    let slots = store.iter().count() * std::mem::size_of::<Option<Record>>();
    slots
        + store
            .iter()
            .map(|r| {
                text(&r.id)
                    + text(&r.thread)
                    + text(&r.user)
                    + text(&r.input)
                    + text(&r.output)
                    + r.steps.capacity() * std::mem::size_of::<memdag_core::Step>()
                    + r.steps
                        .iter()
                        .map(|s| text(&s.tool) + text(&s.args) + text(&s.result))
                        .sum::<usize>()
                    + r.parents.capacity() * std::mem::size_of::<String>()
                    + r.parents.iter().map(text).sum::<usize>()
                    + r.tags.capacity() * std::mem::size_of::<String>()
                    + r.tags.iter().map(text).sum::<usize>()
                    + r.compact.as_ref().map_or(0, |c| {
                        text(&c.summary)
                            + c.sections.capacity() * std::mem::size_of::<memdag_core::Section>()
                            + c.sections
                                .iter()
                                .map(|s| text(&s.name) + text(&s.text))
                                .sum::<usize>()
                    })
                    + r.embedding.as_ref().map_or(0, |e| e.capacity() * 4)
                    + r.item
                        .as_ref()
                        .map_or(0, |_| std::mem::size_of::<memdag_core::item::ItemMeta>())
            })
            .sum::<usize>()
}

/// Runs `open`, and returns what it opened with its peak above the bytes live before it and
/// its time in ms.
fn measured(open: impl FnOnce() -> Store) -> (Store, usize, f64) {
    let t = std::time::Instant::now();
    let (store, above) = peak_of(open);
    (store, above, t.elapsed().as_secs_f64() * 1000.0)
}

/// Opens the sealed `entries` borrowing them, then taking them, and prints each open's peak
/// above the values.
fn open_sealed(entries: Vec<(String, Vec<u8>)>, values: usize, cipher: Cipher, n: usize) {
    let per = |b: usize| b as f64 / n as f64;
    println!(
        "{n} records, sealed: values {} ({:.0} B/rec)",
        mib(values),
        per(values)
    );
    let (store, borrowed, borrowed_ms) = measured(|| {
        let pairs = entries.iter().map(|(k, v)| (k.as_str(), v.as_slice()));
        Store::load_with_cipher(pairs, Some(cipher.clone())).unwrap()
    });
    let len = store.len();
    drop(store);
    println!(
        "load_with_cipher (borrowing): peak +{} over the values ({:.0} B/rec), {borrowed_ms:.0} ms",
        mib(borrowed),
        per(borrowed)
    );
    let (store, owned, owned_ms) =
        measured(|| Store::load_owned(entries, Some(cipher), None::<Vec<String>>).unwrap());
    assert_eq!(store.len(), len);
    println!(
        "load_owned (in place): peak +{} over the values ({:.0} B/rec), {:.2}x; {owned_ms:.0} ms",
        mib(owned),
        per(owned),
        owned as f64 / borrowed as f64
    );
}
