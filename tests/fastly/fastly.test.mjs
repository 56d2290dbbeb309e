// examples/fastly-compute under Viceroy, Fastly's local Compute runtime: requests in sequence
// see each other's turns, a refused request writes nothing, and agents stay apart. Run by
// scripts/test-fastly.sh, which builds the app and passes VICEROY and MEMDAG_FASTLY_WASM.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const app = join(root, 'examples/fastly-compute');
let child;
let base;
let log = '';

/** A free local port. */
const freePort = () =>
  new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.env.VICEROY ?? 'viceroy', ['serve', '-C', join(app, 'fastly.toml'), '--addr', `127.0.0.1:${port}`, process.env.MEMDAG_FASTLY_WASM], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(`${base}/probe/recent`);
      return;
    } catch {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`viceroy did not start:\n${log}`);
});

after(() => child?.kill());

const call = async (path, init) => {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    assert.fail(`${res.status} ${text}\n${log}`);
  }
};

const post = (agent, turns) => call(`/${agent}/turns`, { method: 'POST', body: JSON.stringify({ turns }) });

const turn = (id, at, parents = [], input = `input of ${id}`) => ({ id, thread: 'main', user: 'lin', created_at: at, input, parents });

test('requests in sequence see each other\'s turns', async () => {
  let r = await post('agent-1', [turn('a', 1000, [], 'the deploy failed with a timeout')]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await post('agent-1', [turn('b', 2000, ['a']), turn('c', 3000, ['b'])]);
  assert.deepEqual(r.body, { added: ['b', 'c'], len: 3 });
  assert.deepEqual((await call('/agent-1/ancestors?id=c')).body.ids, ['b', 'a']);
  assert.deepEqual((await call('/agent-1/recent?thread=main')).body.ids, ['c', 'b', 'a']);
  assert.equal((await call('/agent-1/search?q=timeout&mode=bm25')).body.hits[0].id, 'a');
  assert.deepEqual((await call('/agent-2/recent?thread=main')).body.ids, []);
});

test('a refused request writes nothing', async () => {
  assert.equal((await post('agent-3', [turn('a', 1)])).status, 201);
  const r = await post('agent-3', [turn('b', 2, ['a']), turn('c', 3, ['ghost'])]);
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'UNKNOWN_PARENT');
  assert.equal((await call('/agent-3/ancestors?id=b')).status, 404);
  assert.deepEqual((await call('/agent-3/recent?thread=main')).body.ids, ['a']);
});

test('turns are read in memdag\'s JSON shape, as every face reads them', async () => {
  // A typo is refused (the shape denies unknown fields) and writes nothing.
  const typo = await post('agent-5', [{ thread: 'main', input: 'x', parent: [] }]);
  assert.equal(typo.status, 400);
  assert.equal(typo.body.error.code, 'INVALID_INPUT');
  // camelCase createdAt and a step without `ok` are taken.
  const r = await post('agent-5', [{ id: 'a', thread: 'main', createdAt: '2024-05-08T13:56:00Z', input: 'x', steps: [{ tool: 'ls' }] }]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual((await call('/agent-5/recent?thread=main')).body.ids, ['a']);
});
