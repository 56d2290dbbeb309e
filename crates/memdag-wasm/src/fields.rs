//! The property names a serde struct reads, including aliases.
//!
//! serde-wasm-bindgen deserializes a struct by looking up each known name on the JS object, so
//! it never sees a misspelt property. [`field_names`] asks serde's derive for the list of
//! names it accepts, so input can be checked against it without a hand-kept copy.

use js_sys::Object;
use memdag_core::{Error, Limits};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// The names `T`'s derived `Deserialize` accepts, or an empty list if `T` is not a struct.
pub fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut names));
    names
}

/// Reads a `T` from a plain JS object, refusing properties `T` does not know, so a typo fails
/// with `INVALID_INPUT` instead of being silently ignored. (serde's `deny_unknown_fields`
/// cannot do this: serde-wasm-bindgen only looks up the known names.) Only the top level is
/// checked; nested objects are read by name. Malformed input is `INVALID_INPUT`, with `what`
/// naming the argument.
pub fn parse_object<T: DeserializeOwned>(what: &str, value: JsValue) -> Result<T, Error> {
    parse_object_within(what, value, Limits::default().max_field_bytes)
}

/// [`parse_object`] refusing, before anything is copied into wasm memory, any string longer
/// than `max_string_bytes` and any list longer than the longest list a limit allows.
pub fn parse_object_within<T: DeserializeOwned>(
    what: &str,
    value: JsValue,
    max_string_bytes: usize,
) -> Result<T, Error> {
    let Some(object) = value.dyn_ref::<Object>() else {
        return Err(Error::invalid(format!("{what} must be an object")));
    };
    check_sizes(
        what,
        &value,
        max_string_bytes,
        Limits::default().max_list(),
        0,
    )?;
    let known = field_names::<T>();
    for key in Object::keys(object) {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) {
            return Err(Error::invalid(format!("{what}: unknown property {key:?}")));
        }
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        let message = e.to_string();
        Error::invalid(format!("{what}: {}", message.trim_start_matches("Error: ")))
    })
}

/// How deep [`check_sizes`] looks: deeper than any memdag input nests.
const MAX_DEPTH: usize = 6;

/// Refuses a string whose UTF-16 length (a lower bound of its UTF-8 length) is over
/// `max_bytes`, or a list over `max_list`, anywhere in `value`, reading only lengths.
fn check_sizes(
    path: &str,
    value: &JsValue,
    max_bytes: usize,
    max_list: usize,
    depth: usize,
) -> Result<(), Error> {
    if let Some(s) = value.dyn_ref::<js_sys::JsString>() {
        let units = s.length() as usize;
        if units > max_bytes {
            return Err(Error::invalid(format!(
                "{path} is at least {units} bytes, over the limit of {max_bytes} (maxFieldBytes)"
            )));
        }
        return Ok(());
    }
    if depth >= MAX_DEPTH || !value.is_object() {
        return Ok(());
    }
    let length = js_sys::Reflect::get(value, &JsValue::from_str("length"))
        .ok()
        .and_then(|l| l.as_f64());
    if let Some(n) = length {
        if n > max_list as f64 {
            return Err(Error::invalid(format!(
                "{path} has {n} entries, over the longest list a limit allows ({max_list})"
            )));
        }
    }
    if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        for (i, item) in array.iter().enumerate() {
            check_sizes(
                &format!("{path}[{i}]"),
                &item,
                max_bytes,
                max_list,
                depth + 1,
            )?;
        }
    } else if value.is_instance_of::<Object>() && !js_sys::ArrayBuffer::is_view(value) {
        let object: &Object = value.unchecked_ref();
        for entry in Object::entries(object).iter() {
            let pair: js_sys::Array = entry.unchecked_into();
            let key = pair.get(0).as_string().unwrap_or_default();
            check_sizes(
                &format!("{path}.{key}"),
                &pair.get(1),
                max_bytes,
                max_list,
                depth + 1,
            )?;
        }
    }
    Ok(())
}

/// Converts an output value to a plain JS object (`null` for `None`, numbers as numbers).
pub fn to_plain<T: Serialize>(what: &str, value: &T) -> Result<JsValue, Error> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&serializer)
        .map_err(|e| Error::invalid(format!("{what}: {e}")))
}

/// A deserializer that records the field list of `deserialize_struct` and then gives up.
struct Probe<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
