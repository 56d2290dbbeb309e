//! `check_context`: which messages to compact and which to keep.
//!
//! A *cut* at index `s` compacts `messages[head..s]` and keeps `messages[s..]`, where `head`
//! counts the leading system messages (always kept, and not charged to `reserve`). A cut is
//! *valid* when it separates
//! - no tool result from the assistant message that made its call (matched by id: the latest
//!   earlier assistant message listing it), and
//! - no user message from an assistant message right after it (its reply).
//!
//! When the messages total more than `threshold` tokens, the chosen cut is the earliest valid
//! one whose kept tail fits in `reserve` tokens. If only an empty tail fits, the last valid cut
//! that keeps something is used instead (the newest exchange is kept even when it alone is over
//! `reserve`); if there is none, nothing can be compacted.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Message, Role};
use crate::tokens::TokenCounter;

/// The answer of [`check_context`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ContextCheck {
    /// Tokens of all messages, [`super::MESSAGE_OVERHEAD`] included.
    pub total_tokens: usize,
    /// Whether `total_tokens` is over the threshold.
    pub needs_compaction: bool,
    /// The older messages to compact, in order. Empty when no compaction is needed or possible.
    pub to_compact: Vec<Message>,
    /// The messages to keep, in order: the leading system messages, then the newest ones.
    pub to_keep: Vec<Message>,
    /// Tokens of `to_compact`.
    pub compact_tokens: usize,
    /// Tokens of `to_keep`.
    pub keep_tokens: usize,
}

/// [`check_context_with`] and the default counter (cl100k_base).
pub fn check_context(messages: &[Message], threshold: usize, reserve: usize) -> ContextCheck {
    check_context_with(&TokenCounter::default(), messages, threshold, reserve)
}

/// Splits `messages` into to-compact and to-keep when they total over `threshold` tokens,
/// keeping a newest tail of about `reserve` tokens; see the module docs for the rules.
pub fn check_context_with(
    counter: &TokenCounter,
    messages: &[Message],
    threshold: usize,
    reserve: usize,
) -> ContextCheck {
    let tokens: Vec<usize> = messages.iter().map(|m| m.tokens(counter)).collect();
    let total: usize = tokens.iter().sum();
    let mut out = ContextCheck {
        total_tokens: total,
        needs_compaction: total > threshold,
        ..Default::default()
    };
    let n = messages.len();
    let head = messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .count();
    let cut = if out.needs_compaction {
        choose_cut(messages, &tokens, head, reserve)
    } else {
        head
    };
    out.to_compact = messages[head..cut].to_vec();
    out.to_keep = messages[..head]
        .iter()
        .chain(&messages[cut..n])
        .cloned()
        .collect();
    out.compact_tokens = tokens[head..cut].iter().sum();
    out.keep_tokens = total - out.compact_tokens;
    out
}

/// The cut index in `head..n`; `head` means nothing is compacted.
fn choose_cut(messages: &[Message], tokens: &[usize], head: usize, reserve: usize) -> usize {
    let n = messages.len();
    let valid = valid_cuts(messages);
    let mut tail = 0usize; // tokens of messages[s..]
    let mut best = None; // earliest valid s > head whose tail fits, scanning from the end
    let mut last_keeping = None; // largest valid s in head+1..n
    for s in (head + 1..=n).rev() {
        if s < n {
            tail += tokens[s];
        }
        if !valid[s] {
            continue;
        }
        if s < n && last_keeping.is_none() {
            last_keeping = Some(s);
        }
        if tail <= reserve {
            best = Some(s);
        }
    }
    match best {
        Some(s) if s < n => s,
        _ => last_keeping.unwrap_or(head),
    }
}

/// `valid[s]` for `s` in `0..=n`: whether cutting before message `s` separates nothing.
pub(crate) fn valid_cuts(messages: &[Message]) -> Vec<bool> {
    let n = messages.len();
    // +1 where a call/result or user/reply span opens, -1 where it closes: a cut at s is
    // invalid while any span (c, j] covers it.
    let mut delta = vec![0i64; n + 2];
    let mut open_calls: BTreeMap<&str, usize> = BTreeMap::new();
    for (j, m) in messages.iter().enumerate() {
        match m.role {
            Role::Assistant => {
                for id in &m.tool_calls {
                    open_calls.insert(id.as_str(), j);
                }
                if j > 0 && messages[j - 1].role == Role::User {
                    delta[j] += 1;
                    delta[j + 1] -= 1;
                }
            }
            Role::Tool => {
                if let Some(&c) = m.tool_call_id.as_deref().and_then(|id| open_calls.get(id)) {
                    delta[c + 1] += 1;
                    delta[j + 1] -= 1;
                }
            }
            Role::System | Role::User => {}
        }
    }
    let mut covered = 0i64;
    (0..=n)
        .map(|s| {
            covered += delta[s];
            covered == 0
        })
        .collect()
}
