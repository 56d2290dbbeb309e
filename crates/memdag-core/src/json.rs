//! The JSON shape of turns and records: the one owner of it for every face (the CLI's
//! `ingest` and `export`, the WIT `add-turn-json`, the tools, the JS package's plain objects).
//!
//! A turn in JSON (one line of `memdag ingest`, a tool argument, an export line):
//!
//! ```json
//! {"id": "optional", "thread": "t1", "user": "ada", "createdAt": "2024-05-08T13:56:00Z",
//!  "input": "…", "output": "…",
//!  "steps": [{"tool": "search", "args": {"q": "x"}, "result": "…", "ok": true}],
//!  "parents": ["…"], "tags": ["…"], "importance": 0.7,
//!  "compact": {"summary": "…", "sections": [{"name": "Goal", "text": "…"}]},
//!  "embedding": [0.1, …]}
//! ```
//!
//! - `createdAt` (or `created_at`) is milliseconds since the epoch or an ISO 8601 string; when
//!   it is missing the face's clock gives it (`now`): the core never reads a clock.
//! - A step's `ok` defaults to **true** (a step said nothing about failing); its `args` is text,
//!   or any JSON value, kept as its JSON text.
//! - `text` is accepted for `input` (dialogue datasets write it so).
//! - Unknown fields are refused, so a typo such as `parent` fails with `INVALID_INPUT`.
//!
//! Out, a record is the same shape with `seq`, `createdAt` as an ISO 8601 string (exact to
//! the millisecond, so an export reads back the same), `compact` when it has one and `item`
//! for a long-term memory item; the embedding is left out unless asked for.

use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::item::ItemMeta;
use crate::record::{CompactNode, NewTurn, Record, Step};
use crate::time::{format_iso8601, parse_iso8601};

/// A time as JSON gives it: milliseconds or an ISO 8601 string.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum JsonTime {
    Ms(i64),
    Text(String),
}

impl JsonTime {
    /// The milliseconds; `what` names the field in the error.
    pub fn ms(&self, what: &str) -> Result<i64> {
        match self {
            JsonTime::Ms(ms) => Ok(*ms),
            JsonTime::Text(s) => parse_iso8601(s).ok_or_else(|| {
                Error::invalid(std::format!("{what} {s:?} is not an ISO 8601 time"))
            }),
        }
    }
}

/// A step as JSON gives it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonStep {
    tool: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    result: String,
    #[serde(default = "yes")]
    ok: bool,
}

fn yes() -> bool {
    true
}

/// A turn as JSON gives it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct JsonTurn {
    #[serde(default)]
    id: Option<String>,
    thread: String,
    #[serde(default)]
    user: String,
    #[serde(default, alias = "created_at")]
    created_at: Option<JsonTime>,
    #[serde(default, alias = "text")]
    input: String,
    #[serde(default)]
    output: String,
    #[serde(default)]
    steps: Vec<JsonStep>,
    #[serde(default)]
    parents: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    importance: Option<f32>,
    #[serde(default)]
    compact: Option<CompactNode>,
    #[serde(default)]
    embedding: Option<Vec<f32>>,
}

/// A turn from its JSON value; `now` is the face's clock, the time of a turn that gives none.
pub fn turn_from_value(value: Value, now: i64) -> Result<NewTurn> {
    let t: JsonTurn =
        serde_json::from_value(value).map_err(|e| Error::invalid(std::format!("turn: {e}")))?;
    Ok(NewTurn {
        id: t.id,
        thread: t.thread,
        user: t.user,
        created_at: match &t.created_at {
            Some(time) => time.ms("createdAt")?,
            None => now,
        },
        input: t.input,
        output: t.output,
        steps: t
            .steps
            .into_iter()
            .map(|s| Step {
                tool: s.tool,
                args: match s.args {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(text)) => text,
                    Some(other) => other.to_string(),
                },
                result: s.result,
                ok: s.ok,
            })
            .collect(),
        parents: t.parents,
        tags: t.tags,
        importance: t.importance,
        compact: t.compact,
        embedding: t.embedding,
    })
}

/// A turn from its JSON text; see [`turn_from_value`].
pub fn turn_from_json(text: &str, now: i64) -> Result<NewTurn> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Error::invalid(std::format!("turn: not JSON: {e}")))?;
    turn_from_value(value, now)
}

/// Chat messages from their JSON text: an array of messages in the shape of
/// [`crate::context::Message`] (OpenAI's message objects read too). [`Error::InvalidInput`]
/// names the message that is not one.
pub fn messages_from_json(text: &str) -> Result<Vec<crate::context::Message>> {
    let values: Vec<Value> = serde_json::from_str(text)
        .map_err(|e| Error::invalid(std::format!("messages: not a JSON array of messages: {e}")))?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v)
                .map_err(|e| Error::invalid(std::format!("messages[{i}]: {e}")))
        })
        .collect()
}

/// A record as JSON shows it (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordJson<'a> {
    pub id: &'a str,
    pub seq: u64,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub thread: &'a str,
    pub user: &'a str,
    pub created_at: String,
    pub input: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub output: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub steps: &'a [Step],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub parents: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub tags: &'a [String],
    pub importance: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact: Option<&'a CompactNode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a ItemMeta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<&'a [f32]>,
}

/// A record's JSON value; with `embedding` (the store's, see [`crate::Store::embedding_of`]),
/// its vector too.
pub fn record_to_value(r: &Record, embedding: Option<&[f32]>) -> Value {
    let j = RecordJson {
        id: &r.id,
        seq: r.seq,
        thread: &r.thread,
        user: &r.user,
        created_at: format_iso8601(r.created_at),
        input: &r.input,
        output: &r.output,
        steps: &r.steps,
        parents: &r.parents,
        tags: &r.tags,
        importance: shortest(r.importance),
        compact: r.compact.as_ref(),
        item: r.item.as_deref(),
        embedding,
    };
    serde_json::to_value(j).unwrap_or(Value::Null)
}

/// An `f32` widened through its shortest decimal form, so JSON shows `0.7`, not
/// `0.699999988079071`.
pub fn shortest(x: f32) -> f64 {
    std::format!("{x}").parse().unwrap_or(f64::from(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_shape_defaults_and_refuses_typos() {
        let t = turn_from_json(
            r#"{"thread":"t","createdAt":"2024-05-08T13:56:00Z","text":"hi","steps":[{"tool":"x","args":{"a":1}}]}"#,
            7,
        )
        .unwrap();
        assert_eq!(t.created_at, 1_715_176_560_000);
        assert_eq!(t.input, "hi");
        assert!(t.steps[0].ok, "ok defaults to true");
        assert_eq!(t.steps[0].args, r#"{"a":1}"#);
        assert_eq!(
            turn_from_json(r#"{"thread":"t"}"#, 7).unwrap().created_at,
            7
        );
        assert_eq!(
            turn_from_json(r#"{"thread":"t","created_at":5}"#, 7)
                .unwrap()
                .created_at,
            5
        );
        for bad in [
            r#"{"thread":"t","parent":["a"]}"#,
            r#"{"thread":"t","createdAt":"soon"}"#,
            "[1]",
            "{",
        ] {
            assert_eq!(
                turn_from_json(bad, 0).unwrap_err().code(),
                "INVALID_INPUT",
                "{bad}"
            );
        }
    }
}
