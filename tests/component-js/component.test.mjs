// The memdag WIT component in Node through `jco transpile`: turns with parents, a reload from
// the JS kv in a fresh instance, ancestors, the error variant, the JS embedder and llm, and a
// failing kv. Run by scripts/test-component-js.sh, which transpiles into ./out first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { instantiate, MapKv } from './host.mjs';

const dir = fileURLToPath(new URL('./out', import.meta.url));

const turn = (id, thread, at, parents = [], extra = {}) => ({
  id,
  thread,
  user: 'lin',
  createdAt: BigInt(at),
  input: `input of ${id}`,
  output: `output of ${id}`,
  steps: [],
  parents,
  tags: [],
  ...extra,
});

/** The component error thrown by a call: its WIT case and message. */
function caught(f) {
  try {
    f();
  } catch (e) {
    assert.ok(e.payload, `a component error, got ${e}`);
    return e.payload;
  }
  assert.fail('the call should have thrown');
}

const ids = (records) => records.map((r) => r.id);

test('turns with parents survive a reload from the JS kv in a fresh instance', async () => {
  const kv = new MapKv();
  {
    const { memory } = await instantiate(dir, { kv });
    const store = memory.Store.open(undefined, 'builtin');
    store.addTurn(turn('a', 'main', 1000));
    store.addTurn(turn('b', 'main', 2000, ['a']));
    const c = store.addTurn(turn('c', '旁支', 3000, ['a', 'b'], { input: '查一下天气', importance: 0.9 }));
    assert.equal(c.importance, Math.fround(0.9), 'an f32 crosses the boundary');
    assert.deepEqual(c.parents, ['a', 'b']);
    store.addTurns([turn('d', 'main', 4000, ['c']), turn('e', 'main', 5000, ['d'])]);
    assert.equal(store.len(), 5n);
    const keys = [...kv.entries.keys()];
    assert.ok(keys.includes('head'), 'every change set is committed through kv');
    assert.equal(keys.filter((k) => k.startsWith('seg/')).length, 4, `one segment per mutation: ${keys}`);
  }

  const { memory } = await instantiate(dir, { kv });
  const store = memory.Store.open(undefined, 'builtin');
  assert.equal(store.len(), 5n);
  assert.equal(store.get('c').input, '查一下天气');
  assert.equal(store.get('ghost'), undefined);
  assert.deepEqual(ids(store.ancestors('e', 10, 10)), ['d', 'c', 'a', 'b']);
  assert.deepEqual(ids(store.ancestors('e', 1, 10)), ['d']);
  assert.deepEqual(ids(store.descendants('a', 10, 10)), ['b', 'c', 'd', 'e']);
  assert.deepEqual(ids(store.recent('main', 2)), ['e', 'd']);

  // Search and grep work on the reloaded store.
  const hits = store.search({ text: '天气', mode: 'bm25', k: 3, filter: { tags: [] }, fusion: 'weighted' });
  assert.equal(hits[0].id, 'c');
  const found = store.grep({ pattern: 'output of [de]', caseInsensitive: false, fields: [], filter: { tags: [] } });
  assert.deepEqual(ids(found), ['d', 'e']);
});

test('errors arrive as the WIT error variant with a stable code, and write nothing', async () => {
  const kv = new MapKv();
  const { memory, context } = await instantiate(dir, { kv });
  const store = memory.Store.open(undefined, 'builtin');
  store.addTurn(turn('a', 'main', 1));
  const before = kv.dump();

  const unknown = caught(() => store.addTurn(turn('b', 'main', 2, ['a', 'ghost'])));
  assert.equal(unknown.tag, 'invalid-input');
  assert.match(unknown.val, /^UNKNOWN_PARENT: .*ghost/);
  const dup = caught(() => store.addTurn(turn('a', 'main', 3)));
  assert.match(dup.val, /^DUPLICATE_ID: /);
  const batch = caught(() => store.addTurns([turn('x', 'main', 4), turn('y', 'main', 5, ['nope'])]));
  assert.match(batch.val, /^UNKNOWN_PARENT: turn 1: /);
  assert.deepEqual(kv.dump(), before, 'refused turns write nothing');
  assert.equal(store.get('x'), undefined);

  const missing = caught(() => store.ancestors('ghost', 3, 3));
  assert.deepEqual(missing, { tag: 'not-found', val: 'NOT_FOUND: no record with id "ghost"' });
  const prefix = caught(() => memory.Store.open('no-slash', 'builtin'));
  assert.equal(prefix.tag, 'invalid-input');

  // A failing kv write: a storage error, and memory stays equal to kv.
  kv.failWrites = 'disk full';
  const storage = caught(() => store.addTurn(turn('b', 'main', 2, ['a'])));
  assert.equal(storage.tag, 'storage');
  assert.match(storage.val, /disk full/);
  kv.failWrites = null;
  assert.equal(store.get('b'), undefined);
  assert.equal(store.len(), 1n);

  assert.ok(context.countTokens('hello world', undefined) >= 2);
});

test('the JS embedder and llm are called through the imports', async () => {
  const kv = new MapKv();
  const calls = [];
  let fail = false;
  const answer = [
    '## Summary', 'Looked up the weather.', '', '## Goal', 'Weather.', '', '## Constraints', 'None', '',
    '## Progress', 'Done.', '', '## Key Decisions', 'None', '', '## Next Steps', 'None', '',
    '## Critical Context', 'None',
  ].join('\n');
  const { memory } = await instantiate(dir, {
    kv,
    embed: (texts) => {
      calls.push(texts);
      return texts.map((t) => new Float32Array([t.includes('rain') ? 1 : 0, t.includes('sun') ? 1 : 0, 0.1]));
    },
    complete: (prompt) => {
      if (fail) throw 'model overloaded';
      assert.match(prompt, /rain/);
      return answer;
    },
  });
  const store = memory.Store.open('agent-1/', 'host');
  store.addTurns([
    turn('r', 'main', 1, [], { input: 'rain today' }),
    turn('s', 'main', 2, [], { input: 'sun today' }),
  ]);
  assert.equal(calls.length, 1, 'one embedder call for the batch');
  assert.equal(store.get('r').embedding.length, 3);
  assert.ok([...kv.entries.keys()].every((k) => k.startsWith('agent-1/')));
  const hits = store.search({ text: 'sun', mode: 'vector', k: 1, filter: { tags: [] }, fusion: 'weighted' });
  assert.equal(hits[0].id, 's');

  const compacted = store.compact('r', 'llm');
  assert.equal(compacted.compact.summary, 'Looked up the weather.');
  fail = true;
  const before = kv.dump();
  const err = caught(() => store.compact('r', 'llm'));
  assert.equal(err.tag, 'host');
  assert.match(err.val, /model overloaded/);
  assert.deepEqual(kv.dump(), before);
  assert.deepEqual(store.get('r').compact, compacted.compact);
});

test('a store opened with a key is sealed in the JS kv, and opens only with that key', async () => {
  const kv = new MapKv();
  const key = new Uint8Array(32).fill(3);
  {
    const { memory } = await instantiate(dir, { kv });
    const store = memory.Store.open('enc/', 'none', key);
    store.addTurn(turn('a', 'main', 1000, [], { input: 'the safe code is 8812-tapir' }));
  }
  const needle = Buffer.from('8812-tapir');
  for (const [k, v] of kv.entries) {
    assert.equal(Buffer.from(v.subarray(0, 4)).toString(), 'MDAS', k);
    assert.ok(!Buffer.from(v).includes(needle), k);
  }
  const { memory } = await instantiate(dir, { kv });
  assert.equal(memory.Store.open('enc/', 'none', key).get('a').input, 'the safe code is 8812-tapir');
  for (const other of [undefined, new Uint8Array(32).fill(4)]) {
    const locked = caught(() => memory.Store.open('enc/', 'none', other));
    assert.equal(locked.tag, 'locked');
    assert.match(locked.val, /^LOCKED: .*enc\/head/);
  }
  assert.equal(caught(() => memory.Store.open('enc/', 'none', new Uint8Array(3))).tag, 'invalid-input');
});
