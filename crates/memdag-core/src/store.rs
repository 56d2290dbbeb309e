//! The in-memory store: records, the DAG, the thread and user indexes, and the change set.
//!
//! Every mutation validates first and mutates second, so a refused call changes nothing.
//! Each mutation marks the storage keys it touched; [`Store::take_changes`] (feature `std`)
//! encodes them for the host to persist, and [`Store::load`] rebuilds a store from them.
//! See [`crate::codec`] for the key layout and value format.

use alloc::borrow::Cow;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::dag::{Dag, Direction};
use crate::dirty::{Dirty, Touched};
use crate::error::{Error, Result};
use crate::hash::Fnv;
use crate::ids::IdIndex;
use crate::limits::Limits;
use crate::record::{NewTurn, Record, MAX_ID_LEN};
use crate::slots::Slots;
use serde::{Deserialize, Serialize};

pub use memdag_types::Slot;

/// Order key of a record within a thread or user: creation time, then insertion order.
type Chrono = (i64, u64, Slot);

/// The memory of one agent or user.
#[derive(Debug, Default)]
pub struct Store {
    pub(crate) slots: Slots,
    pub(crate) by_id: IdIndex,
    by_thread: BTreeMap<String, BTreeSet<Chrono>>,
    /// Turns only: a user's long-term memory items are in `items_by_user`.
    by_user: BTreeMap<String, BTreeSet<Chrono>>,
    pub(crate) items_by_user: BTreeMap<String, BTreeSet<Chrono>>,
    dag: Dag,
    pub(crate) next_seq: u64,
    /// What changed since the last change set (see [`crate::dirty`]).
    pub(crate) dirty: Dirty,
    /// The Mode-2 search indexes, kept in step with the records (see [`crate::search`]).
    #[cfg(feature = "std")]
    pub(crate) search: crate::index::SearchIndex,
    /// Text blobs by id, e.g. full tool outputs kept by reference (see [`crate::blob`]).
    pub(crate) blobs: BTreeMap<String, String>,
    /// Named internal documents: a thread's working memory, the memory settings (see
    /// [`crate::state`]).
    #[cfg(feature = "std")]
    pub(crate) state: BTreeMap<String, Vec<u8>>,
    /// How often recall returned each record; persisted as use counts.
    #[cfg(feature = "std")]
    pub(crate) access: BTreeMap<Slot, u32>,
    /// What the storage engine knows of the stored form (see [`crate::storage`]).
    #[cfg(feature = "std")]
    pub(crate) persist: crate::storage::state::PersistState,
    /// What a turn may hold (see [`crate::limits`]).
    limits: Limits,
    /// The indexes of long-term memory items (see [`crate::memory::index`]).
    #[cfg(feature = "std")]
    pub(crate) items: crate::index::items::ItemIndex,
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The limits new turns are checked against.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Sets the limits for turns added from now on. Records already stored are kept as
    /// they are. [`Error::InvalidInput`] if a limit is zero.
    pub fn set_limits(&mut self, limits: Limits) -> Result<()> {
        limits.validate()?;
        self.limits = limits;
        Ok(())
    }

    /// Number of live records.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether the store holds no record.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Adds one turn. Its parents must already exist; otherwise nothing is written and
    /// [`Error::UnknownParents`] lists the missing ids.
    pub fn add_turn(&mut self, turn: NewTurn) -> Result<&Record> {
        #[allow(unused_mut)]
        let mut record = self.prepare(turn)?;
        #[cfg(feature = "std")]
        let vector = self.search.admit(&mut record)?;
        let id = record.id.clone();
        let slot = self.insert(record);
        #[cfg(feature = "std")]
        if let Some(r) = self.slots[slot as usize].as_ref() {
            for node in self.search.add(slot, r, vector.as_deref(), &self.slots) {
                self.dirty.mark(Touched::Node(node));
            }
        }
        self.next_seq += 1;
        self.dirty.mark(Touched::Counters);
        self.dirty.mark(Touched::Record(id));
        Ok(self.slots[slot as usize].as_ref().expect("just inserted"))
    }

    /// Validates a new turn and builds its record, without changing the store.
    fn prepare(&self, turn: NewTurn) -> Result<Record> {
        if turn.thread.is_empty() {
            return Err(Error::invalid("thread must not be empty"));
        }
        self.limits.check_turn(&turn)?;
        // A turn that states no importance gets the estimate of its own signals.
        let importance = turn
            .importance
            .unwrap_or_else(|| crate::importance::estimate(&turn).importance);
        if !(0.0..=1.0).contains(&importance) {
            return Err(Error::invalid(format!(
                "importance must be in 0..=1, got {importance}"
            )));
        }
        // Duplicates dropped in O(p log p), keeping the first occurrence's order.
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut keep = Vec::with_capacity(turn.parents.len());
        for (i, p) in turn.parents.iter().enumerate() {
            if seen.insert(p.as_str()) {
                keep.push(i);
            }
        }
        drop(seen);
        let parents: Vec<String> = keep.into_iter().map(|i| turn.parents[i].clone()).collect();
        let missing: Vec<String> = parents
            .iter()
            .filter(|p| !self.contains(p))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Error::UnknownParents { ids: missing });
        }
        if let Some(e) = &turn.embedding {
            if e.is_empty() || e.iter().any(|x| !x.is_finite()) {
                return Err(Error::invalid("embedding must be non-empty and finite"));
            }
        }
        let seq = self.next_seq;
        let id = match turn.id {
            Some(id) => {
                validate_id(&id)?;
                if self.contains(&id) {
                    return Err(Error::DuplicateId { id });
                }
                id
            }
            None => self.derive_id(
                &turn.thread,
                &turn.user,
                turn.created_at,
                &turn.input,
                &turn.output,
                seq,
            ),
        };
        Ok(Record {
            id,
            seq,
            thread: turn.thread,
            user: turn.user,
            created_at: turn.created_at,
            input: turn.input,
            output: turn.output,
            steps: turn.steps,
            parents,
            tags: turn.tags,
            importance,
            compact: turn.compact,
            embedding: turn.embedding,
            item: None,
        })
    }

    /// A content-derived id: FNV-1a over the fields and the sequence number, as 16 hex digits.
    fn derive_id(
        &self,
        thread: &str,
        user: &str,
        at: i64,
        input: &str,
        output: &str,
        seq: u64,
    ) -> String {
        let mut salt = 0u64;
        loop {
            let mut h = Fnv::new();
            for part in [
                thread.as_bytes(),
                user.as_bytes(),
                input.as_bytes(),
                output.as_bytes(),
            ] {
                h.write(part);
                h.write(&[0xff]);
            }
            h.write(&at.to_le_bytes());
            h.write(&seq.to_le_bytes());
            h.write(&salt.to_le_bytes());
            let id = format!("{:016x}", h.finish());
            if !self.contains(&id) {
                return id;
            }
            salt += 1;
        }
    }

    /// Puts a validated record into every index. Returns its slot.
    pub(crate) fn insert(&mut self, record: Record) -> Slot {
        let slot = self.slots.len() as Slot;
        let chrono = (record.created_at, record.seq, slot);
        if record.is_item() {
            add_chrono(&mut self.items_by_user, &record.user, chrono);
            #[cfg(feature = "std")]
            self.items.add(slot, &record);
        } else {
            add_chrono(&mut self.by_thread, &record.thread, chrono);
            add_chrono(&mut self.by_user, &record.user, chrono);
        }
        self.dag.link(&record.id, &record.parents);
        self.by_id.insert(&record.id, slot);
        self.slots.push(record)
    }

    /// Builds the thread and user orders of every record at once: each set is sorted first
    /// and then built in pieces ([`crate::sort::sorted_set`]), where inserting one record at a time
    /// rebalanced the trees at every step (a fifth of building a loaded store). A run holds
    /// slots (4 bytes), not their order keys (24): at the end of an open, in a memory the open
    /// has filled, a 128 MiB Worker ran out building a 100k-record user's run of keys.
    #[cfg(feature = "std")]
    fn build_orders(&mut self) {
        type Runs = BTreeMap<String, Vec<Slot>>;
        // A call per record; a thread's or user's first record starts its run out of line,
        // which keeps `push` small for V8 to optimize early in a first open.
        fn push(runs: &mut Runs, key: &str, slot: Slot) {
            match runs.get_mut(key) {
                Some(run) => run.push(slot),
                None => start(runs, key, slot),
            }
        }
        #[cold]
        #[inline(never)]
        fn start(runs: &mut Runs, key: &str, slot: Slot) {
            runs.insert(key.into(), alloc::vec![slot]);
        }
        let (mut threads, mut users, mut item_users) = (Runs::new(), Runs::new(), Runs::new());
        for (slot, r) in self.slots.iter().enumerate() {
            let Some(r) = r else { continue };
            let slot = slot as Slot;
            if r.is_item() {
                push(&mut item_users, &r.user, slot);
            } else {
                push(&mut threads, &r.thread, slot);
                push(&mut users, &r.user, slot);
            }
        }
        let slots = &self.slots;
        // Every slot a run holds is live.
        let chrono = |slot: Slot| {
            let r = slots[slot as usize]
                .as_ref()
                .expect("a run's slots hold records");
            (r.created_at, r.seq, slot)
        };
        let build = |runs: Runs| -> BTreeMap<String, BTreeSet<Chrono>> {
            runs.into_iter()
                .map(|(key, mut run)| {
                    // Slots follow sequence order, so a run is sorted already unless times
                    // go back: the sort then only checks.
                    run.sort_unstable_by_key(|&s| chrono(s));
                    (key, crate::sort::sorted_set(run.into_iter().map(chrono)))
                })
                .collect()
        };
        self.by_thread = build(threads);
        self.by_user = build(users);
        self.items_by_user = build(item_users);
    }

    pub(crate) fn mark_dirty(&mut self, id: &str) {
        self.dirty.mark(Touched::Record(id.into()));
    }

    /// The record with this id. Its `embedding` is `None` when the vector index holds the
    /// vector: a store keeps one copy of each vector. Read it with [`Store::embedding`].
    pub fn get(&self, id: &str) -> Option<&Record> {
        self.slot_of(id).and_then(|s| self.slot(s))
    }

    /// The embedding of the record with this id, wherever the store keeps it: as it was given
    /// (or as the built-in embedder made it), except in a store whose vector precision is
    /// [`Precision::Int8`](crate::index::vecstore::Precision), which keeps no `f32` copy: there
    /// it is what the stored int8 codes stand for (each component within half a step of the
    /// given one), at the given norm.
    pub fn embedding(&self, id: &str) -> Option<Cow<'_, [f32]>> {
        self.slot_of(id).and_then(|s| self.embedding_at(s))
    }

    /// The embedding of a record, this store's own or a copy of one: [`Store::embedding`] of
    /// its id, else the record's own field.
    pub fn embedding_of<'a>(&'a self, record: &'a Record) -> Option<Cow<'a, [f32]>> {
        self.embedding(&record.id)
            .or(record.embedding.as_deref().map(Cow::Borrowed))
    }

    /// The embedding of the record in a slot.
    pub(crate) fn embedding_at(&self, slot: Slot) -> Option<Cow<'_, [f32]>> {
        #[cfg(feature = "std")]
        if let Some(v) = self.search.vectors.vector(slot) {
            return Some(v);
        }
        self.slot(slot)?.embedding.as_deref().map(Cow::Borrowed)
    }

    /// The record in a slot, if it is live.
    pub fn slot(&self, slot: Slot) -> Option<&Record> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// Whether `slot` holds a live record: [`Store::slot`] without reading the record.
    #[inline]
    #[cfg(feature = "std")]
    pub(crate) fn is_live(&self, slot: Slot) -> bool {
        self.slots.is_live(slot)
    }

    /// The slot of a live record.
    pub fn slot_of(&self, id: &str) -> Option<Slot> {
        self.by_id.get(id, |s| self.slot(s).map(|r| r.id.as_str()))
    }

    /// Whether a live record has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.slot_of(id).is_some()
    }

    /// Every live record, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &Record> {
        self.slots.iter().flatten()
    }

    /// The `n` newest records of a thread, newest first.
    pub fn recent(&self, thread: &str, n: usize) -> Vec<&Record> {
        self.newest(self.by_thread.get(thread), n)
    }

    /// The `n` newest records of a thread that `user` may see ([`Record::visible_to`]),
    /// newest first; `None` is store-wide. [`Error::InvalidInput`] for an empty or blank user
    /// ([`crate::scope`]).
    pub fn recent_as(&self, user: Option<&str>, thread: &str, n: usize) -> Result<Vec<&Record>> {
        let user = crate::scope::user_scope(user)?;
        let Some(set) = self.by_thread.get(thread) else {
            return Ok(Vec::new());
        };
        Ok(set
            .iter()
            .rev()
            .filter_map(|&(_, _, slot)| self.slot(slot))
            .filter(|r| r.visible_to(user))
            .take(n)
            .collect())
    }

    /// The `n` newest records of a user across all threads, newest first.
    /// [`Error::InvalidInput`] for an empty or blank user ([`crate::scope::check_user`]).
    pub fn by_user(&self, user: &str, n: usize) -> Result<Vec<&Record>> {
        Ok(self.newest_of_user(crate::scope::check_user(user)?, n))
    }

    /// [`Store::by_user`] for a user an entry point has checked.
    pub(crate) fn newest_of_user(&self, user: &str, n: usize) -> Vec<&Record> {
        self.newest(self.by_user.get(user), n)
    }

    /// The ids of every record of `user`, turns (oldest first) then long-term items (oldest
    /// first).
    pub fn ids_of_user(&self, user: &str) -> Vec<String> {
        [self.by_user.get(user), self.items_by_user.get(user)]
            .into_iter()
            .flatten()
            .flat_map(|set| {
                set.iter()
                    .filter_map(|&(_, _, slot)| self.slot(slot).map(|r| r.id.clone()))
            })
            .collect()
    }

    /// Every thread as a [`Group`], newest activity first (then by name).
    pub fn thread_groups(&self) -> Vec<Group> {
        groups([&self.by_thread])
    }

    /// Every user with turns or items as a [`Group`] (turns and items counted together),
    /// newest activity first (then by name).
    pub fn user_groups(&self) -> Vec<Group> {
        groups([&self.by_user, &self.items_by_user])
    }

    fn newest(&self, set: Option<&BTreeSet<Chrono>>, n: usize) -> Vec<&Record> {
        set.map(|s| {
            s.iter()
                .rev()
                .take(n)
                .filter_map(|&(_, _, slot)| self.slot(slot))
                .collect()
        })
        .unwrap_or_default()
    }

    /// The ancestors of `id`, breadth-first and nearest first, at most `depth` edges away and
    /// at most `limit` of them. [`Error::NotFound`] if `id` is unknown.
    pub fn ancestors(&self, id: &str, depth: usize, limit: usize) -> Result<Vec<&Record>> {
        self.walk(id, Direction::Ancestors, depth, limit, None)
    }

    /// The descendants of `id`, breadth-first and nearest first. See [`Store::ancestors`].
    pub fn descendants(&self, id: &str, depth: usize, limit: usize) -> Result<Vec<&Record>> {
        self.walk(id, Direction::Descendants, depth, limit, None)
    }

    /// A walk from `id` on behalf of `user`: only records the user may see
    /// ([`Record::visible_to`]) are returned, and `id` itself must be one of them, else
    /// [`Error::NotFound`] (so a walk does not even reveal that another user's id exists).
    /// The walk passes through records the user may not see, without returning or counting
    /// them, so the user's ancestry across a shared thread stays connected. `None` is
    /// store-wide; an empty or blank user is [`Error::InvalidInput`] ([`crate::scope`]).
    pub fn walk_as(
        &self,
        user: Option<&str>,
        id: &str,
        direction: Direction,
        depth: usize,
        limit: usize,
    ) -> Result<Vec<&Record>> {
        let user = crate::scope::user_scope(user)?;
        self.walk(id, direction, depth, limit, user)
    }

    /// The record with this id if `user` may see it ([`Record::visible_to`]); `None` is
    /// store-wide. [`Error::InvalidInput`] for an empty or blank user ([`crate::scope`]).
    pub fn get_as(&self, user: Option<&str>, id: &str) -> Result<Option<&Record>> {
        let user = crate::scope::user_scope(user)?;
        Ok(self.get(id).filter(|r| r.visible_to(user)))
    }

    fn walk(
        &self,
        id: &str,
        direction: Direction,
        depth: usize,
        limit: usize,
        user: Option<&str>,
    ) -> Result<Vec<&Record>> {
        let start = self
            .get(id)
            .filter(|r| r.visible_to(user))
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        let ids = self.dag.walk_where(
            &start.id,
            direction,
            depth,
            limit,
            |n| self.get(n).map(|r| r.parents.as_slice()),
            |n| user.is_none() || self.get(n).is_some_and(|r| r.visible_to(user)),
        );
        Ok(ids.into_iter().filter_map(|i| self.get(i)).collect())
    }

    /// Adds the DAG edges from `id` to `parents`, which its record already names.
    #[cfg(feature = "std")]
    pub(crate) fn link_parents(&mut self, id: &str, parents: &[String]) {
        self.dag.link(id, parents);
    }

    /// The ids of the direct children of `id`.
    pub fn children(&self, id: &str) -> &[String] {
        self.dag.children(id)
    }

    /// Deletes a record and splices it out of the DAG.
    ///
    /// Each child of the deleted record replaces it, in its parent list, with the deleted
    /// record's own parents (keeping order, without duplicates). So ancestry through the
    /// deleted record is preserved and no edge dangles. The children are rewritten, and so
    /// appear in the change set. The blobs the record referenced (full tool outputs, see
    /// [`crate::blob`]) go with it unless another live record references them too. Returns
    /// the deleted record.
    pub fn delete(&mut self, id: &str) -> Result<Record> {
        let record = self.unlink(id)?;
        #[cfg(feature = "std")]
        self.drop_unreferenced_blobs(core::slice::from_ref(&record));
        Ok(record)
    }

    /// [`Store::delete`] without the blob collection.
    pub(crate) fn unlink(&mut self, id: &str) -> Result<Record> {
        #[allow(unused_variables)]
        let (slot, record) = self.detach(id)?;
        #[cfg(feature = "std")]
        if let Some((_, repaired)) = self.search.remove(slot, &record, &self.slots) {
            for node in repaired {
                self.dirty.mark(Touched::Node(node));
            }
        }
        Ok(record)
    }

    /// [`Store::unlink`] but for the search index: the record leaves its slot, the id index,
    /// the time and item indexes and the DAG, and its children are spliced to its parents;
    /// the caller takes it out of the search index (`SearchIndex::remove`, or `remove_many`
    /// for many at once). Returns its slot and the record, its vector included.
    pub(crate) fn detach(&mut self, id: &str) -> Result<(Slot, Record)> {
        let slot = self
            .slot_of(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        #[allow(unused_mut)]
        let mut record = self.slots.take(slot).expect("slot of a live id is live");
        // The deleted record is handed back whole, its vector out of the index included.
        #[cfg(feature = "std")]
        if let Some(v) = self.search.vectors.vector(slot) {
            record.embedding = Some(v.to_vec());
        }
        self.by_id.remove(id, slot);
        #[cfg(feature = "std")]
        self.access.remove(&slot);
        let chrono = (record.created_at, record.seq, slot);
        if record.is_item() {
            remove_chrono(&mut self.items_by_user, &record.user, &chrono);
            #[cfg(feature = "std")]
            self.items.remove(slot, &record);
        } else {
            remove_chrono(&mut self.by_thread, &record.thread, &chrono);
            remove_chrono(&mut self.by_user, &record.user, &chrono);
        }
        self.dag.unlink(id, &record.parents);
        let children: Vec<String> = self.dag.children(id).to_vec();
        for child in &children {
            let Some(cslot) = self.slot_of(child) else {
                continue;
            };
            let Some(crec) = self.slots.get_mut(cslot) else {
                continue;
            };
            // In O(p log p): a set of what is already in, and of the child's own parents.
            let own: BTreeSet<&String> = crec.parents.iter().collect();
            let mut taken: BTreeSet<&String> = BTreeSet::new();
            let mut spliced = Vec::with_capacity(crec.parents.len() + record.parents.len());
            for p in &crec.parents {
                if p == id {
                    for gp in &record.parents {
                        if !own.contains(gp) && taken.insert(gp) {
                            spliced.push(gp.clone());
                        }
                    }
                } else if taken.insert(p) {
                    spliced.push(p.clone());
                }
            }
            drop((own, taken));
            crec.parents = spliced;
            let new_parents = crec.parents.clone();
            self.dag.link(child, &new_parents);
        }
        self.dag.unlink_all_children(id);
        for child in &children {
            self.mark_dirty(child);
        }
        self.dirty.mark(Touched::Removed(record.seq));
        Ok((slot, record))
    }

    /// Replaces the compact node of a record.
    pub fn set_compact(
        &mut self,
        id: &str,
        compact: Option<crate::record::CompactNode>,
    ) -> Result<()> {
        if let Some(c) = &compact {
            self.limits.check_compact(c)?;
        }
        let slot = self
            .slot_of(id)
            .ok_or_else(|| Error::NotFound { id: id.into() })?;
        #[cfg(feature = "std")]
        return self.change_record(slot, None, |r| r.compact = compact);
        #[cfg(not(feature = "std"))]
        {
            if let Some(r) = self.slots.get_mut(slot) {
                r.compact = compact;
            }
            self.mark_dirty(id);
            Ok(())
        }
    }

    /// Whether there are changes not yet taken.
    pub fn has_changes(&self) -> bool {
        #[cfg(feature = "std")]
        if self.persist.must_write() {
            return true;
        }
        !self.dirty.is_empty()
    }

    #[cfg(feature = "std")]
    /// Rebuilds a store from decoded records in sequence order, checking the DAG invariant;
    /// `key_of(i)` names the stored key of the `i`-th record in errors.
    pub(crate) fn from_records(
        records: Vec<Record>,
        next_seq: u64,
        key_of: &dyn Fn(usize) -> String,
    ) -> Result<Self> {
        let mut store = Store::with_records(records, next_seq, key_of)?;
        store.index_records(key_of)?;
        Ok(store)
    }

    /// The first half of [`Store::from_records`]: a store holding `records` (in sequence
    /// order, which is checked) in its slots, not yet indexed by id, in the DAG or in time.
    /// An open restores the search indexes between the two halves, so that what it reads them
    /// from is freed before [`Store::index_records`] makes the store's own indexes.
    #[cfg(feature = "std")]
    pub(crate) fn with_records(
        records: Vec<Record>,
        next_seq: u64,
        key_of: &dyn Fn(usize) -> String,
    ) -> Result<Self> {
        let mut store = Store::new();
        if let Some(i) = records.windows(2).position(|w| w[0].seq >= w[1].seq) {
            return Err(Error::CorruptData {
                key: key_of(i + 1),
                reason: "records out of sequence order".into(),
            });
        }
        // In sequence order, so the last record has the highest number.
        let max_seq = records.last().map_or(0, |r| r.seq + 1);
        store.slots = Slots::from_records(records);
        store.next_seq = next_seq.max(max_seq);
        Ok(store)
    }

    /// The second half of [`Store::from_records`]: indexes the records of the slots by id,
    /// in the DAG, as items and in time, checking that ids are unique and parents present.
    #[cfg(feature = "std")]
    pub(crate) fn index_records(&mut self, key_of: &dyn Fn(usize) -> String) -> Result<()> {
        let store = self;
        store.by_id.try_reserve(store.slots.len())?;
        for slot in 0..store.slots.len() as Slot {
            if !store.index_loaded(slot) {
                return Err(Error::CorruptData {
                    key: key_of(slot as usize),
                    reason: "duplicate record id".into(),
                });
            }
        }
        store.build_orders();
        // A turn's parents existed when it was added, so they come first in sequence order;
        // an item may gain a later source when a later turn corroborates it, so parents are
        // checked once every record is in. Slots follow the order of `records`.
        for slot in 0..store.slots.len() {
            if let Some(p) = store.missing_parent(slot as Slot) {
                return Err(Error::CorruptData {
                    key: key_of(slot),
                    reason: format!("parent {p:?} is missing"),
                });
            }
        }
        Ok(())
    }
}

impl Store {
    /// Indexes the loaded record in `slot` by id, in the DAG and (an item) in the item index;
    /// false when its id is taken. A call per record, for the reason [`crate::storage`] gives
    /// at `stored_vector`.
    #[cfg(feature = "std")]
    #[inline(never)]
    fn index_loaded(&mut self, slot: Slot) -> bool {
        let Store {
            slots,
            by_id,
            dag,
            items,
            ..
        } = self;
        let Some(r) = &slots[slot as usize] else {
            return true;
        };
        let id_of = |s: Slot| slots[s as usize].as_ref().map(|x| x.id.as_str());
        if !by_id.try_insert(&r.id, slot, id_of) {
            return false;
        }
        dag.link(&r.id, &r.parents);
        if r.is_item() {
            items.add(slot, r);
        }
        true
    }

    /// A parent of the record in `slot` that is not in the store, if any.
    #[cfg(feature = "std")]
    fn missing_parent(&self, slot: Slot) -> Option<String> {
        let r = self.slot(slot)?;
        r.parents.iter().find(|p| !self.contains(p)).cloned()
    }
}

/// One thread or user in a listing: its name, how many records it holds, and the newest
/// `created_at` among them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub name: String,
    pub count: usize,
    pub newest: i64,
}

fn groups<const N: usize>(indexes: [&BTreeMap<String, BTreeSet<Chrono>>; N]) -> Vec<Group> {
    let mut by: BTreeMap<&str, Group> = BTreeMap::new();
    for index in indexes {
        for (name, set) in index {
            let g = by.entry(name).or_insert_with(|| Group {
                name: name.clone(),
                count: 0,
                newest: i64::MIN,
            });
            g.count += set.len();
            g.newest = g.newest.max(set.last().map_or(i64::MIN, |c| c.0));
        }
    }
    let mut out: Vec<Group> = by.into_values().collect();
    crate::sort::sort_by(&mut out, |a, b| {
        b.newest.cmp(&a.newest).then_with(|| a.name.cmp(&b.name))
    });
    out
}

fn add_chrono(index: &mut BTreeMap<String, BTreeSet<Chrono>>, key: &str, chrono: Chrono) {
    match index.get_mut(key) {
        Some(set) => {
            set.insert(chrono);
        }
        None => {
            index.insert(key.into(), BTreeSet::from([chrono]));
        }
    }
}

fn remove_chrono(index: &mut BTreeMap<String, BTreeSet<Chrono>>, key: &str, chrono: &Chrono) {
    if let Some(set) = index.get_mut(key) {
        set.remove(chrono);
        if set.is_empty() {
            index.remove(key);
        }
    }
}

fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(Error::invalid(format!(
            "id must be 1 to {MAX_ID_LEN} bytes"
        )));
    }
    if id.chars().any(|c| c.is_control()) {
        return Err(Error::invalid("id must not contain control characters"));
    }
    Ok(())
}
