// Issue 30 through `memdag mcp`, with the official MCP SDK client and raw stdio writes:
// - item 5: no empty user, and every user's memory only with --all-users;
// - item 6: working memory per user through the recall tool;
// - item 8: invalid UTF-8, a batch, a 60 MB line and non-objects get JSON-RPC errors and the
//   server lives on;
// - item 9: the store is locked per request: while a server runs, `memdag search`, a second
//   server and a writer in another process work, and the server sees what they wrote;
// - item 10: the grep pattern over a store of real-looking text answers.
// Needs the memdag CLI and the component, found as in mcp.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const target = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache/memdag-target');
const bin = process.env.MEMDAG_BIN || join(target, 'debug/memdag');
const component = process.env.MEMDAG_COMPONENT || join(target, 'wasm32-wasip2/release/memdag_component.wasm');
const ready = existsSync(bin) && existsSync(component);
if (!ready) console.log(`SKIPPED: the MCP guard test needs ${bin} and ${component} (scripts/test.sh builds them)`);
const env = { ...process.env, MEMDAG_COMPONENT: component, MEMDAG_CACHE_DIR: join(tmpdir(), 'memdag-mcp-cache') };

const TURNS = [
  { id: 'a1', thread: 'default', user: 'alice', createdAt: '2026-11-27T09:00:00Z', input: 'alice plans the secret launch', output: 'noted' },
  { id: 'b1', thread: 'default', user: 'bob', createdAt: '2026-11-27T09:01:00Z', input: 'bob plans the secret merger', output: 'noted' },
];

/** A store holding `turns`, in a fresh directory. */
function store(turns = TURNS) {
  const dir = mkdtempSync(join(tmpdir(), 'memdag-mcp-guard-'));
  const file = join(dir, 'turns.jsonl');
  writeFileSync(file, turns.map((t) => JSON.stringify(t)).join('\n'));
  const path = join(dir, 'store');
  execFileSync(bin, ['--store', path, 'ingest', file], { env, stdio: 'pipe' });
  return { dir, path };
}

const cli = (path, ...args) => execFileSync(bin, ['--store', path, ...args], { env, stdio: 'pipe' }).toString();

async function connect(path, ...args) {
  const transport = new StdioClientTransport({ command: bin, args: ['--store', path, 'mcp', ...args], env, stderr: 'pipe' });
  const client = new Client({ name: 'memdag-guard-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const text = (result) => JSON.parse(result.content[0].text);
const searchIds = async (client, query) => text(await client.callTool({ name: 'search', arguments: { query } })).hits.map((h) => h.id);

test('mcp refuses an empty user and serves every user only with --all-users', { skip: !ready }, () => {
  const { path } = store();
  for (const args of [['--user', ''], ['--user', '  '], []]) {
    const run = spawnSync(bin, ['--store', path, 'mcp', ...args], { env, input: '' });
    assert.equal(run.status, 2, `${args}: ${run.stderr}`);
    assert.match(run.stderr.toString(), args.length ? /names nobody/ : /--all-users/);
  }
});

test('--all-users is the named way to every user; --user keeps to one, working memory included', { skip: !ready }, async () => {
  const { path } = store();
  cli(path, 'work', 'set', '--thread', 'default', 'goal', 'bob goal');
  cli(path, 'work', 'set', '--thread', 'default', '--user', 'alice', 'goal', 'launch on time');
  const all = await connect(path, '--all-users');
  const alice = await connect(path, '--user', 'alice', '--thread', 'default');
  try {
    assert.deepEqual((await searchIds(all, 'secret plans')).sort(), ['a1', 'b1']);
    assert.deepEqual(await searchIds(alice, 'secret plans'), ['a1']);
    const recall = text(await alice.callTool({ name: 'recall', arguments: {} }));
    assert.match(recall.block, /launch on time/);
    assert.ok(!recall.block.includes('bob goal'), recall.block);
  } finally {
    await all.close();
    await alice.close();
  }
});

/** Writes raw bytes to a server's stdin and reads its answer lines. */
function rawServer(path) {
  const child = spawn(bin, ['--store', path, 'mcp', '--user', 'alice'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let buffered = '';
  const waiting = [];
  const lines = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
      while (waiting.length && lines.length) waiting.shift()(lines.shift());
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve)));
  const write = (bytes) => new Promise((resolve) => (child.stdin.write(bytes) ? resolve() : child.stdin.once('drain', resolve)));
  return { child, next, write };
}

test('bad input gets JSON-RPC errors and the server lives on', { skip: !ready }, async () => {
  const { path } = store();
  const server = rawServer(path);
  try {
    // Invalid UTF-8 inside an otherwise good ping.
    await server.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'), Buffer.from([0xff]), Buffer.from('"}\n')]));
    const utf8 = await server.next();
    assert.equal(utf8.error.code, -32700);
    assert.equal(utf8.id, null);
    // A batch array.
    await server.write('[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]\n');
    assert.equal((await server.next()).error.code, -32600);
    // Not an object.
    await server.write('"ping"\n');
    assert.equal((await server.next()).error.code, -32600);
    // A 60 MB query, written in pieces.
    await server.write('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":"');
    const mb = 'x'.repeat(1 << 20);
    for (let i = 0; i < 60; i++) await server.write(mb);
    await server.write('"}}}\n');
    const big = await server.next();
    assert.equal(big.error.code, -32600);
    assert.match(big.error.message, /longer than/);
    // And the server still answers.
    await server.write('{"jsonrpc":"2.0","id":5,"method":"ping"}\n');
    const ping = await server.next();
    assert.deepEqual([ping.id, ping.result], [5, {}]);
    await server.write('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"secret"}}}\n');
    const hit = await server.next();
    assert.equal(hit.id, 6);
    assert.equal(JSON.parse(hit.result.content[0].text).hits[0].id, 'a1');
    assert.equal(server.child.exitCode, null, 'alive');
  } finally {
    server.child.stdin.end();
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
});

test('a running server locks the store per request: readers, a second server and a writer all work', { skip: !ready }, async () => {
  const { dir, path } = store();
  const one = await connect(path, '--user', 'alice');
  const two = await connect(path, '--user', 'alice');
  try {
    assert.deepEqual(await searchIds(one, 'secret'), ['a1']);
    assert.deepEqual(await searchIds(two, 'secret'), ['a1'], 'a second server on the same store');
    // Another process reads and writes while both servers run.
    assert.match(cli(path, 'search', 'secret', '--user', 'alice'), /a1/);
    const file = join(dir, 'more.jsonl');
    writeFileSync(file, JSON.stringify({ id: 'a2', thread: 'default', user: 'alice', createdAt: '2026-11-27T10:00:00Z', input: 'alice adds a secret rocket', output: 'noted' }));
    assert.match(cli(path, 'ingest', file), /ingested 1 turns/);
    // Each server sees the other process's write at its next request.
    assert.ok((await searchIds(one, 'secret rocket')).includes('a2'));
    const kept = text(await two.callTool({ name: 'remember', arguments: { text: 'Alice launches on Fridays' } }));
    assert.equal(kept.outcome, 'added');
    const memories = text(await one.callTool({ name: 'memories', arguments: {} }));
    assert.ok(memories.memories.some((m) => m.id === kept.memory.id), "one server sees the other's write");
    assert.match(cli(path, 'memory', 'list', '--user', 'alice'), /Fridays/);
  } finally {
    await one.close();
    await two.close();
  }
});

/** Turns of about 1 KB of made-up words each (a reproducible stream, letters a to y so that
 * no word is `zzz`); the middle one ends with `zzz`. */
function wordy(n) {
  let state = 0x2545f4914f6cdd1dn;
  const next = () => {
    state ^= (state << 13n) & 0xffffffffffffffffn;
    state ^= state >> 7n;
    state ^= (state << 17n) & 0xffffffffffffffffn;
    return Number(state % 1000003n);
  };
  const vocabulary = Array.from({ length: 5000 }, () => Array.from({ length: 2 + (next() % 8) }, () => String.fromCharCode(97 + (next() % 25))).join(''));
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 180 }, () => vocabulary[next() % 5000]);
    if (i === n >> 1) words.push('zzz');
    return { id: `w${i}`, thread: 'logs', user: 'alice', createdAt: 0, input: words.join(' ') };
  });
}

test("the issue's grep pattern answers through the MCP tool", { skip: !ready }, async () => {
  const { path } = store(wordy(1500));
  const client = await connect(path, '--user', 'alice');
  try {
    const result = await client.callTool({ name: 'grep', arguments: { pattern: '(?:\\w+\\s+){30}zzz' } });
    assert.equal(result.isError, false, result.content[0].text);
    assert.deepEqual(text(result).matches.map((m) => m.id), ['w750']);
  } finally {
    await client.close();
  }
});
