//! Tools from JS: memdag's memory offered to a model, in three calls of an agent loop.
//!
//! `toolSchemas(format)` gives the tool definitions for `'openai'`, `'anthropic'` or `'mcp'`
//! (the core's [`tool_schemas`]); put them in the model request. For each tool call the model
//! makes, `callTool(name, args, context?)` runs it (the core's [`Store::call_tool`]) and answers
//! a plain object, to send back as the tool result. `args` is the model's arguments as JSON
//! text (as OpenAI gives them) or an object (as Anthropic and MCP do).
//!
//! The context `{ user, thread, now }` comes from the host, never from the model: `user` keeps
//! every tool to that user's memory, `thread` is recall's default thread, and `now` (default:
//! the host clock, see [`crate::clock`]) dates new items and resolves relative dates. A
//! malformed call (unknown tool, missing or unknown argument, wrong type) throws
//! `INVALID_INPUT`, whose message is meant for the model.
//!
//! `remember` and `forget` change the store, and so does `recall` (it counts uses):
//! `hasChanges` tells a host whether there is something to persist.
//!
//! [`Store::call_tool`]: memdag_core::Store::call_tool

use memdag_core::tools::{tool_schemas, ToolContext, ToolFormat};
use memdag_core::Error;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{json_from_js, parse_optional, to_plain_json};
use crate::memory::{string, Memory};

#[wasm_bindgen]
impl Memory {
    /// The tool definitions for `format` (`'openai'`, `'anthropic'` or `'mcp'`), as plain
    /// objects. Throws `INVALID_INPUT` for another format.
    #[wasm_bindgen(js_name = toolSchemas)]
    pub fn tool_schemas(&self, format: &JsValue) -> Result<JsValue, JsValue> {
        let format = ToolFormat::parse(&string("format", format)?).map_err(throw)?;
        to_plain_json("tool schemas", &tool_schemas(format)).map_err(throw)
    }

    /// Runs tool `name` with the model's `args` (JSON text or an object) under the host's
    /// `context` and answers a plain object. Throws `INVALID_INPUT` for a malformed call,
    /// `NOT_FOUND` for an id the context's user cannot see.
    #[wasm_bindgen(js_name = callTool)]
    pub fn call_tool(
        &self,
        name: &JsValue,
        args: JsValue,
        context: JsValue,
    ) -> Result<JsValue, JsValue> {
        let name = string("name", name)?;
        let max = self.max_field_bytes()?;
        let mut ctx: ToolContext = parse_optional("tool context", context).map_err(throw)?;
        ctx.now = Some(clock::or_now(ctx.now));
        let args: Value = match args.as_string() {
            Some(text) if text.len() > max => {
                return Err(throw(Error::invalid(format!(
                    "args are {} bytes, over the limit of {max} (maxFieldBytes)",
                    text.len()
                ))))
            }
            Some(text) if text.trim().is_empty() => Value::Object(Default::default()),
            Some(text) => serde_json::from_str(&text).map_err(|e| {
                throw(Error::invalid(format!(
                    "{name}: arguments are not JSON: {e}"
                )))
            })?,
            None => json_from_js("args", &args, max).map_err(throw)?,
        };
        self.write(|s| to_plain_json("tool answer", &s.call_tool(&name, args, &ctx)?))
    }
}
