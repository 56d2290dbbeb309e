//! Working memory, the timeline and the entity graph through [`Memory`]. See
//! `wit/memory.wit` for each call's errors.

use crate::bindings::memdag::core::graph::{
    Edge, GraphQuery, Subgraph, TimelineDay, TimelineQuery,
};
use crate::bindings::memdag::core::work::{WorkChange, WorkUpdate, WorkingMemory};
use crate::{Error, Memory};

impl Memory {
    /// `user`'s working memory of a thread (`None`: no user's); no field if there is none.
    pub fn working_memory(
        &mut self,
        thread: &str,
        user: Option<&str>,
    ) -> Result<WorkingMemory, Error> {
        self.store_call(|s, st, h| s.call_working_memory(st, h, thread, user))
    }

    /// Applies one change to a thread's working memory (see [`crate::work_update`]).
    pub fn update_work(&mut self, update: &WorkUpdate) -> Result<WorkChange, Error> {
        self.store_call(|s, st, h| s.call_update_work(st, h, update))
    }

    /// Forgets `user`'s working memory of a thread (`None`: no user's); whether there was one.
    pub fn clear_work(&mut self, thread: &str, user: Option<&str>) -> Result<bool, Error> {
        self.store_call(|s, st, h| s.call_clear_work(st, h, thread, user))
    }

    /// The threads that have working memory (of any user), sorted.
    pub fn work_threads(&mut self) -> Result<Vec<String>, Error> {
        self.store_call(|s, st, h| s.call_work_threads(st, h))
    }

    /// Turns and items by local day, oldest first (see [`crate::timeline_query`]).
    pub fn timeline(&mut self, query: &TimelineQuery) -> Result<Vec<TimelineDay>, Error> {
        self.store_call(|s, st, h| s.call_timeline(st, h, query))
    }

    /// The canonical name of an entity.
    pub fn entity(&mut self, name: &str) -> Result<String, Error> {
        self.store_call(|s, st, h| s.call_entity(st, h, name))
    }

    /// The entities within `depth` edges of `entity` (at most 6), and the edges among them.
    pub fn neighbors(
        &mut self,
        entity: &str,
        depth: u32,
        query: &GraphQuery,
    ) -> Result<Subgraph, Error> {
        self.store_call(|s, st, h| s.call_neighbors(st, h, entity, depth, query))
    }

    /// The shortest paths from `from` to `to` of at most `max_depth` edges (at most 6).
    pub fn path(
        &mut self,
        from: &str,
        to: &str,
        max_depth: u32,
        query: &GraphQuery,
    ) -> Result<Vec<Vec<Edge>>, Error> {
        self.store_call(|s, st, h| s.call_path(st, h, from, to, max_depth, query))
    }

    /// The nodes and edges of `entities` (none: the whole graph under `query`).
    pub fn subgraph(&mut self, entities: &[String], query: &GraphQuery) -> Result<Subgraph, Error> {
        self.store_call(|s, st, h| s.call_subgraph(st, h, entities, query))
    }
}
