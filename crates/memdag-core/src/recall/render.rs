//! Rendering records as recall text.
//!
//! ```text
//! [3f9a0c1e2b4d5a6f] 2026-11-30 03:56 · thread t2 · importance 0.8
//!   user: fix the failing build
//!   summary: Fixed the build by pinning wasm-bindgen.
//!   Goal: ...
//!   steps:                      (raw form only)
//!   1. cargo_build({"p":"core"}) error: mismatched schema 0.2.129
//!   agent: Pinned wasm-bindgen to =0.2.130; the build passes.
//! ```
//! The thread and user are shown only when they differ from the query's. Sections of a compact
//! node that say nothing ("None") are left out.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use super::{RecallQuery, RecallSection};
use crate::record::Record;
use crate::tokens::TokenCounter;

/// Per-step cap of the raw form, in tokens.
const STEP_TOKENS: usize = 80;

/// The first line of the block.
pub(super) fn header(q: &RecallQuery) -> String {
    let mut h = String::from("# Memory recall");
    if !q.thread.is_empty() {
        let _ = write!(h, " · thread {}", q.thread);
    }
    if let Some(user) = &q.user {
        let _ = write!(h, " · user {user}");
    }
    h.push_str(" (cite the [id]s you use)");
    h
}

/// The heading line of a section.
pub(super) fn section_header(section: RecallSection) -> &'static str {
    match section {
        RecallSection::Known => "## Known about this user and task",
        RecallSection::Thread => "## This thread, newest first",
        RecallSection::User => "## Same user, other threads",
        RecallSection::Match => "## Matches",
        RecallSection::Ancestor => "## Earlier records these build on, nearest first",
    }
}

/// The working memory section: its heading and `text`, within `cap` tokens.
pub(super) fn working(c: &TokenCounter, text: &str, cap: usize) -> String {
    let heading = "## Working memory";
    let room = cap.saturating_sub(c.count(heading) + 1);
    if room < 4 {
        return String::new();
    }
    let body = c.truncate(text, room);
    if body.is_empty() {
        return String::new();
    }
    let ellipsis = if body.len() < text.len() { "…" } else { "" };
    format!("{heading}\n{body}{ellipsis}")
}

/// The short form and its tokens: compact node if present, else input and output; at most
/// `q.item_tokens` estimated tokens unless the id line alone is longer.
pub(super) fn short(c: &TokenCounter, r: &Record, q: &RecallQuery) -> (String, usize) {
    render(c, r, q, q.item_tokens, false)
}

/// The raw form and its tokens: the short form's parts plus the tool log; at most
/// `q.raw_item_tokens` estimated tokens unless the id line alone is longer.
pub(super) fn raw(c: &TokenCounter, r: &Record, q: &RecallQuery) -> (String, usize) {
    render(c, r, q, q.raw_item_tokens, true)
}

/// Lays an item out with the estimator (cheap: O(cap) per field, whatever the field's size),
/// then counts it once with `exact`.
fn render(
    exact: &TokenCounter,
    r: &Record,
    q: &RecallQuery,
    cap: usize,
    with_steps: bool,
) -> (String, usize) {
    let c = &TokenCounter::estimator(exact.encoding());
    let mut out = String::with_capacity(256);
    if let Some(m) = &r.item {
        // An item: its kind, what it is about, and its text.
        let _ = write!(
            out,
            "[{}] {} {}",
            r.id,
            m.kind.name(),
            date(m.updated_at.max(r.created_at))
        );
        if let Some(t) = m.task.as_deref().or(m.tool.as_deref()) {
            let _ = write!(out, " · {t}");
        }
        if q.user.as_deref() != Some(r.user.as_str()) && !r.user.is_empty() {
            let _ = write!(out, " · user {}", r.user);
        }
        let room = cap.saturating_sub(c.count(&out));
        line(&mut out, "", &one_line(c, &r.input, room));
        let tokens = exact.count(&out);
        return (out, tokens);
    }
    let _ = write!(out, "[{}] {}", r.id, date(r.created_at));
    if r.thread != q.thread {
        let _ = write!(out, " · thread {}", r.thread);
    }
    if q.user.as_deref() != Some(r.user.as_str()) && !r.user.is_empty() {
        let _ = write!(out, " · user {}", r.user);
    }
    if r.importance != crate::record::DEFAULT_IMPORTANCE {
        let _ = write!(out, " · importance {:.1}", r.importance);
    }
    line(&mut out, "user: ", &one_line(c, &r.input, cap / 4));
    if let Some(node) = &r.compact {
        line(&mut out, "summary: ", &one_line(c, &node.summary, cap / 4));
        for s in &node.sections {
            let text = s.text.trim();
            if !text.is_empty() && !is_none(text) {
                line(
                    &mut out,
                    &format!("{}: ", s.name),
                    &one_line(c, text, cap / 6),
                );
            }
        }
    }
    if with_steps && !r.steps.is_empty() {
        out.push_str("\n  steps:");
        for (i, s) in r.steps.iter().enumerate() {
            let status = if s.ok { "ok" } else { "error" };
            let step = format!(
                "{}({}) {status}: {}",
                s.tool,
                s.args.trim(),
                s.result.trim()
            );
            let _ = write!(out, "\n  {}. {}", i + 1, one_line(c, &step, STEP_TOKENS));
        }
    }
    line(&mut out, "agent: ", &one_line(c, &r.output, cap / 3));
    if c.count(&out) <= cap {
        let tokens = exact.count(&out);
        return (out, tokens);
    }
    // Never cut into the first line: it carries the id.
    let first_line = out.find('\n').unwrap_or(out.len());
    let keep = c
        .truncate(&out, cap.saturating_sub(c.count("…")))
        .len()
        .max(first_line);
    out.truncate(keep);
    out.push('…');
    let tokens = exact.count(&out);
    (out, tokens)
}

fn line(out: &mut String, label: &str, text: &str) {
    if !text.is_empty() {
        out.push_str("\n  ");
        out.push_str(label);
        out.push_str(text);
    }
}

/// `text` on one line (newlines become " ⏎ "), within `max` tokens. Costs O(max), not
/// O(text), with the estimator: a long tool result is cut before it is flattened.
fn one_line(c: &TokenCounter, text: &str, max: usize) -> String {
    let text = text.trim();
    let head = c.truncate(text, max);
    let flat: String = head
        .split('\n')
        .map(str::trim_end)
        .collect::<alloc::vec::Vec<_>>()
        .join(" ⏎ ");
    if head.len() == text.len() && c.count(&flat) <= max {
        return flat;
    }
    let mut cut = String::from(c.truncate(&flat, max.saturating_sub(c.count("…"))));
    cut.push('…');
    cut
}

fn is_none(text: &str) -> bool {
    matches!(text, "None" | "none" | "N/A" | "-" | "无" | "なし" | "없음")
}

/// `YYYY-MM-DD HH:MM` (UTC) of a time in ms since the Unix epoch.
pub(super) fn date(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = crate::time::civil::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}
