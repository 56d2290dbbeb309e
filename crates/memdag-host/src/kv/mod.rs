//! The host side of the WIT `kv` import: a small, byte-oriented storage adapter.
//!
//! Adapters know nothing about what keys mean; the component decides the layout
//! (`meta`, `rec/<id>`). Semantics follow wasi-keyvalue: a missing key is `Ok(None)`,
//! `delete` is idempotent, and `put` is atomic and durable for its key when it returns.

mod dir;
mod escape;

use std::collections::BTreeMap;
use std::io;

pub use dir::DirKv;
pub use escape::{escape_key, unescape_name, MAX_NAME_LEN};

/// A key-value store the component writes through. One call is atomic for its key.
pub trait Kv: Send + 'static {
    /// The value of `key`, or `None` when absent.
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>>;
    /// Sets `key` to `value`, durably, replacing any old value.
    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()>;
    /// Removes `key`; removing an absent key is `Ok`.
    fn delete(&mut self, key: &str) -> io::Result<()>;
    /// Every key starting with `prefix`, with its value, sorted by key.
    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>>;
}

/// An in-memory [`Kv`], for tests and throwaway sessions. Never fails.
#[derive(Debug, Default, Clone)]
pub struct MemKv {
    /// The entries, sorted by key.
    pub entries: BTreeMap<String, Vec<u8>>,
}

impl Kv for MemKv {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        Ok(self.entries.get(key).cloned())
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        self.entries.insert(key.into(), value.to_vec());
        Ok(())
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        self.entries.remove(key);
        Ok(())
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        Ok(self
            .entries
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}

impl<K: Kv + ?Sized> Kv for Box<K> {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        (**self).get(key)
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        (**self).put(key, value)
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        (**self).delete(key)
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        (**self).list_by_prefix(prefix)
    }
}
