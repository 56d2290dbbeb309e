//! Turns in, records out: the JS shapes of [`NewTurn`] and [`Record`].
//!
//! JS sees camelCase property names (`createdAt`); the core's Rust fields are snake_case
//! (`created_at`). The one multi-word field is renamed here, and `created_at` is accepted on
//! input as an alias. Nested types (`Step`, `CompactNode`, `Section`) have one-word fields and
//! pass through the core's own serde derives.
//!
//! Output is a plain object (serde-wasm-bindgen's JSON-compatible serializer): absent options
//! are `null`, numbers are JS numbers. Two `f32` fields get special care so JS sees what it put
//! in: `importance` is widened through its shortest decimal form (`0.7`, not
//! `0.699999988079071`), and `embedding` comes out as a `Float32Array`.

use js_sys::{Float32Array, Reflect};
use memdag_core::{CompactNode, Error, NewTurn, Record, Step};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use crate::fields::parse_object_within;

/// A new turn as JS writes it. Unknown properties are refused, so a typo such as `parent`
/// for `parents` fails with `INVALID_INPUT` instead of silently adding a root. (serde's
/// `deny_unknown_fields` cannot do this: serde-wasm-bindgen only looks up the known names.)
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TurnInput {
    // Every field is optional so that `undefined` (and `null`) read as "absent", as JS expects.
    id: Option<String>,
    thread: Option<String>,
    user: Option<String>,
    #[serde(alias = "created_at")]
    created_at: Option<i64>,
    input: Option<String>,
    output: Option<String>,
    steps: Option<Vec<Step>>,
    parents: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    importance: Option<f32>,
    compact: Option<CompactNode>,
    embedding: Option<Vec<f32>>,
}

impl TurnInput {
    /// Reads a turn from a JS object. Malformed input is `INVALID_INPUT`, and so is a string
    /// over `max_field_bytes`, refused before it is copied into wasm memory.
    pub fn from_js(value: JsValue, max_field_bytes: usize) -> Result<Self, Error> {
        parse_object_within("turn", value, max_field_bytes)
    }
}

impl From<TurnInput> for NewTurn {
    // The base keeps fields the core may add later at their defaults until JS learns them.
    #[allow(clippy::needless_update)]
    fn from(t: TurnInput) -> Self {
        NewTurn {
            id: t.id,
            thread: t.thread.unwrap_or_default(),
            user: t.user.unwrap_or_default(),
            created_at: t.created_at.unwrap_or_default(),
            input: t.input.unwrap_or_default(),
            output: t.output.unwrap_or_default(),
            steps: t.steps.unwrap_or_default(),
            parents: t.parents.unwrap_or_default(),
            tags: t.tags.unwrap_or_default(),
            importance: t.importance,
            compact: t.compact,
            embedding: t.embedding,
            ..NewTurn::default()
        }
    }
}

/// A record as JS reads it, borrowing from the store. `embedding` is set separately.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordOutput<'a> {
    id: &'a str,
    seq: f64,
    thread: &'a str,
    user: &'a str,
    created_at: f64,
    input: &'a str,
    output: &'a str,
    steps: &'a [Step],
    parents: &'a [String],
    tags: &'a [String],
    importance: f64,
    compact: Option<&'a CompactNode>,
}

/// Converts a record to a plain JS object.
pub fn record_to_js(record: &Record) -> Result<JsValue, Error> {
    let out = RecordOutput {
        id: &record.id,
        // Exact below 2^53: sequence numbers and millisecond timestamps stay far below it.
        seq: record.seq as f64,
        thread: &record.thread,
        user: &record.user,
        created_at: record.created_at as f64,
        input: &record.input,
        output: &record.output,
        steps: &record.steps,
        parents: &record.parents,
        tags: &record.tags,
        importance: widen(record.importance),
        compact: record.compact.as_ref(),
    };
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let js = out
        .serialize(&serializer)
        .map_err(|e| Error::invalid(format!("record {:?}: {e}", record.id)))?;
    let embedding = match &record.embedding {
        Some(v) => Float32Array::from(v.as_slice()).into(),
        None => JsValue::NULL,
    };
    Reflect::set(&js, &JsValue::from_str("embedding"), &embedding)
        .map_err(|_| Error::invalid("could not set embedding"))?;
    Ok(js)
}

/// Converts records to a JS array of plain objects.
pub fn records_to_js(records: &[&Record]) -> Result<JsValue, Error> {
    let list = js_sys::Array::new_with_length(records.len() as u32);
    for (i, r) in records.iter().enumerate() {
        list.set(i as u32, record_to_js(r)?);
    }
    Ok(list.into())
}

/// An `f32` as the `f64` of its shortest decimal form (up to 9 places), so `0.7f32` reads as
/// `0.7`, not `0.699999988079071`. `k / 10^p` with both exact is correctly rounded, so it is
/// the same `f64` JS gets from the literal. Without float parsing, to keep the module small.
pub fn widen(x: f32) -> f64 {
    let wide = f64::from(x);
    let mut scale = 1.0;
    for _ in 0..=9 {
        let candidate = (wide * scale).round() / scale;
        if candidate as f32 == x {
            return candidate;
        }
        scale *= 10.0;
    }
    wide
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::field_names;

    #[test]
    fn widen_keeps_the_decimal_form() {
        assert_eq!(widen(0.7), 0.7);
        assert_eq!(widen(0.5), 0.5);
        assert_eq!(widen(1.0), 1.0);
        assert_eq!(widen(0.1), 0.1);
        assert_eq!(widen(0.123), 0.123);
        assert_eq!(widen(0.33333334), 0.33333334);
        assert_eq!(widen(12345.5), 12345.5);
        assert_eq!(widen(1e-12), f64::from(1e-12f32));
        assert!(widen(f32::NAN).is_nan());
        for i in 0..=1000 {
            let x = i as f32 / 1000.0;
            assert_eq!(widen(x), x.to_string().parse::<f64>().unwrap(), "{x}");
        }
    }

    #[test]
    fn turn_input_knows_its_js_names() {
        let names = field_names::<TurnInput>();
        for name in [
            "id",
            "thread",
            "createdAt",
            "created_at",
            "parents",
            "embedding",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert!(!names.contains(&"parent"));
    }

    #[test]
    fn turn_input_maps_every_field() {
        let t = TurnInput {
            id: Some("a".into()),
            thread: Some("t".into()),
            created_at: Some(7),
            importance: Some(0.25),
            parents: Some(vec!["p".into()]),
            ..TurnInput::default()
        };
        let n = NewTurn::from(t);
        assert_eq!(n.id.as_deref(), Some("a"));
        assert_eq!(n.created_at, 7);
        assert_eq!(n.parents, vec!["p".to_string()]);
        assert_eq!(n.user, "");
        assert!(n.steps.is_empty());
        assert_eq!(n.importance, Some(0.25));
    }
}
