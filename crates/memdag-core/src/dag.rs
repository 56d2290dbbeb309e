//! The causal DAG between turn records, like git's commit graph.
//!
//! Edges point from a record to its parents: the earlier records the agent said it used.
//! Invariant: a parent exists before its child is added, so no cycle can form. The children
//! index is derived from the parents and never persisted.

/// How far a walk goes when the caller names no depth.
pub const DEFAULT_WALK_DEPTH: usize = 64;
/// How many records a walk returns at most when the caller names no limit.
pub const DEFAULT_WALK_LIMIT: usize = 1_000;

use alloc::collections::{BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

/// The children index of the DAG. Parents live on the records themselves.
#[derive(Debug, Default, Clone)]
pub struct Dag {
    /// Hashed, not ordered: nothing iterates it, and opening a store links every edge.
    children: hashbrown::HashMap<String, Vec<String>>,
}

/// Which way a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards parents: what this record was built on.
    Ancestors,
    /// Towards children: what was built on this record.
    Descendants,
}

impl Dag {
    /// Records the edges `child -> parent` for each parent.
    pub fn link(&mut self, child: &str, parents: &[String]) {
        for parent in parents {
            // By reference: a parent's id is copied only when it gains its first child.
            let kids = self.children.entry_ref(parent.as_str()).or_default();
            if !kids.iter().any(|k| k == child) {
                kids.push(child.into());
            }
        }
    }

    /// Removes the edges `child -> parent` for each parent.
    pub fn unlink(&mut self, child: &str, parents: &[String]) {
        for parent in parents {
            if let Some(kids) = self.children.get_mut(parent) {
                kids.retain(|k| k != child);
                if kids.is_empty() {
                    self.children.remove(parent);
                }
            }
        }
    }

    /// The children of `id`, in the order they were linked.
    pub fn children(&self, id: &str) -> &[String] {
        self.children.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Breadth-first walk from `start` (excluded), nearest first, each node once.
    ///
    /// `depth` bounds the number of edges followed, `limit` the number of ids returned.
    /// `parents_of` gives the parents of a node; the children come from this index.
    pub fn walk<'a>(
        &'a self,
        start: &'a str,
        direction: Direction,
        depth: usize,
        limit: usize,
        parents_of: impl Fn(&str) -> Option<&'a [String]>,
    ) -> Vec<&'a str> {
        self.walk_where(start, direction, depth, limit, parents_of, |_| true)
    }

    /// [`Dag::walk`] returning only the nodes `keep` accepts; the others are walked through
    /// but neither returned nor counted towards `limit`.
    pub fn walk_where<'a>(
        &'a self,
        start: &'a str,
        direction: Direction,
        depth: usize,
        limit: usize,
        parents_of: impl Fn(&str) -> Option<&'a [String]>,
        keep: impl Fn(&str) -> bool,
    ) -> Vec<&'a str> {
        // Borrowed ids only: this walk sits on the recall path.
        let mut out: Vec<&'a str> = Vec::new();
        let mut seen: BTreeSet<&'a str> = BTreeSet::new();
        seen.insert(start);
        let mut queue: VecDeque<(&'a str, usize)> = VecDeque::new();
        queue.push_back((start, 0));
        while let Some((id, level)) = queue.pop_front() {
            if out.len() >= limit {
                break;
            }
            if level >= depth {
                continue;
            }
            let next: &'a [String] = match direction {
                Direction::Ancestors => parents_of(id).unwrap_or(&[]),
                Direction::Descendants => self.children(id),
            };
            for n in next {
                if out.len() >= limit {
                    break;
                }
                if seen.insert(n) {
                    if keep(n) {
                        out.push(n);
                    }
                    queue.push_back((n, level + 1));
                }
            }
        }
        out
    }
}

impl Dag {
    /// Forgets every child edge into `id`, once `id` is gone.
    pub fn unlink_all_children(&mut self, id: &str) {
        self.children.remove(id);
    }
}
