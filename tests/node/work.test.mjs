// Working memory in the built package: set, push, pop, patch and remove by field, the newest
// change of a field winning, recall showing it first, persistence, and two tabs changing
// different fields of one thread through their journals.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

const T0 = Date.UTC(2024, 4, 1);

test('fields change by set, push, pop, patch and remove; the newest change of a field wins', () => {
  const mem = new Memory();
  const up = (field, op, value, at) => mem.updateWork({ thread: 't', field, op, value, at, user: 'ada' });
  assert.deepEqual(mem.workingMemory('t'), { thread: 't', user: '', fields: {}, history: [] });
  const goal = up('goal', 'set', 'ship the release', T0);
  assert.deepEqual([goal.field, goal.op, goal.value, goal.stale], ['goal', 'set', 'ship the release', false]);
  up('tasks', 'push', { text: 'write notes', status: 'open' }, T0 + 1);
  up('tasks', 'push', { text: 'tag v1', status: 'open' }, T0 + 2);
  const popped = up('tasks', 'pop', undefined, T0 + 3);
  assert.deepEqual(popped.value, { text: 'tag v1', status: 'open' }, 'pop gives the element');
  up('tasks', 'patch', { 0: { status: 'done' } }, T0 + 4);
  up('notes', 'patch', { branch: 'main', ticket: 42 }, T0 + 5);
  up('notes', 'patch', { ticket: null }, T0 + 6);
  up('scratch', 'set', [1, 2], T0 + 7);
  up('scratch', 'remove', undefined, T0 + 8);
  const stale = up('goal', 'set', 'an older goal', T0 - 1);
  assert.equal(stale.stale, true, 'older than the field: kept as stale, not applied');

  const wm = mem.workingMemory('t', 'ada');
  assert.equal(wm.user, 'ada');
  assert.deepEqual(mem.workingMemory('t').fields, {}, "ada's working memory is not the one of no user");
  assert.deepEqual(Object.keys(wm.fields).sort(), ['goal', 'notes', 'tasks']);
  assert.equal(wm.fields.goal.value, 'ship the release');
  assert.deepEqual(wm.fields.tasks.value, [{ text: 'write notes', status: 'done' }]);
  assert.deepEqual(wm.fields.notes.value, { branch: 'main' }, 'null removes a key');
  assert.equal(wm.fields.tasks.version, 4);
  assert.equal(wm.fields.notes.updatedAt, T0 + 6);
  assert.equal(wm.history.length, 10);
  assert.equal(wm.history.at(-1).stale, true);
  assert.deepEqual(mem.workThreads(), ['t']);

  const before = Date.now();
  assert.ok(mem.updateWork({ thread: 'u', field: 'goal', op: 'set', value: 'x' }).at >= before, 'at defaults to the host clock');
  assert.equal(thrown(() => mem.updateWork({ thread: 't', field: 'goal', op: 'push', value: 1, user: 'ada' })).code, 'INVALID_INPUT', 'not a list');
  assert.equal(thrown(() => mem.updateWork({ thread: 't', field: 'goal', op: 'set', user: 'ada' })).code, 'INVALID_INPUT', 'a value is needed');
  assert.equal(thrown(() => mem.updateWork({ thread: '', field: 'goal', op: 'set', value: 1 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.updateWork({ thread: 't', field: 'goal', op: 'append', value: 1 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.updateWork({ thread: 't', field: 'goal', op: 'set', value: 1, when: 3 })).code, 'INVALID_INPUT', 'unknown property');
  assert.equal(thrown(() => mem.updateWork({ thread: 't', field: 'big', op: 'set', value: 'x'.repeat(70_000) })).code, 'INVALID_INPUT');
  assert.equal(mem.clearWork('u'), true);
  assert.equal(mem.clearWork('u'), false);
  assert.deepEqual(mem.workThreads(), ['t']);
});

test('recall shows the working memory first, within its token cap', () => {
  const mem = new Memory();
  mem.addTurn({ thread: 't', user: 'ada', input: 'let us ship it', createdAt: T0 });
  mem.updateWork({ thread: 't', field: 'goal', op: 'set', value: 'ship the release', at: T0, user: 'ada' });
  mem.updateWork({ thread: 't', field: 'constraints', op: 'push', value: 'no deploys on Friday', at: T0, user: 'ada' });
  const r = mem.recall({ thread: 't', user: 'ada', budgetTokens: 300, now: T0 });
  assert.match(r.working, /ship the release/);
  assert.match(r.working, /no deploys on Friday/);
  assert.ok(r.block.indexOf('ship the release') < r.block.indexOf('let us ship it'), 'working memory comes first');
  assert.ok(r.tokens <= 300);
  assert.equal(mem.recall({ thread: 't', user: 'ada', workTokens: 0, now: T0 }).working, null);
});

test('working memory persists, and two tabs changing different fields both keep their change', async () => {
  const storage = new MemoryStorage();
  const name = `work-${process.pid}`;
  const a = await Memory.open({ name, storage, sync: false });
  const b = await Memory.open({ name, storage, sync: false });
  // Both tabs change the thread before either has seen the other's flush.
  const [goal, task] = await Promise.all([
    a.updateWork({ thread: 'plan', field: 'goal', op: 'set', value: 'migrate the db', at: T0 }),
    b.updateWork({ thread: 'plan', field: 'tasks', op: 'push', value: { text: 'back up', status: 'open' }, at: T0 + 1 }),
  ]);
  assert.equal(goal.stale, false);
  assert.equal(task.stale, false);
  assert.equal(a.pending + b.pending, 0, 'both durable');
  assert.equal(Math.max(a.generation, b.generation), 2, 'the second flush rebased on the first');

  const c = await Memory.open({ name, storage, sync: false });
  const wm = c.workingMemory('plan');
  assert.equal(wm.fields.goal.value, 'migrate the db', "tab a's field");
  assert.deepEqual(wm.fields.tasks.value, [{ text: 'back up', status: 'open' }], "tab b's field, replayed on a's");

  // Two changes to one field: the newest wins wherever it was made; the other is history.
  await Promise.all([
    a.updateWork({ thread: 'plan', field: 'goal', op: 'set', value: 'newer goal', at: T0 + 10 }),
    b.updateWork({ thread: 'plan', field: 'goal', op: 'set', value: 'older goal', at: T0 + 5 }),
  ]);
  await c.refresh();
  assert.equal(c.workingMemory('plan').fields.goal.value, 'newer goal');
  assert.ok(c.workingMemory('plan').history.some((h) => h.value === 'older goal'));

  assert.equal(await b.clearWork('plan'), true);
  const d = await Memory.open({ name, storage, sync: false });
  assert.deepEqual(d.workThreads(), []);
  for (const m of [a, b, c, d]) m.free();
});
