// memdag's tools over MCP's Streamable HTTP transport, for one authenticated user.
//
// The endpoint is stateless: every JSON-RPC message is one POST, answered with one
// `application/json` body (a request), or 202 and no body (a notification or a response).
// There is no session (no `Mcp-Session-Id`) and no server-initiated stream: GET and DELETE
// are 405, as the transport allows. A request that names an `MCP-Protocol-Version` this server
// does not speak is 400. Methods, as memdag's stdio server (crates/memdag-host/src/mcp.rs):
// - `initialize`: the client's protocol version when this server speaks it, else the newest;
//   capabilities `tools` and `resources`;
// - `tools/list`: the package's tools in MCP's shape (`toolSchemas('mcp')`); `tools/call`:
//   `callTool(name, arguments, { user, now })`. A tool that fails answers `isError: true`
//   with "CODE: message" as its text, so the model sees it; an unknown tool or malformed
//   arguments (`INVALID_INPUT`) are the JSON-RPC error -32602;
// - `resources/list`: the user's turns, newest first (at most 1,000), as
//   `memdag://record/<id>`; `resources/read`: one record's JSON, if the user may see it;
// - `ping`. Anything else is -32601.
// Every call is kept to the user: the model never chooses it (see auth.js for who that is).

/** The protocol versions this server speaks, newest first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

const RESOURCE = 'memdag://record/';

const answer = (body, status = 200, headers = {}) =>
  new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: body === null ? headers : { 'content-type': 'application/json', ...headers },
  });

const rpcError = (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } });
const rpcResult = (id, result) => ({ jsonrpc: '2.0', id, result });

/** "CODE: message" of an error thrown by the package. */
const described = (e) => `${typeof e?.code === 'string' ? e.code : 'INTERNAL'}: ${e?.message ?? e}`;

/** The first line of a record's input, shortened: a resource's title. */
const title = (record) => {
  const line = (record.input || record.output || record.thread).split('\n')[0];
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
};

/** Runs one JSON-RPC request for `user` on `memory` (a PersistentMemory). */
async function call(memory, user, { id, method, params = {} }) {
  switch (method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      return rpcResult(id, {
        protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
        serverInfo: { name: 'memdag', version: '0.1.0' }, // pkg/package.json's version
        instructions: 'memdag is agent memory: search and recall past turns, keep long-term memories. Cite the [id]s you use.',
      });
    }
    case 'ping':
      return rpcResult(id, {});
    case 'tools/list':
      return rpcResult(id, { tools: memory.toolSchemas('mcp') });
    case 'tools/call': {
      if (typeof params.name !== 'string') return rpcError(id, -32602, 'tools/call needs a tool name');
      try {
        const result = await memory.callTool(params.name, params.arguments ?? {}, { user, now: Date.now() });
        return rpcResult(id, { content: [{ type: 'text', text: JSON.stringify(result) }], isError: false });
      } catch (e) {
        // Unknown tools and malformed arguments are the caller's mistake: protocol errors.
        // Anything else failed while running: the model should see it.
        if (e?.code === 'INVALID_INPUT') return rpcError(id, -32602, described(e));
        return rpcResult(id, { content: [{ type: 'text', text: described(e) }], isError: true });
      }
    }
    case 'resources/list':
      return rpcResult(id, {
        resources: memory.byUser(user, 1000).map((r) => ({ uri: `${RESOURCE}${r.id}`, name: r.id, title: title(r), mimeType: 'application/json' })),
      });
    case 'resources/read': {
      const uri = typeof params.uri === 'string' ? params.uri : '';
      if (!uri.startsWith(RESOURCE)) return rpcError(id, -32602, 'not a memdag record uri');
      const record = memory.get(uri.slice(RESOURCE.length), user);
      if (!record) return rpcError(id, -32002, `NOT_FOUND: no record ${JSON.stringify(uri.slice(RESOURCE.length))}`);
      return rpcResult(id, { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...record, embedding: null }) }] });
    }
    default:
      return rpcError(id, -32601, `method not found: ${method}`);
  }
}

/** Answers one HTTP request to the MCP endpoint, for `user` (already authenticated). */
export async function serveMcp(request, memory, user) {
  if (request.method !== 'POST') {
    // No body: the SDK's client drops a 405 answer to its GET unread.
    return answer(null, 405, { allow: 'POST' });
  }
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !PROTOCOL_VERSIONS.includes(version)) {
    return answer(rpcError(null, -32600, `unsupported MCP-Protocol-Version ${version}; this server speaks ${PROTOCOL_VERSIONS.join(', ')}`), 400);
  }
  let message;
  try {
    message = JSON.parse(await request.text());
  } catch (e) {
    return answer(rpcError(null, -32700, `parse error: ${e.message}`), 400);
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message) || message.jsonrpc !== '2.0') {
    return answer(rpcError(null, -32600, 'invalid request: one JSON-RPC 2.0 message (an object) per POST'), 400);
  }
  // A notification or a response to a request of ours (there are none): accepted, no answer.
  if (message.id === undefined || typeof message.method !== 'string') return answer(null, 202);
  try {
    return answer(await call(memory, user, message));
  } catch (e) {
    return answer(rpcError(message.id, -32603, described(e)));
  }
}
