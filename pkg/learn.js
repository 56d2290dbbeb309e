// Learning long-term memory items through the host's LLM: the asynchronous side of the core's
// contract (crates/memdag-core/src/memory/llm/), for PersistentMemory.extract and finish.
//
//   1. llmBatches(query)                       one thread's new turns each, capped by tokens
//   2. llmPrompt(batch)                         the instructions, the known items, the turns
//   3. complete(prompt, { schema })             the host's model (schema: llmSchema())
//   4. learnLlm(index, batch, prompt, answer)   fact by fact; the caller writes and journals it
//
// Batches run one after another, so each prompt shows what the ones before it learned. A call
// that throws or answers no string is handed to the core as `{ error }`: the rules learn that
// batch, and the report says so (`refused`, `byRules`). Nothing a model answers can throw past
// the core's checks: a bad fact is refused alone, with a stable code.
import { llmSchema } from './dist/memdag_wasm.js';

let schema = null;

/** The JSON Schema of an answer (computed once). */
export function answerSchema() {
  schema ??= llmSchema();
  return schema;
}

/** The model's answer to `prompt` (with `options`, e.g. `{ schema }`): its text, or `{ error }`
 * when the call threw, rejected or answered something other than a string. The core takes
 * either form (`learnLlm`, `prepareEnd`), so a failed call never throws past it. */
export async function askModel(complete, prompt, options) {
  try {
    const answer = await (options === undefined ? complete(prompt) : complete(prompt, options));
    if (typeof answer === 'string') return answer;
    return { error: `complete returned ${answer === null ? 'null' : typeof answer}, not a string` };
  } catch (e) {
    return { error: `complete: ${e?.message ?? e}` };
  }
}

/** The model's answer to an extraction prompt, asked with the answer's JSON Schema. */
export function ask(complete, prompt) {
  return askModel(complete, prompt, { schema: answerSchema() });
}

/** Learns from the turns `query` names through the host's LLM, batch after batch, on the memory
 * `m` (see pipeline.js: `core()`, `complete`, `journal`). Each batch is applied and journaled
 * as it is learned; returns the merged report and the journal entries, for the caller to wait
 * on their durability. */
export async function learnThrough(m, query) {
  const batches = m.core().llmBatches(query);
  const reports = [];
  const entries = [];
  for (const [i, batch] of batches.entries()) {
    const prompt = m.core().llmPrompt(batch);
    const answer = await ask(m.complete, prompt);
    reports.push(m.core().learnLlm(i, batch, prompt, answer));
    entries.push(m.journal('learnLlm', [i, batch, prompt, answer], (core) => core.learnLlm(i, batch, prompt, answer)));
  }
  return { report: mergeReports(reports), entries };
}

/** The reports of a pass's batches as one. */
export function mergeReports(reports) {
  const out = { turns: 0, learned: [], retracted: [], refused: [], byRules: [] };
  let llm = null;
  for (const r of reports) {
    out.turns += r.turns;
    out.learned.push(...r.learned);
    out.retracted.push(...r.retracted);
    out.refused.push(...(r.refused ?? []));
    out.byRules.push(...(r.byRules ?? []));
    if (r.llm) {
      llm ??= { calls: 0, promptTokens: 0, answerTokens: 0 };
      llm.calls += r.llm.calls;
      llm.promptTokens += r.llm.promptTokens;
      llm.answerTokens += r.llm.answerTokens;
    }
  }
  if (llm) out.llm = llm;
  return out;
}
