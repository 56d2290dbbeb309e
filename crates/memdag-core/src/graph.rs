//! The entity graph: long-term memory items with an object are edges between entities.
//!
//! An item with a `relation` and an `object` is an edge from its subject (or, when it names
//! none, its user: "Ada lives in Oslo" is `ada —residence→ oslo`) to its object. Entities are
//! canonical names ([`crate::memory::normalize::canonical`]: NFKC, case, whitespace, leading
//! articles, and the aliases of the memory settings), so "Oslo", "oslo " and an alias of it
//! are one node. The edges are indexed by entity (see [`crate::memory::index`]), so a walk
//! reads only the entities it reaches.
//!
//! - [`Store::neighbors`]: the entities within `depth` edges of one, with the edges between;
//! - [`Store::path`]: the shortest paths between two entities (at most [`MAX_PATHS`]), each
//!   edge with its item and the turns it was learned from;
//! - [`Store::subgraph`]: the nodes and edges of a set of entities (or of one user), for
//!   export.
//!
//! Only active items are edges, unless `as_of` asks for the graph as it was; a user named
//! keeps the walk to that user's items and shared ones.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::item::ItemStatus;
use crate::store::Store;
use memdag_types::Slot;

/// The most paths [`Store::path`] returns.
pub const MAX_PATHS: usize = 16;
/// The deepest walk.
pub const MAX_DEPTH: usize = 6;
/// The most edges a neighbourhood or subgraph returns.
pub const MAX_EDGES: usize = 10_000;

/// One edge: a fact between two entities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Edge {
    /// The item.
    pub id: String,
    pub from: String,
    pub relation: String,
    pub to: String,
    pub text: String,
    /// The turns it was learned from.
    pub sources: Vec<String>,
}

/// An entity and how far it is from where the walk began.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub entity: String,
    pub depth: usize,
}

/// A set of entities and the edges among them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subgraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// Which edges a walk may use.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GraphQuery {
    /// Only this user's items and shared ones.
    pub user: Option<String>,
    /// The graph as it was at this time (items valid then), instead of the active items.
    pub as_of: Option<i64>,
    /// The caller's clock: items past their time to live are no edges.
    pub now: Option<i64>,
}

impl Store {
    /// The canonical name of an entity.
    pub fn entity(&self, name: &str) -> String {
        self.items.canonical(name)
    }

    /// The edge an item makes, if it is one under `q`.
    fn edge(&self, slot: Slot, q: &GraphQuery) -> Option<Edge> {
        let r = self.slot(slot)?;
        if !r.visible_to(q.user.as_deref()) {
            return None;
        }
        let as_of;
        let (text, subject, relation, object) = match q.as_of {
            Some(t) => {
                as_of = self.as_of_view(slot, t)?;
                let m = &as_of.meta;
                (&as_of.text, &m.subject, &m.relation, &m.object)
            }
            None => {
                let m = r.item.as_ref()?;
                if m.status != ItemStatus::Active || crate::memory::crud::is_expired(m, q.now) {
                    return None;
                }
                (&r.input, &m.subject, &m.relation, &m.object)
            }
        };
        let from = match subject.as_deref() {
            Some(s) => self.entity(s),
            None if !r.user.is_empty() => self.entity(&r.user),
            None => return None,
        };
        Some(Edge {
            id: r.id.clone(),
            from,
            relation: relation.clone()?,
            to: self.entity(object.as_deref()?),
            text: text.clone(),
            sources: r.parents.clone(),
        })
    }

    /// The edges that touch `entity` (canonical).
    fn edges_of(&self, entity: &str, q: &GraphQuery) -> Vec<Edge> {
        self.items
            .with_entity(entity)
            .filter_map(|s| self.edge(s, q))
            .filter(|e| e.from == entity || e.to == entity)
            .collect()
    }

    /// The entities within `depth` edges of `entity` (itself at depth 0), nearest first, and
    /// the edges among them. [`Error::InvalidInput`] for a depth over [`MAX_DEPTH`].
    pub fn neighbors(&self, entity: &str, depth: usize, q: &GraphQuery) -> Result<Subgraph> {
        crate::scope::user_scope(q.user.as_deref())?;
        if depth > MAX_DEPTH {
            return Err(Error::invalid(std::format!(
                "depth must be at most {MAX_DEPTH}"
            )));
        }
        let start = self.entity(entity);
        let mut seen: BTreeMap<String, usize> = BTreeMap::from([(start.clone(), 0)]);
        let mut edges: BTreeMap<String, Edge> = BTreeMap::new();
        let mut queue = VecDeque::from([(start, 0usize)]);
        while let Some((e, d)) = queue.pop_front() {
            if d >= depth || edges.len() >= MAX_EDGES {
                continue;
            }
            for edge in self.edges_of(&e, q) {
                let other = if edge.from == e { &edge.to } else { &edge.from };
                if !seen.contains_key(other) {
                    seen.insert(other.clone(), d + 1);
                    queue.push_back((other.clone(), d + 1));
                }
                edges.entry(edge.id.clone()).or_insert(edge);
            }
        }
        let mut nodes: Vec<Node> = seen
            .into_iter()
            .map(|(entity, depth)| Node { entity, depth })
            .collect();
        crate::sort::sort_by(&mut nodes, |a, b| {
            a.depth.cmp(&b.depth).then_with(|| a.entity.cmp(&b.entity))
        });
        Ok(Subgraph {
            nodes,
            edges: edges.into_values().collect(),
        })
    }

    /// The shortest paths from `from` to `to` of at most `max_depth` edges, each as its
    /// edges in order (at most [`MAX_PATHS`] paths, in a stable order). Empty when there is
    /// none. Edges are walked both ways.
    pub fn path(
        &self,
        from: &str,
        to: &str,
        max_depth: usize,
        q: &GraphQuery,
    ) -> Result<Vec<Vec<Edge>>> {
        crate::scope::user_scope(q.user.as_deref())?;
        if max_depth > MAX_DEPTH {
            return Err(Error::invalid(std::format!(
                "maxDepth must be at most {MAX_DEPTH}"
            )));
        }
        let (a, b) = (self.entity(from), self.entity(to));
        if a == b {
            return Ok(Vec::new());
        }
        // Breadth-first from `a`, keeping every parent edge at the shortest depth.
        let mut depth: BTreeMap<String, usize> = BTreeMap::from([(a.clone(), 0)]);
        let mut parents: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
        let mut frontier = std::vec![a.clone()];
        let mut found = false;
        for d in 1..=max_depth {
            let mut next: BTreeSet<String> = BTreeSet::new();
            for e in &frontier {
                for edge in self.edges_of(e, q) {
                    let other = if edge.from == *e {
                        edge.to.clone()
                    } else {
                        edge.from.clone()
                    };
                    match depth.get(&other) {
                        Some(&od) if od < d => continue,
                        Some(_) => {}
                        None => {
                            depth.insert(other.clone(), d);
                        }
                    }
                    next.insert(other.clone());
                    parents.entry(other).or_default().push(edge);
                }
            }
            if next.contains(&b) {
                found = true;
                break;
            }
            if next.is_empty() {
                break;
            }
            frontier = next.into_iter().collect();
        }
        if !found {
            return Ok(Vec::new());
        }
        // Unwind from `b` to `a` through the parent edges.
        let mut paths: Vec<Vec<Edge>> = Vec::new();
        let mut stack: Vec<(String, Vec<Edge>)> = std::vec![(b, Vec::new())];
        while let Some((at, tail)) = stack.pop() {
            if paths.len() >= MAX_PATHS {
                break;
            }
            if at == a {
                let mut p = tail;
                p.reverse();
                paths.push(p);
                continue;
            }
            let Some(ins) = parents.get(&at) else {
                continue;
            };
            for edge in ins.iter().rev() {
                let prev = if edge.to == at { &edge.from } else { &edge.to };
                let here = depth.get(&at).copied().unwrap_or(0);
                if depth.get(prev).is_some_and(|&d| d + 1 == here) {
                    let mut t = tail.clone();
                    t.push(edge.clone());
                    stack.push((prev.clone(), t));
                }
            }
        }
        crate::sort::sort_by(&mut paths, |x, y| {
            let ids = |p: &Vec<Edge>| p.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
            ids(x).cmp(&ids(y))
        });
        paths.dedup();
        Ok(paths)
    }

    /// The nodes and edges of `entities` (canonicalised), and every edge between two of them;
    /// with no entities, every edge under `q` (a user's whole graph). [`Error::InvalidInput`]
    /// for an empty or blank user ([`crate::scope`]).
    pub fn subgraph(&self, entities: &[String], q: &GraphQuery) -> Result<Subgraph> {
        crate::scope::user_scope(q.user.as_deref())?;
        let wanted: BTreeSet<String> = entities.iter().map(|e| self.entity(e)).collect();
        let mut edges: BTreeMap<String, Edge> = BTreeMap::new();
        let names: Vec<String> = if wanted.is_empty() {
            self.items.entities().map(String::from).collect()
        } else {
            wanted.iter().cloned().collect()
        };
        for e in &names {
            for edge in self.edges_of(e, q) {
                let inside =
                    wanted.is_empty() || (wanted.contains(&edge.from) && wanted.contains(&edge.to));
                if inside && edges.len() < MAX_EDGES {
                    edges.entry(edge.id.clone()).or_insert(edge);
                }
            }
        }
        let mut nodes: BTreeSet<String> = wanted;
        for e in edges.values() {
            nodes.insert(e.from.clone());
            nodes.insert(e.to.clone());
        }
        Ok(Subgraph {
            nodes: nodes
                .into_iter()
                .map(|entity| Node { entity, depth: 0 })
                .collect(),
            edges: edges.into_values().collect(),
        })
    }
}
