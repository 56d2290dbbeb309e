//! Turn compaction from JS: the prompt for the host's LLM, applying its answer, and the
//! extractive compactor that needs no LLM.
//!
//! The async flow (`await memory.compact(id)`, which calls the host's `complete(prompt)` or
//! falls back to `compactExtractive`) lives in the JS wrapper (`pkg/memory.js`); this module is
//! the synchronous core of it.

use memdag_core::CompactNode;
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::memory::{string, Memory};
use crate::turn::changed_to_js;

#[wasm_bindgen]
impl Memory {
    /// The prompt asking an LLM to compact record `id` into a compact node. With `previous`
    /// (`{ summary, sections }`), the LLM is asked to update that note. Throws `NOT_FOUND`.
    #[wasm_bindgen(js_name = compactionPrompt)]
    pub fn compaction_prompt(&self, id: &JsValue, previous: JsValue) -> Result<String, JsValue> {
        let id = string("id", id)?;
        let previous = previous_from_js(previous)?;
        self.read(|s| s.compaction_prompt(&id, previous.as_ref()))
    }

    /// Parses the LLM's `answer` and, only if it is well formed, makes it the compact node of
    /// record `id`; returns the record. Throws `NOT_FOUND`, or `HOST` naming what is malformed
    /// (the record is then unchanged).
    #[wasm_bindgen(js_name = applyCompaction)]
    pub fn apply_compaction(&self, id: &JsValue, answer: &JsValue) -> Result<JsValue, JsValue> {
        let (id, answer) = (string("id", id)?, string("answer", answer)?);
        self.write(|s| {
            let changed = s.apply_compaction(&id, &answer).map(|r| r.id.clone());
            changed_to_js(s, changed)
        })
    }

    /// Compacts record `id` with the deterministic extractive compactor (no LLM) and returns
    /// the record. Throws `NOT_FOUND`.
    #[wasm_bindgen(js_name = compactExtractive)]
    pub fn compact_extractive(&self, id: &JsValue) -> Result<JsValue, JsValue> {
        let id = string("id", id)?;
        self.write(|s| {
            let changed = s.compact_extractive(&id).map(|r| r.id.clone());
            changed_to_js(s, changed)
        })
    }
}

/// An optional `{ summary, sections }` argument.
fn previous_from_js(value: JsValue) -> Result<Option<CompactNode>, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    crate::fields::parse_object::<CompactNode>("previous", value)
        .map(Some)
        .map_err(throw)
}
