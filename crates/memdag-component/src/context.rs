//! The exported `context` interface: the core's context-window tools, no store needed.

use memdag_core::context::{check_context, compact_tool_result};
use memdag_core::tokens::{Encoding, TokenCounter};

use crate::bindings::exports::memdag::core::context::{
    ContextCheck, Guest, Message, ToolResultCut,
};
use crate::bindings::memdag::core::query::Encoding as WitEncoding;
use crate::convert::{self, query::count};

impl Guest for crate::Component {
    fn count_tokens(text: String, encoding: Option<WitEncoding>) -> u32 {
        let encoding = encoding.map_or(Encoding::default(), convert::query::encoding);
        count(TokenCounter::new(encoding).count(&text))
    }

    fn check_context(messages: Vec<Message>, threshold: u32, reserve: u32) -> ContextCheck {
        let messages: Vec<_> = messages
            .into_iter()
            .map(convert::context::message)
            .collect();
        convert::context::context_check(check_context(
            &messages,
            threshold as usize,
            reserve as usize,
        ))
    }

    fn compact_tool_result(text: String, limit: u32) -> ToolResultCut {
        convert::context::tool_result_cut(compact_tool_result(
            &TokenCounter::default(),
            &text,
            limit as usize,
        ))
    }
}
