//! Purging from JS: expired items, and on request ended items and old or unreferenced tool
//! outputs, removed for good.
//!
//! `purge(query?)` takes the core's [`PurgeQuery`] (`{ now, expired, ended, blobMaxAgeMs,
//! unreferencedBlobs }`); here `now` defaults to the host clock (see [`crate::clock`]) and
//! `expired` to `true`, so `purge()` removes what has expired. Like `forgetUser`, it makes the
//! next `takeChanges` a full rewrite that deletes every older key, so once that change set is
//! written no stored byte of a purged item is left. Answers `{ items, blobs }`, the removed ids.

use memdag_core::erase::PurgeQuery;
use wasm_bindgen::prelude::*;

use crate::clock;
use crate::error::throw;
use crate::fields::{parse_optional, property, to_plain};
use crate::memory::Memory;

#[wasm_bindgen]
impl Memory {
    /// Removes expired items (and what the query adds) for good; see the module docs.
    pub fn purge(&self, query: JsValue) -> Result<JsValue, JsValue> {
        let mut q: PurgeQuery = parse_optional("purge query", query.clone()).map_err(throw)?;
        if property(&query, "now").is_none() {
            q.now = clock::now();
        }
        if property(&query, "expired").is_none() {
            q.expired = true;
        }
        self.write(|s| to_plain("purged", &s.purge(&q)?))
    }
}
