//! The long-term memory settings, persisted with the store as the document `memory/config`.
//!
//! Defaults are what a user of agent memory expects with no configuration: near-duplicates
//! corroborate, contradictions of single-valued relations supersede (newest wins, history
//! kept), and nothing expires or decays unless asked.

use std::collections::BTreeMap;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::codec::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::item::ItemKind;
use crate::store::Store;

/// The document name of the settings.
const CONFIG_DOC: &str = "memory/config";

/// What to do when a new item contradicts an active one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConflictStrategy {
    /// The new item supersedes the old one, which keeps its history (the default).
    #[default]
    Newest,
    /// Both stay active, each naming the other in `conflicts`.
    Keep,
    /// The host LLM merges them into a new version of the old item; without an LLM, newest
    /// wins and the log says so.
    Merge,
}

/// The settings of long-term memory. Every field has a default; missing serde fields take it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MemoryConfig {
    /// Cosine similarity at or above which two items with vectors say the same thing.
    pub dedup_cosine: f32,
    /// Share of shared words (of the smaller item) at or above which two items say the same
    /// thing, when either has no vector.
    pub dedup_overlap: f32,
    pub conflict: ConflictStrategy,
    /// Relations that hold one value at a time per user and subject: a new value contradicts
    /// the old one.
    pub single_valued: Vec<String>,
    /// Pairs of relations that contradict each other for the same object (`likes` and
    /// `dislikes`).
    pub opposites: Vec<(String, String)>,
    /// Pairs of relations that say the same of one object (`allergy` and `dislikes`: both
    /// keep the thing away).
    pub equivalents: Vec<(String, String)>,
    /// Time to live per kind, in ms; absent: never expires.
    pub ttl_ms: BTreeMap<ItemKind, i64>,
    /// Decay half-life per kind, in ms; absent: no decay (see [`crate::recall::score`]).
    pub half_life_ms: BTreeMap<ItemKind, i64>,
    /// Entity aliases the host declares: alias → canonical name (see
    /// [`crate::memory::normalize`]).
    pub aliases: BTreeMap<String, String>,
    /// The least confidence of an item that recall's known section shows (items below it
    /// are kept, listed and searched, and shown once corroboration raises them). The
    /// default, 0.6, is where the rules' items on annotated conversations are mostly facts a
    /// careful reader notes (see `memdag-bench --memory`).
    pub recall_confidence: f32,
    /// The age (ms) past which a stored tool output that no record references is removed, at
    /// `prepare` and at open (default a week; `None` keeps them). See [`crate::retention`].
    pub blob_max_age_ms: Option<i64>,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        let owned = |v: &[&str]| v.iter().map(|s| String::from(*s)).collect();
        MemoryConfig {
            dedup_cosine: 0.92,
            dedup_overlap: 0.8,
            conflict: ConflictStrategy::Newest,
            single_valued: owned(&[
                "name",
                "residence",
                "employer",
                "job",
                "age",
                "timezone",
                "language",
                "partner",
                "birthday",
            ]),
            opposites: std::vec![
                ("likes".into(), "dislikes".into()),
                ("likes".into(), "allergy".into()),
            ],
            equivalents: std::vec![("allergy".into(), "dislikes".into())],
            ttl_ms: BTreeMap::new(),
            half_life_ms: BTreeMap::new(),
            aliases: BTreeMap::new(),
            recall_confidence: 0.6,
            blob_max_age_ms: Some(crate::retention::DEFAULT_BLOB_MAX_AGE_MS),
        }
    }
}

impl MemoryConfig {
    /// Checks the ranges: thresholds in 0..=1, durations positive.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.dedup_cosine) || !(0.0..=1.0).contains(&self.dedup_overlap) {
            return Err(Error::invalid(
                "dedupCosine and dedupOverlap must be in 0..=1",
            ));
        }
        if !(0.0..=1.0).contains(&self.recall_confidence) {
            return Err(Error::invalid("recallConfidence must be in 0..=1"));
        }
        if self
            .ttl_ms
            .values()
            .chain(self.half_life_ms.values())
            .chain(self.blob_max_age_ms.iter())
            .any(|&ms| ms <= 0)
        {
            return Err(Error::invalid(
                "ttlMs, halfLifeMs and blobMaxAgeMs must be positive",
            ));
        }
        Ok(())
    }

    /// Whether `relation` holds one value at a time.
    pub fn is_single_valued(&self, relation: &str) -> bool {
        self.single_valued.iter().any(|r| r == relation)
    }

    /// Whether `a` and `b` contradict each other for the same object.
    pub fn are_opposites(&self, a: &str, b: &str) -> bool {
        pair_in(&self.opposites, a, b)
    }

    /// Whether `a` and `b` say the same of one object.
    pub fn are_equivalent(&self, a: &str, b: &str) -> bool {
        pair_in(&self.equivalents, a, b)
    }
}

fn pair_in(pairs: &[(String, String)], a: &str, b: &str) -> bool {
    pairs
        .iter()
        .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
}

impl Store {
    /// The long-term memory settings (the defaults until set).
    pub fn memory_config(&self) -> MemoryConfig {
        self.state(CONFIG_DOC)
            .and_then(|b| from_msgpack(CONFIG_DOC, b).ok())
            .unwrap_or_default()
    }

    /// Sets the long-term memory settings; they are persisted with the store. Items already
    /// stored are not re-judged. [`Error::InvalidInput`] for an out-of-range value.
    pub fn set_memory_config(&mut self, config: MemoryConfig) -> Result<()> {
        config.validate()?;
        let bytes = to_msgpack(&config)?;
        self.put_state(CONFIG_DOC, bytes);
        self.rebuild_item_index();
        Ok(())
    }
}
