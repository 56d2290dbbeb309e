//! memdag on Fastly Compute: an agent-memory service whose records live in a Fastly KV store.
//!
//! Routes, per agent (its keys are under the prefix `<agent>/` of the KV store `memdag`):
//! - `POST /<agent>/turns` with `{"turns": [turn, ...]}`, each turn in memdag's JSON shape
//!   (`memdag_core::json`, as every face reads it: e.g. `{"id": "a", "thread": "main",
//!   "input": "...", "parents": []}`, a step's `ok` true unless it says false, `createdAt` the
//!   clock's when missing): adds them in order, all or nothing, then writes the change set;
//!   `201 {"added": [ids], "len": n}`;
//! - `GET /<agent>/ancestors?id=ID`, `GET /<agent>/recent?thread=T`, and
//!   `GET /<agent>/search?q=TEXT[&mode=bm25|vector|hybrid]`: ids (and scores);
//! - errors: `{"error": {"code", "message"}}` with the core's stable code.
//!
//! Every request loads the agent's store from KV, works in memory, and writes the change set
//! only when all the work succeeded, so a refused request writes nothing. Fastly's KV store
//! has no multi-key transaction, but none is needed: the core's change set writes segment
//! parts first and its commit key `head` last, and readers trust only what `head` names, so a
//! write cut short leaves the store as it was before or after it (see memdag-core's `storage`
//! module). Like Workers KV it has no compare-and-set: one writer per store.

use fastly::http::{Method, StatusCode};
use fastly::kv_store::KVStoreError;
use fastly::{Error, KVStore, Request, Response};
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{json::turn_from_value, Error as CoreError, Store};
use serde::Deserialize;
use serde_json::json;

/// The KV store holding every agent's memory.
const KV_STORE: &str = "memdag";

#[derive(Deserialize)]
struct AddTurns {
    turns: Vec<serde_json::Value>,
}

/// The clock, in milliseconds since the epoch: the time of a turn that gives none.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[fastly::main]
fn main(req: Request) -> Result<Response, Error> {
    Ok(match handle(req) {
        Ok(resp) => resp,
        Err(e) => error_response(&e),
    })
}

fn error_response(e: &CoreError) -> Response {
    let status = match e.code() {
        "NOT_FOUND" => StatusCode::NOT_FOUND,
        "INVALID_INPUT" | "UNKNOWN_PARENT" | "DUPLICATE_ID" => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    Response::from_status(status)
        .with_body_json(&json!({
            "error": { "code": e.code(), "message": e.to_string() }
        }))
        .unwrap_or_else(|_| Response::from_status(status))
}

fn storage(what: &str, e: KVStoreError) -> CoreError {
    CoreError::Storage {
        message: format!("kv {what}: {e}"),
    }
}

fn handle(mut req: Request) -> Result<Response, CoreError> {
    let path = req.get_path().trim_start_matches('/').to_string();
    let (agent, route) = path
        .split_once('/')
        .ok_or_else(|| CoreError::invalid("use /<agent>/<route>"))?;
    if agent.is_empty() {
        return Err(CoreError::invalid("the agent name must not be empty"));
    }
    let kv = KVStore::open(KV_STORE)
        .map_err(|e| storage("open", e))?
        .ok_or_else(|| CoreError::Storage {
            message: format!("no KV store named {KV_STORE:?} is linked to this service"),
        })?;
    let prefix = format!("{agent}/");
    let mut store = load(&kv, &prefix)?;
    let param = |name: &str| -> String {
        req.get_query_parameter(name)
            .map(str::to_string)
            .unwrap_or_default()
    };
    let body = match (req.get_method().clone(), route) {
        (Method::POST, "turns") => {
            let AddTurns { turns } = req
                .take_body_json()
                .map_err(|e| CoreError::invalid(format!("body: {e}")))?;
            let now = now_ms();
            let mut added = Vec::with_capacity(turns.len());
            for turn in turns {
                added.push(store.add_turn(turn_from_value(turn, now)?)?.id.clone());
            }
            write(&kv, &prefix, &mut store)?;
            let body = json!({ "added": added, "len": store.len() });
            return Response::from_status(StatusCode::CREATED)
                .with_body_json(&body)
                .map_err(|e| CoreError::invalid(e.to_string()));
        }
        (Method::GET, "ancestors") => {
            let found = store.ancestors(&param("id"), 16, 1000)?;
            json!({ "ids": found.iter().map(|r| r.id.as_str()).collect::<Vec<_>>() })
        }
        (Method::GET, "recent") => {
            let found = store.recent(&param("thread"), 10);
            json!({ "ids": found.iter().map(|r| r.id.as_str()).collect::<Vec<_>>() })
        }
        (Method::GET, "search") => {
            let mode = match param("mode").as_str() {
                "bm25" => SearchMode::Bm25,
                "vector" => SearchMode::Vector,
                _ => SearchMode::Hybrid,
            };
            let query = SearchQuery {
                text: param("q"),
                mode,
                ..SearchQuery::default()
            };
            let hits = store.search(&query)?;
            json!({ "hits": hits.iter().map(|h| json!({"id": h.id, "score": h.score})).collect::<Vec<_>>() })
        }
        _ => return Err(CoreError::NotFound { id: route.into() }),
    };
    Response::from_status(StatusCode::OK)
        .with_body_json(&body)
        .map_err(|e| CoreError::invalid(e.to_string()))
}

/// Loads the store under `prefix`: `head`, the keys it names and the two keys ahead of it
/// (3 + parts lookups), or every key of the prefix, page by page, when there is no readable
/// `head` (format v1, or a commit the core recovers from its segments) or a key ahead exists
/// (a segment newer than `head`, see `Store::keys_ahead`).
fn load(kv: &KVStore, prefix: &str) -> Result<Store, CoreError> {
    let mut entries = Vec::new();
    if let Some(head) = lookup(kv, &format!("{prefix}head"))? {
        let plan = match (Store::keys_to_read(&head), Store::keys_ahead(&head)) {
            (Ok(named), Ok(ahead)) => Some((named, ahead)),
            (Err(CoreError::CorruptData { .. }), _) | (_, Err(CoreError::CorruptData { .. })) => None,
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        if let Some((named, ahead)) = plan {
            let mut newer = false;
            for key in &ahead {
                newer |= lookup(kv, &format!("{prefix}{key}"))?.is_some();
            }
            if !newer {
                for key in named {
                    if let Some(value) = lookup(kv, &format!("{prefix}{key}"))? {
                        entries.push((key, value));
                    }
                }
                entries.push(("head".to_string(), head));
                let mut store = Store::load(entries)?;
                store.set_auto_embed(true);
                return Ok(store);
            }
        }
    }
    for page in kv.build_list().prefix(prefix).iter() {
        for key in page.map_err(|e| storage("list", e))?.keys() {
            match kv.lookup(key) {
                Ok(mut found) => {
                    let name = key.strip_prefix(prefix).unwrap_or(key).to_string();
                    entries.push((name, found.take_body_bytes()));
                }
                // Deleted between the list and the lookup.
                Err(KVStoreError::ItemNotFound) => {}
                Err(e) => return Err(storage("lookup", e)),
            }
        }
    }
    let mut store = Store::load(entries)?;
    store.set_auto_embed(true);
    Ok(store)
}

/// The value of `key`, or `None`.
fn lookup(kv: &KVStore, key: &str) -> Result<Option<Vec<u8>>, CoreError> {
    match kv.lookup(key) {
        Ok(mut found) => Ok(Some(found.take_body_bytes())),
        Err(KVStoreError::ItemNotFound) => Ok(None),
        Err(e) => Err(storage("lookup", e)),
    }
}

/// Writes the store's change set in the core's order.
fn write(kv: &KVStore, prefix: &str, store: &mut Store) -> Result<(), CoreError> {
    for change in store.take_changes()? {
        let key = format!("{prefix}{}", change.key);
        match change.value {
            Some(bytes) => kv.insert(&key, bytes).map_err(|e| storage("insert", e))?,
            None => match kv.delete(&key) {
                Ok(()) | Err(KVStoreError::ItemNotFound) => {}
                Err(e) => return Err(storage("delete", e)),
            },
        }
    }
    Ok(())
}
