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
//   GET  descendants?id=ID[&depth=N]   descendant ids, nearest first
//   GET  recent?thread=T[&n=N]     newest records of a thread
//   GET  threads, GET users        the listings: {name, count, newest}, newest first
//   GET  search?q=TEXT[&mode=bm25|vector|hybrid][&k=N]
//   GET  grep?pattern=P[&i=1]      regular-expression matches over the raw logs
//   POST recall                    body: a RecallQuery; the recall (block, items, tokens)
//   POST compact?id=ID             compacts a turn with the extractive compactor
//   POST delete?id=ID              deletes a record (its children take over its parents)
//   POST forget-user               erases the user's turns, blobs and working memory
//   GET  export[?format=jsonl|markdown|snapshot], POST import[?format=...]   (transfer.js)
//   GET  tools?format=openai|anthropic|mcp   the tool definitions for a model request
//   POST tool?name=NAME            body: the tool's arguments (JSON); its JSON answer, with
//                                  the request's user as the context user (never the
//                                  model's); ?thread= is recall's default thread
//   POST memory                    body: a NewItem; adds it (dedup, conflicts); 201
//   GET  memory[?kind=K][&all=1]   items, newest first
//   GET  memory/history?id=ID      every version of an item
//   POST memory/extract            body: {"thread"} or {"ids"}; learns items by the rules, or
//                                  through Workers AI when the binding AI is set (one call
//                                  per thread's batch of turns; the report counts them)
//   POST memory/update?id=ID       body: an ItemUpdate
//   POST memory/delete?id=ID       deletes an item softly
//   GET  work?thread=T             the user's working memory of the thread (no user's
//                                  without one: working memory is per user and thread)
//   POST work                      body: a WorkUpdate (set, push, pop, patch, remove)
//   GET  timeline[?thread=T]       turns and items by day
//   GET  graph/neighbors?entity=E[&depth=N], GET graph/path?from=A&to=B[&depth=N]
//   POST purge                     body (optional): a PurgeQuery; removes expired items for
//                                  good, leaving no stored byte of them (store-wide)
//   GET  stored[?find=TEXT]        every stored key with its size and a hash (for checking),
//                                  and whether its value holds the bytes of TEXT (store-wide)
//   the context pipeline: POST prepare, POST finish, GET blob (context.js)
//
// The user. Every route acts for the user of the header x-memdag-user (else ?user=): reads
// show only that user's records and those tagged `shared`, writes take that user and change
// only that user's records (routes.js). A blank name is INVALID_INPUT, never "every user";
// with no user at all a route is store-wide. The HTTP API trusts that header: put it behind
// the agent's backend (a service binding, Cloudflare Access), which knows who the user is.
//
// MCP: POST /mcp serves the tools over MCP's Streamable HTTP transport (mcp.js) to the user a
// bearer token signed with the secret MCP_SECRET names (auth.js); each user's memory is the
// Durable Object /do/<user>/ addresses: one Durable Object per user.
//
// Encryption at rest: with the secret MEMDAG_KEY (64 hex digits, `npx wrangler secret put
// MEMDAG_KEY`, e.g. from `openssl rand -hex 32`) every stored value, in KV and in Durable
// Objects, is sealed with it (AES-256-GCM through workerd's WebCrypto, bound to its key; see
// the package's seal.js and memdag-core's `cipher`).
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
import { drain, errorResponse, invalid, json, userOf } from './http.js';
import { ROUTES } from './routes.js';
import { authenticate, configured } from './auth.js';
import { serveMcp } from './mcp.js';

/** The host LLM: the Workers AI binding AI when there is one. */
const llm = (env) => (env.AI ? workersAiComplete(env.AI, { model: env.AI_MODEL || undefined }) : undefined);

/** The store key from the MEMDAG_KEY secret (64 hex digits), or undefined when unset. */
function storeKey(env) {
  const hex = env.MEMDAG_KEY?.trim();
  if (!hex) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw invalid('the MEMDAG_KEY secret must be 64 hex digits');
  return Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16));
}

/** The fault to inject, if the deployment allows it. */
const fault = (request, env) => (env.FAULT_INJECTION === 'on' ? request.headers.get('x-memdag-fault') : null);

/** Runs one API call on `memory` (a PersistentMemory); writes are durable when it answers. */
async function handle(memory, request, path, faultName) {
  const route = ROUTES[`${request.method} ${path}`];
  if (!route) {
    const known = Object.keys(ROUTES).some((r) => r.endsWith(` ${path}`));
    return known
      ? json({ error: { code: 'INVALID_INPUT', message: 'method not allowed' } }, 405)
      : json({ error: { code: 'NOT_FOUND', message: `no route ${path}` } }, 404);
  }
  const q = new URL(request.url).searchParams;
  try {
    return await route(memory, { q, request, user: userOf(request, q), faultName });
  } finally {
    await drain(request); // what the route left unread: it failed first, or needed none
  }
}

/** Splits `/kv/<agent>/<path>`. */
function route(url) {
  const [, backend, agent, ...rest] = url.pathname.split('/');
  return { backend, agent: decodeURIComponent(agent ?? ''), path: rest.join('/') };
}

/** Why an MCP request is refused (401, or 503 without a secret), or null when it may go on. */
function refused(env, user) {
  if (!configured(env)) return json({ error: { code: 'HOST', message: 'MCP is off: set the secret MCP_SECRET (32 characters or more)' } }, 503);
  if (user === null) {
    return new Response(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'MCP needs Authorization: Bearer <token signed with MCP_SECRET>' } }), {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="memdag"' },
    });
  }
  return null;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__test/heap' && env.FAULT_INJECTION === 'on') {
      // `initSync()` answers the instance's exports once the module is initialized.
      return json({ bytes: initSync().memory.buffer.byteLength });
    }
    if (url.pathname === '/mcp') {
      // Checked here, before any Durable Object wakes, and again in the object (which the
      // /do/<user>/mcp route reaches too).
      const user = configured(env) ? await authenticate(request, env) : null;
      const no = refused(env, user);
      if (no) {
        await drain(request);
        return no;
      }
      const stub = env.MEMORY.get(env.MEMORY.idFromName(`do:${user}`));
      return stub.fetch(new Request(`https://memdag.internal/do/${encodeURIComponent(user)}/mcp`, request));
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

/** The memory of one agent (or, for MCP, one user), kept in this object's storage and cached
 * between requests. */
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
    let mcpUser;
    if (path === 'mcp') {
      // Only the user the token names reaches their object's MCP endpoint.
      const user = configured(this.env) ? await authenticate(request, this.env) : null;
      const no = refused(this.env, user === agent ? user : null);
      if (no) {
        await drain(request);
        return no;
      }
      mcpUser = user;
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
      if (mcpUser !== undefined) return await serveMcp(request, this.memory, mcpUser);
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
