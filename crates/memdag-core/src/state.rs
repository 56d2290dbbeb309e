//! Named internal documents: small values the store keeps beside its records.
//!
//! A thread's working memory (`work/<thread>`, see `crate::work`) and the long-term memory
//! settings (`memory/config`, see `crate::memory`) are documents: a name and MessagePack bytes
//! that the owning module encodes and decodes. They are persisted in the STATE section of a
//! segment (see [`crate::segment`]); a removed one leaves a tombstone in GONE_STATE. The
//! storage engine treats them as opaque, as it treats blobs, and rewrites only the documents
//! that changed.

use alloc::string::String;
use alloc::vec::Vec;

use crate::dirty::Touched;
use crate::store::Store;

impl Store {
    /// Stores document `name`, replacing any earlier value.
    pub(crate) fn put_state(&mut self, name: &str, value: Vec<u8>) {
        if self.state.get(name) != Some(&value) {
            self.state.insert(name.into(), value);
            self.dirty.mark(Touched::State(name.into()));
        }
    }

    /// The bytes of document `name`, if there is one.
    pub(crate) fn state(&self, name: &str) -> Option<&[u8]> {
        self.state.get(name).map(Vec::as_slice)
    }

    /// Removes document `name`. Returns whether there was one.
    pub(crate) fn remove_state(&mut self, name: &str) -> bool {
        let removed = self.state.remove(name).is_some();
        if removed {
            self.dirty.mark(Touched::State(name.into()));
        }
        removed
    }

    /// The names of the documents that start with `prefix`, in order.
    pub(crate) fn state_names<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> {
        self.state
            .range::<str, _>((
                core::ops::Bound::Included(prefix),
                core::ops::Bound::Unbounded,
            ))
            .map(|(k, _)| k.as_str())
            .take_while(move |k| k.starts_with(prefix))
    }
}

/// The name of a document under `prefix`, e.g. `work/` + a thread name.
pub(crate) fn name(prefix: &str, key: &str) -> String {
    let mut n = String::with_capacity(prefix.len() + key.len());
    n.push_str(prefix);
    n.push_str(key);
    n
}
