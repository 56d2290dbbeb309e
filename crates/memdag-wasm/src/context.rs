//! Context-window tools from JS: `countTokens`, `checkContext`, `compactToolResult` (free
//! functions) and, on `Memory`, `compactToolResults` and the blob store that keeps the full
//! text of every cut tool result.
//!
//! Messages are `{ role, content, toolCallId?, toolCalls? }` with `role` one of `system`,
//! `user`, `assistant`, `tool`. Encodings are `"cl100k_base"` (default) or `"o200k_base"`;
//! counts are exact only in a build with the `tiktoken` feature (see `tokensExact`), else the
//! core's estimate, which aims to be an upper bound.

use memdag_core::context::{
    self, check_context_with, ContextCheck, Message, Role, ToolResultCut, ToolResultLimits,
};
use memdag_core::tokens::{Encoding, TokenCounter};
use memdag_core::Error;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::fields::{parse_object, to_plain};
use crate::memory::{string, Memory};

/// A message as JS writes and reads it.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MessageJs {
    role: Role,
    content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<String>,
}

impl From<MessageJs> for Message {
    fn from(m: MessageJs) -> Self {
        Message {
            role: m.role,
            content: m.content,
            tool_call_id: m.tool_call_id,
            tool_calls: m.tool_calls,
        }
    }
}

impl From<Message> for MessageJs {
    fn from(m: Message) -> Self {
        MessageJs {
            role: m.role,
            content: m.content,
            tool_call_id: m.tool_call_id,
            tool_calls: m.tool_calls,
        }
    }
}

/// The answer of `checkContext`, camelCase.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckOutput {
    total_tokens: usize,
    needs_compaction: bool,
    to_compact: Vec<MessageJs>,
    to_keep: Vec<MessageJs>,
    compact_tokens: usize,
    keep_tokens: usize,
}

impl From<ContextCheck> for CheckOutput {
    fn from(c: ContextCheck) -> Self {
        CheckOutput {
            total_tokens: c.total_tokens,
            needs_compaction: c.needs_compaction,
            to_compact: c.to_compact.into_iter().map(MessageJs::from).collect(),
            to_keep: c.to_keep.into_iter().map(MessageJs::from).collect(),
            compact_tokens: c.compact_tokens,
            keep_tokens: c.keep_tokens,
        }
    }
}

/// The answer of `compactToolResult`, camelCase.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CutOutput {
    text: String,
    truncated: bool,
    blob_id: Option<String>,
    full: Option<String>,
    original_tokens: usize,
    tokens: usize,
}

impl From<ToolResultCut> for CutOutput {
    fn from(c: ToolResultCut) -> Self {
        CutOutput {
            text: c.text,
            truncated: c.truncated,
            blob_id: c.blob_id,
            full: c.full,
            original_tokens: c.original_tokens,
            tokens: c.tokens,
        }
    }
}

/// Options of `checkContext`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct CheckOptions {
    threshold: Option<usize>,
    reserve: Option<usize>,
    encoding: Option<Encoding>,
}

/// Options of `compactToolResults`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct LimitsInput {
    recent_tokens: Option<usize>,
    old_tokens: Option<usize>,
    recent_count: Option<usize>,
    encoding: Option<Encoding>,
}

/// A counter for an optional encoding name; an unknown name is `INVALID_INPUT`.
fn counter(encoding: &JsValue) -> Result<TokenCounter, JsValue> {
    if encoding.is_undefined() || encoding.is_null() {
        return Ok(TokenCounter::default());
    }
    let name = string("encoding", encoding)?;
    Encoding::from_name(&name)
        .map(TokenCounter::new)
        .ok_or_else(|| {
            throw(Error::invalid(format!(
                "unknown encoding {name:?}; use cl100k_base or o200k_base"
            )))
        })
}

/// The messages of a JS array, each read as a [`MessageJs`]; `INVALID_INPUT` naming the first
/// bad one.
pub(crate) fn messages_from_js(messages: JsValue) -> Result<Vec<Message>, JsValue> {
    if !js_sys::Array::is_array(&messages) {
        return Err(throw(Error::invalid(
            "messages must be an array of messages",
        )));
    }
    js_sys::Array::from(&messages)
        .iter()
        .enumerate()
        .map(|(i, m)| {
            parse_object::<MessageJs>(&format!("messages[{i}]"), m)
                .map(Message::from)
                .map_err(throw)
        })
        .collect()
}

fn options<T: for<'de> Deserialize<'de> + Default>(what: &str, v: JsValue) -> Result<T, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(T::default());
    }
    parse_object(what, v).map_err(throw)
}

/// The number of tokens of `text` in `encoding` (default `"cl100k_base"`).
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: &JsValue, encoding: JsValue) -> Result<usize, JsValue> {
    let text = string("text", text)?;
    Ok(counter(&encoding)?.count(&text))
}

/// Whether token counts in `encoding` are exact BPE counts (a `tiktoken` build) rather than
/// the estimate.
#[wasm_bindgen(js_name = tokensExact)]
pub fn tokens_exact(encoding: JsValue) -> Result<bool, JsValue> {
    Ok(counter(&encoding)?.is_exact())
}

/// Splits `messages` into older ones to compact and newer ones to keep when they total more
/// than `threshold` tokens, keeping a newest tail of about `reserve` tokens; never separates a
/// tool call from its results, nor a user message from its reply. Options: `{ threshold,
/// reserve, encoding }` (defaults 100,000 and 20,000).
#[wasm_bindgen(js_name = checkContext)]
pub fn check_context(messages: JsValue, options_: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(messages)?;
    let o: CheckOptions = options("options", options_)?;
    let counter = TokenCounter::new(o.encoding.unwrap_or_default());
    let check = check_context_with(
        &counter,
        &messages,
        o.threshold.unwrap_or(100_000),
        o.reserve.unwrap_or(20_000),
    );
    to_plain("context check", &CheckOutput::from(check)).map_err(throw)
}

/// Cuts one tool output to at most `limit` tokens, keeping head and tail and appending a
/// marker naming the blob id of the full text (store `full` with `memory.putBlob` to keep it).
#[wasm_bindgen(js_name = compactToolResult)]
pub fn compact_tool_result(
    text: &JsValue,
    limit: f64,
    encoding: JsValue,
) -> Result<JsValue, JsValue> {
    let text = string("text", text)?;
    let limit = crate::memory::count("limit", Some(limit))?;
    let cut = context::compact_tool_result(&counter(&encoding)?, &text, limit);
    to_plain("tool result", &CutOutput::from(cut)).map_err(throw)
}

#[wasm_bindgen]
impl Memory {
    /// Cuts every tool message over its limit and stores each full text as a blob; the newest
    /// `recentCount` (3) tool messages get `recentTokens` (2,000), older ones `oldTokens` (400).
    /// Returns `{ messages, blobIds }`; the input array is not modified.
    #[wasm_bindgen(js_name = compactToolResults)]
    pub fn compact_tool_results(
        &self,
        messages: JsValue,
        limits: JsValue,
    ) -> Result<JsValue, JsValue> {
        let mut messages = messages_from_js(messages)?;
        let l: LimitsInput = options("limits", limits)?;
        let d = ToolResultLimits::default();
        let limits = ToolResultLimits {
            recent_tokens: l.recent_tokens.unwrap_or(d.recent_tokens),
            old_tokens: l.old_tokens.unwrap_or(d.old_tokens),
            recent_count: l.recent_count.unwrap_or(d.recent_count),
        };
        let counter = TokenCounter::new(l.encoding.unwrap_or_default());
        self.write(|s| {
            let ids = s.compact_tool_results(&counter, &mut messages, &limits)?;
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Out {
                messages: Vec<MessageJs>,
                blob_ids: Vec<String>,
            }
            let messages = messages.into_iter().map(MessageJs::from).collect();
            to_plain(
                "tool results",
                &Out {
                    messages,
                    blob_ids: ids,
                },
            )
        })
    }

    /// Stores `text` as a blob and returns its content-derived id. Idempotent.
    #[wasm_bindgen(js_name = putBlob)]
    pub fn put_blob(&self, text: &JsValue) -> Result<String, JsValue> {
        let text = string("text", text)?;
        self.write(|s| s.put_blob(text))
    }

    /// The text of a blob, or `undefined`.
    pub fn blob(&self, id: &JsValue) -> Result<Option<String>, JsValue> {
        let id = string("id", id)?;
        self.read(|s| Ok(s.blob(&id).map(str::to_owned)))
    }

    /// Removes a blob; returns whether there was one. Idempotent.
    #[wasm_bindgen(js_name = removeBlob)]
    pub fn remove_blob(&self, id: &JsValue) -> Result<bool, JsValue> {
        let id = string("id", id)?;
        self.write(|s| Ok(s.remove_blob(&id)))
    }

    /// The ids of every blob, sorted.
    #[wasm_bindgen(js_name = blobIds)]
    pub fn blob_ids(&self) -> Result<Vec<String>, JsValue> {
        self.read(|s| Ok(s.blob_ids().map(str::to_owned).collect()))
    }
}
