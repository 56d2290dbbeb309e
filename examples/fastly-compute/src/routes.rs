//! The routes: each one call of memdag-core on the agent's store, in the shapes the core owns
//! (turns through `memdag_core::json`, the rest through the core types' serde shapes), kept
//! to the user a request names.
//!
//! | route | does |
//! | --- | --- |
//! | `POST turns` | `{"turns": [turn, ...]}`: adds them in order, all or nothing; `201 {"added", "len"}` |
//! | `GET get?id=` | the record in memdag's JSON shape, without its vector |
//! | `GET ancestors?id=[&depth=16]`, `GET descendants?id=[&depth=16]`, `GET recent?thread=[&n=10]` | `{"ids"}` |
//! | `GET search?q=[&mode=bm25\|vector\|hybrid][&k=10]` | `{"hits": [{"id", "score"}]}` |
//! | `GET grep?pattern=[&i=1]` | `{"matches"}`: the core's grep matches |
//! | `POST recall` | a `RecallQuery` (the core's serde shape) in, the `Recall` out; counts uses |
//! | `POST memory` | a `NewItem` (camelCase) in; `201` with the core's `Learned` |
//! | `GET memory[?kind=&all=1]` | `{"items"}`: the long-term memory items |
//! | `POST memory/update?id=` | an `ItemUpdate` (camelCase) in: a new version of the item |
//! | `GET memory/history?id=` | `{"history"}`: every version of an item, oldest first |
//! | `POST memory/delete?id=` | deletes an item softly (it keeps its history) |
//! | `GET tools[?format=openai\|anthropic\|mcp]` | the model tools' schemas |
//! | `POST tool?name=[&thread=]` | runs a model tool with the body as its JSON arguments |
//! | `POST delete?id=` | deletes a record for good; the DAG is spliced |
//! | `POST forget` | erases every record of the user the request names |
//! | `GET export`, `POST import` | the whole agent as JSONL, and back (no user may ask) |
//!
//! With a user (`x-memdag-user`): reads see the user's own records and those tagged `shared`;
//! a turn or item without a user is theirs and one naming another user is refused; a record
//! or item is changed or deleted only by its own user; a recall or tool call is theirs. Every
//! read that filters by time or expiry takes the host clock (a recall query may name `now`).

use fastly::http::StatusCode;
use fastly::Request;
use memdag_core::item::ItemUpdate;
use memdag_core::json::{record_to_value, turn_from_value};
use memdag_core::memory::crud::ItemQuery;
use memdag_core::recall::RecallQuery;
use memdag_core::search::{GrepQuery, SearchMode, SearchQuery};
use memdag_core::tools::{tool_schemas, ToolContext, ToolFormat};
use memdag_core::{Direction, Error as CoreError, ItemKind, NewItem, Record, Store};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, CoreError>;

/// One request as a route sees it.
pub struct Call {
    pub req: Request,
    /// The user the request acts for; `None` acts for the whole agent.
    pub user: Option<String>,
    /// The host clock (ms).
    pub now: i64,
}

impl Call {
    /// A query parameter, percent-decoded (`get_query_parameter` of the Fastly SDK is not:
    /// `?q=deploy%20timeout` would search for `deploy%20timeout`).
    fn param(&self, name: &str) -> Option<String> {
        self.req
            .get_url()
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }

    fn need(&self, name: &str) -> Result<String> {
        self.param(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| CoreError::invalid(format!("the query parameter {name} is missing")))
    }

    fn count(&self, name: &str, default: usize) -> Result<usize> {
        match self.param(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                CoreError::invalid(format!("{name}={v:?} is not a non-negative whole number"))
            }),
        }
    }

    fn json_body<T: DeserializeOwned>(&mut self) -> Result<T> {
        self.req
            .take_body_json()
            .map_err(|e| CoreError::invalid(format!("body: {e}")))
    }

    fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// The user a written turn or item belongs to: the request's user when the object names
    /// none; one naming another user than the request's is refused.
    fn owner(&self, named: &mut String, what: &str) -> Result<()> {
        if let Some(u) = self.user() {
            if named.is_empty() {
                *named = u.to_string();
            } else if named != u {
                return Err(CoreError::invalid(format!(
                    "{what} names the user {named:?}, but the request acts for {u:?}"
                )));
            }
        }
        Ok(())
    }

    /// Refuses a request that acts for a user: the route reads or writes the whole agent.
    fn agent_wide(&self, what: &str) -> Result<()> {
        match self.user() {
            None => Ok(()),
            Some(_) => Err(CoreError::invalid(format!(
                "{what} covers every user of the agent: send it without x-memdag-user"
            ))),
        }
    }

    /// The record `id` if the request's user may delete or change it: one they may see (else
    /// NOT_FOUND, as if it did not exist) and their own (a shared record of another user is
    /// refused).
    fn deletable<'s>(&self, store: &'s Store, id: &str) -> Result<&'s Record> {
        let r = store
            .get_as(self.user(), id)?
            .ok_or_else(|| CoreError::NotFound { id: id.into() })?;
        match self.user() {
            Some(u) if r.user != u => Err(CoreError::invalid(format!(
                "{id} is shared by another user: only they can change it"
            ))),
            _ => Ok(r),
        }
    }
}

/// What a route answers.
pub struct Reply {
    pub status: StatusCode,
    pub body: Body,
    /// Whether the store changed: its change set is written before the answer.
    pub changed: bool,
}

pub enum Body {
    Json(Value),
    /// JSON lines (`application/x-ndjson`).
    Lines(String),
}

fn read(body: Value) -> Result<Reply> {
    Ok(Reply {
        status: StatusCode::OK,
        body: Body::Json(body),
        changed: false,
    })
}

fn wrote(status: StatusCode, body: Value) -> Result<Reply> {
    Ok(Reply {
        status,
        body: Body::Json(body),
        changed: true,
    })
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| CoreError::invalid(e.to_string()))
}

fn ids(records: &[&Record]) -> Value {
    json!({ "ids": records.iter().map(|r| r.id.as_str()).collect::<Vec<_>>() })
}

type Route = fn(&mut Store, &mut Call) -> Result<Reply>;

const ROUTES: &[(&str, &str, Route)] = &[
    ("POST", "turns", add_turns),
    ("GET", "get", get),
    ("GET", "ancestors", ancestors),
    ("GET", "descendants", descendants),
    ("GET", "recent", recent),
    ("GET", "search", search),
    ("GET", "grep", grep),
    ("POST", "recall", recall),
    ("POST", "memory", add_item),
    ("GET", "memory", list_items),
    ("POST", "memory/update", update_item),
    ("GET", "memory/history", item_history),
    ("POST", "memory/delete", delete_item),
    ("GET", "tools", tools),
    ("POST", "tool", tool),
    ("POST", "delete", delete),
    ("POST", "forget", forget),
    ("GET", "export", export),
    ("POST", "import", import),
];

/// The route for `method` and `path`.
pub fn find(method: &str, path: &str) -> Option<Route> {
    ROUTES
        .iter()
        .find(|(m, p, _)| *m == method && *p == path)
        .map(|(_, _, run)| *run)
}

/// Whether some method serves `path` (so another method gets 405, not 404).
pub fn known(path: &str) -> bool {
    ROUTES.iter().any(|(_, p, _)| *p == path)
}

#[derive(Deserialize)]
struct AddTurns {
    turns: Vec<Value>,
}

fn add_turns(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let AddTurns { turns } = call.json_body()?;
    let mut added = Vec::with_capacity(turns.len());
    for turn in turns {
        let mut turn = turn_from_value(turn, call.now)?;
        call.owner(&mut turn.user, "a turn")?;
        added.push(store.add_turn(turn)?.id.clone());
    }
    wrote(
        StatusCode::CREATED,
        json!({ "added": added, "len": store.len() }),
    )
}

fn get(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let id = call.need("id")?;
    let record = store
        .get_as(call.user(), &id)?
        .ok_or(CoreError::NotFound { id })?;
    read(record_to_value(record, None))
}

fn walk(store: &Store, call: &Call, direction: Direction) -> Result<Reply> {
    let found = store.walk_as(
        call.user(),
        &call.need("id")?,
        direction,
        call.count("depth", 16)?,
        1000,
    )?;
    read(ids(&found))
}

fn ancestors(store: &mut Store, call: &mut Call) -> Result<Reply> {
    walk(store, call, Direction::Ancestors)
}

fn descendants(store: &mut Store, call: &mut Call) -> Result<Reply> {
    walk(store, call, Direction::Descendants)
}

fn recent(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let found = store.recent_as(call.user(), &call.need("thread")?, call.count("n", 10)?)?;
    read(ids(&found))
}

fn search(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let mode = match call.param("mode").as_deref() {
        None | Some("hybrid") => SearchMode::Hybrid,
        Some("bm25") => SearchMode::Bm25,
        Some("vector") => SearchMode::Vector,
        Some(other) => {
            return Err(CoreError::invalid(format!(
                "mode {other:?}: use bm25, vector or hybrid"
            )))
        }
    };
    let mut query = SearchQuery {
        text: call.param("q").unwrap_or_default(),
        mode,
        k: call.count("k", 10)?,
        now: Some(call.now),
        ..SearchQuery::default()
    };
    query.filter.user = call.user.clone();
    query.filter.now = Some(call.now);
    let hits = store.search(&query)?;
    read(
        json!({ "hits": hits.iter().map(|h| json!({ "id": h.id, "score": h.score })).collect::<Vec<_>>() }),
    )
}

fn grep(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let mut query = GrepQuery {
        pattern: call.need("pattern")?,
        case_insensitive: call.param("i").as_deref() == Some("1"),
        ..GrepQuery::default()
    };
    query.filter.user = call.user.clone();
    query.filter.now = Some(call.now);
    read(json!({ "matches": to_value(&store.grep(&query)?)? }))
}

fn recall(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let mut query: RecallQuery = call.json_body()?;
    if let Some(u) = call.user() {
        match &query.user {
            Some(named) if named != u => {
                return Err(CoreError::invalid(format!(
                    "the recall names the user {named:?}, but the request acts for {u:?}"
                )))
            }
            _ => query.user = Some(u.to_string()),
        }
    }
    query.now.get_or_insert(call.now);
    // Recall counts a use of each record it shows: the change set is written.
    let recall = store.recall(&query)?;
    wrote(StatusCode::OK, to_value(&recall)?)
}

fn add_item(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let mut item: NewItem = call.json_body()?;
    call.owner(&mut item.user, "the item")?;
    if item.created_at == 0 {
        item.created_at = call.now;
    }
    let learned = store.add_item(item)?;
    wrote(StatusCode::CREATED, to_value(&learned)?)
}

fn list_items(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let kinds = match call.param("kind") {
        None => Vec::new(),
        Some(k) => vec![serde_json::from_value::<ItemKind>(Value::String(k.clone()))
            .map_err(|_| CoreError::invalid(format!("kind {k:?} is not an item kind")))?],
    };
    let query = ItemQuery {
        user: call.user.clone(),
        kinds,
        all: call.param("all").as_deref() == Some("1"),
        now: Some(call.now),
        ..ItemQuery::default()
    };
    read(json!({ "items": to_value(&store.list_items(&query)?)? }))
}

fn update_item(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let id = call.need("id")?;
    let mut update: ItemUpdate = call.json_body()?;
    call.deletable(store, &id)?;
    if update.at == 0 {
        update.at = call.now;
    }
    let item = store.update_item(&id, update)?;
    wrote(StatusCode::OK, to_value(&item)?)
}

fn item_history(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let history = store.item_history_as(call.user(), &call.need("id")?)?;
    read(json!({ "history": to_value(&history)? }))
}

fn delete_item(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let id = call.need("id")?;
    call.deletable(store, &id)?;
    let item = store.delete_item(&id, call.now)?;
    wrote(StatusCode::OK, to_value(&item)?)
}

fn tools(_: &mut Store, call: &mut Call) -> Result<Reply> {
    let format = ToolFormat::parse(&call.param("format").unwrap_or_else(|| "openai".into()))?;
    read(tool_schemas(format))
}

/// A model's tool call: the user comes from the request, never from the model's arguments.
fn tool(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let name = call.need("name")?;
    let ctx = ToolContext {
        user: call.user.clone(),
        thread: call.param("thread"),
        now: Some(call.now),
    };
    let args = String::from_utf8(call.req.take_body_bytes())
        .map_err(|_| CoreError::invalid("the body is not UTF-8 text"))?;
    let answer = store.call_tool_json(&name, &args, &ctx)?;
    let answer: Value =
        serde_json::from_str(&answer).map_err(|e| CoreError::invalid(e.to_string()))?;
    // `remember` and `forget` write, and `recall` counts uses; the others leave the change
    // set empty, and an empty one writes nothing.
    wrote(StatusCode::OK, answer)
}

fn delete(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let id = call.need("id")?;
    call.deletable(store, &id)?;
    let record = store.delete(&id)?;
    wrote(StatusCode::OK, json!({ "deleted": record.id }))
}

fn forget(store: &mut Store, call: &mut Call) -> Result<Reply> {
    let user = call.user.clone().ok_or_else(|| {
        CoreError::invalid("forget erases the user named by x-memdag-user: name one")
    })?;
    let forgotten = store.forget_user(&user)?;
    wrote(StatusCode::OK, to_value(&forgotten)?)
}

fn export(store: &mut Store, call: &mut Call) -> Result<Reply> {
    call.agent_wide("export")?;
    Ok(Reply {
        status: StatusCode::OK,
        body: Body::Lines(store.export_jsonl()),
        changed: false,
    })
}

fn import(store: &mut Store, call: &mut Call) -> Result<Reply> {
    call.agent_wide("import")?;
    let text = String::from_utf8(call.req.take_body_bytes())
        .map_err(|_| CoreError::invalid("the body is not UTF-8 text"))?;
    let imported = store.import_jsonl(&text, call.now)?;
    wrote(StatusCode::OK, to_value(&imported)?)
}
