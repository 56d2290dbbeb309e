//! Listings for tools such as the memory explorer: threads, users and direct children.
//!
//! Threads and users come from the core's indexes ([`memdag_core::Store::thread_groups`],
//! [`memdag_core::Store::user_groups`]), newest activity first; a user's count includes their
//! long-term memory items.

use wasm_bindgen::prelude::*;

use crate::fields::to_plain;
use crate::memory::{string, Memory};

#[wasm_bindgen]
impl Memory {
    /// Every thread as `{ name, count, newest }`, newest activity first.
    pub fn threads(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain("threads", &s.thread_groups()))
    }

    /// Every user as `{ name, count, newest }` (turns and items), newest activity first.
    pub fn users(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain("users", &s.user_groups()))
    }

    /// The ids of the direct children of `id` (records naming it as a parent).
    pub fn children(&self, id: &JsValue) -> Result<Vec<String>, JsValue> {
        let id = string("id", id)?;
        self.read(|s| Ok(s.children(&id).to_vec()))
    }
}
