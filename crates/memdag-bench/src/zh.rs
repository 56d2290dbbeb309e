//! The Chinese retrieval check: a conversation written for it (`data/zh/`, 4 sessions of two
//! speakers, 60 turns) and 24 questions with their evidence turns.
//!
//! The reference is a plain character-bigram BM25 (Okapi, `k1` 1.2, `b` 0.75): every run of
//! Han characters gives its overlapping bigrams (a lone character its unigram), other words
//! their lower-cased `\w+` tokens. memdag is asked in bm25 mode and in hybrid mode with its
//! built-in embedder (there is no MiniLM vector for this text), with the ranking before the
//! techniques of the LoCoMo report and with the default ranking: Chinese must not get worse.

use std::collections::HashMap;

use memdag_core::search::SearchMode;
use memdag_core::{NewTurn, Store};
use serde::Deserialize;

use crate::locomo::{iso_ms, parse, Recall, KS};

/// Turns of the check.
pub const TURNS: usize = 60;
const TURNS_JSONL: &str = include_str!("../data/zh/turns.jsonl");
const QUESTIONS_JSONL: &str = include_str!("../data/zh/questions.jsonl");

#[derive(Deserialize)]
struct Turn {
    id: String,
    thread: String,
    user: String,
    created_at: String,
    text: String,
}

#[derive(Deserialize)]
struct Question {
    question: String,
    evidence: Vec<String>,
}

/// The reference tokens: Han-run bigrams and lower-cased `\w+` words.
pub fn bigram_tokens(text: &str) -> Vec<String> {
    let han = |c: char| matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF);
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut word = String::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        if run.len() == 1 {
            out.push(run[0].to_string());
        }
        for w in run.windows(2) {
            out.push(w.iter().collect());
        }
        run.clear();
    };
    for c in text.chars().chain(core::iter::once(' ')) {
        if han(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            if c.is_alphanumeric() || c == '_' {
                word.extend(c.to_lowercase());
            } else if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    out
}

/// Okapi BM25 over bigram tokens: the ids of `docs` ranked for `query`, best first (ties by
/// position), only those sharing a token.
pub fn bigram_bm25(docs: &[(String, Vec<String>)], query: &str) -> Vec<String> {
    let (k1, b) = (1.2f64, 0.75f64);
    let n = docs.len() as f64;
    let avg = docs.iter().map(|d| d.1.len()).sum::<usize>() as f64 / n.max(1.0);
    let mut df: HashMap<&str, f64> = HashMap::new();
    for (_, toks) in docs {
        let mut seen: Vec<&str> = toks.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for t in seen {
            *df.entry(t).or_default() += 1.0;
        }
    }
    let q = bigram_tokens(query);
    let mut scored: Vec<(usize, f64)> = docs
        .iter()
        .enumerate()
        .map(|(i, (_, toks))| {
            let len = toks.len() as f64;
            let s = q
                .iter()
                .map(|t| {
                    let tf = toks.iter().filter(|x| *x == t).count() as f64;
                    let d = df.get(t.as_str()).copied().unwrap_or(0.0);
                    let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
                    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg))
                })
                .sum();
            (i, s)
        })
        .filter(|x| x.1 > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(i, _)| docs[i].0.clone()).collect()
}

fn recall_row(name: &str, evidence: &[Vec<String>], ranked: &[Vec<Vec<String>>]) -> Recall {
    let mut r = [0f64; 4];
    for (ev, hits) in evidence.iter().zip(ranked) {
        for (j, k) in KS.iter().enumerate() {
            let hits = &hits[j.min(hits.len() - 1)];
            let top = &hits[..hits.len().min(*k)];
            r[j] += ev.iter().filter(|e| top.contains(e)).count() as f64 / ev.len() as f64;
        }
    }
    let n = evidence.len().max(1) as f64;
    Recall {
        mode: name.into(),
        questions: evidence.len(),
        r5: r[0] / n,
        r10: r[1] / n,
        r25: r[2] / n,
        r50: r[3] / n,
    }
}

/// Recall of the reference and of memdag (before and default, bm25 and hybrid).
pub fn evaluate() -> Result<Vec<Recall>, String> {
    let turns: Vec<Turn> = parse(TURNS_JSONL)?;
    let questions: Vec<Question> = parse(QUESTIONS_JSONL)?;
    // The default store, and one without stemming for the variants without it.
    let mut stores = [Store::new(), Store::new()];
    stores[1].set_stemming(false);
    for store in &mut stores {
        store.set_auto_embed(true);
        for t in &turns {
            store
                .add_turn(NewTurn {
                    id: Some(t.id.clone()),
                    thread: t.thread.clone(),
                    user: t.user.clone(),
                    created_at: iso_ms(&t.created_at).ok_or("bad created_at")?,
                    input: t.text.clone(),
                    ..Default::default()
                })
                .map_err(|e| e.to_string())?;
        }
    }
    let evidence: Vec<Vec<String>> = questions.iter().map(|q| q.evidence.clone()).collect();
    let docs: Vec<(String, Vec<String>)> = turns
        .iter()
        .map(|t| (t.id.clone(), bigram_tokens(&t.text)))
        .collect();
    let reference: Vec<Vec<Vec<String>>> = questions
        .iter()
        .map(|q| vec![bigram_bm25(&docs, &q.question)])
        .collect();
    let mut rows = vec![recall_row("bigram BM25 (reference)", &evidence, &reference)];
    let variants = crate::locomo::variants();
    for v in variants
        .iter()
        .filter(|v| v.name == crate::locomo::BEFORE || v.name == crate::locomo::DEFAULT)
    {
        let store = &stores[usize::from(!v.stemming)];
        for (mode_name, mode) in [("bm25", SearchMode::Bm25), ("hybrid", SearchMode::Hybrid)] {
            let mut ranked = Vec::new();
            for q in &questions {
                let mut at_k = Vec::new();
                for k in KS {
                    let query = memdag_core::search::SearchQuery {
                        embedding: None,
                        ..v.query(&q.question, &[], mode, k)
                    };
                    let hits = store.search(&query).map_err(|e| e.to_string())?;
                    at_k.push(hits.into_iter().map(|h| h.id).collect());
                }
                ranked.push(at_k);
            }
            rows.push(recall_row(
                &format!("memdag {mode_name}, {}", v.name),
                &evidence,
                &ranked,
            ));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigrams_of_han_runs_and_words_of_the_rest() {
        assert_eq!(
            bigram_tokens("在798艺术区的画廊"),
            ["在", "798", "艺术", "术区", "区的", "的画", "画廊"]
        );
        assert_eq!(bigram_tokens("Hi 猫"), ["hi", "猫"]);
    }

    #[test]
    fn the_fixture_parses_and_every_evidence_id_exists() {
        let turns: Vec<Turn> = parse(TURNS_JSONL).unwrap();
        let questions: Vec<Question> = parse(QUESTIONS_JSONL).unwrap();
        assert_eq!(turns.len(), TURNS);
        assert!(questions.len() >= 20);
        for q in &questions {
            assert!(q.evidence.iter().all(|e| turns.iter().any(|t| &t.id == e)));
        }
    }

    #[test]
    fn the_reference_finds_an_exact_bigram_match_first() {
        let docs = vec![
            ("a".to_string(), bigram_tokens("我养了一只橘猫")),
            ("b".to_string(), bigram_tokens("今天天气很好")),
        ];
        assert_eq!(bigram_bm25(&docs, "橘猫"), ["a"]);
    }
}
