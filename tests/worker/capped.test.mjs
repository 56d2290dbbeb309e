// A Worker whose memory cannot hold its store, on real workerd: the open fails with STORAGE
// (out of memory, naming the array it could not allocate) rather than a WebAssembly trap, the
// wasm instance goes on (a new memory in it works), nothing stored changes, and the same store
// opens and answers once the memory is large enough. The memory
// is capped in the module (capMemory), since workerd enforces no limit locally. The Worker is
// the 128 MB benchmark's (tests/bench/worker-128mb.worker.js): open from KV, search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { kvWorker, root } from './harness.mjs';
import { Memory } from '../../pkg/index.js';

const DIM = 384;

/** The entries of a memory of `n` turns with 384-d vectors, kept as f32 so that the store is
 * well over the 16 MiB cap's reach (int8, the default, keeps it under 4 MiB). */
function store(n) {
  const mem = new Memory();
  mem.setVectorSettings({ precision: 'f32' });
  let state = 11;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  for (let i = 0; i < n; i++) {
    const embedding = Float32Array.from({ length: DIM }, next);
    mem.addTurn({ id: `c${i}`, thread: `t${i % 7}`, user: 'u', createdAt: i, input: `capped turn ${i} on the night ferry`, embedding });
  }
  const entries = mem.snapshot();
  mem.free();
  return entries;
}

/** Runs the Worker with its memory capped at `mib` over KV holding `entries`. */
async function withWorker(mib, entries, fn) {
  const mf = await kvWorker(join(root, 'tests/bench/worker-128mb.worker.js'), { entries, limitMib: mib });
  try {
    const kv = await mf.getKVNamespace('MEM');
    const call = async (path, body) => {
      const init = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      const res = await mf.dispatchFetch(`http://capped.test${path}`, init);
      return { status: res.status, body: await res.json() };
    };
    const stored = async () => {
      const out = new Map();
      for (const { name } of (await kv.list()).keys) out.set(name, Buffer.from(await kv.get(name, 'arrayBuffer')).toString('base64'));
      return out;
    };
    await fn(call, stored);
  } finally {
    await mf.dispose();
  }
}

test('an open the capped memory cannot hold fails with STORAGE (its arrays or the values themselves), the instance goes on and nothing stored changes; a larger memory opens it', async () => {
  const entries = store(6000);
  const bytes = entries.reduce((n, [, v]) => n + v.length, 0);
  assert.ok(bytes > 10 << 20, `${bytes} bytes stored`);

  await withWorker(16, entries, async (call, stored) => {
    const before = await stored();
    const opened = await call('/open', {});
    assert.equal(opened.status, 500, JSON.stringify(opened.body));
    // The values fit; the open's f32 vectors (8.8 MiB beside what it keeps of them) do not.
    assert.equal(opened.body.error.code, 'STORAGE', JSON.stringify(opened.body));
    assert.match(opened.body.error.message, /out of memory: opening the store needs its f32 vectors/);
    assert.ok(opened.body.wasmBytes <= 16 << 20, `wasm memory ${opened.body.wasmBytes} under the cap`);
    assert.deepEqual(await stored(), before, 'nothing stored changed');
    assert.equal((await call('/ping')).status, 200, 'the Worker still answers');
    // The wasm instance lives on (an abort would have killed it, and every later call).
    const fresh = await call('/fresh');
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.equal(fresh.body.first, 'fresh-1');
  });

  // A memory too small for the values themselves: copying them in fails with STORAGE too.
  await withWorker(8, entries, async (call, stored) => {
    const before = await stored();
    const opened = await call('/open', {});
    assert.equal(opened.status, 500, JSON.stringify(opened.body));
    assert.equal(opened.body.error.code, 'STORAGE', JSON.stringify(opened.body));
    assert.match(opened.body.error.message, /out of memory: the value of "[^"]+" \([0-9.]+ MiB\) could not be copied into wasm memory/);
    assert.deepEqual(await stored(), before, 'nothing stored changed');
    const fresh = await call('/fresh');
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.equal(fresh.body.first, 'fresh-1');
  });

  await withWorker(96, entries, async (call) => {
    const opened = await call('/open', {});
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.len, 6000);
    const found = await call('/search', { text: 'capped turn 4321', mode: 'bm25', k: 3 });
    assert.equal(found.status, 200);
    assert.equal(found.body.first, 'c4321');
  });
});
