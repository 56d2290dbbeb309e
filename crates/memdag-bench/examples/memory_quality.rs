//! Prints the extractor's quality on the labelled sets (a development aid; the benchmark
//! reports the same through `memdag-bench --memory`). Run it from the repository root.
fn main() {
    let root = std::path::Path::new("tests/data/memory");
    let verbose = std::env::args().any(|a| a == "-v");
    for set in ["dev", "heldout"] {
        let (all, en, zh) =
            memdag_bench::memory::score(&root.join(format!("{set}.jsonl"))).unwrap();
        println!(
            "{set}: P {:.3} R {:.3} dup {} superseded-active {} (en P {:.3} R {:.3}, zh P {:.3} R {:.3}) active {} expected {}",
            all.precision, all.recall, all.duplicates, all.superseded_active, en.precision, en.recall, zh.precision, zh.recall, all.active_items, all.expected
        );
        if verbose && set == "dev" {
            for m in &all.misses {
                println!("  {m}");
            }
        }
    }
}
