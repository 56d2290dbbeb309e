//! Encryption keys from JS: a 32-byte `Uint8Array`, or nothing for a plain store; the v2 key a
//! host seals with; the keys a host opened itself.
//!
//! The core seals what it writes with the key (seal v1, see `memdag_core::cipher`), inside wasm
//! and synchronously, in `takeChanges`: so the key crosses as raw bytes (WebCrypto is
//! asynchronous and keeps its keys out of reach). Where WebCrypto exists, the JS layer
//! (`pkg/seal.js`) seals instead, with AES-256-GCM (seal v2): it takes the v2 subkey and header
//! from `Memory.hostKey` (`host_key.rs`), imports the subkey as a non-extractable `CryptoKey`, opens the v2
//! values itself, and loads with the list of keys it opened (`opened` below). The master key
//! still crosses once per open: the core derives the subkeys (keyed BLAKE2b, which WebCrypto
//! lacks) and opens the v1 values and whatever the host could not open.

use js_sys::{Array, Uint8Array};
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

/// The keys a host opened (an array of strings), or `None` when `opened` is `undefined` or
/// `null`: the core then opens every value and seals what it writes. Given, it needs `cipher`.
pub fn opened_of(
    opened: &JsValue,
    cipher: &Option<Cipher>,
) -> Result<Option<Vec<String>>, JsValue> {
    if opened.is_undefined() || opened.is_null() {
        return Ok(None);
    }
    let invalid = |m: &str| throw(Error::invalid(m));
    if cipher.is_none() {
        return Err(invalid(
            "opened: keys opened by the host need the store's key",
        ));
    }
    let Some(array) = opened.dyn_ref::<Array>() else {
        return Err(invalid("opened must be an array of storage keys"));
    };
    array
        .iter()
        .map(|k| {
            k.as_string()
                .ok_or_else(|| invalid("opened: every key must be a string"))
        })
        .collect::<Result<Vec<String>, JsValue>>()
        .map(Some)
}
