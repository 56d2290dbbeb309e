//! `memdag-bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N]
//! [--no-rebuild]`: runs the Mode-2 search workload natively and prints a table, or with
//! `--json` one JSON object per size and one for LoCoMo recall.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use memdag_bench::corpus::{synthetic_texts, Rng};
use memdag_bench::locomo::{self, Conversation};
use memdag_bench::{run_size, table, Options};

static EPOCH: OnceLock<Instant> = OnceLock::new();

fn now_ms() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let mut sizes = vec![10_000usize, 100_000];
    let mut json = false;
    let mut data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/locomo-dev");
    let mut opts = Options::default();
    let mut args = std::env::args().skip(1);
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
            "-h" | "--help" => {
                println!("memdag-bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N] [--no-rebuild]");
                return;
            }
            other => {
                eprintln!("unknown argument {other:?}");
                std::process::exit(2);
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
    let mut reports = Vec::new();
    for &n in &sizes {
        let r = run_size(n, &base, &questions, &opts, &now_ms, "native");
        if json {
            println!("{}", serde_json::to_string(&r).expect("json"));
        } else {
            eprintln!("done: {n} records");
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
}
