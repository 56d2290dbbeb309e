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
// Routes under each prefix:
//   POST turns                     {"turns": [NewTurn, ...]}: adds them in order (a turn may
//                                  name earlier ones as parents), all or nothing; 201
//   GET  get?id=ID                 one record
//   GET  ancestors?id=ID[&depth=N] ancestor ids, nearest first
//   GET  recent?thread=T[&n=N]     newest records of a thread
//   GET  search?q=TEXT[&mode=bm25|vector|hybrid][&k=N]
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
// Fault injection, for the test suite only: with the variable FAULT_INJECTION = "on", the
// header `x-memdag-fault: after-add` throws after the turns were added and before the flush,
// and `in-commit` (Durable Objects) throws inside the storage transaction after every write
// was issued.
//
// The package is imported through its Workers entry (workerd.js, the `workerd` export
// condition that wrangler resolves for `import ... from 'memdag'`), which instantiates the
// wasm from a CompiledWasm import; here, inside the repository, by its path.
import { PersistentMemory, KeyValueStorage, workersKv, DurableObjectStorage } from '../../../pkg/workerd.js';

const STATUS = { NOT_FOUND: 404, INVALID_INPUT: 400, UNKNOWN_PARENT: 400, DUPLICATE_ID: 400 };

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function errorResponse(e) {
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL';
  return json({ error: { code, message: String(e?.message ?? e) } }, STATUS[code] ?? 500);
}

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

/** Runs one API call on `memory` (a PersistentMemory) and flushes its writes. */
async function handle(memory, request, path, faultName) {
  const url = new URL(request.url);
  const q = url.searchParams;
  if (request.method === 'POST' && path === 'turns') {
    const { turns } = await request.json();
    if (!Array.isArray(turns)) return json({ error: { code: 'INVALID_INPUT', message: 'turns must be an array' } }, 400);
    // Sync adds, then one flush: all or nothing (`addMany` would flush by itself).
    const records = turns.map((t) => memory.addTurn(t));
    if (faultName === 'after-add') throw new Error('injected failure after adding the turns');
    await memory.flush();
    return json({ added: records.map((r) => r.id), len: memory.len }, 201);
  }
  if (request.method !== 'GET') return json({ error: { code: 'INVALID_INPUT', message: 'method not allowed' } }, 405);
  switch (path) {
    case 'get': {
      const record = memory.get(q.get('id') ?? '');
      if (!record) return json({ error: { code: 'NOT_FOUND', message: `no record ${q.get('id')}` } }, 404);
      return json({ ...record, embedding: null });
    }
    case 'ancestors':
      return json({ ids: memory.ancestors(q.get('id') ?? '', Number(q.get('depth') ?? 16), 1000).map((r) => r.id) });
    case 'recent':
      return json({ ids: memory.recent(q.get('thread') ?? '', Number(q.get('n') ?? 10)).map((r) => r.id) });
    case 'search': {
      const hits = memory.search({ text: q.get('q') ?? '', mode: q.get('mode') ?? 'hybrid', k: Number(q.get('k') ?? 10) });
      return json({ hits: hits.map(({ id, score }) => ({ id, score })) });
    }
    case 'stored': {
      const entries = await memory.storage.loadRange('');
      const find = q.get('find');
      return json({ entries: entries.map(([k, v]) => (find ? [k, v.length, fnv(v), holds(v, find)] : [k, v.length, fnv(v)])) });
    }
    default:
      return json({ error: { code: 'NOT_FOUND', message: `no route ${path}` } }, 404);
  }
}

/** Splits `/kv/<agent>/<path>`. */
function route(url) {
  const [, backend, agent, ...rest] = url.pathname.split('/');
  return { backend, agent: decodeURIComponent(agent ?? ''), path: rest.join('/') };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
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
    memory = await PersistentMemory.open({ name: `kv:${agent}`, storage, sync: false, key: storeKey(env) });
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
        this.memory = await PersistentMemory.open({ name: `do:${agent}`, storage, sync: false, key: storeKey(this.env) });
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
