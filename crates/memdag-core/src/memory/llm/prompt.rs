//! The batches of an LLM pass, the prompt of one batch, and the JSON Schema of its answer.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{json, Value};

use super::LlmBatch;
use crate::item::MemoryItem;
use crate::record::Record;
use crate::time::civil::{civil_from_days, local_day, MONTH_NAMES};
use crate::tokens::estimate;

/// Estimated tokens of the turns of one batch (a longer turn is a batch of its own).
pub const BATCH_TOKENS: usize = 3_000;

/// Most known items a prompt shows.
pub const SHOWN_ITEMS: usize = 60;

/// Longest excerpt of a tool call's arguments or result in a prompt, in bytes.
const STEP_EXCERPT: usize = 200;

/// The text of a turn as a prompt shows it.
fn turn_text(t: &Record, speaker: &str) -> String {
    let (y, m, d) = civil_from_days(local_day(t.created_at, 0));
    let month = MONTH_NAMES[(m as usize).saturating_sub(1).min(11)];
    let mut s = format!(
        "[{}] {speaker}, {d} {month} {y}: {}\n",
        t.id,
        t.input.trim()
    );
    for step in &t.steps {
        s.push_str(&format!(
            "    tool {} {} ({}): {}\n",
            step.tool,
            excerpt(&step.args),
            if step.ok { "ok" } else { "failed" },
            excerpt(&step.result)
        ));
    }
    if !t.output.trim().is_empty() {
        s.push_str(&format!("    (assistant: {})\n", excerpt(&t.output)));
    }
    s
}

fn excerpt(s: &str) -> String {
    let s = s.trim();
    if s.len() <= STEP_EXCERPT {
        return s.into();
    }
    let mut end = STEP_EXCERPT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The batches of a pass over `turns` (oldest first): each thread's turns in order, cut
/// when the next turn would take a batch over [`BATCH_TOKENS`]; threads in the order of
/// their first turn.
pub fn plan(turns: &[&Record]) -> Vec<LlmBatch> {
    let mut threads: Vec<(&str, Vec<&Record>)> = Vec::new();
    for t in turns {
        match threads.iter_mut().find(|(name, _)| *name == t.thread) {
            Some((_, list)) => list.push(t),
            None => threads.push((&t.thread, std::vec![*t])),
        }
    }
    let mut out = Vec::new();
    for (_, list) in threads {
        let mut batch = LlmBatch::default();
        for t in list {
            let tokens = estimate(&turn_text(t, &t.user));
            if !batch.turns.is_empty() && batch.tokens + tokens > BATCH_TOKENS {
                out.push(std::mem::take(&mut batch));
            }
            batch.turns.push(t.id.clone());
            batch.tokens += tokens;
        }
        if !batch.turns.is_empty() {
            out.push(batch);
        }
    }
    out
}

/// The prompt of one batch: the instructions, the known `items` and the `turns`, each with
/// the name of its speaker (`speaker(user)`).
pub fn prompt(turns: &[&Record], items: &[MemoryItem], speaker: &dyn Fn(&str) -> String) -> String {
    let mut p = String::from(INSTRUCTIONS);
    p.push_str("\nThe answer's JSON Schema:\n");
    p.push_str(&schema().to_string());
    p.push_str("\n\nKnown items (id, whose, text):\n");
    if items.is_empty() {
        p.push_str("(none yet)\n");
    }
    for i in items {
        p.push_str(&format!("- {} ({}): {}\n", i.id, speaker(&i.user), i.text));
    }
    p.push_str("\nNew turns ([turn id] speaker, date: what they said):\n");
    for t in turns {
        p.push_str(&turn_text(t, &speaker(&t.user)));
    }
    p
}

const INSTRUCTIONS: &str = "\
You keep the long-term memory of a conversation. Read the new turns below and decide, fact by \
fact, what memory should learn about the people who speak in them.

A fact is something lasting a careful reader would note about a speaker: what they did \
(events, with the date when the turn gives one), what they keep doing, plan or want, who they \
are (identity, family and relations, job, studies, where they live, pets), what they like or \
dislike and what matters to them; standing instructions they give the assistant; how a task \
or a tool worked when the tool calls show it. Write each as one sentence naming the speaker \
(\"Sam went to a pottery workshop on 7 May 2023\"), with relative times (\"yesterday\", \
\"last week\") resolved against the turn's date.

Leave out questions, greetings, thanks, reactions to and compliments on the other person or \
their things, encouragement, small talk, and what a speaker only supposes, asks or jokes about. \
Learn from what the speakers say, never from the assistant's replies. A fact is about the \
speaker of its `source` turn; when a speaker tells something about another speaker of these \
turns, name that one in `speaker`.

Compare each fact with the known items:
- \"none\": it is already known as item `item`; nothing is added, the item is corroborated;
- \"update\": it refines item `item` without contradicting it (a detail, a correction); `text` \
is the new full text;
- \"supersede\": it replaces item `item`, which is no longer true (a move, a new job, a changed \
taste); `text` is the new item;
- \"add\": anything else; `text` is the new item.

Every fact names its `source`: the id of the turn it comes from. `kind` is personal (about a \
person; the default), procedural (how a task is done), tool (how a tool behaves) or fact (a \
relation between things); `relation` and `object` are optional (\"residence\", \"Boston\"); \
`confidence` is how sure you are, 0 to 1.

Answer with one JSON object and nothing else. Answer {\"facts\": []} when there is nothing to \
learn.
";

/// The JSON Schema of an answer. Every property is required and may be null where it is
/// optional, so the schema is usable in OpenAI's strict structured outputs and Chrome's
/// `responseConstraint`; the parser also accepts a fact that leaves the optional ones out.
pub fn schema() -> Value {
    let nullable = |t: &str| json!({"type": [t, "null"]});
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["facts"],
        "properties": {
            "facts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["op", "source", "speaker", "item", "text", "kind", "subject",
                                 "relation", "object", "confidence"],
                    "properties": {
                        "op": {"type": "string", "enum": ["add", "update", "supersede", "none"]},
                        "source": {"type": "string"},
                        "speaker": nullable("string"),
                        "item": nullable("string"),
                        "text": nullable("string"),
                        "kind": {"type": ["string", "null"],
                                 "enum": ["personal", "procedural", "tool", "fact", null]},
                        "subject": nullable("string"),
                        "relation": nullable("string"),
                        "object": nullable("string"),
                        "confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1}
                    }
                }
            }
        }
    })
}
