// The context pipeline routes: one call before a turn (prepare), one after (finish), and a cut
// tool result read back by line (blob). They run the package's PersistentMemory.prepare,
// finish and readBlob, with the memory's `complete` as the LLM that folds older messages into
// the thread's running summary (Workers AI when the binding AI is set; without one the rules
// summarise). Each keeps to the request's user (see http.js `userOf`): their running summary,
// their recall, and only the blobs stored for them or referenced by a record they may see.
//
//   POST prepare   body: { messages, thread, window, threshold?, keepTokens?, summaryTokens?,
//                  recallTokens?, toolLimits?, recall?, now? }: the messages to keep, the
//                  summary, the recall block, the blobs cut out, token counts and timings
//   POST finish    body: { turn, cite?, learn?, dropUnknownParents? }: writes the turn with
//                  the [id]s its output cites as parents and learns from it; { record, cited,
//                  dropped, learned }
//   GET  blob?id=ID[&from=LINE][&lines=N]   lines of a blob: { id, text, fromLine, lines,
//                  totalLines, nextLine }; pages read one after another give the exact text
//   GET  summary?thread=T   the thread's running summary, or 404
import { failure, int, invalid, json, need, object, own } from './http.js';

export const contextRoutes = {
  'POST prepare': async (memory, { request, user }) => {
    const { messages, ...options } = own(await object(request), user, 'prepare');
    if (!Array.isArray(messages)) throw invalid('messages must be an array');
    return json(await memory.prepare(messages, options));
  },
  'POST finish': async (memory, { request, user }) => {
    const { turn, ...options } = await object(request);
    if (turn === null || typeof turn !== 'object' || Array.isArray(turn)) throw invalid('turn must be an object (a NewTurn)');
    const finished = await memory.finish(own(turn, user, 'the turn'), options);
    return json({ ...finished, record: { ...finished.record, embedding: null } }, 201);
  },
  'GET blob': (memory, { q, user }) =>
    json(memory.readBlob(need(q, 'id'), { fromLine: int(q, 'from', 1), lines: int(q, 'lines', 200), user })),
  'GET summary': (memory, { q, user }) => {
    const summary = memory.runningSummary(need(q, 'thread'), user);
    if (!summary) throw failure('NOT_FOUND', `no running summary of thread ${q.get('thread')}${user === undefined ? '' : ` for ${user}`}`);
    return json(summary);
  },
};
