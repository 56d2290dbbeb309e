//! An MCP (Model Context Protocol) server over stdio: memdag's tools, and its records as
//! resources, for any MCP client.
//!
//! The transport is MCP's stdio one: one JSON-RPC 2.0 message per line on stdin, answers one
//! per line on stdout, nothing else on stdout (logs go to stderr). Methods:
//! - `initialize`: the protocol version (the client's when it is one this server knows, else
//!   the newest), capabilities `tools` and `resources`, and the server's name and version;
//! - `tools/list`: the core's tools in MCP's shape (one definition for every face, see
//!   `memdag_core::tools`); `tools/call`: runs one. A tool that fails answers a result with
//!   `isError: true` and the error's code and message as its text (so the model sees it); an
//!   unknown tool or malformed arguments are JSON-RPC errors (`-32602`), as MCP asks;
//! - `resources/list`: the records, newest first (at most 1,000), as `memdag://record/<id>`;
//!   `resources/read`: a record's JSON;
//! - `ping`; notifications (no `id`) are taken and not answered.
//!
//! Bad input never stops the server: a line that is not UTF-8 or not JSON is a parse error
//! (`-32700`), a batch (a JSON array: MCP 2025-06-18 has none) or anything but an object an
//! invalid request (`-32600`), and a line longer than [`MAX_MESSAGE_BYTES`] is answered with
//! `-32600` and skipped without being kept in memory; each with id `null`, as JSON-RPC asks
//! when the id cannot be read.
//!
//! The server knows nothing of the store: a [`ToolHost`] runs the tools (the CLI's runs them
//! in the component under Wasmtime).

use std::io::{BufRead, Write};

use serde_json::{json, Value};

use crate::lines::{read_line, skip_line, Line};

/// The longest message the server reads, in bytes (far above any tool call: a search query
/// is at most 64 KiB).
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// The protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// A tool failure: its stable code and message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    /// The stable code, e.g. `NOT_FOUND`.
    pub code: String,
    /// What went wrong.
    pub message: String,
}

/// What the server needs from a store.
pub trait ToolHost {
    /// The tools in MCP's shape (`[{name, description, inputSchema}]`), as JSON text.
    fn tools(&mut self) -> Result<String, ToolFailure>;
    /// Runs a tool; JSON text in and out.
    fn call(&mut self, name: &str, arguments: &str) -> Result<String, ToolFailure>;
    /// The records to list as resources: `(id, title)`, newest first.
    fn records(&mut self) -> Result<Vec<(String, String)>, ToolFailure>;
    /// One record's JSON text, if there is one.
    fn record(&mut self, id: &str) -> Result<Option<String>, ToolFailure>;
}

const RESOURCE_PREFIX: &str = "memdag://record/";

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn rpc_result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Answers one message; `None` for a notification.
pub fn handle(host: &mut dyn ToolHost, message: &Value) -> Option<Value> {
    let id = message.get("id")?.clone();
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let params = message.get("params").cloned().unwrap_or(json!({}));
    let failure = |f: ToolFailure| rpc_error(&id, -32603, &format!("{}: {}", f.code, f.message));
    Some(match method {
        "initialize" => {
            let asked = params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            let version = PROTOCOL_VERSIONS
                .iter()
                .find(|v| **v == asked)
                .unwrap_or(&PROTOCOL_VERSIONS[0]);
            rpc_result(
                &id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}, "resources": {"listChanged": false}},
                    "serverInfo": {"name": "memdag", "version": env!("CARGO_PKG_VERSION")},
                    "instructions": "memdag is agent memory: search and recall past turns, keep long-term memories. Cite the [id]s you use."
                }),
            )
        }
        "ping" => rpc_result(&id, json!({})),
        "tools/list" => match host.tools() {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(tools) => rpc_result(&id, json!({ "tools": tools })),
                Err(e) => rpc_error(&id, -32603, &format!("tool schemas: {e}")),
            },
            Err(f) => failure(f),
        },
        "tools/call" => {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return Some(rpc_error(&id, -32602, "tools/call needs a tool name"));
            };
            let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
            match host.call(name, &arguments.to_string()) {
                Ok(text) => rpc_result(
                    &id,
                    json!({"content": [{"type": "text", "text": text}], "isError": false}),
                ),
                // Unknown tools and malformed arguments are the caller's mistake: protocol
                // errors. Anything else failed while running: the model should see it.
                Err(f) if f.code == "INVALID_INPUT" => {
                    rpc_error(&id, -32602, &format!("{}: {}", f.code, f.message))
                }
                Err(f) => rpc_result(
                    &id,
                    json!({"content": [{"type": "text", "text": format!("{}: {}", f.code, f.message)}], "isError": true}),
                ),
            }
        }
        "resources/list" => match host.records() {
            Ok(records) => {
                let resources: Vec<Value> = records
                    .into_iter()
                    .map(|(rid, title)| {
                        json!({"uri": format!("{RESOURCE_PREFIX}{rid}"), "name": rid, "title": title, "mimeType": "application/json"})
                    })
                    .collect();
                rpc_result(&id, json!({ "resources": resources }))
            }
            Err(f) => failure(f),
        },
        "resources/read" => {
            let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
            let Some(rid) = uri.strip_prefix(RESOURCE_PREFIX) else {
                return Some(rpc_error(&id, -32602, "not a memdag record uri"));
            };
            match host.record(rid) {
                Ok(Some(text)) => rpc_result(
                    &id,
                    json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}),
                ),
                Ok(None) => rpc_error(&id, -32002, &format!("NOT_FOUND: no record {rid:?}")),
                Err(f) => failure(f),
            }
        }
        other => rpc_error(&id, -32601, &format!("method not found: {other}")),
    })
}

/// The answer to one line of input, if it needs one (see the module docs).
fn answer_line(host: &mut dyn ToolHost, line: &[u8]) -> Option<Value> {
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            return Some(rpc_error(
                &Value::Null,
                -32700,
                &format!("parse error: the message is not UTF-8 ({e})"),
            ))
        }
    };
    if text.trim().is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(_)) => Some(rpc_error(
            &Value::Null,
            -32600,
            "invalid request: batches are not supported; send one message per line",
        )),
        Ok(message) if !message.is_object() => Some(rpc_error(
            &Value::Null,
            -32600,
            "invalid request: a message is a JSON object",
        )),
        Ok(message) => handle(host, &message),
        Err(e) => Some(rpc_error(
            &Value::Null,
            -32700,
            &format!("parse error: {e}"),
        )),
    }
}

/// Serves MCP on `input` and `output` until `input` ends. Only a failure to read `input` or
/// write `output` ends it early.
pub fn serve(
    host: &mut dyn ToolHost,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut line, MAX_MESSAGE_BYTES)? {
            Line::End => return Ok(()),
            Line::TooLong => {
                skip_line(&mut input)?;
                Some(rpc_error(
                    &Value::Null,
                    -32600,
                    &format!(
                        "invalid request: the message is longer than {} MiB",
                        MAX_MESSAGE_BYTES >> 20
                    ),
                ))
            }
            Line::Read => answer_line(host, &line),
        };
        if let Some(a) = answer {
            writeln!(output, "{a}")?;
            output.flush()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;

    impl ToolHost for Fake {
        fn tools(&mut self) -> Result<String, ToolFailure> {
            Ok(r#"[{"name":"search","description":"d","inputSchema":{"type":"object"}}]"#.into())
        }
        fn call(&mut self, name: &str, arguments: &str) -> Result<String, ToolFailure> {
            match name {
                "search" => Ok(format!("{{\"echo\":{arguments}}}")),
                "get" => Err(ToolFailure {
                    code: "NOT_FOUND".into(),
                    message: "no record".into(),
                }),
                _ => Err(ToolFailure {
                    code: "INVALID_INPUT".into(),
                    message: "unknown tool".into(),
                }),
            }
        }
        fn records(&mut self) -> Result<Vec<(String, String)>, ToolFailure> {
            Ok(vec![("a1".into(), "first".into())])
        }
        fn record(&mut self, id: &str) -> Result<Option<String>, ToolFailure> {
            Ok((id == "a1").then(|| "{\"id\":\"a1\"}".into()))
        }
    }

    fn ask(method: &str, params: Value) -> Value {
        handle(
            &mut Fake,
            &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        )
        .unwrap()
    }

    #[test]
    fn the_protocol_answers_every_method() {
        let init = ask("initialize", json!({"protocolVersion": "2025-03-26"}));
        assert_eq!(init["result"]["protocolVersion"], "2025-03-26");
        assert_eq!(
            ask("initialize", json!({"protocolVersion": "1999"}))["result"]["protocolVersion"],
            PROTOCOL_VERSIONS[0]
        );
        assert_eq!(
            ask("tools/list", json!({}))["result"]["tools"][0]["name"],
            "search"
        );
        let ok = ask(
            "tools/call",
            json!({"name": "search", "arguments": {"query": "x"}}),
        );
        assert_eq!(ok["result"]["isError"], false);
        assert!(ok["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"query\""));
        let failed = ask(
            "tools/call",
            json!({"name": "get", "arguments": {"id": "zz"}}),
        );
        assert_eq!(failed["result"]["isError"], true);
        assert_eq!(
            ask("tools/call", json!({"name": "nope"}))["error"]["code"],
            -32602
        );
        assert_eq!(
            ask("resources/list", json!({}))["result"]["resources"][0]["uri"],
            "memdag://record/a1"
        );
        assert_eq!(
            ask("resources/read", json!({"uri": "memdag://record/a1"}))["result"]["contents"][0]
                ["text"],
            "{\"id\":\"a1\"}"
        );
        assert_eq!(
            ask("resources/read", json!({"uri": "memdag://record/zz"}))["error"]["code"],
            -32002
        );
        assert_eq!(ask("bogus", json!({}))["error"]["code"], -32601);
        assert!(handle(
            &mut Fake,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .is_none());
        let mut out = Vec::new();
        serve(
            &mut Fake,
            "not json\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n".as_bytes(),
            &mut out,
        )
        .unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["error"]["code"], -32700);
        assert_eq!(lines[1]["id"], 2);
    }

    #[test]
    fn bad_lines_get_errors_and_the_server_lives_on() {
        let mut input: Vec<u8> = Vec::new();
        input.extend_from_slice(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}\n",
        );
        input.extend_from_slice(b"[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]\n");
        input.extend_from_slice(b"42\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"q\":\"");
        input.extend(std::iter::repeat_n(b'a', MAX_MESSAGE_BYTES + 10));
        input.extend_from_slice(b"\"}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n");
        let mut out = Vec::new();
        serve(&mut Fake, &input[..], &mut out).unwrap();
        let answers: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let codes: Vec<&Value> = answers.iter().map(|a| &a["error"]["code"]).collect();
        assert_eq!(
            codes,
            [
                &json!(-32700),
                &json!(-32600),
                &json!(-32600),
                &json!(-32600),
                &Value::Null
            ]
        );
        assert_eq!(
            answers[4]["id"], 4,
            "the server answered the ping after them all"
        );
    }
}
