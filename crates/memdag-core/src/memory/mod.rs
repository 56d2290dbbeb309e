//! Long-term memory: adding, versioning, deduplicating and superseding items, and learning
//! them from turns.
//!
//! The item types are in [`crate::item`]; this module holds the rules:
//! - [`config`]: the settings ([`MemoryConfig`]): dedup thresholds, the conflict strategy,
//!   single-valued relations, time to live and half-life per kind. Persisted with the store.
//! - [`crud`]: add, get, update (a new version), soft delete, history, list and the
//!   resolution log.
//! - [`learn`]: what happens to a new item: a near-duplicate of an active item corroborates it
//!   (one more corroboration and source, no new item); a contradiction of one supersedes it,
//!   flags both, or is merged, by strategy; anything else is added.
//! - [`index`]: the in-memory indexes of items by (user, subject, relation) and by entity,
//!   rebuilt on load, so the checks of an add never scan a user's items.
//! - [`normalize`]: entity and text normalisation (NFKC, case, whitespace, host aliases).
//! - [`extract`]: learning from turns, by the rules or through the host LLM.
//! - [`rules`]: the rule-based extractor, so memdag learns with zero configuration.
//! - [`llm`]: the host LLM's pass: batches of turns, the prompt and JSON Schema, the strict
//!   fact-by-fact reading of an answer, and how its add / update / supersede / none apply.
//! - [`score`]: the recall score of an item (recency, importance, use and relevance).
//!
//! Every mutation validates first and changes nothing on an error; the core never reads a
//! clock, so every change takes its time from the caller (faces default it to the host clock).

pub mod config;
pub mod crud;
pub mod extract;
pub mod index;
pub mod learn;
pub mod llm;
// Name folding moved to the index layer, which keys items by it.
pub use crate::index::normalize;
pub mod rules;
// The recall score moved to recall, which is its one user.
pub use crate::recall::score;

pub use config::{ConflictStrategy, MemoryConfig};
pub use crud::{HistoryEntry, ItemOrder, ItemQuery, LoggedResolution, ResolutionQuery};
pub use extract::{ExtractQuery, ExtractReport};
pub use learn::{Judged, Learned, Outcome, Proposal, Verdict};
