//! `memdag tools` and `memdag call-tool`: memdag's memory as tools for a model.
//!
//! `tools` needs no store: the schemas come from a component instance on an empty in-memory kv.
//! `call-tool` runs one tool as a model's tool call would, under `--user` (the host's user,
//! which binds every tool to that user's memory), and prints its JSON answer.

use std::io::Write;

use memdag_host::{Error, MemKv, Memory, Runtime, ToolContext, TurnLimits};

use crate::lease::Lease;

/// Prints the tools' JSON Schemas for `format`, indented.
pub fn schemas(runtime: &Runtime, format: &str, out: &mut dyn Write) -> Result<(), Error> {
    let mut memory = runtime.open(MemKv::default(), None)?;
    let text = memory.tool_schemas(format)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    )?;
    Ok(())
}

/// Runs tool `name` with its JSON `arguments` and prints the answer.
pub fn call(
    memory: &mut Memory,
    name: &str,
    arguments: &str,
    context: &ToolContext,
    out: &mut dyn Write,
) -> Result<(), Error> {
    writeln!(out, "{}", memory.call_tool(name, arguments, context)?)?;
    Ok(())
}

/// `memdag mcp`: serves the tools, and the records as resources, to an MCP client over stdio
/// until stdin closes (see `memdag_host::mcp`). Every tool runs under `context` (`--user`, or
/// every user's memory with `--all-users`; `--thread`), with the clock read at each call. The
/// store is locked per request, not for the server's life, and reloaded when another process
/// changed it (see [`crate::lease`]).
pub fn mcp(server: McpHost) -> Result<(), Error> {
    let mut server = server;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    memdag_host::mcp::serve(&mut server, stdin.lock(), stdout.lock())?;
    Ok(())
}

/// The MCP server's side of the store.
pub struct McpHost {
    pub memory: Memory,
    pub lease: Lease,
    /// The commit `memory` was loaded at or last wrote.
    pub head: Option<Vec<u8>>,
    pub context: ToolContext,
    /// `--limits`, set again after a reload (limits are not stored).
    pub limits: Option<TurnLimits>,
}

fn failure(e: Error) -> ToolFailure {
    let busy = matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::WouldBlock);
    ToolFailure {
        code: if busy {
            "BUSY"
        } else {
            e.code().unwrap_or("HOST")
        }
        .into(),
        message: match &e {
            Error::Memory(m) => m.message.clone(),
            other => other.to_string(),
        },
    }
}

impl McpHost {
    /// Runs one request under the lease: the writer's lock when it may write. The store is
    /// reloaded first if another process committed since this server last saw it.
    fn request<T>(
        &mut self,
        write: bool,
        f: impl FnOnce(&mut Memory, &ToolContext) -> Result<T, Error>,
    ) -> Result<T, ToolFailure> {
        self.lease.hold(write).map_err(|e| failure(Error::Io(e)))?;
        let outcome = self.leased(write, f);
        self.lease.release();
        outcome.map_err(failure)
    }

    fn leased<T>(
        &mut self,
        write: bool,
        f: impl FnOnce(&mut Memory, &ToolContext) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let head = self.lease.head()?;
        if head != self.head {
            self.memory.reload()?;
            if let Some(limits) = &self.limits {
                self.memory.set_limits(limits)?;
            }
            self.head = head;
        }
        let outcome = f(&mut self.memory, &self.context);
        if write {
            self.head = self.lease.head()?;
        }
        outcome
    }
}

impl memdag_host::mcp::ToolHost for McpHost {
    fn tools(&mut self) -> Result<String, ToolFailure> {
        self.memory.tool_schemas("mcp").map_err(failure)
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<String, ToolFailure> {
        // Any tool may write (remember, forget, recall's use counts): the writer's lock.
        self.request(true, |memory, context| {
            let context = ToolContext {
                now: Some(memdag_host::now_ms()),
                ..context.clone()
            };
            memory.call_tool(name, arguments, &context)
        })
    }

    fn records(&mut self) -> Result<Vec<(String, String)>, ToolFailure> {
        self.request(false, |memory, context| {
            let mut out = Vec::new();
            for group in memory.thread_groups()? {
                let records = match &context.user {
                    Some(u) => memory.recent_as(u, &group.name, 1000)?,
                    None => memory.recent(&group.name, 1000)?,
                };
                for r in records {
                    let title: String = r.input.chars().take(80).collect();
                    out.push((r.created_at, r.id, title));
                }
            }
            out.sort_by_key(|r| std::cmp::Reverse(r.0));
            out.truncate(1000);
            Ok(out.into_iter().map(|(_, id, title)| (id, title)).collect())
        })
    }

    fn record(&mut self, id: &str) -> Result<Option<String>, ToolFailure> {
        let args = serde_json::json!({ "id": id }).to_string();
        self.request(false, |memory, context| {
            match memory.call_tool("get", &args, context) {
                Ok(text) => Ok(Some(text)),
                Err(e) if e.code() == Some("NOT_FOUND") => Ok(None),
                Err(e) => Err(e),
            }
        })
    }
}

use memdag_host::mcp::ToolFailure;
