//! Learning items from turns from JS: by the rules, or through the host's LLM in steps.
//!
//! - `extract(query)` learns by the rule-based extractor (English and Chinese) and
//!   `proposeItems(query)` shows what it would propose, writing nothing;
//! - an asynchronous LLM drives the core's steps: `extractionPrompts(query)` (one prompt per
//!   kind), `parseExtraction(query, kind, answer)` (strict: a malformed answer is `HOST`),
//!   `itemCandidates(newItem)`, `judgePrompt(newItem, item)` and `parseJudgement(itemId,
//!   answer)`, then `learn(proposals, judged)`, which writes. `PersistentMemory.extract`
//!   (pkg/persistent.js) runs them with the host's `complete`.
//!
//! The query is the core's [`ExtractQuery`] (`{ ids, thread, user, kinds }`); proposals and
//! judgements are the core's [`NewItem`] and [`Judged`], so a proposal read from one step is
//! handed to the next as it came.

use memdag_core::item::ItemKind;
use memdag_core::memory::{llm, ExtractQuery, Judged};
use memdag_core::Error;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{parse_object, to_plain_json};
use crate::items::{item_arg, new_item_from_js};
use crate::memory::{string, Memory};

fn query_from_js(query: JsValue) -> Result<ExtractQuery, JsValue> {
    parse_object("extract query", query).map_err(throw)
}

/// The elements of a JS array argument.
fn array(name: &str, value: &JsValue) -> Result<js_sys::Array, JsValue> {
    if !js_sys::Array::is_array(value) {
        return Err(throw(Error::invalid(format!("{name} must be an array"))));
    }
    Ok(js_sys::Array::from(value))
}

#[wasm_bindgen]
impl Memory {
    /// Learns items from the turns a query names by the rules, turn by turn in time order,
    /// through dedup and conflicts; returns `{ turns, learned, retracted }`. Throws
    /// `NOT_FOUND` for an id that is not a turn, `INVALID_INPUT` for a query naming nothing.
    pub fn extract(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.write(|s| to_plain_json("extract report", &s.extract(&query)?))
    }

    /// What the rules would propose for the turns a query names, as new items; writes nothing.
    #[wasm_bindgen(js_name = proposeItems)]
    pub fn propose_items(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("proposals", &s.propose(&query)?))
    }

    /// The prompts of an LLM extraction over the turns a query names: `[{ kind, prompt }]`,
    /// one per kind.
    #[wasm_bindgen(js_name = extractionPrompts)]
    pub fn extraction_prompts(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("prompts", &s.extraction_prompts(&query)?))
    }

    /// Parses the LLM's answer to the prompt of `kind` into proposals (new items with their
    /// source turns); writes nothing. Throws `HOST` naming what is malformed.
    #[wasm_bindgen(js_name = parseExtraction)]
    pub fn parse_extraction(
        &self,
        query: JsValue,
        kind: &JsValue,
        answer: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        let kind = string("kind", kind)?;
        let kind = ItemKind::parse(&kind).ok_or_else(|| {
            throw(Error::invalid(format!(
                "unknown kind {kind:?}: personal, procedural, tool or fact"
            )))
        })?;
        let answer = string("answer", answer)?;
        self.read(|s| to_plain_json("proposals", &s.parse_extraction(&query, kind, &answer)?))
    }

    /// The active items a judge should compare a new item with.
    #[wasm_bindgen(js_name = itemCandidates)]
    pub fn item_candidates(&self, item: JsValue) -> Result<JsValue, JsValue> {
        let item =
            new_item_from_js("item", item, self.max_field_bytes()?, clock::now()).map_err(throw)?;
        self.read(|s| to_plain_json("candidates", &s.item_candidates(&item)?))
    }

    /// The prompt asking the LLM how a new item relates to an existing one (`item`: an item
    /// from `itemCandidates`, or its id).
    #[wasm_bindgen(js_name = judgePrompt)]
    pub fn judge_prompt(&self, item: JsValue, existing: JsValue) -> Result<String, JsValue> {
        let item = new_item_from_js("item", item, self.max_field_bytes()?, 0).map_err(throw)?;
        let existing = item_arg(self, existing)?;
        Ok(llm::judge_prompt(&item, &existing))
    }

    /// Parses the LLM's judgement of a new item against item `itemId`: `{ item, verdict,
    /// merged }`. Strict; throws `HOST` for a malformed answer.
    #[wasm_bindgen(js_name = parseJudgement)]
    pub fn parse_judgement(&self, item_id: &JsValue, answer: &JsValue) -> Result<JsValue, JsValue> {
        let (id, answer) = (string("itemId", item_id)?, string("answer", answer)?);
        let judged = llm::parse_judgement(&id, &answer).map_err(throw)?;
        to_plain_json("judgement", &judged).map_err(throw)
    }

    /// Learns proposals (new items), `judged[i]` holding the LLM's judgements of the
    /// candidates of `proposals[i]` (missing: judged by the rules). Every proposal is checked
    /// before the first is written. Returns `{ turns, learned, retracted }`.
    pub fn learn(&self, proposals: JsValue, judged: JsValue) -> Result<JsValue, JsValue> {
        let (max, now) = (self.max_field_bytes()?, clock::now());
        let proposals = array("proposals", &proposals)?
            .iter()
            .enumerate()
            .map(|(i, p)| new_item_from_js(&format!("proposals[{i}]"), p, max, now))
            .collect::<Result<Vec<_>, Error>>()
            .map_err(throw)?;
        let judged: Vec<Vec<Judged>> = if judged.is_undefined() || judged.is_null() {
            Vec::new()
        } else {
            let mut all = Vec::new();
            for (i, list) in array("judged", &judged)?.iter().enumerate() {
                let mut mine = Vec::new();
                for (j, one) in array(&format!("judged[{i}]"), &list)?.iter().enumerate() {
                    mine.push(parse_object(&format!("judged[{i}][{j}]"), one).map_err(throw)?);
                }
                all.push(mine);
            }
            all
        };
        self.write(|s| to_plain_json("extract report", &s.learn(proposals, &judged)?))
    }
}
