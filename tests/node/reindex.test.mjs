// Reindex in the JS package: moving a memory to another embedding model and dimension, batch
// by batch on a plain Memory and through the host's embed on a PersistentMemory, all or
// nothing, and durable.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage, embeddingText } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

/** A toy model of `dim` dimensions: [has "rain", has "deploy", then 0.1s]. */
const model = (dim) => (text) => {
  const v = new Float32Array(dim).fill(0.1);
  v[0] = text.includes('rain') ? 1 : 0;
  v[1] = text.includes('deploy') ? 1 : 0;
  return v;
};

const TURNS = [
  { id: 'r', thread: 't', createdAt: 1, input: 'rain tomorrow', output: 'take a coat' },
  { id: 'd', thread: 't', createdAt: 2, input: 'deploy on friday', output: 'no' },
  { id: 'b', thread: 't', createdAt: 3, input: 'rain stops the deploy', output: 'ok' },
];

test('embeddingText is the core rule: input, newline, output', () => {
  assert.equal(embeddingText('a', 'b'), 'a\nb');
  assert.equal(embeddingText('', ''), '\n');
  assert.equal(thrown(() => embeddingText(1, 'b')).code, 'INVALID_INPUT');
});

test('a plain Memory reindexes batch by batch to another dimension', () => {
  const mem = new Memory();
  const old = model(3);
  for (const t of TURNS) mem.addTurn({ ...t, embedding: old(embeddingText(t.input, t.output)) });
  assert.equal(mem.dimension, 3);
  assert.equal(thrown(() => mem.reindexBatch(2)).code, 'INVALID_INPUT', 'no job yet');

  const start = mem.reindexBegin();
  assert.deepEqual(start, { phase: 'embedding', done: 0, total: 3 });
  const five = model(5);
  const first = mem.reindexBatch(2);
  assert.deepEqual(first, ['rain tomorrow\ntake a coat', 'deploy on friday\nno']);
  assert.equal(thrown(() => mem.reindexBatch(2)).code, 'INVALID_INPUT', 'the batch waits for vectors');
  // Bad answers leave the job as it was.
  assert.equal(thrown(() => mem.reindexSupply([five(first[0])])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.reindexSupply([five(first[0]), []])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.reindexSupply([five(first[0]), [NaN, 1, 1, 1, 1]])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.reindexSupply('nope')).code, 'INVALID_INPUT');
  assert.deepEqual(mem.reindexSupply(first.map(five)), { phase: 'embedding', done: 2, total: 3 });
  assert.equal(thrown(() => mem.reindexFinish()).code, 'INVALID_INPUT', 'incomplete');
  const rest = mem.reindexBatch(2);
  assert.equal(rest.length, 1);
  // Plain number arrays work as well as Float32Arrays.
  assert.deepEqual(mem.reindexSupply(rest.map((t) => Array.from(five(t)))), { phase: 'embedding', done: 3, total: 3 });
  assert.deepEqual(mem.reindexBatch(2), []);
  assert.equal(mem.dimension, 3, 'nothing changes before the finish');
  assert.deepEqual(mem.reindexFinish(), { records: 3, previousDimension: 3, dimension: 5 });
  assert.equal(mem.dimension, 5);
  assert.equal(mem.get('d').embedding.length, 5);
  const hits = mem.search({ embedding: five('deploy'), mode: 'vector', k: 1 });
  assert.equal(hits[0].id, 'd');
  assert.equal(thrown(() => mem.search({ embedding: old('deploy'), mode: 'vector', k: 1 })).code, 'INVALID_INPUT');

  // Stored and loaded: the new dimension.
  const back = Memory.load(mem.takeChanges());
  assert.equal(back.dimension, 5);
  // And back to the built-in embedder.
  const builtin = back.reindexBuiltin();
  assert.equal(builtin.previousDimension, 5);
  assert.equal(builtin.records, 3);
  assert.equal(back.dimension, builtin.dimension);
  back.free();
  mem.free();
});

test('a finish with turns added since the begin is refused and changes nothing', () => {
  const mem = new Memory();
  for (const t of TURNS) mem.addTurn({ ...t, embedding: model(3)(t.input) });
  mem.reindexBegin();
  mem.reindexSupply(mem.reindexBatch(10).map(model(4)));
  mem.addTurn({ id: 'late', thread: 't', createdAt: 9, input: 'late', embedding: model(3)('late') });
  const e = thrown(() => mem.reindexFinish());
  assert.equal(e.code, 'INVALID_INPUT');
  assert.match(e.message, /added/);
  assert.equal(mem.dimension, 3);
  mem.free();
});

test('PersistentMemory.reindex goes through the host embed, reports progress, and is durable', async () => {
  const storage = new MemoryStorage();
  const three = model(3);
  const first = await Memory.open({ name: 'ri', storage, sync: false, embed: async (texts) => texts.map(three) });
  await first.addMany(TURNS);
  assert.equal(first.dimension, 3);
  first.free?.();

  const calls = [];
  let failing = false;
  const five = model(5);
  const mem = await Memory.open({
    name: 'ri',
    storage,
    sync: false,
    embed: async (texts) => {
      calls.push(texts.length);
      if (failing) throw new Error('model unavailable');
      return texts.map(five);
    },
  });
  await assert.rejects(mem.add({ thread: 't', input: 'snow' }), { code: 'INVALID_INPUT' });
  failing = true;
  const before = JSON.stringify(await storage.loadRange(''));
  await assert.rejects(mem.reindex({ batchSize: 2 }), { code: 'HOST' });
  assert.equal(mem.dimension, 3);
  assert.equal(JSON.stringify(await storage.loadRange('')), before, 'a failed reindex writes nothing');
  await assert.rejects(mem.reindex({ batchSize: 0 }), { code: 'INVALID_INPUT' });
  await assert.rejects(mem.reindex({ onProgress: 'x' }), { code: 'INVALID_INPUT' });

  failing = false;
  calls.length = 0;
  const progress = [];
  const done = await mem.reindex({ batchSize: 2, onProgress: (p) => progress.push(p) });
  assert.deepEqual(done, { records: 3, previousDimension: 3, dimension: 5 });
  assert.deepEqual(calls, [2, 1]);
  assert.deepEqual(progress, [
    { phase: 'embedding', done: 2, total: 3 },
    { phase: 'embedding', done: 3, total: 3 },
    { phase: 'indexing', done: 3, total: 3 },
  ]);
  const added = await mem.add({ id: 'w', thread: 't', input: 'deploy again' });
  assert.equal(added.embedding.length, 5);
  const hits = await mem.searchAsync({ text: 'rain', mode: 'vector', k: 1 });
  assert.equal(hits[0].id, 'r');

  const reopened = await Memory.open({ name: 'ri', storage, sync: false });
  assert.equal(reopened.dimension, 5);
  assert.equal(reopened.len, 4);
  // Without a host embed, the built-in one.
  const back = await reopened.reindex();
  assert.equal(back.previousDimension, 5);
  assert.equal(back.records, 4);
  const third = await Memory.open({ name: 'ri', storage, sync: false });
  assert.equal(third.dimension, back.dimension);
});
