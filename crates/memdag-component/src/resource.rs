//! The exported `store` resource: a core [`Store`] in a `RefCell`, written through `kv`.
//!
//! Exported resources take `&self`, so the store sits in a `RefCell`. A call that finds it
//! already borrowed (a re-entrant call) gets `BUSY` as an invalid-input error, never a panic.
//!
//! # Persistence
//! After every mutation the core's change set is written through `kv` (see [`persist`]).
//! `kv` is the source of truth: if a write fails, the store is reloaded from `kv` so that
//! memory equals what was durably written, and the call returns a storage error. If the
//! reload fails as well, the store is marked stale and every later call retries the reload
//! first. A mutation the core refuses is also followed by a reload when it left changes
//! behind (`add-turns` refused halfway), so that a refused call never writes anything.

use std::cell::RefCell;

use memdag_core::{Cipher, Direction, Error as CoreError, Store};

use crate::bindings::exports::memdag::core::memory::Embeddings;
use crate::bindings::memdag::core::query::SearchQuery;
use crate::bindings::memdag::core::types::{Error, Record};
use crate::{convert, embed, persist};

mod guest;
mod pipeline;

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
    embeddings: Embeddings,
    /// Seals and opens every value when the store is encrypted at rest.
    cipher: Option<Cipher>,
    state: RefCell<State>,
    /// The limits set by `set-limits`, applied again whenever the store is reloaded.
    limits: std::cell::Cell<memdag_core::Limits>,
}

impl MemoryStore {
    /// The state after (re)loading from `kv`: ready, or stale with the reason.
    fn reload(&self) -> State {
        let builtin = self.embeddings == Embeddings::Builtin;
        match persist::load(&self.prefix, builtin, self.cipher.as_ref()) {
            Ok(mut store) => match store.set_limits(self.limits.get()) {
                Ok(()) => State::Ready(Box::new(store)),
                Err(e) => State::Stale(e),
            },
            Err(e) => State::Stale(e),
        }
    }

    /// Borrows the state, reloading it first when stale; `BUSY` on a re-entrant call.
    fn borrow(&self) -> Result<std::cell::RefMut<'_, State>, Error> {
        let mut state = self
            .state
            .try_borrow_mut()
            .map_err(|_| convert::error(&CoreError::Busy))?;
        if let State::Stale(_) = &*state {
            *state = self.reload();
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

    /// Changes the ready store without writing anything (settings that are not stored).
    fn with_store_mut<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, CoreError>,
    ) -> Result<T, Error> {
        match &mut *self.borrow()? {
            State::Ready(store) => f(store).map_err(|e| convert::error(&e)),
            State::Stale(e) => Err(convert::error(e)),
        }
    }

    /// A DAG walk, kept to what `user` may see when one is named.
    fn walk(
        &self,
        id: String,
        direction: Direction,
        depth: u32,
        limit: u32,
        user: Option<String>,
    ) -> Result<Vec<Record>, Error> {
        self.with_store(|s| {
            let found = s.walk_as(
                user.as_deref(),
                &id,
                direction,
                depth as usize,
                limit as usize,
            )?;
            Ok(convert::records(s, &found))
        })
    }

    /// Runs a mutation, then writes its change set through `kv`.
    ///
    /// A refused mutation (`f` fails) writes nothing: if it left changes in memory, the store
    /// is reloaded from `kv` instead. On a failed write the store is reloaded from `kv` too.
    fn mutate<T>(&self, f: impl FnOnce(&mut Store) -> Result<T, CoreError>) -> Result<T, Error> {
        let mut state = self.borrow()?;
        let store = match &mut *state {
            State::Ready(store) => store,
            State::Stale(e) => return Err(convert::error(e)),
        };
        let outcome = f(store);
        if outcome.is_err() {
            if store.has_changes() {
                *state = self.reload();
            }
        } else if let Err(failed) = store
            .take_changes()
            .and_then(|changes| persist::write(&self.prefix, &changes))
        {
            *state = self.reload();
            return Err(convert::error(&failed));
        }
        outcome.map_err(|e| convert::error(&e))
    }

    /// Gives turns without an embedding one from the host's embedder, when asked to.
    fn embed_turns(&self, turns: &mut [memdag_core::NewTurn]) -> Result<(), Error> {
        if self.embeddings == Embeddings::Host {
            embed::turns(turns).map_err(|e| convert::error(&e))?;
        }
        Ok(())
    }

    /// The host's vector of a query text, when asked to and none is given.
    fn embed_query(&self, text: &str, given: &mut Option<Vec<f32>>) -> Result<(), Error> {
        if self.embeddings == Embeddings::Host && given.is_none() && !text.trim().is_empty() {
            *given = Some(embed::text(text).map_err(|e| convert::error(&e))?);
        }
        Ok(())
    }

    /// Embeds a core turn if asked to, then adds it.
    fn add_core_turn(&self, turn: memdag_core::NewTurn) -> Result<Record, Error> {
        let mut turns = [turn];
        self.embed_turns(&mut turns)?;
        let [turn] = turns;
        self.mutate(|s| {
            let added = s.add_turn(turn).map(|r| r.id.clone());
            convert::changed(s, added)
        })
    }

    /// A WIT search query as the core's, with the host's vector of its text when asked to.
    fn core_search(&self, query: SearchQuery) -> Result<memdag_core::search::SearchQuery, Error> {
        let mut query = convert::query::search_query(query);
        if self.embeddings == Embeddings::Host && query.wants_vector() {
            query.embedding = Some(embed::text(&query.text).map_err(|e| convert::error(&e))?);
        }
        Ok(query)
    }
}

/// The host's `llm` as the core calls it: its failure is a host error.
fn llm(prompt: &str) -> Result<String, CoreError> {
    crate::bindings::memdag::core::llm::complete(prompt).map_err(|message| CoreError::Host {
        message: format!("LLM call failed: {message}"),
    })
}
