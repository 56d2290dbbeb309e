//! The methods of the WIT `store` resource, one per function of `wit/memory.wit` (where each
//! one's errors are stated): each converts its arguments ([`crate::convert`]), runs the core
//! through [`MemoryStore::with_store`] (queries) or [`MemoryStore::mutate`] (changes, written
//! through `kv`), and converts the answer back.

use std::cell::RefCell;

use memdag_core::{Cipher, Direction, Error as CoreError};

use super::{llm, MemoryStore, State};
use crate::bindings::exports::memdag::core::context::{
    BlobPage, Message, PrepareOptions, Prepared,
};
use crate::bindings::exports::memdag::core::memory::{
    self, Compactor, Embeddings, FinishOptions, Finished, GuestStore, ToolContext,
    ToolResultLimits, ToolResults,
};
use crate::bindings::memdag::core::graph::{
    Edge, GraphQuery, Subgraph, TimelineDay, TimelineQuery,
};
use crate::bindings::memdag::core::items::{
    ExtractQuery, ExtractReport, HistoryEntry, ItemQuery, ItemUpdate, Learned, LoggedResolution,
    MemoryConfig, MemoryItem, NewItem, PurgeQuery, Purged, ResolutionQuery,
};
use crate::bindings::memdag::core::query::{
    GrepMatch, GrepQuery, Recall, RecallQuery, SearchHit, SearchQuery, SearchResults,
};
use crate::bindings::memdag::core::types::{
    Added, Damage, Error, Forgotten, Group, Imported, Limits, LoadWarning, NewTurn, Record,
    Reindexed, Verified,
};
use crate::bindings::memdag::core::work::{WorkChange, WorkUpdate, WorkingMemory};
use crate::convert::{graph as cg, items as ci, learn as cl, work as cw};
use crate::{convert, embed, persist};

impl GuestStore for MemoryStore {
    fn open(
        prefix: Option<String>,
        embeddings: Embeddings,
        key: Option<Vec<u8>>,
    ) -> Result<memory::Store, Error> {
        let prefix = prefix.unwrap_or_default();
        persist::check_prefix(&prefix).map_err(|e| convert::error(&e))?;
        let cipher = cipher_of(key)?;
        let mut store = persist::load(&prefix, embeddings == Embeddings::Builtin, cipher.as_ref())
            .map_err(|e| convert::error(&e))?;
        retain_at_open(&mut store);
        Ok(memory::Store::new(MemoryStore {
            prefix,
            embeddings,
            cipher,
            state: RefCell::new(State::Ready(Box::new(store))),
            limits: Default::default(),
        }))
    }

    fn open_salvaging(
        prefix: Option<String>,
        embeddings: Embeddings,
        key: Option<Vec<u8>>,
    ) -> Result<(memory::Store, Damage), Error> {
        let prefix = prefix.unwrap_or_default();
        persist::check_prefix(&prefix).map_err(|e| convert::error(&e))?;
        let cipher = cipher_of(key)?;
        let builtin = embeddings == Embeddings::Builtin;
        let (mut store, damage) = persist::load_salvaging(&prefix, builtin, cipher.as_ref())
            .map_err(|e| convert::error(&e))?;
        retain_at_open(&mut store);
        let damage = convert::damage::damage(&prefix, damage);
        Ok((
            memory::Store::new(MemoryStore {
                prefix,
                embeddings,
                cipher,
                state: RefCell::new(State::Ready(Box::new(store))),
                limits: Default::default(),
            }),
            damage,
        ))
    }

    fn verify(prefix: Option<String>, key: Option<Vec<u8>>) -> Result<Verified, Error> {
        let prefix = prefix.unwrap_or_default();
        persist::check_prefix(&prefix).map_err(|e| convert::error(&e))?;
        let cipher = cipher_of(key)?;
        let verified = persist::verify(&prefix, cipher.as_ref()).map_err(|e| convert::error(&e))?;
        Ok(convert::damage::verified(&prefix, verified))
    }

    fn add_turn(&self, turn: NewTurn) -> Result<Record, Error> {
        self.add_core_turn(convert::new_turn(turn))
    }

    fn add_turns(&self, turns: Vec<NewTurn>) -> Result<Vec<Record>, Error> {
        let mut turns: Vec<_> = turns.into_iter().map(convert::new_turn).collect();
        self.embed_turns(&mut turns)?;
        let mut refused = None;
        self.mutate(|s| {
            let mut out = Vec::with_capacity(turns.len());
            for (i, turn) in turns.into_iter().enumerate() {
                let id = s
                    .add_turn(turn)
                    .inspect_err(|_| refused = Some(i))?
                    .id
                    .clone();
                out.push(convert::changed(s, Ok(id))?);
            }
            Ok(out)
        })
        .map_err(|e| match refused {
            Some(i) => convert::with_context(e, &format!("turn {i}")),
            None => e,
        })
    }

    fn get(&self, id: String) -> Result<Option<Record>, Error> {
        self.with_store(|s| Ok(s.get(&id).map(|r| convert::record(s, r))))
    }

    fn get_as(&self, user: String, id: String) -> Result<Option<Record>, Error> {
        self.with_store(|s| Ok(s.get_as(Some(&user), &id)?.map(|r| convert::record(s, r))))
    }

    fn recent(&self, thread: String, n: u32, user: Option<String>) -> Result<Vec<Record>, Error> {
        self.with_store(|s| {
            let found = s.recent_as(user.as_deref(), &thread, n as usize)?;
            Ok(convert::records(s, &found))
        })
    }

    fn by_user(&self, user: String, n: u32) -> Result<Vec<Record>, Error> {
        self.with_store(|s| Ok(convert::records(s, &s.by_user(&user, n as usize)?)))
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
                work: gone.work,
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
        let query = self.core_search(query)?;
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
        // The host embeds exactly the text recall matches (the core's rule).
        self.embed_query(&query.match_text(), &mut query.embedding)?;
        self.mutate(|s| s.recall(&query).map(convert::query::recall))
    }

    fn compact(&self, id: String, compactor: Compactor) -> Result<Record, Error> {
        self.mutate(|s| {
            let changed = match compactor {
                Compactor::Extractive => s.compact_extractive(&id).map(|r| r.id.clone()),
                Compactor::Llm => {
                    let previous = s.get(&id).and_then(|r| r.compact.clone());
                    s.compact_with(&id, previous.as_ref(), |prompt| {
                        crate::bindings::memdag::core::llm::complete(prompt)
                    })
                    .map(|r| r.id.clone())
                }
            };
            convert::changed(s, changed)
        })
    }

    fn compaction_prompt(&self, id: String) -> Result<String, Error> {
        self.with_store(|s| {
            let previous = s.get(&id).and_then(|r| r.compact.as_ref());
            s.compaction_prompt(&id, previous)
        })
    }

    fn apply_compaction(&self, id: String, answer: String) -> Result<Record, Error> {
        self.mutate(|s| {
            let changed = s.apply_compaction(&id, &answer).map(|r| r.id.clone());
            convert::changed(s, changed)
        })
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

    fn prepare(&self, messages: Vec<Message>, options: PrepareOptions) -> Result<Prepared, Error> {
        self.prepare_messages(messages, options)
    }

    fn finish(&self, turn: NewTurn, options: FinishOptions) -> Result<Finished, Error> {
        self.finish_turn(turn, options)
    }

    fn read_blob(
        &self,
        id: String,
        from_line: u32,
        lines: u32,
        user: Option<String>,
    ) -> Result<BlobPage, Error> {
        self.read_blob_page(id, from_line, lines, user)
    }

    fn retain_blobs(&self, now: Option<i64>) -> Result<Vec<String>, Error> {
        self.retain(now)
    }

    fn running_summary(
        &self,
        thread: String,
        user: Option<String>,
    ) -> Result<Option<String>, Error> {
        self.summary_of(thread, user)
    }

    fn delete(&self, id: String) -> Result<Record, Error> {
        self.mutate(|s| s.delete(&id).map(|r| convert::record(s, &r)))
    }

    fn len(&self) -> Result<u64, Error> {
        self.with_store(|s| Ok(s.len() as u64))
    }

    fn load_warnings(&self) -> Result<Vec<LoadWarning>, Error> {
        self.with_store(|s| {
            Ok(s.load_warnings()
                .iter()
                .map(|w| convert::damage::warning(&self.prefix, w))
                .collect())
        })
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

    fn threads(&self) -> Result<Vec<Group>, Error> {
        self.with_store(|s| Ok(s.thread_groups().into_iter().map(group).collect()))
    }

    fn users(&self) -> Result<Vec<Group>, Error> {
        self.with_store(|s| Ok(s.user_groups().into_iter().map(group).collect()))
    }

    fn export_markdown(&self) -> Result<Vec<(String, String)>, Error> {
        self.with_store(|s| Ok(s.export_markdown()))
    }

    fn import_markdown(&self, files: Vec<(String, String)>) -> Result<Imported, Error> {
        self.mutate(|s| s.import_markdown(&files).map(imported))
    }

    fn export_jsonl(&self) -> Result<String, Error> {
        self.with_store(|s| Ok(s.export_jsonl()))
    }

    fn import_jsonl(&self, text: String, now: i64) -> Result<Imported, Error> {
        self.mutate(|s| s.import_jsonl(&text, now).map(imported))
    }

    fn cited(&self, text: String, user: Option<String>) -> Result<Vec<String>, Error> {
        self.with_store(|s| s.cited(&text, user.as_deref()))
    }

    fn add_turn_with(&self, turn: NewTurn, drop_unknown_parents: bool) -> Result<Added, Error> {
        let mut turns = [convert::new_turn(turn)];
        self.embed_turns(&mut turns)?;
        let [turn] = turns;
        let options = memdag_core::cite::AddOptions {
            drop_unknown_parents,
        };
        self.mutate(|s| {
            s.add_turn_with(turn, options).map(|a| Added {
                record: convert::record(s, &a.record),
                dropped: a.dropped,
            })
        })
    }

    fn add_turn_json(&self, json: String, now: i64) -> Result<Record, Error> {
        let turn = memdag_core::json::turn_from_json(&json, now).map_err(|e| convert::error(&e))?;
        self.add_core_turn(turn)
    }

    fn search_full(&self, query: SearchQuery) -> Result<SearchResults, Error> {
        let query = self.core_search(query)?;
        self.with_store(|s| s.search_full(&query).map(convert::query::search_results))
    }

    fn add_item(&self, item: NewItem) -> Result<Learned, Error> {
        let mut item = ci::new_item(item);
        self.embed_query(&item.text.clone(), &mut item.embedding)?;
        self.mutate(|s| s.add_item(item).map(cl::learned))
    }

    fn get_item(&self, id: String, user: Option<String>) -> Result<Option<MemoryItem>, Error> {
        self.with_store(|s| Ok(s.item_as(user.as_deref(), &id)?.map(ci::memory_item)))
    }

    fn update_item(&self, id: String, update: ItemUpdate) -> Result<MemoryItem, Error> {
        let mut update = ci::item_update(update);
        if let Some(text) = update.text.clone() {
            self.embed_query(&text, &mut update.embedding)?;
        }
        self.mutate(|s| s.update_item(&id, update).map(ci::memory_item))
    }

    fn delete_item(&self, id: String, at: i64) -> Result<MemoryItem, Error> {
        self.mutate(|s| s.delete_item(&id, at).map(ci::memory_item))
    }

    fn item_history(&self, id: String, user: Option<String>) -> Result<Vec<HistoryEntry>, Error> {
        self.with_store(|s| {
            Ok(s.item_history_as(user.as_deref(), &id)?
                .into_iter()
                .map(ci::history_entry)
                .collect())
        })
    }

    fn list_items(&self, query: ItemQuery) -> Result<Vec<MemoryItem>, Error> {
        let query = ci::item_query(query);
        self.with_store(|s| {
            Ok(s.list_items(&query)?
                .into_iter()
                .map(ci::memory_item)
                .collect())
        })
    }

    fn resolutions(&self, query: ResolutionQuery) -> Result<Vec<LoggedResolution>, Error> {
        let query = ci::resolution_query(query);
        self.with_store(|s| {
            let found = s.resolutions(&query)?;
            Ok(found.into_iter().map(ci::logged_resolution).collect())
        })
    }

    fn get_memory_config(&self) -> Result<MemoryConfig, Error> {
        self.with_store(|s| Ok(cl::config_out(s.memory_config())))
    }

    fn set_memory_config(&self, config: MemoryConfig) -> Result<(), Error> {
        let config = cl::config(config);
        self.mutate(|s| s.set_memory_config(config))
    }

    fn propose(&self, query: ExtractQuery) -> Result<Vec<NewItem>, Error> {
        let query = cl::extract_query(query);
        self.with_store(|s| {
            Ok(s.propose(&query)?
                .into_iter()
                .map(ci::new_item_out)
                .collect())
        })
    }

    fn extract(&self, query: ExtractQuery) -> Result<ExtractReport, Error> {
        let query = cl::extract_query(query);
        self.mutate(|s| s.extract(&query).map(cl::extract_report))
    }

    fn extract_with_llm(&self, query: ExtractQuery) -> Result<ExtractReport, Error> {
        let query = cl::extract_query(query);
        self.mutate(|s| s.extract_with(&query, &mut llm).map(cl::extract_report))
    }

    fn purge(&self, query: PurgeQuery) -> Result<Purged, Error> {
        let query = cl::purge_query(query);
        self.mutate(|s| s.purge(&query).map(cl::purged))
    }

    fn working_memory(&self, thread: String, user: Option<String>) -> Result<WorkingMemory, Error> {
        self.with_store(|s| {
            Ok(cw::working_memory(
                s.working_memory(&thread, user.as_deref())?,
            ))
        })
    }

    fn update_work(&self, update: WorkUpdate) -> Result<WorkChange, Error> {
        let update = cw::work_update(update).map_err(|e| convert::error(&e))?;
        self.mutate(|s| s.update_work(&update).map(cw::work_change))
    }

    fn clear_work(&self, thread: String, user: Option<String>) -> Result<bool, Error> {
        self.mutate(|s| s.clear_work(&thread, user.as_deref()))
    }

    fn work_threads(&self) -> Result<Vec<String>, Error> {
        self.with_store(|s| Ok(s.work_threads()))
    }

    fn timeline(&self, query: TimelineQuery) -> Result<Vec<TimelineDay>, Error> {
        let query = cg::timeline_query(query);
        self.with_store(|s| {
            Ok(s.timeline(&query)?
                .into_iter()
                .map(cg::timeline_day)
                .collect())
        })
    }

    fn entity(&self, name: String) -> Result<String, Error> {
        self.with_store(|s| Ok(s.entity(&name)))
    }

    fn neighbors(&self, entity: String, depth: u32, query: GraphQuery) -> Result<Subgraph, Error> {
        let query = cg::graph_query(query);
        self.with_store(|s| {
            s.neighbors(&entity, depth as usize, &query)
                .map(cg::subgraph)
        })
    }

    fn path(
        &self,
        from: String,
        to: String,
        max_depth: u32,
        query: GraphQuery,
    ) -> Result<Vec<Vec<Edge>>, Error> {
        let query = cg::graph_query(query);
        self.with_store(|s| {
            let paths = s.path(&from, &to, max_depth as usize, &query)?;
            Ok(paths
                .into_iter()
                .map(|p| p.into_iter().map(cg::edge).collect())
                .collect())
        })
    }

    fn subgraph(&self, entities: Vec<String>, query: GraphQuery) -> Result<Subgraph, Error> {
        let query = cg::graph_query(query);
        self.with_store(|s| Ok(cg::subgraph(s.subgraph(&entities, &query)?)))
    }

    fn call_tool(
        &self,
        name: String,
        arguments: String,
        context: ToolContext,
    ) -> Result<String, Error> {
        let context = memdag_core::tools::ToolContext {
            user: context.user,
            thread: context.thread,
            // Read per call: an MCP server runs for days, and expiry counts from today.
            now: crate::clock::or_now(context.now),
        };
        self.mutate(|s| s.call_tool_json(&name, &arguments, &context))
    }
}

/// What an import added, as WIT says it.
fn imported(i: memdag_core::export::Imported) -> Imported {
    Imported {
        turns: i.turns as u64,
        items: i.items as u64,
        work: i.work as u64,
        skipped: i.skipped,
        conflicts: i.conflicts,
    }
}

/// A listing entry as WIT says it.
fn group(g: memdag_core::store::Group) -> Group {
    Group {
        name: g.name,
        count: g.count as u64,
        newest: g.newest,
    }
}

/// The cipher of a 32-byte key, if one is given.
/// Retention at open, by the host's clock: stored tool outputs past their age leave memory
/// now and `kv` with the next change. A failure here (an unreadable blob's metadata) is left
/// for `prepare` and `retain-blobs` to report: it must not keep the store from opening.
fn retain_at_open(store: &mut memdag_core::Store) {
    let _ = store.retain_blobs(crate::clock::now_ms());
}

fn cipher_of(key: Option<Vec<u8>>) -> Result<Option<Cipher>, Error> {
    key.map(|k| Cipher::new(&k))
        .transpose()
        .map_err(|e| convert::error(&e))
}
