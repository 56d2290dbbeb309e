//! The types of a search: the query, its filter, its options and the hits it returns.
//!
//! Every type is serde with `#[serde(default)]`, so a binding can pass a partial JSON-like
//! object: `{"text": "deploy failed", "k": 5}` is a complete hybrid query. Field names are
//! camelCase (`vectorWeight`, `minScore`), the one JSON shape of every face.

use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::index::bm25::Bm25Params;
use crate::item::{ItemKind, ItemStatus};
use crate::record::Record;

/// What a time expression in the query text does (see [`crate::time::parse_time`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUse {
    /// Keep to records created in the range it names; search the rest of the text (the
    /// default when the query gives `now`).
    #[default]
    Filter,
    /// Rank records created in the range higher; search the whole text.
    Boost,
    /// Ignore it.
    Off,
}

/// Which records a search or grep looks at: turns, long-term memory items, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Turns and items (the default).
    #[default]
    All,
    Turns,
    Items,
}

/// Largest `k` a query may ask for.
pub const MAX_K: usize = 1000;
/// Longest query text, in bytes. A longer one is an `INVALID_INPUT` error.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Which signals rank the hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Full text only (BM25F over input, output, compact node and steps).
    Bm25,
    /// Vectors only (cosine).
    Vector,
    /// Both, fused. Falls back to the one available when the other is not.
    #[default]
    Hybrid,
}

/// How hybrid search combines the two rankings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    /// `w·cos' + (1 − w)·bm25'`, each signal min-max normalized over the candidates.
    #[default]
    Weighted,
    /// Reciprocal-rank fusion: `Σ 1 / (rrf_k + rank)` over the two rankings.
    Rrf,
}

/// Conditions a hit must meet. They apply inside the search, before the top `k` are taken,
/// so a filtered query still returns up to `k` hits. Unset fields do not filter.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchFilter {
    /// Only records of this thread.
    pub thread: Option<String>,
    /// Only what this user may see: the user's own records and those tagged `shared`
    /// ([`Record::visible_to`](crate::Record::visible_to)). Naming a user is how a call is
    /// kept to one user's memory; `None` is store-wide, and an empty or blank name is
    /// `INVALID_INPUT` ([`crate::scope`]).
    pub user: Option<String>,
    /// Only records carrying every one of these tags.
    pub tags: Vec<String>,
    /// Only records created at or after this time (ms since the epoch).
    pub since: Option<i64>,
    /// Only records created before this time (ms since the epoch).
    pub until: Option<i64>,
    /// Only records among these ids. Unknown ids are ignored.
    pub ids: Option<Vec<String>>,
    /// Turns, items or both (default both).
    pub scope: Scope,
    /// Only items of these kinds (so no turns); empty: no kind filter.
    pub kinds: Vec<ItemKind>,
    /// Items of these statuses; empty: active items only. Turns have no status.
    pub statuses: Vec<ItemStatus>,
    /// The caller's clock (ms): items whose time to live ran out by then are left out.
    pub now: Option<i64>,
}

impl SearchFilter {
    /// Whether the filter rejects anything at all.
    pub fn is_active(&self) -> bool {
        self.thread.is_some()
            || self.user.is_some()
            || !self.tags.is_empty()
            || self.since.is_some()
            || self.until.is_some()
            || self.ids.is_some()
            || self.scope != Scope::All
            || !self.kinds.is_empty()
    }
}

/// A Mode-2 search query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SearchQuery {
    /// The query text, for BM25 (and for the built-in embedder, see [`SearchQuery::embedding`]).
    pub text: String,
    /// The query vector, in the store's dimension. When absent and the store's vectors come
    /// from the built-in embedder, the text is embedded with it.
    pub embedding: Option<Vec<f32>>,
    pub mode: SearchMode,
    /// How many hits to return (1 to [`MAX_K`]).
    pub k: usize,
    pub filter: SearchFilter,
    pub fusion: Fusion,
    /// Weight of the vector signal in weighted fusion, 0 to 1 (default 0.5: both signals
    /// count equally).
    pub vector_weight: f32,
    /// The `k` constant of reciprocal-rank fusion (default 60).
    pub rrf_k: f32,
    /// Drop hits scoring below this (in the mode's own score: BM25, cosine or fused, with
    /// what it borrows from its thread when `context` or `thread_scope` is on).
    pub min_score: Option<f32>,
    /// Thread context, 0 to 1 (default 0.5; 0 turns it off): a record's score borrows this
    /// share of its best thread neighbour's score. See [`crate::search::thread_context`].
    pub context: f32,
    /// Thread scope, 0 to 1 (default 0.25; 0 turns it off): a record gains this share of the
    /// best score in its thread among the candidates. See [`crate::search::thread_context`].
    pub thread_scope: f32,
    /// Drop English function words (`what`, `did`, `the`, ...) from the BM25 query unless
    /// it has nothing else (default true). See [`crate::index::stopwords`].
    pub drop_stopwords: bool,
    /// Keep only the best of hits whose input and output are identical (default true).
    pub dedup: bool,
    pub bm25: Bm25Params,
    /// The HNSW search breadth `ef` (default 64; raised to `k` when smaller).
    pub ef: Option<usize>,
    /// Whether hits carry a snippet (default true).
    pub snippets: bool,
    /// The caller's clock (ms). With it, a time expression in the text ("last week",
    /// "上周", "in May 2023") is resolved against it and used as `time` says; the range
    /// understood comes back with the results ([`crate::search::SearchResults::time`]).
    pub now: Option<i64>,
    /// Minutes east of UTC, for the days of time expressions (default 0).
    pub offset_minutes: i32,
    pub time: TimeUse,
    /// Importance in the ranking, 0 to 1 (default 0: off). A hit's score is multiplied by
    /// `1 + w·(2·importance − 1)`: a turn of importance 1 gains up to `w`, one of 0 loses up
    /// to `w`, a plain one (0.5) is unchanged. See [`crate::importance`].
    pub importance_weight: f32,
    /// Recency in the ranking, 0 to 1 (default 0: off). A hit's score is multiplied by
    /// `1 − w·(1 − 2^(−age / half_life_ms))`, its age counted from `now` (else from the newest
    /// candidate).
    pub recency_weight: f32,
    /// The half-life of recency, in ms (default 30 days).
    pub half_life_ms: i64,
}

/// The default half-life of search's recency term: 30 days.
pub const DEFAULT_SEARCH_HALF_LIFE_MS: i64 = 30 * 24 * 3600 * 1000;

impl SearchQuery {
    /// Whether a host with an embedder should give this query a vector before it runs: it
    /// has none, its mode uses vectors, and its text holds more than whitespace. The one rule
    /// every face follows (the component's `search`, the JS package's `searchAsync`).
    pub fn wants_vector(&self) -> bool {
        self.embedding.is_none() && self.mode != SearchMode::Bm25 && !self.text.trim().is_empty()
    }
}

impl Default for SearchQuery {
    fn default() -> Self {
        SearchQuery {
            text: String::new(),
            embedding: None,
            mode: SearchMode::Hybrid,
            k: 10,
            filter: SearchFilter::default(),
            fusion: Fusion::Weighted,
            vector_weight: 0.5,
            rrf_k: 60.0,
            min_score: None,
            context: 0.5,
            thread_scope: 0.25,
            drop_stopwords: true,
            dedup: true,
            bm25: Bm25Params::default(),
            ef: None,
            snippets: true,
            now: None,
            offset_minutes: 0,
            time: TimeUse::Filter,
            importance_weight: 0.0,
            recency_weight: 0.0,
            half_life_ms: DEFAULT_SEARCH_HALF_LIFE_MS,
        }
    }
}

/// A search's hits and the time range it understood in its text, if any.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<crate::time::TimeExpr>,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchHit {
    pub id: String,
    /// The ranking score: BM25, cosine or fused, by mode, plus what the record borrows from
    /// its thread neighbours ([`SearchQuery::context`]) and its thread's best
    /// ([`SearchQuery::thread_scope`]).
    pub score: f32,
    /// The BM25 score, when a query term occurs in the record.
    pub bm25: Option<f32>,
    /// The cosine similarity, when the query and the record both have a vector.
    pub vector: Option<f32>,
    /// A short excerpt with the matched terms marked «like this».
    pub snippet: String,
    /// The kind of a long-term memory item; absent for a turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ItemKind>,
}

/// A regular-expression search over raw logs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GrepQuery {
    /// The pattern, in `regex` crate syntax (linear time: no backreferences or lookaround).
    pub pattern: String,
    pub case_insensitive: bool,
    /// Fields to search among `input`, `output`, `args`, `results`; empty means all.
    pub fields: Vec<String>,
    pub filter: SearchFilter,
    /// Stop after this many matches (default 100, at most 10 000).
    pub max_matches: usize,
}

impl Default for GrepQuery {
    fn default() -> Self {
        GrepQuery {
            pattern: String::new(),
            case_insensitive: false,
            fields: Vec::new(),
            filter: SearchFilter::default(),
            max_matches: 100,
        }
    }
}

/// A text of a record's raw log that grep searches, named in [`GrepMatch::field`] as
/// `input`, `output`, `steps[i].args` or `steps[i].result`. The one owner of those names: grep
/// writes them, and a face that needs the matched field's text again (to count UTF-16 offsets,
/// say) reads it back through [`GrepMatch::field_text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogField {
    Input,
    Output,
    /// The arguments of step `i`, from 0.
    StepArgs(usize),
    /// The result of step `i`, from 0.
    StepResult(usize),
}

impl LogField {
    /// Its name in a match.
    pub fn name(self) -> String {
        match self {
            LogField::Input => "input".into(),
            LogField::Output => "output".into(),
            LogField::StepArgs(i) => std::format!("steps[{i}].args"),
            LogField::StepResult(i) => std::format!("steps[{i}].result"),
        }
    }

    /// The field a match's name stands for, if it is one.
    pub fn parse(name: &str) -> Option<LogField> {
        match name {
            "input" => Some(LogField::Input),
            "output" => Some(LogField::Output),
            _ => {
                let (i, part) = name.strip_prefix("steps[")?.split_once("].")?;
                // `usize::from_str` takes a leading `+`, which no name written here has.
                if !i.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let i = i.parse().ok()?;
                match part {
                    "args" => Some(LogField::StepArgs(i)),
                    "result" => Some(LogField::StepResult(i)),
                    _ => None,
                }
            }
        }
    }

    /// The field's text in `record`, if the record has it.
    pub fn text_of(self, record: &Record) -> Option<&str> {
        match self {
            LogField::Input => Some(&record.input),
            LogField::Output => Some(&record.output),
            LogField::StepArgs(i) => record.steps.get(i).map(|s| s.args.as_str()),
            LogField::StepResult(i) => record.steps.get(i).map(|s| s.result.as_str()),
        }
    }
}

/// One grep match.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GrepMatch {
    pub id: String,
    /// `input`, `output`, `steps[i].args` or `steps[i].result`.
    pub field: String,
    /// Line of the match start within the field, from 1.
    pub line: u32,
    /// Byte offsets of the match within the field's text.
    pub start: usize,
    pub end: usize,
    /// The matched text, cut to at most 256 bytes.
    pub text: String,
}

impl GrepMatch {
    /// The text of the field this match is in, read from `record` (the match's own record).
    pub fn field_text<'a>(&self, record: &'a Record) -> Option<&'a str> {
        LogField::parse(&self.field)?.text_of(record)
    }
}

#[cfg(test)]
mod tests {
    use super::LogField;
    use crate::record::{Record, Step};

    #[test]
    fn log_field_names_read_back_and_find_their_text() {
        let r = Record {
            id: "a".into(),
            seq: 0,
            thread: String::new(),
            user: String::new(),
            created_at: 0,
            input: "in".into(),
            output: "out".into(),
            steps: vec![Step {
                tool: "t".into(),
                args: "{}".into(),
                result: "res".into(),
                ok: true,
            }],
            parents: vec![],
            tags: vec![],
            importance: 0.5,
            compact: None,
            embedding: None,
            item: None,
        };
        for (field, text) in [
            (LogField::Input, Some("in")),
            (LogField::Output, Some("out")),
            (LogField::StepArgs(0), Some("{}")),
            (LogField::StepResult(0), Some("res")),
            (LogField::StepResult(1), None),
            (LogField::StepArgs(12), None),
        ] {
            assert_eq!(LogField::parse(&field.name()), Some(field));
            assert_eq!(field.text_of(&r), text, "{field:?}");
        }
        for bad in [
            "",
            "steps",
            "steps[+1].args",
            "steps[1].ok",
            "steps[].args",
            "Input",
        ] {
            assert_eq!(LogField::parse(bad), None, "{bad}");
        }
    }
}
