//! Mode-2 search from JS: `memory.search(query)`, `memory.searchFull(query)`,
//! `memory.grep(query)` and the built-in embedder switch.
//!
//! Queries are plain objects with camelCase names (`vectorWeight`, `minScore`,
//! `caseInsensitive`, `maxMatches`, `offsetMinutes`); every property is optional but the text
//! (or embedding, or pattern). Unknown top-level properties are `INVALID_INPUT`. The filter is
//! the core's own (its names are one word each: `thread`, `user`, `tags`, `since`, `until`,
//! `ids`, `scope`, `kinds`, `statuses`, `now`). Hits come back as plain objects, with the
//! item's `kind` (`null` for a turn).
//!
//! Time: `now` defaults to the host clock (see [`crate::clock`]), so a time expression in the
//! text ("last week", "上周") filters (or, with `time: 'boost'`, ranks) by the range it names;
//! `filter.now` defaults to that `now`, so expired items leave. `searchFull` also returns the
//! range understood, its `start` and `end` as UTF-16 offsets into `text`.
//!
//! Grep offsets: the core reports UTF-8 byte offsets; JS strings index UTF-16 code units, so
//! `start` and `end` are converted here, and `record[field].slice(start, end)` is the match.

use memdag_core::index::vecstore::VectorSettings;
use memdag_core::item::ItemKind;
use memdag_core::search::{
    Bm25Params, Fusion, GrepMatch, GrepQuery, SearchFilter, SearchHit, SearchMode, SearchQuery,
    TimeUse,
};
use memdag_core::time::TimeExpr;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::error::throw;
use crate::fields::{parse_object, to_plain, to_plain_json};
use crate::memory::Memory;
use crate::turn::widen;

/// A search query as JS writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SearchInput {
    text: Option<String>,
    embedding: Option<Vec<f32>>,
    mode: Option<SearchMode>,
    k: Option<usize>,
    filter: Option<SearchFilter>,
    fusion: Option<Fusion>,
    vector_weight: Option<f32>,
    rrf_k: Option<f32>,
    min_score: Option<f32>,
    context: Option<f32>,
    thread_scope: Option<f32>,
    drop_stopwords: Option<bool>,
    dedup: Option<bool>,
    bm25: Option<Bm25Params>,
    ef: Option<usize>,
    snippets: Option<bool>,
    now: Option<i64>,
    offset_minutes: Option<i32>,
    time: Option<TimeUse>,
    importance_weight: Option<f32>,
    recency_weight: Option<f32>,
    half_life_ms: Option<i64>,
}

impl SearchInput {
    /// The core query, taking the core's defaults, and `clock()` for a missing `now` (and
    /// `filter.now`).
    pub fn into_query(self, clock: impl FnOnce() -> i64) -> SearchQuery {
        let d = SearchQuery::default();
        let now = self.now.unwrap_or_else(clock);
        let i = self;
        let mut filter = i.filter.unwrap_or(d.filter);
        filter.now = filter.now.or(Some(now));
        SearchQuery {
            text: i.text.unwrap_or(d.text),
            embedding: i.embedding,
            mode: i.mode.unwrap_or(d.mode),
            k: i.k.unwrap_or(d.k),
            filter,
            fusion: i.fusion.unwrap_or(d.fusion),
            vector_weight: i.vector_weight.unwrap_or(d.vector_weight),
            rrf_k: i.rrf_k.unwrap_or(d.rrf_k),
            min_score: i.min_score,
            context: i.context.unwrap_or(d.context),
            thread_scope: i.thread_scope.unwrap_or(d.thread_scope),
            drop_stopwords: i.drop_stopwords.unwrap_or(d.drop_stopwords),
            dedup: i.dedup.unwrap_or(d.dedup),
            bm25: i.bm25.unwrap_or(d.bm25),
            ef: i.ef,
            snippets: i.snippets.unwrap_or(d.snippets),
            now: Some(now),
            offset_minutes: i.offset_minutes.unwrap_or(d.offset_minutes),
            time: i.time.unwrap_or(d.time),
            importance_weight: i.importance_weight.unwrap_or(d.importance_weight),
            recency_weight: i.recency_weight.unwrap_or(d.recency_weight),
            half_life_ms: i.half_life_ms.unwrap_or(d.half_life_ms),
        }
    }
}

/// A grep query as JS writes it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GrepInput {
    pattern: Option<String>,
    case_insensitive: Option<bool>,
    fields: Option<Vec<String>>,
    filter: Option<SearchFilter>,
    max_matches: Option<usize>,
}

impl From<GrepInput> for GrepQuery {
    fn from(i: GrepInput) -> Self {
        let d = GrepQuery::default();
        GrepQuery {
            pattern: i.pattern.unwrap_or(d.pattern),
            case_insensitive: i.case_insensitive.unwrap_or(d.case_insensitive),
            fields: i.fields.unwrap_or(d.fields),
            filter: i.filter.unwrap_or(d.filter),
            max_matches: i.max_matches.unwrap_or(d.max_matches),
        }
    }
}

/// A hit as JS reads it: scores in their shortest decimal form.
#[derive(Serialize)]
struct HitOutput<'a> {
    id: &'a str,
    score: f64,
    bm25: Option<f64>,
    vector: Option<f64>,
    snippet: &'a str,
    /// The item's kind; `None` (JS `null`) for a turn.
    kind: Option<ItemKind>,
}

/// The answer of `searchFull`.
#[derive(Serialize)]
struct FullOutput<'a> {
    hits: Vec<HitOutput<'a>>,
    /// The time range understood in the text, if any.
    time: Option<TimeExpr>,
}

impl<'a> From<&'a SearchHit> for HitOutput<'a> {
    fn from(h: &'a SearchHit) -> Self {
        HitOutput {
            id: &h.id,
            score: widen(h.score),
            bm25: h.bm25.map(widen),
            vector: h.vector.map(widen),
            snippet: &h.snippet,
            kind: h.kind,
        }
    }
}

/// A search query from JS, `now` defaulting to the host clock.
fn query_from_js(query: JsValue) -> Result<SearchQuery, JsValue> {
    Ok(parse_object::<SearchInput>("query", query)
        .map_err(crate::error::throw)?
        .into_query(crate::clock::now))
}

/// Whether a host with an embedder should embed `query`'s text before searching: the core's
/// rule ([`SearchQuery::wants_vector`]), for `PersistentMemory.searchAsync`.
#[wasm_bindgen(js_name = searchWantsVector)]
pub fn search_wants_vector(query: JsValue) -> Result<bool, JsValue> {
    Ok(query_from_js(query)?.wants_vector())
}

/// The storage key of a store's commit (`head`), for hosts that read it first.
#[wasm_bindgen(js_name = headKey)]
pub fn head_key() -> String {
    memdag_core::keys::HEAD_KEY.to_string()
}

/// A time expression with its byte offsets into `text` made UTF-16 offsets.
fn time_to_utf16(text: &str, mut t: TimeExpr) -> TimeExpr {
    let units = |byte: usize| text.get(..byte).map_or(byte, |p| p.encode_utf16().count());
    (t.start, t.end) = (units(t.start), units(t.end));
    t
}

#[wasm_bindgen]
impl Memory {
    /// Searches the memory: BM25 full text, vectors, or both fused (`mode`, default hybrid),
    /// with filters applied before the top `k` (default 10) are taken. Throws `INVALID_INPUT`
    /// for a malformed query; an unmatched query gives `[]`.
    pub fn search(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| {
            let hits = s.search(&query)?;
            let out: Vec<HitOutput> = hits.iter().map(HitOutput::from).collect();
            to_plain("search hits", &out)
        })
    }

    /// `search`, answering `{ hits, time }`: `time` is the range a time expression in the text
    /// named (`{ since, until, matched, start, end, grain }`, offsets in UTF-16 units), or
    /// `null`.
    #[wasm_bindgen(js_name = searchFull)]
    pub fn search_full(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query = query_from_js(query)?;
        self.read(|s| {
            let found = s.search_full(&query)?;
            let out = FullOutput {
                hits: found.hits.iter().map(HitOutput::from).collect(),
                time: found.time.map(|t| time_to_utf16(&query.text, t)),
            };
            to_plain("search results", &out)
        })
    }

    /// Regular-expression search over the raw logs (input, output, step args and results).
    /// `start`/`end` are UTF-16 offsets into the matched field. Throws `INVALID_INPUT` for a
    /// bad pattern or option.
    pub fn grep(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let query: GrepQuery = parse_object::<GrepInput>("query", query)
            .map_err(crate::error::throw)?
            .into();
        self.read(|s| {
            let mut matches = s.grep(&query)?;
            // Matches of one field come in text order: convert their offsets in one pass over
            // the field (counting from its start for every match was quadratic).
            let mut cursor = Utf16Cursor::default();
            let mut field: (String, String) = (String::new(), String::new());
            for m in &mut matches {
                if (m.id.as_str(), m.field.as_str()) != (field.0.as_str(), field.1.as_str()) {
                    field = (m.id.clone(), m.field.clone());
                    cursor = Utf16Cursor::default();
                }
                if let Some(text) = s.get(&m.id).and_then(|r| m.field_text(r)) {
                    cursor.convert(text, m);
                }
            }
            to_plain("grep matches", &matches)
        })
    }

    /// Whether turns added without an embedding get one from the built-in lexical embedder
    /// (so vector and hybrid search work without a model). Not persisted: set it after `load`.
    #[wasm_bindgen(getter, js_name = autoEmbed)]
    pub fn auto_embed(&self) -> Result<bool, JsValue> {
        self.read(|s| Ok(s.search_index().auto_embed()))
    }

    /// See the getter.
    #[wasm_bindgen(setter, js_name = autoEmbed)]
    pub fn set_auto_embed(&self, on: bool) -> Result<(), JsValue> {
        self.write(|s| {
            s.set_auto_embed(on);
            Ok(())
        })
    }

    /// How the memory keeps its vectors: `{ precision, train }`, the precision `int8` (the
    /// default: a quarter of the bytes; what `embedding` returns is what the codes stand for),
    /// `f32` (as given; a memory stored before int8 became the default stays so) or `int8+f32`
    /// (int8 for the walk, `f32` kept to re-score), and how many vectors train the int8 steps
    /// (1024 by default; until then they are kept as given).
    #[wasm_bindgen(getter, js_name = vectorSettings)]
    pub fn vector_settings(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain_json("vector settings", &s.vector_settings()))
    }

    /// Sets how the memory keeps its vectors, persisted with the store; names left out take
    /// their defaults. Throws `INVALID_INPUT` for an unknown name or precision, or `train` 0.
    #[wasm_bindgen(js_name = setVectorSettings)]
    pub fn set_vector_settings(&self, settings: JsValue) -> Result<(), JsValue> {
        let settings: VectorSettings = parse_object("vector settings", settings).map_err(throw)?;
        self.write(|s| s.set_vector_settings(settings))
    }

    /// The dimension of the memory's vectors, fixed by the first one; 0 before it.
    #[wasm_bindgen(getter)]
    pub fn dimension(&self) -> Result<u32, JsValue> {
        self.read(|s| Ok(s.meta().dimension))
    }
}

/// Converts byte offsets into one text to UTF-16 offsets, moving forward from the last one.
#[derive(Debug, Default)]
struct Utf16Cursor {
    byte: usize,
    units: usize,
}

impl Utf16Cursor {
    /// The UTF-16 offset of byte offset `byte` of `text`.
    fn units_at(&mut self, text: &str, byte: usize) -> usize {
        if byte < self.byte {
            *self = Utf16Cursor::default();
        }
        match text.get(self.byte..byte) {
            Some(part) => {
                self.units += part.encode_utf16().count();
                self.byte = byte;
                self.units
            }
            None => byte,
        }
    }

    /// Rewrites a match's byte offsets as UTF-16 offsets into `text`.
    fn convert(&mut self, text: &str, m: &mut GrepMatch) {
        let start = self.units_at(text, m.start);
        let end = self.units_at(text, m.end);
        m.start = start;
        m.end = end;
    }
}

/// Rewrites a match's byte offsets as UTF-16 offsets into `text`.
#[cfg(test)]
fn to_utf16(text: &str, m: &mut GrepMatch) {
    Utf16Cursor::default().convert(text, m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_offsets_become_utf16() {
        let text = "上周 deploy";
        let t = TimeExpr {
            since: 0,
            until: 1,
            matched: "上周".into(),
            start: 0,
            end: "上周".len(),
            grain: memdag_core::time::Grain::Week,
        };
        let t = time_to_utf16(text, t);
        assert_eq!((t.start, t.end), (0, 2));
    }

    #[test]
    fn grep_offsets_become_utf16() {
        let text = "日本 error here";
        let start = text.find("error").unwrap();
        let mut m = GrepMatch {
            start,
            end: start + 5,
            ..GrepMatch::default()
        };
        to_utf16(text, &mut m);
        assert_eq!((m.start, m.end), (3, 8));
    }

    #[test]
    fn one_cursor_converts_many_matches_as_the_slow_way_does() {
        let text = "é error 😀 error 日本 error".repeat(50);
        let mut cursor = Utf16Cursor::default();
        for (start, word) in text.match_indices("error") {
            let mut m = GrepMatch {
                start,
                end: start + word.len(),
                ..GrepMatch::default()
            };
            cursor.convert(&text, &mut m);
            let slow = |b: usize| text[..b].encode_utf16().count();
            assert_eq!((m.start, m.end), (slow(start), slow(start + 5)));
        }
    }

    #[test]
    fn partial_queries_take_the_core_defaults() {
        let q: SearchQuery = SearchInput {
            text: Some("x".into()),
            ..SearchInput::default()
        }
        .into_query(|| 5);
        assert_eq!(q.k, SearchQuery::default().k);
        assert!(q.dedup && q.snippets);
        assert_eq!(
            (q.now, q.filter.now),
            (Some(5), Some(5)),
            "the clock is the default"
        );
        assert_eq!(q.time, TimeUse::Filter);
        let pinned = SearchInput {
            now: Some(9),
            filter: Some(SearchFilter {
                now: Some(3),
                ..SearchFilter::default()
            }),
            ..SearchInput::default()
        }
        .into_query(|| panic!("the clock is not read when now is given"));
        assert_eq!((pinned.now, pinned.filter.now), (Some(9), Some(3)));
        let g: GrepQuery = GrepInput::default().into();
        assert_eq!(g.max_matches, GrepQuery::default().max_matches);
    }
}
