// `memdag mcp` under the official MCP TypeScript SDK's client, as a real MCP client would use
// it: over stdio, list the tools, call each one, read a record resource, and get errors back
// as MCP errors. Needs the memdag CLI and the component (scripts/test.sh builds both first):
// $MEMDAG_BIN or $CARGO_TARGET_DIR/debug/memdag, and $MEMDAG_COMPONENT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const target = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache/memdag-target');
const bin = process.env.MEMDAG_BIN || join(target, 'debug/memdag');
const component = process.env.MEMDAG_COMPONENT || join(target, 'wasm32-wasip2/release/memdag_component.wasm');
const ready = existsSync(bin) && existsSync(component);
if (!ready) console.log(`SKIPPED: the MCP test needs ${bin} and ${component} (scripts/test.sh builds them)`);

const TURNS = [
  { id: 'a1', thread: 'main', user: 'lin', createdAt: '2026-11-27T09:00:00Z', input: 'The deploy failed with a timeout', output: 'Raised the timeout to 600s', steps: [{ tool: 'shell', args: 'kubectl rollout status', result: 'error: deadline exceeded', ok: false }] },
  { id: 'a2', thread: 'main', user: 'lin', createdAt: '2026-11-27T09:05:00Z', input: 'Write a note about the fix', output: 'Noted in deploy.md', parents: ['a1'] },
  { id: 'm1', thread: 'travel', user: 'mei', createdAt: '2026-11-27T10:00:00Z', input: 'mei keeps her passport in the blue drawer', output: 'Noted' },
];

async function connect(setup = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'memdag-mcp-'));
  const store = join(dir, 'store');
  const file = join(dir, 'turns.jsonl');
  writeFileSync(file, TURNS.map((t) => JSON.stringify(t)).join('\n'));
  const env = { ...process.env, MEMDAG_COMPONENT: component, MEMDAG_CACHE_DIR: join(tmpdir(), 'memdag-mcp-cache') };
  execFileSync(bin, ['--store', store, 'ingest', file], { env, stdio: 'pipe' });
  setup((args) => execFileSync(bin, ['--store', store, ...args], { env, stdio: 'pipe' }));
  const transport = new StdioClientTransport({ command: bin, args: ['--store', store, 'mcp', '--user', 'lin', '--thread', 'main'], env, stderr: 'pipe' });
  const client = new Client({ name: 'memdag-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const text = (result) => JSON.parse(result.content[0].text);

test('the MCP SDK client lists and calls every tool, keeps to the user, and gets MCP errors', { skip: !ready }, async () => {
  const client = await connect();
  try {
    assert.equal(client.getServerVersion().name, 'memdag');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['ancestors', 'descendants', 'forget', 'get', 'grep', 'memories', 'read_blob', 'recall', 'remember', 'search']);
    for (const t of tools) assert.equal(t.inputSchema.type, 'object', t.name);

    const search = text(await client.callTool({ name: 'search', arguments: { query: 'deploy timeout' } }));
    assert.ok(search.hits.some((h) => h.id === 'a1'));
    const passport = text(await client.callTool({ name: 'search', arguments: { query: 'passport blue drawer' } }));
    assert.ok(passport.hits.every((h) => h.id !== 'm1'), "mei's turn never reaches lin's tools");
    const grep = text(await client.callTool({ name: 'grep', arguments: { pattern: 'deadline' } }));
    assert.equal(grep.matches[0].id, 'a1');
    const got = text(await client.callTool({ name: 'get', arguments: { id: 'a1' } }));
    assert.equal(got.steps[0].tool, 'shell');
    const up = text(await client.callTool({ name: 'ancestors', arguments: { id: 'a2' } }));
    assert.equal(up.records[0].id, 'a1');
    const down = text(await client.callTool({ name: 'descendants', arguments: { id: 'a1' } }));
    assert.equal(down.records[0].id, 'a2');
    const kept = text(await client.callTool({ name: 'remember', arguments: { text: 'Lin deploys with a 600s timeout', kind: 'procedural', sources: ['a1'] } }));
    assert.equal(kept.outcome, 'added');
    const memories = text(await client.callTool({ name: 'memories', arguments: {} }));
    assert.equal(memories.memories[0].id, kept.memory.id);
    const recall = text(await client.callTool({ name: 'recall', arguments: { query: 'deploy timeout', budget_tokens: 500 } }));
    assert.ok(recall.block.includes('600s') && recall.tokens <= 500);
    const forgot = text(await client.callTool({ name: 'forget', arguments: { id: kept.memory.id } }));
    assert.equal(forgot.forgotten.status, 'deleted');

    // A tool that fails while running: a result with isError, for the model to read.
    const missing = await client.callTool({ name: 'get', arguments: { id: 'nope' } });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /^NOT_FOUND: /);
    // An unknown tool and malformed arguments: MCP (JSON-RPC) errors.
    await assert.rejects(client.callTool({ name: 'teleport', arguments: {} }), (e) => e.code === -32602);
    await assert.rejects(client.callTool({ name: 'search', arguments: { limit: 3 } }), (e) => e.code === -32602);

    // Records as resources, the user's only.
    const { resources } = await client.listResources();
    const ids = resources.map((r) => r.name);
    assert.ok(ids.includes('a1') && !ids.includes('m1'), ids.join());
    const read = await client.readResource({ uri: 'memdag://record/a1' });
    assert.match(read.contents[0].text, /deadline exceeded/);
  } finally {
    await client.close();
  }
});

test("the tools count expiry from the clock: an item past its time to live is in no tool's answer", { skip: !ready }, async () => {
  let expired;
  let alive;
  const client = await connect((memdag) => {
    const add = (args) => JSON.parse(memdag(['memory', 'add', '--user', 'lin', '--kind', 'personal', '--json', ...args]).toString()).item.id;
    expired = add(['--ttl', '90s', '--now', '2023-11-14T12:00:00Z', 'Lin parks on level zeta-nine']);
    alive = add(['Lin parks on level alpha-one']);
  });
  try {
    const recall = text(await client.callTool({ name: 'recall', arguments: { query: 'where does Lin park' } }));
    assert.match(recall.block, /alpha-one/);
    assert.ok(!recall.block.includes('zeta-nine'), recall.block);
    const search = text(await client.callTool({ name: 'search', arguments: { query: 'Lin parks on level' } }));
    const ids = search.hits.map((h) => h.id);
    assert.ok(ids.includes(alive), JSON.stringify(ids));
    assert.ok(!ids.includes(expired), JSON.stringify(ids));
    const memories = text(await client.callTool({ name: 'memories', arguments: {} }));
    assert.deepEqual(memories.memories.map((m) => m.id), [alive]);
    // A memory the model keeps is dated by the clock, not the epoch.
    const kept = text(await client.callTool({ name: 'remember', arguments: { text: 'Lin deploys on Fridays', kind: 'personal' } }));
    const at = kept.memory.createdAt;
    assert.ok((typeof at === 'number' ? at : Date.parse(at)) > Date.UTC(2026, 0, 1), String(at));
  } finally {
    await client.close();
  }
});
