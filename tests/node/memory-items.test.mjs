// Long-term memory items in the built package: dedup and conflicts with history, versions and
// soft deletes, the settings, learning from turns by the rules (English and Chinese) and
// through a scripted LLM, the known section of recall, and persistence through MemoryStorage.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage, llmSchema, parseDuration } from '../../pkg/index.js';
import { thrown, rejection } from './throws.mjs';

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 4, 1);

let n = 0;
const open = (storage, options = {}) => Memory.open({ name: `items-${process.pid}-${n++}`, storage, sync: false, ...options });

test('a contradiction supersedes the old item and keeps its history', () => {
  const mem = new Memory();
  const berlin = mem.addItem({ kind: 'personal', user: 'ada', text: 'Lives in Berlin', relation: 'residence', object: 'Berlin', createdAt: T0, importance: 0.7 });
  assert.equal(berlin.outcome, 'added');
  assert.equal(berlin.item.importance, 0.7, 'importance reads back in its decimal form');
  assert.equal(berlin.item.status, 'active');
  const paris = mem.addItem({ kind: 'personal', user: 'ada', text: 'Lives in Paris', relation: 'residence', object: 'Paris', createdAt: T0 + DAY });
  assert.equal(paris.outcome, 'superseded');
  assert.deepEqual(paris.others, [berlin.item.id]);
  assert.deepEqual(paris.item.supersedes, [berlin.item.id]);
  const old = mem.getItem(berlin.item.id);
  assert.equal(old.status, 'superseded');
  assert.equal(old.supersededBy, paris.item.id);
  assert.equal(old.validUntil, T0 + DAY);
  const history = mem.itemHistory(paris.item.id);
  assert.deepEqual(history.map((h) => [h.id, h.text, h.status]), [
    [berlin.item.id, 'Lives in Berlin', 'superseded'],
    [paris.item.id, 'Lives in Paris', 'active'],
  ]);
  assert.deepEqual(mem.listItems().map((i) => i.text), ['Lives in Paris'], 'listings hold active items by default');
  assert.equal(mem.listItems({ all: true }).length, 2);
  assert.deepEqual(mem.listItems({ statuses: ['superseded'] }).map((i) => i.id), [berlin.item.id]);
  assert.deepEqual(mem.listItems({ asOf: T0 + 1 }).map((i) => i.text), ['Lives in Berlin'], 'as it was then');
  const log = mem.resolutions({ item: berlin.item.id });
  assert.deepEqual(log.map((r) => r.action), ['superseded', 'added'], 'newest first');
  assert.equal(log[0].other, paris.item.id);
  assert.ok(mem.resolutions({ user: 'ada', actions: ['added'] }).every((r) => r.action === 'added'));
  const hits = mem.search({ text: 'lives', mode: 'bm25', now: T0 + 2 * DAY, filter: { scope: 'items' } });
  assert.deepEqual(hits.map((h) => [h.id, h.kind]), [[paris.item.id, 'personal']], 'the superseded item left search');
});

test('a near-duplicate corroborates instead of adding', () => {
  const mem = new Memory();
  const t1 = mem.addTurn({ thread: 't', user: 'ada', input: 'dark mode please', createdAt: T0 });
  const t2 = mem.addTurn({ thread: 't', user: 'ada', input: 'again, dark mode', createdAt: T0 + DAY });
  const first = mem.addItem({ kind: 'personal', user: 'ada', text: 'Prefers dark mode in the editor', sources: [t1.id], createdAt: T0 });
  const again = mem.addItem({ kind: 'personal', user: 'ada', text: 'prefers dark mode in the editor!', sources: [t2.id], createdAt: T0 + DAY, importance: 0.9 });
  assert.equal(again.outcome, 'corroborated');
  assert.deepEqual(again.others, [first.item.id]);
  assert.equal(again.item.id, first.item.id);
  assert.equal(again.item.corroborations, 1);
  assert.equal(again.item.lastSeen, T0 + DAY);
  assert.deepEqual(again.item.sources.sort(), [t1.id, t2.id].sort(), 'the new source is added');
  assert.equal(again.item.importance, 0.9, 'importance is the larger');
  assert.equal(mem.listItems().length, 1);
  assert.deepEqual(mem.children(t2.id), [first.item.id], 'a turn\'s descendants show what was learned from it');
});

test('updates make versions, deletes are soft, and input is checked', () => {
  const mem = new Memory();
  const before = Date.now();
  const added = mem.addItem({ kind: 'tool', user: 'ada', text: 'curl needs -L for redirects', tool: 'curl', ttl: '30d' });
  const item = added.item;
  assert.ok(item.createdAt >= before && item.createdAt <= Date.now(), 'createdAt defaults to the host clock');
  assert.equal(item.expiresAt - item.createdAt, 30 * DAY, 'ttl as a duration');
  assert.equal(parseDuration('30d'), 30 * DAY);
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(thrown(() => parseDuration('soon')).code, 'INVALID_INPUT');
  const v2 = mem.updateItem(item.id, { text: 'curl needs -L to follow redirects', at: item.createdAt + 1000, ttlMs: 0 });
  assert.equal(v2.version, 2);
  assert.equal(v2.expiresAt, undefined, 'ttlMs 0 removes the expiry');
  assert.deepEqual(v2.history.map((h) => h.text), ['curl needs -L for redirects']);
  assert.equal(mem.updateItem(item.id, { importance: 0.3 }).version, 3, 'at defaults to now');
  const deleted = mem.deleteItem(item.id, item.createdAt + 5000);
  assert.equal(deleted.status, 'deleted');
  assert.equal(deleted.validUntil, item.createdAt + 5000);
  assert.equal(mem.deleteItem(item.id).status, 'deleted', 'idempotent');
  assert.deepEqual(mem.listItems(), []);
  assert.equal(mem.search({ text: 'curl redirects', mode: 'bm25', filter: { scope: 'items' } }).length, 0);
  assert.equal(mem.getItem(item.id).status, 'deleted', 'kept with its history');
  assert.equal(mem.getItem(item.id, 'bob'), undefined, 'another user cannot see it');
  assert.equal(mem.getItem(item.id, 'ada').id, item.id);
  assert.equal(mem.getItem('ghost'), undefined);

  assert.equal(thrown(() => mem.addItem({ user: 'ada', text: 'no kind' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addItem({ kind: 'personal', text: '' })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addItem({ kind: 'personal', text: 'x', source: ['t'] })).code, 'INVALID_INPUT', 'unknown property');
  assert.equal(thrown(() => mem.addItem({ kind: 'personal', text: 'x', ttl: '1d', ttlMs: 5 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.addItem({ kind: 'mood', text: 'x' })).code, 'INVALID_INPUT');
  const unknown = thrown(() => mem.addItem({ kind: 'personal', text: 'x', sources: ['ghost'] }));
  assert.equal(unknown.code, 'UNKNOWN_PARENT');
  assert.deepEqual(unknown.ids, ['ghost']);
  assert.equal(thrown(() => mem.updateItem('ghost', { text: 'x' })).code, 'NOT_FOUND');
  assert.equal(thrown(() => mem.deleteItem('ghost')).code, 'NOT_FOUND');
  assert.equal(thrown(() => mem.itemHistory('ghost')).code, 'NOT_FOUND');
  assert.equal(thrown(() => mem.deleteItem(item.id, 1.5)).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.listItems({ limit: 0 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.listItems({ sort: 'x' })).code, 'INVALID_INPUT');
});

test('the memory settings change the conflict strategy and persist', () => {
  const mem = new Memory();
  assert.equal(mem.memoryConfig.conflict, 'newest');
  assert.ok(mem.memoryConfig.singleValued.includes('residence'));
  mem.setMemoryConfig({ conflict: 'keep', ttlMs: { tool: 7 * DAY }, aliases: { nyc: 'new york' } });
  assert.equal(mem.memoryConfig.conflict, 'keep');
  assert.deepEqual(mem.memoryConfig.ttlMs, { tool: 7 * DAY });
  assert.equal(mem.memoryConfig.dedupCosine, 0.92, 'names left out take their defaults');
  const a = mem.addItem({ kind: 'personal', user: 'u', text: 'Works at Acme', relation: 'employer', object: 'Acme', createdAt: T0 });
  const b = mem.addItem({ kind: 'personal', user: 'u', text: 'Works at Initech', relation: 'employer', object: 'Initech', createdAt: T0 + 1 });
  assert.equal(b.outcome, 'flagged');
  assert.deepEqual(mem.getItem(a.item.id).conflicts, [b.item.id]);
  assert.equal(mem.listItems().length, 2, 'both stay active');
  const tool = mem.addItem({ kind: 'tool', user: 'u', text: 'jq needs -r for raw strings', createdAt: T0 });
  assert.equal(tool.item.expiresAt, T0 + 7 * DAY, 'the kind\'s time to live');
  assert.equal(thrown(() => mem.setMemoryConfig({ dedupCosine: 2 })).code, 'INVALID_INPUT');
  assert.equal(thrown(() => mem.setMemoryConfig({ conflicts: 'keep' })).code, 'INVALID_INPUT');
  const again = Memory.load(mem.takeChanges());
  assert.equal(again.memoryConfig.conflict, 'keep', 'stored with the memory');
  assert.equal(again.listItems({ all: true }).length, 3);
});

test('the rules learn from English and Chinese turns', () => {
  const mem = new Memory();
  mem.addTurn({ id: 'e1', thread: 'en', user: 'ada', createdAt: T0, input: 'I am allergic to peanuts. I prefer dark mode in every editor.' });
  mem.addTurn({ id: 'e2', thread: 'en', user: 'ada', createdAt: T0 + DAY, input: 'What is the capital of France?' });
  const proposed = mem.proposeItems({ thread: 'en' });
  assert.deepEqual(proposed.map((p) => [p.relation, p.object, p.sources]), [
    ['allergy', 'peanuts', ['e1']],
    ['likes', 'dark mode in every editor', ['e1']],
  ]);
  assert.equal(mem.listItems().length, 0, 'proposing writes nothing');
  const dry = new Memory();
  dry.addTurn({ id: 'e1', thread: 'en', user: 'ada', createdAt: T0, input: 'I am allergic to peanuts.' });
  const taught = dry.learn(dry.proposeItems({ ids: ['e1'] }));
  assert.deepEqual(taught.learned.map((l) => [l.outcome, l.item.relation]), [['added', 'allergy']], 'learn takes the proposals as they came');
  assert.equal(dry.learn(dry.proposeItems({ ids: ['e1'] }), []).learned[0].outcome, 'corroborated');
  assert.equal(thrown(() => dry.learn('x')).code, 'INVALID_INPUT');
  assert.equal(thrown(() => dry.learn([{ text: 'no kind' }])).code, 'INVALID_INPUT');
  dry.free();
  const en = mem.extract({ thread: 'en' });
  assert.equal(en.turns, 2);
  assert.deepEqual(en.learned.map((l) => [l.outcome, l.item.text]), [
    ['added', 'Ada is allergic to peanuts'],
    ['added', 'Ada prefers dark mode in every editor'],
  ]);
  assert.ok(en.learned.every((l) => l.item.kind === 'personal' && l.item.user === 'ada' && l.item.createdAt === T0));

  mem.addTurn({ id: 'z1', thread: 'zh', user: 'wang', createdAt: T0, input: '我叫王磊，住在上海，是做产品经理的' });
  mem.addTurn({ id: 'z2', thread: 'zh', user: 'wang', createdAt: T0 + DAY, input: '我搬到北京了' });
  const zh = mem.extract({ thread: 'zh' });
  assert.deepEqual(zh.learned.map((l) => [l.outcome, l.item.relation, l.item.object]), [
    ['added', 'name', '王磊'],
    ['added', 'residence', '上海'],
    ['added', 'job', '产品经理'],
    ['superseded', 'residence', '北京'],
  ]);
  assert.deepEqual(mem.listItems({ user: 'wang', kinds: ['personal'] }).map((i) => i.object).sort(), ['北京', '王磊', '产品经理'].sort());
  assert.equal(thrown(() => mem.extract({})).code, 'INVALID_INPUT', 'a query naming nothing');
  assert.equal(thrown(() => mem.extract({ ids: ['ghost'] })).code, 'NOT_FOUND');
});

/** A scripted model: answers each prompt with `answer(prompt, shownItems)`, and keeps the calls. */
function scripted(answer) {
  const calls = [];
  return {
    calls,
    complete: async (prompt, options) => {
      calls.push({ prompt, options });
      const known = [...prompt.matchAll(/^- (\S+) \([^)]*\): (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
      return answer(prompt, known);
    },
  };
}

test('extraction through a scripted LLM: add, supersede, update and none, with history', async () => {
  const storage = new MemoryStorage();
  const llm = scripted((prompt, known) => {
    const id = (word) => known.find((k) => k.text.includes(word))?.id;
    if (prompt.includes('[t1]')) {
      return JSON.stringify({ facts: [
        { op: 'add', source: 't1', text: 'Ada lives in Berlin', relation: 'residence', object: 'Berlin', confidence: 0.9 },
        { op: 'add', source: 't1', text: 'Ada plays the oboe' },
        { op: 'add', source: 't1', text: 'Ada has a cat' },
      ] });
    }
    return '```json\n' + JSON.stringify({ facts: [
      { op: 'supersede', item: id('Berlin'), source: 't2', text: 'Ada lives in Paris', relation: 'residence', object: 'Paris' },
      { op: 'update', item: id('oboe'), source: 't2', text: 'Ada plays the oboe in an orchestra' },
      { op: 'none', item: id('cat'), source: 't2' },
    ] }) + '\n```';
  });
  const mem = await open(storage, { complete: llm.complete });
  await mem.add({ id: 't1', thread: 'a', user: 'ada', createdAt: T0, input: 'I live in Berlin, play the oboe and have a cat' });
  const first = await mem.extract({ thread: 'a' });
  assert.equal(llm.calls.length, 1, 'one call for the thread');
  assert.deepEqual(llm.calls[0].options.schema.required, ['facts'], 'the schema is handed to the model');
  assert.deepEqual(first.learned.map((l) => l.outcome), ['added', 'added', 'added']);
  assert.equal(first.learned[0].item.confidence, 0.9);
  assert.equal(first.llm.calls, 1);
  assert.ok(first.llm.promptTokens > 500, 'tokens are counted');

  await mem.add({ id: 't2', thread: 'b', user: 'ada', createdAt: T0 + DAY, input: 'We moved to Paris; I joined an orchestra; the cat is fine' });
  const report = await mem.extract({ thread: 'b' });
  assert.match(llm.calls[1].prompt, /Ada lives in Berlin/, 'the known items are in the prompt');
  assert.deepEqual(report.learned.map((l) => l.outcome), ['superseded', 'updated', 'corroborated']);
  assert.deepEqual(report.refused, []);
  assert.equal(mem.pending, 0, 'durable when it resolves');
  const reader = await open(storage);
  assert.deepEqual(reader.listItems({ user: 'ada' }).map((i) => i.text).sort(), ['Ada has a cat', 'Ada lives in Paris', 'Ada plays the oboe in an orchestra']);
  assert.equal(reader.getItem(first.learned[0].item.id).status, 'superseded');
  assert.deepEqual(reader.itemHistory(report.learned[1].item.id).map((h) => h.text), ['Ada plays the oboe', 'Ada plays the oboe in an orchestra']);
  reader.free();

  // The same steps by hand on the core: what PersistentMemory.extract does.
  const batches = mem.llmBatches({ ids: ['t1', 't2'] });
  assert.deepEqual(batches.map((b) => b.turns), [['t1'], ['t2']], 'one batch per thread');
  const prompt = mem.llmPrompt(batches[1]);
  assert.match(prompt, /\[t2\] Ada, 2 May 2024: We moved to Paris/);
  assert.equal(thrown(() => mem.llmPrompt({ turns: ['ghost'] })).code, 'NOT_FOUND');
  const byHand = await mem.learnLlm(1, batches[1], prompt, JSON.stringify({ facts: [{ op: 'add', source: 't2', text: 'Ada likes rainy days' }] }));
  assert.deepEqual(byHand.learned.map((l) => l.item.text), ['Ada likes rainy days']);
  assert.equal((await rejection(mem.learnLlm(0, batches[0], prompt, 42))).code, 'INVALID_INPUT');
  assert.equal(llmSchema().properties.facts.items.properties.op.enum.length, 4);
  // A host's own proposals, judged by its model, learn through the same dedup.
  const proposal = { kind: 'personal', user: 'ada', text: 'Ada likes rainy days', sources: ['t2'], createdAt: T0 + DAY };
  const candidates = mem.itemCandidates(proposal);
  const rainy = candidates.find((c) => c.text === 'Ada likes rainy days');
  assert.ok(rainy, 'the item it may touch is a candidate');
  const again = await mem.learn([proposal], [candidates.map((c) => ({ item: c.id, verdict: c === rainy ? 'same' : 'unrelated' }))]);
  assert.equal(again.learned[0].outcome, 'corroborated');
  assert.deepEqual(again.learned[0].item.sources, ['t2']);
  await mem.close();
});

test('bad LLM output is refused fact by fact, a failed call has the rules learn, nothing breaks', async () => {
  const storage = new MemoryStorage();
  const llm = scripted(() => JSON.stringify({ facts: [
    { op: 'add', source: 't1', text: 'Ada lives in Oslo' },
    { op: 'add', source: 't9', text: 'a turn not shown' },
    { op: 'merge', source: 't1', text: 'x' },
    { op: 'update', item: 'm-ghost', source: 't1', text: 'x' },
    { op: 'add', source: 't1', text: '' },
    { op: 'add', source: 't1', text: 'x', confidence: 7 },
    { op: 'add', source: 't1', text: 'x', colour: 'red' },
    { op: 'add', source: 't1', speaker: 'Zed', text: 'x' },
  ] }));
  const mem = await open(storage, { complete: llm.complete });
  await mem.add({ id: 't1', thread: 't', user: 'ada', createdAt: T0, input: 'I live in Oslo' });
  const report = await mem.extract({ thread: 't' });
  assert.deepEqual(report.learned.map((l) => l.item.text), ['Ada lives in Oslo']);
  assert.deepEqual(report.refused.map((r) => [r.fact, r.code]), [
    [1, 'UNKNOWN_SOURCE'], [2, 'UNKNOWN_OP'], [3, 'UNKNOWN_ITEM'], [4, 'EMPTY_TEXT'], [5, 'BAD_CONFIDENCE'], [6, 'BAD_FACT'],
    [7, 'UNKNOWN_SPEAKER'],
  ]);
  assert.deepEqual(report.byRules, []);

  for (const complete of [async () => 'Sure! Ada lives in Oslo.', async () => { throw new Error('rate limited'); }, async () => 42]) {
    const m = await open(new MemoryStorage(), { complete });
    await m.add({ id: 't1', thread: 't', user: 'ada', createdAt: T0, input: 'I live in Paris' });
    const r = await m.extract({ ids: ['t1'] });
    assert.equal(r.refused.length, 1);
    assert.equal(r.refused[0].fact, undefined, 'the whole answer');
    assert.equal(r.refused[0].code, 'NOT_JSON');
    assert.deepEqual(r.byRules, ['t1']);
    assert.deepEqual(r.learned.map((l) => l.item.text), ['Lives in Paris'], 'as the rules learn it');
    m.free();
  }

  // Without complete, extract uses the rules.
  const rules = await open(new MemoryStorage());
  await rules.add({ id: 't1', thread: 't', user: 'ada', input: 'I live in Paris', createdAt: T0 });
  const plain = await rules.extract({ ids: ['t1'] });
  assert.deepEqual(plain.learned.map((l) => l.item.text), ['Lives in Paris']);
  assert.equal(plain.llm, undefined);
  rules.free();
  mem.free();
});

test('items, their versions and the settings survive a reload through MemoryStorage', async () => {
  const storage = new MemoryStorage();
  const mem = await open(storage);
  await mem.add({ id: 't1', thread: 't', user: 'ada', createdAt: T0, input: 'I live in Berlin. I love hiking.' });
  const report = await mem.extract({ ids: ['t1'] });
  assert.equal(report.learned.length, 2);
  const { item } = await mem.addItem({ kind: 'fact', user: 'ada', text: 'Acme is in Oslo', subject: 'Acme', relation: 'located_in', object: 'Oslo', createdAt: T0 });
  const updated = await mem.updateItem(item.id, { text: 'Acme is based in Oslo', at: T0 + DAY });
  assert.equal(updated.version, 2);
  const hiking = report.learned[1].item;
  assert.equal((await mem.deleteItem(hiking.id, T0 + DAY)).status, 'deleted');
  await mem.setMemoryConfig({ conflict: 'keep' });
  assert.equal(mem.pending, 0);
  await mem.close();

  const again = await open(storage);
  assert.equal(again.memoryConfig.conflict, 'keep');
  assert.equal(again.getItem(item.id).text, 'Acme is based in Oslo');
  assert.deepEqual(again.itemHistory(item.id).map((h) => h.version), [1, 2]);
  assert.equal(again.getItem(hiking.id).status, 'deleted');
  assert.deepEqual(again.listItems({ user: 'ada' }).map((i) => i.text).sort(), ['Acme is based in Oslo', 'Lives in Berlin']);
  assert.ok(again.resolutions({ user: 'ada' }).length >= 4);
  assert.deepEqual(again.users(), [{ name: 'ada', count: 4, newest: T0 }], 'users count turns and items');
  again.free();
});

test('two tabs adding items: the rebase replays each with its id', async () => {
  const storage = new MemoryStorage();
  const name = `items-tabs-${process.pid}`;
  const a = await Memory.open({ name, storage, sync: false });
  const b = await Memory.open({ name, storage, sync: false });
  const [x, y] = await Promise.all([
    a.addItem({ kind: 'personal', user: 'ada', text: 'Drinks tea, not coffee' }),
    b.addItem({ kind: 'procedural', user: 'ada', text: 'Run the migrations before deploying', task: 'deploy' }),
  ]);
  const c = await Memory.open({ name, storage, sync: false });
  assert.equal(c.getItem(x.item.id).text, 'Drinks tea, not coffee');
  assert.equal(c.getItem(y.item.id).text, 'Run the migrations before deploying', 'the rebased item kept its id');
  assert.equal(c.getItem(y.item.id).createdAt, y.item.createdAt, 'and its time');
  for (const m of [a, b, c]) m.free();
});

test("recall's known section holds the user's items, within the budget", () => {
  const mem = new Memory();
  mem.addTurn({ id: 'e1', thread: 'en', user: 'ada', createdAt: T0, input: 'I am allergic to peanuts. I prefer dark mode in every editor.' });
  for (let i = 0; i < 10; i++) mem.addTurn({ thread: 'other', user: 'ada', createdAt: T0 + i, input: `filler turn ${i} about nothing much at all` });
  mem.extract({ ids: ['e1'] });
  mem.addItem({ kind: 'personal', user: 'bob', text: 'Bob is allergic to peanuts too', createdAt: T0 });
  for (const budgetTokens of [60, 150, 400]) {
    const r = mem.recall({ thread: 'new', user: 'ada', budgetTokens, queryText: 'peanuts snack', now: T0 + DAY });
    assert.ok(r.tokens <= budgetTokens, `${r.tokens} <= ${budgetTokens}`);
    const known = r.items.filter((i) => i.section === 'known');
    if (budgetTokens >= 150) {
      assert.ok(known.length >= 1, `known items at ${budgetTokens}`);
      assert.match(r.block, /## Known about this user and task/);
      assert.ok(r.block.indexOf('## Known') < r.block.indexOf('## Matches'), 'known comes first');
      assert.match(r.block, /allergic to peanuts/);
    }
    assert.ok(!r.block.includes('Bob is'), "another user's item never shows");
  }
  const few = mem.recall({ thread: 'new', user: 'ada', budgetTokens: 400, knownLimit: 1, queryText: 'peanuts', now: T0 + DAY });
  assert.ok(few.items.filter((i) => i.section === 'known').length <= 2, 'knownLimit bounds the candidates');
  const none = mem.recall({ thread: 'new', user: 'ada', budgetTokens: 400, knownLimit: 0, queryText: 'peanuts', now: T0 + DAY });
  assert.equal(none.items.filter((i) => i.section === 'known').length, 0);
  const item = mem.listItems({ user: 'ada', order: 'uses' })[0];
  assert.ok(item.uses >= 1, 'recall counts uses of items');
});

test('with no now, expiry counts from the clock in recall, search and listings', () => {
  const mem = new Memory();
  mem.addTurn({ id: 't1', thread: 'chat', user: 'ada', createdAt: T0, input: 'note this down' });
  const temp = mem.addItem({ kind: 'personal', user: 'ada', text: 'Ada parked on level zeta-nine', createdAt: T0, ttlMs: DAY }).item;
  assert.equal(temp.expiresAt, T0 + DAY);
  // T0 is in 2024: by the clock the item ran out long ago.
  assert.ok(!mem.recall({ thread: 'chat', user: 'ada' }).block.includes('zeta-nine'));
  assert.deepEqual(mem.search({ text: 'zeta-nine', mode: 'bm25' }), []);
  assert.deepEqual(mem.listItems({ statuses: ['expired'] }).map((i) => i.id), [temp.id]);
  // An earlier now brings it back.
  assert.match(mem.recall({ thread: 'chat', user: 'ada', now: T0 + 1000 }).block, /zeta-nine/);
  assert.equal(mem.search({ text: 'zeta-nine', mode: 'bm25', now: T0 + 1000 }).length, 1);
});

test('with no now, tools and prepare leave expired items out too', async () => {
  const mem = new Memory();
  mem.addTurn({ id: 't1', thread: 'chat', user: 'ada', createdAt: T0, input: 'note this down' });
  const temp = mem.addItem({ kind: 'personal', user: 'ada', text: 'Ada parked on level zeta-nine', createdAt: T0, ttlMs: DAY }).item;
  const kept = mem.addItem({ kind: 'personal', user: 'ada', text: 'Ada parks on level omega-two', createdAt: T0 }).item;
  const context = { user: 'ada', thread: 'chat' };
  const ids = (answer) => JSON.stringify(answer);
  // The tools run on the host clock: the item ran out in 2024.
  const search = mem.callTool('search', { query: 'parked level', mode: 'bm25' }, context);
  assert.ok(!ids(search).includes(temp.id) && ids(search).includes(kept.id), ids(search));
  const memories = mem.callTool('memories', {}, context);
  assert.ok(!ids(memories).includes(temp.id) && ids(memories).includes(kept.id));
  const recall = mem.callTool('recall', { query: 'where did Ada park' }, context);
  assert.ok(!ids(recall).includes('zeta-nine') && ids(recall).includes('omega-two'));
  // prepare's recall block too.
  const p = mem.prepare([{ role: 'user', content: 'where did I park?' }], { thread: 'chat', user: 'ada', window: 4000, recall: { queryText: 'park level' } });
  assert.ok(!p.recall.includes('zeta-nine') && p.recall.includes('omega-two'), p.recall);
  // With the context's now before the expiry, the tools see it.
  const then = mem.callTool('search', { query: 'parked level', mode: 'bm25' }, { ...context, now: T0 + 1000 });
  assert.ok(ids(then).includes(temp.id));
});
