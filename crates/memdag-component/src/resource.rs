//! The exported `store` resource: a core [`Store`] in a `RefCell`, written through `kv`.
//!
//! Exported resources take `&self`, so the store sits in a `RefCell`. A call that finds it
//! already borrowed (a re-entrant call) gets `BUSY` as an invalid-input error, never a panic.
//!
//! # Persistence
//! After every mutation the core's change set is written through `kv` in the core's order
//! (puts before deletes, records before `meta`). `kv` is the source of truth: if a write fails,
//! the store is reloaded from `kv` so that memory equals what was durably written, and the
//! call returns a storage error. If the reload fails as well, the store is marked stale and
//! every later call retries the reload first.

use std::cell::RefCell;

use memdag_core::codec::{BLOB_PREFIX, RECORD_PREFIX};
use memdag_core::{Change, Error as CoreError, Store};

use crate::bindings::exports::memdag::core::memory::{self, GuestStore};
use crate::bindings::memdag::core::kv;
use crate::bindings::memdag::core::types::{Error, NewTurn, Record};
use crate::convert;

/// The state behind one `store` handle.
enum State {
    /// In memory and equal to what `kv` holds.
    Ready(Box<Store>),
    /// The last reload from `kv` failed with this error; retry before any call.
    Stale(CoreError),
}

/// The Rust type of the WIT `store` resource.
pub struct MemoryStore {
    /// Prepended to every core key to form the `kv` key.
    prefix: String,
    state: RefCell<State>,
}

impl MemoryStore {
    /// Borrows the state, reloading it first when stale; `BUSY` on a re-entrant call.
    fn borrow(&self) -> Result<std::cell::RefMut<'_, State>, Error> {
        let mut state = self
            .state
            .try_borrow_mut()
            .map_err(|_| convert::error(&CoreError::Busy))?;
        if let State::Stale(_) = &*state {
            *state = reload(&self.prefix);
        }
        Ok(state)
    }

    /// Runs a query on the ready store.
    fn with_store<T>(&self, f: impl FnOnce(&Store) -> Result<T, CoreError>) -> Result<T, Error> {
        match &*self.borrow()? {
            State::Ready(store) => f(store).map_err(|e| convert::error(&e)),
            State::Stale(e) => Err(convert::error(e)),
        }
    }

    /// Runs a mutation, then writes its change set through `kv`.
    ///
    /// The change set is written even when `f` fails, in case a refused call left changes
    /// (the core promises it does not). On a failed write the store is reloaded from `kv`.
    fn mutate<T>(&self, f: impl FnOnce(&mut Store) -> Result<T, CoreError>) -> Result<T, Error> {
        let mut state = self.borrow()?;
        let store = match &mut *state {
            State::Ready(store) => store,
            State::Stale(e) => return Err(convert::error(e)),
        };
        let outcome = f(store);
        if let Err(failed) = store
            .take_changes()
            .and_then(|changes| write(&self.prefix, &changes))
        {
            *state = reload(&self.prefix);
            return Err(convert::error(&failed));
        }
        outcome.map_err(|e| convert::error(&e))
    }
}

impl GuestStore for MemoryStore {
    fn open(prefix: Option<String>) -> Result<memory::Store, Error> {
        let prefix = prefix.unwrap_or_default();
        check_prefix(&prefix).map_err(|e| convert::error(&e))?;
        let store = load(&prefix).map_err(|e| convert::error(&e))?;
        Ok(memory::Store::new(MemoryStore {
            prefix,
            state: RefCell::new(State::Ready(Box::new(store))),
        }))
    }

    fn add_turn(&self, turn: NewTurn) -> Result<Record, Error> {
        let turn = convert::new_turn(turn);
        self.mutate(|s| s.add_turn(turn).map(convert::record))
    }

    fn get(&self, id: String) -> Result<Option<Record>, Error> {
        self.with_store(|s| Ok(s.get(&id).map(convert::record)))
    }

    fn recent(&self, thread: String, n: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| Ok(convert::records(&s.recent(&thread, n as usize))))
    }

    fn by_user(&self, user: String, n: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| Ok(convert::records(&s.by_user(&user, n as usize))))
    }

    fn ancestors(&self, id: String, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| {
            Ok(convert::records(&s.ancestors(
                &id,
                depth as usize,
                limit as usize,
            )?))
        })
    }

    fn descendants(&self, id: String, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| {
            Ok(convert::records(&s.descendants(
                &id,
                depth as usize,
                limit as usize,
            )?))
        })
    }

    fn delete(&self, id: String) -> Result<Record, Error> {
        self.mutate(|s| s.delete(&id).map(|r| convert::record(&r)))
    }

    fn len(&self) -> Result<u64, Error> {
        self.with_store(|s| Ok(s.len() as u64))
    }
}

/// The namespaces of the core's own keys (see `memdag_core::codec`). A prefix starting with
/// one would put a store's keys among those of the unprefixed store in the same `kv`.
const CORE_NAMESPACES: [&str; 3] = [RECORD_PREFIX, BLOB_PREFIX, "idx/"];

/// A prefix is empty, or ends with `/` and does not start with a core namespace.
fn check_prefix(prefix: &str) -> Result<(), CoreError> {
    if prefix.is_empty() {
        return Ok(());
    }
    if !prefix.ends_with('/') {
        return Err(CoreError::invalid(format!(
            "prefix {prefix:?} must end with '/'"
        )));
    }
    if let Some(ns) = CORE_NAMESPACES.iter().find(|ns| prefix.starts_with(*ns)) {
        return Err(CoreError::invalid(format!(
            "prefix {prefix:?} must not start with {ns:?}, a namespace of memdag's own keys"
        )));
    }
    if prefix.chars().any(char::is_control) {
        return Err(CoreError::invalid(
            "prefix must not contain control characters",
        ));
    }
    Ok(())
}

/// The state after (re)loading from `kv`: ready, or stale with the reason.
fn reload(prefix: &str) -> State {
    match load(prefix) {
        Ok(store) => State::Ready(Box::new(store)),
        Err(e) => State::Stale(e),
    }
}

/// Loads the store under `prefix` from `kv`. Errors name the full `kv` key.
fn load(prefix: &str) -> Result<Store, CoreError> {
    let entries = kv::list_by_prefix(prefix).map_err(|message| CoreError::Storage {
        message: format!("kv list-by-prefix {prefix:?}: {message}"),
    })?;
    let entries = entries.into_iter().filter_map(|(key, value)| {
        // The host promises the prefix; anything else is not ours.
        key.strip_prefix(prefix).map(|k| (k.to_string(), value))
    });
    Store::load(entries).map_err(|e| match e {
        CoreError::CorruptData { key, reason } => CoreError::CorruptData {
            key: format!("{prefix}{key}"),
            reason,
        },
        CoreError::UnsupportedVersion {
            key,
            found,
            supported,
        } => CoreError::UnsupportedVersion {
            key: format!("{prefix}{key}"),
            found,
            supported,
        },
        other => other,
    })
}

/// Writes a change set through `kv`, in order, stopping at the first failure.
fn write(prefix: &str, changes: &[Change]) -> Result<(), CoreError> {
    for change in changes {
        let key = format!("{prefix}{}", change.key);
        let outcome = match &change.value {
            Some(value) => kv::put(&key, value).map_err(|m| format!("kv put {key:?}: {m}")),
            None => kv::delete(&key).map_err(|m| format!("kv delete {key:?}: {m}")),
        };
        outcome.map_err(|message| CoreError::Storage { message })?;
    }
    Ok(())
}
