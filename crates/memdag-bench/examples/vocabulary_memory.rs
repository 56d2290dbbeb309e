//! The text index's memory when most terms are rare (not a test). Tool logs and agent turns
//! carry ids, hashes, paths and numbers that occur once or twice, so a store's vocabulary can
//! grow with its records, and what a term costs before its first posting adds up. Builds N
//! text-only records, each a few common words and tokens of its own (a request id, a file
//! name), and prints the text index's parts per record and per distinct term.
//! `cargo run -p memdag-bench --release --example vocabulary_memory -- 100000`
use memdag_bench::corpus::Rng;
use memdag_bench::workload::{build, Options};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    // A fixed seed, so that every run indexes the same tokens.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    let verbs = ["read", "wrote", "fetched", "deleted", "listed", "patched"];
    let texts: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{} /srv/app/{:08x}.log for request {:016x}: status {} in {} ms",
                verbs[i % verbs.len()],
                next() as u32,
                next(),
                [200, 404, 500][i % 3],
                next() % 2000
            )
        })
        .collect();
    let opts = Options {
        vector_queries: 0,
        with_vectors: false,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let clock = move || t0.elapsed().as_secs_f64() * 1000.0;
    let built = build(n, &texts, &opts, &clock);
    let text = built.store.search_index().text();
    let terms = text.vocabulary();
    println!(
        "{n} records, {terms} distinct terms ({:.2} a record)",
        terms as f64 / n as f64
    );
    let mut total = 0;
    for (part, bytes) in text.heap_parts() {
        total += bytes;
        println!(
            "  {part}: {:.1} B a record, {:.1} B a term",
            bytes as f64 / n as f64,
            bytes as f64 / terms as f64
        );
    }
    println!(
        "text index: {:.1} B a record, {:.1} B a term",
        total as f64 / n as f64,
        total as f64 / terms as f64
    );
}
