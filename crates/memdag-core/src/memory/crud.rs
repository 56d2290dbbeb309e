//! Items one by one: get, update (a new version), soft delete, history, list, and the log.
//!
//! Adding goes through [`super::learn`] (dedup and conflicts); the raw insertion here,
//! `Store::insert_item`, validates everything first and changes nothing on an error.

use std::collections::BTreeSet;
use std::format;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::dirty::Touched;
use crate::error::{Error, Result};
use crate::hash::Fnv;
use crate::item::{
    Action, ItemKind, ItemMeta, ItemStatus, ItemUpdate, ItemVersion, MemoryItem, NewItem,
    Resolution,
};
use crate::record::{Record, DEFAULT_IMPORTANCE, MAX_ID_LEN};
use crate::store::Store;
use memdag_types::Slot;

/// How a listing is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemOrder {
    /// By creation time (the default).
    #[default]
    Created,
    /// By the time of the newest version or status change.
    Updated,
    Importance,
    /// By how often recall returned the item.
    Uses,
}

/// Which items a listing returns, and in what order. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ItemQuery {
    /// Only what this user may see: their own items and those tagged `shared`.
    pub user: Option<String>,
    /// Only these kinds; empty: every kind.
    pub kinds: Vec<ItemKind>,
    pub task: Option<String>,
    pub tool: Option<String>,
    /// Only these statuses; empty: active only (unless `all`).
    pub statuses: Vec<ItemStatus>,
    /// Every status.
    pub all: bool,
    /// Only items created at or after this time (ms) ...
    pub since: Option<i64>,
    /// ... and before this one.
    pub until: Option<i64>,
    /// The items as they were valid at this time, each in the version valid then (see
    /// [`Store::item_history`]). Implies the statuses of that time.
    pub as_of: Option<i64>,
    /// The caller's clock: items whose time to live ran out by then count as expired.
    pub now: Option<i64>,
    pub order: ItemOrder,
    /// Oldest (smallest) first instead of newest (largest) first.
    pub ascending: bool,
    /// At most this many (default 100, at most 10,000) ...
    pub limit: usize,
    /// ... after skipping this many.
    pub offset: usize,
}

impl Default for ItemQuery {
    fn default() -> Self {
        ItemQuery {
            user: None,
            kinds: Vec::new(),
            task: None,
            tool: None,
            statuses: Vec::new(),
            all: false,
            since: None,
            until: None,
            as_of: None,
            now: None,
            order: ItemOrder::Created,
            ascending: false,
            limit: 100,
            offset: 0,
        }
    }
}

/// The most items one listing returns.
pub const MAX_LIST: usize = 10_000;

/// One version in an item's history: the item's own earlier versions and current one, and
/// those of the items it superseded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    /// The item the version belongs to.
    pub id: String,
    pub version: u32,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    pub importance: f32,
    pub valid_from: i64,
    /// When it stopped being valid; absent while it is.
    pub valid_until: Option<i64>,
    /// The status the version ended with (`active` while it is valid).
    pub status: ItemStatus,
}

/// Which resolutions [`Store::resolutions`] returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResolutionQuery {
    pub user: Option<String>,
    /// Only this item's.
    pub item: Option<String>,
    /// Only these actions; empty: all.
    pub actions: Vec<Action>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// At most this many, newest first (default 100).
    pub limit: Option<usize>,
}

/// A resolution with the item it is logged on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggedResolution {
    pub item: String,
    #[serde(flatten)]
    pub resolution: Resolution,
}

impl Store {
    /// The item with this id, or `None` (also for a turn's id).
    pub fn item(&self, id: &str) -> Option<MemoryItem> {
        self.slot_of(id).and_then(|s| self.item_view(s))
    }

    /// [`Store::item`] if `user` may see it (their own, or tagged `shared`); `None` is
    /// store-wide. [`Error::InvalidInput`] for an empty or blank user ([`crate::scope`]).
    pub fn item_as(&self, user: Option<&str>, id: &str) -> Result<Option<MemoryItem>> {
        Ok(self
            .get_as(user, id)?
            .and_then(|_| self.slot_of(id))
            .and_then(|s| self.item_view(s)))
    }

    /// The item in `slot` as faces show it.
    pub(crate) fn item_view(&self, slot: Slot) -> Option<MemoryItem> {
        let r = self.slot(slot)?;
        let meta = r.item.clone()?;
        Some(MemoryItem {
            id: r.id.clone(),
            user: r.user.clone(),
            text: r.input.clone(),
            importance: r.importance,
            created_at: r.created_at,
            sources: r.parents.clone(),
            tags: r.tags.clone(),
            uses: self.access.get(&slot).copied().unwrap_or(0),
            meta: *meta,
        })
    }

    /// Validates a new item and stores it with `meta` as it is (no dedup, no conflicts):
    /// the text must not be empty, every source must exist and be a turn or an item of the
    /// same user, the limits hold. Returns its slot. Nothing changes on an error.
    pub(crate) fn insert_item(&mut self, new: NewItem, meta: ItemMeta) -> Result<Slot> {
        self.insert_item_with(new, meta, false)
    }

    /// [`Store::insert_item`]; with `restore`, `meta` is kept as it is (an import), else its
    /// times and triple come from `new`.
    pub(crate) fn insert_item_with(
        &mut self,
        new: NewItem,
        mut meta: ItemMeta,
        restore: bool,
    ) -> Result<Slot> {
        if new.text.trim().is_empty() {
            return Err(Error::invalid("an item needs a text"));
        }
        self.limits().check_item(&new)?;
        let importance = new.importance.unwrap_or(DEFAULT_IMPORTANCE);
        if !(0.0..=1.0).contains(&importance) {
            return Err(Error::invalid(format!(
                "importance must be in 0..=1, got {importance}"
            )));
        }
        if new.ttl_ms.is_some_and(|t| t <= 0) {
            return Err(Error::invalid("ttlMs must be positive"));
        }
        let confidence = new.confidence.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&confidence) {
            return Err(Error::invalid(format!(
                "confidence must be in 0..=1, got {confidence}"
            )));
        }
        let mut sources: Vec<String> = Vec::with_capacity(new.sources.len());
        let mut seen = BTreeSet::new();
        for s in &new.sources {
            if seen.insert(s.as_str()) {
                sources.push(s.clone());
            }
        }
        let missing: Vec<String> = sources
            .iter()
            .filter(|s| self.slot_of(s).is_none())
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Error::UnknownParents { ids: missing });
        }
        if let Some(e) = &new.embedding {
            if e.is_empty() || e.iter().any(|x| !x.is_finite()) {
                return Err(Error::invalid("embedding must be non-empty and finite"));
            }
        }
        let seq = self.next_seq;
        let id = match &new.id {
            Some(id) => {
                if id.is_empty() || id.len() > MAX_ID_LEN || id.chars().any(char::is_control) {
                    return Err(Error::invalid(format!(
                        "id must be 1 to {MAX_ID_LEN} bytes without control characters"
                    )));
                }
                if self.slot_of(id).is_some() {
                    return Err(Error::DuplicateId { id: id.clone() });
                }
                id.clone()
            }
            None => self.derive_item_id(&new, seq),
        };
        if !restore {
            let ttl = new
                .ttl_ms
                .or_else(|| self.memory_config().ttl_ms.get(&meta.kind).copied());
            meta.expires_at = ttl.map(|t| new.created_at.saturating_add(t));
            meta.confidence = confidence;
            meta.updated_at = new.created_at;
            meta.valid_from = new.created_at;
            meta.last_seen = new.created_at;
            meta.subject = new.subject;
            meta.relation = new.relation;
            meta.object = new.object;
            meta.task = new.task;
            meta.tool = new.tool;
        }
        let mut record = Record {
            id: id.clone(),
            seq,
            thread: String::new(),
            user: new.user,
            created_at: new.created_at,
            input: new.text,
            output: String::new(),
            steps: Vec::new(),
            parents: sources,
            tags: new.tags,
            importance,
            compact: None,
            embedding: new.embedding,
            item: Some(Box::new(meta)),
        };
        let vector = self.search.admit(&mut record)?;
        let slot = self.insert(record);
        if let Some(r) = self.slots[slot as usize].as_ref() {
            for node in self.search.add(slot, r, vector.as_deref(), &self.slots) {
                self.dirty.mark(Touched::Node(node));
            }
        }
        self.next_seq += 1;
        self.dirty.mark(Touched::Counters);
        self.dirty.mark(Touched::Record(id));
        Ok(slot)
    }

    /// `m` and 16 hex digits of a hash of the item and its sequence number.
    fn derive_item_id(&self, new: &NewItem, seq: u64) -> String {
        let mut salt = 0u64;
        loop {
            let mut h = Fnv::new();
            h.write(new.user.as_bytes());
            h.write_u8(0xff);
            h.write(new.text.as_bytes());
            h.write(&seq.to_le_bytes());
            h.write(&salt.to_le_bytes());
            let id = format!("m{:016x}", h.finish());
            if self.slot_of(&id).is_none() {
                return id;
            }
            salt += 1;
        }
    }

    /// The slot of a live item, else [`Error::NotFound`].
    pub(crate) fn item_slot(&self, id: &str) -> Result<Slot> {
        self.slot_of(id)
            .filter(|&s| self.slot(s).is_some_and(Record::is_item))
            .ok_or_else(|| Error::NotFound { id: id.into() })
    }

    /// Makes a new version of an item from the fields `update` gives; the version it replaces
    /// goes to the history with `valid_until = update.at`. A superseded, deleted or expired
    /// item can be updated too: it stays in its status. [`Error::NotFound`] for an unknown id.
    pub fn update_item(&mut self, id: &str, update: ItemUpdate) -> Result<MemoryItem> {
        let slot = self.item_slot(id)?;
        let check = NewItem {
            text: update.text.clone().unwrap_or_else(|| "x".into()),
            subject: update.subject.clone(),
            relation: update.relation.clone(),
            object: update.object.clone(),
            task: update.task.clone(),
            tool: update.tool.clone(),
            tags: update.tags.clone().unwrap_or_default(),
            embedding: update.embedding.clone(),
            ..NewItem::default()
        };
        self.limits().check_item(&check)?;
        if update.text.as_ref().is_some_and(|t| t.trim().is_empty()) {
            return Err(Error::invalid("an item needs a text"));
        }
        if let Some(i) = update.importance {
            if !(0.0..=1.0).contains(&i) {
                return Err(Error::invalid(format!(
                    "importance must be in 0..=1, got {i}"
                )));
            }
        }
        if update.ttl_ms.is_some_and(|t| t < 0) {
            return Err(Error::invalid("ttlMs must not be negative"));
        }
        let at = update.at;
        let vector = update.embedding.clone();
        self.change_record(slot, vector, |r| {
            new_version(r, at);
            let meta = r.item.as_mut().expect("an item");
            if let Some(t) = update.text {
                r.input = t;
            }
            let set = |field: &mut Option<String>, value: Option<String>| {
                if let Some(v) = value {
                    *field = (!v.is_empty()).then_some(v);
                }
            };
            set(&mut meta.subject, update.subject);
            set(&mut meta.relation, update.relation);
            set(&mut meta.object, update.object);
            set(&mut meta.task, update.task);
            set(&mut meta.tool, update.tool);
            if let Some(i) = update.importance {
                r.importance = i;
            }
            if let Some(tags) = update.tags {
                r.tags = tags;
            }
            match update.ttl_ms {
                Some(0) => meta.expires_at = None,
                Some(t) => meta.expires_at = Some(at.saturating_add(t)),
                None => {}
            }
            meta.log.push(Resolution {
                at,
                action: Action::Updated,
                other: None,
                source: None,
                by: "caller".into(),
                reason: String::new(),
            });
        })?;
        Ok(self.item_view(slot).expect("live item"))
    }

    /// Deletes an item softly: it keeps its history and stays listable with its status
    /// `deleted`, but leaves search and recall. Idempotent. [`Error::NotFound`] for an unknown
    /// id. [`Store::delete`] removes an item for good.
    pub fn delete_item(&mut self, id: &str, at: i64) -> Result<MemoryItem> {
        let slot = self.item_slot(id)?;
        self.set_status(slot, ItemStatus::Deleted, at, None, "caller", "")?;
        Ok(self.item_view(slot).expect("live item"))
    }

    /// Ends the validity of an item with `status` at `at`, logging why.
    pub(crate) fn set_status(
        &mut self,
        slot: Slot,
        status: ItemStatus,
        at: i64,
        other: Option<String>,
        by: &str,
        reason: &str,
    ) -> Result<()> {
        let current = self
            .slot(slot)
            .and_then(|r| r.item.as_ref())
            .map(|m| m.status);
        if current == Some(status) {
            return Ok(());
        }
        let action = match status {
            ItemStatus::Superseded => Action::Superseded,
            ItemStatus::Deleted => Action::Deleted,
            ItemStatus::Expired => Action::Expired,
            ItemStatus::Active => Action::Updated,
        };
        self.change_record(slot, None, |r| {
            let meta = r.item.as_mut().expect("an item");
            meta.status = status;
            meta.updated_at = at;
            meta.valid_until = (status != ItemStatus::Active).then_some(at);
            if status == ItemStatus::Superseded {
                meta.superseded_by.clone_from(&other);
            }
            meta.log.push(Resolution {
                at,
                action,
                other,
                source: None,
                by: by.into(),
                reason: reason.into(),
            });
        })
    }

    /// Every version of an item, oldest first: those of the items it superseded (and theirs,
    /// at most 64 deep), then its own earlier versions, then its current one.
    pub fn item_history(&self, id: &str) -> Result<Vec<HistoryEntry>> {
        let slot = self.item_slot(id)?;
        let mut chain = Vec::new();
        let mut seen = BTreeSet::new();
        self.collect_history(slot, &mut chain, &mut seen, 0);
        chain.sort_by_key(|e| (e.valid_from, e.version));
        Ok(chain)
    }

    /// [`Store::item_history`] of an item `user` may see, with only the versions of items
    /// they may see; `None` is store-wide. [`Error::NotFound`] for an item they may not see,
    /// [`Error::InvalidInput`] for an empty or blank user ([`crate::scope`]).
    pub fn item_history_as(&self, user: Option<&str>, id: &str) -> Result<Vec<HistoryEntry>> {
        if self.item_as(user, id)?.is_none() {
            return Err(Error::NotFound { id: id.into() });
        }
        let mut chain = self.item_history(id)?;
        chain.retain(|e| self.get(&e.id).is_some_and(|r| r.visible_to(user)));
        Ok(chain)
    }

    fn collect_history(
        &self,
        slot: Slot,
        out: &mut Vec<HistoryEntry>,
        seen: &mut BTreeSet<Slot>,
        depth: usize,
    ) {
        if depth > 64 || !seen.insert(slot) {
            return;
        }
        let Some(r) = self.slot(slot) else { return };
        let Some(meta) = &r.item else { return };
        for v in &meta.history {
            out.push(HistoryEntry {
                id: r.id.clone(),
                version: v.version,
                text: v.text.clone(),
                subject: v.subject.clone(),
                relation: v.relation.clone(),
                object: v.object.clone(),
                importance: v.importance,
                valid_from: v.valid_from,
                valid_until: Some(v.valid_until),
                status: ItemStatus::Active,
            });
        }
        out.push(HistoryEntry {
            id: r.id.clone(),
            version: meta.version,
            text: r.input.clone(),
            subject: meta.subject.clone(),
            relation: meta.relation.clone(),
            object: meta.object.clone(),
            importance: r.importance,
            valid_from: meta.valid_from,
            valid_until: meta.valid_until,
            status: meta.status,
        });
        for old in &meta.supersedes {
            if let Some(s) = self.slot_of(old) {
                self.collect_history(s, out, seen, depth + 1);
            }
        }
    }

    /// The items a query selects (see [`ItemQuery`]).
    pub fn list_items(&self, q: &ItemQuery) -> Result<Vec<MemoryItem>> {
        if q.limit == 0 || q.limit > MAX_LIST {
            return Err(Error::invalid(format!("limit must be 1 to {MAX_LIST}")));
        }
        crate::scope::user_scope(q.user.as_deref())?;
        let mut picked: Vec<MemoryItem> = Vec::new();
        for slot in self.item_slots(q.user.as_deref()) {
            let Some(r) = self.slot(slot) else { continue };
            if !r.visible_to(q.user.as_deref()) {
                continue;
            }
            let item = match q.as_of {
                Some(t) => match self.as_of_view(slot, t) {
                    Some(item) => item,
                    None => continue,
                },
                None => match self.item_view(slot) {
                    Some(mut item) => {
                        if is_expired(&item.meta, q.now) {
                            item.meta.status = ItemStatus::Expired;
                        }
                        item
                    }
                    None => continue,
                },
            };
            let status_ok = q.all
                || if q.statuses.is_empty() {
                    item.meta.status == ItemStatus::Active
                } else {
                    q.statuses.contains(&item.meta.status)
                };
            let keep = status_ok
                && (q.kinds.is_empty() || q.kinds.contains(&item.meta.kind))
                && q.task
                    .as_ref()
                    .is_none_or(|t| item.meta.task.as_ref() == Some(t))
                && q.tool
                    .as_ref()
                    .is_none_or(|t| item.meta.tool.as_ref() == Some(t))
                && q.since.is_none_or(|s| item.created_at >= s)
                && q.until.is_none_or(|u| item.created_at < u);
            if keep {
                picked.push(item);
            }
        }
        let key = |i: &MemoryItem| -> (f64, i64) {
            match q.order {
                ItemOrder::Created => (i.created_at as f64, i.created_at),
                ItemOrder::Updated => (i.meta.updated_at as f64, i.created_at),
                ItemOrder::Importance => (f64::from(i.importance), i.created_at),
                ItemOrder::Uses => (f64::from(i.uses), i.created_at),
            }
        };
        picked.sort_by(|a, b| {
            let order = key(a)
                .0
                .total_cmp(&key(b).0)
                .then(key(a).1.cmp(&key(b).1))
                .then_with(|| a.id.cmp(&b.id));
            if q.ascending {
                order
            } else {
                order.reverse()
            }
        });
        Ok(picked.into_iter().skip(q.offset).take(q.limit).collect())
    }

    /// The slots of `user`'s items (every item when `None`), oldest first. Items tagged
    /// `shared` of other users come after, for a named user.
    pub(crate) fn item_slots(&self, user: Option<&str>) -> Vec<Slot> {
        let mut out: Vec<Slot> = Vec::new();
        match user {
            Some(u) if !u.is_empty() => {
                if let Some(set) = self.items_by_user.get(u) {
                    out.extend(set.iter().map(|c| c.2));
                }
                for (other, set) in &self.items_by_user {
                    if other != u {
                        out.extend(set.iter().map(|c| c.2).filter(|&s| {
                            self.slot(s).is_some_and(|r| {
                                r.tags.iter().any(|t| t == crate::record::SHARED_TAG)
                            })
                        }));
                    }
                }
            }
            _ => {
                for set in self.items_by_user.values() {
                    out.extend(set.iter().map(|c| c.2));
                }
                out.sort_unstable();
            }
        }
        out
    }

    /// The item in `slot` as it was valid at `t`, or `None` if it was not valid then.
    pub(crate) fn as_of_view(&self, slot: Slot, t: i64) -> Option<MemoryItem> {
        let mut item = self.item_view(slot)?;
        if item.created_at > t {
            return None;
        }
        let m = &item.meta;
        if m.valid_from <= t {
            let ended =
                m.valid_until.is_some_and(|u| u <= t) || m.expires_at.is_some_and(|e| e <= t);
            if ended {
                return None;
            }
            item.meta.status = ItemStatus::Active;
            item.meta.valid_until = None;
            return Some(item);
        }
        let v = m
            .history
            .iter()
            .find(|v| v.valid_from <= t && t < v.valid_until)?
            .clone();
        item.text = v.text;
        item.importance = v.importance;
        item.meta.version = v.version;
        item.meta.subject = v.subject;
        item.meta.relation = v.relation;
        item.meta.object = v.object;
        item.meta.valid_from = v.valid_from;
        item.meta.valid_until = None;
        item.meta.status = ItemStatus::Active;
        Some(item)
    }

    /// The logged resolutions a query selects, newest first.
    pub fn resolutions(&self, q: &ResolutionQuery) -> Result<Vec<LoggedResolution>> {
        let limit = q.limit.unwrap_or(100);
        if limit == 0 || limit > MAX_LIST {
            return Err(Error::invalid(format!("limit must be 1 to {MAX_LIST}")));
        }
        crate::scope::user_scope(q.user.as_deref())?;
        let slots = match &q.item {
            Some(id) => std::vec![self.item_slot(id)?],
            None => self.item_slots(q.user.as_deref()),
        };
        let mut out = Vec::new();
        for slot in slots {
            let Some(r) = self.slot(slot) else { continue };
            if !r.visible_to(q.user.as_deref()) {
                continue;
            }
            for res in r.item.iter().flat_map(|m| &m.log) {
                let keep = (q.actions.is_empty() || q.actions.contains(&res.action))
                    && q.since.is_none_or(|s| res.at >= s)
                    && q.until.is_none_or(|u| res.at < u);
                if keep {
                    out.push(LoggedResolution {
                        item: r.id.clone(),
                        resolution: res.clone(),
                    });
                }
            }
        }
        out.sort_by(|a, b| {
            b.resolution
                .at
                .cmp(&a.resolution.at)
                .then_with(|| a.item.cmp(&b.item))
        });
        out.truncate(limit);
        Ok(out)
    }
}

/// Whether an item's time to live has run out at `now`.
pub(crate) fn is_expired(meta: &ItemMeta, now: Option<i64>) -> bool {
    meta.status == ItemStatus::Expired
        || matches!((meta.expires_at, now), (Some(e), Some(n)) if e <= n)
}

/// Moves an item's current version to its history, valid until `at`, and starts the next.
pub(crate) fn new_version(r: &mut Record, at: i64) {
    let meta = r.item.as_mut().expect("an item");
    meta.history.push(ItemVersion {
        version: meta.version,
        text: r.input.clone(),
        importance: r.importance,
        subject: meta.subject.clone(),
        relation: meta.relation.clone(),
        object: meta.object.clone(),
        valid_from: meta.valid_from,
        valid_until: at,
    });
    meta.version += 1;
    meta.valid_from = at;
    meta.updated_at = at;
}
