// The parts of the package an agent loop leans on, each with real assertions: grep, recall and
// its access counts (recallView does not count), recallAsync through the host's embedder,
// token counts, checkContext, cutting tool results into blobs (the blob methods, and
// PersistentMemory's journaled form), LLM compaction (prompt, answer, a malformed answer),
// thread and user listings, the built-in embedder switch, and workersKv over a paged KV.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  KeyValueStorage,
  Memory,
  MemoryStorage,
  checkContext,
  compactToolResult,
  countTokens,
  recallMatchText,
  tokensExact,
  workersKv,
} from '../../pkg/index.js';

const T0 = Date.UTC(2024, 4, 1);
const HOUR = 3_600_000;

const thrown = (fn) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
};

function memory() {
  const mem = new Memory();
  mem.addTurn({ id: 'a', thread: 'ops', user: 'ada', createdAt: T0, input: 'the deploy failed', output: 'Timeout after 30s in «stage» 3',
    steps: [{ tool: 'deploy', args: { env: 'prod' }, result: 'ERROR timeout\nretry later', ok: false }] });
  mem.addTurn({ id: 'b', thread: 'ops', user: 'ada', createdAt: T0 + HOUR, input: 'retry with 90s', output: 'it worked', parents: ['a'] });
  mem.addTurn({ id: 'c', thread: 'chat', user: 'bob', createdAt: T0 + 2 * HOUR, input: 'lunch?', output: 'a timeout from work, then yes' });
  return mem;
}

test('grep: fields, case, UTF-16 offsets, filters and a cap', () => {
  const mem = memory();
  const all = mem.grep({ pattern: 'timeout', caseInsensitive: true });
  assert.deepEqual(all.map((m) => [m.id, m.field, m.line]).sort(), [
    ['a', 'output', 1], ['a', 'steps[0].result', 1], ['c', 'output', 1],
  ].sort());
  const [out] = mem.grep({ pattern: 'stage» (\\d)', fields: ['output'] });
  const text = mem.get('a').output;
  assert.equal(text.slice(out.start, out.end), 'stage» 3', 'offsets are UTF-16 into the field');
  assert.equal(out.text, 'stage» 3', 'the matched text');
  assert.deepEqual(mem.grep({ pattern: 'retry \\w+', fields: ['results'] }).map((m) => [m.id, m.line, m.text]), [['a', 2, 'retry later']]);
  assert.deepEqual(mem.grep({ pattern: '"env"', fields: ['args'] }).map((m) => m.field), ['steps[0].args']);
  assert.deepEqual(mem.grep({ pattern: 'Timeout' }).map((m) => [m.id, m.field]), [['a', 'output']], 'case-sensitive by default');
  assert.deepEqual(mem.grep({ pattern: '(?i)timeout', filter: { user: 'ada' } }).map((m) => m.id), ['a', 'a']);
  assert.equal(mem.grep({ pattern: '.', maxMatches: 2 }).length, 2);
  assert.equal(thrown(() => mem.grep({ pattern: '(' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.grep({ pattern: 'x', field: ['input'] })).code, 'INVALID_INPUT', 'a misspelt property');
});

test('grep: the package leaves out Unicode property classes, says so, and a range does instead', () => {
  const mem = memory();
  mem.addTurn({ id: 'zh', thread: 'ops', user: 'ada', createdAt: T0 + 3 * HOUR, input: '部署失败了', output: '' });
  const refused = thrown(() => mem.grep({ pattern: '\\p{Han}+' }));
  assert.equal(refused.code, 'INVALID_INPUT');
  assert.match(refused.message, /grep-unicode-properties/, refused.message);
  assert.deepEqual(mem.grep({ pattern: '[\\x{4e00}-\\x{9fff}]+' }).map((m) => [m.id, m.text]), [['zh', '部署失败了']]);
  assert.deepEqual(mem.grep({ pattern: '(?i)\\w+了$' }).map((m) => m.id), ['zh'], '\\w stays Unicode-aware');
});

test('recall counts accesses, recallView does not; the block cites ids and keeps to its budget', () => {
  const mem = memory();
  const query = { thread: 'ops', user: 'ada', queryText: 'deploy timeout', budgetTokens: 400, now: T0 + 3 * HOUR };
  const view = mem.recallView(query);
  assert.equal(mem.accessCount('a'), 0, 'a view counts nothing');
  const r = mem.recall(query);
  assert.deepEqual(r.items.map((i) => i.id), view.items.map((i) => i.id));
  assert.equal(r.block, view.block);
  assert.ok(r.items.some((i) => i.id === 'a' && i.section === 'thread'));
  assert.ok(r.items.every((i) => i.id !== 'c'), "bob's turn is not ada's");
  for (const i of r.items) assert.ok(r.block.includes(`[${i.id}]`), `the block shows [${i.id}]`);
  assert.match(r.block, /^# Memory recall · thread ops · user ada \(cite the \[id\]s you use\)/);
  assert.ok(r.tokens <= 400 && r.tokens === countTokens(r.block), `${r.tokens} tokens, counted as countTokens does`);
  assert.equal(mem.accessCount('a'), 1);
  mem.recall(query);
  assert.equal(mem.accessCount('a'), 2);
  assert.equal(mem.accessCount('nope'), 0);
  const small = mem.recall({ ...query, budgetTokens: 60 });
  assert.ok(small.tokens <= 60 && small.omitted > 0, `${small.tokens} tokens, ${small.omitted} omitted`);
  assert.equal(thrown(() => mem.recall({ thread: 'ops', budget: 10 })).code, 'INVALID_INPUT', 'a misspelt property');
});

test('recallAsync embeds the match text with the host and finds by vector', async () => {
  const texts = [];
  // A toy embedder: a vector per topic word.
  const embed = async (batch) => {
    texts.push(...batch);
    return batch.map((t) => (/cat|kitten/.test(t) ? [1, 0, 0] : /car|engine/.test(t) ? [0, 1, 0] : [0, 0, 1]));
  };
  const mem = await Memory.open({ name: 'recall-async', storage: new MemoryStorage(), embed, sync: false });
  await mem.add({ id: 'pet', thread: 'old', user: 'ada', createdAt: T0, input: 'my kitten sleeps all day' });
  await mem.add({ id: 'auto', thread: 'old', user: 'ada', createdAt: T0, input: 'the engine makes a noise' });
  texts.length = 0;
  const query = { thread: 'new', user: 'ada', keywords: ['cat'], queryText: 'feline friend', now: T0 + HOUR, matchLimit: 1 };
  const r = await mem.recallAsync(query);
  assert.deepEqual(texts, [recallMatchText(query).trim()], 'the match text, embedded once');
  assert.equal(recallMatchText(query), 'cat feline friend');
  const matched = r.items.filter((i) => i.section === 'match').map((i) => i.id);
  assert.deepEqual(matched, ['pet'], 'no shared word: found by the vector');
  assert.deepEqual(mem.recall({ ...query }).items.filter((i) => i.section === 'match'), [], 'the sync form has no vector to match');
  const counted = mem.accessCount('pet');
  assert.ok(counted >= 1, 'recall counted what it returned');
  assert.deepEqual(mem.recallView({ ...query, embedding: [1, 0, 0] }).items.filter((i) => i.section === 'match').map((i) => i.id), ['pet']);
  assert.equal(mem.accessCount('pet'), counted, 'a view does not count');
  mem.free();
});

test('token counts, and checkContext keeps tool calls with their results', () => {
  assert.equal(typeof countTokens('hello world'), 'number');
  assert.ok(countTokens('hello world') >= 2);
  assert.ok(countTokens('a much longer sentence than the other one') > countTokens('short'));
  assert.ok(countTokens('你好世界', 'o200k_base') >= 2);
  assert.equal(countTokens(''), 0);
  assert.equal(tokensExact(), false, 'this build estimates (no tiktoken feature)');
  assert.equal(tokensExact('o200k_base'), false);
  assert.equal(thrown(() => countTokens('x', 'p50k')).code, 'INVALID_INPUT');

  const messages = [
    { role: 'system', content: 'you are an agent' },
    { role: 'user', content: 'word '.repeat(300) },
    { role: 'assistant', content: '', toolCalls: ['c1'] },
    { role: 'tool', toolCallId: 'c1', content: 'result '.repeat(300) },
    { role: 'assistant', content: 'done' },
    { role: 'user', content: 'next' },
  ];
  const check = checkContext(messages, { threshold: 200, reserve: 20 });
  assert.equal(check.needsCompaction, true);
  assert.equal(check.totalTokens, check.compactTokens + check.keepTokens);
  assert.deepEqual(check.toKeep.map((m) => m.role), ['system', 'assistant', 'user'], 'the system prompt and the newest tail are kept');
  assert.deepEqual(check.toCompact.map((m) => m.role), ['user', 'assistant', 'tool'], 'the call goes with its result');
  assert.equal(check.toCompact[2].toolCallId, 'c1');
  const fits = checkContext(messages);
  assert.equal(fits.needsCompaction, false, 'under the default 100,000-token threshold');
  assert.deepEqual(fits.toCompact, []);
  assert.equal(thrown(() => checkContext([{ role: 'robot', content: 'x' }])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => checkContext('x')).code, 'INVALID_INPUT');
});

test('compactToolResult and compactToolResults cut to a budget and keep the full text as a blob', () => {
  const big = 'line of tool output 12345\n'.repeat(400);
  const cut = compactToolResult(big, 50);
  assert.equal(cut.truncated, true);
  assert.ok(cut.tokens <= 50 && cut.originalTokens > 1000, `${cut.tokens} of ${cut.originalTokens}`);
  assert.equal(cut.full, big);
  assert.match(cut.text, new RegExp(`full text in blob ${cut.blobId}; more from line \\d+\\]$`));
  const small = compactToolResult('ok', 50);
  assert.deepEqual([small.truncated, small.text, small.blobId, small.full], [false, 'ok', null, null]);

  const mem = new Memory();
  const input = [
    { role: 'user', content: 'run it' },
    { role: 'assistant', content: '', toolCalls: ['c1'] },
    { role: 'tool', toolCallId: 'c1', content: big },
  ];
  const out = mem.compactToolResults(input, { recentTokens: 40 });
  assert.equal(input[2].content, big, 'the input is not modified');
  assert.deepEqual(out.blobIds, [cut.blobId], 'the same content-derived id');
  assert.ok(countTokens(out.messages[2].content) <= 40);
  assert.equal(out.messages[2].toolCallId, 'c1');
  assert.deepEqual(out.messages.slice(0, 2), input.slice(0, 2));
  // The blob methods.
  assert.equal(mem.blob(cut.blobId), big);
  assert.deepEqual(mem.blobIds(), [cut.blobId]);
  const id = mem.putBlob('another text');
  assert.equal(mem.putBlob('another text'), id, 'idempotent, content-derived');
  assert.deepEqual(mem.blobIds(), [cut.blobId, id].sort());
  assert.equal(mem.removeBlob(id), true);
  assert.equal(mem.removeBlob(id), false, 'idempotent');
  assert.equal(mem.blob(id), undefined);
  assert.deepEqual(mem.blobIds(), [cut.blobId]);
  assert.equal(thrown(() => mem.putBlob(42)).code, 'INVALID_INPUT');
});

test('PersistentMemory: cut tool results and blob changes are journaled and durable', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: 'blobs', storage, sync: false });
  const out = mem.compactToolResults([{ role: 'tool', toolCallId: 'x', content: 'y '.repeat(5000) }], { recentTokens: 30, oldTokens: 10, recentCount: 1 });
  assert.equal(out.blobIds.length, 1);
  const kept = mem.putBlob('kept text');
  const gone = mem.putBlob('removed text');
  assert.equal(mem.removeBlob(gone), true);
  assert.equal(mem.pending, 4);
  // Another writer flushes first: the journal replays the blobs onto its store.
  const other = await Memory.open({ name: 'blobs', storage, sync: false });
  await other.add({ thread: 't', input: 'other' });
  await mem.flush();
  const durable = Memory.load(storage.map);
  assert.deepEqual(durable.blobIds(), [out.blobIds[0], kept].sort());
  assert.equal(durable.blob(out.blobIds[0]), 'y '.repeat(5000));
  assert.equal(durable.blob(gone), undefined);
  assert.equal(mem.blob(kept), 'kept text');
  assert.equal(durable.len, 1);
  await Promise.all([mem.close(), other.close()]);
});

const ANSWER = ['Summary', 'Goal', 'Constraints', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context']
  .map((s) => `## ${s}\n${s} of the deploy`).join('\n\n');

test('LLM compaction: the prompt holds the turn, the answer becomes its compact node', async () => {
  const mem = memory();
  const prompt = mem.compactionPrompt('a');
  assert.match(prompt, /the deploy failed/);
  assert.match(prompt, /ERROR timeout/);
  assert.match(prompt, /## Summary/);
  const record = mem.applyCompaction('a', ANSWER);
  assert.equal(record.compact.summary, 'Summary of the deploy');
  assert.deepEqual(record.compact.sections.map((s) => s.name), ['Goal', 'Constraints', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context']);
  assert.deepEqual(mem.get('a').compact, record.compact);
  const update = mem.compactionPrompt('a', record.compact);
  assert.match(update, /Summary of the deploy/, 'an update prompt carries the previous note');
  const e = thrown(() => mem.applyCompaction('b', 'no headings at all'));
  assert.equal(e.code, 'HOST');
  assert.equal(mem.get('b').compact, null, 'a malformed answer changes nothing');
  assert.equal(thrown(() => mem.compactionPrompt('ghost')).code, 'NOT_FOUND');

  // PersistentMemory's sync forms, journaled: durable after the next flush.
  const storage = new MemoryStorage();
  const p = await Memory.open({ name: 'compaction', storage, sync: false });
  await p.add({ id: 'x', thread: 't', input: 'migrate the billing tables', createdAt: T0 });
  assert.match(p.compactionPrompt('x'), /migrate the billing tables/);
  p.applyCompaction('x', ANSWER);
  await p.flush();
  assert.equal(Memory.load(storage.map).get('x').compact.summary, 'Summary of the deploy');
  await p.close();
});

test('threads and users: counts and newest activity, newest first', async () => {
  const mem = memory();
  assert.deepEqual(mem.threads(), [
    { name: 'chat', count: 1, newest: T0 + 2 * HOUR },
    { name: 'ops', count: 2, newest: T0 + HOUR },
  ]);
  assert.deepEqual(mem.users(), [
    { name: 'bob', count: 1, newest: T0 + 2 * HOUR },
    { name: 'ada', count: 2, newest: T0 + HOUR },
  ]);
  mem.delete('c');
  assert.deepEqual(mem.threads().map((t) => t.name), ['ops']);
  const p = await Memory.open({ name: 'listings', storage: new MemoryStorage(), sync: false });
  await p.add({ thread: 'one', user: 'kim', createdAt: 5 });
  assert.deepEqual(p.threads(), [{ name: 'one', count: 1, newest: 5 }]);
  assert.deepEqual(p.users(), [{ name: 'kim', count: 1, newest: 5 }]);
  p.free();
});

test('autoEmbed: the built-in embedder gives turns a vector only when on', () => {
  const mem = new Memory();
  assert.equal(mem.autoEmbed, false, 'off on a bare Memory');
  assert.equal(mem.addTurn({ thread: 't', input: 'no vector' }).embedding, null);
  mem.autoEmbed = true;
  assert.equal(mem.autoEmbed, true);
  const r = mem.addTurn({ thread: 't', input: 'a lexical vector please' });
  assert.ok(r.embedding instanceof Float32Array && r.embedding.length > 0);
  assert.equal(mem.dimension, r.embedding.length);
  assert.equal(mem.search({ text: 'lexical vector', mode: 'vector', k: 1 })[0].id, r.id);
});

test('workersKv: a Workers KV namespace as a key-value object, following list cursors', async () => {
  const data = new Map();
  const calls = [];
  // A fake of the Workers KV API: get(key, 'arrayBuffer'), put, delete, list({ prefix, cursor })
  // in pages of two keys.
  const namespace = {
    get: async (key, type) => {
      assert.equal(type, 'arrayBuffer');
      const v = data.get(key);
      return v ? v.buffer.slice(v.byteOffset, v.byteOffset + v.length) : null;
    },
    put: async (key, value) => void data.set(key, new Uint8Array(value)),
    delete: async (key) => void data.delete(key),
    list: async ({ prefix, cursor }) => {
      calls.push(cursor ?? null);
      const keys = [...data.keys()].filter((k) => k.startsWith(prefix)).sort();
      const at = cursor ? Number(cursor) : 0;
      const page = keys.slice(at, at + 2).map((name) => ({ name }));
      const done = at + 2 >= keys.length;
      return { keys: page, list_complete: done, cursor: done ? undefined : String(at + 2) };
    },
  };
  const storage = new KeyValueStorage(workersKv(namespace), { prefix: 'agent/' });
  const mem = await Memory.open({ name: 'workers-kv', storage, sync: false });
  for (let i = 0; i < 4; i++) await mem.add({ thread: 't', input: `turn ${i}`, createdAt: i });
  const entries = await storage.loadRange('');
  assert.ok(entries.length >= 3, `${entries.length} keys`);
  assert.ok(calls.filter((c) => c !== null).length >= 1, 'followed a cursor to the next page');
  assert.ok([...data.keys()].every((k) => k.startsWith('agent/')));
  const again = await Memory.open({ name: 'workers-kv-2', storage: new KeyValueStorage(workersKv(namespace), { prefix: 'agent/' }), sync: false });
  assert.equal(again.len, 4);
  assert.deepEqual(again.recent('t', 1).map((r) => r.input), ['turn 3']);
  await Promise.all([mem.close(), again.close()]);
});
