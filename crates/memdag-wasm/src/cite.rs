//! Citations from JS: the ids a model's reply cites, and turns whose unknown parents are
//! dropped (the core's [`memdag_core::cite`]).
//!
//! `cited(replyText, user?)` answers the `[id]`s of the reply that name a record the user
//! may see (every record without a user), in order of first citation, once each: the parents
//! of the agent's next turn. `addTurn(turn, { dropUnknownParents: true })` adds the turn
//! without the parents no record has, instead of refusing it with `UNKNOWN_PARENT`; with
//! options, the record it returns carries `dropped`, the parents left out (`[]` when none
//! were). Without options `addTurn` returns the plain record, as before.

use wasm_bindgen::prelude::*;

use crate::memory::{string, Memory};

#[wasm_bindgen]
impl Memory {
    /// The ids cited as `[id]` in `text` that name a record `user` may see (every record
    /// when `user` is omitted), in order of first citation. Throws `INVALID_INPUT` for an
    /// empty or blank user.
    pub fn cited(&self, text: &JsValue, user: &JsValue) -> Result<Vec<String>, JsValue> {
        let text = string("text", text)?;
        let user = if user.is_undefined() || user.is_null() {
            None
        } else {
            Some(string("user", user)?)
        };
        self.read(|s| s.cited(&text, user.as_deref()))
    }
}
