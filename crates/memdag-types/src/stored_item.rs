//! The on-disk form of an [`ItemMeta`]: its field and variant names in the storage format.
//!
//! [`ItemMeta`]'s own serde is the JSON shape every face shows (camelCase, see [`crate::item`]).
//! A record's item is stored under the names below instead, written out one by one, so that a
//! change to the JSON shape (a renamed JS property) never changes what is on disk, and a change
//! here is a storage-format change (a new version with its fixture). Today both use the same
//! names: the stores written before this module existed read unchanged.
//!
//! [`Record::item`](crate::Record::item) is (de)serialized through [`boxed`]. Writing borrows
//! the item; reading builds the owned mirror, then moves its fields over.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::item::{Action, ItemKind, ItemMeta, ItemStatus, ItemVersion, Resolution};

/// `#[serde(with = "stored_item::boxed")]` for `Option<Box<ItemMeta>>`.
pub mod boxed {
    use super::*;

    pub fn serialize<S: Serializer>(
        item: &Option<Box<ItemMeta>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        item.as_deref().map(MetaRef::from).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Box<ItemMeta>>, D::Error> {
        Ok(Option::<MetaOwned>::deserialize(deserializer)?.map(|m| Box::new(m.into())))
    }
}

#[derive(Clone, Copy, Serialize, Deserialize)]
enum StoredKind {
    #[serde(rename = "personal")]
    Personal,
    #[serde(rename = "procedural")]
    Procedural,
    #[serde(rename = "tool")]
    Tool,
    #[serde(rename = "fact")]
    Fact,
}

#[derive(Clone, Copy, Default, Serialize, Deserialize)]
enum StoredStatus {
    #[default]
    #[serde(rename = "active")]
    Active,
    #[serde(rename = "superseded")]
    Superseded,
    #[serde(rename = "deleted")]
    Deleted,
    #[serde(rename = "expired")]
    Expired,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
enum StoredAction {
    #[serde(rename = "added")]
    Added,
    #[serde(rename = "corroborated")]
    Corroborated,
    #[serde(rename = "updated")]
    Updated,
    #[serde(rename = "superseded")]
    Superseded,
    #[serde(rename = "flagged")]
    Flagged,
    #[serde(rename = "merged")]
    Merged,
    #[serde(rename = "deleted")]
    Deleted,
    #[serde(rename = "expired")]
    Expired,
}

/// Writes a `match` both ways between an item enum and its stored mirror.
macro_rules! mirror_enum {
    ($item:ident, $stored:ident, [$($v:ident),+]) => {
        impl From<$item> for $stored {
            fn from(x: $item) -> Self {
                match x { $($item::$v => $stored::$v),+ }
            }
        }
        impl From<$stored> for $item {
            fn from(x: $stored) -> Self {
                match x { $($stored::$v => $item::$v),+ }
            }
        }
    };
}
mirror_enum!(ItemKind, StoredKind, [Personal, Procedural, Tool, Fact]);
mirror_enum!(
    ItemStatus,
    StoredStatus,
    [Active, Superseded, Deleted, Expired]
);
mirror_enum!(
    Action,
    StoredAction,
    [
        Added,
        Corroborated,
        Updated,
        Superseded,
        Flagged,
        Merged,
        Deleted,
        Expired
    ]
);

#[derive(Serialize)]
struct VersionRef<'a> {
    #[serde(rename = "version")]
    version: u32,
    #[serde(rename = "text")]
    text: &'a str,
    #[serde(rename = "importance")]
    importance: f32,
    #[serde(rename = "subject", skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    #[serde(rename = "relation", skip_serializing_if = "Option::is_none")]
    relation: Option<&'a str>,
    #[serde(rename = "object", skip_serializing_if = "Option::is_none")]
    object: Option<&'a str>,
    #[serde(rename = "validFrom")]
    valid_from: i64,
    #[serde(rename = "validUntil")]
    valid_until: i64,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct VersionOwned {
    #[serde(rename = "version")]
    version: u32,
    #[serde(rename = "text")]
    text: String,
    #[serde(rename = "importance")]
    importance: f32,
    #[serde(rename = "subject")]
    subject: Option<String>,
    #[serde(rename = "relation")]
    relation: Option<String>,
    #[serde(rename = "object")]
    object: Option<String>,
    #[serde(rename = "validFrom")]
    valid_from: i64,
    #[serde(rename = "validUntil")]
    valid_until: i64,
}

#[derive(Serialize)]
struct ResolutionRef<'a> {
    #[serde(rename = "at")]
    at: i64,
    #[serde(rename = "action")]
    action: StoredAction,
    #[serde(rename = "other", skip_serializing_if = "Option::is_none")]
    other: Option<&'a str>,
    #[serde(rename = "source", skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(rename = "by")]
    by: &'a str,
    #[serde(rename = "reason")]
    reason: &'a str,
}

#[derive(Deserialize)]
struct ResolutionOwned {
    #[serde(rename = "at")]
    at: i64,
    #[serde(rename = "action")]
    action: StoredAction,
    #[serde(rename = "other", default)]
    other: Option<String>,
    #[serde(rename = "source", default)]
    source: Option<String>,
    #[serde(rename = "by")]
    by: String,
    #[serde(rename = "reason", default)]
    reason: String,
}

#[derive(Serialize)]
struct MetaRef<'a> {
    #[serde(rename = "kind")]
    kind: StoredKind,
    #[serde(rename = "subject", skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    #[serde(rename = "relation", skip_serializing_if = "Option::is_none")]
    relation: Option<&'a str>,
    #[serde(rename = "object", skip_serializing_if = "Option::is_none")]
    object: Option<&'a str>,
    #[serde(rename = "task", skip_serializing_if = "Option::is_none")]
    task: Option<&'a str>,
    #[serde(rename = "tool", skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    #[serde(rename = "status")]
    status: StoredStatus,
    #[serde(rename = "version")]
    version: u32,
    #[serde(rename = "updatedAt")]
    updated_at: i64,
    #[serde(rename = "validFrom")]
    valid_from: i64,
    #[serde(rename = "validUntil", skip_serializing_if = "Option::is_none")]
    valid_until: Option<i64>,
    #[serde(rename = "corroborations")]
    corroborations: u32,
    #[serde(rename = "confidence")]
    confidence: f32,
    #[serde(rename = "lastSeen")]
    last_seen: i64,
    #[serde(rename = "expiresAt", skip_serializing_if = "Option::is_none")]
    expires_at: Option<i64>,
    #[serde(rename = "supersededBy", skip_serializing_if = "Option::is_none")]
    superseded_by: Option<&'a str>,
    #[serde(rename = "supersedes", skip_serializing_if = "<[_]>::is_empty")]
    supersedes: &'a [String],
    #[serde(rename = "conflicts", skip_serializing_if = "<[_]>::is_empty")]
    conflicts: &'a [String],
    #[serde(rename = "history", skip_serializing_if = "Vec::is_empty")]
    history: Vec<VersionRef<'a>>,
    #[serde(rename = "log", skip_serializing_if = "Vec::is_empty")]
    log: Vec<ResolutionRef<'a>>,
}

#[derive(Deserialize)]
#[serde(default)]
struct MetaOwned {
    #[serde(rename = "kind")]
    kind: StoredKind,
    #[serde(rename = "subject")]
    subject: Option<String>,
    #[serde(rename = "relation")]
    relation: Option<String>,
    #[serde(rename = "object")]
    object: Option<String>,
    #[serde(rename = "task")]
    task: Option<String>,
    #[serde(rename = "tool")]
    tool: Option<String>,
    #[serde(rename = "status")]
    status: StoredStatus,
    #[serde(rename = "version")]
    version: u32,
    #[serde(rename = "updatedAt")]
    updated_at: i64,
    #[serde(rename = "validFrom")]
    valid_from: i64,
    #[serde(rename = "validUntil")]
    valid_until: Option<i64>,
    #[serde(rename = "corroborations")]
    corroborations: u32,
    #[serde(rename = "confidence")]
    confidence: f32,
    #[serde(rename = "lastSeen")]
    last_seen: i64,
    #[serde(rename = "expiresAt")]
    expires_at: Option<i64>,
    #[serde(rename = "supersededBy")]
    superseded_by: Option<String>,
    #[serde(rename = "supersedes")]
    supersedes: Vec<String>,
    #[serde(rename = "conflicts")]
    conflicts: Vec<String>,
    #[serde(rename = "history")]
    history: Vec<VersionOwned>,
    #[serde(rename = "log")]
    log: Vec<ResolutionOwned>,
}

impl Default for MetaOwned {
    /// The defaults of a field missing on disk: those of [`ItemMeta::default`].
    fn default() -> Self {
        MetaOwned {
            kind: StoredKind::Fact,
            subject: None,
            relation: None,
            object: None,
            task: None,
            tool: None,
            status: StoredStatus::Active,
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

impl<'a> From<&'a ItemMeta> for MetaRef<'a> {
    fn from(m: &'a ItemMeta) -> Self {
        MetaRef {
            kind: m.kind.into(),
            subject: m.subject.as_deref(),
            relation: m.relation.as_deref(),
            object: m.object.as_deref(),
            task: m.task.as_deref(),
            tool: m.tool.as_deref(),
            status: m.status.into(),
            version: m.version,
            updated_at: m.updated_at,
            valid_from: m.valid_from,
            valid_until: m.valid_until,
            corroborations: m.corroborations,
            confidence: m.confidence,
            last_seen: m.last_seen,
            expires_at: m.expires_at,
            superseded_by: m.superseded_by.as_deref(),
            supersedes: &m.supersedes,
            conflicts: &m.conflicts,
            history: m
                .history
                .iter()
                .map(|v| VersionRef {
                    version: v.version,
                    text: &v.text,
                    importance: v.importance,
                    subject: v.subject.as_deref(),
                    relation: v.relation.as_deref(),
                    object: v.object.as_deref(),
                    valid_from: v.valid_from,
                    valid_until: v.valid_until,
                })
                .collect(),
            log: m
                .log
                .iter()
                .map(|r| ResolutionRef {
                    at: r.at,
                    action: r.action.into(),
                    other: r.other.as_deref(),
                    source: r.source.as_deref(),
                    by: &r.by,
                    reason: &r.reason,
                })
                .collect(),
        }
    }
}

impl From<MetaOwned> for ItemMeta {
    fn from(m: MetaOwned) -> Self {
        ItemMeta {
            kind: m.kind.into(),
            subject: m.subject,
            relation: m.relation,
            object: m.object,
            task: m.task,
            tool: m.tool,
            status: m.status.into(),
            version: m.version,
            updated_at: m.updated_at,
            valid_from: m.valid_from,
            valid_until: m.valid_until,
            corroborations: m.corroborations,
            confidence: m.confidence,
            last_seen: m.last_seen,
            expires_at: m.expires_at,
            superseded_by: m.superseded_by,
            supersedes: m.supersedes,
            conflicts: m.conflicts,
            history: m
                .history
                .into_iter()
                .map(|v| ItemVersion {
                    version: v.version,
                    text: v.text,
                    importance: v.importance,
                    subject: v.subject,
                    relation: v.relation,
                    object: v.object,
                    valid_from: v.valid_from,
                    valid_until: v.valid_until,
                })
                .collect(),
            log: m
                .log
                .into_iter()
                .map(|r| Resolution {
                    at: r.at,
                    action: r.action.into(),
                    other: r.other,
                    source: r.source,
                    by: r.by,
                    reason: r.reason,
                })
                .collect(),
        }
    }
}
