//! memdag on Fastly Compute: an agent-memory service whose records live in a Fastly KV store.
//!
//! Every route is under `/<agent>/`, the agent's keys under the prefix `<agent>/` of the KV
//! store `memdag` (see `routes` for the list). A request may name the user it acts for in the
//! header `x-memdag-user`, as the Cloudflare Worker example does: then it reads only what that
//! user may see (their own records and those tagged `shared`) and writes only as that user.
//! Without it a request acts for the whole agent (every user). Errors are
//! `{"error": {"code", "message"}}` with the core's stable code.
//!
//! Every request loads the agent's store from KV, works in memory, and writes the change set
//! only when all the work succeeded, so a refused request writes nothing. Fastly's KV store
//! has no multi-key transaction, but none is needed: the core's change set writes segment
//! parts first and its commit key `head` last, and readers trust only what `head` names, so a
//! write cut short leaves the store as it was before or after it (see memdag-core's `storage`
//! module). Like Workers KV it has no compare-and-set: one writer per store.

mod kv;
mod routes;

use fastly::http::StatusCode;
use fastly::{Error, KVStore, Request, Response};
use memdag_core::Error as CoreError;
use serde_json::json;

use routes::{Body, Call};

/// The KV store holding every agent's memory.
const KV_STORE: &str = "memdag";

/// The header naming the user a request acts for (as in the Cloudflare Worker example).
const USER_HEADER: &str = "x-memdag-user";

/// The clock, in milliseconds since the epoch: the time of a turn or item that gives none,
/// and the "now" of every read that filters by time or expiry.
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
    json_response(
        status,
        &json!({ "error": { "code": e.code(), "message": e.to_string() } }),
    )
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    Response::from_status(status)
        .with_body_json(body)
        .unwrap_or_else(|_| Response::from_status(status))
}

fn handle(req: Request) -> Result<Response, CoreError> {
    let path = req.get_path().trim_start_matches('/').to_string();
    let (agent, route) = path
        .split_once('/')
        .ok_or_else(|| CoreError::invalid("use /<agent>/<route>"))?;
    if agent.is_empty() {
        return Err(CoreError::invalid("the agent name must not be empty"));
    }
    let user = match req.get_header(USER_HEADER) {
        None => None,
        Some(v) => {
            let u = v
                .to_str()
                .map_err(|_| CoreError::invalid(format!("{USER_HEADER} is not UTF-8 text")))?;
            // An empty name names nobody: refused, never read as "every user".
            Some(memdag_core::scope::check_user(u)?.to_string())
        }
    };
    let method = req.get_method().as_str().to_string();
    let Some(run) = routes::find(&method, route) else {
        return Ok(if routes::known(route) {
            json_response(
                StatusCode::METHOD_NOT_ALLOWED,
                &json!({ "error": { "code": "INVALID_INPUT", "message": format!("{method} is not allowed on {route}") } }),
            )
        } else {
            json_response(
                StatusCode::NOT_FOUND,
                &json!({ "error": { "code": "NOT_FOUND", "message": format!("no route {route}") } }),
            )
        });
    };
    let kv = KVStore::open(KV_STORE)
        .map_err(|e| kv::storage("open", e))?
        .ok_or_else(|| CoreError::Storage {
            message: format!("no KV store named {KV_STORE:?} is linked to this service"),
        })?;
    let prefix = format!("{agent}/");
    let mut store = kv::load(&kv, &prefix)?;
    let mut call = Call {
        req,
        user,
        now: now_ms(),
    };
    let reply = run(&mut store, &mut call)?;
    if reply.changed {
        kv::write(&kv, &prefix, &mut store)?;
    }
    Ok(match reply.body {
        Body::Json(value) => json_response(reply.status, &value),
        Body::Lines(text) => Response::from_status(reply.status)
            .with_header("content-type", "application/x-ndjson")
            .with_body(text),
    })
}
