//! Erasure: forgetting a user, purging expired items and old tool outputs, and collecting the
//! blobs deleted records leave behind.
//!
//! [`Store::forget_user`] deletes every record of a user the way [`Store::delete`] does (so the
//! DAG is repaired and other users' records keep their ancestry), removes the blobs only those
//! records referenced, drops the index terms nothing uses any more, and makes the next change
//! set a full rewrite. A plain delete writes a tombstone and leaves the old bytes in an older
//! segment until a merge; a full rewrite writes every live entry into new keys and deletes
//! every old key, so once the host has written that change set no stored byte of the user is
//! left in any key.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::record::Record;
use crate::store::Store;

/// What [`Store::forget_user`] erased.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Forgotten {
    /// The ids of the deleted records (turns, then long-term items), oldest first.
    pub records: Vec<String>,
    /// The ids of the removed blobs.
    pub blobs: Vec<String>,
    /// The threads whose working memory was the user's and was removed.
    #[serde(default)]
    pub work: Vec<String>,
}

/// What [`Store::purge`] removes. Everything defaults to off.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PurgeQuery {
    /// The caller's clock (ms): items whose time to live ran out by then are removed.
    pub now: i64,
    /// Remove expired items (default true through faces; here, as given).
    pub expired: bool,
    /// Also remove superseded and deleted items (their history goes with them).
    pub ended: bool,
    /// Remove blobs (stored tool outputs) that every referencing record left behind more
    /// than this long before `now`, in ms.
    pub blob_max_age_ms: Option<i64>,
    /// Remove blobs that no live record references.
    pub unreferenced_blobs: bool,
}

/// What [`Store::purge`] removed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Purged {
    pub items: Vec<String>,
    pub blobs: Vec<String>,
}

impl Store {
    /// Erases every record of `user`, the blobs only they referenced, their index entries,
    /// working memories and running summaries.
    /// The DAG is repaired as [`Store::delete`] repairs it. The next change set rewrites the
    /// whole store, so no stored key keeps the user's bytes once it is written.
    ///
    /// [`Error::InvalidInput`] for an empty user (records without a user are not "a user";
    /// delete them by id).
    pub fn forget_user(&mut self, user: &str) -> Result<Forgotten> {
        if user.is_empty() {
            return Err(Error::invalid("forget_user needs a user name"));
        }
        let ids = self.ids_of_user(user);
        let removed = self.unlink_many(&ids)?;
        let mut blobs = self.drop_unreferenced_blobs(&removed);
        blobs.extend(self.forget_blob_owner(user)?);
        crate::sort::sort(&mut blobs);
        blobs.dedup();
        let mut work: Vec<String> = self
            .work_keys()
            .into_iter()
            .filter(|(owner, _)| owner == user)
            .map(|(_, thread)| thread)
            .collect();
        for t in &work {
            self.clear_work_of(user, t);
        }
        // A document from before working memory was per user may hold the user's changes
        // whoever it is read as.
        for legacy in self.legacy_work_of(user) {
            self.remove_state(&legacy);
            work.push(legacy[crate::work::WORK_PREFIX.len()..].into());
        }
        crate::sort::sort(&mut work);
        work.dedup();
        self.clear_running_summaries_of(user);
        self.search.text.purge_unused_terms();
        self.search.threads.purge_empty();
        self.persist.force_full_rewrite();
        Ok(Forgotten {
            records: ids,
            blobs,
            work,
        })
    }

    /// Removes expired long-term memory items (and, when asked, ended ones and old or
    /// unreferenced blobs) for good, so that once the next change set is written no byte of
    /// their text remains: like [`Store::forget_user`], it makes that change set a full
    /// rewrite. Items are removed as [`Store::delete`] removes records (the DAG repaired).
    pub fn purge(&mut self, q: &PurgeQuery) -> Result<Purged> {
        let mut doomed: Vec<String> = Vec::new();
        for slot in self.item_slots(None) {
            let Some(r) = self.slot(slot) else { continue };
            let Some(m) = &r.item else { continue };
            let expired = q.expired && crate::memory::crud::is_expired(m, Some(q.now));
            let ended = q.ended
                && matches!(
                    m.status,
                    crate::item::ItemStatus::Superseded | crate::item::ItemStatus::Deleted
                );
            if expired || ended {
                doomed.push(r.id.clone());
            }
        }
        let removed = self.unlink_many(&doomed)?;
        let mut blobs = self.drop_unreferenced_blobs(&removed);
        if q.blob_max_age_ms.is_some() || q.unreferenced_blobs {
            // The newest time a live record references each blob.
            let mut newest: std::collections::BTreeMap<String, i64> = Default::default();
            for r in self.iter() {
                for id in r.blob_references() {
                    let at = newest.entry(id.into()).or_insert(i64::MIN);
                    *at = (*at).max(r.created_at);
                }
            }
            let old: Vec<String> = self
                .blob_ids()
                .filter(|id| match newest.get(*id) {
                    None => q.unreferenced_blobs,
                    Some(&at) => q
                        .blob_max_age_ms
                        .is_some_and(|age| at < q.now.saturating_sub(age)),
                })
                .map(String::from)
                .collect();
            for id in &old {
                self.remove_blob(id);
            }
            blobs.extend(old);
        }
        if !doomed.is_empty() || !blobs.is_empty() {
            self.search.text.purge_unused_terms();
            self.persist.force_full_rewrite();
        }
        crate::sort::sort(&mut blobs);
        blobs.dedup();
        Ok(Purged {
            items: doomed,
            blobs,
        })
    }

    /// Unlinks every record of `ids` as [`Store::unlink`] does, but takes them out of the search
    /// index together: each posting list and the vector graph are edited once for all of
    /// them, not once per record (a 10k-item purge spent 80% of its time repairing the graph
    /// one delete at a time). All or nothing: an unknown id fails before anything changes.
    pub(crate) fn unlink_many(&mut self, ids: &[String]) -> Result<Vec<Record>> {
        let mut unique: BTreeSet<&str> = BTreeSet::new();
        for id in ids {
            if self.slot_of(id).is_none() {
                return Err(Error::NotFound { id: id.clone() });
            }
            if !unique.insert(id) {
                return Err(Error::invalid(alloc::format!("{id:?} is named twice")));
            }
        }
        let mut gone: Vec<(crate::Slot, Record)> = Vec::with_capacity(ids.len());
        for id in ids {
            gone.push(self.detach(id)?);
        }
        for node in self.search.remove_many(&gone) {
            self.dirty.mark(crate::dirty::Touched::Node(node));
        }
        Ok(gone.into_iter().map(|(_, r)| r).collect())
    }

    /// Removes the blobs that `removed` (records just deleted) referenced and no live record
    /// references. Returns their ids. Costs one scan of the live records' texts, and only when
    /// a removed record referenced a blob at all.
    pub(crate) fn drop_unreferenced_blobs(&mut self, removed: &[Record]) -> Vec<String> {
        let mut candidates: BTreeSet<String> = removed
            .iter()
            .flat_map(Record::blob_references)
            .filter(|id| self.blobs.contains_key(*id))
            .map(String::from)
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        for r in self.iter() {
            for id in r.blob_references() {
                candidates.remove(id);
            }
            if candidates.is_empty() {
                return Vec::new();
            }
        }
        for id in &candidates {
            self.remove_blob(id);
        }
        candidates.into_iter().collect()
    }
}
