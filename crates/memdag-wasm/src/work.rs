//! Working memory from JS: the small structured state of one user in one thread (`goal`,
//! `tasks`, `constraints`, `notes` and any other named field), changed field by field.
//!
//! Working memory is per user and thread: `user` (in the update, and the second argument of
//! `workingMemory` and `clearWork`) names whose; without it, the working memory of no user.
//! A user never sees another's working memory of a thread id they share. An empty or blank
//! user throws `INVALID_INPUT`.
//!
//! `updateWork({ thread, field, op, value, at, user })` applies one change (`op` one of
//! `set`, `push`, `pop`, `patch`, `remove`); `at` defaults to the host clock (see
//! [`crate::clock`]). Changes to different fields never touch each other, and of two changes
//! to one field the newest wins (the older is kept in the history as `stale`): so two tabs
//! that change different fields both keep their change once their journals are replayed.
//! Values are any JSON; a typed array is not JSON (`INVALID_INPUT`).

use memdag_core::work::WorkUpdate;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{parse_object_within, property, to_plain_json};
use crate::memory::{string, Memory};

#[wasm_bindgen]
impl Memory {
    /// `user`'s working memory of `thread` (no user's without one): `{ thread, user, fields:
    /// { name: { value, updatedAt, version } }, history }` (empty fields if there is none).
    #[wasm_bindgen(js_name = workingMemory)]
    pub fn working_memory(
        &self,
        thread: &JsValue,
        user: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let thread = string("thread", thread)?;
        self.read(|s| {
            to_plain_json(
                "working memory",
                &s.working_memory(&thread, user.as_deref())?,
            )
        })
    }

    /// Applies one change to a thread's working memory and returns it: `{ at, field, op,
    /// value, previous, stale, user }` (for `pop`, `value` is the element popped). Throws
    /// `INVALID_INPUT` for an empty thread or field, a missing value, a push or pop on a field
    /// that is not a list, or a limit; nothing changes then.
    #[wasm_bindgen(js_name = updateWork)]
    pub fn update_work(&self, update: JsValue) -> Result<JsValue, JsValue> {
        let mut u: WorkUpdate =
            parse_object_within("work update", update.clone(), self.max_field_bytes()?)
                .map_err(throw)?;
        if property(&update, "at").is_none() {
            u.at = clock::now();
        }
        self.write(|s| to_plain_json("work change", &s.update_work(&u)?))
    }

    /// Forgets `user`'s working memory of a thread (no user's without one); whether there
    /// was one.
    #[wasm_bindgen(js_name = clearWork)]
    pub fn clear_work(&self, thread: &JsValue, user: Option<String>) -> Result<bool, JsValue> {
        let thread = string("thread", thread)?;
        self.write(|s| s.clear_work(&thread, user.as_deref()))
    }

    /// The threads that have working memory (of any user), in order.
    #[wasm_bindgen(js_name = workThreads)]
    pub fn work_threads(&self) -> Result<Vec<String>, JsValue> {
        self.read(|s| Ok(s.work_threads()))
    }
}
