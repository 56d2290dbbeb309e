//! grep: a regular-expression search over the raw logs of the records.
//!
//! Patterns use the `regex` crate, whose matching is linear in the text (no backtracking), so
//! no pattern can hang a search. Limits: the pattern at most [`MAX_PATTERN_BYTES`], its
//! compiled program at most [`REGEX_SIZE_LIMIT`], and at most [`MAX_MATCHES`] matches. Records
//! are searched in insertion order; empty matches are skipped.

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use regex::RegexBuilder;

use super::filter::Compiled;
use super::query::{GrepMatch, GrepQuery};
use crate::error::{Error, Result};
use crate::store::Store;

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Size limit of a compiled pattern (and of its lazy DFA cache).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;
/// Most matches one grep returns.
pub const MAX_MATCHES: usize = 10_000;
/// Longest matched text carried in a [`GrepMatch`].
const MAX_TEXT: usize = 256;

const FIELDS: [&str; 4] = ["input", "output", "args", "results"];

/// Runs `query` over `store`.
pub fn grep(store: &Store, query: &GrepQuery) -> Result<Vec<GrepMatch>> {
    if query.pattern.is_empty() {
        return Err(Error::invalid("grep pattern must not be empty"));
    }
    if query.pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::invalid(format!(
            "grep pattern is longer than {MAX_PATTERN_BYTES} bytes"
        )));
    }
    if let Some(f) = query.fields.iter().find(|f| !FIELDS.contains(&f.as_str())) {
        return Err(Error::invalid(format!(
            "unknown grep field {f:?}; use input, output, args or results"
        )));
    }
    if query.max_matches == 0 || query.max_matches > MAX_MATCHES {
        return Err(Error::invalid(format!(
            "max_matches must be 1 to {MAX_MATCHES}"
        )));
    }
    let re = RegexBuilder::new(&query.pattern)
        .case_insensitive(query.case_insensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| Error::invalid(format!("bad grep pattern: {e}")))?;
    let wants = |f: &str| query.fields.is_empty() || query.fields.iter().any(|x| x == f);
    let filter = Compiled::new(store, &query.filter)?;
    let mut out = Vec::new();
    for (slot, r) in store.slots.iter().enumerate() {
        let Some(r) = r else { continue };
        if filter.is_active() && !filter.keep(slot as u32) {
            continue;
        }
        let mut texts: Vec<(String, &str)> = Vec::new();
        if wants("input") {
            texts.push(("input".into(), &r.input));
        }
        if wants("output") {
            texts.push(("output".into(), &r.output));
        }
        for (i, s) in r.steps.iter().enumerate() {
            if wants("args") {
                texts.push((format!("steps[{i}].args"), &s.args));
            }
            if wants("results") {
                texts.push((format!("steps[{i}].result"), &s.result));
            }
        }
        for (field, text) in texts {
            let mut line = 1u32;
            let mut counted = 0;
            for m in re.find_iter(text) {
                if m.is_empty() {
                    continue;
                }
                line += text.as_bytes()[counted..m.start()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u32;
                counted = m.start();
                let mut cut = m.end().min(m.start() + MAX_TEXT);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push(GrepMatch {
                    id: r.id.clone(),
                    field: field.clone(),
                    line,
                    start: m.start(),
                    end: m.end(),
                    text: text[m.start()..cut].to_string(),
                });
                if out.len() >= query.max_matches {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}
