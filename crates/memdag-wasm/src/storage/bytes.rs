//! Stored values as JS bytes: what a read hands back (a `Uint8Array`, whatever the backend
//! stored) and what a write stores (a `Uint8Array` that owns its whole buffer).

use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;

/// A stored value as a `Uint8Array`: as stored, or a view of a stored `ArrayBuffer`.
pub fn bytes_or_undefined(value: JsValue) -> JsValue {
    if value.is_instance_of::<Uint8Array>() {
        value
    } else if value.is_instance_of::<ArrayBuffer>() {
        Uint8Array::new(&value).into()
    } else {
        JsValue::UNDEFINED
    }
}

/// The bytes to store for a value: a `Uint8Array` that owns its whole buffer (a view into a
/// larger buffer is copied, since IndexedDB would store the whole buffer), or `None`.
pub fn own_bytes(value: &JsValue) -> Option<Uint8Array> {
    if let Some(view) = value.dyn_ref::<Uint8Array>() {
        let whole = view.byte_offset() == 0 && view.byte_length() == view.buffer().byte_length();
        return Some(if whole {
            view.clone()
        } else {
            view.slice(0, view.length())
        });
    }
    if value.is_instance_of::<ArrayBuffer>() {
        return Some(Uint8Array::new(value));
    }
    None
}
