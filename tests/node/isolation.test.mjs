// Issue 30, items 5 to 7, in the JS face: an empty (or blank) user is INVALID_INPUT in every
// call and query that takes a user, never "every user"; working memory is per user and
// thread; `recent` and `itemHistory` keep to a user.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

const T0 = Date.UTC(2026, 10, 27);

/** Alice's and bob's turns on one thread id, and an item each. */
function twoUsers() {
  const mem = new Memory();
  mem.addTurn({ id: 'a1', thread: 'default', user: 'alice', input: 'alice plans the secret launch', createdAt: T0 });
  mem.addTurn({ id: 'b1', thread: 'default', user: 'bob', input: 'bob plans the secret merger', createdAt: T0 + 1 });
  mem.addTurn({ id: 'b2', thread: 'default', user: 'bob', input: 'bob follows up', createdAt: T0 + 2, parents: ['b1'] });
  const alice = mem.addItem({ kind: 'personal', user: 'alice', text: 'Alice lives in Oslo', createdAt: T0 });
  const bob = mem.addItem({ kind: 'personal', user: 'bob', text: 'Bob lives in Rome', createdAt: T0 });
  return { mem, aliceItem: alice.item.id, bobItem: bob.item.id };
}

test('an empty or blank user throws INVALID_INPUT in every read that takes one', () => {
  const { mem, bobItem } = twoUsers();
  for (const user of ['', ' ', '\t']) {
    const calls = {
      get: () => mem.get('b1', user),
      recent: () => mem.recent('default', 10, user),
      byUser: () => mem.byUser(user, 10),
      ancestors: () => mem.ancestors('b2', 3, 10, user),
      descendants: () => mem.descendants('b1', 3, 10, user),
      cited: () => mem.cited('[b1]', user),
      search: () => mem.search({ text: 'secret plans', filter: { user } }),
      searchFull: () => mem.searchFull({ text: 'secret plans', filter: { user } }),
      grep: () => mem.grep({ pattern: 'secret', filter: { user } }),
      recall: () => mem.recall({ thread: 'default', user }),
      recallView: () => mem.recallView({ thread: 'default', user }),
      callToolGet: () => mem.callTool('get', { id: 'b1' }, { user }),
      callToolSearch: () => mem.callTool('search', { query: 'secret' }, { user }),
      getItem: () => mem.getItem(bobItem, user),
      itemHistory: () => mem.itemHistory(bobItem, user),
      listItems: () => mem.listItems({ user }),
      resolutions: () => mem.resolutions({ user }),
      timeline: () => mem.timeline({ user }),
      neighbors: () => mem.neighbors('bob', 1, { user }),
      subgraph: () => mem.subgraph([], { user }),
      proposeItems: () => mem.proposeItems({ user }),
      workingMemory: () => mem.workingMemory('default', user),
      clearWork: () => mem.clearWork('default', user),
      updateWork: () => mem.updateWork({ thread: 'default', field: 'goal', op: 'set', value: 'x', user }),
    };
    for (const [name, call] of Object.entries(calls)) {
      assert.equal(thrown(call).code, 'INVALID_INPUT', `${name} with user ${JSON.stringify(user)}`);
    }
  }
  // Leaving the user out is the explicit, store-wide read.
  assert.equal(mem.get('b1').user, 'bob');
  const everyone = mem.search({ text: 'secret plans', mode: 'bm25' }).map((h) => h.id);
  assert.ok(everyone.includes('a1') && everyone.includes('b1'), everyone.join());
  assert.equal(mem.callTool('get', { id: 'b1' }).id, 'b1');
  // A named user sees only their own.
  assert.equal(mem.get('b1', 'alice'), undefined);
  assert.deepEqual(mem.search({ text: 'secret plans', mode: 'bm25', filter: { user: 'alice' } }).map((h) => h.id), ['a1']);
  assert.equal(thrown(() => mem.callTool('get', { id: 'b1' }, { user: 'alice' })).code, 'NOT_FOUND');
});

test('working memory is per user: a thread id two users share shows each only their own', () => {
  const { mem } = twoUsers();
  // The case: a change made without a user is nobody's, not alice's.
  mem.updateWork({ thread: 'default', field: 'goal', op: 'set', value: 'bob goal', at: T0 });
  mem.updateWork({ thread: 'default', field: 'goal', op: 'set', value: 'merge the companies', at: T0, user: 'bob' });
  mem.updateWork({ thread: 'default', field: 'goal', op: 'set', value: 'launch on time', at: T0 - 5, user: 'alice' });
  for (const recall of [mem.recall({ thread: 'default', user: 'alice', now: T0 }), mem.recallView({ thread: 'default', user: 'alice', now: T0 })]) {
    assert.match(recall.working, /launch on time/);
    assert.ok(!recall.block.includes('bob goal') && !recall.block.includes('merge the companies'), recall.block);
  }
  const tool = mem.callTool('recall', { thread: 'default' }, { user: 'alice' });
  assert.ok(tool.block.includes('launch on time') && !tool.block.includes('merge'), tool.block);
  assert.equal(mem.workingMemory('default', 'alice').fields.goal.value, 'launch on time', 'not stale against bob');
  assert.equal(mem.workingMemory('default', 'bob').fields.goal.value, 'merge the companies');
  assert.equal(mem.workingMemory('default').fields.goal.value, 'bob goal');
  assert.equal(mem.workingMemory('default', 'carol').history.length, 0);
  assert.deepEqual(mem.workThreads(), ['default']);
  assert.equal(mem.clearWork('default', 'bob'), true);
  assert.equal(mem.workingMemory('default', 'alice').fields.goal.value, 'launch on time', "clearing bob's left alice's");
  // A memory reloaded from its change set keeps each user's own.
  const back = Memory.load(mem.snapshot());
  assert.equal(back.workingMemory('default', 'alice').fields.goal.value, 'launch on time');
  assert.deepEqual(back.workingMemory('default', 'bob').fields, {});
});

test('recent and itemHistory keep to the user they name', () => {
  const { mem, aliceItem, bobItem } = twoUsers();
  assert.deepEqual(mem.recent('default', 10, 'alice').map((r) => r.id), ['a1']);
  assert.deepEqual(mem.recent('default', 10).map((r) => r.id), ['b2', 'b1', 'a1']);
  assert.equal(mem.itemHistory(aliceItem, 'alice').length, 1);
  assert.equal(thrown(() => mem.itemHistory(bobItem, 'alice')).code, 'NOT_FOUND');
  assert.equal(mem.itemHistory(bobItem).length, 1);
});
