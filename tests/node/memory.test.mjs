// The built package (pkg/, after scripts/build-pkg.sh) in Node: records, DAG reads, errors with
// codes, and a persistence round trip through a Map.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

/** Applies a change set to a Map the way a host would persist it. */
function apply(store, changes) {
  for (const [key, value] of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
  return store;
}

/** Runs `fn` and returns the error it throws. */
/** A small DAG: root <- a, root <- b, (a, b) <- merge. */
function build() {
  const mem = new Memory();
  const root = mem.addTurn({ id: 'root', thread: 't1', user: 'ann', createdAt: 1000, input: 'plan', output: 'ok' });
  const a = mem.addTurn({
    thread: 't1',
    user: 'ann',
    createdAt: 2000,
    input: 'search',
    output: 'found',
    parents: [root.id],
    steps: [{ tool: 'grep', args: '{"q":"x"}', result: '3 hits', ok: true }],
    tags: ['tool'],
    importance: 0.7,
  });
  const b = mem.addTurn({ thread: 't2', user: 'bob', created_at: 3000, input: 'ask', parents: ['root'] });
  const merge = mem.addTurn({
    thread: 't1',
    user: 'ann',
    createdAt: 4000,
    input: 'combine',
    parents: [a.id, b.id],
    compact: { summary: 'merged', sections: [{ name: 'Goal', text: 'combine a and b' }] },
    embedding: new Float32Array([0.5, -0.25, 1]),
  });
  return { mem, root, a, b, merge };
}

test('added turns read back as plain camelCase records', () => {
  const { mem, root, a, b, merge } = build();
  assert.equal(mem.len, 4);
  assert.equal(mem.isEmpty, false);
  assert.deepEqual(mem.get(a.id), a);
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  assert.equal(root.id, 'root');
  assert.match(a.id, /^[0-9a-f]{16}$/);
  assert.equal(a.createdAt, 2000);
  assert.equal(b.createdAt, 3000, 'snake_case created_at is accepted too');
  assert.equal(a.importance, 0.7, 'importance keeps its decimal form');
  assert.equal(root.importance, 0.5, 'default importance');
  assert.deepEqual(a.parents, ['root']);
  assert.deepEqual(a.steps, [{ tool: 'grep', args: '{"q":"x"}', result: '3 hits', ok: true }]);
  assert.deepEqual(a.tags, ['tool']);
  assert.equal(a.compact, null);
  assert.equal(a.embedding, null);
  assert.deepEqual(merge.compact, { summary: 'merged', sections: [{ name: 'Goal', text: 'combine a and b' }] });
  assert.ok(merge.embedding instanceof Float32Array);
  assert.deepEqual([...merge.embedding], [0.5, -0.25, 1]);
  assert.equal(mem.get('nope'), undefined);
});

test('thread, user and DAG reads', () => {
  const { mem, root, a, b, merge } = build();
  const ids = (records) => records.map((r) => r.id);
  assert.deepEqual(ids(mem.recent('t1', 10)), [merge.id, a.id, root.id]);
  assert.deepEqual(ids(mem.recent('t1', 1)), [merge.id]);
  assert.deepEqual(ids(mem.recent('none', 5)), []);
  assert.deepEqual(ids(mem.byUser('bob', 5)), [b.id]);
  assert.deepEqual(ids(mem.ancestors(merge.id)), [a.id, b.id, root.id]);
  assert.deepEqual(ids(mem.ancestors(merge.id, 1)), [a.id, b.id]);
  assert.deepEqual(ids(mem.ancestors(merge.id, undefined, 1)), [a.id]);
  assert.deepEqual(ids(mem.descendants(root.id)), [a.id, b.id, merge.id]);
  assert.deepEqual(ids(mem.descendants(root.id, Infinity, 2)), [a.id, b.id]);
  // A walk with no depth stops at 64 edges; Infinity lifts the bound.
  const chain = new Memory();
  let last = chain.addTurn({ thread: 'c', input: 'link 0' });
  for (let i = 1; i < 70; i++) last = chain.addTurn({ thread: 'c', input: `link ${i}`, parents: [last.id] });
  assert.equal(chain.ancestors(last.id).length, 64);
  assert.equal(chain.ancestors(last.id, Infinity).length, 69);
  assert.equal(chain.ancestors(last.id, Infinity, 10).length, 10);
});

test('errors are JS Errors with a code', () => {
  const { mem } = build();
  mem.takeChanges();

  const unknown = thrown(() => mem.addTurn({ thread: 't1', input: 'x', parents: ['root', 'ghost', 'phantom'] }));
  assert.ok(unknown instanceof Error);
  assert.equal(unknown.code, 'UNKNOWN_PARENT');
  assert.deepEqual(unknown.ids, ['ghost', 'phantom']);
  assert.match(unknown.message, /ghost/);
  assert.equal(mem.len, 4, 'nothing was written');
  assert.deepEqual(mem.takeChanges(), [], 'no change was queued');

  assert.equal(thrown(() => mem.addTurn({ id: 'root', thread: 't1' })).code, 'DUPLICATE_ID');
  assert.equal(thrown(() => mem.addTurn({ thread: '' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn({ thread: 't', parent: 'root' })).code, 'INVALID_INPUT', 'unknown field');
  assert.equal(thrown(() => mem.addTurn({ thread: 't', importance: 2 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn({ thread: 't', createdAt: 'soon' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn('not a turn')).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn(null)).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.recent('t1', -1)).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.recent('t1', 1.5)).code, 'INVALID_INPUT');
  const missing = thrown(() => mem.ancestors('ghost'));
  assert.equal(missing.code, 'NOT_FOUND');
  assert.equal(missing.id, 'ghost');
  assert.equal(thrown(() => mem.delete('ghost')).code, 'NOT_FOUND');
  for (const bad of [() => mem.get(42), () => mem.recent(undefined, 2), () => mem.byUser({}, 1), () => mem.delete(null)]) {
    assert.equal(thrown(bad).code, 'INVALID_INPUT', 'non-string arguments are refused cleanly');
  }
  assert.equal(mem.len, 4);
  assert.deepEqual(mem.takeChanges(), [], 'refused calls queue no change');
});

test('undefined and null optional fields read as absent; the time defaults to the host clock', () => {
  const mem = new Memory();
  const before = Date.now();
  const r = mem.addTurn({ thread: 't', id: undefined, user: undefined, steps: null, importance: undefined, createdAt: undefined });
  assert.equal(r.user, '');
  assert.deepEqual(r.steps, []);
  assert.equal(r.importance, 0.5);
  assert.ok(r.createdAt >= before && r.createdAt <= Date.now(), `createdAt ${r.createdAt} is the host clock`);
  const steps = mem.addTurn({ thread: 't', steps: [{ tool: 'x' }, { tool: 'y', ok: undefined, result: null }] }).steps;
  assert.deepEqual(steps, [
    { tool: 'x', args: '', result: '', ok: true },
    { tool: 'y', args: '', result: '', ok: true },
  ], 'a step that says nothing about failing succeeded');
});

test('addTurn reads the one JSON turn shape: ISO or ms createdAt, JSON args, text for input', () => {
  const mem = new Memory();
  const iso = '2024-05-08T13:56:00.250Z';
  const r = mem.addTurn({
    thread: 't',
    createdAt: iso,
    text: 'deploy the api',
    steps: [{ tool: 'shell', args: { cmd: 'make deploy' }, result: 'done' }, { tool: 'curl', args: '-I /', ok: false }],
  });
  assert.equal(r.createdAt, Date.parse(iso));
  assert.equal(new Date(r.createdAt).toISOString(), iso);
  assert.equal(r.input, 'deploy the api');
  assert.deepEqual(r.steps, [
    { tool: 'shell', args: '{"cmd":"make deploy"}', result: 'done', ok: true },
    { tool: 'curl', args: '-I /', result: '', ok: false },
  ]);
  assert.deepEqual(mem.get(r.id), r, 'stored as returned');
  assert.equal(mem.addTurn({ thread: 't', createdAt: 5 }).createdAt, 5);
  assert.equal(thrown(() => mem.addTurn({ thread: 't', createdAt: '8 May' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn({ thread: 't', steps: [{ tool: 'x', okay: true }] })).code, 'INVALID_INPUT', 'unknown step field');
});

test('the change set round-trips through a Map', () => {
  const { mem } = build();
  const changes = mem.takeChanges();
  for (const [key, value] of changes) {
    assert.equal(typeof key, 'string');
    assert.ok(value instanceof Uint8Array);
  }
  // One segment part, then the commit `head`, which names it (see the core's storage module).
  const keys = changes.map(([k]) => k);
  assert.equal(new Set(keys).size, changes.length, 'each key once');
  assert.deepEqual(keys, ['seg/0000000000000001/0', 'head']);
  assert.deepEqual(Memory.keysToRead(changes[1][1]), ['seg/0000000000000001/0']);
  assert.deepEqual(Memory.keysAhead(changes[1][1]), ['seg/0000000000000002/0', 'seg/0000000000000003/0']);
  assert.deepEqual(mem.loadWarnings, []);
  assert.equal(mem.storeGeneration, 1);
  assert.deepEqual(mem.takeChanges(), [], 'taking clears the set');

  const store = apply(new Map(), changes);
  const loaded = Memory.load(store);
  assert.equal(loaded.len, mem.len);
  // Without `head`, the commit the segment carries opens, with a warning; never an empty store.
  const headless = new Map([...store].filter(([k]) => k !== 'head'));
  const recovered = Memory.load(headless);
  assert.equal(recovered.len, mem.len);
  assert.deepEqual(recovered.loadWarnings.map((w) => [w.code, w.key]), [['COMMIT_RECOVERED', 'head']]);
  assert.match(recovered.loadWarnings[0].message, /missing/);
  assert.ok(recovered.hasChanges, 'the next change set writes head again');
  assert.deepEqual(loaded.takeChanges(), [], 'a loaded memory has no pending changes');
  for (const thread of ['t1', 't2']) {
    const original = mem.recent(thread, 100);
    assert.deepEqual(loaded.recent(thread, 100), original);
    for (const record of original) assert.deepEqual(loaded.get(record.id), record);
  }

  // A snapshot is a fresh image of the same memory; an array of pairs loads as well as a Map.
  const snapshot = mem.snapshot();
  assert.deepEqual(snapshot.map(([k]) => k), ['seg/0000000000000001/0', 'head']);
  assert.equal(Memory.load(snapshot).len, mem.len);
  for (const r of mem.recent('t1', 9)) assert.deepEqual(Memory.load(snapshot).get(r.id), r);

  // A memory loaded elsewhere can replace the stored one: new generations, commit, then deletes.
  const other = Memory.load(snapshot);
  other.setPartBytes(1024);
  other.prepareToReplace([...store.keys()]);
  const replace = other.takeChanges();
  const head = replace.findIndex(([k]) => k === 'head');
  assert.ok(replace.slice(0, head).every(([k, v]) => k.startsWith('seg/') && v && !store.has(k)), 'new keys only');
  assert.deepEqual(replace.slice(head + 1), [['seg/0000000000000001/0', null]]);
  const replaced = apply(new Map(store), replace);
  assert.equal(Memory.load(replaced).len, mem.len);
});

test('delete then takeChanges removes the key and rewrites the children', () => {
  const { mem, root, a, b } = build();
  const store = apply(new Map(), mem.takeChanges());

  const deleted = mem.delete(a.id);
  assert.equal(deleted.id, a.id);
  assert.equal(mem.get(a.id), undefined);
  const changes = mem.takeChanges();
  assert.deepEqual(changes.map(([k]) => k), ['seg/0000000000000002/0', 'head'], 'one new segment and the commit');
  apply(store, changes);

  const loaded = Memory.load(store);
  assert.equal(loaded.len, 3);
  assert.equal(loaded.get(a.id), undefined);
  const merge = loaded.descendants(b.id)[0];
  assert.deepEqual(merge.parents, [root.id, b.id], 'the child took over the deleted parent');
  assert.deepEqual(loaded.get(merge.id), mem.get(merge.id));
});

test('requeue repeats a change set that could not be written', () => {
  const { mem } = build();
  const lost = mem.takeChanges();
  assert.deepEqual(mem.takeChanges(), []);
  mem.requeue(lost);
  const again = mem.takeChanges();
  // The same memory under a new generation; the first attempt's part is deleted after the commit.
  assert.deepEqual(again.map(([k]) => k), ['seg/0000000000000002/0', 'head', 'seg/0000000000000001/0']);
  assert.equal(again[2][1], null);
  assert.equal(Memory.load(apply(new Map(), again)).len, mem.len);
  assert.equal(thrown(() => mem.requeue(42)).code, 'INVALID_INPUT');
});

test('corrupt bytes on load throw CORRUPT_DATA naming the key', () => {
  const { mem, a } = build();
  const store = apply(new Map(), mem.takeChanges());
  const key = 'seg/0000000000000001/0';
  assert.ok(a.id);

  const flipped = new Uint8Array(store.get(key));
  flipped[flipped.length - 1] ^= 0xff;
  const corrupt = thrown(() => Memory.load(new Map(store).set(key, flipped)));
  assert.ok(corrupt instanceof Error);
  assert.equal(corrupt.code, 'CORRUPT_DATA');
  assert.equal(corrupt.key, key);

  const truncated = thrown(() => Memory.load(new Map(store).set(key, store.get(key).subarray(0, 3))));
  assert.equal(truncated.code, 'CORRUPT_DATA');
  assert.equal(truncated.key, key);

  const future = new Uint8Array(store.get('head'));
  future[4] = 99;
  const version = thrown(() => Memory.load(new Map(store).set('head', future)));
  assert.equal(version.code, 'UNSUPPORTED_VERSION');
  assert.equal(version.key, 'head');

  const missing = thrown(() => Memory.load(new Map(store).set(key, undefined)));
  assert.equal(missing.code, 'CORRUPT_DATA');
  assert.equal(missing.key, key, 'a part the commit names is missing');

  assert.equal(thrown(() => Memory.load(new Map([[key, 'text']]))).code, 'INVALID_INPUT');
  assert.equal(thrown(() => Memory.load(42)).code, 'INVALID_INPUT');
});

test('an exception from the caller\'s iterator passes through unchanged', () => {
  const boom = new Error('boom');
  function* entries() {
    yield ['meta', new Uint8Array()];
    throw boom;
  }
  assert.equal(thrown(() => Memory.load(entries())), boom);
});

test('a getter that calls back into the memory does not break it', () => {
  const mem = new Memory();
  let seen;
  const turn = {
    get thread() {
      seen = mem.len; // re-enters while addTurn is on the stack
      return 't';
    },
  };
  mem.addTurn(turn);
  assert.equal(seen, 0, 'input is read before the store is borrowed');
  assert.equal(mem.len, 1);
});
