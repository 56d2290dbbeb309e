//! The JSONL export: the ingest format, one turn per line, then the long-term memory items
//! and the working memories.
//!
//! ```text
//! {"id":"a1","thread":"t1","user":"ada","createdAt":"2024-05-08T13:56:00Z","input":…}
//! {"memory":{"id":"m…","kind":"personal","text":…,"history":[…],…}}
//! {"work":{"thread":"t1","user":"ada","fields":{…},"history":[…]}}
//! ```
//! One `work` line per working memory: per user and thread (`user` empty for no user's).
//! Turn lines carry their embedding, so an export read back keeps its vectors; a turn line is
//! read with [`crate::json::turn_from_value`], so `memdag ingest` takes an export as it is.

use std::string::String;
use std::vec::Vec;

use serde_json::{json, Value};

use super::Imported;
use crate::error::{Error, Result};
use crate::item::MemoryItem;
use crate::json::{record_to_value, turn_from_value};
use crate::record::Record;
use crate::store::Store;
use crate::work::WorkingMemory;

impl Store {
    /// The store as JSONL text (see the module docs).
    pub fn export_jsonl(&self) -> String {
        let mut out = String::new();
        for r in self.export_order() {
            let line = match self.slot_of(&r.id).and_then(|s| self.item_view(s)) {
                Some(mut item) => {
                    item.uses = 0;
                    json!({ "memory": item })
                }
                None => {
                    let mut v = record_to_value(r, self.embedding_of(r).as_deref());
                    if let Value::Object(o) = &mut v {
                        o.remove("seq");
                    }
                    v
                }
            };
            out.push_str(&line.to_string());
            out.push('\n');
        }
        for wm in self.all_work() {
            out.push_str(&json!({ "work": wm }).to_string());
            out.push('\n');
        }
        out
    }

    /// Reads a JSONL export (or any ingest file) into the store; `now` is the time of turns
    /// that give none. Every line is parsed before anything is added; a bad line is
    /// [`Error::InvalidInput`] naming its number, and so is a text with no line at all
    /// (nothing to import is a mistake, not an import).
    pub fn import_jsonl(&mut self, text: &str, now: i64) -> Result<Imported> {
        if text.trim().is_empty() {
            return Err(Error::invalid(
                "nothing to import: the JSONL text holds no line",
            ));
        }
        let mut records = Vec::new();
        let mut work = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = |e: Error| Error::invalid(std::format!("line {}: {e}", n + 1));
            let v: Value = serde_json::from_str(line)
                .map_err(|e| Error::invalid(std::format!("line {}: not JSON: {e}", n + 1)))?;
            if let Some(m) = v.get("memory") {
                let item: MemoryItem = serde_json::from_value(m.clone())
                    .map_err(|e| Error::invalid(std::format!("line {}: memory: {e}", n + 1)))?;
                records.push(item_to_record(item));
            } else if let Some(w) = v.get("work") {
                let wm: WorkingMemory = serde_json::from_value(w.clone())
                    .map_err(|e| Error::invalid(std::format!("line {}: work: {e}", n + 1)))?;
                work.push(wm);
            } else {
                let t = turn_from_value(v, now).map_err(at)?;
                let id =
                    t.id.clone()
                        .ok_or_else(|| at(Error::invalid("an imported turn needs its id")))?;
                records.push(Record {
                    id,
                    seq: records.len() as u64,
                    thread: t.thread,
                    user: t.user,
                    created_at: t.created_at,
                    input: t.input,
                    output: t.output,
                    steps: t.steps,
                    parents: t.parents,
                    tags: t.tags,
                    importance: t.importance.unwrap_or(crate::record::DEFAULT_IMPORTANCE),
                    compact: t.compact,
                    embedding: t.embedding,
                    item: None,
                });
            }
        }
        self.import_records(records, work)
    }
}

/// The record an item view stands for.
pub(crate) fn item_to_record(item: MemoryItem) -> Record {
    Record {
        id: item.id,
        seq: 0,
        thread: String::new(),
        user: item.user,
        created_at: item.created_at,
        input: item.text,
        output: String::new(),
        steps: Vec::new(),
        parents: item.sources,
        tags: item.tags,
        importance: item.importance,
        compact: None,
        embedding: None,
        item: Some(Box::new(item.meta)),
    }
}
