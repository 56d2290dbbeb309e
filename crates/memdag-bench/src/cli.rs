//! The benchmark's command line, shared by `memdag-bench` and `memdag bench`.
//!
//! `memdag-bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N]
//! [--no-rebuild]`: runs the Mode-2 search workload natively and prints a table, or with
//! `--json` one JSON object per size and one for LoCoMo recall. `--ann` times the raw vector
//! index against an exact scan at ef 32 to 256 (see `ann`). `--only bm25|vector|hybrid` times
//! one query kind alone (bm25 on text-only stores), for profiling one path. `--grep` times a
//! few grep patterns over a text-only store of each size (see `grep`). `--seal [--rounds
//! N]` times a flush of the whole store and a cold open, plain and encrypted (see `seal`).
//! `--precision f32|int8|int8+f32 [--train N]` keeps the stores' vectors at that precision
//! (default int8, the store's default; the LoCoMo stores' too: with `--train` below their 400
//! turns, their int8 steps are trained).
//!
//! `--locomo` prints the retrieval-quality report instead of timing anything: every ranking
//! technique alone and together, per conversation and per question category, the Mode-1
//! `recall_evidence_at_2000` row and the Chinese check. `--cli PATH` adds the same rows
//! through the `memdag` binary at PATH (`memdag ingest` + `memdag search --batch`).

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use crate::corpus::{synthetic_texts, Rng};
use crate::locomo::{self, Conversation};
use crate::workload::{bm25_query, build, hybrid_query, percentile, vector_query};
use crate::{cli_path, zh};
use crate::{run_size, table, Options};
use memdag_core::index::vecstore::{Precision, VectorSettings};

static EPOCH: OnceLock<Instant> = OnceLock::new();

fn now_ms() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

/// `rel` from the repository root: the current directory is the root (scripts run there) or
/// a crate in it (`cargo test` runs there).
fn repo_path(rel: &str) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    for base in [cwd.clone(), cwd.join("../..")] {
        if base.join("Cargo.toml").exists() && base.join("crates").exists() {
            return base.join(rel);
        }
    }
    cwd.join(rel)
}

/// The long-term memory rows: extraction quality on the labelled sets, and the speed rows at
/// the largest size (turns), with a tenth as many items and as many facts as turns.
fn memory_report(base: &[String], sizes: &[usize], json: bool, data: &std::path::Path) -> i32 {
    let root = repo_path("tests/data/memory");
    for set in ["dev", "heldout"] {
        match crate::memory::score(&root.join(format!("{set}.jsonl"))) {
            Ok((all, en, zh)) => {
                if json {
                    println!(
                        "{}",
                        serde_json::json!({"extraction": set, "all": all, "en": en, "zh": zh})
                    );
                } else {
                    println!(
                        "extraction {set}: precision {:.3} recall {:.3} duplicates {} superseded-active {} (en {:.3}/{:.3}, zh {:.3}/{:.3}; {} conversations, {} active items, {} expected)",
                        all.precision, all.recall, all.duplicates, all.superseded_active,
                        en.precision, en.recall, zh.precision, zh.recall,
                        all.conversations, all.active_items, all.expected
                    );
                }
            }
            Err(e) => {
                eprintln!("bench: {e}");
                return 1;
            }
        }
    }
    match observation_sets(data).and_then(|(from, sets)| {
        eprintln!("bench: observations of {from}");
        crate::observations::run(&sets, &now_ms, "native")
    }) {
        Ok(r) if json => println!("{}", serde_json::json!({ "observations": r })),
        Ok(r) => println!("{}", crate::observations::line(&r)),
        Err(e) => {
            eprintln!("bench: observations: {e}");
            return 1;
        }
    }
    let turns = sizes.iter().copied().max().unwrap_or(100_000);
    eprintln!(
        "bench: memory speed at {turns} turns, {} items, {turns} facts",
        turns / 10
    );
    let r = crate::memory::speed(base, turns, turns / 10, turns, &now_ms, "native");
    if json {
        println!("{}", serde_json::to_string(&r).expect("json"));
    } else {
        println!("{}", crate::memory::speed_table(&[r]));
    }
    0
}

/// The conversations with observations in `data` (conv-26 and conv-30, LoCoMo's dev split),
/// else the repository's fixture (tests/data/locomo): where they come from, and (turns,
/// observations) texts.
fn observation_sets(data: &std::path::Path) -> Result<(String, Vec<(String, String)>), String> {
    let read = |dir: &std::path::Path, names: &[&str]| -> Option<Vec<(String, String)>> {
        names
            .iter()
            .map(|c| {
                let t = std::fs::read_to_string(dir.join(format!("{c}.turns.jsonl"))).ok()?;
                let o =
                    std::fs::read_to_string(dir.join(format!("{c}.observations.jsonl"))).ok()?;
                Some((t, o))
            })
            .collect()
    };
    if let Some(sets) = read(data, &["conv-26", "conv-30"]) {
        return Ok((data.display().to_string(), sets));
    }
    let fixture = repo_path("tests/data/locomo");
    read(&fixture, &["conv-30"])
        .map(|sets| {
            (
                format!("{} (no dev split at {})", fixture.display(), data.display()),
                sets,
            )
        })
        .ok_or_else(|| {
            format!(
                "no observations at {} nor {}",
                data.display(),
                fixture.display()
            )
        })
}

/// Runs the benchmark with these arguments (without the program name); returns the exit code.
pub fn run(args: impl IntoIterator<Item = String>) -> i32 {
    let mut sizes = vec![10_000usize, 100_000];
    let mut json = false;
    // Beside the repository, as the workplace keeps it; `--data` or $MEMDAG_LOCOMO_DIR
    // elsewhere. Resolved at run time, so no binary holds a path from outside the repository.
    let mut data = std::env::var_os("MEMDAG_LOCOMO_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_path("../shared/data/locomo-dev"));
    let mut opts = Options::default();
    let mut only: Option<String> = None;
    let mut report = false;
    let mut memdag: Option<PathBuf> = None;
    let mut seal = false;
    let mut memory = false;
    let mut ann = false;
    let mut grep = false;
    let mut rounds = 3usize;
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
            "--locomo" => report = true,
            "--cli" => memdag = args.next().map(PathBuf::from),
            "--seal" => seal = true,
            "--memory" => memory = true,
            "--ann" => ann = true,
            "--grep" => grep = true,
            "--train" => opts.train = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024),
            "--precision" => {
                let p = args.next().unwrap_or_default();
                match serde_json::from_value(serde_json::Value::String(p.clone())) {
                    Ok(v) => opts.precision = v,
                    Err(_) => {
                        eprintln!("--precision: f32, int8 or int8+f32, not {p:?}");
                        return 2;
                    }
                }
            }
            "--rounds" => rounds = args.next().and_then(|s| s.parse().ok()).unwrap_or(3),
            "-h" | "--help" => {
                println!("memdag bench [--sizes 10000,100000] [--json] [--data DIR] [--vector-queries N] [--no-rebuild] [--only bm25|vector|hybrid] [--seal [--rounds N]] [--locomo [--cli PATH]] [--memory] [--ann] [--grep] [--precision f32|int8|int8+f32 [--train N]]");
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
                name: c.to_string(),
                turns_jsonl: turns,
                questions_jsonl: questions,
            })
        })
        .collect();
    if report {
        return match quality_report(&convs, memdag.as_deref(), json) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("bench: {e}");
                1
            }
        };
    }
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
    if memory {
        return memory_report(&base, &sizes, json, &data);
    }
    if seal {
        let mut reports = Vec::new();
        for &n in &sizes {
            eprintln!("bench: building {n} records, then flush and open, plain and sealed");
            let mut built = build(n, &base, &opts, &now_ms);
            let r = crate::seal::seal_costs(&mut built.store, rounds, &now_ms, "native");
            if json {
                println!("{}", serde_json::to_string(&r).expect("json"));
            }
            reports.push(r);
        }
        if !json {
            println!("{}", crate::seal::table(&reports));
        }
        return 0;
    }
    if grep {
        // Text only: grep reads the raw logs, not the vectors.
        opts.with_vectors = false;
        let mut rows = Vec::new();
        for &n in &sizes {
            eprintln!("bench: building {n} records, then grep");
            let built = build(n, &base, &opts, &now_ms);
            rows.extend(crate::grep::grep_times(&built.store, 21, &now_ms));
        }
        if json {
            for r in &rows {
                println!("{}", serde_json::to_string(r).expect("json"));
            }
        } else {
            println!("{}", crate::grep::table(&rows));
        }
        return 0;
    }
    if ann {
        let mut reports = Vec::new();
        for &n in &sizes {
            eprintln!(
                "bench: building {n} records, then the raw index at ef {:?}",
                crate::ann::EFS
            );
            let built = build(n, &base, &opts, &now_ms);
            let truth = crate::ann::truth(n, &built.queries);
            let r = crate::ann::measure(
                &built.store,
                &built.queries,
                &truth,
                &crate::ann::EFS,
                &now_ms,
            );
            if json {
                println!("{}", serde_json::to_string(&r).expect("json"));
            }
            reports.push(r);
        }
        if !json {
            println!("{}", crate::ann::table(&reports));
        }
        if !convs.is_empty() {
            // Real 384-d embeddings: the share of the exact ten each precision finds. A
            // conversation has about 400 turns, so the steps are trained on its first 64.
            println!("LoCoMo dev turns (all-MiniLM-L6-v2, 384-d), raw index at ef 128, recall@10 against the exact f32 ten");
            println!("| precision | train | questions | recall@10 |\n|---|---|---|---|");
            let train = 64;
            for precision in [Precision::F32, Precision::Int8, Precision::Int8Exact] {
                let settings = VectorSettings { precision, train };
                match crate::ann::locomo_recall(&convs, settings, 128) {
                    Ok((r, n)) => println!(
                        "| {} | {train} | {n} | {r:.4} |",
                        serde_json::to_value(precision)
                            .unwrap_or_default()
                            .as_str()
                            .unwrap_or("")
                    ),
                    Err(e) => eprintln!("bench: locomo recall: {e}"),
                }
            }
        }
        return 0;
    }
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
    let (recall, mode1) = if convs.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let settings = opts.vector_settings();
        let loaded = locomo::load_with(&convs, settings).unwrap_or_else(|e| panic!("locomo: {e}"));
        (
            locomo::evaluate_with(&convs, settings).unwrap_or_else(|e| panic!("locomo: {e}")),
            locomo::recall_evidence_at_2000(&loaded).unwrap_or_else(|e| panic!("locomo: {e}")),
        )
    };
    if json {
        if !recall.is_empty() {
            println!(
                "{}",
                serde_json::json!({ "locomo": recall, "recall_evidence_at_2000": mode1,
                                    "runtime": "native" })
            );
        }
    } else {
        if !reports.is_empty() {
            println!("{}", table::sizes(&reports));
            println!("Memory a record, by part\n{}", table::memory(&reports));
        }
        if !recall.is_empty() {
            println!(
                "LoCoMo dev evidence recall ({})\n{}\n{}",
                data.display(),
                table::recall(&recall),
                mode1_line(&mode1)
            );
        }
    }
    0
}

/// `recall_evidence_at_2000` per conversation and over all, on one line.
fn mode1_line(rows: &[(String, f64, usize)]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|(c, r, n)| format!("{c} {r:.3} ({n} q)"))
        .collect();
    format!("recall_evidence_at_2000 (mode 1): {}", parts.join(", "))
}

/// The retrieval-quality report (`--locomo`).
fn quality_report(
    convs: &[Conversation],
    memdag: Option<&std::path::Path>,
    json: bool,
) -> Result<(), String> {
    if convs.is_empty() {
        return Err("no LoCoMo data (use --data DIR)".into());
    }
    let loaded = locomo::load(convs)?;
    let variants = locomo::variants();
    let rows = locomo::evaluate_variants(&loaded, &variants)?;
    let mode1 = locomo::recall_evidence_at_2000(&loaded)?;
    let chinese = zh::evaluate()?;
    let cli = match memdag {
        Some(bin) => Some(cli_path::evaluate(bin, convs)?),
        None => None,
    };
    if json {
        println!(
            "{}",
            serde_json::json!({ "variants": rows, "recall_evidence_at_2000": mode1,
                                "chinese": chinese, "cli": cli })
        );
        return Ok(());
    }
    println!(
        "LoCoMo dev evidence recall, {} questions, by technique\n{}",
        rows.first().map_or(0, |r| r.all.questions),
        table::variants(&rows)
    );
    println!(
        "Per conversation\n{}",
        table::conversations(
            &rows,
            &[locomo::BEFORE, "all but stemming", locomo::DEFAULT]
        )
    );
    for (mode, _) in locomo::MODES {
        println!(
            "Per question category ({mode})\n{}",
            table::categories(&rows, mode)
        );
    }
    println!("{}\n", mode1_line(&mode1));
    println!(
        "Chinese check ({} questions over {} turns written for it)\n{}",
        chinese.first().map_or(0, |r| r.questions),
        zh::TURNS,
        table::recall(&chinese)
    );
    if let Some(cli) = cli {
        println!(
            "CLI path (memdag ingest + memdag search --batch, default options)\n{}",
            table::recall(&cli)
        );
    }
    Ok(())
}
