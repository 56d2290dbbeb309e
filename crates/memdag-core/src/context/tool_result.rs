//! `compact_tool_result`: cut an oversized tool output, keep the full text by reference.
//!
//! The cut keeps the head (two thirds of the room) and the tail (one third: errors and
//! summaries tend to come last) and appends a marker line:
//!
//! ```text
//! [memdag: truncated, 812 of 5230 tokens shown; full text in blob b0123456789abcdef; more from line 37]
//! ```
//!
//! The blob id is [`blob_id`] of the full text, so the marker can be written before the blob is
//! stored, and [`Store::blob`] returns the text later; the line is where the shown head stops,
//! to read on with [`Store::read_blob`]. Recent results get a higher limit than
//! old ones ([`ToolResultLimits`]).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Message, Role};
use crate::blob::blob_id;
use crate::error::Result;
use crate::store::Store;
use crate::tokens::TokenCounter;

const MARKER_OPEN: &str = "[memdag: truncated, ";
const MARKER_BLOB: &str = crate::blob::BLOB_REFERENCE;
const MARKER_LINE: &str = crate::record::MORE_FROM_LINE;

/// Token limits of tool results. The serde defaults are the values of [`Default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolResultLimits {
    /// Limit of the newest `recent_count` tool results (default 2,000).
    pub recent_tokens: usize,
    /// Limit of older tool results (default 400).
    pub old_tokens: usize,
    /// How many of the newest tool results count as recent (default 3).
    pub recent_count: usize,
}

impl Default for ToolResultLimits {
    fn default() -> Self {
        ToolResultLimits {
            recent_tokens: 2000,
            old_tokens: 400,
            recent_count: 3,
        }
    }
}

/// The outcome of [`compact_tool_result`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolResultCut {
    /// The text to put in the context: the original, or its cut with a marker.
    pub text: String,
    /// Whether the text was cut.
    pub truncated: bool,
    /// The id of the blob that must hold the full text ([`Store::put_blob`] gives this id).
    pub blob_id: Option<String>,
    /// The full text to store as that blob; `None` when nothing was cut.
    pub full: Option<String>,
    /// Tokens of the original text.
    pub original_tokens: usize,
    /// Tokens of `text`.
    pub tokens: usize,
}

/// Cuts `text` to at most `limit` tokens (marker included; a limit smaller than the marker
/// gives the marker alone). Text within the limit is returned unchanged.
pub fn compact_tool_result(counter: &TokenCounter, text: &str, limit: usize) -> ToolResultCut {
    let original_tokens = counter.count(text);
    if original_tokens <= limit {
        return ToolResultCut {
            text: text.into(),
            original_tokens,
            tokens: original_tokens,
            ..Default::default()
        };
    }
    let id = blob_id(text);
    let marker = |shown: usize, line: usize| {
        format!(
            "\n{MARKER_OPEN}{shown} of {original_tokens} tokens shown{MARKER_BLOB}{id}{MARKER_LINE}{line}]"
        )
    };
    let lines = text.split_inclusive('\n').count();
    let mut room = limit.saturating_sub(counter.count(&marker(original_tokens, lines)));
    loop {
        let out = cut_with_marker(counter, text, room, &marker);
        let tokens = counter.count(&out);
        // BPE counts are not additive: shrink the room until the whole fits, or give up at 0.
        if tokens <= limit || room == 0 {
            return ToolResultCut {
                text: out,
                truncated: true,
                blob_id: Some(id),
                full: Some(text.into()),
                original_tokens,
                tokens,
            };
        }
        room = room.saturating_sub((tokens - limit).max(1));
    }
}

/// The head and tail of `text` in about `room` tokens, then the marker.
fn cut_with_marker(
    counter: &TokenCounter,
    text: &str,
    room: usize,
    marker: &dyn Fn(usize, usize) -> String,
) -> String {
    const ELLIPSIS: &str = "\n…\n";
    let room = room.saturating_sub(counter.count(ELLIPSIS));
    let head = counter.truncate(text, room * 2 / 3);
    let rest = &text[head.len()..];
    let tail = counter.truncate_start(rest, room.saturating_sub(counter.count(head)));
    let mut out = String::with_capacity(head.len() + tail.len() + 96);
    out.push_str(head);
    if !tail.is_empty() {
        out.push_str(ELLIPSIS);
        out.push_str(tail);
    }
    let shown = counter.count(&out);
    out.push_str(&marker(shown, head.matches('\n').count() + 1));
    out
}

/// The blob id named by a truncation marker at the end of `text`, if there is one.
pub fn marker_blob_id(text: &str) -> Option<&str> {
    let start = text.rfind(MARKER_OPEN)?;
    let marker = &text[start..];
    let rest = marker.split(MARKER_BLOB).nth(1)?;
    let id = rest.get(..17)?;
    let after = &rest[17..];
    let well_formed = after == "]" || (after.starts_with(MARKER_LINE) && after.ends_with(']'));
    (well_formed && id.starts_with('b')).then_some(id)
}

impl Store {
    /// Cuts every tool message of `messages` over its limit, in place, storing each full text
    /// as a blob. The newest `limits.recent_count` tool messages get `recent_tokens`, older ones
    /// `old_tokens`. A message cut earlier is cut again from its stored full text, so an old
    /// result shrinks without losing its reference. Returns the ids of the blobs referenced.
    ///
    /// Errors: only those of [`Store::put_blob`]; messages already processed stay cut.
    pub fn compact_tool_results(
        &mut self,
        counter: &TokenCounter,
        messages: &mut [Message],
        limits: &ToolResultLimits,
    ) -> Result<Vec<String>> {
        self.cut_tool_results(counter, messages, limits, None)
    }

    /// [`Store::compact_tool_results`], storing each blob for `user` at `now`
    /// ([`Store::put_blob_for`]): the blobs age from `now` (see [`crate::retention`]) and that
    /// user's tools may read them back.
    pub fn compact_tool_results_for(
        &mut self,
        counter: &TokenCounter,
        messages: &mut [Message],
        limits: &ToolResultLimits,
        user: Option<&str>,
        now: i64,
    ) -> Result<Vec<String>> {
        self.cut_tool_results(counter, messages, limits, Some((user, now)))
    }

    fn cut_tool_results(
        &mut self,
        counter: &TokenCounter,
        messages: &mut [Message],
        limits: &ToolResultLimits,
        owner: Option<(Option<&str>, i64)>,
    ) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        let mut seen_tools = 0usize;
        for m in messages.iter_mut().rev() {
            if m.role != Role::Tool {
                continue;
            }
            let limit = if seen_tools < limits.recent_count {
                limits.recent_tokens
            } else {
                limits.old_tokens
            };
            seen_tools += 1;
            let full = match marker_blob_id(&m.content).and_then(|id| self.blob(id)) {
                Some(full) => full.to_string(),
                None => m.content.clone(),
            };
            let cut = compact_tool_result(counter, &full, limit);
            if let (Some(id), Some(full)) = (cut.blob_id, cut.full) {
                let stored = match owner {
                    Some((user, now)) => self.put_blob_for(full, user, now)?,
                    None => self.put_blob(full)?,
                };
                debug_assert_eq!(stored, id);
                ids.push(id);
            }
            m.content = cut.text;
        }
        Ok(ids)
    }
}
