//! Mode-1 recall from JS: `memory.recall(query)`, `memory.recallView(query)` and
//! `recallMatchText(query)`.
//!
//! The query is a plain object with camelCase names (`queryText`, `budgetTokens`,
//! `halfLifeMs`, `threadLimit`, `matchUserOnly`, `knownLimit`, `workTokens`, `rawItemTokens`,
//! ...); every property but `thread` is optional and takes the core's default, but `now`,
//! which takes the host clock (see [`crate::clock`]). The answer is
//! `{ items: [{ id, section, score, text, tokens, raw }], block, tokens, omitted, working }`,
//! where `tokens <= budgetTokens` always holds and `working` is the working memory shown
//! first (or `null`).

use memdag_core::recall::{Recall, RecallQuery, RecallWeights};
use memdag_core::tokens::Encoding;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::fields::{parse_object, to_plain};
use crate::memory::Memory;
use crate::turn::widen;

/// A recall query as JS writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RecallInput {
    thread: Option<String>,
    user: Option<String>,
    keywords: Option<Vec<String>>,
    query_text: Option<String>,
    embedding: Option<Vec<f32>>,
    budget_tokens: Option<usize>,
    encoding: Option<Encoding>,
    now: Option<i64>,
    half_life_ms: Option<i64>,
    thread_limit: Option<usize>,
    user_limit: Option<usize>,
    match_limit: Option<usize>,
    match_user_only: Option<bool>,
    since: Option<i64>,
    until: Option<i64>,
    known_limit: Option<usize>,
    work_tokens: Option<usize>,
    ancestor_depth: Option<usize>,
    ancestor_limit: Option<usize>,
    item_tokens: Option<usize>,
    raw_item_tokens: Option<usize>,
    weights: Option<RecallWeights>,
}

impl RecallInput {
    /// The core query, taking the core's defaults, and `clock()` for a missing `now`.
    pub fn into_query(self, clock: impl FnOnce() -> i64) -> RecallQuery {
        let i = self;
        let d = RecallQuery::default();
        RecallQuery {
            thread: i.thread.unwrap_or(d.thread),
            user: i.user.or(d.user),
            keywords: i.keywords.unwrap_or(d.keywords),
            query_text: i.query_text,
            embedding: i.embedding,
            budget_tokens: i.budget_tokens.unwrap_or(d.budget_tokens),
            encoding: i.encoding.unwrap_or(d.encoding),
            now: Some(i.now.unwrap_or_else(clock)),
            half_life_ms: i.half_life_ms.unwrap_or(d.half_life_ms),
            thread_limit: i.thread_limit.unwrap_or(d.thread_limit),
            user_limit: i.user_limit.unwrap_or(d.user_limit),
            match_limit: i.match_limit.unwrap_or(d.match_limit),
            match_user_only: i.match_user_only.unwrap_or(d.match_user_only),
            since: i.since,
            until: i.until,
            known_limit: i.known_limit.unwrap_or(d.known_limit),
            work_tokens: i.work_tokens.unwrap_or(d.work_tokens),
            ancestor_depth: i.ancestor_depth.unwrap_or(d.ancestor_depth),
            ancestor_limit: i.ancestor_limit.unwrap_or(d.ancestor_limit),
            item_tokens: i.item_tokens.unwrap_or(d.item_tokens),
            raw_item_tokens: i.raw_item_tokens.unwrap_or(d.raw_item_tokens),
            weights: i.weights.unwrap_or(d.weights),
        }
    }
}

/// One recall item as JS reads it.
#[derive(Serialize)]
struct ItemOutput<'a> {
    id: &'a str,
    section: &'static str,
    score: f64,
    text: &'a str,
    tokens: usize,
    raw: bool,
}

/// A recall as JS reads it.
#[derive(Serialize)]
struct RecallOutput<'a> {
    items: Vec<ItemOutput<'a>>,
    block: &'a str,
    tokens: usize,
    omitted: usize,
    working: Option<&'a str>,
}

fn recall_to_js(r: &Recall) -> Result<JsValue, memdag_core::Error> {
    let out = RecallOutput {
        items: r
            .items
            .iter()
            .map(|i| ItemOutput {
                id: &i.id,
                section: i.section.name(),
                score: widen(i.score),
                text: &i.text,
                tokens: i.tokens,
                raw: i.raw,
            })
            .collect(),
        block: &r.block,
        tokens: r.tokens,
        omitted: r.omitted,
        working: r.working.as_deref(),
    };
    to_plain("recall", &out)
}

fn query_from_js(query: JsValue) -> Result<RecallQuery, JsValue> {
    Ok(parse_object::<RecallInput>("recall query", query)
        .map_err(throw)?
        .into_query(crate::clock::now))
}

/// The text recall matches for `query` (its keywords, then its query text): what a host
/// that embeds the query must embed. The core's rule, the same in every face.
#[wasm_bindgen(js_name = recallMatchText)]
pub fn recall_match_text(query: JsValue) -> Result<String, JsValue> {
    let query = parse_object::<RecallInput>("recall query", query)
        .map_err(throw)?
        .into_query(|| 0);
    Ok(query.match_text())
}

#[wasm_bindgen]
impl Memory {
    /// The memory block for a new turn of `thread` (thread records, the user's other records,
    /// matches, DAG ancestors) within `budgetTokens`, and counts an access for each record
    /// returned. Throws `INVALID_INPUT` for a malformed query.
    pub fn recall(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.write(|s| recall_to_js(&s.recall(&query)?))
    }

    /// `recall` without counting accesses (for previews, such as the explorer's).
    #[wasm_bindgen(js_name = recallView)]
    pub fn recall_view(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| recall_to_js(&s.recall_view(&query)?))
    }

    /// How often recall has returned record `id` since this memory was created or loaded
    /// (kept in memory only).
    #[wasm_bindgen(js_name = accessCount)]
    pub fn access_count(&self, id: &JsValue) -> Result<u32, JsValue> {
        let id = crate::memory::string("id", id)?;
        self.read(|s| Ok(s.access_count(&id)))
    }
}
