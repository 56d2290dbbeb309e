//! Parsing the LLM's answer into a [`CompactNode`], strictly.
//!
//! Accepted: Markdown headings (`#` to `######`), a bold line (`**Goal**`, `**Goal:**`) or a
//! bare `Goal:` line name a section, case-insensitively; text before the first heading (a
//! preamble such as "Here is the note:") is dropped; one surrounding code fence is removed;
//! unknown headings are kept as text of the section they are in.
//!
//! Refused with [`Error::Host`], naming why: an empty answer, a required section missing,
//! repeated, or empty. `## Summary` is optional: when absent the summary is the first line of
//! Progress.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{SECTIONS, SUMMARY};
use crate::error::{Error, Result};
use crate::record::{CompactNode, Section};

/// Longest summary kept when it is derived from Progress, in chars.
const DERIVED_SUMMARY_CHARS: usize = 240;

/// Parses an LLM answer; see the module docs for what is accepted.
pub fn parse_answer(answer: &str) -> Result<CompactNode> {
    let body = strip_fence(answer.trim());
    if body.trim().is_empty() {
        return Err(malformed("the answer is empty"));
    }
    // Slot 0 is the summary, 1.. the SECTIONS.
    let mut texts: Vec<Option<String>> = alloc::vec![None; SECTIONS.len() + 1];
    let mut current: Option<usize> = None;
    for line in body.lines() {
        if let Some(i) = heading(line) {
            if texts[i].is_some() {
                return Err(malformed(&format!(
                    "section {:?} appears twice",
                    name_of(i)
                )));
            }
            texts[i] = Some(String::new());
            current = Some(i);
        } else if let Some(text) = current.and_then(|i| texts[i].as_mut()) {
            text.push_str(line);
            text.push('\n');
        }
    }
    let missing: Vec<&str> = (1..texts.len())
        .filter(|&i| texts[i].is_none())
        .map(name_of)
        .collect();
    if !missing.is_empty() {
        return Err(malformed(&format!(
            "missing sections: {}",
            missing.join(", ")
        )));
    }
    let empty: Vec<&str> = (0..texts.len())
        .filter(|&i| texts[i].as_deref().is_some_and(|t| t.trim().is_empty()))
        .map(name_of)
        .collect();
    if !empty.is_empty() {
        return Err(malformed(&format!("empty sections: {}", empty.join(", "))));
    }
    let mut texts = texts.into_iter().map(|t| t.map(|t| t.trim().to_string()));
    let summary = texts.next().flatten();
    let sections: Vec<Section> = SECTIONS
        .iter()
        .zip(texts)
        .map(|(name, text)| Section {
            name: (*name).into(),
            text: text.unwrap_or_default(),
        })
        .collect();
    let summary = summary.unwrap_or_else(|| derive_summary(&sections[2].text));
    Ok(CompactNode { summary, sections })
}

fn malformed(why: &str) -> Error {
    Error::Host {
        message: format!("malformed compaction answer: {why}"),
    }
}

fn name_of(i: usize) -> &'static str {
    if i == 0 {
        SUMMARY
    } else {
        SECTIONS[i - 1]
    }
}

/// The slot of the section a line names, if the line is a heading.
fn heading(line: &str) -> Option<usize> {
    let t = line.trim();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    let name = if (1..=6).contains(&hashes) {
        t[hashes..].trim()
    } else if let Some(inner) = t.strip_prefix("**").and_then(|r| r.strip_suffix("**")) {
        inner
    } else if t.ends_with(':') {
        t
    } else {
        return None;
    };
    let name = name.trim_matches(|c: char| c == '*' || c == ':' || c.is_whitespace());
    if name.eq_ignore_ascii_case(SUMMARY) {
        return Some(0);
    }
    SECTIONS
        .iter()
        .position(|s| s.eq_ignore_ascii_case(name))
        .map(|i| i + 1)
}

/// The body inside one code fence that wraps the whole answer, else the answer.
fn strip_fence(s: &str) -> &str {
    if !s.starts_with("```") || !s.ends_with("```") || s.len() < 6 {
        return s;
    }
    let inner = &s[3..s.len() - 3];
    match inner.find('\n') {
        Some(nl) => &inner[nl + 1..],
        None => inner,
    }
}

fn derive_summary(progress: &str) -> String {
    let line = progress
        .lines()
        .map(|l| l.trim_start_matches(['-', '*', ' ']))
        .find(|l| !l.trim().is_empty());
    line.unwrap_or_default()
        .chars()
        .take(DERIVED_SUMMARY_CHARS)
        .collect()
}
