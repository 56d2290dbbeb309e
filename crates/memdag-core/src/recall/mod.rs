//! Mode-1 recall: the memory an agent gets at the start of every turn, without asking.
//!
//! [`Store::recall`] takes a [`RecallQuery`] (thread, user, optional keywords, query text or
//! embedding, and a token budget; everything else has defaults) and returns a [`Recall`]: the
//! chosen records as [`RecallItem`]s and a rendered text block ready to inject. The block holds
//! four sections, each record at most once (in the first of thread, ancestor, match, user that
//! claims it):
//! - (a) `thread`: the newest records of the thread, newest first;
//! - (b) `user`: the newest records of the same user in other threads;
//! - (c) `match`: keyword and hybrid matches from [`Store::search`];
//! - (d) `ancestor`: the DAG ancestors of the records in (a), nearest first.
//!
//! # Ranking
//! Every candidate gets
//! `score = section · (w_r·recency + w_i·importance + w_a·access + w_v·relevance) / (w_r + w_i + w_a + w_v)`
//! with the [`RecallWeights`] (defaults in brackets):
//! - recency `0.5^(age / half_life)`, age from [`RecallQuery::now`] (default: the newest
//!   candidate's time) [w_r 0.35, half-life 7 days];
//! - importance, the record's own 0..1 [w_i 0.15];
//! - access `n / (n + 4)`, where `n` counts how often recall returned the record [w_a 0.10];
//! - relevance [w_v 0.40]: the normalized search score for matches; `0.85^i` for the i-th
//!   newest thread record, half that for the user's; `0.7^(d-1)` for an ancestor `d` edges away;
//!   a candidate that is also a match keeps the larger value;
//! - the section multiplier [known 1.0, thread 1.0, ancestor 0.9, match 0.8, user 0.6];
//! - for an item, recency counts from its `lastSeen`, its relevance is its match score (0
//!   when the query did not match it), and when the memory settings give its kind a decay
//!   half-life the score is multiplied by its decay ([`crate::recall::score::decay`]);
//!   expired items (past their time to live at `now`) are left out.
//!
//! # Working memory
//! The user's working memory of the thread (no user's when the query names none) is rendered first, under `## Working memory`, capped at
//! [`RecallQuery::work_tokens`] and never more than half the budget; the rest of the budget
//! goes to the sections.
//!
//! # Budget
//! Items are taken by score. Each is first rendered short (its compact node if it has one,
//! else its input and output, capped at [`RecallQuery::item_tokens`]); once all that fit are in,
//! items with a tool log are upgraded to their raw log while the budget allows. The final block
//! is re-counted and items are dropped until it fits: `tokens <= budget_tokens` always holds.
//! Every item starts with its record's `[id]`, so the agent can cite it as a parent.
//!
//! # Access counts
//! `recall` takes `&mut self` to count accesses. The counts are persisted as use counts (the
//! USES section of a segment, see [`crate::segment`]), so a reloaded store ranks as before.
//! [`Store::recall_view`] recalls without counting, through `&self`.
//!
//! # Cost
//! Recall never scans all records: (a) and (b) read the thread and user indexes, (d) walks at
//! most `ancestor_limit` records, and (c) is one [`Store::search`] query.

mod gather;
mod known;
mod matches;
mod render;
pub mod score;
mod select;

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::store::Store;
use crate::tokens::Encoding;

/// The day in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// What to recall. Every field but `thread` has a default; missing serde fields take them.
/// Its JSON shape is camelCase (`queryText`, `budgetTokens`, ...), as every face writes it;
/// an unknown name is refused, so a misspelt option is an error, not a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RecallQuery {
    /// The current thread. Empty: no thread or ancestor section.
    pub thread: String,
    /// The current user. `None`: no user section, and every record may be recalled (a
    /// store-wide recall). Named: matches come from this user's records only, the thread and
    /// ancestor sections hold only this user's records and those tagged `shared` (see
    /// [`Record::visible_to`](crate::Record::visible_to)), and the working memory is this
    /// user's: one user's memory never reaches another's prompt. An empty or blank name is
    /// `INVALID_INPUT` ([`crate::scope`]).
    pub user: Option<String>,
    /// Keywords to match (joined to `query_text` for the search).
    pub keywords: Vec<String>,
    /// Free text to match, e.g. the user's new message.
    pub query_text: Option<String>,
    /// A query vector in the store's dimension, for hybrid matches.
    pub embedding: Option<Vec<f32>>,
    /// The most tokens the block may take (default 2,000). The block never exceeds it.
    pub budget_tokens: usize,
    /// The encoding tokens are counted in (default cl100k_base).
    pub encoding: Encoding,
    /// "Now" in ms since the epoch, for recency. Default: the newest candidate's time.
    pub now: Option<i64>,
    /// Half-life of recency, in ms (default 7 days).
    pub half_life_ms: i64,
    /// Newest thread records considered (default 8).
    pub thread_limit: usize,
    /// Records of the user from other threads considered (default 6).
    pub user_limit: usize,
    /// Matches considered (default 8).
    pub match_limit: usize,
    /// Only match records of `user` (default true). False lets matches come from the whole
    /// store even when `user` is named: for an admin view, never for a user's prompt.
    pub match_user_only: bool,
    /// Only records created at or after this time (ms) ...
    pub since: Option<i64>,
    /// ... and before this one.
    pub until: Option<i64>,
    /// Long-term memory items considered for the known section (default 8).
    pub known_limit: usize,
    /// Token cap of the working memory at the top of the block (default 300; 0 leaves it
    /// out).
    pub work_tokens: usize,
    /// How many edges the ancestor walk follows (default 3) ...
    pub ancestor_depth: usize,
    /// ... and how many ancestors it returns at most (default 12).
    pub ancestor_limit: usize,
    /// Token cap of one item's short rendering (default 250).
    pub item_tokens: usize,
    /// Token cap of one item's raw-log rendering (default 600). 0 never shows raw logs.
    pub raw_item_tokens: usize,
    pub weights: RecallWeights,
}

impl Default for RecallQuery {
    fn default() -> Self {
        RecallQuery {
            thread: String::new(),
            user: None,
            keywords: Vec::new(),
            query_text: None,
            embedding: None,
            budget_tokens: 2000,
            encoding: Encoding::default(),
            now: None,
            half_life_ms: 7 * DAY_MS,
            thread_limit: 8,
            user_limit: 6,
            match_limit: 8,
            match_user_only: true,
            since: None,
            until: None,
            known_limit: 8,
            work_tokens: 300,
            ancestor_depth: 3,
            ancestor_limit: 12,
            item_tokens: 250,
            raw_item_tokens: 600,
            weights: RecallWeights::default(),
        }
    }
}

/// Ranking weights; see the module docs for the formula. All must be finite and >= 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RecallWeights {
    pub recency: f32,
    pub importance: f32,
    pub access: f32,
    pub relevance: f32,
    /// Multiplier of long-term memory items.
    pub known: f32,
    /// Multiplier of thread records.
    pub thread: f32,
    /// Multiplier of the user's records from other threads.
    pub user: f32,
    /// Multiplier of matches.
    pub matched: f32,
    /// Multiplier of ancestors.
    pub ancestor: f32,
}

impl Default for RecallWeights {
    fn default() -> Self {
        RecallWeights {
            recency: 0.35,
            importance: 0.15,
            access: 0.10,
            relevance: 0.40,
            known: 1.0,
            thread: 1.0,
            user: 0.6,
            matched: 0.8,
            ancestor: 0.9,
        }
    }
}

/// Which part of the block an item is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecallSection {
    /// (k) Long-term memory items: what is known about the user and the task.
    Known,
    /// (a) The newest records of the thread.
    Thread,
    /// (b) The user's records from other threads.
    User,
    /// (c) Keyword and hybrid matches.
    #[serde(rename = "match")]
    Match,
    /// (d) Ancestors of the thread records.
    Ancestor,
}

impl RecallSection {
    /// The section's name: `known`, `thread`, `user`, `match` or `ancestor`.
    pub fn name(self) -> &'static str {
        match self {
            RecallSection::Known => "known",
            RecallSection::Thread => "thread",
            RecallSection::User => "user",
            RecallSection::Match => "match",
            RecallSection::Ancestor => "ancestor",
        }
    }
}

/// One record in a recall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallItem {
    pub id: String,
    pub section: RecallSection,
    /// The ranking score (see the module docs).
    pub score: f32,
    /// The item's text as it appears in the block.
    pub text: String,
    /// Tokens of `text`.
    pub tokens: usize,
    /// Whether `text` shows the raw tool log.
    pub raw: bool,
}

/// The answer of a recall.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Recall {
    /// The items in block order: by section (thread, user, match, ancestor), then within it.
    pub items: Vec<RecallItem>,
    /// The rendered block; empty when nothing fits.
    pub block: String,
    /// Tokens of `block`; at most the budget.
    pub tokens: usize,
    /// Candidates left out for lack of budget.
    pub omitted: usize,
    /// The working memory as the block shows it, if the thread has any and it fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working: Option<String>,
}

impl Store {
    /// Recalls memory for a new turn and counts an access for each record returned.
    /// Errors: [`crate::Error::InvalidInput`] for a negative or non-finite weight, a
    /// non-positive half-life, or an invalid query embedding.
    pub fn recall(&mut self, q: &RecallQuery) -> Result<Recall> {
        let recall = self.recall_view(q)?;
        for item in &recall.items {
            if let Some(slot) = self.slot_of(&item.id) {
                *self.access.entry(slot).or_default() += 1;
                self.dirty.mark(crate::dirty::Touched::Uses(slot));
            }
        }
        Ok(recall)
    }

    /// [`Store::recall`] without counting accesses.
    pub fn recall_view(&self, q: &RecallQuery) -> Result<Recall> {
        gather::validate(q)?;
        let cands = gather::candidates(self, q)?;
        let work = self.working_text(q);
        Ok(select::select(q, cands, work.as_deref()))
    }

    /// The query's user's working memory of its thread (no user's when it names none),
    /// rendered, if there is one and the query wants it.
    fn working_text(&self, q: &RecallQuery) -> Option<String> {
        if q.thread.is_empty() || q.work_tokens == 0 {
            return None;
        }
        let wm = self.working_memory_of(q.user.as_deref().unwrap_or(""), &q.thread);
        let text = wm.render();
        (!text.is_empty()).then_some(text)
    }

    /// How often recall has returned record `id`.
    pub fn access_count(&self, id: &str) -> u32 {
        self.slot_of(id)
            .and_then(|s| self.access.get(&s).copied())
            .unwrap_or(0)
    }
}
