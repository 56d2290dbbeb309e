//! The methods of [`Memory`], one per WIT function; see `wit/memory.wit` and
//! `wit/context.wit` for what each does and its errors. Turns, search, recall, compaction and
//! the context tools are here; long-term memory items in [`items`], working memory, the
//! timeline and the entity graph in [`work`], the tools and the store-less helpers (the JSON
//! turn shape, durations, timestamps) in [`tools`].

mod items;
mod tools;
mod work;

use crate::bindings::exports::memdag::core::context::{
    BlobPage, ContextCheck, Message, PrepareOptions, Prepared, ToolResultCut, ToolResultLimits,
};
use crate::bindings::exports::memdag::core::memory::{
    Compactor, FinishOptions, Finished, ToolResults,
};
use crate::bindings::memdag::core::query::{
    Encoding, GrepMatch, GrepQuery, Recall, RecallQuery, SearchHit, SearchQuery,
};
use crate::bindings::memdag::core::types::{
    Added, Forgotten, Group, Imported, Limits as TurnLimits, LoadWarning, Reindexed,
};
use crate::{Error, Memory, NewTurn, Record};

impl Memory {
    /// Adds one turn; its parents must exist. Returns the stored record.
    pub fn add_turn(&mut self, turn: NewTurn) -> Result<Record, Error> {
        self.store_call(|s, st, h| s.call_add_turn(st, h, &turn))
    }

    /// Adds turns in order, all or nothing; a turn may name an earlier one as a parent.
    pub fn add_turns(&mut self, turns: &[NewTurn]) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_add_turns(st, h, turns))
    }

    /// The record with this id, or `None`.
    pub fn get(&mut self, id: &str) -> Result<Option<Record>, Error> {
        self.store_call(|s, st, h| s.call_get(st, h, id))
    }

    /// The record with this id if `user` may see it (their own, or shared), else `None`.
    pub fn get_as(&mut self, user: &str, id: &str) -> Result<Option<Record>, Error> {
        self.store_call(|s, st, h| s.call_get_as(st, h, user, id))
    }

    /// The `n` newest records of a thread, newest first.
    pub fn recent(&mut self, thread: &str, n: u32) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_recent(st, h, thread, n, None))
    }

    /// The `n` newest records of a thread that `user` may see, newest first.
    pub fn recent_as(&mut self, user: &str, thread: &str, n: u32) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_recent(st, h, thread, n, Some(user)))
    }

    /// The `n` newest records of a user, newest first.
    pub fn by_user(&mut self, user: &str, n: u32) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_by_user(st, h, user, n))
    }

    /// The ancestors of `id`, breadth-first, nearest first.
    pub fn ancestors(&mut self, id: &str, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_ancestors(st, h, id, depth, limit, None))
    }

    /// The descendants of `id`, breadth-first, nearest first.
    pub fn descendants(&mut self, id: &str, depth: u32, limit: u32) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_descendants(st, h, id, depth, limit, None))
    }

    /// The ancestors of `id` that `user` may see (their own and shared records); `id` must
    /// be one of them.
    pub fn ancestors_as(
        &mut self,
        user: &str,
        id: &str,
        depth: u32,
        limit: u32,
    ) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_ancestors(st, h, id, depth, limit, Some(user)))
    }

    /// The descendants of `id` that `user` may see. See [`Memory::ancestors_as`].
    pub fn descendants_as(
        &mut self,
        user: &str,
        id: &str,
        depth: u32,
        limit: u32,
    ) -> Result<Vec<Record>, Error> {
        self.store_call(|s, st, h| s.call_descendants(st, h, id, depth, limit, Some(user)))
    }

    /// Erases a user's records, blobs and index entries, and rewrites the store.
    pub fn forget_user(&mut self, user: &str) -> Result<Forgotten, Error> {
        self.store_call(|s, st, h| s.call_forget_user(st, h, user))
    }

    /// Embeds every record again (the store's embedder: the host's in calls of `batch_size`
    /// texts, default 64, else the built-in one), so the dimension can change; all or nothing.
    pub fn reindex(&mut self, batch_size: Option<u32>) -> Result<Reindexed, Error> {
        self.store_call(|s, st, h| s.call_reindex(st, h, batch_size))
    }

    /// The limits new turns are checked against.
    pub fn limits(&mut self) -> Result<TurnLimits, Error> {
        self.store_call(|s, st, h| s.call_get_limits(st, h))
    }

    /// Sets the limits for turns added from now on.
    pub fn set_limits(&mut self, limits: &TurnLimits) -> Result<(), Error> {
        self.store_call(|s, st, h| s.call_set_limits(st, h, *limits))
    }

    /// Ranked search in any mode, with filters.
    pub fn search(&mut self, query: &SearchQuery) -> Result<Vec<SearchHit>, Error> {
        self.store_call(|s, st, h| s.call_search(st, h, query))
    }

    /// Regular-expression search over raw logs.
    pub fn grep(&mut self, query: &GrepQuery) -> Result<Vec<GrepMatch>, Error> {
        self.store_call(|s, st, h| s.call_grep(st, h, query))
    }

    /// The memory block for a new turn, within a token budget.
    pub fn recall(&mut self, query: &RecallQuery) -> Result<Recall, Error> {
        self.store_call(|s, st, h| s.call_recall(st, h, query))
    }

    /// Compacts a record with the LLM or the extractive compactor; returns it updated.
    pub fn compact(&mut self, id: &str, compactor: Compactor) -> Result<Record, Error> {
        self.store_call(|s, st, h| s.call_compact(st, h, id, compactor))
    }

    /// The prompt `compact` would send to the LLM for a record.
    pub fn compaction_prompt(&mut self, id: &str) -> Result<String, Error> {
        self.store_call(|s, st, h| s.call_compaction_prompt(st, h, id))
    }

    /// Applies an LLM's answer to the compaction prompt, if well formed.
    pub fn apply_compaction(&mut self, id: &str, answer: &str) -> Result<Record, Error> {
        self.store_call(|s, st, h| s.call_apply_compaction(st, h, id, answer))
    }

    /// Cuts oversized tool results, keeping their full texts as blobs.
    pub fn compact_tool_results(
        &mut self,
        messages: &[Message],
        limits: ToolResultLimits,
    ) -> Result<ToolResults, Error> {
        self.store_call(|s, st, h| s.call_compact_tool_results(st, h, messages, limits))
    }

    /// Stores a text blob; returns its content-derived id.
    pub fn put_blob(&mut self, text: &str) -> Result<String, Error> {
        self.store_call(|s, st, h| s.call_put_blob(st, h, text))
    }

    /// The text of a blob, or `None`.
    pub fn get_blob(&mut self, id: &str) -> Result<Option<String>, Error> {
        self.store_call(|s, st, h| s.call_get_blob(st, h, id))
    }

    /// The one call before a turn: cut tool results, split, fold the older part into the
    /// thread's running summary (through the host LLM with `use_llm`), recall. See
    /// `store.prepare` in `wit/memory.wit`.
    pub fn prepare(
        &mut self,
        messages: &[Message],
        options: &PrepareOptions,
    ) -> Result<Prepared, Error> {
        self.store_call(|s, st, h| s.call_prepare(st, h, messages, options))
    }

    /// The one call after a turn: the turn with its cited parents, then learning.
    pub fn finish(&mut self, turn: &NewTurn, options: FinishOptions) -> Result<Finished, Error> {
        self.store_call(|s, st, h| s.call_finish(st, h, turn, options))
    }

    /// Lines of a stored tool output from `from_line` (1 is the first), at most `lines`
    /// (0: 2000); with `user`, only a blob of theirs.
    pub fn read_blob(
        &mut self,
        id: &str,
        from_line: u32,
        lines: u32,
        user: Option<&str>,
    ) -> Result<BlobPage, Error> {
        self.store_call(|s, st, h| s.call_read_blob(st, h, id, from_line, lines, user))
    }

    /// Removes stored tool outputs past their age (the memory setting `blob-max-age-ms`) as of
    /// `now` (default: the clock); returns their ids.
    pub fn retain_blobs(&mut self, now: Option<i64>) -> Result<Vec<String>, Error> {
        self.store_call(|s, st, h| s.call_retain_blobs(st, h, now))
    }

    /// The running summary of a thread for a user, as Markdown, if there is one.
    pub fn running_summary(
        &mut self,
        thread: &str,
        user: Option<&str>,
    ) -> Result<Option<String>, Error> {
        self.store_call(|s, st, h| s.call_running_summary(st, h, thread, user))
    }

    /// Deletes a record, re-parenting its children onto its parents. Returns it.
    pub fn delete(&mut self, id: &str) -> Result<Record, Error> {
        self.store_call(|s, st, h| s.call_delete(st, h, id))
    }

    /// The number of live records.
    pub fn len(&mut self) -> Result<u64, Error> {
        self.store_call(|s, st, h| s.call_len(st, h))
    }

    /// What the open recovered from (a `COMMIT_RECOVERED` warning when `head` was missing,
    /// unreadable or older than a whole segment); empty for a store opened from its `head`.
    pub fn load_warnings(&mut self) -> Result<Vec<LoadWarning>, Error> {
        self.store_call(|s, st, h| s.call_load_warnings(st, h))
    }

    /// Whether the store holds no record.
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        Ok(self.len()? == 0)
    }

    /// Every key and value of the store (keys without the prefix).
    pub fn export_snapshot(&mut self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        self.store_call(|s, st, h| s.call_export_snapshot(st, h))
    }

    /// Replaces the store with a snapshot; returns the number of records.
    pub fn import_snapshot(&mut self, entries: &[(String, Vec<u8>)]) -> Result<u64, Error> {
        self.store_call(|s, st, h| s.call_import_snapshot(st, h, entries))
    }

    /// Every thread, newest activity first.
    pub fn thread_groups(&mut self) -> Result<Vec<Group>, Error> {
        self.store_call(|s, st, h| s.call_threads(st, h))
    }

    /// Every user with turns or items, newest activity first.
    pub fn user_groups(&mut self) -> Result<Vec<Group>, Error> {
        self.store_call(|s, st, h| s.call_users(st, h))
    }

    /// The store as Markdown files `(path, text)`, a person can read and edit.
    pub fn export_markdown(&mut self) -> Result<Vec<(String, String)>, Error> {
        self.store_call(|s, st, h| s.call_export_markdown(st, h))
    }

    /// Adds what Markdown files from [`Memory::export_markdown`] hold and the store lacks.
    pub fn import_markdown(&mut self, files: &[(String, String)]) -> Result<Imported, Error> {
        self.store_call(|s, st, h| s.call_import_markdown(st, h, files))
    }

    /// The store as JSONL (turns in the JSON turn shape, then items and working memories).
    pub fn export_jsonl(&mut self) -> Result<String, Error> {
        self.store_call(|s, st, h| s.call_export_jsonl(st, h))
    }

    /// Adds what a JSONL export holds and the store lacks; `now` dates turns that give none.
    pub fn import_jsonl(&mut self, text: &str, now: i64) -> Result<Imported, Error> {
        self.store_call(|s, st, h| s.call_import_jsonl(st, h, text, now))
    }

    /// The ids a reply cites as `[id]` that name a record `user` may see.
    pub fn cited(&mut self, text: &str, user: Option<&str>) -> Result<Vec<String>, Error> {
        self.store_call(|s, st, h| s.call_cited(st, h, text, user))
    }

    /// Adds a turn; with `drop_unknown_parents`, without the parents no record has.
    pub fn add_turn_with(
        &mut self,
        turn: &NewTurn,
        drop_unknown_parents: bool,
    ) -> Result<Added, Error> {
        self.store_call(|s, st, h| s.call_add_turn_with(st, h, turn, drop_unknown_parents))
    }

    /// Tokens of `text` (default encoding cl100k-base; an estimate in this build).
    pub fn count_tokens(&mut self, text: &str, encoding: Option<Encoding>) -> Result<u32, Error> {
        self.call(|i, st, _| {
            i.memdag_core_context()
                .call_count_tokens(st, text, encoding)
        })
    }

    /// Splits messages into to-compact and to-keep when over `threshold` tokens.
    pub fn check_context(
        &mut self,
        messages: &[Message],
        threshold: u32,
        reserve: u32,
    ) -> Result<ContextCheck, Error> {
        self.call(|i, st, _| {
            i.memdag_core_context()
                .call_check_context(st, messages, threshold, reserve)
        })
    }

    /// Cuts one tool result to `limit` tokens; stores nothing.
    pub fn compact_tool_result(&mut self, text: &str, limit: u32) -> Result<ToolResultCut, Error> {
        self.call(|i, st, _| {
            i.memdag_core_context()
                .call_compact_tool_result(st, text, limit)
        })
    }
}
