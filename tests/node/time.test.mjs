// Time in the built package: relative dates in search resolved against a fixed `now` (English
// and Chinese, filter, boost and off), the host clock as the default, recall's match text.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage, recallMatchText } from '../../pkg/index.js';

/** Wednesday 15 May 2024, noon UTC. */
const NOW = Date.UTC(2024, 4, 15, 12);
const DAY = 86_400_000;

function memory() {
  const mem = new Memory();
  mem.addTurn({ id: 'last-week', thread: 't', createdAt: Date.UTC(2024, 4, 8, 9), input: 'deploy the api' });
  mem.addTurn({ id: 'yesterday', thread: 't', createdAt: Date.UTC(2024, 4, 14, 9), input: 'deploy the web app' });
  mem.addTurn({ id: 'april', thread: 't', createdAt: Date.UTC(2024, 3, 20, 9), input: 'deploy the docs' });
  return mem;
}

const ids = (hits) => hits.map((h) => h.id).sort();

test('relative dates resolve against a fixed now and filter the hits', () => {
  const mem = memory();
  const full = mem.searchFull({ text: 'deploy last week', now: NOW, mode: 'bm25' });
  assert.equal(full.time.matched, 'last week');
  assert.equal(full.time.since, Date.UTC(2024, 4, 6), 'Monday of the calendar week before');
  assert.equal(full.time.until, Date.UTC(2024, 4, 13));
  assert.equal(full.time.grain, 'week');
  assert.deepEqual(ids(full.hits), ['last-week']);
  assert.equal(full.hits[0].kind, null, 'a turn has no item kind');
  assert.deepEqual(ids(mem.search({ text: 'deploy last week', now: NOW, mode: 'bm25' })), ['last-week'], 'search filters the same way');

  const only = mem.searchFull({ text: 'yesterday', now: NOW });
  assert.deepEqual(ids(only.hits), ['yesterday'], 'a query that is only a time lists that range');
  assert.equal(only.time.since, Date.UTC(2024, 4, 14));

  const zh = mem.searchFull({ text: '上周 deploy', now: NOW, mode: 'bm25' });
  assert.deepEqual(ids(zh.hits), ['last-week']);
  assert.deepEqual([zh.time.start, zh.time.end], [0, 2], 'offsets are UTF-16 units');
  assert.equal('上周 deploy'.slice(zh.time.start, zh.time.end), zh.time.matched);

  const off = mem.searchFull({ text: 'deploy last week', now: NOW, mode: 'bm25', time: 'off' });
  assert.equal(off.time, null);
  assert.deepEqual(ids(off.hits), ['april', 'last-week', 'yesterday']);
  const boost = mem.searchFull({ text: 'deploy last week', now: NOW, mode: 'bm25', time: 'boost' });
  assert.equal(boost.hits[0].id, 'last-week', 'boost ranks the range first and keeps the rest');
  assert.equal(boost.hits.length, 3);

  // Minutes east of UTC move the days: at +14:00 it is already Thursday 16 May.
  const east = mem.searchFull({ text: 'yesterday', now: NOW, offsetMinutes: 14 * 60 });
  assert.equal(east.time.since, Date.UTC(2024, 4, 15) - 14 * 3600_000);
  assert.equal(mem.searchFull({ text: 'deploy', now: NOW }).time, null, 'no time expression, no range');
  mem.free();
});

test('search defaults now to the host clock', () => {
  const mem = memory();
  // The records are from 2024; "yesterday" on the host clock names a day without any.
  const full = mem.searchFull({ text: 'deploy yesterday', mode: 'bm25' });
  assert.ok(full.time, 'the expression was resolved without a now');
  assert.ok(Math.abs(full.time.until - (Date.now() - (Date.now() % DAY))) <= DAY, 'against today');
  assert.deepEqual(full.hits, []);
  mem.free();
});

test('recall matches keywords then query text, and recallAsync embeds exactly that', async () => {
  assert.equal(recallMatchText({ thread: 't', keywords: ['alpha', 'gamma'], queryText: 'beta' }), 'alpha gamma beta');
  assert.equal(recallMatchText({ thread: 't' }), '');
  assert.throws(() => recallMatchText({ thread: 't', keyword: ['x'] }), { code: 'INVALID_INPUT' });
  const calls = [];
  const embed = async (texts) => {
    calls.push(...texts);
    return texts.map(() => new Float32Array([1, 0, 0]));
  };
  const mem = await Memory.open({ name: 'match-text', storage: new MemoryStorage(), embed, sync: false });
  await mem.add({ thread: 't', input: 'alpha', createdAt: NOW });
  calls.length = 0;
  const r = await mem.recallAsync({ thread: 't', keywords: ['alpha'], queryText: 'beta', now: NOW });
  assert.deepEqual(calls, ['alpha beta']);
  assert.ok(r.tokens > 0);
  mem.free();
});
