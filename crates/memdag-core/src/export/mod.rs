//! Exports and imports: the binary snapshot, the JSONL ingest format, and Markdown a person
//! can read and edit. The one owner of these formats for every face.
//!
//! - [`snapshot`]: every stored entry of a store in one file (`MDAGEXP1`), values as the
//!   storage format writes them (sealed when the store is encrypted);
//! - [`jsonl`]: one turn per line in the shape `memdag ingest` reads ([`crate::json`]), then
//!   one line per long-term memory item (`{"memory": …}`) and per working memory of a user
//!   and thread (`{"work": …}`);
//! - [`markdown`]: a folder of Markdown files: `README.md`, one file per thread (its turns in
//!   order with input, tool steps, output, compact node, parents as links, and its working
//!   memory) and one per user (their long-term memory items with history).
//!
//! Importing ([`Store::import_records`]) adds what a store does not hold yet, in an order
//! where every parent comes before its children: turns keep their ids, times, parents and
//! compact nodes; items keep their whole history and log. Records whose id the store already
//! has are skipped and reported. Markdown export, import into an empty store and export again
//! gives the same files.

pub mod jsonl;
pub mod markdown;
pub mod snapshot;

use std::collections::BTreeSet;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::item::NewItem;
use crate::record::{NewTurn, Record};
use crate::store::Store;
use crate::work::WorkingMemory;

/// What an import added.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Imported {
    pub turns: usize,
    pub items: usize,
    /// Working memories imported (one per user and thread).
    pub work: usize,
    /// Ids the store already had, left as they were.
    pub skipped: Vec<String>,
    /// Of `skipped`, the ids whose stored record says something else (another thread, user,
    /// input, output or tool steps): what the import brought for them was not added.
    pub conflicts: Vec<String>,
}

/// Whether an imported record says something else than the stored one with its id.
fn conflicts(stored: &Record, imported: &Record) -> bool {
    stored.is_item() != imported.is_item()
        || stored.thread != imported.thread
        || stored.user != imported.user
        || stored.input != imported.input
        || stored.output != imported.output
        || stored.steps != imported.steps
}

impl Store {
    /// Adds records (turns and items, any order) and working memories: see the module docs.
    /// Validates everything before it writes: an unknown parent (neither in the store nor in
    /// `records`) is [`Error::UnknownParents`] and nothing is added.
    pub fn import_records(
        &mut self,
        records: Vec<Record>,
        work: Vec<WorkingMemory>,
    ) -> Result<Imported> {
        let mut report = Imported::default();
        let mut pending: Vec<Record> = Vec::new();
        for r in records {
            if let Some(stored) = self.get(&r.id) {
                if conflicts(stored, &r) {
                    report.conflicts.push(r.id.clone());
                }
                report.skipped.push(r.id);
            } else {
                pending.push(r);
            }
        }
        // Parents first: repeatedly take the records whose parents are all known.
        let mut known: BTreeSet<String> = pending.iter().map(|r| r.id.clone()).collect();
        for r in &pending {
            if let Some(p) = r
                .parents
                .iter()
                .find(|p| !known.contains(*p) && self.get(p).is_none())
            {
                return Err(Error::UnknownParents {
                    ids: std::vec![p.clone()],
                });
            }
        }
        crate::sort::sort_by_key(&mut pending, |r| (r.is_item(), r.created_at, r.seq));
        let mut placed: BTreeSet<String> = BTreeSet::new();
        let mut ordered: Vec<Record> = Vec::with_capacity(pending.len());
        while !pending.is_empty() {
            let before = pending.len();
            let mut rest = Vec::new();
            for r in pending {
                let ready = r
                    .parents
                    .iter()
                    .all(|p| placed.contains(p) || (!known.contains(p) && self.get(p).is_some()));
                if ready {
                    placed.insert(r.id.clone());
                    ordered.push(r);
                } else {
                    rest.push(r);
                }
            }
            if rest.len() == before {
                return Err(Error::invalid("the imported records' parents form a cycle"));
            }
            pending = rest;
        }
        known.clear();
        for r in ordered {
            match r.item {
                None => {
                    self.add_turn(NewTurn {
                        id: Some(r.id),
                        thread: r.thread,
                        user: r.user,
                        created_at: r.created_at,
                        input: r.input,
                        output: r.output,
                        steps: r.steps,
                        parents: r.parents,
                        tags: r.tags,
                        importance: Some(r.importance),
                        compact: r.compact,
                        embedding: r.embedding,
                    })?;
                    report.turns += 1;
                }
                Some(meta) => {
                    let new = NewItem {
                        id: Some(r.id),
                        kind: Some(meta.kind),
                        user: r.user,
                        text: r.input,
                        importance: Some(r.importance),
                        created_at: r.created_at,
                        sources: r.parents,
                        tags: r.tags,
                        embedding: r.embedding,
                        ..NewItem::default()
                    };
                    self.insert_item_with(new, *meta, true)?;
                    report.items += 1;
                }
            }
        }
        for mut wm in work {
            if wm.thread.is_empty() {
                continue;
            }
            // An export names the working memory's user; one from before working memory was
            // per user names only its last change's, so it is read as a legacy document.
            wm.user = crate::work::docs::legacy_owner(&wm).into();
            let doc = crate::work::docs::doc_name(&wm.user, &wm.thread);
            self.put_state(&doc, crate::codec::to_msgpack(&wm)?);
            report.work += 1;
        }
        Ok(report)
    }

    /// Every record in the order exports write them: turns by thread, then by time and
    /// sequence; then items by user, time and sequence.
    pub(crate) fn export_order(&self) -> Vec<&Record> {
        let mut turns: Vec<&Record> = self.iter().filter(|r| !r.is_item()).collect();
        crate::sort::sort_by(&mut turns, |a, b| {
            (a.thread.as_str(), a.created_at, a.seq).cmp(&(b.thread.as_str(), b.created_at, b.seq))
        });
        let mut items: Vec<&Record> = self.iter().filter(|r| r.is_item()).collect();
        crate::sort::sort_by(&mut items, |a, b| {
            (a.user.as_str(), a.created_at, a.seq).cmp(&(b.user.as_str(), b.created_at, b.seq))
        });
        turns.extend(items);
        turns
    }

    /// Every working memory, by user and thread.
    pub(crate) fn all_work(&self) -> Vec<WorkingMemory> {
        self.work_keys()
            .into_iter()
            .map(|(user, thread)| self.working_memory_of(&user, &thread))
            .collect()
    }
}
