//! The entity graph from JS: items with a relation and an object are edges between
//! entities (canonical names: case, whitespace, articles and the settings' aliases folded).
//!
//! - `neighbors(entity, depth, query?)`: the entities within `depth` edges (at most 6), with
//!   the edges among them: `{ nodes: [{ entity, depth }], edges: [{ id, from, relation, to,
//!   text, sources }] }`;
//! - `path(a, b, maxDepth, query?)`: the shortest paths, each a list of edges;
//! - `subgraph(entities, query?)`: the nodes and edges of a set of entities (`[]`: the whole
//!   graph under the query).
//!
//! The query is the core's [`GraphQuery`] (`{ user, asOf, now }`); `now` defaults to the host
//! clock (see [`crate::clock`]), so items past their time to live are no edges.

use memdag_core::graph::GraphQuery;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{from_js, parse_optional, to_plain_json};
use crate::memory::{count, string, Memory};

fn query_from_js(query: JsValue) -> Result<GraphQuery, JsValue> {
    let mut q: GraphQuery = parse_optional("graph query", query).map_err(throw)?;
    q.now = Some(clock::or_now(q.now));
    Ok(q)
}

#[wasm_bindgen]
impl Memory {
    /// The entities within `depth` edges of `entity` (itself at depth 0), nearest first, and
    /// the edges among them. Throws `INVALID_INPUT` for a depth over 6.
    pub fn neighbors(
        &self,
        entity: &JsValue,
        depth: f64,
        query: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (entity, depth) = (string("entity", entity)?, count("depth", Some(depth))?);
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("subgraph", &s.neighbors(&entity, depth, &query)?))
    }

    /// The shortest paths from `a` to `b` of at most `maxDepth` edges (walked both ways),
    /// each as its edges in order; `[]` when there is none. Throws `INVALID_INPUT` for a
    /// depth over 6.
    pub fn path(
        &self,
        a: &JsValue,
        b: &JsValue,
        max_depth: f64,
        query: JsValue,
    ) -> Result<JsValue, JsValue> {
        let (a, b) = (string("a", a)?, string("b", b)?);
        let max_depth = count("maxDepth", Some(max_depth))?;
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("paths", &s.path(&a, &b, max_depth, &query)?))
    }

    /// The nodes and edges of `entities` and every edge between two of them; with `[]`, the
    /// whole graph under the query (one user's, with `user`).
    pub fn subgraph(&self, entities: JsValue, query: JsValue) -> Result<JsValue, JsValue> {
        let entities: Vec<String> = from_js("entities", entities).map_err(throw)?;
        let query = query_from_js(query)?;
        self.read(|s| to_plain_json("subgraph", &s.subgraph(&entities, &query)?))
    }
}
