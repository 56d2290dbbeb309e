//! Tools: memdag's memory offered to a model, defined once and emitted for every API.
//!
//! [`TOOLS`] are Mode-2 search (`search`, `grep`, `get`, `ancestors`, `descendants`), Mode-1
//! `recall`, long-term memory (`remember`, `memories`, `forget`) and `read_blob` (a cut tool
//! output read back by line, see [`crate::retention`]), each with a JSON Schema
//! of its arguments. [`tool_schemas`] emits them as OpenAI function-calling tools, Anthropic
//! tools or MCP tools; [`Store::call_tool`] runs one by name with its JSON arguments and
//! answers JSON. So an agent loop wires memdag in three lines: schemas into the model
//! request, `call_tool` for each tool call, the answer back as the tool result.
//!
//! The [`ToolContext`] comes from the host, never from the model: its `user` keeps every
//! tool to that user's memory (the model cannot name another user; no user is the explicit,
//! store-wide choice, and an empty or blank one is `INVALID_INPUT`, see [`crate::scope`]),
//! its `thread` is recall's default thread, and its `now` is the clock for new items and
//! relative dates.
//!
//! Arguments are checked strictly: a missing required one, an unknown one or a wrong type is
//! [`Error::InvalidInput`], which a face returns to the model as a tool error. Times in
//! answers are ISO 8601 strings, readable by a model.

use std::string::String;
use std::vec::Vec;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::dag::Direction;
use crate::error::{Error, Result};
use crate::item::{ItemKind, ItemStatus, NewItem};
use crate::json::record_to_value;
use crate::memory::ItemQuery;
use crate::recall::RecallQuery;
use crate::search::{GrepQuery, Scope, SearchFilter, SearchMode, SearchQuery};
use crate::store::Store;
use crate::time::{format_iso8601, parse_duration, parse_iso8601};

/// What the host knows and the model must not choose.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolContext {
    /// Every tool keeps to this user's memory (their own and shared records).
    pub user: Option<String>,
    /// Recall's thread when the model names none.
    pub thread: Option<String>,
    /// The host's clock (ms): new items' time, relative dates, expiry.
    pub now: Option<i64>,
}

/// The APIs whose tool format [`tool_schemas`] emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolFormat {
    /// `[{"type": "function", "function": {name, description, parameters}}]`
    Openai,
    /// `[{name, description, input_schema}]`
    Anthropic,
    /// `[{name, description, inputSchema}]`, as MCP's `tools/list` answers.
    Mcp,
}

impl ToolFormat {
    /// The format of a name (`openai`, `anthropic`, `mcp`).
    pub fn parse(name: &str) -> Result<ToolFormat> {
        match name.to_ascii_lowercase().as_str() {
            "openai" => Ok(ToolFormat::Openai),
            "anthropic" => Ok(ToolFormat::Anthropic),
            "mcp" => Ok(ToolFormat::Mcp),
            other => Err(Error::invalid(std::format!(
                "unknown tool format {other:?}: openai, anthropic or mcp"
            ))),
        }
    }
}

/// One tool: its name, what it is for, and its arguments' JSON Schema.
#[derive(Debug, Clone, Copy)]
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    schema: fn() -> Value,
}

impl ToolDef {
    /// The JSON Schema of its arguments.
    pub fn schema(&self) -> Value {
        (self.schema)()
    }
}

const KINDS: [&str; 4] = ["personal", "procedural", "tool", "fact"];

/// Every tool, in the order they are offered.
pub const TOOLS: [ToolDef; 10] = [
    ToolDef {
        name: "search",
        description: "Search past turns and long-term memories by meaning and keywords (hybrid BM25 and vectors). Relative dates in the query (\"last week\", \"上周\") filter by time. Returns ids, scores and snippets; use get for a full record.",
        schema: || {
            object(
                json!({
                    "query": {"type": "string", "description": "What to look for."},
                    "mode": {"type": "string", "enum": ["hybrid", "bm25", "vector"], "description": "Ranking (default hybrid)."},
                    "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many hits (default 10)."},
                    "thread": {"type": "string", "description": "Only this thread."},
                    "scope": {"type": "string", "enum": ["all", "turns", "items"], "description": "Turns, long-term memory items, or both (default)."},
                    "kinds": {"type": "array", "items": {"type": "string", "enum": KINDS}, "description": "Only items of these kinds."},
                    "since": {"type": "string", "description": "Only records from this time on (ISO 8601)."},
                    "until": {"type": "string", "description": "Only records before this time (ISO 8601)."}
                }),
                &["query"],
            )
        },
    },
    ToolDef {
        name: "grep",
        description: "Find a regular expression in the raw logs of past turns (inputs, outputs, tool arguments and results). Returns each match with its record id, field and line.",
        schema: || {
            object(
                json!({
                    "pattern": {"type": "string", "description": "A regular expression (no lookaround or backreferences)."},
                    "case_insensitive": {"type": "boolean"},
                    "fields": {"type": "array", "items": {"type": "string", "enum": ["input", "output", "args", "results"]}},
                    "thread": {"type": "string"},
                    "max_matches": {"type": "integer", "minimum": 1, "maximum": 1000}
                }),
                &["pattern"],
            )
        },
    },
    ToolDef {
        name: "get",
        description: "The full record with this id: a turn's raw log (input, tool steps, output, compact summary, parents) or a long-term memory item.",
        schema: || object(json!({"id": {"type": "string"}}), &["id"]),
    },
    ToolDef {
        name: "ancestors",
        description: "The earlier records a record was built on (its DAG parents and theirs), nearest first.",
        schema: || walk_schema(),
    },
    ToolDef {
        name: "descendants",
        description: "The later records built on a record (its DAG children and theirs), nearest first; for a turn, also the memories learned from it.",
        schema: || walk_schema(),
    },
    ToolDef {
        name: "recall",
        description: "A memory briefing for the current turn within a token budget: what is known about the user, working memory, this thread's recent turns, matches and their ancestors. Cite the [id]s you use.",
        schema: || {
            object(
                json!({
                    "query": {"type": "string", "description": "The user's new message or keywords."},
                    "thread": {"type": "string", "description": "Default: the current thread."},
                    "budget_tokens": {"type": "integer", "minimum": 50, "maximum": 32000, "description": "Default 2000."}
                }),
                &[],
            )
        },
    },
    ToolDef {
        name: "remember",
        description: "Keep something for later as a long-term memory: a user's preference or fact (personal), how a task is done (procedural), how a tool behaves (tool), or a fact with subject, relation and object. A near-duplicate corroborates the existing memory; a contradiction supersedes it, keeping its history.",
        schema: || {
            object(
                json!({
                    "text": {"type": "string", "description": "The memory, one sentence."},
                    "kind": {"type": "string", "enum": KINDS, "description": "Default personal."},
                    "subject": {"type": "string"},
                    "relation": {"type": "string", "description": "e.g. residence, employer, likes, dislikes."},
                    "object": {"type": "string"},
                    "task": {"type": "string"},
                    "tool": {"type": "string"},
                    "importance": {"type": "number", "minimum": 0, "maximum": 1},
                    "sources": {"type": "array", "items": {"type": "string"}, "description": "Ids of the turns it comes from."},
                    "ttl": {"type": "string", "description": "Time to live, like 90s, 12h, 30d."}
                }),
                &["text"],
            )
        },
    },
    ToolDef {
        name: "memories",
        description: "List long-term memories, newest first, optionally of some kinds, matching a query, or including superseded and deleted ones.",
        schema: || {
            object(
                json!({
                    "query": {"type": "string", "description": "Only memories matching this."},
                    "kinds": {"type": "array", "items": {"type": "string", "enum": KINDS}},
                    "task": {"type": "string"},
                    "tool": {"type": "string"},
                    "include_ended": {"type": "boolean", "description": "Also superseded, deleted and expired ones."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200}
                }),
                &[],
            )
        },
    },
    ToolDef {
        name: "read_blob",
        description: "Read a stored tool output back, by line. A tool result cut to fit the context ends with a marker like [memdag: truncated, ...; full text in blob b0123456789abcdef; more from line 37]: pass that blob id and line to read on from there.",
        schema: || {
            object(
                json!({
                    "id": {"type": "string", "description": "The blob id from the marker (b and 16 hex digits)."},
                    "from_line": {"type": "integer", "minimum": 1, "description": "The first line to read, counted from 1 (default 1)."},
                    "lines": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "How many lines (default 200)."}
                }),
                &["id"],
            )
        },
    },
    ToolDef {
        name: "forget",
        description: "Delete a long-term memory by id (softly: its history is kept, it leaves search and recall).",
        schema: || object(json!({"id": {"type": "string"}}), &["id"]),
    },
];

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

fn walk_schema() -> Value {
    object(
        json!({
            "id": {"type": "string"},
            "depth": {"type": "integer", "minimum": 1, "maximum": 64, "description": "Edges to follow (default 3)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Records (default 20)."}
        }),
        &["id"],
    )
}

/// The tools in one API's format.
pub fn tool_schemas(format: ToolFormat) -> Value {
    Value::Array(
        TOOLS
            .iter()
            .map(|t| match format {
                ToolFormat::Openai => json!({
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.schema()}
                }),
                ToolFormat::Anthropic => json!({
                    "name": t.name, "description": t.description, "input_schema": t.schema()
                }),
                ToolFormat::Mcp => json!({
                    "name": t.name, "description": t.description, "inputSchema": t.schema()
                }),
            })
            .collect(),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    #[serde(default)]
    mode: Option<SearchMode>,
    #[serde(default)]
    k: Option<usize>,
    #[serde(default)]
    thread: Option<String>,
    #[serde(default)]
    scope: Option<Scope>,
    #[serde(default)]
    kinds: Vec<ItemKind>,
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    until: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrepArgs {
    pattern: String,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    fields: Vec<String>,
    #[serde(default)]
    thread: Option<String>,
    #[serde(default)]
    max_matches: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdArgs {
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WalkArgs {
    id: String,
    #[serde(default)]
    depth: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    thread: Option<String>,
    #[serde(default)]
    budget_tokens: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RememberArgs {
    text: String,
    #[serde(default)]
    kind: Option<ItemKind>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    relation: Option<String>,
    #[serde(default)]
    object: Option<String>,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    importance: Option<f32>,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    ttl: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadBlobArgs {
    id: String,
    #[serde(default)]
    from_line: Option<usize>,
    #[serde(default)]
    lines: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoriesArgs {
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    kinds: Vec<ItemKind>,
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    include_ended: bool,
    #[serde(default)]
    limit: Option<usize>,
}

fn args<T: for<'de> Deserialize<'de>>(tool: &str, v: Value) -> Result<T> {
    let v = if v.is_null() { json!({}) } else { v };
    serde_json::from_value(v).map_err(|e| Error::invalid(std::format!("{tool}: {e}")))
}

fn time_arg(what: &str, v: Option<String>) -> Result<Option<i64>> {
    v.map(|s| {
        parse_iso8601(&s)
            .ok_or_else(|| Error::invalid(std::format!("{what} {s:?} is not an ISO 8601 time")))
    })
    .transpose()
}

impl Store {
    /// Runs the tool `name` with its JSON arguments (see the module docs) and answers JSON.
    /// An unknown tool is [`Error::InvalidInput`].
    pub fn call_tool(&mut self, name: &str, arguments: Value, ctx: &ToolContext) -> Result<Value> {
        let user = crate::scope::user_scope(ctx.user.as_deref())?.map(String::from);
        match name {
            "search" => {
                let a: SearchArgs = args(name, arguments)?;
                let q = SearchQuery {
                    text: a.query,
                    mode: a.mode.unwrap_or_default(),
                    k: a.k.unwrap_or(10).clamp(1, 50),
                    filter: SearchFilter {
                        thread: a.thread,
                        user,
                        since: time_arg("since", a.since)?,
                        until: time_arg("until", a.until)?,
                        scope: a.scope.unwrap_or_default(),
                        kinds: a.kinds,
                        now: ctx.now,
                        ..SearchFilter::default()
                    },
                    now: ctx.now,
                    ..SearchQuery::default()
                };
                let r = self.search_full(&q)?;
                let hits: Vec<Value> = r
                    .hits
                    .iter()
                    .map(|h| {
                        let at = self.get(&h.id).map(|r| format_iso8601(r.created_at));
                        json!({"id": h.id, "score": crate::json::shortest(h.score), "kind": h.kind, "createdAt": at, "snippet": h.snippet})
                    })
                    .collect();
                let time = r.time.map(|t| {
                    json!({"matched": t.matched, "since": format_iso8601(t.since), "until": format_iso8601(t.until)})
                });
                Ok(json!({"hits": hits, "time": time}))
            }
            "grep" => {
                let a: GrepArgs = args(name, arguments)?;
                let q = GrepQuery {
                    pattern: a.pattern,
                    case_insensitive: a.case_insensitive,
                    fields: a.fields,
                    filter: SearchFilter {
                        thread: a.thread,
                        user,
                        scope: Scope::Turns,
                        ..SearchFilter::default()
                    },
                    max_matches: a.max_matches.unwrap_or(50).clamp(1, 1000),
                };
                let matches = self.grep(&q)?;
                Ok(json!({"matches": matches}))
            }
            "get" => {
                let a: IdArgs = args(name, arguments)?;
                // An item past its time to live is gone for a model, as in search and recall.
                let expired = |r: &crate::Record| {
                    r.item
                        .as_ref()
                        .is_some_and(|m| crate::memory::crud::is_expired(m, ctx.now))
                };
                let r = self
                    .get_as(user.as_deref(), &a.id)?
                    .filter(|r| !expired(r))
                    .ok_or(Error::NotFound { id: a.id })?;
                Ok(record_to_value(r, None))
            }
            "ancestors" | "descendants" => {
                let a: WalkArgs = args(name, arguments)?;
                let direction = if name == "ancestors" {
                    Direction::Ancestors
                } else {
                    Direction::Descendants
                };
                let records = self.walk_as(
                    user.as_deref(),
                    &a.id,
                    direction,
                    a.depth.unwrap_or(3).clamp(1, 64),
                    a.limit.unwrap_or(20).clamp(1, 200),
                )?;
                let out: Vec<Value> = records.iter().map(|r| brief(r)).collect();
                Ok(json!({"records": out}))
            }
            "read_blob" => {
                let a: ReadBlobArgs = args(name, arguments)?;
                let page = self.read_blob_as(
                    user.as_deref(),
                    &a.id,
                    a.from_line.unwrap_or(1).max(1),
                    a.lines.unwrap_or(200).clamp(1, crate::blob::MAX_READ_LINES),
                )?;
                serde_json::to_value(page).map_err(|e| Error::invalid(e.to_string()))
            }
            "recall" => {
                let a: RecallArgs = args(name, arguments)?;
                let q = RecallQuery {
                    thread: a.thread.or_else(|| ctx.thread.clone()).unwrap_or_default(),
                    user,
                    query_text: a.query,
                    budget_tokens: a.budget_tokens.unwrap_or(2000).clamp(50, 32_000),
                    now: ctx.now,
                    ..RecallQuery::default()
                };
                let r = self.recall(&q)?;
                let items: Vec<Value> = r
                    .items
                    .iter()
                    .map(|i| json!({"id": i.id, "section": i.section.name()}))
                    .collect();
                Ok(json!({"block": r.block, "tokens": r.tokens, "items": items}))
            }
            "remember" => {
                let a: RememberArgs = args(name, arguments)?;
                let ttl_ms = a.ttl.as_deref().map(parse_duration).transpose()?;
                let learned = self.add_item(NewItem {
                    kind: Some(a.kind.unwrap_or(ItemKind::Personal)),
                    user: user.unwrap_or_default(),
                    text: a.text,
                    subject: a.subject,
                    relation: a.relation,
                    object: a.object,
                    task: a.task,
                    tool: a.tool,
                    importance: a.importance,
                    created_at: ctx.now.unwrap_or(0),
                    sources: a.sources,
                    ttl_ms,
                    ..NewItem::default()
                })?;
                Ok(
                    json!({"outcome": learned.outcome, "reason": learned.reason, "others": learned.others, "memory": memory_value(&learned.item)}),
                )
            }
            "memories" => {
                let a: MemoriesArgs = args(name, arguments)?;
                let limit = a.limit.unwrap_or(20).clamp(1, 200);
                let items = match a.query.filter(|q| !q.trim().is_empty()) {
                    Some(query) => {
                        let q = SearchQuery {
                            text: query,
                            k: limit,
                            filter: SearchFilter {
                                user: user.clone(),
                                scope: Scope::Items,
                                kinds: a.kinds.clone(),
                                statuses: if a.include_ended {
                                    ItemStatus::ALL.to_vec()
                                } else {
                                    Vec::new()
                                },
                                now: ctx.now,
                                ..SearchFilter::default()
                            },
                            snippets: false,
                            now: ctx.now,
                            ..SearchQuery::default()
                        };
                        self.search(&q)?
                            .into_iter()
                            .filter_map(|h| self.item(&h.id))
                            .filter(|i| {
                                a.task
                                    .as_ref()
                                    .is_none_or(|t| i.meta.task.as_ref() == Some(t))
                            })
                            .filter(|i| {
                                a.tool
                                    .as_ref()
                                    .is_none_or(|t| i.meta.tool.as_ref() == Some(t))
                            })
                            .collect()
                    }
                    None => self.list_items(&ItemQuery {
                        user,
                        kinds: a.kinds,
                        task: a.task,
                        tool: a.tool,
                        all: a.include_ended,
                        now: ctx.now,
                        limit,
                        ..ItemQuery::default()
                    })?,
                };
                let out: Vec<Value> = items.iter().map(memory_value).collect();
                Ok(json!({"memories": out}))
            }
            "forget" => {
                let a: IdArgs = args(name, arguments)?;
                if self.item_as(user.as_deref(), &a.id)?.is_none() {
                    return Err(Error::NotFound { id: a.id });
                }
                let item = self.delete_item(&a.id, ctx.now.unwrap_or(0))?;
                Ok(json!({"forgotten": memory_value(&item)}))
            }
            other => Err(Error::invalid(std::format!(
                "unknown tool {other:?}; the tools are {}",
                TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// [`Store::call_tool`] with the arguments and the answer as JSON text.
    pub fn call_tool_json(
        &mut self,
        name: &str,
        arguments: &str,
        ctx: &ToolContext,
    ) -> Result<String> {
        let v: Value = if arguments.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(arguments)
                .map_err(|e| Error::invalid(std::format!("{name}: arguments are not JSON: {e}")))?
        };
        Ok(self.call_tool(name, v, ctx)?.to_string())
    }
}

/// A record in a walk: id, time, and its summary or input.
fn brief(r: &crate::record::Record) -> Value {
    let text = r
        .compact
        .as_ref()
        .map(|c| c.summary.clone())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| r.input.chars().take(200).collect());
    json!({"id": r.id, "createdAt": format_iso8601(r.created_at), "thread": r.thread, "kind": r.item.as_ref().map(|m| m.kind), "text": text})
}

/// A memory as a tool answers it.
fn memory_value(i: &crate::item::MemoryItem) -> Value {
    json!({
        "id": i.id, "kind": i.meta.kind, "text": i.text, "status": i.meta.status,
        "subject": i.meta.subject, "relation": i.meta.relation, "object": i.meta.object,
        "task": i.meta.task, "tool": i.meta.tool,
        "importance": crate::json::shortest(i.importance), "version": i.meta.version,
        "corroborations": i.meta.corroborations, "sources": i.sources,
        "createdAt": format_iso8601(i.created_at), "updatedAt": format_iso8601(i.meta.updated_at),
    })
}
