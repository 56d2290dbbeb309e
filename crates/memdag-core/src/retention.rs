//! Tool-output retention: a blob's own age and owners, and the blobs that outlive their use.
//!
//! A blob stored by [`Store::put_blob_for`] (as [`Store::prepare_begin`](crate::Store::prepare_begin)
//! stores a cut tool result) carries a [`BlobMeta`]: when it was last stored and for which
//! users. It is the document `blob-meta/<id>` (MessagePack), persisted with the store and
//! removed with the blob. So a blob referenced only from an agent's context messages, never
//! from a record, still has an age, and a model's `read_blob` tool can be kept to the user it
//! was stored for.
//!
//! [`Store::retain_blobs`] removes the blobs older than the memory setting `blobMaxAgeMs`
//! (default 7 days; `null` keeps them) that no live record references. A blob a record
//! references is part of that record's raw log: it stops ageing (its meta is dropped) and
//! goes when its records go ([`Store::delete`], [`Store::purge`]). Faces run retention at
//! `prepare` and after opening a store, with the host's clock; blobs stored before this
//! setting existed have no meta and are left to `purge`.

use std::collections::BTreeSet;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::blob::{meta_name, BlobPage, BLOB_META_PREFIX, MAX_READ_LINES};
use crate::codec::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::store::Store;

/// The default of the memory setting `blobMaxAgeMs`: a week.
pub const DEFAULT_BLOB_MAX_AGE_MS: i64 = 7 * 24 * 3600 * 1000;

/// When a blob was last stored, and for whom.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BlobMeta {
    /// The host's time (ms) of the newest store of this text.
    pub stored_at: i64,
    /// The users it was stored for, sorted; empty: stored without a user.
    pub users: Vec<String>,
}

impl Store {
    /// Stores `text` as a blob ([`Store::put_blob`]) and records that it was stored at `now`
    /// for `user` ([`BlobMeta`]), so that it ages from now and a tool call of that user may
    /// read it back.
    pub fn put_blob_for(
        &mut self,
        text: impl Into<String>,
        user: Option<&str>,
        now: i64,
    ) -> Result<String> {
        let id = self.put_blob(text)?;
        let mut meta = self.blob_meta(&id).unwrap_or_default();
        meta.stored_at = meta.stored_at.max(now);
        if let Some(u) = user {
            if let Err(at) = meta.users.binary_search_by(|x| x.as_str().cmp(u)) {
                meta.users.insert(at, u.into());
            }
        }
        self.put_state(&meta_name(&id), to_msgpack(&meta)?);
        Ok(id)
    }

    /// The metadata of a blob stored with [`Store::put_blob_for`], if it has any.
    pub fn blob_meta(&self, id: &str) -> Option<BlobMeta> {
        let name = meta_name(id);
        self.state(&name).and_then(|b| from_msgpack(&name, b).ok())
    }

    /// Removes the blobs whose own age at `now` is above the memory setting `blobMaxAgeMs` and
    /// that no live record references; returns their ids, sorted. A blob past its age that a
    /// record references loses its metadata instead: it lives as long as its records. Costs
    /// a look at each blob's metadata, and a scan of the records' texts only when a blob is
    /// past its age.
    pub fn retain_blobs(&mut self, now: i64) -> Result<Vec<String>> {
        let Some(max_age) = self.memory_config().blob_max_age_ms else {
            return Ok(Vec::new());
        };
        let cutoff = now.saturating_sub(max_age);
        let mut old: BTreeSet<String> = BTreeSet::new();
        for name in self.state_names(BLOB_META_PREFIX) {
            let id = &name[BLOB_META_PREFIX.len()..];
            let meta: BlobMeta = from_msgpack(name, self.state(name).unwrap_or_default())?;
            if meta.stored_at < cutoff {
                old.insert(id.into());
            }
        }
        if old.is_empty() {
            return Ok(Vec::new());
        }
        let mut referenced: BTreeSet<String> = BTreeSet::new();
        for r in self.iter() {
            for id in r.blob_references() {
                if old.contains(id) {
                    referenced.insert(id.into());
                }
            }
        }
        let mut removed = Vec::new();
        for id in old {
            if referenced.contains(&id) {
                self.remove_state(&meta_name(&id));
            } else {
                self.remove_blob(&id);
                removed.push(id);
            }
        }
        Ok(removed)
    }

    /// [`Store::read_blob`] for `user`: a named user reads a blob stored for them
    /// ([`Store::put_blob_for`]) or referenced by a record they may see; any other blob is
    /// [`Error::NotFound`], as if it did not exist, so a model cannot probe another user's
    /// tool output by id. `None` reads every blob.
    pub fn read_blob_as(
        &self,
        user: Option<&str>,
        id: &str,
        from_line: usize,
        max_lines: usize,
    ) -> Result<BlobPage> {
        let user = crate::scope::user_scope(user)?;
        if let Some(u) = user {
            let stored_for = self
                .blob_meta(id)
                .is_some_and(|m| m.users.iter().any(|x| x == u));
            let seen_by = || {
                self.iter()
                    .filter(|r| r.visible_to(Some(u)))
                    .any(|r| r.blob_references().any(|b| b == id))
            };
            if !stored_for && !seen_by() {
                return Err(Error::NotFound { id: id.into() });
            }
        }
        self.read_blob(id, from_line, max_lines.min(MAX_READ_LINES))
    }

    /// Takes `user` off the owners of every blob stored for them, and removes the blobs that
    /// were stored only for them and that no live record references. Returns the removed ids.
    pub(crate) fn forget_blob_owner(&mut self, user: &str) -> Result<Vec<String>> {
        let mut only_theirs = Vec::new();
        let names: Vec<String> = self
            .state_names(BLOB_META_PREFIX)
            .map(String::from)
            .collect();
        for name in names {
            let mut meta: BlobMeta = from_msgpack(&name, self.state(&name).unwrap_or_default())?;
            let Ok(at) = meta.users.binary_search_by(|x| x.as_str().cmp(user)) else {
                continue;
            };
            meta.users.remove(at);
            let id = String::from(&name[BLOB_META_PREFIX.len()..]);
            if meta.users.is_empty() {
                only_theirs.push(id);
            }
            self.put_state(&name, to_msgpack(&meta)?);
        }
        if only_theirs.is_empty() {
            return Ok(Vec::new());
        }
        let referenced: BTreeSet<&str> = self.iter().flat_map(|r| r.blob_references()).collect();
        let doomed: Vec<String> = only_theirs
            .into_iter()
            .filter(|id| !referenced.contains(id.as_str()))
            .collect();
        for id in &doomed {
            self.remove_blob(id);
        }
        Ok(doomed)
    }
}
