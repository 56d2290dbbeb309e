// The entity graph, the timeline and purge in the built package: a 3-hop path, neighbours and
// subgraphs kept to a user, days in a time zone, and an expired item gone from search, recall
// and every stored byte once purged.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';

const T0 = Date.UTC(2024, 4, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function facts() {
  const mem = new Memory();
  const fact = (subject, relation, object, user = 'ada', extra = {}) =>
    mem.addItem({ kind: 'fact', user, text: `${subject} ${relation} ${object}`, subject, relation, object, createdAt: T0, ...extra }).item;
  const edges = [fact('Ada', 'works_at', 'Acme'), fact('Acme', 'located_in', 'Oslo'), fact('Oslo', 'capital_of', 'Norway')];
  fact('Bob', 'works_at', 'Acme', 'bob');
  fact('Ada', 'visited', 'Mars', 'ada', { ttl: '1d' });
  return { mem, edges };
}

test('a 3-hop path between two entities, with each edge\'s item', () => {
  const { mem, edges } = facts();
  const paths = mem.path('Ada', 'NORWAY', 3);
  assert.equal(paths.length, 1);
  assert.deepEqual(paths[0].map((e) => [e.from, e.relation, e.to]), [
    ['ada', 'works_at', 'acme'],
    ['acme', 'located_in', 'oslo'],
    ['oslo', 'capital_of', 'norway'],
  ], 'entities are canonical names');
  assert.deepEqual(paths[0].map((e) => e.id), edges.map((e) => e.id));
  assert.deepEqual(mem.path('Ada', 'Norway', 2), [], 'no path within 2 edges');
  assert.deepEqual(mem.path('norway', 'ada', 3)[0].map((e) => e.relation), ['capital_of', 'located_in', 'works_at'], 'edges walk both ways');
  assert.equal(mem.path('ada', 'norway', 3, { user: 'ada' }).length, 1);
  assert.equal(mem.path('bob', 'norway', 3, { user: 'ada' }).length, 0, "bob's edge is not ada's");
  assert.equal(mem.path('ada', 'mars', 1, { now: T0 + HOUR }).length, 1, 'alive an hour in');
  assert.equal(mem.path('ada', 'mars', 1).length, 0, 'expired by the host clock: no edge');
  assert.throws(() => mem.path('ada', 'norway', 7), { code: 'INVALID_INPUT' });
});

test('neighbours and subgraphs', () => {
  const { mem } = facts();
  const near = mem.neighbors('Acme', 1);
  assert.deepEqual(near.nodes, [
    { entity: 'acme', depth: 0 },
    { entity: 'ada', depth: 1 },
    { entity: 'bob', depth: 1 },
    { entity: 'oslo', depth: 1 },
  ]);
  assert.equal(near.edges.length, 3);
  assert.deepEqual(mem.neighbors('acme', 1, { user: 'ada' }).nodes.map((n) => n.entity), ['acme', 'ada', 'oslo']);
  assert.deepEqual(mem.neighbors('ada', 3, { user: 'ada' }).nodes.map((n) => [n.entity, n.depth]), [
    ['ada', 0], ['acme', 1], ['oslo', 2], ['norway', 3],
  ]);
  assert.throws(() => mem.neighbors('ada', 9), { code: 'INVALID_INPUT' });
  const sub = mem.subgraph(['ada', 'acme']);
  assert.deepEqual(sub.edges.map((e) => e.relation), ['works_at']);
  assert.equal(mem.subgraph([], { user: 'ada' }).edges.length, 3, "ada's whole graph, the expired edge left out");
  assert.equal(mem.subgraph([], { user: 'ada', now: T0 }).edges.length, 4);
  assert.throws(() => mem.subgraph('ada'), { code: 'INVALID_INPUT' });
});

test('the timeline groups turns and items by local day', () => {
  const mem = new Memory();
  mem.addTurn({ id: 'late', thread: 't', user: 'ada', input: 'late night deploy', createdAt: T0 + 23 * HOUR });
  mem.addTurn({ id: 'next', thread: 't', user: 'ada', input: 'next morning', createdAt: T0 + 30 * HOUR });
  const item = mem.addItem({ kind: 'personal', user: 'ada', text: 'Works nights', createdAt: T0 + 23 * HOUR }).item;
  const utc = mem.timeline();
  assert.deepEqual(utc.map((d) => d.date), ['2024-05-01', '2024-05-02']);
  const tokyo = mem.timeline({ offsetMinutes: 9 * 60 });
  assert.deepEqual(tokyo.map((d) => d.date), ['2024-05-02'], 'in Tokyo everything falls on 2 May');
  assert.deepEqual(tokyo[0].entries.map((e) => e.id).sort(), [item.id, 'late', 'next'].sort());
  const entry = tokyo[0].entries.find((e) => e.id === item.id);
  assert.deepEqual(entry, { id: item.id, at: T0 + 23 * HOUR, kind: 'personal', user: 'ada', text: 'Works nights' });
  const turn = tokyo[0].entries.find((e) => e.id === 'late');
  assert.equal(turn.thread, 't');
  assert.equal(turn.kind, undefined);
  assert.deepEqual(mem.timeline({ itemsOnly: true }).flatMap((d) => d.entries.map((e) => e.id)), [item.id]);
  assert.deepEqual(mem.timeline({ turnsOnly: true, since: T0 + DAY }).flatMap((d) => d.entries.map((e) => e.id)), ['next']);
  assert.throws(() => mem.timeline({ limit: 0 }), { code: 'INVALID_INPUT' });
  assert.throws(() => mem.timeline({ offset: 60 }), { code: 'INVALID_INPUT' });
});

/** Whether any stored value of `storage` holds the UTF-8 bytes of `needle`. */
async function bytesHold(storage, needle) {
  const bytes = Buffer.from(needle);
  for (const [, v] of await storage.loadRange('')) if (Buffer.from(v).includes(bytes)) return true;
  return false;
}

test('an expired item leaves search and recall, and purge leaves no stored byte of it', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: `purge-${process.pid}`, storage, sync: false });
  await mem.add({ id: 't1', thread: 't', user: 'ada', input: 'my door code, remember it', createdAt: T0 });
  const { item } = await mem.addItem({ kind: 'personal', user: 'ada', text: 'Door code is quuxlemon 4471', sources: ['t1'], ttl: '1d', createdAt: T0 });
  const kept = await mem.addItem({ kind: 'personal', user: 'ada', text: 'Prefers zebracorn tea', createdAt: T0 });
  assert.equal(item.expiresAt, T0 + DAY);
  assert.ok(await bytesHold(storage, 'quuxlemon'), 'the test is meaningful: the text was stored');
  // PersistentMemory reads these synchronously from its core.
  assert.deepEqual(mem.timeline({ itemsOnly: true })[0].entries.map((e) => e.id).sort(), [item.id, kept.item.id].sort());
  assert.deepEqual(mem.neighbors('ada', 1, { now: T0 }), { nodes: [{ entity: 'ada', depth: 0 }], edges: [] });
  assert.deepEqual(mem.path('ada', 'oslo', 2), []);
  assert.deepEqual(mem.subgraph([]), { nodes: [], edges: [] });
  assert.equal(mem.searchFull({ text: 'door code yesterday', now: T0 + DAY, mode: 'bm25' }).time.since, T0);

  const search = (now) => mem.search({ text: 'quuxlemon door code', mode: 'bm25', now, filter: { scope: 'items' } }).map((h) => h.id);
  const recall = (now) => mem.recall({ thread: 'new', user: 'ada', queryText: 'quuxlemon door code', budgetTokens: 500, now });
  assert.deepEqual(search(T0 + HOUR), [item.id], 'alive before it expires');
  assert.match(recall(T0 + HOUR).block, /quuxlemon/);
  assert.deepEqual(search(T0 + 2 * DAY), [], 'expired: out of search');
  assert.doesNotMatch(recall(T0 + 2 * DAY).block, /quuxlemon/, 'and out of recall');
  assert.equal(mem.listItems({ now: T0 + 2 * DAY, statuses: ['expired'] })[0].id, item.id);

  const purged = await mem.purge({ now: T0 + 2 * DAY });
  assert.deepEqual(purged, { items: [item.id], blobs: [] });
  assert.equal(mem.pending, 0, 'durable when it resolves');
  assert.equal(await bytesHold(storage, 'quuxlemon'), false, 'no stored byte of it is left');
  assert.ok(await bytesHold(storage, 'zebracorn'), 'the other item is intact');
  assert.equal(mem.getItem(item.id), undefined);
  assert.deepEqual(mem.get('t1').id, 't1', 'its source turn stays');
  assert.deepEqual(search(T0 + HOUR), [], 'gone for good, whatever the clock');
  assert.doesNotMatch(recall(T0 + HOUR).block, /quuxlemon/);
  const again = await Memory.open({ name: `purge-${process.pid}`, storage, sync: false });
  assert.equal(again.getItem(item.id), undefined);
  assert.equal(again.getItem(kept.item.id).text, 'Prefers zebracorn tea');
  assert.deepEqual(await again.purge(), { items: [], blobs: [] }, 'purge() purges what expired by now: nothing left');
  again.free();
  mem.free();
});

test('purge on a Memory: expired by default, ended items on request', () => {
  const mem = new Memory();
  const old = mem.addItem({ kind: 'tool', user: 'u', text: 'the v1 api paginates', createdAt: T0, ttlMs: HOUR }).item;
  const gone = mem.addItem({ kind: 'tool', user: 'u', text: 'the api needs a token', createdAt: T0 }).item;
  mem.deleteItem(gone.id, T0 + 1);
  assert.deepEqual(mem.purge({ now: T0 }), { items: [], blobs: [] }, 'nothing expired yet');
  assert.deepEqual(mem.purge({ now: T0 + 2 * HOUR, expired: false }), { items: [], blobs: [] });
  assert.deepEqual(mem.purge({ now: T0 + 2 * HOUR }).items, [old.id]);
  assert.deepEqual(mem.purge({ ended: true }).items, [gone.id]);
  assert.equal(mem.listItems({ all: true }).length, 0);
  assert.throws(() => mem.purge({ expire: true }), { code: 'INVALID_INPUT' });
});
