//! The benchmark's command line, shared by `memdag-bench` and `memdag bench`.
//!
//! `memdag-bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N]
//! [--no-rebuild]`: runs the Mode-2 search workload natively and prints a table, or with
//! `--json` one JSON object per size and one for LoCoMo recall. `--only bm25|vector|hybrid` times
//! one query kind alone (bm25 on text-only stores), for profiling one path.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use crate::corpus::{synthetic_texts, Rng};
use crate::locomo::{self, Conversation};
use crate::workload::{bm25_query, build, hybrid_query, percentile, vector_query};
use crate::{run_size, table, Options};

static EPOCH: OnceLock<Instant> = OnceLock::new();

fn now_ms() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// Runs the benchmark with these arguments (without the program name); returns the exit code.
pub fn run(args: impl IntoIterator<Item = String>) -> i32 {
    let mut sizes = vec![10_000usize, 100_000];
    let mut json = false;
    let mut data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/locomo-dev");
    let mut opts = Options::default();
    let mut only: Option<String> = None;
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                sizes = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|s| s.trim().parse().ok())
                    .collect();
            }
            "--json" => json = true,
            "--data" => data = PathBuf::from(args.next().unwrap_or_default()),
            "--vector-queries" => {
                opts.vector_queries = args.next().and_then(|s| s.parse().ok()).unwrap_or(500)
            }
            "--no-rebuild" => opts.measure_rebuild = false,
            "--only" => only = args.next(),
            "-h" | "--help" => {
                println!("memdag bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N] [--no-rebuild] [--only bm25|vector|hybrid]");
                return 0;
            }
            other => {
                eprintln!("unknown argument {other:?}");
                return 2;
            }
        }
    }
    let convs: Vec<Conversation> = ["conv-26", "conv-30"]
        .iter()
        .filter_map(|c| {
            let turns = std::fs::read_to_string(data.join(format!("{c}.turns.jsonl"))).ok()?;
            let questions =
                std::fs::read_to_string(data.join(format!("{c}.questions.jsonl"))).ok()?;
            Some(Conversation {
                turns_jsonl: turns,
                questions_jsonl: questions,
            })
        })
        .collect();
    let (base, questions) = if convs.is_empty() {
        eprintln!(
            "no LoCoMo data at {}: using a synthetic text corpus",
            data.display()
        );
        let mut rng = Rng(1);
        let base = synthetic_texts(&mut rng, 5000);
        let questions = synthetic_texts(&mut rng, 300)
            .into_iter()
            .map(|q| q.split(' ').take(6).collect::<Vec<_>>().join(" "))
            .collect();
        (base, questions)
    } else {
        (locomo::turn_texts(&convs), locomo::question_texts(&convs))
    };
    if let Some(mode) = only {
        // One query kind only, 1 warm-up and 5 timed passes: quick, for profiling one path.
        // bm25 runs on a text-only store.
        opts.with_vectors = mode != "bm25";
        for &n in &sizes {
            let built = build(n, &base, &opts, &now_ms);
            let count = if mode == "bm25" {
                questions.len()
            } else {
                built.queries.len()
            };
            let query = |i: usize| match mode.as_str() {
                "bm25" => bm25_query(&questions[i]),
                "vector" => vector_query(&built.queries[i], None),
                _ => hybrid_query(&questions[i % questions.len()], &built.queries[i]),
            };
            let mut times = Vec::new();
            // FNV-1a over every hit's id and score bits: equal digests, equal results.
            let mut digest = memdag_core::hash::Fnv::new();
            for pass in 0..6 {
                for i in 0..count {
                    let q = query(i);
                    let t = now_ms();
                    let hits = built.store.search(&q).expect("search");
                    if pass > 0 {
                        times.push(now_ms() - t);
                    } else {
                        for h in &hits {
                            let bits = h.score.to_bits().to_le_bytes();
                            digest.write(h.id.as_bytes());
                            digest.write(&bits);
                        }
                    }
                }
            }
            println!(
                "{mode} only, {n} records: build {:.0} ms, p50 {:.3} ms, p99 {:.3} ms ({} queries), results {:016x}",
                built.ingest_ms,
                percentile(&times, 50.0),
                percentile(&times, 99.0),
                times.len(),
                digest.finish()
            );
        }
        return 0;
    }
    let mut reports = Vec::new();
    for &n in &sizes {
        eprintln!("bench: building and timing {n} records");
        let r = run_size(n, &base, &questions, &opts, &now_ms, "native");
        if json {
            println!("{}", serde_json::to_string(&r).expect("json"));
        } else {
            eprintln!("bench: {n} records done");
        }
        reports.push(r);
    }
    let recall = if convs.is_empty() {
        Vec::new()
    } else {
        locomo::evaluate(&convs).unwrap_or_else(|e| panic!("locomo: {e}"))
    };
    if json {
        if !recall.is_empty() {
            println!(
                "{}",
                serde_json::json!({ "locomo": recall, "runtime": "native" })
            );
        }
    } else {
        println!("{}", table::sizes(&reports));
        if !recall.is_empty() {
            println!(
                "LoCoMo dev evidence recall ({})\n{}",
                data.display(),
                table::recall(&recall)
            );
        }
    }
    0
}
