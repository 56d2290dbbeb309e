// Learning long-term memory items through the host's LLM: the asynchronous driver of the
// core's steps (see crates/memdag-core/src/memory/extract.rs), for PersistentMemory.extract.
//
//   1. extractionPrompts(query)              one prompt per kind
//   2. complete(prompt) -> parseExtraction   every answer parsed before anything is written
//   3. itemCandidates(proposal)              the active items each proposal may touch
//   4. complete(judgePrompt) -> parseJudgement
//   5. learn(proposals, judged)              the caller writes, in one synchronous step
//
// Steps 1 to 4 only read, so a malformed answer (a `HOST` error from the core) or a failing
// host call (a `HOST` error from host.js) rejects with nothing written. The LLM calls of a step
// run concurrently. `core()` is asked for the live core at each step: a rebase may swap it
// while the host is awaited.
import { completeChecked } from './host.js';

/** The proposals of an LLM extraction and the LLM's judgements of their candidates. */
export async function llmExtraction(core, complete, query) {
  const prompts = core().extractionPrompts(query);
  const answers = await Promise.all(prompts.map((p) => completeChecked(complete, p.prompt)));
  const proposals = prompts.flatMap((p, i) => core().parseExtraction(query, p.kind, answers[i]));
  const judged = await Promise.all(proposals.map(async (proposal) => {
    const candidates = core().itemCandidates(proposal);
    const verdicts = await Promise.all(candidates.map((c) => completeChecked(complete, core().judgePrompt(proposal, c))));
    return candidates.map((c, i) => core().parseJudgement(c.id, verdicts[i]));
  }));
  return { proposals, judged };
}
