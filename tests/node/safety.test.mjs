// Safety in the JS package: users are isolated in every read that names one, a user can be
// forgotten without leaving a byte in storage, oversized input is refused before it reaches
// wasm memory, and a WebAssembly trap closes a memory (never BUSY forever) that then reopens
// from storage with its unflushed journal.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

function twoUsers() {
  const mem = new Memory();
  mem.addTurn({ id: 'a1', thread: 'support', user: 'alice', createdAt: 1, input: 'my bank password is hunter2', output: 'noted' });
  mem.addTurn({ id: 'b1', thread: 'support', user: 'bob', createdAt: 2, input: 'what is the password policy', output: 'see faq', parents: ['a1'] });
  mem.addTurn({ id: 'g', thread: 'faq', user: 'admin', createdAt: 3, input: 'password resets need two factors', output: 'ok', tags: ['shared'] });
  mem.addTurn({ id: 'b2', thread: 'support', user: 'bob', createdAt: 4, input: 'thanks about the password', output: 'welcome', parents: ['b1', 'g'] });
  return mem;
}

test('a call that names a user sees only that user and shared records', () => {
  const mem = twoUsers();
  const ids = (rs) => rs.map((r) => r.id);
  const hits = mem.search({ text: 'password', mode: 'bm25', filter: { user: 'bob' } });
  assert.ok(hits.length > 0);
  assert.ok(hits.every((h) => ['b1', 'b2', 'g'].includes(h.id)), JSON.stringify(hits));
  const grep = mem.grep({ pattern: 'password', filter: { user: 'bob' } });
  assert.deepEqual([...new Set(grep.map((m) => m.id))].sort(), ['b1', 'b2', 'g']);
  assert.deepEqual(ids(mem.ancestors('b2', undefined, undefined, 'bob')), ['b1', 'g']);
  assert.deepEqual(ids(mem.ancestors('b2')), ['b1', 'g', 'a1'], 'store-wide without a user');
  assert.equal(mem.get('a1', 'bob'), undefined, "alice's turn is hidden from bob");
  assert.equal(mem.get('g', 'bob').id, 'g', 'shared');
  assert.equal(mem.get('b1', 'bob').id, 'b1');
  assert.equal(mem.get('a1', 'alice').id, 'a1');
  assert.equal(mem.get('a1').id, 'a1', 'store-wide without a user');
  assert.equal(mem.get('a1', null).id, 'a1');
  assert.equal(thrown(() => mem.get('a1', 7)).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.descendants('a1', 8, 8, 'bob')).code, 'NOT_FOUND');
  assert.deepEqual(ids(mem.descendants('b1', 8, 8, 'bob')), ['b2']);
  const recall = mem.recall({ thread: 'support', user: 'bob', queryText: 'what is the password' });
  assert.ok(!recall.block.includes('hunter2'), recall.block);
  mem.free();
});

test('forgetUser erases a user from memory and from every stored byte', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: 'forget', storage, sync: false });
  await mem.addMany([
    { id: 'a1', thread: 'x', user: 'alice', createdAt: 1, input: 'alice likes zebracorn tea', output: 'ok' },
    { id: 'm1', thread: 'x', user: 'mallory', createdAt: 2, input: 'mallory hides quuxlemon', output: 'ok', parents: ['a1'] },
    { id: 'b1', thread: 'x', user: 'bob', createdAt: 3, input: 'bob replies', output: 'ok', parents: ['m1'] },
  ]);
  const bytesHold = async (needle) => {
    const text = new TextEncoder().encode(needle);
    for (const [, v] of await storage.loadRange('')) {
      for (let i = 0; i + text.length <= v.length; i++) {
        if (text.every((b, j) => v[i + j] === b)) return true;
      }
    }
    return false;
  };
  assert.ok(await bytesHold('quuxlemon'), 'the test is meaningful: the string was stored');
  const gone = await mem.forgetUser('mallory');
  assert.deepEqual(gone, { records: ['m1'], blobs: [], work: [] });
  assert.equal(await bytesHold('quuxlemon'), false);
  assert.ok(await bytesHold('zebracorn'), "alice's turn is intact");
  assert.deepEqual(mem.get('b1').parents, ['a1'], 'the DAG is repaired');
  assert.equal(mem.search({ text: 'quuxlemon', mode: 'bm25' }).length, 0);
  const again = await Memory.open({ name: 'forget', storage, sync: false });
  assert.equal(again.len, 2);
  assert.equal(again.get('m1'), undefined);
  await assert.rejects(again.forgetUser(''), { code: 'INVALID_INPUT' });
  again.free();
  mem.free();
});

test('a 64 MB field is refused with INVALID_INPUT and limits are configurable', () => {
  const mem = new Memory();
  const huge = 'x'.repeat(64 * 1024 * 1024);
  const e = thrown(() => mem.addTurn({ thread: 't', input: huge }));
  assert.equal(e.code, 'INVALID_INPUT');
  assert.match(e.message, /maxFieldBytes/);
  assert.match(e.message, /turn\.input/, 'refused by the size check, before conversion');
  assert.equal(mem.len, 0);
  assert.equal(mem.limits.maxFieldBytes, 8 * 1024 * 1024);
  mem.setLimits({ maxTags: 1 });
  assert.equal(mem.limits.maxTags, 1);
  assert.equal(mem.limits.maxFieldBytes, 8 * 1024 * 1024, 'other limits keep their defaults');
  assert.equal(thrown(() => mem.addTurn({ thread: 't', tags: ['a', 'b'] })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.setLimits({ maxTagz: 3 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.setLimits({ maxTags: 0 })).code, 'INVALID_INPUT');
  mem.addTurn({ thread: 't', tags: ['a'] });
  assert.equal(mem.len, 1, 'the memory is still usable');
  mem.free();
});

test('a trap closes a memory, which reopens with its flushed data and unflushed journal', async () => {
  const bare = new Memory();
  bare.addTurn({ id: 'x', thread: 't', input: 'before' });
  const trap = thrown(() => bare.__trapForTests());
  assert.equal(trap.code, 'CLOSED');
  assert.equal(trap.trapped, true);
  assert.ok(trap.cause instanceof WebAssembly.RuntimeError);
  for (const call of [() => bare.get('x'), () => bare.len, () => bare.addTurn({ thread: 't' })]) {
    assert.equal(thrown(call).code, 'CLOSED', 'closed, not BUSY');
  }

  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: 'trap', storage, sync: false, limits: { maxTags: 2 } });
  await mem.add({ id: 'flushed', thread: 't', createdAt: 1, input: 'durable turn' });
  mem.addTurn({ id: 'journaled', thread: 't', createdAt: 2, input: 'not flushed yet', parents: ['flushed'] });
  assert.equal(mem.pending, 1);
  const reopened = new Promise((resolve) => mem.addEventListener('reopen', resolve, { once: true }));
  assert.equal(thrown(() => mem.__trapForTests()).code, 'CLOSED');
  await reopened;
  assert.equal(mem.len, 2);
  assert.equal(mem.get('journaled').parents[0], 'flushed');
  assert.equal(mem.limits.maxTags, 2, 'limits survive the reopen');
  await mem.add({ id: 'after', thread: 't', createdAt: 3, input: 'usable again' });
  const fresh = await Memory.open({ name: 'trap', storage, sync: false });
  assert.deepEqual(fresh.recent('t', 10).map((r) => r.id), ['after', 'journaled', 'flushed']);
  fresh.free();
  await mem.reopen();
  assert.equal(mem.len, 3);
  mem.free();
});
