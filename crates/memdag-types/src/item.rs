//! Long-term memory items: what memdag learns from turns and keeps beyond them.
//!
//! A turn record is what happened; an item is what is worth knowing from now on: a user's
//! preference or profile fact (`personal`), how a kind of task went (`procedural`), how a tool
//! behaves (`tool`), or a free-form `fact` with an optional subject, relation and object.
//!
//! An item is stored as a [`Record`](crate::Record) whose [`Record::item`](crate::Record::item)
//! holds an [`ItemMeta`]: the record's `input` is the item's text, its `parents` are the turns
//! it was learned from (its *provenance*, so an item's ancestors reach its turns and a turn's
//! descendants show what was learned from it), and it has no thread. So items share the store's
//! storage, DAG, isolation by user, erasure and search indexes with turns, and every face
//! shows them through one shape, [`MemoryItem`].
//!
//! Items change by versions, never in place: an update keeps the version it replaces in
//! [`ItemMeta::history`] with the end of its validity; a contradiction supersedes an item
//! (status [`ItemStatus::Superseded`], [`ItemMeta::superseded_by`]) and the new item names it
//! in [`ItemMeta::supersedes`]; a delete is soft ([`ItemStatus::Deleted`]). Every such step is
//! logged in [`ItemMeta::log`] (see [`Resolution`]). The rules live in `memdag_core::memory`.
//!
//! The JSON shape of every type here (camelCase, as the JS package, the CLI and the tools
//! write it) is this module's serde: faces convert nothing by hand.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What an item is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A user's preferences, profile facts and standing instructions.
    Personal,
    /// What worked and what failed when doing a kind of task.
    Procedural,
    /// How a tool behaves and which arguments work.
    Tool,
    /// A free-form fact, optionally a subject–relation–object triple (an edge of the
    /// entity graph).
    Fact,
}

impl ItemKind {
    /// Every kind, in display order.
    pub const ALL: [ItemKind; 4] = [
        ItemKind::Personal,
        ItemKind::Procedural,
        ItemKind::Tool,
        ItemKind::Fact,
    ];

    /// The kind's name: `personal`, `procedural`, `tool` or `fact`.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Personal => "personal",
            ItemKind::Procedural => "procedural",
            ItemKind::Tool => "tool",
            ItemKind::Fact => "fact",
        }
    }

    /// The kind of a name, if it is one.
    pub fn parse(name: &str) -> Option<ItemKind> {
        ItemKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Where an item is in its life.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ItemStatus {
    /// Believed true now: searched, recalled and listed by default.
    #[default]
    Active,
    /// Replaced by a newer item that contradicted it (see [`ItemMeta::superseded_by`]).
    Superseded,
    /// Deleted by a caller; kept, with its history, until purged or its user is forgotten.
    Deleted,
    /// Past its time to live (see [`ItemMeta::expires_at`]).
    Expired,
}

impl ItemStatus {
    /// Every status.
    pub const ALL: [ItemStatus; 4] = [
        ItemStatus::Active,
        ItemStatus::Superseded,
        ItemStatus::Deleted,
        ItemStatus::Expired,
    ];

    /// The status's name.
    pub fn name(self) -> &'static str {
        match self {
            ItemStatus::Active => "active",
            ItemStatus::Superseded => "superseded",
            ItemStatus::Deleted => "deleted",
            ItemStatus::Expired => "expired",
        }
    }

    /// The status of a name, if it is one.
    pub fn parse(name: &str) -> Option<ItemStatus> {
        ItemStatus::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One earlier version of an item, as it was until `valid_until`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ItemVersion {
    pub version: u32,
    pub text: String,
    pub importance: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// When this version became valid (ms since the epoch).
    pub valid_from: i64,
    /// When it stopped being valid: the time of the change that replaced it.
    pub valid_until: i64,
}

/// What a resolution did to an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The item was created.
    Added,
    /// A new item said the same thing: one more corroboration and source.
    Corroborated,
    /// A caller (or an LLM merge) made a new version.
    Updated,
    /// A newer item contradicted this one and replaced it.
    Superseded,
    /// A newer item contradicted this one; both were kept and flagged.
    Flagged,
    /// An LLM merged a new item's content into this one as a new version.
    Merged,
    /// A caller deleted the item (softly).
    Deleted,
    /// Its time to live ran out.
    Expired,
}

impl Action {
    /// The action's name.
    pub fn name(self) -> &'static str {
        match self {
            Action::Added => "added",
            Action::Corroborated => "corroborated",
            Action::Updated => "updated",
            Action::Superseded => "superseded",
            Action::Flagged => "flagged",
            Action::Merged => "merged",
            Action::Deleted => "deleted",
            Action::Expired => "expired",
        }
    }
}

/// One logged step in an item's life: what happened, when, because of which other item or
/// turn, and who decided (`rule`, `llm` or `caller`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolution {
    pub at: i64,
    pub action: Action,
    /// The other item involved: the one that corroborated, superseded or conflicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other: Option<String>,
    /// The turn that caused it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `rule`, `llm` or `caller`.
    pub by: String,
    /// A short explanation, e.g. "same residence, new value".
    #[serde(default)]
    pub reason: String,
}

/// What makes a record an item (see the module docs). The text, user, importance, creation
/// time, sources (the parents) and vector are the record's own fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ItemMeta {
    pub kind: ItemKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// The kind of task a procedural item is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The tool a tool item is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub status: ItemStatus,
    /// 1 for a new item, one more for each update.
    pub version: u32,
    /// The time of the newest version (or of the status change).
    pub updated_at: i64,
    /// When the current version became valid.
    pub valid_from: i64,
    /// When the item stopped being valid (superseded, deleted or expired), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<i64>,
    /// How many times a later item said the same thing.
    pub corroborations: u32,
    /// How likely the item is true and lasting, 0 to 1: 1 for a caller's item, the rule's or
    /// the LLM's confidence for a learned one, raised by each corroboration (the chance that
    /// not every source is wrong: `1 − (1 − c)(1 − c_new)`). Recall's known section shows only
    /// items at or above `memdag_core::memory::MemoryConfig::recall_confidence`.
    pub confidence: f32,
    /// When a turn last said it (creation or corroboration).
    pub last_seen: i64,
    /// When the item expires (its time to live), if ever.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// The item that replaced this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The items this one replaced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    /// Active items this one contradicts, kept side by side under the keep-both strategy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// Earlier versions, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<ItemVersion>,
    /// Every resolution that touched the item, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<Resolution>,
}

impl Default for ItemMeta {
    fn default() -> Self {
        ItemMeta {
            kind: ItemKind::Fact,
            subject: None,
            relation: None,
            object: None,
            task: None,
            tool: None,
            status: ItemStatus::Active,
            version: 1,
            updated_at: 0,
            valid_from: 0,
            valid_until: None,
            corroborations: 0,
            confidence: 1.0,
            last_seen: 0,
            expires_at: None,
            superseded_by: None,
            supersedes: Vec::new(),
            conflicts: Vec::new(),
            history: Vec::new(),
            log: Vec::new(),
        }
    }
}

/// A long-term memory item as every face shows it: the record's own fields and its
/// [`ItemMeta`], flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryItem {
    pub id: String,
    pub user: String,
    pub text: String,
    pub importance: f32,
    pub created_at: i64,
    /// The turns it was learned from (its DAG parents).
    pub sources: Vec<String>,
    pub tags: Vec<String>,
    /// How often recall returned it.
    pub uses: u32,
    #[serde(flatten)]
    pub meta: ItemMeta,
}

/// What a caller gives to add an item. Everything but `kind` and `text` has a default.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NewItem {
    /// A caller-chosen id; when absent the store derives one (`m` + 16 hex digits).
    pub id: Option<String>,
    pub kind: Option<ItemKind>,
    pub user: String,
    pub text: String,
    pub subject: Option<String>,
    pub relation: Option<String>,
    pub object: Option<String>,
    pub task: Option<String>,
    pub tool: Option<String>,
    /// 0 to 1 (default 0.5).
    pub importance: Option<f32>,
    /// How likely it is true and lasting, 0 to 1 (default 1: a caller states it).
    pub confidence: Option<f32>,
    /// When it was said (ms since the epoch). Faces default it to the host clock.
    pub created_at: i64,
    /// The turns it was learned from; each must exist.
    pub sources: Vec<String>,
    pub tags: Vec<String>,
    /// A vector in the store's dimension; else the store's built-in embedder, if on.
    pub embedding: Option<Vec<f32>>,
    /// Time to live in ms from `created_at`; overrides the kind's default TTL.
    pub ttl_ms: Option<i64>,
}

/// A caller's change to an item: the fields given replace the current version's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ItemUpdate {
    pub text: Option<String>,
    pub subject: Option<String>,
    pub relation: Option<String>,
    pub object: Option<String>,
    pub task: Option<String>,
    pub tool: Option<String>,
    pub importance: Option<f32>,
    pub tags: Option<Vec<String>>,
    /// A vector for the new text.
    pub embedding: Option<Vec<f32>>,
    /// Time to live in ms from `at`; `0` removes the expiry.
    pub ttl_ms: Option<i64>,
    /// When the change happens (ms since the epoch). Faces default it to the host clock.
    pub at: i64,
}
