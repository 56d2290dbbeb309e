//! Turns in, records out: the JS shapes of [`NewTurn`] and [`Record`].
//!
//! A new turn is read through the core's one JSON turn shape ([`json::turn_from_value`]), the
//! same in every face: `createdAt` (or `created_at`) is milliseconds or an ISO 8601 string and
//! defaults to the host clock (see [`crate::clock`]); a step's `ok` defaults to `true`; `args`
//! is text or any JSON value; `text` is an alias of `input`; unknown properties are refused,
//! so a typo such as `parent` for `parents` fails with `INVALID_INPUT` instead of silently
//! adding a root. Two things are JS's own and handled here: a property that is `undefined` or
//! `null` (at the top level or in a step) reads as absent, and `embedding` may be a
//! `Float32Array`, which is not JSON, so it is read apart. Strings over the size limit are
//! refused before they are copied into wasm memory.
//!
//! Output is a plain object (serde-wasm-bindgen's JSON-compatible serializer): absent options
//! are `null`, numbers are JS numbers, `createdAt` is milliseconds. Two `f32` fields get
//! special care so JS sees what it put in: `importance` is widened through its shortest
//! decimal form (`0.7`, not `0.699999988079071`), and `embedding` comes out as a
//! `Float32Array`.

use js_sys::{Array, Float32Array, Object, Reflect};
use memdag_core::cite::Added;
use memdag_core::{json, CompactNode, Error, NewTurn, Record, Step, Store};
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::{JsCast, JsValue};

use crate::fields::{check_object, from_js};

/// Reads a new turn from a JS object (see the module docs); `clock()` gives the time of a
/// turn without `createdAt`. Malformed input is `INVALID_INPUT`, and so is a string over
/// `max_field_bytes`, refused before it is copied into wasm memory.
pub fn turn_from_js(
    value: JsValue,
    max_field_bytes: usize,
    clock: impl FnOnce() -> i64,
) -> Result<NewTurn, Error> {
    let object = check_object("turn", &value, max_field_bytes)?;
    let mut fields = Map::new();
    let mut embedding = None;
    for entry in Object::entries(object).iter() {
        let pair: Array = entry.unchecked_into();
        let (key, v) = (pair.get(0).as_string().unwrap_or_default(), pair.get(1));
        if v.is_undefined() || v.is_null() {
            continue;
        }
        if key == "embedding" {
            embedding = Some(from_js::<Vec<f32>>("turn.embedding", v)?);
        } else {
            let json = from_js::<Value>(&format!("turn.{key}"), v)?;
            fields.insert(key, json);
        }
    }
    turn_from_fields(fields, embedding, clock)
}

/// The turn of its JSON fields (JS absences already dropped) and embedding.
fn turn_from_fields(
    mut fields: Map<String, Value>,
    embedding: Option<Vec<f32>>,
    clock: impl FnOnce() -> i64,
) -> Result<NewTurn, Error> {
    if let Some(Value::Array(steps)) = fields.get_mut("steps") {
        for step in steps {
            if let Value::Object(step) = step {
                step.retain(|_, v| !v.is_null());
            }
        }
    }
    let timed = fields.contains_key("createdAt") || fields.contains_key("created_at");
    let now = if timed { 0 } else { clock() };
    let mut turn = json::turn_from_value(Value::Object(fields), now)?;
    turn.embedding = embedding;
    Ok(turn)
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

/// Converts a record of `store` (or one just taken out of it) to a plain JS object, with
/// its embedding wherever the store keeps it ([`Store::embedding_of`]).
pub fn record_to_js(store: &Store, record: &Record) -> Result<JsValue, Error> {
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
    let embedding = match store.embedding_of(record) {
        Some(v) => Float32Array::from(&v[..]).into(),
        None => JsValue::NULL,
    };
    Reflect::set(&js, &JsValue::from_str("embedding"), &embedding)
        .map_err(|_| Error::invalid("could not set embedding"))?;
    Ok(js)
}

/// Converts records of `store` to a JS array of plain objects.
pub fn records_to_js(store: &Store, records: &[&Record]) -> Result<JsValue, Error> {
    let list = js_sys::Array::new_with_length(records.len() as u32);
    for (i, r) in records.iter().enumerate() {
        list.set(i as u32, record_to_js(store, r)?);
    }
    Ok(list.into())
}

/// Converts the record a store call just added or changed, named by the id the call gave
/// back (its `&Record` borrows the store), to a plain JS object.
pub fn changed_to_js(store: &Store, changed: Result<String, Error>) -> Result<JsValue, Error> {
    let id = changed?;
    match store.get(&id) {
        Some(r) => record_to_js(store, r),
        None => Err(Error::NotFound { id }),
    }
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

/// The record of an [`Added`] (see `crate::cite`) with its `dropped` parents as a property.
pub fn added_to_js(store: &Store, added: &Added) -> Result<JsValue, Error> {
    let js = record_to_js(store, &added.record)?;
    let dropped: Array = added
        .dropped
        .iter()
        .map(|id| JsValue::from_str(id))
        .collect();
    Reflect::set(&js, &JsValue::from_str("dropped"), &dropped)
        .map_err(|_| Error::invalid("could not set dropped"))?;
    Ok(js)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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

    fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_turn_takes_the_core_shape_and_the_clock_when_untimed() {
        let t = turn_from_fields(
            fields(json!({"thread": "t", "steps": [{"tool": "x", "ok": null}]})),
            None,
            || 42,
        )
        .unwrap();
        assert_eq!(t.created_at, 42, "no createdAt: the clock");
        assert!(t.steps[0].ok, "ok defaults to true; null reads as absent");
        let iso = json!({"thread": "t", "createdAt": "2024-05-08T13:56:00Z", "text": "hi"});
        let t = turn_from_fields(fields(iso), Some(vec![1.0]), || panic!("not read")).unwrap();
        assert_eq!(t.created_at, 1_715_176_560_000);
        assert_eq!(t.input, "hi");
        assert_eq!(t.embedding, Some(vec![1.0]));
        let t = turn_from_fields(fields(json!({"thread": "t", "created_at": 7})), None, || 0);
        assert_eq!(t.unwrap().created_at, 7);
    }

    #[test]
    fn a_misspelt_property_is_refused() {
        let e = turn_from_fields(fields(json!({"thread": "t", "parent": "p"})), None, || 0);
        assert_eq!(e.unwrap_err().code(), "INVALID_INPUT");
    }
}
