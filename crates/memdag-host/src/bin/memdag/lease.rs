//! A store directory locked only while a request runs: the kv of `memdag mcp`.
//!
//! A server lives as long as its client, hours or days. Holding the writer's lock for that
//! long made every other command on the store (even `search`) and a second server fail with
//! `BUSY`. So the server's [`memdag_host::Memory`] writes through a [`LeasedKv`], which reaches
//! the directory only while a [`Lease`] holds it: the writer's lock for a tool call (a tool
//! may write), a reader's for listing and reading resources, nothing in between. A call
//! outside a lease fails instead of touching the directory unlocked.
//!
//! While the lock was not held another process may have written the store; its commit,
//! `head`, then differs from the one the server last saw, and the server reloads before it
//! answers (see [`Lease::head`]).

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use memdag_host::{DirKv, Kv};

type Slot = Arc<Mutex<Option<DirKv>>>;

/// The right to use a store directory, taken per request.
pub struct Lease {
    dir: PathBuf,
    slot: Slot,
}

/// The [`Kv`] of a leased directory: every call goes to the [`DirKv`] of the lease held.
pub struct LeasedKv {
    slot: Slot,
}

fn locked(slot: &Slot) -> MutexGuard<'_, Option<DirKv>> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Lease {
    /// A lease on `dir`, not held yet.
    pub fn new(dir: PathBuf) -> Self {
        Lease {
            dir,
            slot: Arc::new(Mutex::new(None)),
        }
    }

    /// The kv to open the store with.
    pub fn kv(&self) -> LeasedKv {
        LeasedKv {
            slot: self.slot.clone(),
        }
    }

    /// Takes the directory's writer's lock (`write`) or a reader's, for one request. Fails with
    /// the directory's `BUSY` error while another process holds what this needs.
    pub fn hold(&self, write: bool) -> io::Result<()> {
        let kv = if write {
            DirKv::open(&self.dir)?
        } else {
            DirKv::open_read_only(&self.dir)?
        };
        *locked(&self.slot) = Some(kv);
        Ok(())
    }

    /// Ends the request: the lock goes.
    pub fn release(&self) {
        *locked(&self.slot) = None;
    }

    /// The store's commit as stored now (read under the lease): when it is not the one the
    /// server last saw, another process wrote the store.
    pub fn head(&self) -> io::Result<Option<Vec<u8>>> {
        self.kv().get(memdag_core::keys::HEAD_KEY)
    }
}

impl LeasedKv {
    fn with<T>(&mut self, f: impl FnOnce(&mut DirKv) -> io::Result<T>) -> io::Result<T> {
        match locked(&self.slot).as_mut() {
            Some(kv) => f(kv),
            None => Err(io::Error::other(
                "the store is used outside a request (its lock is not held)",
            )),
        }
    }
}

impl Kv for LeasedKv {
    fn get(&mut self, key: &str) -> io::Result<Option<Vec<u8>>> {
        self.with(|kv| kv.get(key))
    }

    fn put(&mut self, key: &str, value: &[u8]) -> io::Result<()> {
        self.with(|kv| kv.put(key, value))
    }

    fn delete(&mut self, key: &str) -> io::Result<()> {
        self.with(|kv| kv.delete(key))
    }

    fn list_by_prefix(&mut self, prefix: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        self.with(|kv| kv.list_by_prefix(prefix))
    }
}
