//! `memdag tools` and `memdag call-tool`: memdag's memory as tools for a model.
//!
//! `tools` needs no store: the schemas come from a component instance on an empty in-memory kv.
//! `call-tool` runs one tool as a model's tool call would, under `--user` (the host's user,
//! which binds every tool to that user's memory), and prints its JSON answer.

use std::io::Write;

use memdag_host::{Error, MemKv, Memory, Runtime, ToolContext};

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
/// until stdin closes (see `memdag_host::mcp`). Every tool runs under `context` (`--user`,
/// `--thread`), with the clock read at each call.
pub fn mcp(memory: &mut Memory, context: ToolContext) -> Result<(), Error> {
    let mut host = McpHost { memory, context };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    memdag_host::mcp::serve(&mut host, stdin.lock(), stdout.lock())?;
    Ok(())
}

struct McpHost<'a> {
    memory: &'a mut Memory,
    context: ToolContext,
}

fn failure(e: Error) -> ToolFailure {
    ToolFailure {
        code: e.code().unwrap_or("HOST").into(),
        message: match &e {
            Error::Memory(m) => m.message.clone(),
            other => other.to_string(),
        },
    }
}

impl memdag_host::mcp::ToolHost for McpHost<'_> {
    fn tools(&mut self) -> Result<String, ToolFailure> {
        self.memory.tool_schemas("mcp").map_err(failure)
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<String, ToolFailure> {
        let context = ToolContext {
            now: Some(memdag_host::now_ms()),
            ..self.context.clone()
        };
        self.memory
            .call_tool(name, arguments, &context)
            .map_err(failure)
    }

    fn records(&mut self) -> Result<Vec<(String, String)>, ToolFailure> {
        let user = self.context.user.clone();
        let mut out = Vec::new();
        for group in self.memory.thread_groups().map_err(failure)? {
            for r in self.memory.recent(&group.name, 1000).map_err(failure)? {
                if user
                    .as_ref()
                    .is_none_or(|u| &r.user == u || r.tags.iter().any(|t| t == "shared"))
                {
                    let title: String = r.input.chars().take(80).collect();
                    out.push((r.created_at, r.id, title));
                }
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.0));
        out.truncate(1000);
        Ok(out.into_iter().map(|(_, id, title)| (id, title)).collect())
    }

    fn record(&mut self, id: &str) -> Result<Option<String>, ToolFailure> {
        let args = serde_json::json!({ "id": id }).to_string();
        match self.memory.call_tool("get", &args, &self.context) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.code() == Some("NOT_FOUND") => Ok(None),
            Err(e) => Err(failure(e)),
        }
    }
}

use memdag_host::mcp::ToolFailure;
