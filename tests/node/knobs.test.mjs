// The ranking knobs of search and the recall knobs, each shown to change what comes back on a
// store built so that it must; and PersistentMemory.setLimits.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';
import { rejection } from './throws.mjs';

const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ids = (hits) => hits.map((h) => h.id);
/** A query with thread context and thread scope off, so only the knob under test moves. */
const plain = (q) => ({ context: 0, threadScope: 0, time: 'off', ...q });

/** Three turns whose two rankings disagree: P leads the text ranking and trails the vector
 * one, Q is second by text (far behind) and first by vector, R matches no word. */
function fusionStore() {
  const mem = new Memory();
  mem.autoEmbed = false;
  mem.addTurn({ id: 'P', thread: 'p', createdAt: T0, input: 'kubernetes kubernetes kubernetes rollout', embedding: [0, 1, 0] });
  mem.addTurn({ id: 'Q', thread: 'q', createdAt: T0, input: 'notes on a kubernetes meeting with many other words about lunch plans and travel and weather', embedding: [1, 0, 0] });
  mem.addTurn({ id: 'R', thread: 'r', createdAt: T0, input: 'lunch menu for friday', embedding: [0.8, 0.6, 0] });
  return mem;
}

test('vectorWeight, fusion rrf and rrfK: weighted fusion follows the weight, RRF sums 1/(k + rank)', () => {
  const mem = fusionStore();
  const q = plain({ text: 'kubernetes rollout', embedding: [1, 0, 0] });
  // The two rankings on their own.
  assert.deepEqual(ids(mem.search({ ...q, mode: 'bm25' })), ['P', 'Q']);
  assert.deepEqual(ids(mem.search({ ...q, mode: 'vector' })), ['Q', 'R', 'P']);
  // Weighted fusion: the weight decides.
  assert.deepEqual(ids(mem.search({ ...q, vectorWeight: 0 })).slice(0, 2), ['P', 'Q']);
  assert.deepEqual(ids(mem.search({ ...q, vectorWeight: 1 })).slice(0, 2), ['Q', 'R']);
  const textLed = mem.search({ ...q, vectorWeight: 0.2 });
  assert.equal(textLed[0].id, 'P', 'weighted at 0.2: P, far ahead by text, leads');
  // RRF ranks by positions only: Q (2nd, 1st) beats P (1st, 3rd), whatever the margins.
  const rrf = mem.search({ ...q, fusion: 'rrf', rrfK: 1, vectorWeight: 0.2 });
  assert.deepEqual(ids(rrf), ['Q', 'P', 'R']);
  const expected = { P: 1 / (1 + 1) + 1 / (1 + 3), Q: 1 / (1 + 2) + 1 / (1 + 1), R: 1 / (1 + 2) };
  for (const h of rrf) assert.ok(Math.abs(h.score - expected[h.id]) < 1e-6, `${h.id}: ${h.score} vs ${expected[h.id]}`);
  // rrfK is the k of the formula.
  const k60 = mem.search({ ...q, fusion: 'rrf', rrfK: 60 });
  const q60 = k60.find((h) => h.id === 'Q').score;
  assert.ok(Math.abs(q60 - (1 / 62 + 1 / 61)) < 1e-6, String(q60));
  assert.throws(() => mem.search({ ...q, fusion: 'rrf', rrfK: -1 }), { code: 'INVALID_INPUT' });
});

test('context and threadScope lend a record its thread\'s scores', () => {
  const mem = new Memory();
  mem.addTurn({ id: 'ask', thread: 'a', createdAt: T0, input: 'I went to a support group yesterday' });
  mem.addTurn({ id: 'reply', thread: 'a', createdAt: T0 + 1, input: 'Yes, it was great!' });
  mem.addTurn({ id: 'X1', thread: 'x', createdAt: T0, input: 'rollout rollout rollout canary canary canary' });
  mem.addTurn({ id: 'X2', thread: 'x', createdAt: T0 + HOUR * 5, input: 'a rollout note written down with several other words in it today' });
  mem.addTurn({ id: 'Y1', thread: 'y', createdAt: T0, input: 'canary notes' });
  // context: the reply matches no word; with context it borrows from the turn before it.
  const support = plain({ text: 'support group', mode: 'bm25' });
  assert.deepEqual(ids(mem.search(support)), ['ask']);
  const borrowed = mem.search({ ...support, context: 0.5 });
  assert.deepEqual(ids(borrowed), ['ask', 'reply']);
  assert.ok(Math.abs(borrowed[1].score - 0.5 * borrowed[0].score) < 1e-4, 'half its neighbour\'s score');
  // threadScope: X2 gains a share of X1's score, the best of its thread, and passes Y1.
  const rollout = plain({ text: 'rollout canary', mode: 'bm25' });
  const alone = ids(mem.search(rollout));
  assert.ok(alone.indexOf('Y1') < alone.indexOf('X2'), alone.join());
  const scoped = ids(mem.search({ ...rollout, threadScope: 1 }));
  assert.ok(scoped.indexOf('X2') < scoped.indexOf('Y1'), scoped.join());
});

test('dropStopwords, bm25 parameters and minScore change the text ranking', () => {
  const mem = new Memory();
  mem.addTurn({ id: 'W', thread: 'w', createdAt: T0, input: 'what is this thing' });
  mem.addTurn({ id: 'K', thread: 'k', createdAt: T0, input: 'kubernetes' });
  mem.addTurn({ id: 'L', thread: 'l', createdAt: T0, input: `kubernetes kubernetes ${'filler words about nothing much '.repeat(12)}` });
  // dropStopwords: "what is" are function words; kept, they match W.
  const question = plain({ text: 'what is kubernetes', mode: 'bm25' });
  assert.ok(!ids(mem.search(question)).includes('W'));
  assert.ok(ids(mem.search({ ...question, dropStopwords: false })).includes('W'));
  // bm25: full length normalization favours the short K; none (b = 0) favours L's two hits.
  const kube = plain({ text: 'kubernetes', mode: 'bm25' });
  assert.deepEqual(ids(mem.search({ ...kube, bm25: { k1: 1.2, b: 1 } })), ['K', 'L']);
  assert.deepEqual(ids(mem.search({ ...kube, bm25: { k1: 1.2, b: 0 } })), ['L', 'K']);
  // minScore: drops hits under it.
  const both = mem.search(kube);
  const cut = (both[0].score + both[1].score) / 2;
  const above = mem.search({ ...kube, minScore: cut });
  assert.deepEqual(ids(above), [both[0].id]);
  assert.ok(above.every((h) => h.score >= cut));
});

test('importanceWeight, recencyWeight and halfLifeMs reorder search hits', () => {
  const mem = new Memory();
  const now = T0 + 100 * DAY;
  // O is old and unimportant but matches a little better; N is new and important.
  mem.addTurn({ id: 'O', thread: 'o', createdAt: T0, importance: 0.1, input: 'deploy deploy checklist' });
  mem.addTurn({ id: 'N', thread: 'n', createdAt: now, importance: 0.9, input: 'deploy checklist for the team' });
  const q = plain({ text: 'deploy checklist', mode: 'bm25', now });
  assert.deepEqual(ids(mem.search(q)), ['O', 'N'], 'off by default');
  assert.deepEqual(ids(mem.search({ ...q, importanceWeight: 1 })), ['N', 'O']);
  assert.deepEqual(ids(mem.search({ ...q, recencyWeight: 1, halfLifeMs: DAY })), ['N', 'O']);
  // A half-life far longer than O's age leaves recency nearly even: O leads again.
  assert.deepEqual(ids(mem.search({ ...q, recencyWeight: 1, halfLifeMs: 1000 * 365 * DAY })), ['O', 'N']);
});

test('recall knobs: halfLifeMs, weights, matchUserOnly, itemTokens, rawItemTokens, ancestorDepth', () => {
  const mem = new Memory();
  const now = T0 + 10 * DAY;
  // A chain of ancestors in another thread, under the newest turn of the thread recalled.
  const a1 = mem.addTurn({ id: 'a1', thread: 'old', createdAt: T0, input: 'first step' }).id;
  const a2 = mem.addTurn({ id: 'a2', thread: 'old', createdAt: T0 + 1, input: 'second step', parents: [a1] }).id;
  const a3 = mem.addTurn({ id: 'a3', thread: 'old', createdAt: T0 + 2, input: 'third step', parents: [a2] }).id;
  mem.addTurn({ id: 'old-turn', thread: 'main', createdAt: T0, importance: 0.8, input: 'an old question about invoices' });
  mem.addTurn({
    id: 'tool-turn', thread: 'main', createdAt: now - DAY, input: 'check the build',
    steps: [{ tool: 'build', args: '{}', result: 'compiled 40 modules\n'.repeat(20), ok: true }],
  });
  mem.addTurn({ id: 'long', thread: 'main', createdAt: now - HOUR, input: 'a long note '.repeat(200) });
  mem.addTurn({ id: 'new', thread: 'main', createdAt: now, input: 'the newest turn', parents: [a3] });
  mem.addTurn({ id: 'bob', thread: 'elsewhere', user: 'bob', createdAt: now, input: 'invoices for the quarter are late' });
  const base = { thread: 'main', now, budgetTokens: 4000 };
  const item = (r, id) => r.items.find((i) => i.id === id);
  // halfLifeMs: a short one ages the ten-day-old turn away.
  const long = item(mem.recallView({ ...base, halfLifeMs: 365 * DAY }), 'old-turn').score;
  const short = item(mem.recallView({ ...base, halfLifeMs: HOUR }), 'old-turn').score;
  assert.ok(short < long, `${short} < ${long}`);
  // weights: importance alone makes a thread turn's score its importance.
  const byImportance = mem.recallView({ ...base, weights: { recency: 0, access: 0, relevance: 0, importance: 1 } });
  assert.ok(Math.abs(item(byImportance, 'old-turn').score - 0.8) < 1e-6);
  // matchUserOnly: ana's recall matches only her records unless it is turned off.
  const ana = { thread: 'other', user: 'ana', now, queryText: 'invoices quarter' };
  mem.addTurn({ id: 'ana-1', thread: 'other', user: 'ana', createdAt: now, input: 'hello' });
  assert.ok(!ids(mem.recallView(ana).items).includes('bob'));
  assert.ok(ids(mem.recallView({ ...ana, matchUserOnly: false }).items).includes('bob'));
  // itemTokens: the cap of one item's short form.
  const wide = item(mem.recallView(base), 'long').tokens;
  const narrow = item(mem.recallView({ ...base, itemTokens: 40 }), 'long').tokens;
  assert.ok(narrow < wide && narrow <= 60, `${narrow} < ${wide}`);
  // rawItemTokens: 0 never shows a tool log.
  assert.equal(item(mem.recallView(base), 'tool-turn').raw, true);
  assert.equal(item(mem.recallView({ ...base, rawItemTokens: 0 }), 'tool-turn').raw, false);
  // ancestorDepth: how far the walk from the thread's turns goes.
  const ancestors = (r) => r.items.filter((i) => i.section === 'ancestor').map((i) => i.id);
  assert.deepEqual(ancestors(mem.recallView({ ...base, ancestorDepth: 1 })), [a3]);
  assert.deepEqual(ancestors(mem.recallView({ ...base, ancestorDepth: 3 })), [a3, a2, a1]);
});

test('PersistentMemory.setLimits checks new turns and is kept across a reopen', async () => {
  const memory = await Memory.open({ storage: new MemoryStorage() });
  await memory.add({ thread: 't', input: 'two tags', tags: ['a', 'b'] });
  memory.setLimits({ maxTags: 1 });
  assert.equal(memory.limits.maxTags, 1);
  assert.equal((await rejection(memory.add({ thread: 't', input: 'again', tags: ['a', 'b'] }))).code, 'INVALID_INPUT');
  await memory.reopen();
  assert.equal(memory.limits.maxTags, 1, 'a reopened core takes the limits again');
  assert.equal((await rejection(memory.add({ thread: 't', input: 'again', tags: ['a', 'b'] }))).code, 'INVALID_INPUT');
  await memory.add({ thread: 't', input: 'one tag', tags: ['a'] });
  assert.throws(() => memory.setLimits({ maxTagz: 2 }), { code: 'INVALID_INPUT' });
  assert.equal(memory.len, 2);
  memory.free();
});
