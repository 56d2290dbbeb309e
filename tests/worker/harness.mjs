// examples/cloudflare-worker on real workerd through miniflare, for the test files that call
// it as a user would: `start()` runs the Worker (KV namespace MEM, Durable Object MEMORY) and
// answers helpers that send a request as a user (the header x-memdag-user) over HTTP and read
// the answer.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

import { bundle, capMemory } from './bundle.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const entry = join(root, 'examples/cloudflare-worker/src/worker.js');

/** The Worker's options for miniflare; `extra` adds bindings and such. */
export const workerOptions = (extra = {}) => ({
  modules: bundle(entry),
  modulesRoot: root,
  compatibilityDate: '2025-01-01',
  kvNamespaces: ['MEM'],
  durableObjects: { MEMORY: 'MemoryObject' },
  ...extra,
});

/** Starts the Worker; `options` go to miniflare (a `workers` list replaces the one Worker). */
export async function start(options = workerOptions()) {
  const mf = new Miniflare(options);
  // Requests go over HTTP to the port miniflare listens on, as a client's would:
  // `dispatchFetch` drops a header whose value is empty, which workerd itself keeps.
  const url = await mf.ready;
  /** `init.user`: the x-memdag-user header (a string, '' included); `init.body`: JSON. */
  const call = async (path, { method = 'GET', user, body, raw, headers = {} } = {}) => {
    const h = { ...headers };
    if (user !== undefined) h['x-memdag-user'] = user;
    let payload = raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const res = await fetch(new URL(path, url), { method, headers: h, body: payload });
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const out = type === 'application/json' ? await res.json() : type === 'application/octet-stream' ? new Uint8Array(await res.arrayBuffer()) : await res.text();
    return { status: res.status, body: out };
  };
  const post = (path, body, init = {}) => call(path, { method: 'POST', body, ...init });
  return { mf, url, call, post };
}

/** The Worker whose entry is `path` on workerd, ready, its KV namespace MEM holding `entries`
 * (`[key, Uint8Array]` pairs) and its wasm memory capped at `limitMib` (0: uncapped; see
 * capMemory). The caller disposes of it. */
export async function kvWorker(path, { entries, limitMib = 0 }) {
  const modules = bundle(path).map((m) => (
    m.type === 'CompiledWasm' && limitMib > 0 ? { ...m, contents: capMemory(m.contents, limitMib * 16) } : m));
  const mf = new Miniflare({ modules, modulesRoot: root, compatibilityDate: '2025-01-01', kvNamespaces: ['MEM'] });
  try {
    await mf.ready;
    const kv = await mf.getKVNamespace('MEM');
    for (const [k, v] of entries) await kv.put(k, v);
  } catch (e) {
    await mf.dispose();
    throw e;
  }
  return mf;
}
