//! Storage adapters written in Rust: IndexedDB, against web-sys.
//!
//! Every memdag storage adapter has the same small, byte-oriented interface (in the style of
//! automerge-repo's `StorageAdapterInterface`; the JS adapters in `pkg/storage/` implement it
//! too, and `tests/storage/adapter-suite.mjs` checks them all):
//!
//! | method                | does                                                          |
//! |-----------------------|---------------------------------------------------------------|
//! | `load(key)`           | the bytes under `key`, or `undefined`                         |
//! | `save(key, bytes)`    | puts one value                                                |
//! | `remove(key)`         | deletes one key; idempotent                                   |
//! | `loadRange(prefix)`   | every `[key, bytes]` whose key starts with `prefix`, by key   |
//! | `loadPages(prefix, take, limit)` | optional: the same, handed to `take` a page at a time |
//! | `removeRange(prefix)` | deletes them                                                  |
//! | `saveBatch(changes)`  | applies `[key, bytes \| null]` pairs, atomically if it can    |
//! | `close()`             | releases the backend                                          |
//!
//! Adapters know nothing about what keys mean; the logic lives above them (`pkg/memory.js`).
//! Every failure is a JS `Error` with `code: "STORAGE"` and `reason`, the backend's error
//! name (e.g. `"QuotaExceededError"`, `"AbortError"`).
//!
//! - [`idb`]: the `IndexedDbStorage` class;
//! - [`schema`]: the database's versioned schema and its upgrade path;
//! - [`pages`]: `loadPages`, a listing a page at a time in one transaction;
//! - [`events`]: IndexedDB requests and transactions as Rust futures;
//! - [`range`]: key ranges for prefixes;
//! - [`bytes`]: stored values as JS bytes, read and written.

pub mod bytes;
pub mod events;
pub mod idb;
pub mod pages;
pub mod range;
pub mod schema;

use js_sys::Reflect;
use memdag_core::Error;
use wasm_bindgen::JsValue;
use web_sys::DomException;

use crate::error::to_js;

/// A `STORAGE` error for a failed IndexedDB step. `dom` is the request's or transaction's
/// error; `None` means the transaction was aborted without one (an explicit `abort()`).
pub fn storage_error(what: &str, dom: Option<DomException>) -> JsValue {
    let (name, message) = match &dom {
        Some(d) => (d.name(), d.message()),
        None => (
            "AbortError".to_string(),
            "the transaction was aborted".to_string(),
        ),
    };
    let js = to_js(&Error::Storage {
        message: format!("IndexedDB {what}: {name}: {message}"),
    });
    let _ = Reflect::set(&js, &"reason".into(), &name.into());
    js
}

/// A `STORAGE` error from an exception thrown synchronously by an IndexedDB call (e.g.
/// `InvalidStateError` on a closed database, `DataError` on a bad key).
pub fn thrown(what: &str, e: JsValue) -> JsValue {
    use wasm_bindgen::JsCast;
    match e.dyn_into::<DomException>() {
        Ok(d) => storage_error(what, Some(d)),
        Err(e) => {
            let message = Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| format!("{e:?}"));
            let js = to_js(&Error::Storage {
                message: format!("IndexedDB {what}: {message}"),
            });
            let name = Reflect::get(&e, &"name".into()).unwrap_or(JsValue::UNDEFINED);
            let _ = Reflect::set(&js, &"reason".into(), &name);
            js
        }
    }
}
