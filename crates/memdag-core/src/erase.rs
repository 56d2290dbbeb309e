//! Erasure: forgetting a user, and collecting the blobs deleted records leave behind.
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
    /// The ids of the deleted records, oldest first.
    pub records: Vec<String>,
    /// The ids of the removed blobs.
    pub blobs: Vec<String>,
}

impl Store {
    /// Erases every record of `user`, the blobs only they referenced, and their index entries.
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
        let mut removed = Vec::with_capacity(ids.len());
        for id in &ids {
            removed.push(self.unlink(id)?);
        }
        let blobs = self.drop_unreferenced_blobs(&removed);
        self.search.text.purge_unused_terms();
        self.search.threads.purge_empty();
        self.persist.force_full_rewrite();
        Ok(Forgotten {
            records: ids,
            blobs,
        })
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
