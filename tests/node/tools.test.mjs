// Tools in the built package: schemas for OpenAI, Anthropic and MCP, and a scripted
// tool-calling loop end to end: a fake model reads `toolSchemas('openai')`, checks its own
// calls against the schemas, emits tool calls; the loop runs them with `callTool` under the
// host's context and sends the answers back; what the model remembered is durable.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, MemoryStorage } from '../../pkg/index.js';

const NOW = Date.UTC(2024, 4, 15, 12);
const DAY = 86_400_000;
const NAMES = ['search', 'grep', 'get', 'ancestors', 'descendants', 'recall', 'remember', 'memories', 'read_blob', 'forget'];

test('tool schemas for OpenAI, Anthropic and MCP', () => {
  const mem = new Memory();
  const openai = mem.toolSchemas('openai');
  assert.deepEqual(openai.map((t) => t.function.name), NAMES);
  for (const t of openai) {
    assert.equal(t.type, 'function');
    assert.equal(t.function.parameters.type, 'object');
    assert.equal(t.function.parameters.additionalProperties, false);
    assert.ok(t.function.description.length > 20);
  }
  const anthropic = mem.toolSchemas('anthropic');
  assert.deepEqual(anthropic.map((t) => t.name), NAMES);
  assert.deepEqual(anthropic[0].input_schema, openai[0].function.parameters);
  const mcp = mem.toolSchemas('MCP');
  assert.deepEqual(mcp.map((t) => Object.keys(t).sort()), NAMES.map(() => ['description', 'inputSchema', 'name']));
  assert.deepEqual(mcp[6].inputSchema.required, ['text']);
  assert.throws(() => mem.toolSchemas('gemini'), { code: 'INVALID_INPUT' });
  mem.free();
});

/** Checks arguments against a tool's JSON Schema as a strict model API would: required
 * properties present, no unknown ones, enums and primitive types respected. */
function conforms(schema, args) {
  for (const name of schema.required) assert.ok(name in args, `required ${name}`);
  for (const [name, value] of Object.entries(args)) {
    const p = schema.properties[name];
    assert.ok(p, `known property ${name}`);
    const type = Array.isArray(value) ? 'array' : Number.isInteger(value) && p.type === 'integer' ? 'integer' : typeof value;
    assert.equal(type, p.type, `${name} is a ${p.type}`);
    if (p.enum) assert.ok(p.enum.includes(value), `${name} in its enum`);
  }
}

/** A fake model: a script of turns, each the tool calls it makes after reading the previous
 * tool results (or its final text), with OpenAI's message shapes. */
function fakeModel(script) {
  let turn = 0;
  return (messages, tools) => {
    const byName = new Map(tools.map((t) => [t.function.name, t.function.parameters]));
    const results = [];
    for (let i = messages.length - 1; messages[i].role === 'tool'; i--) results.unshift(JSON.parse(messages[i].content));
    const step = script[turn++](results);
    if (typeof step === 'string') return { role: 'assistant', content: step };
    const calls = step.map(([name, args], i) => {
      assert.ok(byName.has(name), `${name} is offered`);
      conforms(byName.get(name), args);
      return { id: `call_${turn}_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
    });
    return { role: 'assistant', content: null, tool_calls: calls };
  };
}

/** The agent loop: model, tool calls through callTool, tool results back, until text. */
async function runLoop(memory, model, context) {
  const tools = memory.toolSchemas('openai');
  const messages = [{ role: 'user', content: 'I am allergic to peanuts. What snack can I have?' }];
  for (let round = 0; round < 10; round++) {
    const reply = model(messages, tools);
    messages.push(reply);
    if (!reply.tool_calls) return { messages, answer: reply.content };
    for (const call of reply.tool_calls) {
      let content;
      try {
        content = await memory.callTool(call.function.name, call.function.arguments, context);
      } catch (e) {
        content = { error: e.code, message: e.message };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  assert.fail('the loop did not end');
}

test('a scripted tool-calling loop remembers, searches, recalls and forgets, durably', async () => {
  const storage = new MemoryStorage();
  const name = `tools-${process.pid}`;
  const mem = await Memory.open({ name, storage, sync: false });
  await mem.add({ id: 'yesterday', thread: 'chat', user: 'ada', createdAt: NOW - DAY, input: 'I bought rice crackers at the market', output: 'Nice!' });
  await mem.add({ id: 'old', thread: 'chat', user: 'ada', createdAt: NOW - 40 * DAY, input: 'rice crackers are my favourite snack' });
  await mem.addItem({ kind: 'personal', user: 'bob', text: 'Bob loves peanut butter', createdAt: NOW });
  let remembered;
  const model = fakeModel([
    () => [['remember', { text: 'Allergic to peanuts', kind: 'personal', relation: 'allergy', object: 'peanuts', importance: 0.9, sources: ['yesterday'] }]],
    ([r]) => {
      assert.equal(r.outcome, 'added');
      remembered = r.memory;
      assert.equal(Date.parse(remembered.createdAt), NOW, "the context's clock, as ISO 8601");
      return [['memories', { kinds: ['personal'] }], ['search', { query: 'snack', scope: 'turns', k: 5 }], ['get', { id: 'yesterday' }]];
    },
    ([memories, hits, record]) => {
      assert.deepEqual(memories.memories.map((m) => m.text), ['Allergic to peanuts'], "only ada's memories: bob's stay out");
      assert.ok(hits.hits.some((h) => h.id === 'old'));
      assert.equal(Date.parse(record.createdAt), NOW - DAY);
      return [['search', { query: 'what did I buy yesterday' }], ['grep', { pattern: 'rice\\s+crackers', case_insensitive: true }]];
    },
    ([dated, grep]) => {
      assert.deepEqual(dated.hits.map((h) => h.id), ['yesterday'], 'relative dates resolve against the context now');
      assert.equal(dated.time.matched, 'yesterday');
      assert.deepEqual(grep.matches.map((m) => m.id).sort(), ['old', 'yesterday']);
      return [['recall', { query: 'peanuts snack', budget_tokens: 400 }], ['descendants', { id: 'yesterday' }]];
    },
    ([recall, descendants]) => {
      assert.match(recall.block, /Allergic to peanuts/);
      assert.ok(recall.tokens <= 400);
      assert.ok(recall.items.some((i) => i.section === 'known'));
      assert.deepEqual(descendants.records.map((r) => r.id), [remembered.id], 'the memory was learned from that turn');
      return [['forget', { id: remembered.id }], ['forget', { id: 'nope' }]];
    },
    ([forgotten, missing]) => {
      assert.equal(forgotten.forgotten.status, 'deleted');
      assert.equal(missing.error, 'NOT_FOUND');
      return 'Rice crackers are a safe snack.';
    },
  ]);
  const { answer, messages } = await runLoop(mem, model, { user: 'ada', thread: 'chat', now: NOW });
  assert.equal(answer, 'Rice crackers are a safe snack.');
  assert.equal(messages.filter((m) => m.role === 'tool').length, 10);
  assert.equal(mem.pending, 0, 'every mutating call was durable when it resolved');

  const again = await Memory.open({ name, storage, sync: false });
  const item = again.getItem(remembered.id);
  assert.equal(item.status, 'deleted', 'remember and forget were both persisted');
  assert.deepEqual(item.sources, ['yesterday']);
  assert.ok(again.getItem(remembered.id).uses >= 1, "recall's use count was persisted");
  again.free();
  mem.free();
});

test('callTool takes JSON text or objects; errors carry codes and stay in the context user', () => {
  const mem = new Memory();
  mem.addTurn({ id: 'a1', thread: 't', user: 'ann', input: 'the launch code is zebra', createdAt: NOW });
  mem.addTurn({ id: 'b1', thread: 't', user: 'bob', input: 'the launch is friday', createdAt: NOW });
  const text = mem.callTool('search', '{"query": "launch", "mode": "bm25"}', { user: 'bob', now: NOW });
  const object = mem.callTool('search', { query: 'launch', mode: 'bm25' }, { user: 'bob', now: NOW });
  assert.deepEqual(text, object);
  assert.deepEqual(object.hits.map((h) => h.id), ['b1'], "the context's user binds the search");
  assert.equal(object.time, null);
  assert.throws(() => mem.callTool('get', { id: 'a1' }, { user: 'bob' }), { code: 'NOT_FOUND' }, "another user's record is invisible");
  assert.equal(mem.callTool('get', { id: 'a1' }, { user: 'ann' }).input, 'the launch code is zebra');
  assert.throws(() => mem.callTool('search', '{"query": ', { user: 'bob' }), { code: 'INVALID_INPUT' });
  assert.throws(() => mem.callTool('search', { query: 'x', user: 'ann' }, { user: 'bob' }), { code: 'INVALID_INPUT' }, 'the model cannot name a user');
  assert.throws(() => mem.callTool('search', {}), { code: 'INVALID_INPUT' }, 'query is required');
  assert.throws(() => mem.callTool('teleport', {}), { code: 'INVALID_INPUT' });
  assert.throws(() => mem.callTool('search', { query: 'x' }, { user: 'bob', clock: 1 }), { code: 'INVALID_INPUT' }, 'unknown context property');
  mem.takeChanges();
  assert.equal(mem.hasChanges, false);
  assert.throws(() => mem.callTool('remember', '', { user: 'bob' }), { code: 'INVALID_INPUT' }, 'empty args are {}: no text');
  assert.equal(mem.hasChanges, false, 'a refused call changes nothing');
  mem.callTool('search', { query: 'launch' }, { user: 'bob' });
  assert.equal(mem.hasChanges, false, 'search changes nothing');
  const before = Date.now();
  const r = mem.callTool('remember', { text: 'The launch is on Friday', ttl: '7d' }, { user: 'bob' });
  assert.equal(mem.hasChanges, true, 'remember does');
  assert.ok(Date.parse(r.memory.createdAt) >= before, 'the context now defaults to the host clock');
  const item = mem.getItem(r.memory.id, 'bob');
  assert.equal(item.expiresAt - item.createdAt, 7 * DAY);
  assert.equal(item.user, 'bob', "the memory is the context user's");
  mem.free();
});
