//! Exports and imports from JS: the core's three formats (see [`memdag_core::export`]), only
//! converted here.
//!
//! - the binary snapshot (`MDAGEXP1`): `exportSnapshot()` gives the file as a `Uint8Array`;
//!   the free functions `encodeSnapshot(entries)` and `decodeSnapshot(bytes)` turn
//!   `[key, Uint8Array]` pairs into a file and back (the package exports them as
//!   `encodeExport` and `decodeExport`). A file that is not a snapshot, or is cut short, is
//!   `INVALID_INPUT`;
//! - JSONL, the ingest format: `exportJsonl()` gives the text; `importJsonl(text, now?)` adds
//!   what the store does not hold yet, `now` (default: the host clock, see [`crate::clock`])
//!   dating turns that give no time;
//! - Markdown a person can read and edit: `exportMarkdown()` gives `[path, text]` pairs in
//!   path order; `importMarkdown(files)` reads any iterable of them (an array, a `Map`).
//!
//! Both imports answer the core's report `{ turns, items, work, skipped }` and validate
//! everything before writing: a bad line or file is `INVALID_INPUT` naming it, an unknown
//! parent `UNKNOWN_PARENT`, and nothing is added then. A whole export may be larger than
//! `maxFieldBytes`, so these texts are not held to it.

use js_sys::{Array, ArrayBuffer, Uint8Array};
use memdag_core::export::snapshot;
use memdag_core::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::clock;
use crate::entries::{entries_from_js, for_each_pair, snapshot_to_js};
use crate::error::throw;
use crate::fields::to_plain;
use crate::memory::{string, Memory};

#[wasm_bindgen]
impl Memory {
    /// Every stored key and value in one snapshot file (`MDAGEXP1`), with unflushed changes.
    #[wasm_bindgen(js_name = exportSnapshot)]
    pub fn export_snapshot(&self) -> Result<Uint8Array, JsValue> {
        self.read(|s| s.export_snapshot().map(|b| Uint8Array::from(b.as_slice())))
    }

    /// The store as JSONL: one turn per line, then its items and working memories.
    #[wasm_bindgen(js_name = exportJsonl)]
    pub fn export_jsonl(&self) -> Result<String, JsValue> {
        self.read(|s| Ok(s.export_jsonl()))
    }

    /// Adds what a JSONL text holds and the store does not; `now` (ms, default the host
    /// clock) dates turns without a time. Answers `{ turns, items, work, skipped }`.
    #[wasm_bindgen(js_name = importJsonl)]
    pub fn import_jsonl(&self, text: &JsValue, now: Option<f64>) -> Result<JsValue, JsValue> {
        let text = string("text", text)?;
        let now = clock::time_arg("now", now).map_err(throw)?;
        self.write(|s| to_plain("imported", &s.import_jsonl(&text, now)?))
    }

    /// The store as Markdown files: `[path, text]` pairs in path order.
    #[wasm_bindgen(js_name = exportMarkdown)]
    pub fn export_markdown(&self) -> Result<Array, JsValue> {
        self.read(|s| {
            Ok(s.export_markdown()
                .into_iter()
                .map(|(path, text)| {
                    JsValue::from(Array::of2(
                        &JsValue::from_str(&path),
                        &JsValue::from_str(&text),
                    ))
                })
                .collect())
        })
    }

    /// Adds what Markdown files (an iterable of `[path, text]`) hold and the store does not.
    /// Files that are not a memdag export are skipped. Answers `{ turns, items, work,
    /// skipped }`.
    #[wasm_bindgen(js_name = importMarkdown)]
    pub fn import_markdown(&self, files: &JsValue) -> Result<JsValue, JsValue> {
        let mut list = Vec::new();
        for_each_pair(files, "files", |path, text| {
            let text = text.as_string().ok_or_else(|| {
                Error::invalid(format!("files: the text of {path:?} must be a string"))
            })?;
            list.push((path, text));
            Ok(())
        })?;
        self.write(|s| to_plain("imported", &s.import_markdown(&list)?))
    }
}

/// A snapshot file of `[key, Uint8Array]` pairs (any iterable; `null` values are skipped).
#[wasm_bindgen(js_name = encodeSnapshot)]
pub fn encode_snapshot(entries: &JsValue) -> Result<Uint8Array, JsValue> {
    let entries = entries_from_js(entries)?;
    Ok(Uint8Array::from(
        snapshot::encode_snapshot(&entries).as_slice(),
    ))
}

/// The `[key, Uint8Array]` pairs of a snapshot file (a `Uint8Array` or an `ArrayBuffer`).
/// Throws `INVALID_INPUT` for anything that is not one.
#[wasm_bindgen(js_name = decodeSnapshot)]
pub fn decode_snapshot(bytes: &JsValue) -> Result<Array, JsValue> {
    let bytes = if let Some(array) = bytes.dyn_ref::<Uint8Array>() {
        array.to_vec()
    } else if bytes.is_instance_of::<ArrayBuffer>() {
        Uint8Array::new(bytes).to_vec()
    } else {
        return Err(throw(Error::invalid(
            "a snapshot file must be a Uint8Array or an ArrayBuffer",
        )));
    };
    snapshot::decode_snapshot(&bytes)
        .map(snapshot_to_js)
        .map_err(throw)
}
