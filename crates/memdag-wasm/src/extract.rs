//! Learning items from turns from JS: by the rules, or through the host's LLM in steps.
//!
//! - `extract(query)` learns by the rule-based extractor (English and Chinese) and
//!   `proposeItems(query)` shows what it would propose, writing nothing;
//! - an asynchronous LLM drives the core's steps (the contract is memdag-core's
//!   `memory::llm`): `llmBatches(query)`, then for each batch `llmPrompt(batch)`, the host's
//!   call, and `learnLlm(index, batch, prompt, answer)`, which learns the answer fact by fact
//!   (a bad fact is refused alone, with a code) and writes. `PersistentMemory.extract`
//!   (pkg/persistent.js) runs them with the host's `complete`; `llmSchema()` is the answer's
//!   JSON Schema for hosts whose model takes one;
//! - `itemCandidates(newItem)` and `learn(proposals, judged)` learn proposals of the host's
//!   own with its judgements of their candidates.
//!
//! The query is the core's [`ExtractQuery`] (`{ ids, thread, user, kinds }`); proposals and
//! judgements are the core's [`NewItem`] and [`Judged`], so a proposal read from one step is
//! handed to the next as it came.

use memdag_core::memory::llm::{self, LlmBatch};
use memdag_core::memory::{ExtractQuery, Judged};
use memdag_core::Error;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{parse_object, to_plain_json};
use crate::items::new_item_from_js;
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

    /// The batches of an LLM pass over the turns a query names: `[{ turns, tokens, kinds }]`,
    /// one thread's turns each, capped by estimated tokens (memdag-core's `memory::llm`).
    /// Throws as `extract`.
    #[wasm_bindgen(js_name = llmBatches)]
    pub fn llm_batches(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("batches", &s.llm_batches(&query)?))
    }

    /// The prompt of a batch (from `llmBatches`): the instructions and JSON Schema, the known
    /// items of its users and its turns. Throws `NOT_FOUND` for a turn that is gone.
    #[wasm_bindgen(js_name = llmPrompt)]
    pub fn llm_prompt(&self, batch: JsValue) -> Result<String, JsValue> {
        let batch: LlmBatch = parse_object("batch", batch).map_err(throw)?;
        self.read(|s| s.llm_prompt(&batch))
    }

    /// Learns the LLM's answer to the prompt of batch number `index`: `answer` is the model's
    /// text, or `{ error }` when the call failed. Each fact that breaks the contract is
    /// refused alone (`refused`, with a stable `code`); an answer refused whole (or a failed
    /// call) has the rules learn the batch (`byRules`); `llm` counts the call and its
    /// estimated tokens. Returns the report; throws as `extract`.
    #[wasm_bindgen(js_name = learnLlm)]
    pub fn learn_llm(
        &self,
        index: u32,
        batch: JsValue,
        prompt: &JsValue,
        answer: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let batch: LlmBatch = parse_object("batch", batch).map_err(throw)?;
        let prompt = string("prompt", prompt)?;
        let answer = llm_answer(answer)?;
        let answer = answer.as_deref().map_err(String::as_str);
        self.write(|s| {
            to_plain_json(
                "extract report",
                &s.learn_llm(index as usize, &batch, &prompt, answer)?,
            )
        })
    }

    /// The active items a judge should compare a new item with.
    #[wasm_bindgen(js_name = itemCandidates)]
    pub fn item_candidates(&self, item: JsValue) -> Result<JsValue, JsValue> {
        let item =
            new_item_from_js("item", item, self.max_field_bytes()?, clock::now()).map_err(throw)?;
        self.read(|s| to_plain_json("candidates", &s.item_candidates(&item)?))
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

/// A host LLM's answer as JS gives it: the model's text, or `{ error }` when the call failed.
/// Anything else is `INVALID_INPUT`.
pub(crate) fn llm_answer(answer: &JsValue) -> Result<Result<String, String>, JsValue> {
    if let Some(text) = answer.as_string() {
        return Ok(Ok(text));
    }
    crate::fields::property(answer, "error")
        .filter(|_| answer.is_object())
        .and_then(|e| e.as_string())
        .map(Err)
        .ok_or_else(|| {
            throw(Error::invalid(
                "answer must be the model's text or { error: string }",
            ))
        })
}

/// The JSON Schema of an LLM extraction answer (`{ facts: [...] }`), strict enough for
/// OpenAI's structured outputs and Chrome's `responseConstraint`.
#[wasm_bindgen(js_name = llmSchema)]
pub fn llm_schema() -> Result<JsValue, JsValue> {
    to_plain_json("schema", &llm::schema()).map_err(throw)
}
