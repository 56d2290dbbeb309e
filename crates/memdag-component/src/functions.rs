//! The free functions of the exported `memory` interface: the tool schemas, the JSON turn
//! shape, snapshot files, durations and timestamps. Each is the core's, converted; none needs a store.

use memdag_core::time::{format_iso8601, parse_duration, parse_iso8601};
use memdag_core::tools::{tool_schemas, ToolFormat};
use memdag_core::Error as CoreError;

use crate::bindings::exports::memdag::core::memory::Guest;
use crate::bindings::memdag::core::types::{Error, NewTurn};
use crate::convert;

impl Guest for crate::Component {
    type Store = crate::resource::MemoryStore;

    fn tool_schemas(format: String) -> Result<String, Error> {
        let format = ToolFormat::parse(&format).map_err(|e| convert::error(&e))?;
        Ok(tool_schemas(format).to_string())
    }

    fn parse_turn_json(json: String, now: i64) -> Result<NewTurn, Error> {
        memdag_core::json::turn_from_json(&json, now)
            .map(convert::new_turn_out)
            .map_err(|e| convert::error(&e))
    }

    fn encode_snapshot(entries: Vec<(String, Vec<u8>)>) -> Vec<u8> {
        memdag_core::export::snapshot::encode_snapshot(&entries)
    }

    fn decode_snapshot(file: Vec<u8>) -> Result<Vec<(String, Vec<u8>)>, Error> {
        memdag_core::export::snapshot::decode_snapshot(&file).map_err(|e| convert::error(&e))
    }

    fn parse_duration(text: String) -> Result<i64, Error> {
        parse_duration(&text).map_err(|e| convert::error(&e))
    }

    fn parse_timestamp(text: String) -> Result<i64, Error> {
        let t = text.trim();
        let digits = t.strip_prefix('-').unwrap_or(t);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(ms) = t.parse() {
                return Ok(ms);
            }
        }
        parse_iso8601(t).ok_or_else(|| {
            convert::error(&CoreError::invalid(format!(
                "{text:?} is not a time: give ms since the epoch or ISO 8601"
            )))
        })
    }

    fn format_timestamp(ms: i64) -> String {
        format_iso8601(ms)
    }
}
