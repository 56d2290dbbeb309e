//! Working memory: the small structured state an agent keeps for one thread across turns.
//!
//! Working memory belongs to a user and a thread: one per (user, thread), and one per thread
//! for no user (see [`docs`]). A read names the user whose working memory it wants (none:
//! the working memory of no user); a user never sees another's, even on a thread id they
//! share.
//!
//! A working memory is a set of named fields holding JSON values. Four names are
//! conventional, and recall renders them first: `goal` (text), `tasks` (a stack of
//! `{"text", "status"}`), `constraints` (a list of texts) and `notes` (an object of named
//! notes or variables); any other name is a variable of its own.
//!
//! It changes by field, with four operations ([`WorkOp`]): `set` a field, `push` onto a
//! list, `pop` the last element of a list, and `patch` an object (a JSON merge patch: `null`
//! removes a key) or elements of a list (keys that are indices). Each change carries its time:
//! - changes to different fields never touch each other, so two writers (two tabs, two
//!   workers) that change different fields both keep their change;
//! - a change older than the field's newest one is not applied: it goes to the history as
//!   `stale`, so of two changes to one field the newest wins and the other is kept.
//!
//! Every change, applied or stale, is in the history with the value before it; the newest
//! [`MAX_HISTORY`] are kept. Each working memory is a document (see [`crate::state`] and
//! [`docs`]), persisted with the store.

pub mod docs;

use std::collections::BTreeMap;
use std::format;
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::codec::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::state::name;
use crate::store::Store;

/// The document prefix of working memory before it was per user: `work/<thread>` (see
/// [`docs`]).
pub const WORK_PREFIX: &str = "work/";
/// Changes kept per thread.
pub const MAX_HISTORY: usize = 256;
/// The most fields a thread's working memory holds.
pub const MAX_FIELDS: usize = 64;
/// The largest encoded value of one field, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// One field's value and when it last changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkField {
    pub value: Value,
    pub updated_at: i64,
    /// How many changes were applied to it.
    pub version: u32,
}

/// A change to one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkOp {
    Set,
    Push,
    Pop,
    Patch,
    /// Removes the field.
    Remove,
}

/// One change in the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkChange {
    pub at: i64,
    pub field: String,
    pub op: WorkOp,
    /// The value the change gave (the element pushed, the patch, the new value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The field's value before the change (absent for a new field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Value>,
    /// Not applied: the field had a newer change.
    #[serde(default)]
    pub stale: bool,
    /// Who made it, when a face names a user.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user: String,
}

/// The working memory of one user in one thread.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkingMemory {
    pub thread: String,
    /// Whose it is; empty for no user.
    pub user: String,
    pub fields: BTreeMap<String, WorkField>,
    /// Oldest first.
    pub history: Vec<WorkChange>,
}

/// What a caller asks of working memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkUpdate {
    pub thread: String,
    pub field: String,
    pub op: WorkOp,
    /// The value to set, the element to push, or the patch.
    #[serde(default)]
    pub value: Option<Value>,
    /// When it happens (ms since the epoch). Faces default it to the host clock.
    #[serde(default)]
    pub at: i64,
    /// Whose working memory it changes; none for no user's. An empty or blank name is
    /// `INVALID_INPUT` ([`crate::scope`]).
    #[serde(default)]
    pub user: Option<String>,
}

impl WorkingMemory {
    /// Applies one change; returns what it did (with `stale` set if it lost to a newer one,
    /// and for `pop`, the popped element as its value).
    fn apply(&mut self, u: &WorkUpdate, user: &str) -> Result<WorkChange> {
        let current = self.fields.get(&u.field);
        let previous = current.map(|f| f.value.clone());
        let mut change = WorkChange {
            at: u.at,
            field: u.field.clone(),
            op: u.op,
            value: u.value.clone(),
            previous: previous.clone(),
            stale: false,
            user: user.into(),
        };
        if current.is_some_and(|f| f.updated_at > u.at) {
            change.stale = true;
            return Ok(change);
        }
        let next: Option<Value> = match u.op {
            WorkOp::Set => Some(required(u)?.clone()),
            WorkOp::Remove => None,
            WorkOp::Push => {
                let mut list = match previous {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a,
                    Some(_) => {
                        return Err(Error::invalid(format!(
                            "work field {:?} is not a list",
                            u.field
                        )))
                    }
                };
                list.push(required(u)?.clone());
                Some(Value::Array(list))
            }
            WorkOp::Pop => match previous {
                Some(Value::Array(mut a)) => {
                    change.value = a.pop();
                    Some(Value::Array(a))
                }
                None | Some(Value::Null) => {
                    change.value = None;
                    return Ok(change);
                }
                Some(_) => {
                    return Err(Error::invalid(format!(
                        "work field {:?} is not a list",
                        u.field
                    )))
                }
            },
            WorkOp::Patch => {
                let patch = required(u)?;
                let mut value = previous.unwrap_or(Value::Object(Default::default()));
                merge(&mut value, patch)?;
                Some(value)
            }
        };
        match next {
            Some(v) => {
                let size = serde_json::to_vec(&v).map_or(usize::MAX, |b| b.len());
                if size > MAX_VALUE_BYTES {
                    return Err(Error::invalid(format!(
                        "work field {:?} would be {size} bytes, over {MAX_VALUE_BYTES}",
                        u.field
                    )));
                }
                if !self.fields.contains_key(&u.field) && self.fields.len() >= MAX_FIELDS {
                    return Err(Error::invalid(format!(
                        "working memory holds at most {MAX_FIELDS} fields"
                    )));
                }
                let version = self.fields.get(&u.field).map_or(0, |f| f.version) + 1;
                self.fields.insert(
                    u.field.clone(),
                    WorkField {
                        value: v,
                        updated_at: u.at,
                        version,
                    },
                );
            }
            None => {
                self.fields.remove(&u.field);
            }
        }
        Ok(change)
    }

    /// The rendering recall shows: the goal, the open tasks, the constraints, then the
    /// other fields, one per line.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        if let Some(goal) = self.fields.get("goal") {
            line(&mut out, format!("Goal: {}", plain(&goal.value)));
        }
        if let Some(Value::Array(tasks)) = self.fields.get("tasks").map(|f| &f.value) {
            for t in tasks {
                let (text, status) = match t {
                    Value::Object(o) => (
                        o.get("text").map(plain).unwrap_or_else(|| plain(t)),
                        o.get("status").map(plain).unwrap_or_else(|| "open".into()),
                    ),
                    other => (plain(other), "open".into()),
                };
                line(&mut out, format!("- [{status}] {text}"));
            }
        }
        if let Some(Value::Array(cs)) = self.fields.get("constraints").map(|f| &f.value) {
            for c in cs {
                line(&mut out, format!("Constraint: {}", plain(c)));
            }
        }
        for (name, f) in &self.fields {
            if !matches!(name.as_str(), "goal" | "tasks" | "constraints") {
                line(&mut out, format!("{name}: {}", plain(&f.value)));
            }
        }
        out.trim_end().into()
    }
}

/// A value as text: strings bare, everything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn required(u: &WorkUpdate) -> Result<&Value> {
    u.value
        .as_ref()
        .ok_or_else(|| Error::invalid(format!("work {:?} needs a value", u.op)))
}

/// A JSON merge patch, extended to lists: in a patch of a list, keys that are indices patch
/// those elements.
fn merge(target: &mut Value, patch: &Value) -> Result<()> {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return Ok(());
    };
    match target {
        Value::Object(t) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v)?;
                }
            }
        }
        Value::Array(items) => {
            for (k, v) in p {
                let i: usize = k.parse().map_err(|_| {
                    Error::invalid(format!("a patch of a list needs index keys, not {k:?}"))
                })?;
                let item = items
                    .get_mut(i)
                    .ok_or_else(|| Error::invalid(format!("no list element {i} to patch")))?;
                merge(item, v)?;
            }
        }
        other => *other = patch.clone(),
    }
    Ok(())
}

impl Store {
    /// `user`'s working memory of `thread` (`None`: the working memory of no user), empty if
    /// there is none. [`Error::InvalidInput`] for an empty or blank user ([`crate::scope`]).
    pub fn working_memory(&self, thread: &str, user: Option<&str>) -> Result<WorkingMemory> {
        let user = crate::scope::user_scope(user)?.unwrap_or("");
        Ok(self.working_memory_of(user, thread))
    }

    /// [`Store::working_memory`] of a checked user (`""`: no user).
    pub(crate) fn working_memory_of(&self, user: &str, thread: &str) -> WorkingMemory {
        self.stored_work(user, thread)
            .map(|(wm, _)| wm)
            .unwrap_or_else(|| WorkingMemory {
                thread: thread.into(),
                user: user.into(),
                ..WorkingMemory::default()
            })
    }

    /// Applies one change to a user's working memory of a thread and returns the change
    /// (`stale` if a newer change of the field won). [`Error::InvalidInput`] for an empty
    /// thread or field, an empty or blank user, a missing value, a push or pop on a field
    /// that is not a list, or a limit; nothing changes then.
    pub fn update_work(&mut self, u: &WorkUpdate) -> Result<WorkChange> {
        let user = crate::scope::user_scope(u.user.as_deref())?.unwrap_or("");
        if u.thread.is_empty() || u.field.is_empty() {
            return Err(Error::invalid("working memory needs a thread and a field"));
        }
        let limits = self.limits();
        if [&u.thread, &u.field, user]
            .iter()
            .any(|n| n.len() > limits.max_name_bytes)
        {
            return Err(Error::invalid(
                "thread, field or user name over maxNameBytes",
            ));
        }
        let (mut wm, legacy) = self.stored_work(user, &u.thread).unwrap_or_else(|| {
            let wm = WorkingMemory {
                thread: u.thread.clone(),
                user: user.into(),
                ..WorkingMemory::default()
            };
            (wm, None)
        });
        let change = wm.apply(u, user)?;
        wm.history.push(change.clone());
        if wm.history.len() > MAX_HISTORY {
            let extra = wm.history.len() - MAX_HISTORY;
            wm.history.drain(..extra);
        }
        let doc = docs::doc_name(user, &u.thread);
        self.put_state(&doc, to_msgpack(&wm)?);
        if let Some(legacy) = legacy {
            self.remove_state(&legacy);
        }
        Ok(change)
    }

    /// Forgets a user's working memory of a thread (`None`: no user's). Returns whether there
    /// was one. [`Error::InvalidInput`] for an empty or blank user.
    pub fn clear_work(&mut self, thread: &str, user: Option<&str>) -> Result<bool> {
        let user = crate::scope::user_scope(user)?.unwrap_or("");
        Ok(self.clear_work_of(user, thread))
    }

    /// [`Store::clear_work`] of a checked user (`""`: no user), legacy document included.
    pub(crate) fn clear_work_of(&mut self, user: &str, thread: &str) -> bool {
        let legacy = name(WORK_PREFIX, thread);
        let legacy_is_theirs = self
            .state(&legacy)
            .and_then(|b| from_msgpack::<WorkingMemory>(&legacy, b).ok())
            .is_some_and(|wm| docs::legacy_owner(&wm) == user);
        let own = self.remove_state(&docs::doc_name(user, thread));
        let old = legacy_is_theirs && self.remove_state(&legacy);
        own || old
    }

    /// The threads that have working memory (of any user), sorted, each once.
    pub fn work_threads(&self) -> Vec<String> {
        let mut threads: Vec<String> = self.work_keys().into_iter().map(|(_, t)| t).collect();
        crate::sort::sort(&mut threads);
        threads.dedup();
        threads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn up(field: &str, op: WorkOp, value: Option<Value>, at: i64) -> WorkUpdate {
        WorkUpdate {
            thread: "t".into(),
            field: field.into(),
            op,
            value,
            at,
            user: Some("ada".into()),
        }
    }

    #[test]
    fn different_fields_both_survive_and_the_newest_wins_one_field() {
        let mut s = Store::new();
        s.update_work(&up("goal", WorkOp::Set, Some(json!("ship it")), 10))
            .unwrap();
        s.update_work(&up(
            "notes",
            WorkOp::Patch,
            Some(json!({"branch": "main"})),
            5,
        ))
        .unwrap();
        let stale = s
            .update_work(&up("goal", WorkOp::Set, Some(json!("old goal")), 7))
            .unwrap();
        assert!(stale.stale);
        let wm = s.working_memory("t", Some("ada")).unwrap();
        assert_eq!(wm.fields["goal"].value, json!("ship it"));
        assert_eq!(wm.fields["notes"].value, json!({"branch": "main"}));
        assert_eq!(wm.history.len(), 3);
        assert_eq!(wm.history[2].value, Some(json!("old goal")));
    }

    #[test]
    fn push_pop_and_patch_a_task_stack() {
        let mut s = Store::new();
        s.update_work(&up(
            "tasks",
            WorkOp::Push,
            Some(json!({"text": "a", "status": "open"})),
            1,
        ))
        .unwrap();
        s.update_work(&up(
            "tasks",
            WorkOp::Push,
            Some(json!({"text": "b", "status": "open"})),
            2,
        ))
        .unwrap();
        s.update_work(&up(
            "tasks",
            WorkOp::Patch,
            Some(json!({"0": {"status": "done"}})),
            3,
        ))
        .unwrap();
        let popped = s.update_work(&up("tasks", WorkOp::Pop, None, 4)).unwrap();
        assert_eq!(popped.value, Some(json!({"text": "b", "status": "open"})));
        let wm = s.working_memory("t", Some("ada")).unwrap();
        assert_eq!(
            wm.fields["tasks"].value,
            json!([{"text": "a", "status": "done"}])
        );
        assert!(wm.render().contains("- [done] a"));
        s.update_work(&up("goal", WorkOp::Set, Some(json!("x")), 5))
            .unwrap();
        assert_eq!(
            s.update_work(&up("goal", WorkOp::Push, Some(json!(1)), 6))
                .unwrap_err()
                .code(),
            "INVALID_INPUT"
        );
        assert_eq!(
            s.update_work(&up("goal", WorkOp::Set, None, 7))
                .unwrap_err()
                .code(),
            "INVALID_INPUT"
        );
        assert_eq!(
            s.working_memory("t", Some("ada")).unwrap().fields["goal"].value,
            json!("x")
        );
        assert_eq!(s.work_threads(), ["t"]);
    }
}
