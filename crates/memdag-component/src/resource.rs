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

use crate::bindings::exports::memdag::core::context::Message;
use crate::bindings::exports::memdag::core::memory::{
    self, Compactor, Embeddings, GuestStore, ToolResultLimits, ToolResults,
};
use crate::bindings::memdag::core::query::{
    GrepMatch, GrepQuery, Recall, RecallQuery, SearchHit, SearchQuery,
};
use crate::bindings::memdag::core::types::{Error, Forgotten, Limits, NewTurn, Record, Reindexed};
use crate::{convert, embed, persist};

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
        let user = user.unwrap_or_default();
        self.with_store(|s| {
            let found = s.walk_as(&user, &id, direction, depth as usize, limit as usize)?;
            Ok(convert::records(&found))
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
}

impl GuestStore for MemoryStore {
    fn open(
        prefix: Option<String>,
        embeddings: Embeddings,
        key: Option<Vec<u8>>,
    ) -> Result<memory::Store, Error> {
        let prefix = prefix.unwrap_or_default();
        persist::check_prefix(&prefix).map_err(|e| convert::error(&e))?;
        let cipher = key
            .map(|k| Cipher::new(&k))
            .transpose()
            .map_err(|e| convert::error(&e))?;
        let store = persist::load(&prefix, embeddings == Embeddings::Builtin, cipher.as_ref())
            .map_err(|e| convert::error(&e))?;
        Ok(memory::Store::new(MemoryStore {
            prefix,
            embeddings,
            cipher,
            state: RefCell::new(State::Ready(Box::new(store))),
            limits: Default::default(),
        }))
    }

    fn add_turn(&self, turn: NewTurn) -> Result<Record, Error> {
        let mut turns = [convert::new_turn(turn)];
        self.embed_turns(&mut turns)?;
        let [turn] = turns;
        self.mutate(|s| s.add_turn(turn).map(convert::record))
    }

    fn add_turns(&self, turns: Vec<NewTurn>) -> Result<Vec<Record>, Error> {
        let mut turns: Vec<_> = turns.into_iter().map(convert::new_turn).collect();
        self.embed_turns(&mut turns)?;
        let mut refused = None;
        self.mutate(|s| {
            let mut out = Vec::with_capacity(turns.len());
            for (i, turn) in turns.into_iter().enumerate() {
                let record = s.add_turn(turn).inspect_err(|_| refused = Some(i))?;
                out.push(convert::record(record));
            }
            Ok(out)
        })
        .map_err(|e| match refused {
            Some(i) => convert::with_context(e, &format!("turn {i}")),
            None => e,
        })
    }

    fn get(&self, id: String) -> Result<Option<Record>, Error> {
        self.with_store(|s| Ok(s.get(&id).map(convert::record)))
    }

    fn get_as(&self, user: String, id: String) -> Result<Option<Record>, Error> {
        self.with_store(|s| Ok(s.get_as(&user, &id).map(convert::record)))
    }

    fn recent(&self, thread: String, n: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| Ok(convert::records(&s.recent(&thread, n as usize))))
    }

    fn by_user(&self, user: String, n: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| Ok(convert::records(&s.by_user(&user, n as usize))))
    }

    fn ancestors(
        &self,
        id: String,
        depth: u32,
        limit: u32,
        user: Option<String>,
    ) -> Result<Vec<Record>, Error> {
        self.walk(id, Direction::Ancestors, depth, limit, user)
    }

    fn descendants(
        &self,
        id: String,
        depth: u32,
        limit: u32,
        user: Option<String>,
    ) -> Result<Vec<Record>, Error> {
        self.walk(id, Direction::Descendants, depth, limit, user)
    }

    fn forget_user(&self, user: String) -> Result<Forgotten, Error> {
        self.mutate(|s| {
            let gone = s.forget_user(&user)?;
            Ok(Forgotten {
                records: gone.records,
                blobs: gone.blobs,
            })
        })
    }

    fn reindex(&self, batch_size: Option<u32>) -> Result<Reindexed, Error> {
        let host = self.embeddings == Embeddings::Host;
        let batch = batch_size.map_or(memdag_core::reindex::DEFAULT_REINDEX_BATCH, |n| {
            n.max(1) as usize
        });
        self.mutate(|s| {
            let done = if host {
                s.reindex(batch, &mut |texts| embed::texts(texts), &mut |_| {})?
            } else {
                s.reindex_builtin()?
            };
            Ok(Reindexed {
                records: done.records as u64,
                previous_dimension: done.previous_dimension as u32,
                dimension: done.dimension as u32,
            })
        })
    }

    fn get_limits(&self) -> Result<Limits, Error> {
        self.with_store(|s| Ok(convert::limits_to_wit(s.limits())))
    }

    fn set_limits(&self, limits: Limits) -> Result<(), Error> {
        let limits = convert::limits_from_wit(&limits);
        self.with_store_mut(|s| s.set_limits(limits))?;
        self.limits.set(limits);
        Ok(())
    }

    fn search(&self, query: SearchQuery) -> Result<Vec<SearchHit>, Error> {
        let mut query = convert::query::search_query(query);
        if query.mode != memdag_core::search::SearchMode::Bm25 {
            self.embed_query(&query.text.clone(), &mut query.embedding)?;
        }
        self.with_store(|s| {
            let hits = s.search(&query)?;
            Ok(hits.into_iter().map(convert::query::search_hit).collect())
        })
    }

    fn grep(&self, query: GrepQuery) -> Result<Vec<GrepMatch>, Error> {
        let query = convert::query::grep_query(query);
        self.with_store(|s| {
            let found = s.grep(&query)?;
            Ok(found.into_iter().map(convert::query::grep_match).collect())
        })
    }

    fn recall(&self, query: RecallQuery) -> Result<Recall, Error> {
        let mut query = convert::query::recall_query(query);
        // The text recall matches, joined as the core joins it: keywords, then the query text.
        let mut text = query.keywords.join(" ");
        if let Some(t) = &query.query_text {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(t);
        }
        self.embed_query(&text, &mut query.embedding)?;
        self.mutate(|s| s.recall(&query).map(convert::query::recall))
    }

    fn compact(&self, id: String, compactor: Compactor) -> Result<Record, Error> {
        self.mutate(|s| match compactor {
            Compactor::Extractive => s.compact_extractive(&id).map(convert::record),
            Compactor::Llm => {
                let previous = s.get(&id).and_then(|r| r.compact.clone());
                s.compact_with(&id, previous.as_ref(), |prompt| {
                    crate::bindings::memdag::core::llm::complete(prompt)
                })
                .map(convert::record)
            }
        })
    }

    fn compaction_prompt(&self, id: String) -> Result<String, Error> {
        self.with_store(|s| {
            let previous = s.get(&id).and_then(|r| r.compact.as_ref());
            s.compaction_prompt(&id, previous)
        })
    }

    fn apply_compaction(&self, id: String, answer: String) -> Result<Record, Error> {
        self.mutate(|s| s.apply_compaction(&id, &answer).map(convert::record))
    }

    fn compact_tool_results(
        &self,
        messages: Vec<Message>,
        limits: ToolResultLimits,
    ) -> Result<ToolResults, Error> {
        let mut messages: Vec<_> = messages
            .into_iter()
            .map(convert::context::message)
            .collect();
        let limits = convert::context::limits(limits);
        let counter = memdag_core::tokens::TokenCounter::default();
        let blob_ids = self.mutate(|s| s.compact_tool_results(&counter, &mut messages, &limits))?;
        Ok(ToolResults {
            messages: messages
                .into_iter()
                .map(convert::context::message_out)
                .collect(),
            blob_ids,
        })
    }

    fn put_blob(&self, text: String) -> Result<String, Error> {
        self.mutate(|s| s.put_blob(text))
    }

    fn get_blob(&self, id: String) -> Result<Option<String>, Error> {
        self.with_store(|s| Ok(s.blob(&id).map(str::to_string)))
    }

    fn delete(&self, id: String) -> Result<Record, Error> {
        self.mutate(|s| s.delete(&id).map(|r| convert::record(&r)))
    }

    fn len(&self) -> Result<u64, Error> {
        self.with_store(|s| Ok(s.len() as u64))
    }

    fn export_snapshot(&self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        self.with_store(|s| s.snapshot())
    }

    fn import_snapshot(&self, entries: Vec<(String, Vec<u8>)>) -> Result<u64, Error> {
        let mut state = self.borrow()?;
        let builtin = self.embeddings == Embeddings::Builtin;
        match persist::import(&self.prefix, entries, builtin, self.cipher.as_ref()) {
            Ok(store) => {
                let n = store.len() as u64;
                *state = State::Ready(Box::new(store));
                Ok(n)
            }
            Err(e) => {
                if matches!(e, CoreError::Storage { .. }) {
                    *state = self.reload();
                }
                Err(convert::error(&e))
            }
        }
    }
}
