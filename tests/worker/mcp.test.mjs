// memdag's tools over MCP's Streamable HTTP transport from examples/cloudflare-worker, on real
// workerd (through miniflare, listening on a port), under the official MCP TypeScript SDK's
// client (StreamableHTTPClientTransport): a user authenticated by a bearer token signed with
// the secret MCP_SECRET lists and calls the tools and reads resources in their own Durable
// Object; a second user sees nothing of the first; a request without a valid token is 401.
// The tokens are minted here with node:crypto, apart from the Worker's code.
// Run by scripts/test-worker.sh, after scripts/build-pkg.sh has built pkg/dist.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { root, start, workerOptions } from './harness.mjs';

const SECRET = 'mcp-secret-for-the-worker-tests-0123456789';
/** A user's token as auth.js defines it: the name, a dot, hex HMAC-SHA256("memdag-mcp:" + name). */
const token = (user, secret = SECRET) =>
  `${encodeURIComponent(user)}.${createHmac('sha256', secret).update(`memdag-mcp:${user}`).digest('hex')}`;

let w;
before(async () => {
  w = await start(workerOptions({ bindings: { MCP_SECRET: SECRET } }));
});
after(async () => {
  await w?.mf.dispose();
});

/** An SDK client connected to the Worker's /mcp (or `path`) with `authorization`. */
async function connect(authorization, path = '/mcp') {
  const transport = new StreamableHTTPClientTransport(new URL(path, w.url), {
    requestInit: { headers: authorization ? { authorization } : {} },
  });
  const client = new Client({ name: 'memdag-worker-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const answer = (result) => {
  assert.equal(result.isError, false, JSON.stringify(result));
  return JSON.parse(result.content[0].text);
};
const failed = (result) => {
  assert.equal(result.isError, true, JSON.stringify(result));
  return result.content[0].text;
};

const T0 = Date.UTC(2024, 4, 1, 9);

test('MCP over Streamable HTTP: the SDK client lists and calls every tool as the token\'s user', async () => {
  // lin's memory is her Durable Object, the one /do/lin/ addresses: her agent's backend writes
  // turns there. One turn of kim's landed there too: lin's tools never show it.
  let r = await w.post('/do/lin/turns', { turns: [
    { id: 'a1', thread: 'ops', createdAt: T0, input: 'the deploy failed with a timeout', output: 'raised it to 600s',
      steps: [{ tool: 'shell', args: 'kubectl rollout status', result: 'error: deadline exceeded', ok: false }] },
    { id: 'a2', thread: 'ops', createdAt: T0 + 1000, input: 'write a note about the deploy fix', output: 'noted in deploy.md', parents: ['a1'] },
  ] }, { user: 'lin' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await w.post('/do/lin/turns', { turns: [{ id: 'k1', thread: 'ops', createdAt: T0, input: 'kim deploy secret: the vault code is 7741' }] }, { user: 'kim' });
  assert.equal(r.status, 201, JSON.stringify(r.body));

  const lin = await connect(`Bearer ${token('lin')}`);
  try {
    assert.equal(lin.getServerVersion().name, 'memdag');
    assert.ok(lin.getServerCapabilities().tools);
    const { tools } = await lin.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['ancestors', 'descendants', 'forget', 'get', 'grep', 'memories', 'read_blob', 'recall', 'remember', 'search']);
    for (const t of tools) assert.equal(t.inputSchema.type, 'object', t.name);

    const hits = answer(await lin.callTool({ name: 'search', arguments: { query: 'deploy', mode: 'bm25' } })).hits.map((h) => h.id);
    assert.deepEqual(hits.sort(), ['a1', 'a2']);
    const vault = answer(await lin.callTool({ name: 'search', arguments: { query: 'vault code 7741' } })).hits.map((h) => h.id);
    assert.ok(vault.every((id) => id !== 'k1'), `kim's turn is not lin's: ${vault}`);
    assert.equal(answer(await lin.callTool({ name: 'grep', arguments: { pattern: 'deadline' } })).matches[0].id, 'a1');
    assert.deepEqual(answer(await lin.callTool({ name: 'grep', arguments: { pattern: 'vault' } })).matches, []);
    assert.equal(answer(await lin.callTool({ name: 'get', arguments: { id: 'a1' } })).steps[0].tool, 'shell');
    assert.match(failed(await lin.callTool({ name: 'get', arguments: { id: 'k1' } })), /^NOT_FOUND/);
    assert.deepEqual(answer(await lin.callTool({ name: 'ancestors', arguments: { id: 'a2' } })).records.map((x) => x.id), ['a1']);
    assert.deepEqual(answer(await lin.callTool({ name: 'descendants', arguments: { id: 'a1' } })).records.map((x) => x.id), ['a2']);
    const recall = answer(await lin.callTool({ name: 'recall', arguments: { query: 'deploy timeout', thread: 'ops' } }));
    assert.match(recall.block, /\[a1\]/);
    assert.doesNotMatch(recall.block, /7741/);

    // remember writes lin's item into her object, durably: the HTTP API reads it back.
    const kept = answer(await lin.callTool({ name: 'remember', arguments: { text: 'Lin prefers deploys on Tuesday', kind: 'personal' } }));
    assert.equal(kept.outcome, 'added', JSON.stringify(kept));
    const items = (await w.call('/do/lin/memory', { user: 'lin' })).body.items;
    assert.deepEqual(items.map((i) => [i.text, i.user]), [['Lin prefers deploys on Tuesday', 'lin']]);
    assert.deepEqual(answer(await lin.callTool({ name: 'memories', arguments: {} })).memories.map((i) => i.id), [kept.memory.id]);

    const { resources } = await lin.listResources();
    assert.deepEqual(resources.map((x) => x.uri).sort(), ['memdag://record/a1', 'memdag://record/a2']);
    const read = await lin.readResource({ uri: 'memdag://record/a2' });
    assert.deepEqual(JSON.parse(read.contents[0].text).parents, ['a1']);
    await assert.rejects(lin.readResource({ uri: 'memdag://record/k1' }), (e) => e instanceof McpError && /NOT_FOUND/.test(e.message));

    // A failing tool is a tool result the model sees; a malformed call is an MCP error.
    assert.match(failed(await lin.callTool({ name: 'read_blob', arguments: { id: 'b0123456789abcdef' } })), /^NOT_FOUND/);
    await assert.rejects(lin.callTool({ name: 'teleport', arguments: {} }), (e) => e instanceof McpError && e.code === -32602);
    await assert.rejects(lin.callTool({ name: 'search', arguments: { query: 'x', user: 'kim' } }), (e) => e instanceof McpError && e.code === -32602, 'the model cannot name a user');
    assert.match(failed(await lin.callTool({ name: 'forget', arguments: { id: 'k1' } })), /^NOT_FOUND/, "lin cannot forget kim's record");
    await lin.ping();
  } finally {
    await lin.close();
  }
});

test('MCP: a second user sees nothing of the first, whatever id they try', async () => {
  const mei = await connect(`Bearer ${token('mei')}`);
  try {
    assert.deepEqual(answer(await mei.callTool({ name: 'search', arguments: { query: 'deploy timeout' } })).hits, []);
    assert.deepEqual(answer(await mei.callTool({ name: 'grep', arguments: { pattern: 'deploy' } })).matches, []);
    for (const tool of ['get', 'ancestors', 'descendants']) {
      assert.match(failed(await mei.callTool({ name: tool, arguments: { id: 'a1' } })), /^NOT_FOUND/, tool);
    }
    assert.match(failed(await mei.callTool({ name: 'read_blob', arguments: { id: 'b0123456789abcdef' } })), /^NOT_FOUND/);
    assert.deepEqual(answer(await mei.callTool({ name: 'memories', arguments: { include_ended: true } })).memories, []);
    assert.doesNotMatch(answer(await mei.callTool({ name: 'recall', arguments: { query: 'deploy', thread: 'ops' } })).block, /deploy|Tuesday/);
    assert.deepEqual((await mei.listResources()).resources, []);
    await assert.rejects(mei.readResource({ uri: 'memdag://record/a1' }), McpError);
    // mei's memory is her own object: what she keeps is not lin's.
    answer(await mei.callTool({ name: 'remember', arguments: { text: 'Mei keeps bees' } }));
    assert.deepEqual((await w.call('/do/lin/memory?all=1')).body.items.map((i) => i.text), ['Lin prefers deploys on Tuesday']);
    assert.deepEqual((await w.call('/do/mei/memory?all=1')).body.items.map((i) => i.text), ['Mei keeps bees']);
  } finally {
    await mei.close();
  }
});

test('MCP: no token, a forged or tampered one, or another user\'s object is 401', async () => {
  const refused = async (authorization, path) => {
    await assert.rejects(connect(authorization, path), (e) => e instanceof StreamableHTTPError && e.code === 401, `${authorization} ${path ?? ''}`);
  };
  await refused(undefined);
  await refused('Bearer lin');
  await refused(`Bearer ${token('lin', 'another secret of forty characters or so!')}`, undefined);
  await refused(`Bearer ${token('lin').replace(/^lin/, 'kim')}`, undefined); // lin's signature, kim's name
  await refused(`Bearer ${token('lin').slice(0, -1)}0`);
  await refused(`Basic ${Buffer.from('lin:pw').toString('base64')}`);
  await refused(`Bearer ${token('  ')}`, undefined); // a signed blank name still names nobody
  // Each user's object answers only its own user, on its own route too.
  await refused(`Bearer ${token('mei')}`, '/do/lin/mcp');
  await refused(undefined, '/do/lin/mcp');
  const lin = await connect(`Bearer ${token('lin')}`, '/do/lin/mcp');
  assert.equal((await lin.listTools()).tools.length, 10);
  await lin.close();
  // A user name with a dot, a slash and non-ASCII letters works (the name is percent-encoded).
  const odd = await connect(`Bearer ${token('zoë.k/2')}`);
  assert.equal(answer(await odd.callTool({ name: 'remember', arguments: { text: 'Zoë likes tea' } })).outcome, 'added');
  await odd.close();
});

test('MCP: the transport answers as Streamable HTTP asks (405 for GET, 202 for notifications, 400 for bad input)', async () => {
  const auth = { authorization: `Bearer ${token('lin')}` };
  const send = (init) => fetch(new URL('/mcp', w.url), { ...init, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...auth, ...init.headers } });
  let res = await send({ method: 'GET' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST');
  res = await send({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(res.status, 202);
  assert.equal(await res.text(), '');
  res = await send({ method: 'POST', body: '{"jsonrpc": "2.0", "id": 1, ' });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, -32700);
  res = await send({ method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]) });
  assert.equal((await res.json()).error.code, -32600);
  res = await send({ method: 'POST', headers: { 'mcp-protocol-version': '1999-01-01' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
  assert.equal(res.status, 400);
  res = await send({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }) });
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal((await res.json()).result.protocolVersion, '2025-03-26', 'a version it speaks is kept');
  res = await send({ method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'sampling/createMessage' }) });
  assert.equal((await res.json()).error.code, -32601);
});

test("MCP: the README's openssl line mints a token the Worker takes", async () => {
  const readme = readFileSync(join(root, 'examples/cloudflare-worker/README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.startsWith('echo "$user.$(printf'));
  assert.ok(line, 'the README shows how to mint a token');
  const minted = execFileSync('sh', ['-c', line], { env: { ...process.env, secret: SECRET, user: 'ren' }, encoding: 'utf8' }).trim();
  assert.equal(minted, token('ren'));
  const ren = await connect(`Bearer ${minted}`);
  assert.equal((await ren.listTools()).tools.length, 10);
  await ren.close();
});

test('MCP without the secret MCP_SECRET refuses every call (503), never trusting a claimed user', async () => {
  const bare = await start();
  try {
    const res = await fetch(new URL('/mcp', bare.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token('lin')}`, 'x-memdag-user': 'lin' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 503);
    assert.match((await res.json()).error.message, /MCP_SECRET/);
  } finally {
    await bare.mf.dispose();
  }
});
