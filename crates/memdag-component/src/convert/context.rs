//! Context-window tools: WIT messages to the core's and back.

use memdag_core::context::{ContextCheck, Message, Role, ToolResultCut, ToolResultLimits};

use super::query::count;
use crate::bindings::exports::memdag::core::context as wit;

/// A WIT message as the core's.
pub fn message(m: wit::Message) -> Message {
    Message {
        role: match m.role {
            wit::Role::System => Role::System,
            wit::Role::User => Role::User,
            wit::Role::Assistant => Role::Assistant,
            wit::Role::Tool => Role::Tool,
        },
        content: m.content,
        tool_call_id: m.tool_call_id,
        tool_calls: m.tool_calls,
    }
}

/// A core message as the WIT one.
pub fn message_out(m: Message) -> wit::Message {
    wit::Message {
        role: match m.role {
            Role::System => wit::Role::System,
            Role::User => wit::Role::User,
            Role::Assistant => wit::Role::Assistant,
            Role::Tool => wit::Role::Tool,
        },
        content: m.content,
        tool_call_id: m.tool_call_id,
        tool_calls: m.tool_calls,
    }
}

/// A core context check as the WIT one.
pub fn context_check(c: ContextCheck) -> wit::ContextCheck {
    wit::ContextCheck {
        total_tokens: count(c.total_tokens),
        needs_compaction: c.needs_compaction,
        to_compact: c.to_compact.into_iter().map(message_out).collect(),
        to_keep: c.to_keep.into_iter().map(message_out).collect(),
        compact_tokens: count(c.compact_tokens),
        keep_tokens: count(c.keep_tokens),
    }
}

/// A core tool-result cut as the WIT one.
pub fn tool_result_cut(c: ToolResultCut) -> wit::ToolResultCut {
    wit::ToolResultCut {
        text: c.text,
        truncated: c.truncated,
        blob_id: c.blob_id,
        full: c.full,
        original_tokens: count(c.original_tokens),
        tokens: count(c.tokens),
    }
}

/// WIT tool-result limits as the core's.
pub fn limits(l: wit::ToolResultLimits) -> ToolResultLimits {
    ToolResultLimits {
        recent_tokens: l.recent_tokens as usize,
        old_tokens: l.old_tokens as usize,
        recent_count: l.recent_count as usize,
    }
}
