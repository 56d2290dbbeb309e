//! [`Memory`]: one open store inside one component instance, renewed after a trap.
//!
//! Every method is one call into the component, armed with the runtime's [`crate::Limits`]. When a
//! call traps (a limit, or a guest bug), Wasmtime never enters that instance again: the
//! memory throws it away, instantiates the component afresh on the same kv and plug-ins, and
//! reopens the store, which then holds exactly what the old instance had durably written.
//! The failed call returns the trap as [`Error::Limit`] or [`Error::Runtime`].

use wasmtime::component::ResourceAny;
use wasmtime::Store;

use crate::bindings::exports::memdag::core::memory::{Embeddings, GuestStore};
use crate::bindings::memdag::core::types::Damage;
use crate::bindings::Memdag;
use crate::instance::{new_store, HostState, Instantiator};
use crate::limits::classify;
use crate::{Error, MemoryError};

/// A live instance with its open store.
struct Live {
    store: Store<HostState>,
    instance: Memdag,
    handle: ResourceAny,
}

/// An open memdag store. Every method is one call into the component; mutations are durable
/// in the [`crate::Kv`] when they return `Ok`. See `wit/memory.wit` for each call's errors.
pub struct Memory {
    maker: Instantiator,
    prefix: Option<String>,
    embeddings: Embeddings,
    /// The key of an encrypted store, given again to every fresh instance.
    key: Option<Vec<u8>>,
    /// `None` only between a trap and a successful renewal.
    live: Option<Live>,
    /// The host state of a trapped instance whose renewal failed; renewal is retried.
    spare: Option<HostState>,
    /// Opened salvaging (see [`crate::OpenOptions::salvage`]): what the first open lost.
    salvage: bool,
    damage: Option<Damage>,
}

impl Memory {
    pub(crate) fn open(
        maker: Instantiator,
        state: HostState,
        prefix: Option<String>,
        embeddings: Embeddings,
        key: Option<Vec<u8>>,
        salvage: bool,
    ) -> Result<Self, Error> {
        let mut memory = Memory {
            maker,
            prefix,
            embeddings,
            key,
            live: None,
            spare: None,
            salvage,
            damage: None,
        };
        memory.live = Some(memory.start(state)?);
        Ok(memory)
    }

    /// What a salvaging open skipped and lost (see [`crate::OpenOptions::salvage`]); `None`
    /// for a store opened plainly.
    pub fn damage(&self) -> Option<&Damage> {
        self.damage.as_ref()
    }

    /// Instantiates the component on `state` and opens the store.
    fn start(&mut self, state: HostState) -> Result<Live, Error> {
        let mut store = new_store(&self.maker.engine, state);
        let limits = self.maker.limits;
        let opened = (|| -> wasmtime::Result<_> {
            limits.arm(&mut store)?;
            let instance = self.maker.pre.instantiate(&mut store)?;
            limits.arm(&mut store)?;
            let store_api = instance.memdag_core_memory().store();
            let (prefix, key) = (self.prefix.as_deref(), self.key.as_deref());
            let handle = if self.salvage {
                store_api
                    .call_open_salvaging(&mut store, prefix, self.embeddings, key)?
                    .map(|(handle, damage)| {
                        // A renewal after a trap opens again, and keeps the first report.
                        self.damage.get_or_insert(damage);
                        handle
                    })
            } else {
                store_api.call_open(&mut store, prefix, self.embeddings, key)?
            };
            Ok((instance, handle))
        })();
        match opened {
            Ok((instance, Ok(handle))) => Ok(Live {
                store,
                instance,
                handle,
            }),
            Ok((_, Err(e))) => Err(Error::Memory(e)),
            Err(e) => {
                let error = trap_error(e, &mut store);
                self.spare = Some(store.into_data().renewed());
                Err(error)
            }
        }
    }

    /// The live instance, renewing it first after a trap.
    fn live(&mut self) -> Result<&mut Live, Error> {
        if self.live.is_none() {
            let state = self.spare.take().ok_or_else(|| {
                Error::Runtime(wasmtime::format_err!("memdag instance lost its host state"))
            })?;
            self.live = Some(self.start(state)?);
        }
        Ok(self.live.as_mut().expect("set above"))
    }

    /// Opens the store again from its kv, in a fresh instance with the same kv and plug-ins:
    /// for a host that knows another process changed what the kv holds (its `head`).
    pub fn reload(&mut self) -> Result<(), Error> {
        if let Some(mut live) = self.live.take() {
            let _ = live.handle.resource_drop(&mut live.store);
            self.spare = Some(live.store.into_data().renewed());
        }
        self.live().map(|_| ())
    }

    /// Runs one call into the instance under the limits. On a trap the instance is dropped
    /// and its host state kept for the next call's renewal.
    pub(crate) fn call<T>(
        &mut self,
        f: impl FnOnce(&Memdag, &mut Store<HostState>, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        let limits = self.maker.limits;
        let live = self.live()?;
        let outcome = limits
            .arm(&mut live.store)
            .and_then(|()| f(&live.instance, &mut live.store, live.handle));
        match outcome {
            Ok(v) => Ok(v),
            Err(e) => {
                let mut live = self.live.take().expect("live during a call");
                let error = trap_error(e, &mut live.store);
                self.spare = Some(live.store.into_data().renewed());
                Err(error)
            }
        }
    }

    /// Runs one method of the `store` resource.
    pub(crate) fn store_call<T>(
        &mut self,
        f: impl FnOnce(
            GuestStore<'_>,
            &mut Store<HostState>,
            ResourceAny,
        ) -> wasmtime::Result<Result<T, MemoryError>>,
    ) -> Result<T, Error> {
        Ok(self.call(|i, s, h| f(i.memdag_core_memory().store(), s, h))??)
    }
}

/// The error of a failed call: a limit when the trap shows one, else the runtime error.
fn trap_error(e: wasmtime::Error, store: &mut Store<HostState>) -> Error {
    match classify(&e, &mut store.data_mut().limiter) {
        Some(kind) => Error::Limit {
            kind,
            message: format!("{e:#}"),
        },
        None => Error::Runtime(e),
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // Everything is already durable; the instance is torn down with the store anyway.
        if let Some(live) = &mut self.live {
            let _ = live.handle.resource_drop(&mut live.store);
        }
    }
}
