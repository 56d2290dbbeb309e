// An agent-memory service on Cloudflare Workers, with memdag's JS package and two storage
// adapters:
//
//   /kv/<agent>/...   Workers KV (binding MEM), the agent's keys under the prefix "<agent>/".
//                     Simple and global, but eventually consistent, not atomic across keys,
//                     and without compare-and-set: it must have one writer per store. So
//                     writes (POST) go through the agent's Durable Object, which runs one
//                     request at a time, and reads open the store straight from KV, reading
//                     `head` and the keys it names (1 + parts reads, never a listing).
//   /do/<agent>/...   a Durable Object per agent (binding MEMORY, class MemoryObject), whose
//                     storage commits each change set atomically. One memory per object: the
//                     way memdag scales past one machine.
//
// Routes under each prefix (the memory calls are the package's PersistentMemory methods):
//   POST turns                     {"turns": [NewTurn, ...]}: adds them in order (a turn may
//                                  name earlier ones as parents), all or nothing; 201
//   GET  get?id=ID                 one record
//   GET  ancestors?id=ID[&depth=N] ancestor ids, nearest first
//   GET  recent?thread=T[&n=N]     newest records of a thread
//   GET  search?q=TEXT[&mode=bm25|vector|hybrid][&k=N]
//   GET  grep?pattern=P[&i=1]      regular-expression matches over the raw logs
//   POST recall                    body: a RecallQuery; the recall (block, items, tokens)
//   POST compact?id=ID             compacts a turn with the extractive compactor
//   GET  tools?format=openai|anthropic|mcp   the tool definitions for a model request
//   POST tool?name=NAME            body: the tool's arguments (JSON); its JSON answer. The
//                                  context user is the header x-memdag-user (else ?user=),
//                                  never the model's; ?thread= is recall's default thread
//   POST memory                    body: a NewItem; adds it (dedup, conflicts); 201
//   GET  memory?user=U[&kind=K][&all=1]   items, newest first
//   GET  memory/history?id=ID      every version of an item
//   POST memory/extract            body: {"thread"} or {"ids"}; learns items by the rules, or
//                                  through Workers AI when the binding AI is set (one call
//                                  per thread's batch of turns; the report counts them)
//   POST memory/delete?id=ID       deletes an item softly
//   GET  work?thread=T[&user=U]    U's working memory of the thread (no user's without
//                                  one: working memory is per user and thread)
//   POST work                      body: a WorkUpdate (set, push, pop, patch, remove)
//   GET  timeline?user=U[&thread=T]   turns and items by day
//   GET  graph/neighbors?entity=E[&depth=N][&user=U]
//   GET  graph/path?from=A&to=B[&depth=N][&user=U]
//   POST purge                     body (optional): a PurgeQuery; removes expired items for
//                                  good, leaving no stored byte of them
//   GET  stored[?find=TEXT]        every stored key with its size and a hash (for checking),
//                                  and whether its value holds the bytes of TEXT
//
// Encryption at rest: with the secret MEMDAG_KEY (64 hex digits, `npx wrangler secret put
// MEMDAG_KEY`, e.g. from `openssl rand -hex 32`) every stored value, in KV and in Durable
// Objects, is sealed with it (XChaCha20-Poly1305, bound to its key; see memdag-core's `seal`).
// A store written with the secret opens only with it: otherwise requests fail with LOCKED.
//
// Every request works on a memory and flushes its change set only at the very end, so a
// request that fails at any point before (an unknown parent in the third turn, a thrown
// error) writes nothing. A change set commits whole or not at all on either backend: the
// core writes segment parts first and its commit key `head` last. Errors are JSON
// {"error": {"code", "message"}} with the core's code. A memory opened for one request is
// closed (its wasm memory freed) when the request ends.
//
// The package is imported through its Workers entry (workerd.js, the `workerd` export
// condition that wrangler resolves for `import ... from 'memdag'`), which instantiates the
// wasm from a CompiledWasm import; here, inside the repository, by its path.
//
// Workers AI (optional): with an `[ai] binding = "AI"` in wrangler.toml, `memory/extract`
// learns through the model named by the variable AI_MODEL (default: the package's, see
// workersAiComplete) with JSON mode on memdag's answer schema; a bad answer is refused fact
// by fact and the rules learn a batch whose call failed. Compaction stays extractive.
//
// Test hooks, for the test suite only: with the variable FAULT_INJECTION = "on", the header
// `x-memdag-fault: after-add` throws after the turns were added and before the flush,
// `in-commit` (Durable Objects) throws inside the storage transaction after every write was
// issued, and `GET /__test/heap` answers the size of the Worker's wasm memory (to see that
// requests free what they open).
import { PersistentMemory, KeyValueStorage, workersKv, DurableObjectStorage, workersAiComplete } from '../../../pkg/workerd.js';
import { initSync } from '../../../pkg/dist/memdag_wasm.js';

const STATUS = { NOT_FOUND: 404, INVALID_INPUT: 400, UNKNOWN_PARENT: 400, DUPLICATE_ID: 400 };

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function errorResponse(e) {
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL';
  return json({ error: { code, message: String(e?.message ?? e) } }, STATUS[code] ?? 500);
}

/** The host LLM: the Workers AI binding AI when there is one. */
const llm = (env) => (env.AI ? workersAiComplete(env.AI, { model: env.AI_MODEL || undefined }) : undefined);

/** The store key from the MEMDAG_KEY secret (64 hex digits), or undefined when unset. */
function storeKey(env) {
  const hex = env.MEMDAG_KEY?.trim();
  if (!hex) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw Object.assign(new Error('the MEMDAG_KEY secret must be 64 hex digits'), { code: 'INVALID_INPUT' });
  }
  return Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
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

/** The fault to inject, if the deployment allows it. */
const fault = (request, env) => (env.FAULT_INJECTION === 'on' ? request.headers.get('x-memdag-fault') : null);

/** A 32-bit FNV-1a of bytes, as hex: enough to see that a stored value changed. */
function fnv(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const invalid = (message) => Object.assign(new Error(`invalid input: ${message}`), { code: 'INVALID_INPUT' });

/** A query parameter that must be there. */
function need(q, name) {
  const value = q.get(name);
  if (value == null || value === '') throw invalid(`the query parameter ${name} is required`);
  return value;
}

/** The request body as JSON; `empty` when there is none (else a missing body is refused). */
async function body(request, empty) {
  const text = await request.text();
  if (text.trim() === '') {
    if (empty !== undefined) return empty;
    throw invalid('a JSON body is required');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalid(`the body is not JSON: ${e.message}`);
  }
}

/** A whole number from the query, or `fallback`. */
const int = (q, name, fallback) => (q.get(name) == null ? fallback : Number(q.get(name)));

/** The routes: `METHOD path` → async (memory, { q, request, faultName }) => Response. Writes
 * resolve once durable (the PersistentMemory methods flush), or flush at the end. */
const ROUTES = {
  'POST turns': async (memory, { request, faultName }) => {
    const { turns } = await body(request);
    if (!Array.isArray(turns)) throw invalid('turns must be an array');
    // Sync adds, then one flush: all or nothing (`addMany` would flush by itself).
    const records = turns.map((t) => memory.addTurn(t));
    if (faultName === 'after-add') throw new Error('injected failure after adding the turns');
    await memory.flush();
    return json({ added: records.map((r) => r.id), len: memory.len }, 201);
  },
  'GET get': (memory, { q }) => {
    const record = memory.get(need(q, 'id'));
    if (!record) return json({ error: { code: 'NOT_FOUND', message: `no record ${q.get('id')}` } }, 404);
    return json({ ...record, embedding: null });
  },
  'GET ancestors': (memory, { q }) => json({ ids: memory.ancestors(need(q, 'id'), int(q, 'depth', 16), 1000).map((r) => r.id) }),
  'GET recent': (memory, { q }) => json({ ids: memory.recent(need(q, 'thread'), int(q, 'n', 10)).map((r) => r.id) }),
  'GET search': (memory, { q }) => {
    const hits = memory.search({ text: q.get('q') ?? '', mode: q.get('mode') ?? 'hybrid', k: int(q, 'k', 10) });
    return json({ hits: hits.map(({ id, score }) => ({ id, score })) });
  },
  'GET grep': (memory, { q }) => json({ matches: memory.grep({ pattern: need(q, 'pattern'), caseInsensitive: q.get('i') === '1' }) }),
  'POST recall': async (memory, { request }) => {
    const recall = memory.recall(await body(request));
    await memory.flush(); // recall counts uses
    return json(recall);
  },
  'POST compact': async (memory, { q }) => {
    const record = memory.compactExtractive(need(q, 'id'));
    await memory.flush();
    return json({ id: record.id, compact: record.compact });
  },
  'GET tools': (memory, { q }) => json(memory.toolSchemas(q.get('format') ?? 'openai')),
  'POST tool': async (memory, { q, request }) => {
    const user = request.headers.get('x-memdag-user') ?? q.get('user');
    const args = await request.text();
    return json(await memory.callTool(need(q, 'name'), args, { user, thread: q.get('thread') }));
  },
  'POST memory': async (memory, { request }) => json(await memory.addItem(await body(request)), 201),
  'GET memory': (memory, { q }) => json({
    items: memory.listItems({ user: q.get('user'), kinds: q.get('kind') ? [q.get('kind')] : [], all: q.get('all') === '1' }),
  }),
  'GET memory/history': (memory, { q }) => json({ history: memory.itemHistory(need(q, 'id')) }),
  'POST memory/extract': async (memory, { request }) => json(await memory.extract(await body(request))),
  'POST memory/delete': async (memory, { q }) => json(await memory.deleteItem(need(q, 'id'))),
  'GET work': (memory, { q }) => json(memory.workingMemory(need(q, 'thread'), q.get('user') ?? undefined)),
  'POST work': async (memory, { request }) => json(await memory.updateWork(await body(request))),
  'GET timeline': (memory, { q }) => json({ days: memory.timeline({ user: q.get('user'), thread: q.get('thread') }) }),
  'GET graph/neighbors': (memory, { q }) => json(memory.neighbors(need(q, 'entity'), int(q, 'depth', 1), { user: q.get('user') })),
  'GET graph/path': (memory, { q }) => json({ paths: memory.path(need(q, 'from'), need(q, 'to'), int(q, 'depth', 3), { user: q.get('user') }) }),
  'POST purge': async (memory, { request }) => json(await memory.purge(await body(request, {}))),
  'GET stored': async (memory, { q }) => {
    const entries = await memory.storage.loadRange('');
    const find = q.get('find');
    return json({ entries: entries.map(([k, v]) => (find ? [k, v.length, fnv(v), holds(v, find)] : [k, v.length, fnv(v)])) });
  },
};

/** Runs one API call on `memory` (a PersistentMemory); writes are durable when it answers. */
async function handle(memory, request, path, faultName) {
  const route = ROUTES[`${request.method} ${path}`];
  if (!route) {
    const known = Object.keys(ROUTES).some((r) => r.endsWith(` ${path}`));
    return known
      ? json({ error: { code: 'INVALID_INPUT', message: 'method not allowed' } }, 405)
      : json({ error: { code: 'NOT_FOUND', message: `no route ${path}` } }, 404);
  }
  return route(memory, { q: new URL(request.url).searchParams, request, faultName });
}

/** Splits `/kv/<agent>/<path>`. */
function route(url) {
  const [, backend, agent, ...rest] = url.pathname.split('/');
  return { backend, agent: decodeURIComponent(agent ?? ''), path: rest.join('/') };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__test/heap' && env.FAULT_INJECTION === 'on') {
      // `initSync()` answers the instance's exports once the module is initialized.
      return json({ bytes: initSync().memory.buffer.byteLength });
    }
    const { backend, agent, path } = route(url);
    if (!agent || agent.includes('/')) return json({ error: { code: 'INVALID_INPUT', message: 'use /kv/<agent>/... or /do/<agent>/...' } }, 400);
    if (backend === 'do' || (backend === 'kv' && request.method !== 'GET')) {
      // One Durable Object per agent: its memory lives there, next to its only writer. It is
      // also the one writer of the agent's Workers KV store.
      const stub = env.MEMORY.get(env.MEMORY.idFromName(`${backend}:${agent}`));
      return stub.fetch(request);
    }
    if (backend !== 'kv') return json({ error: { code: 'NOT_FOUND', message: `no backend ${backend}` } }, 404);
    return withKvMemory(env, agent, (memory) => handle(memory, request, path, fault(request, env)));
  },
};

/** Opens the agent's Workers KV store, runs `f`, and frees the memory whatever happens. */
async function withKvMemory(env, agent, f) {
  let memory = null;
  try {
    const storage = new KeyValueStorage(workersKv(env.MEM), { prefix: `${agent}/` });
    memory = await PersistentMemory.open({ name: `kv:${agent}`, storage, sync: false, key: storeKey(env), complete: llm(env) });
    return await f(memory);
  } catch (e) {
    return errorResponse(e);
  } finally {
    memory?.free();
  }
}

/** The memory of one agent, kept in this object's storage and cached between requests. */
export class MemoryObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
    this.memory = null;
    this.faultName = null;
  }

  async fetch(request) {
    const { backend, agent, path } = route(new URL(request.url));
    this.faultName = fault(request, this.env);
    if (backend === 'kv') {
      // The single writer of this agent's Workers KV store: requests here run one at a time.
      return withKvMemory(this.env, agent, (memory) => handle(memory, request, path, this.faultName));
    }
    try {
      if (!this.memory) {
        const storage = new DurableObjectStorage(this.ctx.storage, {
          beforeCommit: () => {
            if (this.faultName === 'in-commit') throw new Error('injected failure inside the commit');
          },
        });
        this.memory = await PersistentMemory.open({ name: `do:${agent}`, storage, sync: false, key: storeKey(this.env), complete: llm(this.env) });
      }
      return await handle(this.memory, request, path, this.faultName);
    } catch (e) {
      // The cached memory may hold changes that were never written: drop it, so the next
      // request starts again from what storage holds.
      this.memory?.free();
      this.memory = null;
      return errorResponse(e);
    }
  }
}
