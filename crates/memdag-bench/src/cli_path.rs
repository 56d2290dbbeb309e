//! The CLI-path rows: the same LoCoMo questions through the `memdag` binary, as a user would
//! run them. Each conversation is written as `memdag ingest` JSON lines (the text as `input`,
//! `created_at` as its ISO string, the MiniLM vector as `embedding`) into a fresh store
//! directory, and its questions (text and vector) as one `memdag search --batch` file, asked
//! with no ranking flag but `--mode` and `--k` (one run per k of the report). The rows must equal the in-process
//! "all (default)" rows.

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::locomo::{self, Conversation, Question, Ranked, Recall, Turn, KS, MODES};

fn run(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "memdag {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The `memdag ingest` lines of a conversation's turns.
pub fn ingest_lines(turns: &[Turn]) -> String {
    turns
        .iter()
        .map(|t| {
            json!({ "id": t.id, "thread": t.thread, "user": t.user, "created_at": t.created_at,
                    "input": t.text, "embedding": t.embedding })
            .to_string()
                + "\n"
        })
        .collect()
}

/// The `memdag search --batch` lines of a conversation's questions, ids by position.
pub fn batch_lines(questions: &[Question]) -> String {
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            json!({ "id": i, "text": q.question, "embedding": q.embedding }).to_string() + "\n"
        })
        .collect()
}

/// Recall per mode through the binary at `bin`.
pub fn evaluate(bin: &Path, convs: &[Conversation]) -> Result<Vec<Recall>, String> {
    let tmp = std::env::temp_dir().join(format!("memdag-bench-cli-{}", std::process::id()));
    let mut questions: Vec<(String, Vec<Question>)> = Vec::new();
    let mut ranked: Vec<Vec<Vec<Ranked>>> = vec![Vec::new(); MODES.len()];
    for conv in convs {
        let turns: Vec<Turn> = locomo::parse(&conv.turns_jsonl)?;
        let qs: Vec<Question> = locomo::parse(&conv.questions_jsonl)?;
        let dir = tmp.join(&conv.name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let (turns_file, batch_file, store) = (
            dir.join("turns.jsonl"),
            dir.join("queries.jsonl"),
            dir.join("store"),
        );
        std::fs::write(&turns_file, ingest_lines(&turns)).map_err(|e| e.to_string())?;
        std::fs::write(&batch_file, batch_lines(&qs)).map_err(|e| e.to_string())?;
        let store = store.to_string_lossy().to_string();
        run(
            bin,
            &["--store", &store, "ingest", &turns_file.to_string_lossy()],
        )?;
        for (m, (mode, _)) in MODES.iter().enumerate() {
            let mut hits: Vec<Ranked> = vec![Vec::new(); qs.len()];
            for k in KS {
                let k = k.to_string();
                let batch = batch_file.to_string_lossy();
                let args = [
                    "--store", &store, "search", "--batch", &batch, "--mode", mode, "--k", &k,
                    "--json",
                ];
                for line in run(bin, &args)?.lines().filter(|l| !l.trim().is_empty()) {
                    let v: serde_json::Value =
                        serde_json::from_str(line).map_err(|e| e.to_string())?;
                    let i = v["query"]
                        .as_u64()
                        .ok_or("batch answer without a query id")?;
                    let ids = v["ids"].as_array().ok_or("batch answer without ids")?;
                    let ids = ids.iter().filter_map(|x| x.as_str().map(String::from));
                    hits.get_mut(i as usize)
                        .ok_or("query id out of range")?
                        .push(ids.collect());
                }
            }
            ranked[m].push(hits);
        }
        questions.push((conv.name.clone(), qs));
        let _ = std::fs::remove_dir_all(&dir);
    }
    let by_conv: Vec<(&str, &[Question])> = questions
        .iter()
        .map(|(n, q)| (n.as_str(), q.as_slice()))
        .collect();
    Ok(MODES
        .iter()
        .zip(&ranked)
        .map(|((mode, _), r)| {
            let mut row = locomo::score("cli", mode, &by_conv, r).all;
            row.mode = format!("cli {mode}");
            row
        })
        .collect())
}
