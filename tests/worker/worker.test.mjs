// examples/cloudflare-worker on real workerd (through miniflare), with both adapters:
// requests in sequence see each other's turns, a request that fails midway leaves the store as
// it was, and the bundle stays under Cloudflare's 3 MB gzip limit (its size is printed).
// Run by scripts/test-worker.sh, after scripts/build-pkg.sh has built pkg/dist.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const entry = join(root, 'examples/cloudflare-worker/src/worker.js');

/** Every module the worker loads, following static imports from the entry. */
function bundle(start) {
  const seen = new Map();
  const visit = (path) => {
    if (seen.has(path)) return;
    const contents = readFileSync(path);
    if (path.endsWith('.wasm')) {
      seen.set(path, { type: 'CompiledWasm', path, contents });
      return;
    }
    seen.set(path, { type: 'ESModule', path, contents: contents.toString('utf8') });
    const text = contents.toString('utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gms)) {
      visit(resolve(dirname(path), m[1]));
    }
    for (const m of text.matchAll(/^\s*import\s+['"](\.[^'"]+)['"]/gm)) visit(resolve(dirname(path), m[1]));
  };
  visit(start);
  return [...seen.values()];
}

const modules = bundle(entry);
let mf;

before(async () => {
  mf = new Miniflare({
    modules,
    modulesRoot: root,
    compatibilityDate: '2025-01-01',
    kvNamespaces: ['MEM'],
    durableObjects: { MEMORY: 'MemoryObject' },
    bindings: { FAULT_INJECTION: 'on' },
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

const call = async (path, init) => {
  const res = await mf.dispatchFetch(`http://memdag.test${path}`, init);
  return { status: res.status, body: await res.json() };
};

const post = (path, turns, headers = {}) =>
  call(path, { method: 'POST', body: JSON.stringify({ turns }), headers: { 'content-type': 'application/json', ...headers } });

const turn = (id, at, parents = [], input = `input of ${id}`) => ({
  id, thread: 'main', user: 'lin', createdAt: at, input, output: `output of ${id}`, parents,
});

test('the bundle is under the 3 MB gzip limit', () => {
  const raw = modules.reduce((n, m) => n + Buffer.byteLength(m.contents), 0);
  const gz = gzipSync(Buffer.concat(modules.map((m) => Buffer.from(m.contents))), { level: 9 }).length;
  const wasm = modules.filter((m) => m.type === 'CompiledWasm');
  const wasmGz = wasm.reduce((n, m) => n + gzipSync(m.contents, { level: 9 }).length, 0);
  console.log(`worker bundle: ${modules.length} modules, ${raw} bytes raw, ${gz} bytes gzip -9 (wasm ${wasmGz} gzip)`);
  for (const m of modules) console.log(`  ${relative(root, m.path)}  ${Buffer.byteLength(m.contents)} bytes`);
  assert.ok(gz < 3 * 1024 * 1024, `${gz} bytes gzipped`);
});

for (const backend of ['kv', 'do']) {
  test(`${backend}: two requests in sequence see each other's turns`, async () => {
    const agent = `/${backend}/agent-seq`;
    let r = await post(`${agent}/turns`, [turn('a', 1000, [], 'the deploy failed with a timeout')]);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    // The second request names the first one's turn as a parent: it must see it.
    r = await post(`${agent}/turns`, [turn('b', 2000, ['a']), turn('c', 3000, ['b'])]);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body, { added: ['b', 'c'], len: 3 });
    r = await call(`${agent}/ancestors?id=c`);
    assert.deepEqual(r.body.ids, ['b', 'a']);
    r = await call(`${agent}/recent?thread=main`);
    assert.deepEqual(r.body.ids, ['c', 'b', 'a']);
    r = await call(`${agent}/search?q=timeout&mode=bm25&k=1`);
    assert.equal(r.body.hits[0].id, 'a');
    // Every turn reached storage, not only the memory of a cached object: a commit and the
    // segments it names (one per flush, merged later).
    const keys = (await call(`${agent}/stored`)).body.entries.map(([k]) => k);
    assert.ok(keys.includes('head'), keys.join(', '));
    assert.equal(keys.filter((k) => k.startsWith('seg/')).length, 2, keys.join(', '));
    // Another agent's memory is separate.
    r = await call(`/${backend}/someone-else/recent?thread=main`);
    assert.deepEqual(r.body.ids, []);
  });

  test(`${backend}: a request that fails midway leaves the store as it was`, async () => {
    const agent = `/${backend}/agent-fail`;
    assert.equal((await post(`${agent}/turns`, [turn('a', 1000)])).status, 201);
    const stored = async () => (await call(`${agent}/stored`)).body.entries;
    const before = await stored();
    assert.ok(before.some(([k]) => k === 'head'), JSON.stringify(before));

    // The third turn names an unknown parent: the two before it are not kept either.
    let r = await post(`${agent}/turns`, [turn('b', 2000, ['a']), turn('c', 3000, ['b']), turn('d', 4000, ['ghost'])]);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'UNKNOWN_PARENT');
    assert.deepEqual(await stored(), before);

    // A failure after the turns were added, before anything was written.
    r = await post(`${agent}/turns`, [turn('b', 2000, ['a'])], { 'x-memdag-fault': 'after-add' });
    assert.equal(r.status, 500);
    assert.deepEqual(await stored(), before);

    if (backend === 'do') {
      // A failure inside the commit, after every write of the change set was issued: the
      // transaction rolls all of them back.
      r = await post(`${agent}/turns`, [turn('b', 2000, ['a']), turn('c', 3000, ['b'])], { 'x-memdag-fault': 'in-commit' });
      assert.equal(r.status, 500);
      assert.match(r.body.error.message, /injected failure inside the commit/);
      assert.deepEqual(await stored(), before);
    }

    assert.equal((await call(`${agent}/get?id=b`)).status, 404);
    // The store still works, and the refused turns can be added now.
    r = await post(`${agent}/turns`, [turn('b', 2000, ['a'])]);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual((await call(`${agent}/ancestors?id=b`)).body.ids, ['a']);
  });
}

test('kv: the agent keys are in Workers KV under the agent prefix', async () => {
  const ns = await mf.getKVNamespace('MEM');
  const { keys } = await ns.list({ prefix: 'agent-seq/' });
  const names = keys.map((k) => k.name);
  assert.ok(names.includes('agent-seq/head') && names.some((n) => n.startsWith('agent-seq/seg/')), names.join(', '));
});

test('the storage adapter conformance suite passes on Durable Object storage', async () => {
  const suite = new Miniflare({
    modules: bundle(join(root, 'tests/worker/suite-worker.mjs')),
    modulesRoot: root,
    compatibilityDate: '2025-01-01',
    durableObjects: { SUITE: 'SuiteObject' },
  });
  try {
    const res = await suite.dispatchFetch('http://suite.test/');
    const results = await res.json();
    assert.ok(results.length >= 10, JSON.stringify(results));
    for (const { name, error } of results) assert.equal(error, null, `Durable Object storage: ${name}`);
  } finally {
    await suite.dispose();
  }
});

test('kv: a store of many flushes opens in a bounded number of KV reads', async () => {
  const agent = '/kv/agent-bounded';
  for (let i = 0; i < 30; i++) {
    const r = await post(`${agent}/turns`, [turn(`t${i}`, 1000 + i)]);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  const ns = await mf.getKVNamespace('MEM');
  const head = new Uint8Array(await ns.get('agent-bounded/head', 'arrayBuffer'));
  assert.ok(head.length > 0);
  const { keys } = await ns.list({ prefix: 'agent-bounded/seg/' });
  assert.ok(keys.length < 20, `${keys.length} segment parts after 30 flushes (merged)`);
  const r = await call(`${agent}/recent?thread=main&n=50`);
  assert.equal(r.body.ids.length, 30);
});

test('with the MEMDAG_KEY secret every stored value is sealed; without it or with another, LOCKED', async () => {
  const persist = mkdtempSync(join(tmpdir(), 'memdag-worker-key-'));
  const KEY = '4b'.repeat(32);
  const secret = 'the alarm code is 5150-wombat';
  const worker = (key) => new Miniflare({
    modules,
    modulesRoot: root,
    compatibilityDate: '2025-01-01',
    kvNamespaces: ['MEM'],
    durableObjects: { MEMORY: 'MemoryObject' },
    kvPersist: join(persist, 'kv'),
    durableObjectsPersist: join(persist, 'do'),
    bindings: key ? { MEMDAG_KEY: key } : {},
  });
  const send = async (w, path, init) => {
    const res = await w.dispatchFetch(`http://memdag.test${path}`, init);
    return { status: res.status, body: await res.json() };
  };
  const turns = (id) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ turns: [turn(id, 1000, [], secret)] }),
  });
  try {
    let w = worker(KEY);
    for (const backend of ['kv', 'do']) {
      const agent = `/${backend}/vault`;
      assert.equal((await send(w, `${agent}/turns`, turns('a'))).status, 201);
      assert.equal((await send(w, `${agent}/turns`, turns('b'))).status, 201);
      assert.deepEqual((await send(w, `${agent}/search?q=wombat&mode=bm25&k=2`)).body.hits.map((h) => h.id).sort(), ['a', 'b']);
      const { entries } = (await send(w, `${agent}/stored?find=${encodeURIComponent('5150-wombat')}`)).body;
      assert.ok(entries.some(([k]) => k === 'head'), JSON.stringify(entries));
      assert.deepEqual(entries.filter(([, , , found]) => found), [], 'no stored value holds the secret');
    }
    const ns = await w.getKVNamespace('MEM');
    const head = new Uint8Array(await ns.get('vault/head', 'arrayBuffer'));
    assert.equal(new TextDecoder().decode(head.subarray(0, 4)), 'MDAS');
    await w.dispose();
    for (const key of [null, '24'.repeat(32)]) {
      w = worker(key);
      for (const backend of ['kv', 'do']) {
        const r = await send(w, `/${backend}/vault/recent?thread=main`);
        assert.equal(r.status, 500);
        assert.equal(r.body.error.code, 'LOCKED', JSON.stringify(r.body));
      }
      await w.dispose();
    }
    w = worker(KEY);
    assert.deepEqual((await send(w, '/do/vault/recent?thread=main')).body.ids.sort(), ['a', 'b']);
    await w.dispose();
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
});
