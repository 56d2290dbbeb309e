//! The timeline from JS: turns and items by local day.
//!
//! `timeline(query?)` takes the core's [`TimelineQuery`] (`{ user, thread, since, until,
//! offsetMinutes, itemsOnly, turnsOnly, limit }`, every property optional) and answers
//! `[{ date: 'YYYY-MM-DD', entries: [{ id, at, kind, thread, user, text }] }]`, `kind` set for
//! items only and `thread` for turns only.

use memdag_core::timeline::TimelineQuery;
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::fields::{parse_optional, to_plain_json};
use crate::memory::Memory;

#[wasm_bindgen]
impl Memory {
    /// The timeline a query selects, by day in `offsetMinutes` (default UTC). Throws
    /// `INVALID_INPUT` for a limit of 0 or over 10,000, or an offset beyond ±24 hours.
    pub fn timeline(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query: TimelineQuery = parse_optional("timeline query", query).map_err(throw)?;
        self.read(|s| to_plain_json("timeline", &s.timeline(&query)?))
    }
}
