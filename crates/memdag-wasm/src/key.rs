//! Encryption keys from JS: a 32-byte `Uint8Array`, or nothing for a plain store.
//!
//! The core seals every stored value with the key (see `memdag_core::seal`). The key crosses
//! as raw bytes because the sealing runs inside wasm, synchronously, in `takeChanges`; WebCrypto
//! is asynchronous and keeps its keys out of reach. The JS layer (`pkg/persistent.js`) also
//! accepts an extractable WebCrypto `CryptoKey` and hands its raw export here.

use js_sys::Uint8Array;
use memdag_core::{Cipher, Error};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::throw;

/// The cipher of a JS key argument: `undefined` or `null` for none, else a 32-byte
/// `Uint8Array`. Anything else is `INVALID_INPUT`.
pub fn cipher_of(key: &JsValue) -> Result<Option<Cipher>, JsValue> {
    if key.is_undefined() || key.is_null() {
        return Ok(None);
    }
    let Some(bytes) = key.dyn_ref::<Uint8Array>() else {
        return Err(throw(Error::invalid(
            "key must be a 32-byte Uint8Array (or omitted)",
        )));
    };
    let mut raw = bytes.to_vec();
    let cipher = Cipher::new(&raw).map_err(throw);
    raw.iter_mut().for_each(|b| *b = 0);
    cipher.map(Some)
}
