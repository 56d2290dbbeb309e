//! Long-term memory items from JS: add (through dedup and conflicts), get, update, soft
//! delete, history, listings, the resolution log and the memory settings.
//!
//! Every shape is the core's own serde (camelCase: [`NewItem`], [`ItemUpdate`],
//! [`MemoryItem`], [`Learned`], [`ItemQuery`], [`MemoryConfig`], ...), read with
//! [`parse_object`] (unknown properties refused) and shown with [`to_plain_json`] (so an
//! `importance` of `0.7` reads back as `0.7`). This module only adds what is JS's own:
//! - a missing `createdAt` (new items), `at` (updates, deletes) or `now` (listings) is the host
//!   clock (see [`crate::clock`]);
//! - `ttl` may stand for `ttlMs`, as a duration text (`"30d"`, `"12h"`, see [`parseDuration`])
//!   or milliseconds.
//!
//! Errors are the core's: `NOT_FOUND` for an unknown item, `UNKNOWN_PARENT` for an unknown
//! source, `INVALID_INPUT` for the rest; nothing changes on an error.

use memdag_core::item::{ItemUpdate, NewItem};
use memdag_core::memory::{ItemQuery, MemoryConfig, ResolutionQuery};
use memdag_core::time;
use memdag_core::Error;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{parse_object, parse_object_with, parse_optional, property, to_plain_json};
use crate::memory::{string, Memory};

/// A new item from JS (see the module docs); `now` is the time of one without `createdAt`.
pub fn new_item_from_js(
    what: &str,
    value: JsValue,
    max_field_bytes: usize,
    now: i64,
) -> Result<NewItem, Error> {
    let mut item: NewItem = parse_object_with(what, value.clone(), max_field_bytes, &["ttl"])?;
    if property(&value, "createdAt").is_none() {
        item.created_at = now;
    }
    if let Some(ttl) = ttl_of(what, &value)? {
        if item.ttl_ms.is_some() {
            return Err(Error::invalid(format!(
                "{what}: give ttl or ttlMs, not both"
            )));
        }
        item.ttl_ms = Some(ttl);
    }
    Ok(item)
}

/// An item update from JS; `now` is the time of one without `at`.
fn update_from_js(value: JsValue, max_field_bytes: usize, now: i64) -> Result<ItemUpdate, Error> {
    let mut update: ItemUpdate =
        parse_object_with("update", value.clone(), max_field_bytes, &["ttl"])?;
    if property(&value, "at").is_none() {
        update.at = now;
    }
    if let Some(ttl) = ttl_of("update", &value)? {
        if update.ttl_ms.is_some() {
            return Err(Error::invalid("update: give ttl or ttlMs, not both"));
        }
        update.ttl_ms = Some(ttl);
    }
    Ok(update)
}

/// The `ttl` property in ms: a duration text or a whole number of ms.
fn ttl_of(what: &str, value: &JsValue) -> Result<Option<i64>, Error> {
    let Some(ttl) = property(value, "ttl") else {
        return Ok(None);
    };
    if let Some(text) = ttl.as_string() {
        return time::parse_duration(&text).map(Some);
    }
    match ttl.as_f64() {
        Some(ms) if ms.is_finite() && ms.fract() == 0.0 => Ok(Some(ms as i64)),
        _ => Err(Error::invalid(format!(
            "{what}: ttl must be a duration such as \"30d\" or a number of ms"
        ))),
    }
}

/// The milliseconds of a duration text such as `"90s"`, `"15m"`, `"12h"`, `"30d"` or `"2w"`.
/// Throws `INVALID_INPUT` for anything else.
#[wasm_bindgen(js_name = parseDuration)]
pub fn parse_duration(text: &JsValue) -> Result<f64, JsValue> {
    let text = string("duration", text)?;
    time::parse_duration(&text)
        .map(|ms| ms as f64)
        .map_err(throw)
}

#[wasm_bindgen]
impl Memory {
    /// Adds a long-term memory item through dedup and conflict handling and returns what
    /// happened: `{ outcome, item, others, reason }`, the outcome one of `added`,
    /// `corroborated`, `superseded`, `flagged`, `merged`, `updated`. Throws `INVALID_INPUT`
    /// (no kind, an empty text, a limit) or `UNKNOWN_PARENT` (an unknown source).
    #[wasm_bindgen(js_name = addItem)]
    pub fn add_item(&self, item: JsValue) -> Result<JsValue, JsValue> {
        let item =
            new_item_from_js("item", item, self.max_field_bytes()?, clock::now()).map_err(throw)?;
        self.write(|s| to_plain_json("learned", &s.add_item(item)?))
    }

    /// The item with this id (whatever its status), or `undefined` (also for a turn's id).
    /// With a `user`, only if that user may see it (their own, or tagged `shared`); throws
    /// `INVALID_INPUT` for an empty or blank user.
    #[wasm_bindgen(js_name = getItem)]
    pub fn get_item(&self, id: &JsValue, user: Option<String>) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        self.read(|s| {
            let item = s.item_as(user.as_deref(), &id)?;
            item.map_or(Ok(JsValue::UNDEFINED), |i| to_plain_json("item", &i))
        })
    }

    /// Makes a new version of an item from the fields `update` gives (the old one goes to its
    /// history) and returns the item. Throws `NOT_FOUND` or `INVALID_INPUT`.
    #[wasm_bindgen(js_name = updateItem)]
    pub fn update_item(&self, id: &JsValue, update: JsValue) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        let update =
            update_from_js(update, self.max_field_bytes()?, clock::now()).map_err(throw)?;
        self.write(|s| to_plain_json("item", &s.update_item(&id, update)?))
    }

    /// Deletes an item softly at `at` (default now): it keeps its history, stays listable as
    /// `deleted` and leaves search and recall. Idempotent. Throws `NOT_FOUND`. (`delete(id)`
    /// removes it for good.)
    #[wasm_bindgen(js_name = deleteItem)]
    pub fn delete_item(&self, id: &JsValue, at: Option<f64>) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        let at = clock::time_arg("at", at).map_err(throw)?;
        self.write(|s| to_plain_json("item", &s.delete_item(&id, at)?))
    }

    /// Every version of an item, oldest first, those of the items it superseded included.
    /// With a `user`, only an item that user may see (else `NOT_FOUND`). Throws `NOT_FOUND`,
    /// or `INVALID_INPUT` for an empty or blank user.
    #[wasm_bindgen(js_name = itemHistory)]
    pub fn item_history(&self, id: &JsValue, user: Option<String>) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        self.read(|s| to_plain_json("history", &s.item_history_as(user.as_deref(), &id)?))
    }

    /// The items a query selects (every property optional: `user`, `kinds`, `task`, `tool`,
    /// `statuses`, `all`, `since`, `until`, `asOf`, `now`, `order`, `ascending`, `limit`,
    /// `offset`); active items, newest first, by default. `now` defaults to the host clock.
    #[wasm_bindgen(js_name = listItems)]
    pub fn list_items(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let mut query: ItemQuery = parse_optional("item query", query).map_err(throw)?;
        query.now = Some(clock::or_now(query.now));
        self.read(|s| to_plain_json("items", &s.list_items(&query)?))
    }

    /// The logged resolutions a query selects (`user`, `item`, `actions`, `since`, `until`,
    /// `limit`), newest first.
    pub fn resolutions(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query: ResolutionQuery = parse_optional("resolution query", query).map_err(throw)?;
        self.read(|s| to_plain_json("resolutions", &s.resolutions(&query)?))
    }

    /// The long-term memory settings (the defaults until set).
    #[wasm_bindgen(getter, js_name = memoryConfig)]
    pub fn memory_config(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain_json("memory config", &s.memory_config()))
    }

    /// Sets the long-term memory settings, persisted with the store; names left out take
    /// their defaults. Throws `INVALID_INPUT` for an unknown name or an out-of-range value.
    #[wasm_bindgen(js_name = setMemoryConfig)]
    pub fn set_memory_config(&self, config: JsValue) -> Result<(), JsValue> {
        let config: MemoryConfig = parse_object("memory config", config).map_err(throw)?;
        self.write(|s| s.set_memory_config(config))
    }
}
