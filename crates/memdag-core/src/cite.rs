//! Citations: the record ids a model's reply cites, and turns whose unknown parents are
//! dropped instead of refused.
//!
//! Recall shows every record as `[id]` and asks the model to cite what it used; the agent then
//! adds its turn with those ids as parents. [`Store::cited`] finds the `[id]`s in a reply and
//! keeps, in order and once each, those that name a record (that the user may see). A model
//! may still cite an id that does not exist (a typo, an id from another store):
//! [`Store::add_turn_with`] with [`AddOptions::drop_unknown_parents`] adds the turn without
//! them and reports them, where [`Store::add_turn`] refuses the whole turn.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::record::{NewTurn, Record, MAX_ID_LEN};
use crate::store::Store;

/// How [`Store::add_turn_with`] treats a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AddOptions {
    /// Add the turn without the parents that are not in the store (reported in
    /// [`Added::dropped`]) instead of refusing it with `UNKNOWN_PARENT`.
    pub drop_unknown_parents: bool,
}

/// What [`Store::add_turn_with`] added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub record: Record,
    /// The parents left out because no record has their id.
    pub dropped: Vec<String>,
}

impl Store {
    /// The ids cited as `[id]` in `text` that name a record `user` may see (every record for
    /// `None`), in the order of their first citation. [`crate::Error::InvalidInput`] for an
    /// empty or blank user ([`crate::scope`]).
    pub fn cited(&self, text: &str, user: Option<&str>) -> crate::Result<Vec<String>> {
        let user = crate::scope::user_scope(user)?;
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            rest = &rest[open + 1..];
            let Some(close) = rest.find([']', '\n']) else {
                break;
            };
            let candidate = &rest[..close];
            if rest[close..].starts_with(']')
                && !candidate.is_empty()
                && candidate.len() <= MAX_ID_LEN
                && self.get(candidate).is_some_and(|r| r.visible_to(user))
                && seen.insert(candidate)
            {
                out.push(String::from(candidate));
            }
        }
        Ok(out)
    }

    /// [`Store::add_turn`] with options (see [`AddOptions`]).
    pub fn add_turn_with(&mut self, mut turn: NewTurn, options: AddOptions) -> Result<Added> {
        let mut dropped = Vec::new();
        if options.drop_unknown_parents {
            let (known, unknown): (Vec<String>, Vec<String>) = turn
                .parents
                .into_iter()
                .partition(|p| self.get(p).is_some());
            turn.parents = known;
            dropped = unknown;
        }
        let record = self.add_turn(turn)?.clone();
        Ok(Added { record, dropped })
    }
}
