//! `StoredEntries`: stored values handed to wasm one at a time, for an open.
//!
//! `Memory.load` takes every stored value from JS at once, so during an open the isolate
//! holds each value twice: the host's copy, which JS keeps until the call returns, and the
//! copy in wasm memory the core opens. A host that reads its values one by one (Workers KV,
//! Durable Object storage, a file per key) can instead `put` each into a `StoredEntries` as it
//! arrives and drop its own copy; `Memory.loadStored` then opens the store from wasm memory.
//! The JS copies were a quarter of an open's peak: 100k int8 records opened from a file per key
//! in a fresh Node process peaked at +327 MiB resident before, +240 after
//! (`tests/bench/first-open.mjs --from-storage`).

use memdag_core::Error;
use wasm_bindgen::prelude::*;

use crate::entries::stored_value;
use crate::error::throw;

/// Stored `[key, value]` entries, copied into wasm memory as they are put, for
/// `Memory.loadStored` and `Memory.salvageStored`, which take them and leave this empty.
#[wasm_bindgen]
#[derive(Default)]
pub struct StoredEntries {
    entries: Vec<(String, Vec<u8>)>,
    bytes: usize,
}

#[wasm_bindgen]
impl StoredEntries {
    /// No entries yet.
    #[wasm_bindgen(constructor)]
    pub fn new() -> StoredEntries {
        StoredEntries::default()
    }

    /// Copies one stored entry into wasm memory: `value` a `Uint8Array` or an `ArrayBuffer`;
    /// `null` or `undefined` (a deleted key) is skipped, as `Memory.load` skips it. Entries may
    /// come in any order. Throws `INVALID_INPUT` for a key that is not a string or another
    /// value, and keeps nothing of that entry.
    pub fn put(&mut self, key: JsValue, value: JsValue) -> Result<(), JsValue> {
        let key = key
            .as_string()
            .ok_or_else(|| throw(Error::invalid("entries: the key must be a string")))?;
        if let Some(bytes) = stored_value(&key, &value).map_err(throw)? {
            self.bytes += key.len() + bytes.len();
            self.entries.push((key, bytes));
        }
        Ok(())
    }

    /// How many entries have been put (skipped deletions not counted).
    #[wasm_bindgen(getter)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry has been put.
    #[wasm_bindgen(getter, js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes of the keys and values put, in wasm memory until an open takes them.
    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> f64 {
        self.bytes as f64
    }
}

impl StoredEntries {
    /// The entries put so far, leaving this empty.
    pub fn take(&mut self) -> Vec<(String, Vec<u8>)> {
        self.bytes = 0;
        std::mem::take(&mut self.entries)
    }
}
