//! JS values in and out: the property names a serde struct reads, size checks, JSON values.
//!
//! serde-wasm-bindgen deserializes a struct by looking up each known name on the JS object, so
//! it never sees a misspelt property. [`field_names`] asks serde's derive for the list of
//! names it accepts, so input can be checked against it without a hand-kept copy.
//!
//! Inputs the core reads in its own JSON shape (a turn, tool arguments, working-memory
//! values) cross as a [`serde_json::Value`] ([`json_from_js`]). Outputs cross as plain objects:
//! [`to_plain`] directly, or [`to_plain_json`] through their JSON text, which shows an `f32`
//! in its shortest decimal form (`0.7`, not `0.699999988079071`) without a mirror struct.

use js_sys::Object;
use memdag_core::{Error, Limits};
use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde::Serialize;
use serde_json::Value;
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
    parse_object_with::<T>(what, value, max_string_bytes, &[])
}

/// [`parse_object`] also accepting the property names in `extra`, which the caller reads
/// itself (with [`property`]); `T` never sees them.
pub fn parse_object_with<T: DeserializeOwned>(
    what: &str,
    value: JsValue,
    max_string_bytes: usize,
    extra: &[&str],
) -> Result<T, Error> {
    let object = check_object(what, &value, max_string_bytes)?;
    let known = field_names::<T>();
    for key in Object::keys(object) {
        let key = key.as_string().unwrap_or_default();
        if !known.contains(&key.as_str()) && !extra.contains(&key.as_str()) {
            return Err(Error::invalid(format!("{what}: unknown property {key:?}")));
        }
    }
    from_js(what, value)
}

/// [`parse_object`] for an optional argument: `undefined` or `null` is `T::default()`.
pub fn parse_optional<T: DeserializeOwned + Default>(
    what: &str,
    value: JsValue,
) -> Result<T, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    parse_object(what, value)
}

/// Reads a `T` from any JS value (no property check), as `INVALID_INPUT` naming `what`.
pub fn from_js<T: DeserializeOwned>(what: &str, value: JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        let message = e.to_string();
        Error::invalid(format!("{what}: {}", message.trim_start_matches("Error: ")))
    })
}

/// `value` as an object, after refusing what is over the size limits (see
/// [`parse_object_within`]).
pub fn check_object<'a>(
    what: &str,
    value: &'a JsValue,
    max_string_bytes: usize,
) -> Result<&'a Object, Error> {
    let Some(object) = value.dyn_ref::<Object>() else {
        return Err(Error::invalid(format!("{what} must be an object")));
    };
    check_sizes(
        what,
        value,
        max_string_bytes,
        Limits::default().max_list(),
        0,
    )?;
    Ok(object)
}

/// A JS value as JSON, for the core's JSON-shaped inputs, after the size checks of
/// [`parse_object_within`]. `undefined` is `null`; a typed array or a function is not JSON
/// (`INVALID_INPUT`).
pub fn json_from_js(what: &str, value: &JsValue, max_string_bytes: usize) -> Result<Value, Error> {
    check_sizes(
        what,
        value,
        max_string_bytes,
        Limits::default().max_list(),
        0,
    )?;
    from_js(what, value.clone())
}

/// Property `name` of `object`, or `None` when it is missing, `undefined` or `null` (a
/// throwing getter reads as missing).
pub fn property(object: &JsValue, name: &str) -> Option<JsValue> {
    js_sys::Reflect::get(object, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_null())
}

/// A shallow copy of the JS object `object` with property `name` set to `value`: how a face
/// pins a default (a time) into an input it hands back to the caller, leaving theirs as it is.
pub fn with_property(object: &JsValue, name: &str, value: &JsValue) -> JsValue {
    let copy = match object.dyn_ref::<Object>() {
        Some(o) => Object::assign(&Object::new(), o),
        None => Object::new(),
    };
    // Setting a data property on a fresh plain object cannot fail.
    let _ = js_sys::Reflect::set(&copy, &JsValue::from_str(name), value);
    copy.into()
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

/// Converts an output value to a plain JS object through its JSON text (see the module docs).
/// Maps become objects; `None` is `null` unless the type skips it.
pub fn to_plain_json<T: Serialize>(what: &str, value: &T) -> Result<JsValue, Error> {
    let text = serde_json::to_string(value).map_err(|e| Error::invalid(format!("{what}: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|_| Error::invalid(format!("{what}: not JSON")))
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
