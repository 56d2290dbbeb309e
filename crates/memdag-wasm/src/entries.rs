//! Storage entries as JS: change sets out, stored entries in.
//!
//! The host persists memdag as opaque `key → bytes` pairs. In JS a pair is a two-element
//! array `[key: string, value: Uint8Array | null]`, where `null` means "delete this key". Any
//! iterable of pairs is accepted on input (an array, a `Map`, a generator), so a `Map` that
//! the host keeps in step with `takeChanges()` can be handed straight to `Memory.load`.
//!
//! Malformed input is `INVALID_INPUT`. An exception thrown by the caller's own iterator is
//! passed through unchanged.

use js_sys::{Array, ArrayBuffer, Reflect, Uint8Array};
use memdag_core::{Change, Error};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::throw;

/// A change set as `Array<[key, Uint8Array | null]>`, in the core's write order.
pub fn changes_to_js(changes: Vec<Change>) -> Array {
    changes
        .into_iter()
        .map(|c| {
            let value = match c.value {
                Some(bytes) => Uint8Array::from(bytes.as_slice()).into(),
                None => JsValue::NULL,
            };
            JsValue::from(Array::of2(&JsValue::from_str(&c.key), &value))
        })
        .collect()
}

/// A full snapshot as `Array<[key, Uint8Array]>`.
pub fn snapshot_to_js(entries: Vec<(String, Vec<u8>)>) -> Array {
    entries
        .into_iter()
        .map(|(key, bytes)| {
            JsValue::from(Array::of2(
                &JsValue::from_str(&key),
                &Uint8Array::from(bytes.as_slice()),
            ))
        })
        .collect()
}

/// Reads stored entries for `Memory.load`. Entries whose value is `null` or `undefined` are
/// deleted keys and are skipped.
pub fn entries_from_js(entries: &JsValue) -> Result<Vec<(String, Vec<u8>)>, JsValue> {
    let mut out = Vec::new();
    for_each_pair(entries, "entries", |key, value| {
        if let Some(bytes) = stored_value(&key, &value)? {
            out.push((key, bytes));
        }
        Ok(())
    })?;
    Ok(out)
}

/// The bytes of one stored value, copied into wasm memory: a `Uint8Array` or an
/// `ArrayBuffer`, or `None` for `null` and `undefined` (a deleted key). Anything else is
/// `INVALID_INPUT` naming `key`.
pub fn stored_value(key: &str, value: &JsValue) -> Result<Option<Vec<u8>>, Error> {
    if value.is_null() || value.is_undefined() {
        Ok(None)
    } else if let Some(array) = value.dyn_ref::<Uint8Array>() {
        copy_in(key, array).map(Some)
    } else if value.is_instance_of::<ArrayBuffer>() {
        copy_in(key, &Uint8Array::new(value)).map(Some)
    } else {
        Err(Error::invalid(format!(
            "entries: value of {key:?} must be a Uint8Array or null"
        )))
    }
}

/// The bytes of `array`, copied into wasm memory, or `STORAGE` naming `key` when the memory
/// refuses them: an open copies every value in before it reads them, and in a capped memory
/// (a Worker's) the values alone may not fit, where `to_vec` would abort, killing the
/// instance and every memory open in it.
fn copy_in(key: &str, array: &Uint8Array) -> Result<Vec<u8>, Error> {
    let len = array.length() as usize;
    let mut bytes: Vec<u8> = Vec::new();
    bytes.try_reserve_exact(len).map_err(|_| Error::Storage {
        message: format!(
            "out of memory: the value of {key:?} ({:.1} MiB) could not be copied into wasm memory",
            len as f64 / 1048576.0
        ),
    })?;
    let filled = array
        .copy_to_uninit(&mut bytes.spare_capacity_mut()[..len])
        .len();
    // SAFETY: `copy_to_uninit` initialized the first `len` bytes (it returns them).
    unsafe { bytes.set_len(filled) };
    Ok(bytes)
}

/// Reads the keys of a change set for `Memory.requeue`. Values are ignored.
pub fn changes_from_js(changes: &JsValue) -> Result<Vec<Change>, JsValue> {
    let mut out = Vec::new();
    for_each_pair(changes, "changes", |key, _| {
        out.push(Change { key, value: None });
        Ok(())
    })?;
    Ok(out)
}

/// Calls `f(key, value)` for each `[key, value]` pair of a JS iterable.
pub fn for_each_pair(
    iterable: &JsValue,
    what: &str,
    mut f: impl FnMut(String, JsValue) -> Result<(), Error>,
) -> Result<(), JsValue> {
    let iter = if iterable.is_object() {
        js_sys::try_iter(iterable)?
    } else {
        None
    };
    let Some(iter) = iter else {
        return Err(throw(Error::invalid(format!(
            "{what} must be an iterable of [key, value] pairs"
        ))));
    };
    for (i, item) in iter.enumerate() {
        let pair = item?;
        if !pair.is_object() {
            return Err(throw(Error::invalid(format!(
                "{what}[{i}] must be a [key, value] pair"
            ))));
        }
        let key = Reflect::get_u32(&pair, 0)?.as_string().ok_or_else(|| {
            throw(Error::invalid(format!(
                "{what}[{i}]: the key must be a string"
            )))
        })?;
        let value = Reflect::get_u32(&pair, 1)?;
        f(key, value).map_err(throw)?;
    }
    Ok(())
}
