//! [`Memory`]: one open store inside one component instance.

use wasmtime::component::ResourceAny;
use wasmtime::Store;

use crate::bindings::exports::memdag::core::memory::GuestStore;
use crate::bindings::Memdag;
use crate::runtime::HostState;
use crate::{Error, NewTurn, Record};

/// An open memdag store. Every method is one call into the component; mutations are durable
/// in the [`crate::Kv`] when they return `Ok`. See `wit/memdag.wit` for each call's errors.
pub struct Memory {
    store: Store<HostState>,
    instance: Memdag,
    handle: ResourceAny,
}

impl Memory {
    pub(crate) fn open(
        mut store: Store<HostState>,
        instance: Memdag,
        prefix: Option<&str>,
    ) -> Result<Self, Error> {
        let handle = instance
            .memdag_core_memory()
            .store()
            .call_open(&mut store, prefix)??;
        Ok(Memory {
            store,
            instance,
            handle,
        })
    }

    /// Runs one method of the `store` resource.
    fn call<T>(
        &mut self,
        f: impl FnOnce(
            GuestStore<'_>,
            &mut Store<HostState>,
            ResourceAny,
        ) -> wasmtime::Result<Result<T, crate::MemoryError>>,
    ) -> Result<T, Error> {
        Ok(f(
            self.instance.memdag_core_memory().store(),
            &mut self.store,
            self.handle,
        )??)
    }

    /// Adds one turn; its parents must exist. Returns the stored record.
    pub fn add_turn(&mut self, turn: NewTurn) -> Result<Record, Error> {
        self.call(|s, st, h| s.call_add_turn(st, h, &turn))
    }

    /// The record with this id, or `None`.
    pub fn get(&mut self, id: &str) -> Result<Option<Record>, Error> {
        self.call(|s, st, h| s.call_get(st, h, id))
    }

    /// The `n` newest records of a thread, newest first.
    pub fn recent(&mut self, thread: &str, n: u32) -> Result<Vec<Record>, Error> {
        self.call(|s, st, h| s.call_recent(st, h, thread, n))
    }

    /// The `n` newest records of a user, newest first.
    pub fn by_user(&mut self, user: &str, n: u32) -> Result<Vec<Record>, Error> {
        self.call(|s, st, h| s.call_by_user(st, h, user, n))
    }

    /// The ancestors of `id`, breadth-first, nearest first.
    pub fn ancestors(&mut self, id: &str, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.call(|s, st, h| s.call_ancestors(st, h, id, depth, limit))
    }

    /// The descendants of `id`, breadth-first, nearest first.
    pub fn descendants(&mut self, id: &str, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.call(|s, st, h| s.call_descendants(st, h, id, depth, limit))
    }

    /// Deletes a record, re-parenting its children onto its parents. Returns it.
    pub fn delete(&mut self, id: &str) -> Result<Record, Error> {
        self.call(|s, st, h| s.call_delete(st, h, id))
    }

    /// The number of live records.
    pub fn len(&mut self) -> Result<u64, Error> {
        self.call(|s, st, h| s.call_len(st, h))
    }

    /// Whether the store holds no record.
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len()? == 0)
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // Everything is already durable; the instance is torn down with the store anyway.
        let _ = self.handle.resource_drop(&mut self.store);
    }
}
