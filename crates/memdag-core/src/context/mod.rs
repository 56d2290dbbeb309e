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
///
/// Its JSON shape, one for every face, is `{role, content, toolCallId?, toolCalls?}`. Read
/// leniently, as agents hold messages in their model API's shape: `tool_call_id` and
/// `tool_calls` are read too, a tool call may be an OpenAI call object (its `id` is taken), and
/// a `null` content (an assistant message that only calls tools) is empty.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message {
    pub role: Role,
    /// The text counted and truncated. Put tool-call arguments here if they should count.
    #[serde(deserialize_with = "lenient::content")]
    pub content: String,
    /// For a [`Role::Tool`] message: the id of the call it answers.
    #[serde(skip_serializing_if = "Option::is_none", alias = "tool_call_id")]
    pub tool_call_id: Option<String>,
    /// For an [`Role::Assistant`] message: the ids of the tool calls it makes.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        alias = "tool_calls",
        deserialize_with = "lenient::tool_calls"
    )]
    pub tool_calls: Vec<String>,
}

/// The lenient readers of [`Message`]'s fields.
mod lenient {
    use alloc::string::String;
    use alloc::vec::Vec;
    use serde::{Deserialize, Deserializer};

    /// A string, or `null` as the empty string.
    pub fn content<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Call {
        Id(String),
        Object { id: String },
    }

    /// Ids, or call objects with an `id` (OpenAI's `{id, type, function}`); `null` is none.
    pub fn tool_calls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let calls = Option::<Vec<Call>>::deserialize(d)?.unwrap_or_default();
        Ok(calls
            .into_iter()
            .map(|c| match c {
                Call::Id(id) | Call::Object { id } => id,
            })
            .collect())
    }
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
