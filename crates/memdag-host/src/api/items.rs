//! Long-term memory items through [`Memory`]: add, get, update, delete, history, listing,
//! the resolution log, the settings, extraction (rules or the host LLM) and purge. See
//! `wit/memory.wit` for each call's errors.

use crate::bindings::memdag::core::items::{
    ExtractQuery, ExtractReport, HistoryEntry, ItemQuery, ItemUpdate, Learned, LoggedResolution,
    MemoryConfig, MemoryItem, NewItem, PurgeQuery, Purged, ResolutionQuery,
};
use crate::{Error, Memory};

impl Memory {
    /// Adds an item through deduplication and conflicts: it may corroborate or supersede an
    /// active one (see [`Learned::outcome`]).
    pub fn add_item(&mut self, item: &NewItem) -> Result<Learned, Error> {
        self.store_call(|s, st, h| s.call_add_item(st, h, item))
    }

    /// The item with this id, or `None`.
    pub fn get_item(&mut self, id: &str) -> Result<Option<MemoryItem>, Error> {
        self.store_call(|s, st, h| s.call_get_item(st, h, id, None))
    }

    /// The item with this id if `user` may see it (their own, or tagged `shared`).
    pub fn get_item_as(&mut self, user: &str, id: &str) -> Result<Option<MemoryItem>, Error> {
        self.store_call(|s, st, h| s.call_get_item(st, h, id, Some(user)))
    }

    /// Makes a new version of an item; the one it replaces goes to its history.
    pub fn update_item(&mut self, id: &str, update: &ItemUpdate) -> Result<MemoryItem, Error> {
        self.store_call(|s, st, h| s.call_update_item(st, h, id, update))
    }

    /// Deletes an item softly at `at` (status `deleted`, history kept). Idempotent.
    pub fn delete_item(&mut self, id: &str, at: i64) -> Result<MemoryItem, Error> {
        self.store_call(|s, st, h| s.call_delete_item(st, h, id, at))
    }

    /// Every version of an item and of those it superseded, oldest first.
    pub fn item_history(&mut self, id: &str) -> Result<Vec<HistoryEntry>, Error> {
        self.store_call(|s, st, h| s.call_item_history(st, h, id, None))
    }

    /// The history of an item `user` may see, with only the versions of items they may see.
    pub fn item_history_as(&mut self, user: &str, id: &str) -> Result<Vec<HistoryEntry>, Error> {
        self.store_call(|s, st, h| s.call_item_history(st, h, id, Some(user)))
    }

    /// The items a query selects (see [`crate::item_query`] for the defaults).
    pub fn list_items(&mut self, query: &ItemQuery) -> Result<Vec<MemoryItem>, Error> {
        self.store_call(|s, st, h| s.call_list_items(st, h, query))
    }

    /// The logged resolutions a query selects, newest first.
    pub fn resolutions(&mut self, query: &ResolutionQuery) -> Result<Vec<LoggedResolution>, Error> {
        self.store_call(|s, st, h| s.call_resolutions(st, h, query))
    }

    /// The long-term memory settings.
    pub fn memory_config(&mut self) -> Result<MemoryConfig, Error> {
        self.store_call(|s, st, h| s.call_get_memory_config(st, h))
    }

    /// Sets and persists the long-term memory settings.
    pub fn set_memory_config(&mut self, config: &MemoryConfig) -> Result<(), Error> {
        self.store_call(|s, st, h| s.call_set_memory_config(st, h, config))
    }

    /// What the rules would learn from the turns a query names (a dry run).
    pub fn propose(&mut self, query: &ExtractQuery) -> Result<Vec<NewItem>, Error> {
        self.store_call(|s, st, h| s.call_propose(st, h, query))
    }

    /// Learns items from turns by the rules (English and Chinese, no LLM).
    pub fn extract(&mut self, query: &ExtractQuery) -> Result<ExtractReport, Error> {
        self.store_call(|s, st, h| s.call_extract(st, h, query))
    }

    /// Learns items from turns through the LLM plugged in with [`crate::OpenOptions::llm`],
    /// batch by batch: a fact that breaks the contract is refused alone
    /// ([`ExtractReport::refused`]), a failed call or an answer refused whole has the rules
    /// learn from that batch ([`ExtractReport::by_rules`]); [`ExtractReport::llm`] counts the
    /// calls and tokens. Errors: `HOST` when no LLM is plugged in (nothing is learned);
    /// otherwise those of [`Memory::extract`].
    pub fn extract_with_llm(&mut self, query: &ExtractQuery) -> Result<ExtractReport, Error> {
        self.store_call(|s, st, h| {
            if !st.data().has_llm() {
                return Ok(Err(no_llm()));
            }
            s.call_extract_with_llm(st, h, query)
        })
    }

    /// Removes expired (and, if asked, ended) items and old or unreferenced blobs for good,
    /// rewriting the whole store.
    pub fn purge(&mut self, query: &PurgeQuery) -> Result<Purged, Error> {
        self.store_call(|s, st, h| s.call_purge(st, h, *query))
    }
}

/// The error of an LLM pass on a host with no LLM.
fn no_llm() -> crate::MemoryError {
    crate::MemoryError {
        code: crate::ErrorCode::Host,
        message: "no LLM is plugged into this host: learn by the rules (extract) or plug one in"
            .into(),
        key: None,
        ids: Vec::new(),
    }
}
