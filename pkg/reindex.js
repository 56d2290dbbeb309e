// Reindexing for PersistentMemory: every turn embedded again, so a memory can move to another
// embedding model and dimension. `m` is the memory's side (see pipeline.js): `core()`,
// `embedder`, `journal(op, args, replay)` and `durable(entries, value)`.
import { memdagError } from './errors.js';

/** A stand-in vector for the listing pass of a reindex, whose vectors are never used. */
const FILLER = new Float32Array([1]);

/** Reindexes `core` synchronously with vectors looked up by embedding text: all or nothing. */
function reindexFrom(core, byText) {
  core.reindexBegin();
  for (;;) {
    const texts = core.reindexBatch(4096);
    if (texts.length === 0) break;
    core.reindexSupply(texts.map((t) => {
      const v = byText.get(t);
      if (v == null) throw memdagError('INVALID_INPUT', 'invalid input: reindex: a turn was added while it ran; run it again');
      return v;
    }));
  }
  return core.reindexFinish();
}

/** Embeds every turn again (see `PersistentMemory.reindex` in index.d.ts). */
export async function reindex(m, { batchSize = 64, onProgress } = {}) {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw memdagError('INVALID_INPUT', 'invalid input: batchSize must be a positive integer');
  }
  if (onProgress != null && typeof onProgress !== 'function') {
    throw memdagError('INVALID_INPUT', 'invalid input: onProgress must be a function');
  }
  if (!m.embedder) {
    const done = m.core().reindexBuiltin();
    onProgress?.({ phase: 'indexing', done: done.records, total: done.records });
    return m.durable([m.journal('reindex', [], (core) => core.reindexBuiltin())], done);
  }
  // The vectors are fetched by text first (awaiting the host), then applied in one
  // synchronous pass, so no other call can slip in between the swap's steps. Turns added
  // while the host embeds are embedded in a further round.
  const byText = new Map();
  for (let round = 0; round < 3; round++) {
    const job = m.core().reindexBegin();
    const missing = [];
    for (;;) {
      const texts = m.core().reindexBatch(4096);
      if (texts.length === 0) break;
      for (const t of texts) if (!byText.has(t)) missing.push(t);
      m.core().reindexSupply(texts.map((t) => byText.get(t) ?? FILLER));
    }
    if (missing.length === 0) break;
    let done = job.total - missing.length;
    for (let i = 0; i < missing.length; i += batchSize) {
      const texts = missing.slice(i, i + batchSize);
      const vectors = await m.embedder.many(texts);
      texts.forEach((t, k) => byText.set(t, vectors[k]));
      done += texts.length;
      onProgress?.({ phase: 'embedding', done, total: job.total });
    }
  }
  const done = reindexFrom(m.core(), byText);
  onProgress?.({ phase: 'indexing', done: done.records, total: done.records });
  return m.durable([m.journal('reindex', [], (core) => reindexFrom(core, byText))], done);
}
