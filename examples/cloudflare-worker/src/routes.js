// The memory routes of the Worker: `METHOD path` → async (memory, ctx) => Response, where
// `memory` is a PersistentMemory and ctx is { q, request, user, faultName }. Writes resolve
// once durable (the PersistentMemory methods flush), or flush at the end.
//
// Every route keeps to the user the request acts for (`user`, see http.js `userOf`): reads
// show only that user's records and those tagged `shared`; writes take that user, refuse a
// body naming another, and change only that user's records. Without a user a route is
// store-wide. `purge` and `stored` are store-wide only (they concern every user's bytes).
import { body, failure, int, invalid, json, need, object, own } from './http.js';
import { exportRoutes } from './transfer.js';
import { contextRoutes } from './context.js';

/** A record as an answer: its vector left out (it is long and says nothing to a reader). */
const plain = (record) => ({ ...record, embedding: null });

/** The record `id`, which `user` must own (every record for a store-wide request). */
function ownRecord(memory, id, user) {
  const record = memory.get(id, user);
  if (!record) throw failure('NOT_FOUND', `no record ${id}${user === undefined ? '' : ` of ${user}`}`);
  if (user !== undefined && record.user !== user) {
    throw invalid(`record ${id} is another user's, shared: only its owner changes it`);
  }
  return record;
}

/** The item `id`, which `user` must own (every item for a store-wide request). */
function ownItem(memory, id, user) {
  const item = memory.getItem(id, user);
  if (!item) throw failure('NOT_FOUND', `no item ${id}${user === undefined ? '' : ` of ${user}`}`);
  if (user !== undefined && item.user !== user) {
    throw invalid(`item ${id} is another user's, shared: only its owner changes it`);
  }
  return item;
}

/** Refuses a store-wide route for a request that acts for a user. */
function storeWide(user, what) {
  if (user !== undefined) throw invalid(`${what} is store-wide: send it without a user`);
}

/** `{ name, count, newest }` per thread of `user`'s turns, newest activity first. */
function threadsOf(memory, user) {
  const by = new Map();
  for (const r of memory.byUser(user, memory.len)) {
    const g = by.get(r.thread) ?? { name: r.thread, count: 0, newest: r.createdAt };
    g.count += 1;
    g.newest = Math.max(g.newest, r.createdAt);
    by.set(r.thread, g);
  }
  return [...by.values()].sort((a, b) => b.newest - a.newest || a.name.localeCompare(b.name));
}

/** A 32-bit FNV-1a of bytes, as hex: enough to see that a stored value changed. */
function fnv(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** Whether `bytes` holds the UTF-8 bytes of `text`. */
function holds(bytes, text) {
  const needle = new TextEncoder().encode(text);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export const ROUTES = {
  'POST turns': async (memory, { request, user, faultName }) => {
    const { turns } = await object(request);
    if (!Array.isArray(turns)) throw invalid('turns must be an array');
    // Sync adds, then one flush: all or nothing (`addMany` would flush by itself).
    const records = turns.map((t, i) => memory.addTurn(own(t, user, `turn ${i}`)));
    if (faultName === 'after-add') throw new Error('injected failure after adding the turns');
    await memory.flush();
    return json({ added: records.map((r) => r.id), len: memory.len }, 201);
  },
  'GET get': (memory, { q, user }) => {
    const record = memory.get(need(q, 'id'), user);
    if (!record) return json({ error: { code: 'NOT_FOUND', message: `no record ${q.get('id')}` } }, 404);
    return json(plain(record));
  },
  'GET ancestors': (memory, { q, user }) => json({ ids: memory.ancestors(need(q, 'id'), int(q, 'depth', 16), 1000, user).map((r) => r.id) }),
  'GET descendants': (memory, { q, user }) => json({ ids: memory.descendants(need(q, 'id'), int(q, 'depth', 16), 1000, user).map((r) => r.id) }),
  'GET recent': (memory, { q, user }) => json({ ids: memory.recent(need(q, 'thread'), int(q, 'n', 10), user).map((r) => r.id) }),
  'GET threads': (memory, { user }) => json({ threads: user === undefined ? memory.threads() : threadsOf(memory, user) }),
  'GET users': (memory, { user }) => json({ users: memory.users().filter((g) => user === undefined || g.name === user) }),
  'GET search': (memory, { q, user }) => {
    const hits = memory.search({ text: q.get('q') ?? '', mode: q.get('mode') ?? 'hybrid', k: int(q, 'k', 10), filter: { user } });
    return json({ hits: hits.map(({ id, score }) => ({ id, score })) });
  },
  'GET grep': (memory, { q, user }) => json({ matches: memory.grep({ pattern: need(q, 'pattern'), caseInsensitive: q.get('i') === '1', filter: { user } }) }),
  'POST recall': async (memory, { request, user }) => {
    const recall = memory.recall(own(await object(request), user, 'the recall query'));
    await memory.flush(); // recall counts uses
    return json(recall);
  },
  'POST compact': async (memory, { q, user }) => {
    const record = memory.compactExtractive(ownRecord(memory, need(q, 'id'), user).id);
    await memory.flush();
    return json({ id: record.id, compact: record.compact });
  },
  'POST delete': async (memory, { q, user }) => plainDeleted(await memory.delete(ownRecord(memory, need(q, 'id'), user).id)),
  'POST forget-user': async (memory, { user }) => {
    if (user === undefined) throw invalid('name the user to forget (the header x-memdag-user or ?user=)');
    return json(await memory.forgetUser(user));
  },
  'GET tools': (memory, { q }) => json(memory.toolSchemas(q.get('format') ?? 'openai')),
  'POST tool': async (memory, { q, request, user }) => {
    const args = await request.text();
    return json(await memory.callTool(need(q, 'name'), args, { user, thread: q.get('thread') }));
  },
  'POST memory': async (memory, { request, user }) => json(await memory.addItem(own(await object(request), user, 'the item')), 201),
  'GET memory': (memory, { q, user }) => json({
    items: memory.listItems({ user, kinds: q.get('kind') ? [q.get('kind')] : [], all: q.get('all') === '1' }),
  }),
  'GET memory/history': (memory, { q, user }) => json({ history: memory.itemHistory(need(q, 'id'), user) }),
  'POST memory/extract': async (memory, { request, user }) => {
    const query = own(await object(request), user, 'the extract query');
    for (const id of query.ids ?? []) ownRecord(memory, id, user);
    return json(await memory.extract(query));
  },
  'POST memory/update': async (memory, { q, request, user }) => {
    const item = ownItem(memory, need(q, 'id'), user);
    return json(await memory.updateItem(item.id, await object(request)));
  },
  'POST memory/delete': async (memory, { q, user }) => json(await memory.deleteItem(ownItem(memory, need(q, 'id'), user).id)),
  'GET work': (memory, { q, user }) => json(memory.workingMemory(need(q, 'thread'), user)),
  'POST work': async (memory, { request, user }) => json(await memory.updateWork(own(await object(request), user, 'the work update'))),
  'GET timeline': (memory, { q, user }) => json({ days: memory.timeline({ user, thread: q.get('thread') }) }),
  'GET graph/neighbors': (memory, { q, user }) => json(memory.neighbors(need(q, 'entity'), int(q, 'depth', 1), { user })),
  'GET graph/path': (memory, { q, user }) => json({ paths: memory.path(need(q, 'from'), need(q, 'to'), int(q, 'depth', 3), { user }) }),
  'POST purge': async (memory, { request, user }) => {
    storeWide(user, 'purge');
    return json(await memory.purge(await body(request, {})));
  },
  'GET stored': async (memory, { q, user }) => {
    storeWide(user, 'stored');
    const entries = await memory.storage.loadRange('');
    const find = q.get('find');
    return json({ entries: entries.map(([k, v]) => (find ? [k, v.length, fnv(v), holds(v, find)] : [k, v.length, fnv(v)])) });
  },
  ...exportRoutes,
  ...contextRoutes,
};

function plainDeleted(record) {
  return json({ deleted: record.id, record: plain(record) });
}
