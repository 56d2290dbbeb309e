//! `Memory.hostKey`: what a host needs to seal and open seal v2 itself (see `key.rs` and
//! memdag-core's `cipher`).

use js_sys::{Object, Reflect, Uint8Array};
use memdag_core::Error;
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::key::cipher_of;
use crate::memory::Memory;

#[wasm_bindgen]
impl Memory {
    /// What a host needs to seal and open seal v2 itself, for the 32-byte master `key`:
    /// `{ key, header }`, the AES-256-GCM subkey (32 bytes) and the 13 bytes every v2 value
    /// starts with. A v2 value is `header ‖ nonce (12 random bytes) ‖ AES-GCM(key, nonce,
    /// additionalData = header ‖ storage key in UTF-8, value)` (ciphertext, then the 16-byte
    /// tag). Import `key` as a non-extractable `CryptoKey` and wipe it.
    #[wasm_bindgen(js_name = hostKey)]
    pub fn host_key(key: JsValue) -> Result<JsValue, JsValue> {
        let Some(cipher) = cipher_of(&key)? else {
            return Err(throw(Error::invalid(
                "hostKey needs a 32-byte Uint8Array key",
            )));
        };
        let host = cipher.host_key();
        let out = Object::new();
        Reflect::set(&out, &"key".into(), &Uint8Array::from(&host.key[..]))?;
        Reflect::set(&out, &"header".into(), &Uint8Array::from(&host.header[..]))?;
        Ok(out.into())
    }
}
