//! Context-window tools (the ReMe kind): count tokens, decide what to compact, and truncate
//! oversized tool results while keeping their full text retrievable.
//!
//! - [`count_tokens`] counts with the default encoding; see [`crate::tokens`].
//! - [`check_context`] splits a message list into older messages to compact and newer ones to
//!   keep, never separating an assistant tool call from its results, nor a user message from
//!   the reply that follows it.
//! - [`compact_tool_result`] cuts one tool output to a token limit, with a marker naming the blob
//!   that holds the full text; [`Store::compact_tool_results`](crate::Store::compact_tool_results)
//!   does it for a whole message list and stores the blobs.

mod check;
mod tool_result;

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::tokens::TokenCounter;

pub use crate::tokens::count_tokens;
pub use check::{check_context, check_context_with, ContextCheck};
pub use tool_result::{compact_tool_result, marker_blob_id, ToolResultCut, ToolResultLimits};

/// Tokens a chat format spends on each message besides its content (role, separators).
pub const MESSAGE_OVERHEAD: usize = 4;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions from the host; leading system messages are always kept.
    System,
    /// The person talking to the agent.
    #[default]
    User,
    /// The agent; may call tools.
    Assistant,
    /// A tool's result, answering one call of an earlier assistant message.
    Tool,
}

/// One chat message, as the host's LLM API sees it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Message {
    pub role: Role,
    /// The text counted and truncated. Put tool-call arguments here if they should count.
    pub content: String,
    /// For a [`Role::Tool`] message: the id of the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For an [`Role::Assistant`] message: the ids of the tool calls it makes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<String>,
}

impl Message {
    /// A message with a role and content and no tool ids.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            ..Message::default()
        }
    }

    /// An assistant message making the tool calls `ids`.
    pub fn tool_call(content: impl Into<String>, ids: &[&str]) -> Self {
        let tool_calls = ids.iter().map(|id| String::from(*id)).collect();
        Message {
            role: Role::Assistant,
            content: content.into(),
            tool_calls,
            tool_call_id: None,
        }
    }

    /// A tool message answering the call `id`.
    pub fn tool_result(id: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            role: Role::Tool,
            content: content.into(),
            tool_call_id: Some(id.into()),
            tool_calls: Vec::new(),
        }
    }

    /// The tokens of this message: its content plus [`MESSAGE_OVERHEAD`].
    pub fn tokens(&self, counter: &TokenCounter) -> usize {
        counter.count(&self.content) + MESSAGE_OVERHEAD
    }
}
