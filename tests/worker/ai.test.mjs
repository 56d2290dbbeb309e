// examples/cloudflare-worker with a Workers AI binding, on real workerd (through miniflare):
// `memory/extract` learns through the binding (workersAiComplete), here a stand-in model in a
// worker of its own (a wrapped binding with Workers AI's `run(model, input)`) that answers
// memdag's prompt from the turns it shows, and only when asked for JSON on memdag's schema.
// A broken model has the rules learn the batch. Run by scripts/test-worker.sh.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

import { bundle } from './bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const entry = join(root, 'examples/cloudflare-worker/src/worker.js');

// The stand-in model: "[id] Name, date: I live in X." becomes "Name lives in X"; a turn saying
// "break the model" gets prose back. It answers prose, too, when not asked for JSON mode.
const STUB = `
export default function () {
  return {
    async run(model, input) {
      const prompt = input.messages[0].content;
      const schema = input.response_format?.json_schema;
      if (input.response_format?.type !== 'json_schema' || !schema?.properties?.facts) return { response: 'no JSON mode' };
      if (prompt.includes('break the model')) return { response: 'Sure! Here are some facts.' };
      const facts = [];
      for (const m of prompt.matchAll(/^\\[(\\S+)\\] (\\w+), [^:]+: I live in (\\w+)/gm)) {
        facts.push({ op: 'add', source: m[1], text: m[2] + ' lives in ' + m[3], relation: 'residence', object: m[3] });
      }
      return { response: model === '@cf/test/stand-in' ? { facts } : 'unknown model' };
    },
  };
}
`;

let mf;

before(async () => {
  mf = new Miniflare({
    workers: [
      {
        name: 'memdag',
        modules: bundle(entry),
        modulesRoot: root,
        compatibilityDate: '2025-01-01',
        kvNamespaces: ['MEM'],
        durableObjects: { MEMORY: 'MemoryObject' },
        bindings: { AI_MODEL: '@cf/test/stand-in' },
        wrappedBindings: { AI: { scriptName: 'ai-stand-in' } },
      },
      { name: 'ai-stand-in', modules: true, script: STUB },
    ],
  });
  await mf.ready;
});

after(async () => {
  await mf?.dispose();
});

const call = async (path, init) => {
  const res = await mf.dispatchFetch(`http://memdag.test${path}`, init);
  return { status: res.status, body: await res.json() };
};
const post = (path, body) => call(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

for (const backend of ['kv', 'do']) {
  test(`${backend}: memory/extract learns through the Workers AI binding`, async () => {
    const agent = `/${backend}/ai`;
    const turns = [
      { id: 'a1', thread: 'chat', user: 'lin', createdAt: Date.UTC(2024, 0, 2), input: 'I live in Lisbon.' },
      { id: 'b1', thread: 'other', user: 'lin', createdAt: Date.UTC(2024, 0, 3), input: 'break the model. I am allergic to peanuts.' },
    ];
    let r = await post(`${agent}/turns`, { turns });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    r = await post(`${agent}/memory/extract`, { thread: 'chat' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.llm.calls, 1);
    assert.ok(r.body.llm.promptTokens > 500);
    assert.deepEqual(r.body.learned.map((l) => [l.item.text, l.item.object]), [['Lin lives in Lisbon', 'Lisbon']]);
    assert.ok(r.body.learned[0].item.log.some((e) => e.by === 'llm'), 'decided by the LLM');
    assert.deepEqual(r.body.refused, []);

    // A model that answers prose: refused whole, the rules learn the batch.
    r = await post(`${agent}/memory/extract`, { thread: 'other' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.refused[0].code, 'NOT_JSON');
    assert.deepEqual(r.body.byRules, ['b1']);
    assert.deepEqual(r.body.learned.map((l) => l.item.object), ['peanuts']);
    r = await call(`${agent}/memory?user=lin`);
    assert.deepEqual(r.body.items.map((i) => i.object).sort(), ['Lisbon', 'peanuts']);
  });
}
