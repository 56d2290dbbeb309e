//! Learning with the host's LLM: one structured prompt per kind, a strict JSON answer, and
//! the judgement of a new item against an existing one.
//!
//! The core builds the prompts and parses the answers; the host makes the calls (a JS
//! callback, the WIT `llm` import, a CLI command), as for compaction. An extraction answer is
//! one JSON object, optionally inside a ```` ```json ```` fence:
//!
//! ```json
//! {"items": [{"source": "turn id", "text": "Lives in Berlin", "relation": "residence",
//!             "object": "Berlin", "importance": 0.7}]}
//! ```
//!
//! `source` and `text` are required; `subject`, `relation`, `object`, `task`, `tool` (strings)
//! and `importance` (0 to 1) are optional; any other field, a source that is not one of the
//! prompt's turns, or anything else malformed makes the whole answer an [`Error::Host`], and
//! nothing is written. A judgement answer is `{"verdict": "same" | "update" | "contradicts" |
//! "unrelated", "merged": "optional text"}`.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde::Deserialize;

use super::learn::{Judged, Verdict};
use crate::error::{Error, Result};
use crate::item::{ItemKind, MemoryItem, NewItem};
use crate::record::Record;

/// What each kind is, for its prompt.
fn describe(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Personal => {
            "the user's preferences and dislikes, profile facts (name, where they live, where \
             they work, job, age, time zone, language, partner, diet, allergies) and standing \
             instructions to the assistant. Use relation name, residence, employer, job, age, \
             timezone, language, partner, likes, dislikes, allergy or diet when one fits, with \
             the value as object"
        }
        ItemKind::Procedural => {
            "how a kind of task is done: what worked, what failed, and in which order steps \
             must run. Give the task a short name in task"
        }
        ItemKind::Tool => {
            "how a tool behaves: which arguments it needs, which argument shape works after a \
             failure, its errors and limits. Put the tool's name in tool"
        }
        ItemKind::Fact => {
            "durable facts about people, places, things and their relations, as a subject, a \
             relation and an object"
        }
    }
}

/// The prompt asking the LLM for the items of `kind` in `turns`.
pub fn extraction_prompt(kind: ItemKind, turns: &[&Record]) -> String {
    let mut p = format!(
        "You extract long-term memory items of kind \"{kind}\" from the conversation turns \
         below. Items of this kind are {what}.\n\n\
         Rules:\n\
         - Only what is stated explicitly and will still matter later. Nothing from \
         questions, hypotheticals, quotes, translations, jokes or small talk.\n\
         - Only what the user says about themself, not about other people, and nothing the \
         assistant says about the user.\n\
         - Keep the user's own words for names, places and values.\n\
         - One item per fact. Leave out anything you are unsure of.\n\n\
         Answer with one JSON object and nothing else:\n\
         {{\"items\": [{{\"source\": \"<turn id>\", \"text\": \"<the item, one sentence>\", \
         \"relation\": \"<optional>\", \"object\": \"<optional>\", \"subject\": \
         \"<optional>\", \"task\": \"<optional>\", \"tool\": \"<optional>\", \"importance\": \
         <optional 0 to 1>}}]}}\n\
         Answer {{\"items\": []}} when there is nothing.\n",
        kind = kind.name(),
        what = describe(kind),
    );
    for t in turns {
        p.push_str(&format!("\n--- turn {} (user {:?}) ---\n", t.id, t.user));
        p.push_str(&format!("User: {}\n", t.input));
        for s in &t.steps {
            p.push_str(&format!(
                "Tool call {} {} -> {}: {}\n",
                s.tool,
                s.args,
                if s.ok { "ok" } else { "failed" },
                s.result
            ));
        }
        p.push_str(&format!("Assistant: {}\n", t.output));
    }
    p
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    items: Vec<AnswerItem>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerItem {
    source: String,
    text: String,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    relation: Option<String>,
    #[serde(default)]
    object: Option<String>,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    importance: Option<f32>,
}

/// The JSON inside an answer: the whole answer, or the body of one ```` ``` ```` fence.
fn json_body(answer: &str) -> &str {
    let t = answer.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

/// Parses an extraction answer for `kind` about `turns` into proposals. Strict: see the
/// module docs. Errors are [`Error::Host`] saying what is wrong.
pub fn parse_extraction(kind: ItemKind, answer: &str, turns: &[&Record]) -> Result<Vec<NewItem>> {
    let host = |why: String| Error::Host {
        message: format!("the LLM's {} extraction answer {why}", kind.name()),
    };
    let parsed: Answer = serde_json::from_str(json_body(answer))
        .map_err(|e| host(format!("is not the JSON asked for: {e}")))?;
    let mut out = Vec::with_capacity(parsed.items.len());
    for (i, it) in parsed.items.into_iter().enumerate() {
        let Some(turn) = turns.iter().find(|t| t.id == it.source) else {
            return Err(host(format!(
                "names source {:?} (item {i}), which is not one of its turns",
                it.source
            )));
        };
        if it.text.trim().is_empty() {
            return Err(host(format!("has an empty text (item {i})")));
        }
        if it.importance.is_some_and(|x| !(0.0..=1.0).contains(&x)) {
            return Err(host(format!("has an importance outside 0..1 (item {i})")));
        }
        let blank = |s: Option<String>| s.filter(|v| !v.trim().is_empty());
        out.push(NewItem {
            kind: Some(kind),
            user: turn.user.clone(),
            text: it.text,
            subject: blank(it.subject),
            relation: blank(it.relation).map(|r| r.to_lowercase()),
            object: blank(it.object),
            task: blank(it.task),
            tool: blank(it.tool),
            importance: it.importance,
            created_at: turn.created_at,
            sources: std::vec![turn.id.clone()],
            ..NewItem::default()
        });
    }
    Ok(out)
}

/// The prompt asking the LLM how a new item relates to an existing one.
pub fn judge_prompt(new: &NewItem, existing: &MemoryItem) -> String {
    format!(
        "Two long-term memory items about the same user. Decide how the NEW one relates to \
         the EXISTING one:\n\
         - \"same\": they say the same thing;\n\
         - \"update\": the new one refines or completes the existing one;\n\
         - \"contradicts\": both cannot be true now (the new one replaces it);\n\
         - \"unrelated\": neither.\n\
         For \"update\" and \"contradicts\", also give \"merged\": one sentence holding what \
         is true now.\n\n\
         EXISTING: {}\nNEW: {}\n\n\
         Answer with one JSON object and nothing else: {{\"verdict\": \"...\", \"merged\": \
         \"...\"}}",
        existing.text, new.text
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeAnswer {
    verdict: Verdict,
    #[serde(default)]
    merged: Option<String>,
}

/// Parses a judgement of the new item against item `existing`. Strict; errors are
/// [`Error::Host`].
pub fn parse_judgement(existing: &str, answer: &str) -> Result<Judged> {
    let parsed: JudgeAnswer = serde_json::from_str(json_body(answer)).map_err(|e| Error::Host {
        message: format!("the LLM's judgement is not the JSON asked for: {e}"),
    })?;
    Ok(Judged {
        item: existing.into(),
        verdict: parsed.verdict,
        merged: parsed.merged.filter(|m| !m.trim().is_empty()),
    })
}
