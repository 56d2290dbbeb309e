//! In-memory indexes of long-term memory items, derived from the item records and never
//! persisted: a load rebuilds them.
//!
//! - by (user, subject, relation): the items a single-valued relation's new value contradicts;
//! - by (user, subject, object): the items an opposite relation contradicts (`likes` tea vs
//!   `dislikes` tea);
//! - by entity: the items whose subject (or user, when the subject is not named) or object is
//!   an entity, the edges of the entity graph (see `crate::graph`).
//!
//! Items of every status are indexed; lookups filter by status, so as-of queries and the graph
//! can see superseded items too. Names are canonical ([`super::normalize::canonical`]), with
//! the aliases of the settings cached here. A missing subject means the user themself and is
//! indexed as the empty name.

use std::collections::{BTreeMap, BTreeSet};
use std::string::String;
use std::vec::Vec;

use super::normalize::canonical;
use crate::item::ItemMeta;
use crate::record::Record;
use memdag_types::Slot;

type Key = (String, String, String);

/// The item indexes of a store.
#[derive(Debug, Default, Clone)]
pub struct ItemIndex {
    by_relation: BTreeMap<Key, BTreeSet<Slot>>,
    by_object: BTreeMap<Key, BTreeSet<Slot>>,
    by_entity: BTreeMap<String, BTreeSet<Slot>>,
    aliases: BTreeMap<String, String>,
}

/// The canonical subject, relation and object of an item, as the index keys them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triple {
    pub subject: String,
    pub relation: Option<String>,
    pub object: Option<String>,
}

impl ItemIndex {
    /// An empty index that folds the names in `aliases` (alias to canonical name) as one.
    pub fn with_aliases(aliases: BTreeMap<String, String>) -> Self {
        ItemIndex {
            aliases,
            ..ItemIndex::default()
        }
    }

    /// The canonical form of a name under this index's aliases.
    pub fn canonical(&self, name: &str) -> String {
        canonical(name, &self.aliases)
    }

    /// The canonical triple of an item.
    pub fn triple(&self, meta: &ItemMeta) -> Triple {
        Triple {
            subject: meta
                .subject
                .as_deref()
                .map(|s| self.canonical(s))
                .unwrap_or_default(),
            relation: meta.relation.as_deref().map(|r| self.canonical(r)),
            object: meta.object.as_deref().map(|o| self.canonical(o)),
        }
    }

    /// Indexes the item record in `slot`.
    pub(crate) fn add(&mut self, slot: Slot, record: &Record) {
        let Some(keys) = self.keys(record) else {
            return;
        };
        if let Some(k) = keys.relation {
            self.by_relation.entry(k).or_default().insert(slot);
        }
        if let Some(k) = keys.object {
            self.by_object.entry(k).or_default().insert(slot);
        }
        for e in keys.entities {
            self.by_entity.entry(e).or_default().insert(slot);
        }
    }

    /// Forgets the item record in `slot`.
    pub(crate) fn remove(&mut self, slot: Slot, record: &Record) {
        let Some(keys) = self.keys(record) else {
            return;
        };
        if let Some(k) = keys.relation {
            forget(&mut self.by_relation, k, slot);
        }
        if let Some(k) = keys.object {
            forget(&mut self.by_object, k, slot);
        }
        for e in keys.entities {
            forget(&mut self.by_entity, e, slot);
        }
    }

    fn keys(&self, record: &Record) -> Option<Keys> {
        let t = self.triple(record.item.as_ref()?);
        let user = &record.user;
        // An edge of the entity graph: from the subject (the user, when it names none) to the
        // object.
        let mut entities = Vec::new();
        if t.object.is_some() {
            if !t.subject.is_empty() {
                entities.push(t.subject.clone());
            } else if !user.is_empty() {
                entities.push(self.canonical(user));
            }
        }
        entities.extend(t.object.clone());
        Some(Keys {
            relation: t.relation.map(|r| (user.clone(), t.subject.clone(), r)),
            object: t.object.map(|o| (user.clone(), t.subject, o)),
            entities,
        })
    }

    /// Items of `user` with this canonical subject and relation.
    pub fn with_relation(&self, user: &str, subject: &str, relation: &str) -> Vec<Slot> {
        lookup(&self.by_relation, user, subject, relation)
    }

    /// Items of `user` with this canonical subject and object.
    pub fn with_object(&self, user: &str, subject: &str, object: &str) -> Vec<Slot> {
        lookup(&self.by_object, user, subject, object)
    }

    /// Items whose canonical subject or object is `entity`.
    pub fn with_entity(&self, entity: &str) -> impl Iterator<Item = Slot> + '_ {
        self.by_entity.get(entity).into_iter().flatten().copied()
    }

    /// Every entity, in order.
    pub fn entities(&self) -> impl Iterator<Item = &str> {
        self.by_entity.keys().map(String::as_str)
    }
}

fn lookup(map: &BTreeMap<Key, BTreeSet<Slot>>, user: &str, a: &str, b: &str) -> Vec<Slot> {
    map.get(&(user.into(), a.into(), b.into()))
        .map(|s| s.iter().copied().collect())
        .unwrap_or_default()
}

/// The keys one item is indexed under.
struct Keys {
    relation: Option<Key>,
    object: Option<Key>,
    entities: Vec<String>,
}

fn forget<K: Ord>(map: &mut BTreeMap<K, BTreeSet<Slot>>, key: K, slot: Slot) {
    if let Some(set) = map.get_mut(&key) {
        set.remove(&slot);
        if set.is_empty() {
            map.remove(&key);
        }
    }
}
