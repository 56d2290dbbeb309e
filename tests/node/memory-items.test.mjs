// Long-term memory items in the built package: dedup and conflicts with history, versions and
// soft deletes, the settings, learning from turns by the rules (English and Chinese) and
// through a scripted LLM, the known section of recall, and persistence through MemoryStorage.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage, parseDuration } from '../../pkg/index.js';
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

/** A scripted LLM: extraction answers by kind, judgements by verdict; it counts its calls. */
function scripted({ personal = '{"items": []}', verdict = 'contradicts' } = {}) {
  const calls = [];
  const complete = async (prompt) => {
    calls.push(prompt);
    if (prompt.startsWith('Two long-term memory items')) return `{"verdict": "${verdict}", "merged": "Lives in Paris"}`;
    if (prompt.includes('kind "personal"')) return personal;
    return '```json\n{"items": []}\n```';
  };
  return { calls, complete };
}

test('extraction through a scripted LLM drives prompts, parsing, candidates and judgements', async () => {
  const storage = new MemoryStorage();
  const personal = JSON.stringify({ items: [{ source: 't2', text: 'Lives in Paris', relation: 'residence', object: 'Paris', importance: 0.8 }] });
  const llm = scripted({ personal });
  const mem = await open(storage, { complete: llm.complete });
  await mem.add({ id: 't1', thread: 't', user: 'ada', createdAt: T0, input: 'I live in Berlin' });
  await mem.add({ id: 't2', thread: 't', user: 'ada', createdAt: T0 + DAY, input: 'We moved to Paris last week' });
  const berlin = await mem.addItem({ kind: 'personal', user: 'ada', text: 'Lives in Berlin', relation: 'residence', object: 'Berlin', sources: ['t1'], createdAt: T0 });

  const report = await mem.extract({ ids: ['t2'] });
  assert.equal(llm.calls.length, 4, 'three extraction prompts (personal, procedural, tool) and one judgement');
  assert.match(llm.calls[3], /EXISTING: Lives in Berlin\nNEW: Lives in Paris/);
  assert.equal(report.learned.length, 1);
  const [learned] = report.learned;
  assert.equal(learned.outcome, 'superseded');
  assert.deepEqual(learned.others, [berlin.item.id]);
  assert.equal(learned.item.importance, 0.8);
  assert.deepEqual(learned.item.sources, ['t2']);
  assert.equal(learned.item.log[0].by, 'llm');
  assert.equal(mem.pending, 0, 'durable when it resolves');
  const reader = await open(storage);
  assert.equal(reader.getItem(berlin.item.id).status, 'superseded');
  assert.equal(reader.getItem(learned.item.id).text, 'Lives in Paris');
  reader.free();

  // The same steps, run by hand on the core: what PersistentMemory.extract does.
  const query = { ids: ['t2'] };
  const prompts = mem.extractionPrompts(query);
  assert.deepEqual(prompts.map((p) => p.kind), ['personal', 'procedural', 'tool']);
  assert.match(prompts[0].prompt, /--- turn t2 \(user "ada"\) ---/);
  const proposals = mem.parseExtraction(query, 'personal', personal);
  assert.deepEqual(proposals.map((p) => [p.kind, p.text, p.createdAt, p.sources]), [['personal', 'Lives in Paris', T0 + DAY, ['t2']]]);
  assert.equal(thrown(() => mem.parseExtraction(query, 'personal', '{"items": [{"source": "t9", "text": "x"}]}')).code, 'HOST');
  assert.equal(thrown(() => mem.parseExtraction(query, 'mood', personal)).code, 'INVALID_INPUT');
  const candidates = mem.itemCandidates(proposals[0]);
  assert.deepEqual(candidates.map((c) => c.id), [learned.item.id], 'the active item it may touch');
  const prompt = mem.judgePrompt(proposals[0], candidates[0]);
  assert.equal(mem.judgePrompt(proposals[0], candidates[0].id), prompt, 'an item or its id');
  assert.match(prompt, /"verdict"/);
  assert.equal(thrown(() => mem.judgePrompt(proposals[0], 'ghost')).code, 'NOT_FOUND');
  const same = mem.parseJudgement(candidates[0].id, '{"verdict": "same"}');
  assert.deepEqual(same, { item: candidates[0].id, verdict: 'same', merged: null });
  assert.equal(thrown(() => mem.parseJudgement(candidates[0].id, '{"verdict": "maybe"}')).code, 'HOST');
  const again = await mem.learn(proposals, [[same]]);
  assert.equal(again.learned[0].outcome, 'corroborated', 'the judgement replaces the rule');
  assert.equal(mem.getItem(learned.item.id).corroborations, 1);
  await mem.close();
});

test('a malformed LLM answer rejects with HOST and writes nothing', async () => {
  const storage = new MemoryStorage();
  const llm = scripted({ personal: 'Sure! The user lives in Paris.' });
  const mem = await open(storage, { complete: llm.complete });
  await mem.add({ id: 't1', thread: 't', user: 'ada', createdAt: T0, input: 'I live in Paris' });
  const before = new Map([...storage.map].map(([k, v]) => [k, Buffer.from(v).toString('hex')]));
  const e = await rejection(mem.extract({ thread: 't' }));
  assert.equal(e.code, 'HOST');
  assert.match(e.message, /personal extraction answer/);
  assert.equal(llm.calls.length, 3, 'every prompt was asked, none was learned');
  assert.deepEqual(mem.listItems({ all: true }), []);
  assert.equal(mem.len, 1);
  assert.equal(mem.pending, 0);
  await mem.flush();
  assert.deepEqual(new Map([...storage.map].map(([k, v]) => [k, Buffer.from(v).toString('hex')])), before, 'no byte written');

  const failing = await open(new MemoryStorage(), { complete: async () => { throw new Error('rate limited'); } });
  await failing.add({ id: 't1', thread: 't', user: 'ada', input: 'I live in Paris' });
  const down = await rejection(failing.extract({ ids: ['t1'] }));
  assert.equal(down.code, 'HOST');
  assert.match(down.message, /rate limited/);
  assert.deepEqual(failing.listItems({ all: true }), []);
  failing.free();

  // Without complete, extract uses the rules.
  const rules = await open(new MemoryStorage());
  await rules.add({ id: 't1', thread: 't', user: 'ada', input: 'I live in Paris', createdAt: T0 });
  const report = await rules.extract({ ids: ['t1'] });
  assert.deepEqual(report.learned.map((l) => l.item.text), ['Lives in Paris']);
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
