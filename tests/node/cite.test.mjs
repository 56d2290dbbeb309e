// Citations in the built package (the core's crate::cite): the [id]s a reply cites that name
// records the user may see, and turns whose unknown parents are dropped and reported, in
// Memory.addTurn and PersistentMemory.add/addTurn/addMany (journaled as added).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

function memory() {
  const mem = new Memory();
  mem.addTurn({ id: 'a1', thread: 't', user: 'ada', createdAt: 1, input: 'the deploy key is in the vault' });
  mem.addTurn({ id: 'b1', thread: 'u', user: 'bob', createdAt: 2, input: "bob's notes" });
  mem.addTurn({ id: 's1', thread: 'u', user: 'bob', createdAt: 3, input: 'team wiki', tags: ['shared'] });
  return mem;
}

test('cited: the ids a reply cites that name visible records, in order, once each', () => {
  const mem = memory();
  const reply = 'From [a1] and [s1] (see [a1] again), not [ghost], nor [b1\n], and [b1].';
  assert.deepEqual(mem.cited(reply), ['a1', 's1', 'b1']);
  assert.deepEqual(mem.cited(reply, 'ada'), ['a1', 's1'], "bob's own record is not ada's to cite; shared ones are");
  assert.deepEqual(mem.cited('no citations here'), []);
  assert.deepEqual(mem.cited('[]'), []);
  // The ids recall shows are the ids cited back.
  const recall = mem.recall({ thread: 't', user: 'ada', queryText: 'deploy key', now: 10 });
  const shown = recall.items.map((i) => i.id);
  assert.ok(shown.includes('a1'));
  assert.deepEqual(mem.cited(recall.items.map((i) => `[${i.id}]`).join(' '), 'ada'), shown);
  assert.equal(thrown(() => mem.cited(42)).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.cited('x', 7)).code, 'INVALID_INPUT');
});

test('addTurn with dropUnknownParents: added without them, reported as dropped', () => {
  const mem = memory();
  const e = thrown(() => mem.addTurn({ thread: 't', parents: ['a1', 'ghost'] }));
  assert.equal(e.code, 'UNKNOWN_PARENT');
  assert.deepEqual(e.ids, ['ghost']);
  assert.equal(mem.len, 3, 'refused whole without the option');

  const r = mem.addTurn({ id: 'c1', thread: 't', user: 'ada', createdAt: 4, parents: ['a1', 'ghost', 'b1', 'typo'] }, { dropUnknownParents: true });
  assert.deepEqual(r.parents, ['a1', 'b1']);
  assert.deepEqual(r.dropped, ['ghost', 'typo']);
  const { dropped, ...record } = r;
  assert.deepEqual(record, mem.get('c1'), 'otherwise the plain record');
  assert.equal('dropped' in mem.get('c1'), false);
  assert.deepEqual(mem.addTurn({ thread: 't', parents: ['a1'] }, { dropUnknownParents: true }).dropped, []);
  assert.equal('dropped' in mem.addTurn({ thread: 't' }), false, 'no options: no dropped');
  assert.equal('dropped' in mem.addTurn({ thread: 't' }, null), false);
  // The option off refuses as before; a misspelt option is refused.
  assert.equal(thrown(() => mem.addTurn({ thread: 't', parents: ['ghost'] }, { dropUnknownParents: false })).code, 'UNKNOWN_PARENT');
  assert.equal(thrown(() => mem.addTurn({ thread: 't' }, { dropUnknownParent: true })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addTurn({ thread: 't' }, 'yes')).code, 'INVALID_INPUT');
});

test('PersistentMemory: add and addTurn with options, durable and replayed with the kept parents', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: 'cite', storage, sync: false });
  const a = await mem.add({ id: 'a', thread: 't', createdAt: 1, input: 'root' });
  // The agent loop: cite from the model's reply, add with the citations as parents.
  const reply = `Done, based on [${a.id}] and [made-up].`;
  const cited = mem.cited(reply);
  assert.deepEqual(cited, ['a']);
  const b = await mem.add({ id: 'b', thread: 't', createdAt: 2, output: reply, parents: [...cited, 'made-up'] }, { dropUnknownParents: true });
  assert.deepEqual(b.parents, ['a']);
  assert.deepEqual(b.dropped, ['made-up']);
  assert.deepEqual(Memory.load(storage.map).get('b').parents, ['a'], 'durable');
  const c = mem.addTurn({ id: 'c', thread: 't', createdAt: 3, parents: ['b', 'nope'] }, { dropUnknownParents: true });
  assert.deepEqual(c.dropped, ['nope']);
  const many = await mem.addMany([{ id: 'd', thread: 't', createdAt: 4, parents: ['x'] }, { id: 'e', thread: 't', createdAt: 5, parents: ['d', 'y'] }], { dropUnknownParents: true });
  assert.deepEqual(many.map((r) => r.dropped), [['x'], ['y']]);
  assert.deepEqual(many[1].parents, ['d']);

  // Another writer flushes first: the journaled turn replays with the parents it kept.
  const other = await Memory.open({ name: 'cite', storage, sync: false });
  const f = mem.addTurn({ id: 'f', thread: 't', createdAt: 6, parents: ['e', 'gone'] }, { dropUnknownParents: true });
  await other.add({ id: 'o', thread: 'o', createdAt: 7 });
  const { conflicts } = await mem.flush();
  assert.deepEqual(conflicts, []);
  const durable = Memory.load(storage.map);
  assert.deepEqual(durable.get('f').parents, f.parents);
  assert.ok(durable.get('o'));
  assert.equal(durable.len, 7);
  await Promise.all([mem.close(), other.close()]);
});
