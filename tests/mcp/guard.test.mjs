// Issue 30 through `memdag mcp`, with the official MCP SDK client:
// - item 5: no empty user, and every user's memory only with --all-users;
// - item 6: working memory per user through the recall tool;
// - item 10: the grep pattern over a store of real-looking text answers.
// Needs the memdag CLI and the component, found as in mcp.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

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
  try {
    assert.deepEqual((await searchIds(all, 'secret plans')).sort(), ['a1', 'b1']);
  } finally {
    await all.close();
  }
  const alice = await connect(path, '--user', 'alice', '--thread', 'default');
  try {
    assert.deepEqual(await searchIds(alice, 'secret plans'), ['a1']);
    const recall = text(await alice.callTool({ name: 'recall', arguments: {} }));
    assert.match(recall.block, /launch on time/);
    assert.ok(!recall.block.includes('bob goal'), recall.block);
  } finally {
    await alice.close();
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
