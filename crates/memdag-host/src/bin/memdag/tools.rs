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
