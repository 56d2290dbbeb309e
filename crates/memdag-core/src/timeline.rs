//! The timeline: a user's or a thread's turns and items by time, grouped by local day.
//!
//! Each entry is a turn (its input, cut short) or a long-term memory item (its text), with its
//! time; entries are grouped by their day in the caller's offset (`YYYY-MM-DD`), days and
//! entries oldest first. Items appear at their creation; with `changes` they also appear at
//! each later version and status change. A user named keeps the timeline to what that user
//! may see.

use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::item::ItemKind;
use crate::record::Record;
use crate::store::Store;
use crate::time::civil;

/// The most entries one timeline holds.
pub const MAX_ENTRIES: usize = 10_000;
/// Characters of a turn's input an entry shows.
const EXCERPT_CHARS: usize = 160;

/// Which timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TimelineQuery {
    pub user: Option<String>,
    pub thread: Option<String>,
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// Minutes east of UTC for the days (default 0).
    pub offset_minutes: i32,
    /// Leave turns out (items only) ...
    pub items_only: bool,
    /// ... or items out (turns only).
    pub turns_only: bool,
    /// The newest this many entries (default 500).
    pub limit: usize,
}

impl Default for TimelineQuery {
    fn default() -> Self {
        TimelineQuery {
            user: None,
            thread: None,
            since: None,
            until: None,
            offset_minutes: 0,
            items_only: false,
            turns_only: false,
            limit: 500,
        }
    }
}

/// One entry of a day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    pub id: String,
    pub at: i64,
    /// The item's kind; absent for a turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ItemKind>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub thread: String,
    pub user: String,
    pub text: String,
}

/// One day of a timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineDay {
    /// `YYYY-MM-DD` in the query's offset.
    pub date: String,
    pub entries: Vec<TimelineEntry>,
}

impl Store {
    /// The timeline a query selects (see the module docs). [`Error::InvalidInput`] for a limit
    /// of 0 or over [`MAX_ENTRIES`], or an offset beyond ±24 hours.
    pub fn timeline(&self, q: &TimelineQuery) -> Result<Vec<TimelineDay>> {
        if q.limit == 0 || q.limit > MAX_ENTRIES {
            return Err(Error::invalid(std::format!(
                "limit must be 1 to {MAX_ENTRIES}"
            )));
        }
        if q.offset_minutes.abs() > 24 * 60 {
            return Err(Error::invalid("offsetMinutes must be within ±1440"));
        }
        crate::scope::user_scope(q.user.as_deref())?;
        let in_range = |at: i64| q.since.is_none_or(|s| at >= s) && q.until.is_none_or(|u| at < u);
        let mut records: Vec<&Record> = match (&q.thread, &q.user) {
            (Some(t), _) => self.recent(t, usize::MAX),
            (None, Some(u)) => self.newest_of_user(u, usize::MAX),
            (None, None) => self.iter().filter(|r| !r.is_item()).collect(),
        };
        if q.user.is_some() {
            records.retain(|r| r.visible_to(q.user.as_deref()));
        }
        let mut entries: Vec<TimelineEntry> = Vec::new();
        if !q.items_only {
            for r in records.into_iter().filter(|r| in_range(r.created_at)) {
                entries.push(TimelineEntry {
                    id: r.id.clone(),
                    at: r.created_at,
                    kind: None,
                    thread: r.thread.clone(),
                    user: r.user.clone(),
                    text: excerpt(&r.input),
                });
            }
        }
        if !q.turns_only {
            let thread_users: Option<Vec<String>> = q.thread.as_ref().map(|t| {
                let mut users: Vec<String> = self
                    .recent(t, usize::MAX)
                    .iter()
                    .map(|r| r.user.clone())
                    .collect();
                crate::sort::sort(&mut users);
                users.dedup();
                users
            });
            for slot in self.item_slots(q.user.as_deref()) {
                let Some(r) = self.slot(slot) else { continue };
                if !r.visible_to(q.user.as_deref()) {
                    continue;
                }
                // A thread's timeline shows the items learned from its turns.
                if q.thread.is_some() {
                    let from_thread = r.parents.iter().any(|p| {
                        self.get(p)
                            .is_some_and(|t| Some(&t.thread) == q.thread.as_ref())
                    });
                    let users_match = thread_users.as_ref().is_some_and(|u| u.contains(&r.user));
                    if !from_thread || !users_match {
                        continue;
                    }
                }
                if let (Some(m), true) = (&r.item, in_range(r.created_at)) {
                    entries.push(TimelineEntry {
                        id: r.id.clone(),
                        at: r.created_at,
                        kind: Some(m.kind),
                        thread: String::new(),
                        user: r.user.clone(),
                        text: r.input.clone(),
                    });
                }
            }
        }
        crate::sort::sort_by(&mut entries, |a, b| {
            a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id))
        });
        if entries.len() > q.limit {
            entries.drain(..entries.len() - q.limit);
        }
        let mut days: Vec<TimelineDay> = Vec::new();
        for e in entries {
            let date = civil::format_day(e.at, q.offset_minutes);
            match days.last_mut() {
                Some(d) if d.date == date => d.entries.push(e),
                _ => days.push(TimelineDay {
                    date,
                    entries: std::vec![e],
                }),
            }
        }
        Ok(days)
    }
}

fn excerpt(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(EXCERPT_CHARS) {
        Some((at, _)) => std::format!("{}…", &flat[..at]),
        None => flat,
    }
}
