//! LoCoMo evidence recall: each dev conversation is one store; its questions are asked in
//! bm25, vector (the shipped MiniLM vectors) and hybrid mode, and recall@k is the fraction of a
//! question's evidence ids found in the top k, averaged over all questions.

use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{NewTurn, Store};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Turn {
    id: String,
    thread: String,
    user: String,
    text: String,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct Question {
    question: String,
    evidence: Vec<String>,
    embedding: Vec<f32>,
}

/// Recall@5, @10 and @25 of one mode.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Recall {
    pub mode: String,
    pub questions: usize,
    pub r5: f64,
    pub r10: f64,
    pub r25: f64,
}

/// One conversation's files, as text.
pub struct Conversation {
    pub turns_jsonl: String,
    pub questions_jsonl: String,
}

fn parse<T: for<'de> Deserialize<'de>>(jsonl: &str) -> Result<Vec<T>, String> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| e.to_string()))
        .collect()
}

/// Evidence recall over the given conversations, for bm25, vector and hybrid.
pub fn evaluate(convs: &[Conversation]) -> Result<Vec<Recall>, String> {
    let modes = [
        ("bm25", SearchMode::Bm25),
        ("vector", SearchMode::Vector),
        ("hybrid", SearchMode::Hybrid),
    ];
    let mut sums = [[0f64; 3]; 3];
    let mut count = 0usize;
    for conv in convs {
        let turns: Vec<Turn> = parse(&conv.turns_jsonl)?;
        let questions: Vec<Question> = parse(&conv.questions_jsonl)?;
        let mut store = Store::new();
        for (i, t) in turns.into_iter().enumerate() {
            let turn = NewTurn {
                id: Some(t.id),
                thread: t.thread,
                user: t.user,
                created_at: i as i64,
                input: t.text,
                embedding: Some(t.embedding),
                ..Default::default()
            };
            store.add_turn(turn).map_err(|e| e.to_string())?;
        }
        for q in &questions {
            count += 1;
            for (m, (_, mode)) in modes.iter().enumerate() {
                let query = SearchQuery {
                    text: q.question.clone(),
                    embedding: Some(q.embedding.clone()),
                    mode: *mode,
                    k: 25,
                    snippets: false,
                    ..Default::default()
                };
                let hits: Vec<String> = store
                    .search(&query)
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .map(|h| h.id)
                    .collect();
                for (j, k) in [5usize, 10, 25].iter().enumerate() {
                    let top = &hits[..hits.len().min(*k)];
                    let found = q.evidence.iter().filter(|e| top.contains(e)).count();
                    sums[m][j] += found as f64 / q.evidence.len().max(1) as f64;
                }
            }
        }
    }
    let n = count.max(1) as f64;
    Ok(modes
        .iter()
        .enumerate()
        .map(|(m, (name, _))| Recall {
            mode: name.to_string(),
            questions: count,
            r5: sums[m][0] / n,
            r10: sums[m][1] / n,
            r25: sums[m][2] / n,
        })
        .collect())
}

/// The question texts of the given conversations (the BM25 query set of the workload).
pub fn question_texts(convs: &[Conversation]) -> Vec<String> {
    convs
        .iter()
        .flat_map(|c| parse::<Question>(&c.questions_jsonl).unwrap_or_default())
        .map(|q| q.question)
        .collect()
}

/// The turn texts of the given conversations (the base of the replicated text corpus).
pub fn turn_texts(convs: &[Conversation]) -> Vec<String> {
    convs
        .iter()
        .flat_map(|c| parse::<Turn>(&c.turns_jsonl).unwrap_or_default())
        .map(|t| t.text)
        .collect()
}
