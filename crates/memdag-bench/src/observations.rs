//! What memdag learns from real conversations, against LoCoMo's session observations (the
//! facts annotators took about each speaker, each citing its dialog turns; see
//! `tests/data/locomo/README.md` and `../shared/eval/observations.py`).
//!
//! For each conversation, on a fresh store:
//! - **rules**: every turn is added and learned from as `memdag ingest --extract` does, timed
//!   (`extract_turns_per_s`); then every item (any status, as `memory list --all`) is scored:
//!   - *integrity*: the share of observations for which an item of that speaker cites one of
//!     the observation's turns and says the same thing. observations.py judges "the same" with
//!     MiniLM (cosine ≥ 0.45); this benchmark has no model, so it asks that at least half of
//!     the observation's content words (lower-cased words of three letters or more, without
//!     stop words, a plural `s` dropped) be in the item: a stricter, lexical judge;
//!   - *cited*: the share of observations whose turn some item of that speaker cites;
//!   - *grounded*: the share of items whose cited turn carries an observation about its user;
//!   - items per turn;
//! - **oracle replay**: a scripted LLM answers each prompt of the host-LLM pass with the
//!   observations of the turns it shows (each once, from its speaker's turn) as `add` facts.
//!   Its *integrity* counts the observations kept word for word in an active item of their
//!   speaker citing one of their turns: what memdag's own pipeline loses (wrong merges,
//!   wrong supersedes, dropped facts). Its LLM calls and estimated tokens are given per 100
//!   turns.

use std::collections::{BTreeMap, BTreeSet};

use memdag_core::json::turn_from_value;
use memdag_core::memory::{ExtractQuery, ItemQuery};
use memdag_core::{NewTurn, Store};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The observation figures of a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ObservationReport {
    pub runtime: String,
    pub conversations: usize,
    pub turns: usize,
    pub observations: usize,
    pub items: usize,
    /// Integrity of the rules, judged lexically (see the module docs).
    pub integrity_lexical: f64,
    pub cited: f64,
    pub grounded: f64,
    pub items_per_turn: f64,
    /// Turns added and learned from per second, by the rules.
    pub extract_turns_per_s: f64,
    /// Integrity through the host-LLM pass with the oracle as the LLM.
    pub oracle_integrity: f64,
    pub oracle_calls_per_100_turns: f64,
    pub oracle_prompt_tokens_per_100_turns: f64,
    pub oracle_answer_tokens_per_100_turns: f64,
}

#[derive(Deserialize)]
struct Observation {
    speaker: String,
    fact: String,
    evidence: Vec<String>,
}

/// A turn of either format: `memdag ingest`'s (`input`), or LoCoMo's (`text` = "Speaker:
/// utterance", with an `embedding` that is dropped).
fn turn(line: &str) -> Result<NewTurn, String> {
    let mut v: Value = serde_json::from_str(line).map_err(|e| format!("turn: {e}"))?;
    let o = v.as_object_mut().ok_or("a turn must be an object")?;
    o.remove("embedding");
    if let Some(Value::String(text)) = o.remove("text") {
        let said = text.split_once(": ").map_or(text.as_str(), |(_, s)| s);
        o.insert("input".into(), Value::String(said.into()));
    }
    turn_from_value(v, 0).map_err(|e| e.to_string())
}

/// LoCoMo's order: by session, then by turn (`D<session>:<turn>`).
fn order(id: &str) -> (u64, u64) {
    let (s, t) = id
        .trim_start_matches('D')
        .split_once(':')
        .unwrap_or(("0", "0"));
    (s.parse().unwrap_or(0), t.parse().unwrap_or(0))
}

const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "her",
    "his",
    "their",
    "she",
    "him",
    "they",
    "them",
    "was",
    "were",
    "has",
    "have",
    "had",
    "are",
    "about",
    "from",
    "into",
    "who",
    "which",
    "been",
    "being",
    "also",
    "very",
    "its",
    "our",
    "your",
    "you",
    "not",
    "but",
    "all",
    "some",
    "during",
    "after",
    "before",
    "recently",
    "conversation",
];

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Whether an item's text says an observation's fact (the lexical judge).
fn says(item: &str, fact: &str) -> bool {
    let want = words(fact);
    let have = words(item);
    !want.is_empty() && 2 * want.intersection(&have).count() >= want.len()
}

/// The ids of the turns a host-LLM prompt shows ("[D1:3] Gina, 20 January 2023: ...").
fn shown_turns(prompt: &str) -> Vec<String> {
    let at = prompt.find("\nNew turns").unwrap_or(0);
    prompt[at..]
        .lines()
        .filter_map(|l| {
            l.strip_prefix('[')?
                .split_once("] ")
                .map(|(id, _)| id.into())
        })
        .collect()
}

struct Conversation {
    turns: Vec<NewTurn>,
    observations: Vec<Observation>,
}

fn conversation(turns: &str, observations: &str) -> Result<Conversation, String> {
    let mut ts: Vec<NewTurn> = turns
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(turn)
        .collect::<Result<_, _>>()?;
    ts.sort_by_key(|t| order(t.id.as_deref().unwrap_or("")));
    let observations = observations
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| format!("observation: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Conversation {
        turns: ts,
        observations,
    })
}

fn all_items(s: &Store, all: bool) -> Result<Vec<memdag_core::item::MemoryItem>, String> {
    s.list_items(&ItemQuery {
        all,
        limit: 10_000,
        ..ItemQuery::default()
    })
    .map_err(|e| e.to_string())
}

#[derive(Default)]
struct Tally {
    turns: usize,
    observations: usize,
    items: usize,
    integrity: usize,
    cited: usize,
    grounded: usize,
    extract_ms: f64,
    oracle_kept: usize,
    calls: usize,
    prompt_tokens: usize,
    answer_tokens: usize,
}

fn rules(c: &Conversation, t: &mut Tally, clock: &dyn Fn() -> f64) -> Result<(), String> {
    let mut s = Store::new();
    let start = clock();
    for turn in &c.turns {
        let id = s
            .add_turn(turn.clone())
            .map_err(|e| e.to_string())?
            .id
            .clone();
        s.extract(&ExtractQuery {
            ids: vec![id],
            ..ExtractQuery::default()
        })
        .map_err(|e| e.to_string())?;
    }
    t.extract_ms += clock() - start;
    let items = all_items(&s, true)?;
    for o in &c.observations {
        let cands: Vec<_> = items
            .iter()
            .filter(|i| i.user == o.speaker && i.sources.iter().any(|x| o.evidence.contains(x)))
            .collect();
        if !cands.is_empty() {
            t.cited += 1;
            t.integrity += cands.iter().any(|i| says(&i.text, &o.fact)) as usize;
        }
    }
    let about: BTreeSet<(&str, &str)> = c
        .observations
        .iter()
        .flat_map(|o| o.evidence.iter().map(|e| (e.as_str(), o.speaker.as_str())))
        .collect();
    t.grounded += items
        .iter()
        .filter(|i| {
            i.sources
                .iter()
                .any(|x| about.contains(&(x.as_str(), i.user.as_str())))
        })
        .count();
    t.items += items.len();
    Ok(())
}

fn oracle(c: &Conversation, t: &mut Tally) -> Result<(), String> {
    let mut s = Store::new();
    let mut user_of = BTreeMap::new();
    for turn in &c.turns {
        let r = s.add_turn(turn.clone()).map_err(|e| e.to_string())?;
        user_of.insert(r.id.clone(), r.user.clone());
    }
    let mut answered = vec![false; c.observations.len()];
    let q = ExtractQuery {
        ids: user_of.keys().cloned().collect(),
        ..ExtractQuery::default()
    };
    let report = s
        .extract_with(&q, &mut |prompt| {
            let shown = shown_turns(prompt);
            let mut facts = Vec::new();
            for (o, done) in c.observations.iter().zip(answered.iter_mut()) {
                let here: Vec<&String> = o.evidence.iter().filter(|e| shown.contains(e)).collect();
                if *done || here.is_empty() {
                    continue;
                }
                *done = true;
                let source = here
                    .iter()
                    .find(|e| user_of.get(e.as_str()) == Some(&o.speaker))
                    .unwrap_or(&here[0]);
                let speaker =
                    (user_of.get(source.as_str()) != Some(&o.speaker)).then_some(&o.speaker);
                facts.push(
                    json!({"op": "add", "source": source, "speaker": speaker, "text": o.fact}),
                );
            }
            Ok(json!({ "facts": facts }).to_string())
        })
        .map_err(|e| e.to_string())?;
    let cost = report.llm.unwrap_or_default();
    t.calls += cost.calls;
    t.prompt_tokens += cost.prompt_tokens;
    t.answer_tokens += cost.answer_tokens;
    let items = all_items(&s, false)?;
    t.oracle_kept += c
        .observations
        .iter()
        .filter(|o| {
            items.iter().any(|i| {
                i.user == o.speaker
                    && i.text == o.fact
                    && i.sources.iter().any(|x| o.evidence.contains(x))
            })
        })
        .count();
    Ok(())
}

/// Scores conversations given as (turns JSONL, observations JSONL) texts.
pub fn run(
    sets: &[(String, String)],
    clock: &dyn Fn() -> f64,
    runtime: &str,
) -> Result<ObservationReport, String> {
    let mut t = Tally::default();
    for (turns, observations) in sets {
        let c = conversation(turns, observations)?;
        t.turns += c.turns.len();
        t.observations += c.observations.len();
        rules(&c, &mut t, clock)?;
        oracle(&c, &mut t)?;
    }
    let share = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let per100 = |n: usize| share(n * 100, t.turns);
    Ok(ObservationReport {
        runtime: runtime.into(),
        conversations: sets.len(),
        turns: t.turns,
        observations: t.observations,
        items: t.items,
        integrity_lexical: share(t.integrity, t.observations),
        cited: share(t.cited, t.observations),
        grounded: share(t.grounded, t.items),
        items_per_turn: share(t.items, t.turns),
        extract_turns_per_s: if t.extract_ms > 0.0 {
            t.turns as f64 * 1000.0 / t.extract_ms
        } else {
            0.0
        },
        oracle_integrity: share(t.oracle_kept, t.observations),
        oracle_calls_per_100_turns: per100(t.calls),
        oracle_prompt_tokens_per_100_turns: per100(t.prompt_tokens),
        oracle_answer_tokens_per_100_turns: per100(t.answer_tokens),
    })
}

/// The figures as one line.
pub fn line(r: &ObservationReport) -> String {
    format!(
        "observations ({}) {} in {} conversations ({} turns): integrity {:.3} (lexical), cited {:.3}, grounded {:.3}, {} items ({:.3} a turn), ingest --extract {:.0} turns/s; oracle replay integrity {:.3}, {:.1} LLM calls, {:.0} prompt + {:.0} answer tokens per 100 turns",
        r.runtime,
        r.observations,
        r.conversations,
        r.turns,
        r.integrity_lexical,
        r.cited,
        r.grounded,
        r.items,
        r.items_per_turn,
        r.extract_turns_per_s,
        r.oracle_integrity,
        r.oracle_calls_per_100_turns,
        r.oracle_prompt_tokens_per_100_turns,
        r.oracle_answer_tokens_per_100_turns,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lexical_judge_wants_half_the_content_words() {
        assert!(says(
            "Gina lost her job at a delivery company",
            "Gina lost her job at the delivery company."
        ));
        assert!(!says(
            "Gina likes dancing",
            "Gina lost her job at the delivery company."
        ));
        assert_eq!(order("D12:3"), (12, 3));
        let t = turn(r#"{"id": "D1:2", "thread": "session_1", "user": "Jo", "created_at": "2023-01-20T16:04:00Z", "text": "Jo: I opened a studio", "embedding": [0.1]}"#).unwrap();
        assert_eq!(t.input, "I opened a studio");
    }
}
