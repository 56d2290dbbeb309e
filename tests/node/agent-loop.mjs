// A scripted agent for the context pipeline's tests: the messages of each turn (a user request,
// a tool call, an oversized tool output every third turn, a reply) and a scripted LLM that
// answers summary prompts with the six sections, naming the turns it was shown, and extraction
// prompts with no fact. Not a test file itself (node --test runs *.test.mjs).

/** The model's window in tokens of the loop. */
export const WINDOW = 3000;

/** The output of the tool call of turn `turn`: 400 numbered lines every third turn, else 12. */
export function toolOutput(turn) {
  const lines = turn % 3 === 0 ? 400 : 12;
  return Array.from({ length: lines }, (_, i) => `turn ${turn} line ${i}: build step ok, artifact /srv/app/build-${turn}-${i}.tar\n`).join('');
}

/** The messages of one turn: the user's request, the assistant's tool call, its result, the
 * reply. */
export function turnMessages(turn) {
  const call = `call-${turn}`;
  return [
    { role: 'user', content: `Turn ${turn}: please deploy service ${turn} to staging; never touch prod.` },
    { role: 'assistant', content: `Running the deploy script for service ${turn}.`, toolCalls: [call] },
    { role: 'tool', toolCallId: call, content: toolOutput(turn) },
    { role: 'assistant', content: `Service ${turn} is deployed; we decided to keep the canary at 5%.` },
  ];
}

/** A scripted `complete`: summary prompts (asked without a schema) are recorded in `prompts`
 * and answered after `delayMs` with the six sections; extraction prompts (asked with the
 * answer's schema) get no fact. */
export function scriptedLlm({ delayMs = 0 } = {}) {
  const prompts = [];
  const complete = async (prompt, options) => {
    if (options?.schema) return '{"facts": []}';
    prompts.push(prompt);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const turns = [...prompt.matchAll(/Turn (\d+):/g)].map((m) => m[1]);
    return [
      '## Summary', 'Deploying services to staging.',
      '## Goal', 'Deploy services to staging.',
      '## Constraints', 'Never touch prod.',
      '## Progress', `Deployed turns ${[...new Set(turns)].join(', ')}.`,
      '## Key Decisions', 'Canary at 5%.',
      '## Next Steps', 'None',
      '## Critical Context', '/srv/app',
    ].join('\n');
  };
  return { complete, prompts };
}

/** The line a truncation marker says to read on from, and its blob id; `null` for a whole
 * message. */
export function marker(content) {
  const m = /\[memdag: truncated, \d+ of \d+ tokens shown; full text in blob (b[0-9a-f]+); more from line (\d+)\]$/.exec(content);
  return m ? { id: m[1], line: Number(m[2]) } : null;
}

/**
 * Runs `turns` turns of the agent through `memory.prepare` and `memory.finish` (awaited, so a
 * sync `Memory` runs too), calling `onTurn({ turn, prepared, finished, held, sent })` after
 * each: `sent` is what prepare was given. The agent keeps what prepare kept, adds its tool loop
 * and reply, and writes the turn citing the previous one; turn 5 also names a parent that does
 * not exist. `now(turn)` dates each turn.
 */
export async function runLoop(memory, { turns = 30, user = 'ana', thread = 'deploy', now, onTurn }) {
  let held = [{ role: 'system', content: 'You deploy services.' }];
  let last = null;
  for (let turn = 1; turn <= turns; turn++) {
    const [request, ...rest] = turnMessages(turn);
    const sent = [...held, request];
    const prepared = await memory.prepare(sent, {
      thread, user, window: WINDOW, now: now(turn), recall: { queryText: request.content },
    });
    held = [...prepared.messages, ...rest];
    const cites = last ? ` (as in [${last}])` : '';
    const finished = await memory.finish({
      thread, user, createdAt: now(turn),
      input: request.content,
      output: `Service ${turn} deployed${cites}`,
      parents: turn === 5 ? ['t-typo'] : [],
    });
    last = finished.record.id;
    await onTurn?.({ turn, prepared, finished, held, sent });
  }
}
