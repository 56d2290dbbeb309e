//! Mode-2 search: BM25 full text, vectors, hybrid ranking, filters and grep over raw logs.
//!
//! The agent's own low-level query into its memory: it knows what it looks for, so it gets
//! every signal and full control. [`Store::search`] takes a [`SearchQuery`] and returns
//! [`SearchHit`]s; [`Store::grep`] takes a [`GrepQuery`] and returns [`GrepMatch`]es.
//!
//! This layer holds the queries only; they run over a [`Store`] and read the indexes it owns
//! ([`crate::index`], the layer below the store):
//! - [`query`]: the query and hit types;
//! - [`searcher`]: runs a query (filters inside, fusion, [`thread_context`],
//!   `min_score`, dedup, [`snippet`]s); [`filter`]: the compiled filters;
//! - [`grep`]: regular expressions over the raw logs.
//!
//! Tie-breaking everywhere is by insertion order, so equal inputs give equal outputs, and a
//! reloaded store answers exactly as the store it was saved from.
//!
//! [`Store`]: crate::Store
//! [`Store::search`]: crate::Store::search
//! [`Store::grep`]: crate::Store::grep

mod by_slot;
pub mod filter;
pub mod grep;
pub mod query;
pub mod searcher;
pub mod snippet;
pub mod thread_context;

// The indexes moved to `crate::index`; these names keep `memdag_core::search::…` paths.
pub use crate::index::derived as keys;
pub use crate::index::restore as persist;
pub use crate::index::{
    analyzer, bm25, distance, embed, hnsw, postings, stopwords, threads, topk, vectors, SearchIndex,
};
pub use thread_context as context;

pub use crate::index::bm25::{Bm25Params, FieldWeights};
pub use crate::index::embed::{embed as builtin_embed, BUILTIN_DIMENSION};
pub use query::{
    Fusion, GrepMatch, GrepQuery, LogField, Scope, SearchFilter, SearchHit, SearchMode,
    SearchQuery, SearchResults, TimeUse, DEFAULT_SEARCH_HALF_LIFE_MS,
};
