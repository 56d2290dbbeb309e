//! Core errors as JS `Error`s.
//!
//! Every [`Error`] of memdag-core crosses the boundary as a plain JS `Error` (so `instanceof
//! Error` holds) with these extra properties:
//!
//! | property | present                              | value                                      |
//! |----------|--------------------------------------|--------------------------------------------|
//! | `code`   | always                               | [`Error::code`], e.g. `"UNKNOWN_PARENT"`   |
//! | `key`    | `CORRUPT_DATA`, `UNSUPPORTED_VERSION`, `LOCKED` | the storage key whose value failed |
//! | `ids`    | `UNKNOWN_PARENT`                     | the missing parent ids, as a string array  |
//! | `id`     | `NOT_FOUND`, `DUPLICATE_ID`          | the id concerned                           |
//!
//! The message is the core error's `Display` text. This mapping lives here, not in the core,
//! so memdag-core stays free of binding dependencies.

use js_sys::{Array, Reflect};
use memdag_core::Error;
use wasm_bindgen::JsValue;

/// Builds the JS `Error` for a core error.
pub fn to_js(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    set(&js, "code", &JsValue::from_str(error.code()));
    if let Some(key) = error.key() {
        set(&js, "key", &JsValue::from_str(key));
    }
    match error {
        Error::UnknownParents { ids } => {
            let list: Array = ids.iter().map(|id| JsValue::from_str(id)).collect();
            set(&js, "ids", &list);
        }
        Error::NotFound { id } | Error::DuplicateId { id } => {
            set(&js, "id", &JsValue::from_str(id))
        }
        _ => {}
    }
    js.into()
}

/// The `map_err` form of [`to_js`].
pub fn throw(error: Error) -> JsValue {
    to_js(&error)
}

/// Sets a property on a freshly made, ordinary `Error` object.
///
/// `Reflect.set` only fails on frozen objects or throwing setters, neither of which a new
/// `Error` has; if it ever did fail, the error would still be thrown, just without that property.
fn set(target: &js_sys::Error, name: &str, value: &JsValue) {
    let _ = Reflect::set(target, &JsValue::from_str(name), value);
}
