// The Worker that tests/bench/worker-128mb.mjs runs on workerd: it opens the memory its KV
// namespace MEM holds (through the package's Workers entry and KeyValueStorage, as
// examples/cloudflare-worker does), keeps it open between requests, and answers one search a
// request, so that the script can time each from outside (inside a Worker the clock stands still
// while code runs). Routes:
//   GET  /ping     nothing: the round trip alone
//   POST /open     opens the memory (freeing any open one); its size and the wasm memory
//   POST /search   body: a search query (JSON); the number of hits and the first id
//   GET  /memory   the wasm memory's size in bytes (it only grows: the peak so far)
//   GET  /fresh    a new memory in the same wasm instance: one turn added and found (an
//                  instance an abort killed fails every call)
import { Memory, PersistentMemory, KeyValueStorage, workersKv } from '../../pkg/workerd.js';
import { initSync } from '../../pkg/dist/memdag_wasm.js';

let memory = null;

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Bytes of the instance's wasm memory (`initSync()` answers its exports once initialized). */
const wasmBytes = () => initSync().memory.buffer.byteLength;

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    try {
      if (pathname === '/ping') return json({});
      if (pathname === '/memory') return json({ wasmBytes: wasmBytes() });
      if (pathname === '/fresh') {
        const fresh = new Memory();
        try {
          fresh.addTurn({ id: 'fresh-1', thread: 't', input: 'a lighthouse keeper logs the fog' });
          return json({ first: fresh.search({ text: 'lighthouse', mode: 'bm25', k: 1 })[0]?.id ?? null });
        } finally {
          fresh.free();
        }
      }
      if (pathname === '/open') {
        memory?.free();
        memory = null;
        const storage = new KeyValueStorage(workersKv(env.MEM));
        memory = await PersistentMemory.open({ name: 'bench', storage, sync: false });
        return json({ len: memory.len, dimension: memory.dimension, vectorSettings: memory.vectorSettings, wasmBytes: wasmBytes() });
      }
      if (pathname === '/search') {
        const query = await request.json();
        if (query.embedding) query.embedding = new Float32Array(query.embedding);
        const hits = memory.search(query);
        return json({ hits: hits.length, first: hits[0]?.id ?? null });
      }
      return json({ error: { code: 'NOT_FOUND', message: pathname } }, 404);
    } catch (e) {
      return json({ error: { code: e?.code ?? 'INTERNAL', message: String(e?.message ?? e) }, wasmBytes: wasmBytes() }, 500);
    }
  },
};
