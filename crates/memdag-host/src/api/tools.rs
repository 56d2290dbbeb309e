//! The tools a model calls, the JSON turn shape, full search, and the store-less helpers
//! (durations and timestamps) through [`Memory`]. These helpers are the core's, so every face
//! reads `30d` or `2024-05-08T13:56:00Z` the same way. See `wit/memory.wit` for the errors.

use crate::bindings::exports::memdag::core::memory::ToolContext;
use crate::bindings::memdag::core::query::{SearchQuery, SearchResults};
use crate::{Error, Memory, NewTurn, Record};

impl Memory {
    /// The tools' JSON Schemas as a JSON array for `format`: `openai`, `anthropic` or `mcp`.
    pub fn tool_schemas(&mut self, format: &str) -> Result<String, Error> {
        Ok(self.call(|i, st, _| i.memdag_core_memory().call_tool_schemas(st, format))??)
    }

    /// Runs tool `name` with JSON `arguments` under `context` (whose user binds the tool to
    /// that user's memory); answers JSON text.
    pub fn call_tool(
        &mut self,
        name: &str,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<String, Error> {
        self.store_call(|s, st, h| s.call_call_tool(st, h, name, arguments, context))
    }

    /// A turn parsed from the JSON turn shape (`now` when it gives no time); nothing stored.
    pub fn parse_turn_json(&mut self, json: &str, now: i64) -> Result<NewTurn, Error> {
        Ok(self.call(|i, st, _| i.memdag_core_memory().call_parse_turn_json(st, json, now))??)
    }

    /// Adds a turn given in the JSON turn shape (`now` when it gives no time).
    pub fn add_turn_json(&mut self, json: &str, now: i64) -> Result<Record, Error> {
        self.store_call(|s, st, h| s.call_add_turn_json(st, h, json, now))
    }

    /// Search with the time range the text named (resolved against the query's `now`).
    pub fn search_full(&mut self, query: &SearchQuery) -> Result<SearchResults, Error> {
        self.store_call(|s, st, h| s.call_search_full(st, h, query))
    }

    /// Entries (from [`Memory::export_snapshot`]) as one snapshot file (`MDAGEXP1`).
    pub fn encode_snapshot(&mut self, entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, Error> {
        self.call(|i, st, _| i.memdag_core_memory().call_encode_snapshot(st, entries))
    }

    /// The entries of a snapshot file, for [`Memory::import_snapshot`].
    pub fn decode_snapshot(&mut self, file: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
        Ok(self.call(|i, st, _| i.memdag_core_memory().call_decode_snapshot(st, file))??)
    }

    /// A duration (`90s`, `12h`, `30d`, ...) in ms.
    pub fn parse_duration(&mut self, text: &str) -> Result<i64, Error> {
        Ok(self.call(|i, st, _| i.memdag_core_memory().call_parse_duration(st, text))??)
    }

    /// A time given as ms since the epoch or as ISO 8601, in ms.
    pub fn parse_timestamp(&mut self, text: &str) -> Result<i64, Error> {
        Ok(self.call(|i, st, _| i.memdag_core_memory().call_parse_timestamp(st, text))??)
    }

    /// A time in ms as ISO 8601 in UTC, exact to the millisecond.
    pub fn format_timestamp(&mut self, ms: i64) -> Result<String, Error> {
        self.call(|i, st, _| i.memdag_core_memory().call_format_timestamp(st, ms))
    }
}
