//! The one set of what changed since the last change set.
//!
//! Every mutation of a [`crate::Store`] marks what it touched here: a record (added or changed,
//! by id; deleted, by sequence number), a blob (by id), a vector-graph node (by its in-memory
//! id), a named document, a record's use count (by slot), or the store counters. The storage engine drains the set into the next segment and puts it back when the
//! host could not write that change set.

use alloc::collections::BTreeSet;
use alloc::string::String;

/// One thing whose stored form is stale.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Touched {
    /// A record added or changed.
    Record(String),
    /// The record with this sequence number was deleted.
    Removed(u64),
    /// A blob, present or removed.
    Blob(String),
    /// A vector-graph node, by in-memory node id.
    Node(u32),
    /// A named internal document, present or removed (see [`crate::state`]).
    State(String),
    /// The use count of the record in this slot.
    Uses(u32),
    /// The store counters (next sequence number, dimension).
    Counters,
}

/// The set of touched things.
#[derive(Debug, Default, Clone)]
pub struct Dirty {
    set: BTreeSet<Touched>,
}

impl Dirty {
    /// Marks one thing.
    pub fn mark(&mut self, t: Touched) {
        self.set.insert(t);
    }

    /// Whether nothing is marked.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Takes every mark, leaving the set empty.
    pub fn take(&mut self) -> BTreeSet<Touched> {
        core::mem::take(&mut self.set)
    }

    /// Puts marks back, after a failed write.
    pub fn restore(&mut self, marks: impl IntoIterator<Item = Touched>) {
        self.set.extend(marks);
    }
}
