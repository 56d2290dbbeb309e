//! The extractive compactor: a deterministic compact node without an LLM.
//!
//! It copies, never paraphrases, so the note stays in the conversation's language:
//! - Goal: the first sentence of the input;
//! - Constraints: input sentences with a constraint cue ("must", "never", "only", 必须, …);
//! - Progress: the step count, the first and last steps, and the output's first sentence;
//! - Key Decisions: output and step-argument sentences with a decision cue ("decided", 决定, …);
//! - Next Steps: output sentences with a next-step cue ("next", "todo", 下一步, …);
//! - Critical Context: failed steps' first lines, error lines from results, then file paths
//!   and function names found anywhere in the turn.
//!
//! Every list is capped, and every item is cut to a fixed number of chars.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::cues::{
    has_cue, name_like, pick, sentences, CONSTRAINT_CUES, DECISION_CUES, ERROR_CUES, MAX_ITEMS,
    NEXT_CUES,
};
use super::{detect_language, SECTIONS};
use crate::record::{CompactNode, Record, Section, Step};

const ITEM_CHARS: usize = 200;
const MAX_NAMES: usize = 12;

/// The extractive compact node of `r`.
pub fn extract(r: &Record) -> CompactNode {
    let none = detect_language(r).none();
    let input = sentences(&r.input);
    let output = sentences(&r.output);
    let goal = input.first().map(|s| clip(s)).unwrap_or_default();
    let constraints = pick(&input, CONSTRAINT_CUES);
    let mut decision_src = output.clone();
    for s in &r.steps {
        decision_src.extend(sentences(&s.args));
    }
    let decisions = pick(&decision_src, DECISION_CUES);
    let next = pick(&output, NEXT_CUES);
    let texts = [
        goal.clone(),
        bullets(&constraints),
        progress(r, &output),
        bullets(&decisions),
        bullets(&next),
        critical(r),
    ];
    let sections = SECTIONS
        .iter()
        .zip(texts)
        .map(|(name, text)| Section {
            name: (*name).into(),
            text: if text.is_empty() { none.into() } else { text },
        })
        .collect();
    let summary = match (goal.is_empty(), output.first()) {
        (false, Some(out)) => clip(&format!("{goal} → {out}")),
        (false, None) => goal,
        (true, Some(out)) => clip(out),
        (true, None) => format!("{} tool calls", r.steps.len()),
    };
    CompactNode { summary, sections }
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(ITEM_CHARS).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn bullets(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("- {}", clip(s)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn progress(r: &Record, output: &[&str]) -> String {
    let mut lines = Vec::new();
    let failed = r.steps.iter().filter(|s| !s.ok).count();
    if !r.steps.is_empty() {
        let n = r.steps.len();
        let plural = if n == 1 { "" } else { "s" };
        lines.push(format!("- {n} tool call{plural}, {failed} failed"));
    }
    let describe = |label: &str, s: &Step| {
        let status = if s.ok { "ok" } else { "failed" };
        let result = s
            .result
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        format!(
            "- {label}: {}({}) {status}: {}",
            s.tool,
            clip(s.args.trim()),
            clip(result.trim())
        )
    };
    if let Some(first) = r.steps.first() {
        lines.push(describe("first", first));
    }
    if r.steps.len() > 1 {
        lines.push(describe("last", &r.steps[r.steps.len() - 1]));
    }
    if let Some(out) = output.first() {
        lines.push(format!("- {}", clip(out)));
    }
    lines.join("\n")
}

/// Errors, then file paths and function names, unique, in order of appearance.
fn critical(r: &Record) -> String {
    let mut items: Vec<String> = Vec::new();
    for s in r.steps.iter().filter(|s| !s.ok) {
        let first = s
            .result
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("(no message)");
        items.push(format!("- error in {}: {}", s.tool, clip(first.trim())));
    }
    let error_lines = r
        .steps
        .iter()
        .filter(|s| s.ok)
        .flat_map(|s| s.result.lines())
        .filter(|l| has_cue(l, ERROR_CUES));
    for line in error_lines.take(MAX_ITEMS) {
        items.push(format!("- {}", clip(line.trim())));
    }
    items.truncate(MAX_ITEMS * 2);
    let mut names = BTreeSet::new();
    let mut found: Vec<&str> = Vec::new();
    let all = [r.input.as_str(), r.output.as_str()].into_iter().chain(
        r.steps
            .iter()
            .flat_map(|s| [s.args.as_str(), s.result.as_str()]),
    );
    for text in all {
        for word in text.split(|c: char| c.is_whitespace() || "\"'`,;<>[]{}=|".contains(c)) {
            if found.len() >= MAX_NAMES {
                break;
            }
            if let Some(name) = name_like(word) {
                if names.insert(name) {
                    found.push(name);
                }
            }
        }
    }
    if !found.is_empty() {
        items.push(format!("- names: {}", found.join(", ")));
    }
    items.join("\n")
}
