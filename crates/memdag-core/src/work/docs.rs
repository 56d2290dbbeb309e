//! Where working memory is kept: one document per (user, thread), and how documents written
//! before working memory was per user are read.
//!
//! A thread id such as `default` is commonly reused by different users, so a thread's
//! working memory belongs to the user who changes it: the document
//! `work-of/<user length>/<user>/<thread>` (`work-of/0//<thread>` for no user). The length
//! makes the name unambiguous whatever the user and thread hold.
//!
//! Before, a thread had one document, `work/<thread>`, changed by whoever named the thread.
//! Such a *legacy* document is read as its [`legacy_owner`]'s: the one user who made every
//! change in its whole history. A history with changes by several users, or cut to
//! [`MAX_HISTORY`] (so earlier changes are unknown), cannot be given to anyone: it is read as
//! the working memory of no user, which only a read that names no user sees. The first change
//! its owner makes moves it to the owner's document and removes the legacy one.

use std::format;
use std::string::String;
use std::vec::Vec;

use super::{WorkingMemory, MAX_HISTORY, WORK_PREFIX};
use crate::codec::from_msgpack;
use crate::store::Store;

/// The document prefix of working memory per user and thread.
pub const WORK_OF_PREFIX: &str = "work-of/";

/// The document of `user`'s (`""`: no user's) working memory of `thread`.
pub(crate) fn doc_name(user: &str, thread: &str) -> String {
    format!("{WORK_OF_PREFIX}{}/{user}/{thread}", user.len())
}

/// The (user, thread) a document name of [`doc_name`] holds.
fn parse_doc_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(WORK_OF_PREFIX)?;
    let (len, rest) = rest.split_once('/')?;
    let len: usize = len.parse().ok()?;
    let user = rest.get(..len)?;
    let thread = rest.get(len..)?.strip_prefix('/')?;
    Some((user, thread))
}

/// The user a legacy document belongs to: the one user of every change of a whole history,
/// else `""` (no user). See the module docs.
pub fn legacy_owner(wm: &WorkingMemory) -> &str {
    let Some(first) = wm.history.first() else {
        return "";
    };
    let whole = wm.history.len() < MAX_HISTORY;
    if whole && wm.history.iter().all(|c| c.user == first.user) {
        &first.user
    } else {
        ""
    }
}

impl Store {
    /// The document bytes of one working memory as stored, decoded.
    fn work_doc(&self, name: &str) -> Option<WorkingMemory> {
        self.state(name)
            .and_then(|b| from_msgpack::<WorkingMemory>(name, b).ok())
    }

    /// `user`'s working memory of `thread` and the legacy document it comes from, if it is
    /// still there (see the module docs); `None` if there is none.
    pub(crate) fn stored_work(
        &self,
        user: &str,
        thread: &str,
    ) -> Option<(WorkingMemory, Option<String>)> {
        if let Some(wm) = self.work_doc(&doc_name(user, thread)) {
            return Some((wm, None));
        }
        let legacy = crate::state::name(WORK_PREFIX, thread);
        let mut wm = self.work_doc(&legacy)?;
        if legacy_owner(&wm) != user {
            return None;
        }
        wm.user = user.into();
        wm.thread = thread.into();
        Some((wm, Some(legacy)))
    }

    /// Every stored working memory as (user, thread), legacy documents under their owner,
    /// sorted.
    pub(crate) fn work_keys(&self) -> Vec<(String, String)> {
        let mut keys: Vec<(String, String)> = self
            .state_names(WORK_OF_PREFIX)
            .filter_map(parse_doc_name)
            .map(|(u, t)| (u.into(), t.into()))
            .collect();
        for name in self.state_names(WORK_PREFIX) {
            let thread = &name[WORK_PREFIX.len()..];
            if let Some(wm) = self.work_doc(name) {
                keys.push((legacy_owner(&wm).into(), thread.into()));
            }
        }
        crate::sort::sort(&mut keys);
        keys.dedup();
        keys
    }

    /// The legacy documents whose history names `user` at all (for erasure).
    pub(crate) fn legacy_work_of(&self, user: &str) -> Vec<String> {
        self.state_names(WORK_PREFIX)
            .filter(|name| {
                self.work_doc(name)
                    .is_some_and(|wm| wm.user == user || wm.history.iter().any(|c| c.user == user))
            })
            .map(String::from)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::work::{WorkChange, WorkOp};

    #[test]
    fn names_round_trip_whatever_the_user_and_thread_hold() {
        for (u, t) in [("", "t"), ("ada", "default"), ("a/b", "c/d"), ("7/x", "/")] {
            assert_eq!(parse_doc_name(&doc_name(u, t)), Some((u, t)));
        }
        assert_ne!(doc_name("a/", "b"), doc_name("a", "/b"));
    }

    fn change(user: &str) -> WorkChange {
        WorkChange {
            at: 1,
            field: "goal".into(),
            op: WorkOp::Set,
            value: None,
            previous: None,
            stale: false,
            user: user.into(),
        }
    }

    #[test]
    fn a_legacy_document_is_one_users_only_when_that_user_made_its_whole_history() {
        let mut wm = WorkingMemory::default();
        assert_eq!(legacy_owner(&wm), "");
        wm.history = std::vec![change("bob"), change("bob")];
        assert_eq!(legacy_owner(&wm), "bob");
        wm.history.push(change("alice"));
        assert_eq!(legacy_owner(&wm), "", "mixed");
        wm.history = std::vec![change("bob"); MAX_HISTORY];
        assert_eq!(legacy_owner(&wm), "", "cut: earlier changes are unknown");
    }

    /// A store holding the legacy document `work/<thread>` made by the changes of `users`.
    fn with_legacy(thread: &str, users: &[&str]) -> Store {
        let mut s = Store::new();
        let wm = WorkingMemory {
            thread: thread.into(),
            user: users.last().map_or("", |u| u).into(),
            fields: std::collections::BTreeMap::from([(
                "goal".into(),
                crate::work::WorkField {
                    value: serde_json::json!("legacy goal"),
                    updated_at: 1,
                    version: users.len() as u32,
                },
            )]),
            history: users.iter().map(|u| change(u)).collect(),
        };
        let doc = crate::state::name(WORK_PREFIX, thread);
        s.put_state(&doc, crate::codec::to_msgpack(&wm).unwrap());
        s
    }

    fn goal(s: &Store, user: Option<&str>) -> Option<serde_json::Value> {
        let wm = s.working_memory("tb", user).unwrap();
        wm.fields.get("goal").map(|f| f.value.clone())
    }

    #[test]
    fn a_legacy_document_shows_only_to_its_owner_and_moves_on_their_first_change() {
        let mut s = with_legacy("tb", &["bob", "bob"]);
        assert_eq!(
            goal(&s, Some("bob")),
            Some(serde_json::json!("legacy goal"))
        );
        assert_eq!(goal(&s, Some("alice")), None);
        assert_eq!(goal(&s, None), None);
        assert_eq!(s.work_threads(), ["tb"]);
        s.update_work(&crate::work::WorkUpdate {
            thread: "tb".into(),
            field: "notes".into(),
            op: WorkOp::Set,
            value: Some(serde_json::json!("n")),
            at: 2,
            user: Some("bob".into()),
        })
        .unwrap();
        assert!(s.state(&crate::state::name(WORK_PREFIX, "tb")).is_none());
        let wm = s.working_memory("tb", Some("bob")).unwrap();
        assert_eq!(
            wm.fields.len(),
            2,
            "the legacy fields moved with the change"
        );
        assert_eq!(wm.history.len(), 3);
        assert_eq!(s.work_keys(), [("bob".into(), "tb".into())]);
    }

    #[test]
    fn a_mixed_legacy_document_is_no_ones_and_erasing_a_user_in_it_removes_it() {
        let mut s = with_legacy("tb", &["bob", "alice"]);
        assert_eq!(goal(&s, Some("bob")), None);
        assert_eq!(goal(&s, Some("alice")), None);
        assert_eq!(goal(&s, None), Some(serde_json::json!("legacy goal")));
        let gone = s.forget_user("alice").unwrap();
        assert_eq!(gone.work, ["tb"]);
        assert!(s.work_threads().is_empty());
    }
}
