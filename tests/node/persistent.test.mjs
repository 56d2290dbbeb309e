// Memory.open in Node: persistence through IndexedDB (fake-indexeddb) and the other adapters,
// host embedder and LLM delegation, failed flushes, two writers, autoFlush, export/import.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { GENERATION_KEY, IndexedDbStorage, KeyValueStorage, Memory, MemoryStorage } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { rejection } from './throws.mjs';

let n = 0;
const fresh = () => `persist-${process.pid}-${n++}`;

const ANSWER = ['Summary', 'Goal', 'Constraints', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context']
  .map((s) => `## ${s}\n${s} text`).join('\n\n');

test('turns and the DAG survive a reopen through IndexedDB', async () => {
  const name = fresh();
  const mem = await Memory.open({ name });
  assert.ok(mem.storage instanceof IndexedDbStorage, 'IndexedDB is the default where it exists');
  const root = await mem.add({ thread: 't', input: 'plan the release', createdAt: 1 });
  // `add` resolves once the turn is durable: another reader of the database already sees it.
  const reader = await IndexedDbStorage.open(`memdag:${name}`);
  assert.ok(Memory.load(await reader.loadRange('')).get(root.id));
  reader.close();
  const child = await mem.add({ thread: 't', input: 'tag it', parents: [root.id], createdAt: 2 });
  assert.equal(mem.pending, 0);
  mem.addTurn({ thread: 't', input: 'sync, flushed later', createdAt: 3 });
  assert.equal(mem.pending, 1);
  const result = await mem.flush();
  assert.equal(result.generation, 3);
  assert.equal(mem.pending, 0);
  await mem.close();

  const again = await Memory.open({ name });
  assert.equal(again.len, 3);
  assert.deepEqual(again.get(child.id).parents, [root.id]);
  assert.deepEqual(again.children(root.id), [child.id]);
  assert.equal(again.search({ text: 'release', mode: 'bm25' })[0].id, root.id);
  assert.equal(again.generation, 3);
  await again.close();
});

test('the host embedder is called once per batch, and its vectors are used', async () => {
  const calls = [];
  const embed = async (texts) => {
    calls.push(texts);
    return texts.map((t) => new Float32Array([t.length, 1, 0]));
  };
  const mem = await Memory.open({ name: fresh(), storage: new MemoryStorage(), embed });
  const [a, b] = await mem.addMany([{ thread: 't', input: 'aa' }, { thread: 't', input: 'bbbb' }]);
  assert.equal(calls.length, 1, 'one call for addMany');
  assert.deepEqual([...a.embedding].length, 3);
  await Promise.all([mem.add({ thread: 't', input: 'x' }), mem.add({ thread: 't', input: 'y' })]);
  assert.equal(calls.length, 2, 'concurrent adds share one call');
  assert.deepEqual(calls[1], ['x\n', 'y\n']);
  const hits = await mem.searchAsync({ text: 'bbbb', mode: 'vector', k: 1 });
  assert.equal(calls.length, 3, 'the query is embedded by the host');
  assert.equal(hits[0].id, b.id);
  assert.equal(mem.dimension, 3);
  // The core's rule decides whether a query is embedded (the component follows the same one):
  // not for bm25, not for text that is only whitespace, not when the query brings a vector.
  await mem.searchAsync({ text: 'bbbb', mode: 'bm25', k: 1 });
  assert.equal((await rejection(mem.searchAsync({ text: ' \t\n', mode: 'hybrid', k: 1 }))).code, 'INVALID_INPUT');
  await mem.searchAsync({ text: 'bbbb', mode: 'vector', embedding: new Float32Array([4, 1, 0]), k: 1 });
  assert.equal(calls.length, 3, 'none of these three queries is embedded');
  await mem.searchAsync({ text: ' bbbb ', k: 1 });
  assert.equal(calls.length, 4, 'the default mode embeds text');

  const failing = await Memory.open({ name: fresh(), storage: new MemoryStorage(), embed: async () => { throw new Error('model down'); } });
  const e = await rejection(failing.add({ thread: 't', input: 'z' }));
  assert.equal(e.code, 'HOST');
  assert.match(e.message, /model down/);
  assert.equal(failing.len, 0, 'nothing added');
  const wrong = await Memory.open({ name: fresh(), storage: new MemoryStorage(), embed: async () => [] });
  assert.equal((await rejection(wrong.add({ thread: 't', input: 'z' }))).code, 'HOST');
});

test('without an embedder the built-in one gives vector search', async () => {
  const mem = await Memory.open({ name: fresh(), storage: new MemoryStorage() });
  const r = await mem.add({ thread: 't', input: 'memory systems for agents' });
  assert.equal(mem.dimension, 256);
  assert.equal((await mem.searchAsync({ text: 'agent memories', mode: 'vector', k: 1 }))[0].id, r.id);
});

test('vectors kept as int8: settings stored with the memory, search and embedding after a reopen', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: fresh(), storage });
  assert.deepEqual(mem.vectorSettings, { precision: 'int8', train: 1024 }, 'the default');
  await mem.setVectorSettings({ precision: 'int8', train: 16 });
  assert.deepEqual(mem.vectorSettings, { precision: 'int8', train: 16 });
  // 40 vectors in 8 dimensions, each near one of four directions.
  const vec = (i) => new Float32Array([...Array(8)].map((_, d) => (d === i % 4 ? 3 : 0) + ((i * 7 + d * 3) % 5) / 10));
  const added = await mem.addMany([...Array(40)].map((_, i) => ({ thread: 't', input: `turn ${i}`, embedding: vec(i) })));
  const cos = (a, b) => {
    let ab = 0, aa = 0, bb = 0;
    for (let d = 0; d < a.length; d++) { ab += a[d] * b[d]; aa += a[d] * a[d]; bb += b[d] * b[d]; }
    return ab / Math.sqrt(aa * bb);
  };
  // `embedding` is what the codes stand for: near the given vector, at its norm.
  const back = mem.get(added[9].id).embedding;
  assert.equal(back.length, 8);
  assert.ok(cos(back, vec(9)) > 0.99, `cosine ${cos(back, vec(9))}`);
  // At its norm: the codes' inverse norm (summed by wasm SIMD) undoes their length exactly.
  const norm = (a) => Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm(back) / norm(vec(9)) - 1) < 1e-5, `norm ${norm(back)} vs ${norm(vec(9))}`);
  const hits = mem.search({ embedding: vec(9), mode: 'vector', k: 3, context: 0, threadScope: 0 });
  assert.equal(hits[0].id, added[9].id);
  await mem.close();
  const again = await Memory.open({ name: fresh(), storage });
  assert.deepEqual(again.vectorSettings, { precision: 'int8', train: 16 });
  assert.deepEqual([...again.get(added[9].id).embedding], [...back]);
  assert.equal(again.search({ embedding: vec(9), mode: 'vector', k: 1, context: 0, threadScope: 0 })[0].id, added[9].id);
  // Bad settings are refused whole.
  assert.equal((await rejection(again.setVectorSettings({ precision: 'int4' }))).code, 'INVALID_INPUT');
  assert.equal((await rejection(again.setVectorSettings({ train: 0 }))).code, 'INVALID_INPUT');
  assert.equal((await rejection(again.setVectorSettings({ trian: 3 }))).code, 'INVALID_INPUT');
  assert.deepEqual(again.vectorSettings, { precision: 'int8', train: 16 });
  // The core memory has the same two names.
  const core = Memory.load(storage.map);
  assert.equal(core.vectorSettings.precision, 'int8');
  core.setVectorSettings({ precision: 'int8+f32', train: 16 });
  assert.deepEqual(core.vectorSettings, { precision: 'int8+f32', train: 16 });
  // Names left out take their defaults: int8 and 1024.
  core.setVectorSettings({ train: 64 });
  assert.deepEqual(core.vectorSettings, { precision: 'int8', train: 64 });
});

test('a memory set to f32 stays f32 after a reopen, and gives back its vectors as given', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: fresh(), storage });
  await mem.setVectorSettings({ precision: 'f32', train: 4 });
  const vec = (i) => new Float32Array([...Array(8)].map((_, d) => (d === i % 4 ? 3 : 0) + ((i * 7 + d * 3) % 5) / 10));
  const added = await mem.addMany([...Array(12)].map((_, i) => ({ thread: 't', input: `turn ${i}`, embedding: vec(i) })));
  await mem.close();
  const again = await Memory.open({ name: fresh(), storage });
  assert.deepEqual(again.vectorSettings, { precision: 'f32', train: 4 });
  assert.deepEqual([...again.get(added[9].id).embedding], [...vec(9)], 'exact: 12 vectors past train 4 and no codes');
});

test('compaction uses the host LLM, or the extractive compactor without one', async () => {
  const prompts = [];
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: fresh(), storage, complete: async (p) => (prompts.push(p), ANSWER) });
  const r = mem.addTurn({ thread: 't', input: 'fix the build', steps: [{ tool: 'sh', args: 'make', result: 'ok', ok: true }] });
  const done = await mem.compact(r.id);
  assert.equal(prompts.length, 1);
  assert.match(prompts[0], /fix the build/);
  assert.equal(done.compact.summary, 'Summary text');
  // `compact` resolves once the compact node (and the turn before it) is durable.
  assert.equal(Memory.load(storage.map).get(r.id).compact.summary, 'Summary text');
  const many = await mem.compactMany([r.id]);
  assert.equal(many.length, 1);
  assert.equal(mem.pending, 0);

  const bad = await Memory.open({ name: fresh(), storage: new MemoryStorage(), complete: async () => 'no sections' });
  const r2 = bad.addTurn({ thread: 't', input: 'x' });
  assert.equal((await rejection(bad.compact(r2.id))).code, 'HOST');
  assert.equal(bad.get(r2.id).compact, null, 'unchanged');

  const plain = await Memory.open({ name: fresh(), storage: new MemoryStorage() });
  const r3 = plain.addTurn({ thread: 't', input: 'hello', output: 'hi' });
  assert.ok((await plain.compact(r3.id)).compact.sections.length > 0);
});

test('a failed flush is STORAGE, loses nothing, and the next flush writes it', async () => {
  const storage = new MemoryStorage();
  let fail = false;
  const save = storage.saveBatch.bind(storage);
  storage.saveBatch = async (changes) => {
    if (fail) throw Object.assign(new Error('disk full'), { name: 'QuotaExceededError' });
    return save(changes);
  };
  const mem = await Memory.open({ name: fresh(), storage });
  const a = mem.addTurn({ thread: 't', input: 'first' });
  await mem.flush();
  fail = true;
  const b = mem.addTurn({ thread: 't', input: 'second', parents: [a.id] });
  const e = await rejection(mem.flush());
  assert.equal(e.code, 'STORAGE');
  assert.equal(e.reason, 'QuotaExceededError');
  assert.equal(mem.len, 2, 'in-memory state unchanged');
  const durable = Memory.load(storage.map);
  assert.equal(durable.len, 1, 'the earlier flush is intact');
  assert.ok(durable.get(a.id));
  fail = false;
  const retry = await mem.flush();
  assert.ok(retry.written > 0);
  assert.deepEqual(Memory.load(storage.map).get(b.id).parents, [a.id]);
});

test('an aborted IndexedDB transaction writes nothing of the batch', async () => {
  const name = fresh();
  const mem = await Memory.open({ name });
  const a = await mem.add({ thread: 't', input: 'kept' });
  await mem.flush();
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (...args) {
    const request = put.apply(this, args);
    if (String(args[1]).startsWith('seg/')) this.transaction.abort();
    return request;
  };
  try {
    mem.addTurn({ thread: 't', input: 'lost?' });
    const e = await rejection(mem.flush());
    assert.equal(e.code, 'STORAGE');
    assert.equal(e.reason, 'AbortError');
  } finally {
    IDBObjectStore.prototype.put = put;
  }
  const reader = await IndexedDbStorage.open(`memdag:${name}`);
  const stored = Memory.load(await reader.loadRange(''));
  assert.equal(stored.len, 1);
  assert.ok(stored.get(a.id));
  await mem.flush();
  assert.equal(Memory.load(await reader.loadRange('')).len, 2, 'requeued and written by the next flush');
  reader.close();
  await mem.close();
});

test('two writers on one store: the second rebases on the first, nothing is lost', async () => {
  const kv = asyncKv();
  const one = await Memory.open({ name: 'shared', storage: new KeyValueStorage(kv), sync: false });
  const two = await Memory.open({ name: 'shared', storage: new KeyValueStorage(kv), sync: false });
  const a = one.addTurn({ thread: 't', input: 'from one', createdAt: 1 });
  const b = two.addTurn({ thread: 't', input: 'from two', createdAt: 2 });
  await one.flush();
  const second = await two.flush();
  assert.deepEqual(second.conflicts, []);
  assert.equal(second.generation, 2);
  const merged = Memory.load(await new KeyValueStorage(kv).loadRange(''));
  assert.equal(merged.len, 2);
  assert.ok(merged.get(a.id) && merged.get(b.id));
  assert.notEqual(merged.get(a.id).seq, merged.get(b.id).seq, 'sequence numbers stay unique');
  assert.equal(two.len, 2, 'the second writer now sees both');
  // A deletion of a record the other writer already deleted is dropped on rebase: its promise
  // rejects with the replay's code.
  assert.equal((await one.refresh()).reloaded, true);
  const first = one.delete(b.id);
  const late = two.delete(b.id);
  assert.equal((await first).id, b.id);
  const dropped = await rejection(late);
  assert.equal(dropped.code, 'NOT_FOUND');
  assert.equal(dropped.reason, 'rebase');
  assert.equal(two.len, 1);
  assert.equal(Memory.load(kv.map).len, 1);
});

test('an add dropped by a rebase rejects, and the turn is neither in memory nor stored', async () => {
  const kv = asyncKv();
  const one = await Memory.open({ name: 'drop', storage: new KeyValueStorage(kv), sync: false });
  const x = await one.add({ thread: 't', input: 'parent', createdAt: 1 });
  const two = await Memory.open({ name: 'drop', storage: new KeyValueStorage(kv), sync: false });
  assert.ok(two.get(x.id));
  await one.delete(x.id);
  const child = two.add({ thread: 't', input: 'child of x', parents: [x.id], createdAt: 2 });
  const e = await rejection(child);
  assert.equal(e.code, 'UNKNOWN_PARENT');
  assert.equal(e.reason, 'rebase');
  assert.equal(e.op, 'addTurn');
  assert.equal(two.len, 0);
  assert.equal(Memory.load(kv.map).len, 0);
  assert.equal(two.pending, 0);
});

test('a failed flush rejects the add that waited on it; the turn is written by the next flush', async () => {
  const kv = asyncKv();
  const storage = new KeyValueStorage(kv);
  const mem = await Memory.open({ name: 'fail', storage, sync: false });
  const put = kv.put;
  kv.put = async () => {
    throw new Error('disk full');
  };
  const e = await rejection(mem.add({ thread: 't', input: 'not yet durable' }));
  assert.equal(e.code, 'STORAGE');
  assert.equal(Memory.load(kv.map).len, 0);
  kv.put = put;
  await mem.flush();
  assert.equal(Memory.load(kv.map).len, 1);
});

test('a KeyValueStorage store opens by reading head and the keys it names, not by listing', async () => {
  const kv = asyncKv();
  const mem = await Memory.open({ name: 'bounded', storage: new KeyValueStorage(kv), sync: false });
  await mem.addMany(Array.from({ length: 50 }, (_, i) => ({ thread: 't', input: `turn ${i}` })));
  for (let i = 0; i < 20; i++) await mem.add({ thread: 't', input: `single ${i}` });
  let lists = 0;
  let gets = 0;
  const counting = { ...kv, get: (k) => (gets++, kv.get(k)), list: (p) => (lists++, kv.list(p)) };
  const again = await Memory.open({ name: 'bounded', storage: new KeyValueStorage(counting), sync: false });
  assert.equal(again.len, 70);
  assert.equal(lists, 0, 'no listing');
  const named = 1 + Memory.keysToRead(kv.map.get('head')).length + 1 + Memory.keysAhead(kv.map.get('head')).length;
  assert.equal(gets, named, 'head, its parts, the generation key and the two keys ahead');
  assert.ok(gets < 20, `${gets} reads for 70 turns in ${mem.storage ? 'several' : ''} flushes`);
  assert.deepEqual(again.loadWarnings, []);
});

test('a KeyValueStorage store whose head is stale, missing or unreadable is listed and opens its newest commit', async () => {
  const kv = asyncKv();
  const mem = await Memory.open({ name: 'stale', storage: new KeyValueStorage(kv), sync: false });
  await mem.add({ thread: 't', input: 'first' });
  const stale = kv.map.get('head');
  await mem.add({ thread: 't', input: 'second' });
  let newest = kv.map.get('head');
  let held = 2;
  for (const [how, head] of [['rolled back', stale], ['missing', null], ['emptied', new Uint8Array()], ['cut short', newest.slice(0, 12)]]) {
    if (head == null) kv.map.delete('head');
    else kv.map.set('head', head);
    let lists = 0;
    const counting = { ...kv, list: (p) => (lists++, kv.list(p)) };
    const again = await Memory.open({ name: 'stale', storage: new KeyValueStorage(counting), sync: false });
    assert.equal(again.len, held, how);
    assert.ok(lists > 0, `${how}: listed`);
    assert.equal(again.loadWarnings[0]?.code, 'COMMIT_RECOVERED', how);
    assert.equal(again.loadWarnings[0]?.key, 'head', how);
    // Its next flush stores `head` again; nothing was lost.
    await again.add({ thread: 't', input: `after ${how}` });
    const reopened = await Memory.open({ name: 'stale', storage: new KeyValueStorage(kv), sync: false });
    assert.deepEqual(reopened.loadWarnings, [], how);
    assert.ok(reopened.recent('t', 10).some((r) => r.input === `after ${how}`), how);
    held += 1;
    newest = kv.map.get('head');
  }
});

test('autoFlush writes each turn; export and import round-trip', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: fresh(), storage, autoFlush: true });
  const a = await mem.add({ thread: 't', input: 'auto' });
  assert.ok(Memory.load(storage.map).get(a.id));
  assert.ok(storage.map.has(GENERATION_KEY));
  const file = mem.exportBytes();

  const other = new MemoryStorage();
  const target = await Memory.open({ name: fresh(), storage: other });
  target.addTurn({ thread: 'x', input: 'to be replaced' });
  await target.flush();
  const { records } = await target.importBytes(file);
  assert.equal(records, 1);
  assert.ok(target.get(a.id));
  assert.equal(Memory.load(other.map).len, 1, 'storage holds exactly the import');
  assert.equal((await rejection(target.importBytes(new Uint8Array([1, 2, 3])))).code, 'INVALID_INPUT');
});
