//! Listings for tools such as the memory explorer: threads, users and direct children.
//!
//! The core keeps threads and users as record attributes with private indexes; these
//! listings scan the records once (O(n)), which is fine for a UI but not for a hot path.

use std::collections::BTreeMap;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::fields::to_plain;
use crate::memory::{string, Memory};

/// One thread or user in a listing.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Group {
    name: String,
    /// Records in it.
    count: usize,
    /// The newest `createdAt` in it.
    newest: f64,
}

#[wasm_bindgen]
impl Memory {
    /// Every thread as `{ name, count, newest }`, newest activity first.
    pub fn threads(&self) -> Result<JsValue, JsValue> {
        self.read(|s| {
            to_plain(
                "threads",
                &groups(s.iter().map(|r| (&r.thread, r.created_at))),
            )
        })
    }

    /// Every user as `{ name, count, newest }`, newest activity first.
    pub fn users(&self) -> Result<JsValue, JsValue> {
        self.read(|s| to_plain("users", &groups(s.iter().map(|r| (&r.user, r.created_at)))))
    }

    /// The ids of the direct children of `id` (records naming it as a parent).
    pub fn children(&self, id: &JsValue) -> Result<Vec<String>, JsValue> {
        let id = string("id", id)?;
        self.read(|s| Ok(s.children(&id).to_vec()))
    }
}

fn groups<'a>(items: impl Iterator<Item = (&'a String, i64)>) -> Vec<Group> {
    let mut by: BTreeMap<&str, Group> = BTreeMap::new();
    for (name, at) in items {
        let g = by.entry(name).or_insert_with(|| Group {
            name: name.clone(),
            newest: f64::MIN,
            ..Group::default()
        });
        g.count += 1;
        g.newest = g.newest.max(at as f64);
    }
    let mut out: Vec<Group> = by.into_values().collect();
    out.sort_by(|a, b| b.newest.total_cmp(&a.newest).then(a.name.cmp(&b.name)));
    out
}
