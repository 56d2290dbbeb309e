//! A [`SearchFilter`] compiled against a store: a cheap per-slot predicate.

use std::collections::BTreeSet;

use super::query::{Scope, SearchFilter};
use crate::error::Result;
use crate::item::{ItemMeta, ItemStatus};
use crate::store::Store;
use memdag_types::Slot;

/// A filter ready to test slots of one store.
#[derive(Debug)]
pub struct Compiled<'a> {
    store: &'a Store,
    filter: &'a SearchFilter,
    ids: Option<BTreeSet<Slot>>,
    active: bool,
    /// The store holds items, whose status and expiry every hit must pass.
    items: bool,
}

impl<'a> Compiled<'a> {
    /// Resolves the id subset to slots; unknown ids are dropped. [`crate::Error::InvalidInput`]
    /// for an empty or blank user ([`crate::scope`]): it never means "every user".
    pub fn new(store: &'a Store, filter: &'a SearchFilter) -> Result<Self> {
        crate::scope::user_scope(filter.user.as_deref())?;
        let ids = filter
            .ids
            .as_ref()
            .map(|ids| ids.iter().filter_map(|id| store.slot_of(id)).collect());
        Ok(Compiled {
            store,
            filter,
            ids,
            active: filter.is_active(),
            items: !store.items_by_user.is_empty(),
        })
    }

    /// Whether the filter rejects anything at all.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The slots of the id subset, when there is one.
    pub fn id_slots(&self) -> Option<&BTreeSet<Slot>> {
        self.ids.as_ref()
    }

    /// Whether the live record in `slot` passes. Dead slots never pass.
    pub fn keep(&self, slot: Slot) -> bool {
        if !self.active && !self.items {
            // The liveness bit alone: no read of the record, which misses the cache.
            return self.store.is_live(slot);
        }
        let Some(r) = self.store.slot(slot) else {
            return false;
        };
        let f = self.filter;
        let kind_ok = match &r.item {
            Some(m) => {
                f.scope != Scope::Turns
                    && (f.kinds.is_empty() || f.kinds.contains(&m.kind))
                    && self.status_ok(m)
            }
            None => f.scope != Scope::Items && f.kinds.is_empty(),
        };
        if !self.active {
            return kind_ok;
        }
        kind_ok
            && f.thread.as_ref().is_none_or(|t| *t == r.thread)
            && r.visible_to(f.user.as_deref())
            && f.since.is_none_or(|s| r.created_at >= s)
            && f.until.is_none_or(|u| r.created_at < u)
            && f.tags.iter().all(|t| r.tags.contains(t))
            && self.ids.as_ref().is_none_or(|ids| ids.contains(&slot))
    }

    /// Whether an item's status passes: active (and not past its time to live at `now`)
    /// unless the filter names statuses.
    fn status_ok(&self, m: &ItemMeta) -> bool {
        let expired = crate::memory::crud::is_expired(m, self.filter.now);
        let status = if expired {
            ItemStatus::Expired
        } else {
            m.status
        };
        if self.filter.statuses.is_empty() {
            status == ItemStatus::Active
        } else {
            self.filter.statuses.contains(&status)
        }
    }
}
