// Learning long-term memory items through the host's LLM: the asynchronous side of the core's
// contract (crates/memdag-core/src/memory/llm/), for PersistentMemory.extract.
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

/** The model's answer to `prompt`: its text, or `{ error }` when the call failed. */
export async function ask(complete, prompt) {
  try {
    const answer = await complete(prompt, { schema: answerSchema() });
    if (typeof answer === 'string') return answer;
    return { error: `complete returned ${answer === null ? 'null' : typeof answer}, not a string` };
  } catch (e) {
    return { error: `complete: ${e?.message ?? e}` };
  }
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
