//! Snippets: a short window of a record's text with the matched query terms marked «so».
//!
//! The text chosen is the field with the most query-term occurrences (input, output, compact
//! summary, then step results, in that order on ties). The window of about [`SNIPPET_BYTES`]
//! starts a little before the densest run of matches; cut ends get an ellipsis.

use std::collections::BTreeSet;
use std::string::String;
use std::vec::Vec;

use crate::index::analyzer::analyze_index;
use crate::record::Record;

/// Target length of a snippet, in bytes of the original text.
pub const SNIPPET_BYTES: usize = 200;
/// Bytes of context kept before the first match of the window.
const LEAD: usize = 40;
/// Opening and closing marks around a matched term.
pub const MARK_OPEN: &str = "«";
pub const MARK_CLOSE: &str = "»";

/// The snippet of `record` for the analyzed query `terms` (stemmed when `stem` is set, as
/// the index's terms are).
pub fn snippet(record: &Record, terms: &BTreeSet<String>, stem: bool) -> String {
    let mut texts: Vec<&str> = vec![&record.input, &record.output];
    if let Some(c) = &record.compact {
        texts.push(&c.summary);
    }
    texts.extend(record.steps.iter().map(|s| s.result.as_str()));
    let mut best: Option<(&str, Vec<core::ops::Range<usize>>)> = None;
    if !terms.is_empty() {
        for &t in &texts {
            // Terms are looked up as they come, with no allocation per token.
            let mut hits = Vec::new();
            analyze_index(t, stem, |term, span| {
                if terms.contains(term) {
                    hits.push(span);
                }
            });
            if !hits.is_empty() && best.as_ref().is_none_or(|(_, b)| hits.len() > b.len()) {
                best = Some((t, hits));
            }
        }
    }
    match best {
        Some((text, hits)) => mark(text, &hits),
        None => {
            let text = texts
                .into_iter()
                .find(|t| !t.trim().is_empty())
                .unwrap_or("");
            mark(text, &[])
        }
    }
}

/// Cuts a window around the densest matches of `text` and marks them.
fn mark(text: &str, hits: &[core::ops::Range<usize>]) -> String {
    let mut anchor = 0;
    let mut most = 0;
    for (i, h) in hits.iter().enumerate() {
        let n = hits[i..]
            .iter()
            .take_while(|o| o.end <= h.start + SNIPPET_BYTES)
            .count();
        if n > most {
            most = n;
            anchor = h.start;
        }
    }
    let start = floor_char(text, anchor.saturating_sub(LEAD));
    let start = text[start..anchor]
        .find(' ')
        .filter(|_| start > 0)
        .map_or(start, |i| start + i + 1);
    let end = floor_char(text, (start + SNIPPET_BYTES).min(text.len()));
    let mut out = String::with_capacity(end - start + 16);
    if start > 0 {
        out.push('…');
    }
    let mut at = start;
    // Spans may overlap (CJK bigrams); merge them as we go.
    for h in hits.iter().filter(|h| h.start >= start && h.end <= end) {
        if h.start < at {
            if h.end > at {
                // Extend the previous mark: reopen is avoided by re-closing after the extra.
                out.truncate(out.len() - MARK_CLOSE.len());
                out.push_str(&text[at..h.end]);
                out.push_str(MARK_CLOSE);
                at = h.end;
            }
            continue;
        }
        out.push_str(&text[at..h.start]);
        out.push_str(MARK_OPEN);
        out.push_str(&text[h.start..h.end]);
        out.push_str(MARK_CLOSE);
        at = h.end;
    }
    out.push_str(&text[at..end]);
    if end < text.len() {
        out.push('…');
    }
    out
}

/// The largest char boundary of `text` at or below `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(input: &str) -> Record {
        Record {
            input: input.into(),
            ..crate::index::test_record(0)
        }
    }

    #[test]
    fn marks_terms_and_merges_cjk_bigrams() {
        let terms: BTreeSet<String> = ["deploy".to_string()].into();
        assert_eq!(
            snippet(&rec("The Deploy failed"), &terms, true),
            "The «Deploy» failed"
        );
        let terms: BTreeSet<String> = ["记忆".to_string(), "忆系".to_string()].into();
        assert_eq!(
            snippet(&rec("我的记忆系统"), &terms, true),
            "我的«记忆系»统"
        );
        let long = format!("{} needle end", "word ".repeat(100));
        let s = snippet(&rec(&long), &["needle".to_string()].into(), false);
        assert!(s.starts_with('…') && s.contains("«needle»"), "{s}");
    }

    #[test]
    fn stemmed_terms_mark_every_form_of_the_word() {
        let terms: BTreeSet<String> = ["camp".to_string()].into();
        assert_eq!(
            snippet(&rec("We camped, and camping was fun"), &terms, true),
            "We «camped», and «camping» was fun"
        );
        assert_eq!(snippet(&rec("We camped"), &terms, false), "We camped");
    }
}
