//! `memdag-bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N]
//! [--no-rebuild]`: runs the Mode-2 search workload natively and prints a table, or with
//! `--json` one JSON object per size and one for LoCoMo recall. `--only bm25|vector|hybrid` times
//! one query kind alone (bm25 on text-only stores), for profiling one path.

fn main() {
    std::process::exit(memdag_bench::cli::run(std::env::args().skip(1)));
}
