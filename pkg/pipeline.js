// The context pipeline of PersistentMemory: one call before a turn (`prepare`) and one after
// (`finish`), with the host's LLM and embedder, resolving once what they wrote is durable.
//
// The core's halves do the work (crates/memdag-wasm/src/pipeline.rs): `prepareBegin` cuts
// oversized tool results into blobs and builds the summary prompt, the host's `complete`
// answers it, and `prepareEnd` folds the answer into the thread's running summary (the rules
// when there is no LLM, or when it throws, rejects or answers no string: `llmError` says why)
// and recalls. Each half is journaled as soon as it ran, so a rebase while the LLM is awaited
// (another tab flushed) replays the first half on the reloaded store before the second runs.
//
// `m` is the memory's side a pipeline needs, from PersistentMemory: `core()` (the current
// core, read after every await: a rebase swaps it), `embedder`, `complete`,
// `journal(op, args, replay)` and `durable(entries, value)`.
import { turnText } from './host.js';
import { askModel, learnThrough } from './learn.js';

/** See `PersistentMemory.prepare` in index.d.ts. */
export async function prepare(m, messages, options) {
  const stage = m.core().prepareBegin(messages, options);
  // The stage's options carry the `now` the first half used, so a replay stores the same blobs.
  const pinned = stage.options;
  const entries = [m.journal('prepareBegin', [messages, pinned], (core) => core.prepareBegin(messages, pinned))];
  let answer = null;
  if (stage.prompt != null && m.complete) answer = await askModel(m.complete, stage.prompt);
  const prepared = m.core().prepareEnd(stage, answer);
  entries.push(m.journal('prepareEnd', [stage, answer], (core) => core.prepareEnd(stage, answer)));
  return m.durable(entries, prepared);
}

/** See `PersistentMemory.finish` in index.d.ts. */
export async function finish(m, turn, options) {
  let t = turn;
  if (m.embedder && t != null && typeof t === 'object' && t.embedding == null) {
    t = { ...t, embedding: await m.embedder.one(turnText(t)) };
  }
  // With an LLM, the core writes the turn without learning, and the LLM learns from it as
  // `extract` would; without one, the core's rules learn in the same call.
  const viaLlm = Boolean((options?.learn ?? true) && m.complete);
  const opts = viaLlm ? { ...options, learn: false } : options;
  const finished = m.core().finish(t, opts);
  const { record } = finished;
  // A replay after a rebase adds the same record: its id and time pinned, as `add` does.
  const pinned = { ...t, id: record.id, createdAt: record.createdAt };
  const entries = [m.journal('finish', [pinned, opts], (core) => core.finish(pinned, opts))];
  if (viaLlm) {
    const learned = await learnThrough(m, { ids: [record.id] });
    entries.push(...learned.entries);
    finished.learned = learned.report;
  }
  return m.durable(entries, finished);
}
