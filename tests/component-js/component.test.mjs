// The memdag WIT component in Node through `jco transpile`: turns with parents, a reload from
// the JS kv in a fresh instance, ancestors, the error variant, the JS embedder and llm, a
// failing kv, and the long-term memory, working memory, graph, time and tool functions. Run
// by scripts/test-component-js.sh, which transpiles into ./out first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { instantiate, MapKv } from './host.mjs';

const dir = fileURLToPath(new URL('./out', import.meta.url));

const turn = (id, thread, at, parents = [], extra = {}) => ({
  id,
  thread,
  user: 'lin',
  createdAt: BigInt(at),
  input: `input of ${id}`,
  output: `output of ${id}`,
  steps: [],
  parents,
  tags: [],
  ...extra,
});

/** The component error thrown by a call: its WIT case and message. */
function caught(f) {
  try {
    f();
  } catch (e) {
    assert.ok(e.payload, `a component error, got ${e}`);
    return e.payload;
  }
  assert.fail('the call should have thrown');
}

const ids = (records) => records.map((r) => r.id);

/** A search filter that lets everything through (its lists must be given). */
const noFilter = { tags: [], kinds: [], statuses: [] };

test('turns with parents survive a reload from the JS kv in a fresh instance', async () => {
  const kv = new MapKv();
  {
    const { memory } = await instantiate(dir, { kv });
    const store = memory.Store.open(undefined, 'builtin');
    store.addTurn(turn('a', 'main', 1000));
    store.addTurn(turn('b', 'main', 2000, ['a']));
    const c = store.addTurn(turn('c', '旁支', 3000, ['a', 'b'], { input: '查一下天气', importance: 0.9 }));
    assert.equal(c.importance, Math.fround(0.9), 'an f32 crosses the boundary');
    assert.deepEqual(c.parents, ['a', 'b']);
    store.addTurns([turn('d', 'main', 4000, ['c']), turn('e', 'main', 5000, ['d'])]);
    assert.equal(store.len(), 5n);
    const keys = [...kv.entries.keys()];
    assert.ok(keys.includes('head'), 'every change set is committed through kv');
    assert.equal(keys.filter((k) => k.startsWith('seg/')).length, 4, `one segment per mutation: ${keys}`);
  }

  const { memory } = await instantiate(dir, { kv });
  const store = memory.Store.open(undefined, 'builtin');
  assert.equal(store.len(), 5n);
  assert.deepEqual(store.loadWarnings(), []);
  assert.equal(store.get('c').input, '查一下天气');
  assert.equal(store.get('ghost'), undefined);
  assert.deepEqual(ids(store.ancestors('e', 10, 10)), ['d', 'c', 'a', 'b']);
  assert.deepEqual(ids(store.ancestors('e', 1, 10)), ['d']);
  assert.deepEqual(ids(store.descendants('a', 10, 10)), ['b', 'c', 'd', 'e']);
  assert.deepEqual(ids(store.recent('main', 2)), ['e', 'd']);

  // Without `head`, a fresh instance opens the commit the newest segment carries, and says so.
  {
    const headless = new MapKv();
    for (const [k, v] of kv.entries) if (k !== 'head') headless.entries.set(k, v);
    const { memory: m } = await instantiate(dir, { kv: headless });
    const recovered = m.Store.open(undefined, 'builtin');
    assert.equal(recovered.len(), 5n);
    assert.deepEqual(recovered.loadWarnings().map((w) => [w.code, w.key]), [['COMMIT_RECOVERED', 'head']]);
  }

  // Search and grep work on the reloaded store.
  const hits = store.search({ text: '天气', mode: 'bm25', k: 3, filter: noFilter, fusion: 'weighted' });
  assert.equal(hits[0].id, 'c');
  const found = store.grep({ pattern: 'output of [de]', caseInsensitive: false, fields: [], filter: noFilter });
  assert.deepEqual(ids(found), ['d', 'e']);
});

test('errors arrive as the WIT error variant with a stable code, and write nothing', async () => {
  const kv = new MapKv();
  const { memory, context } = await instantiate(dir, { kv });
  const store = memory.Store.open(undefined, 'builtin');
  store.addTurn(turn('a', 'main', 1));
  const before = kv.dump();

  const unknown = caught(() => store.addTurn(turn('b', 'main', 2, ['a', 'ghost'])));
  assert.equal(unknown.code, 'unknown-parent', 'a typed code, not a string to parse');
  assert.deepEqual(unknown.ids, ['ghost']);
  const dup = caught(() => store.addTurn(turn('a', 'main', 3)));
  assert.equal(dup.code, 'duplicate-id');
  assert.deepEqual(dup.ids, ['a']);
  const batch = caught(() => store.addTurns([turn('x', 'main', 4), turn('y', 'main', 5, ['nope'])]));
  assert.equal(batch.code, 'unknown-parent');
  assert.match(batch.message, /^turn 1: /);
  assert.deepEqual(kv.dump(), before, 'refused turns write nothing');
  assert.equal(store.get('x'), undefined);

  const missing = caught(() => store.ancestors('ghost', 3, 3));
  assert.equal(missing.code, 'not-found');
  assert.equal(missing.message, 'no record with id "ghost"');
  assert.deepEqual(missing.ids, ['ghost']);
  const prefix = caught(() => memory.Store.open('no-slash', 'builtin'));
  assert.equal(prefix.code, 'invalid-input');

  // A failing kv write: a storage error, and memory stays equal to kv.
  kv.failWrites = 'disk full';
  const storage = caught(() => store.addTurn(turn('b', 'main', 2, ['a'])));
  assert.equal(storage.code, 'storage');
  assert.match(storage.message, /disk full/);
  kv.failWrites = null;
  assert.equal(store.get('b'), undefined);
  assert.equal(store.len(), 1n);

  assert.ok(context.countTokens('hello world', undefined) >= 2);
});

test('the JS embedder and llm are called through the imports', async () => {
  const kv = new MapKv();
  const calls = [];
  let fail = false;
  const answer = [
    '## Summary', 'Looked up the weather.', '', '## Goal', 'Weather.', '', '## Constraints', 'None', '',
    '## Progress', 'Done.', '', '## Key Decisions', 'None', '', '## Next Steps', 'None', '',
    '## Critical Context', 'None',
  ].join('\n');
  const { memory } = await instantiate(dir, {
    kv,
    embed: (texts) => {
      calls.push(texts);
      return texts.map((t) => new Float32Array([t.includes('rain') ? 1 : 0, t.includes('sun') ? 1 : 0, 0.1]));
    },
    complete: (prompt) => {
      if (fail) throw 'model overloaded';
      assert.match(prompt, /rain/);
      return answer;
    },
  });
  const store = memory.Store.open('agent-1/', 'host');
  store.addTurns([
    turn('r', 'main', 1, [], { input: 'rain today' }),
    turn('s', 'main', 2, [], { input: 'sun today' }),
  ]);
  assert.equal(calls.length, 1, 'one embedder call for the batch');
  assert.equal(store.get('r').embedding.length, 3);
  assert.ok([...kv.entries.keys()].every((k) => k.startsWith('agent-1/')));
  const hits = store.search({ text: 'sun', mode: 'vector', k: 1, filter: noFilter, fusion: 'weighted' });
  assert.equal(hits[0].id, 's');

  const compacted = store.compact('r', 'llm');
  assert.equal(compacted.compact.summary, 'Looked up the weather.');
  fail = true;
  const before = kv.dump();
  const err = caught(() => store.compact('r', 'llm'));
  assert.equal(err.code, 'host');
  assert.match(err.message, /model overloaded/);
  assert.deepEqual(kv.dump(), before);
  assert.deepEqual(store.get('r').compact, compacted.compact);
});

test('a store opened with a key is sealed in the JS kv, and opens only with that key', async () => {
  const kv = new MapKv();
  const key = new Uint8Array(32).fill(3);
  {
    const { memory } = await instantiate(dir, { kv });
    const store = memory.Store.open('enc/', 'none', key);
    store.addTurn(turn('a', 'main', 1000, [], { input: 'the safe code is 8812-tapir' }));
  }
  const needle = Buffer.from('8812-tapir');
  for (const [k, v] of kv.entries) {
    assert.equal(Buffer.from(v.subarray(0, 4)).toString(), 'MDAS', k);
    assert.ok(!Buffer.from(v).includes(needle), k);
  }
  const { memory } = await instantiate(dir, { kv });
  assert.equal(memory.Store.open('enc/', 'none', key).get('a').input, 'the safe code is 8812-tapir');
  for (const other of [undefined, new Uint8Array(32).fill(4)]) {
    const locked = caught(() => memory.Store.open('enc/', 'none', other));
    assert.equal(locked.code, 'locked');
    assert.equal(locked.key, 'enc/head');
  }
  assert.equal(caught(() => memory.Store.open('enc/', 'none', new Uint8Array(3))).code, 'invalid-input');
});

test('items, working memory, the graph, time and the tools run under jco', async () => {
  const kv = new MapKv();
  const prompts = [];
  const llm = (prompt) => {
    prompts.push(prompt);
    return JSON.stringify({ facts: [
      { op: 'add', source: 't1', text: 'Lives in Lisbon', relation: 'residence', object: 'Lisbon' },
      { op: 'add', source: 't9', text: 'a turn the prompt did not show' },
    ] });
  };
  const { memory } = await instantiate(dir, { kv, complete: llm });
  const store = memory.Store.open(undefined, 'builtin');
  const now = 1_700_000_000_000n;
  const day = 86_400_000n;

  // The JSON turn shape and the time helpers.
  const json = '{"id": "t1", "thread": "chat", "user": "ada", "input": "I live in Austin.", "steps": [{"tool": "x"}]}';
  assert.equal(memory.parseTurnJson(json, now).steps[0].ok, true);
  assert.equal(store.addTurnJson(json, now).createdAt, now);
  assert.equal(memory.parseDuration('30d'), 30n * day);
  assert.equal(memory.parseTimestamp('2023-11-14T22:13:20Z'), now);
  assert.equal(memory.formatTimestamp(now), '2023-11-14T22:13:20Z');
  assert.equal(caught(() => memory.parseDuration('soon')).code, 'invalid-input');

  // Items: add, supersede by the rules, then by the LLM; history, listing, log and settings.
  const item = (text, extra = {}) => ({ kind: 'personal', user: 'ada', text, createdAt: now - 2n * day, sources: [], tags: [], ...extra });
  const paris = store.addItem(item('Ada lives in Paris', { relation: 'residence', object: 'Paris' }));
  assert.equal(paris.outcome, 'added');
  assert.equal(store.propose({ ids: ['t1'], kinds: [] }).length, 1);
  const rules = store.extract({ ids: ['t1'], kinds: [] });
  assert.equal(rules.learned[0].outcome, 'superseded');
  assert.deepEqual(rules.learned[0].item.sources, ['t1']);
  const viaLlm = store.extractWithLlm({ ids: ['t1'], kinds: [] });
  assert.equal(viaLlm.learned[0].item.text, 'Lives in Lisbon');
  assert.equal(viaLlm.learned[0].outcome, 'superseded', 'a new residence, by the rules of conflict');
  assert.match(prompts[0], /\[t1\] Ada, .*: I live in Austin\./);
  assert.deepEqual(viaLlm.refused.map((r) => [r.fact, r.code]), [[1, 'unknown-source']]);
  assert.deepEqual(viaLlm.byRules, []);
  assert.equal(viaLlm.llm.calls, 1);
  assert.ok(viaLlm.llm.promptTokens > 500);
  const lisbon = viaLlm.learned[0].item.id;
  assert.equal(store.getItem(paris.item.id, undefined).status, 'superseded');
  assert.equal(store.getItem(lisbon, 'bob'), undefined);
  assert.ok(store.itemHistory(lisbon).length >= 2);
  const updated = store.updateItem(lisbon, { text: 'Lives in Lisbon, Portugal', tags: ['home'], at: now });
  assert.equal(updated.version, 2);
  const query = { kinds: ['personal'], statuses: [], all: false, order: 'created', ascending: false, offset: 0 };
  assert.deepEqual(ids(store.listItems(query)), [lisbon]);
  assert.equal(store.listItems({ ...query, all: true }).length, 3);
  assert.equal(store.resolutions({ item: lisbon, actions: ['updated'] }).length, 1);
  const config = store.getMemoryConfig();
  store.setMemoryConfig({ ...config, ttlMs: [['tool', 7n * day]], aliases: [['NYC', 'New York']] });
  assert.deepEqual(store.getMemoryConfig().ttlMs, [['tool', 7n * day]]);
  assert.equal(store.entity('nyc'), 'new york');
  assert.equal(store.deleteItem(lisbon, now).status, 'deleted');

  // Working memory, recalled first.
  const change = store.updateWork({ thread: 'chat', field: 'goal', op: 'set', value: '"ship it"', at: now, user: 'ada' });
  assert.equal(change.stale, false);
  assert.deepEqual(store.workingMemory('chat', 'ada').fields.map((f) => [f.name, f.value]), [['goal', '"ship it"']]);
  assert.deepEqual(store.workingMemory('chat', 'bob').fields, [], "ada's working memory is hers only");
  // An empty user names nobody (issue 30): invalid input, never every user.
  assert.equal(caught(() => store.workingMemory('chat', '')).code, 'invalid-input');
  assert.equal(caught(() => store.recall({ thread: 'chat', user: '', keywords: [] })).code, 'invalid-input');
  assert.deepEqual(store.workThreads(), ['chat']);
  const recall = store.recall({ thread: 'chat', user: 'ada', keywords: [], workTokens: 100 });
  assert.match(recall.working, /Goal: ship it/);

  // The graph, the timeline, search with a relative date, and purge.
  const edge = (s, r, o) => item(`${s} ${r} ${o}`, { kind: 'fact', subject: s, relation: r, object: o });
  store.addItem(edge('Ada', 'works at', 'Acme'));
  store.addItem(edge('Acme', 'located in', 'Berlin'));
  store.addItem(edge('Berlin', 'part of', 'Germany'));
  const paths = store.path('ada', 'germany', 4, {});
  assert.deepEqual(paths[0].map((e) => [e.from, e.to]), [['ada', 'acme'], ['acme', 'berlin'], ['berlin', 'germany']]);
  assert.equal(store.neighbors('berlin', 1, {}).nodes.length, 3);
  assert.equal(store.subgraph([], {}).edges.length, 3);
  const days = store.timeline({ user: 'ada', itemsOnly: false, turnsOnly: true });
  assert.equal(days[0].entries[0].id, 't1');
  const found = store.searchFull({ text: 'Austin today', mode: 'bm25', k: 5, filter: noFilter, fusion: 'weighted', now });
  assert.equal(found.time.matched, 'today');
  assert.deepEqual(ids(found.hits), ['t1']);
  const temp = store.addItem(item('Ada parked on level nine', { ttlMs: day }));
  const purged = store.purge({ now, expired: true, ended: false, unreferencedBlobs: false });
  assert.deepEqual(purged.items, [temp.item.id]);

  // The tools, bound to the host's user.
  const tools = JSON.parse(memory.toolSchemas('mcp'));
  assert.ok(tools.some((t) => t.name === 'remember' && t.inputSchema));
  const remembered = JSON.parse(store.callTool('remember', '{"text": "Ada likes persimmons"}', { user: 'ada', now }));
  assert.equal(remembered.outcome, 'added');
  assert.match(store.callTool('memories', '{}', { user: 'ada', now }), /persimmons/);
  assert.doesNotMatch(store.callTool('memories', '{}', { user: 'bob', now }), /persimmons/);
  const forgotten = store.forgetUser('ada');
  assert.deepEqual(forgotten.work, ['chat']);
});
