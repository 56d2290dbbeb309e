// The package's `complete` adapters, each run against a stand-in model and then used by
// Memory.open to learn through it: Chrome's Prompt API (a stand-in `LanguageModel`), an
// OpenAI-compatible endpoint (a real HTTP server on 127.0.0.1) and a Workers AI binding (an
// object with `run`; tests/worker/ai.test.mjs runs the Worker example with one on workerd).
// The stand-in model reads memdag's prompt: "[id] Name, date: I live in X" becomes the fact
// "Name lives in X".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';

import { Memory, MemoryStorage, openAiComplete, promptApiComplete, workersAiComplete } from '../../pkg/index.js';

/** The stand-in model's answer to a prompt, as a JSON object. */
function standIn(prompt) {
  const facts = [...prompt.matchAll(/^\[(\S+)\] (\w+), [^:]+: I live in (\w+)/gm)]
    .map((m) => ({ op: 'add', source: m[1], text: `${m[2]} lives in ${m[3]}`, relation: 'residence', object: m[3] }));
  return { facts };
}

let n = 0;
/** Learns from one turn through `complete`; returns the report. */
async function learnThrough(complete) {
  const mem = await Memory.open({ name: `adapters-${process.pid}-${n++}`, storage: new MemoryStorage(), sync: false, complete });
  await mem.add({ id: 't1', thread: 'chat', user: 'ada', createdAt: Date.UTC(2024, 0, 2), input: 'I live in Lisbon.' });
  const report = await mem.extract({ thread: 'chat' });
  mem.free();
  return report;
}

const lisbon = (report) => {
  assert.deepEqual(report.refused, []);
  assert.deepEqual(report.learned.map((l) => [l.item.text, l.item.object]), [['Ada lives in Lisbon', 'Lisbon']]);
  assert.equal(report.llm.calls, 1);
};

test("Chrome's Prompt API: a fresh clone per prompt, the schema as responseConstraint, null when absent", async () => {
  const seen = { created: 0, cloned: 0, destroyed: 0, constraints: [] };
  const session = (base) => ({
    async clone() { seen.cloned++; return session(false); },
    async prompt(text, { responseConstraint } = {}) {
      assert.equal(base, false, 'prompts go to a clone');
      seen.constraints.push(responseConstraint);
      return JSON.stringify(standIn(text));
    },
    destroy() { seen.destroyed++; },
  });
  const LanguageModel = {
    async availability() { return 'available'; },
    async create() { seen.created++; return session(true); },
  };
  const complete = await promptApiComplete({ languageModel: LanguageModel });
  lisbon(await learnThrough(complete));
  assert.deepEqual([seen.created, seen.cloned, seen.destroyed], [1, 1, 1]);
  assert.deepEqual(seen.constraints[0].required, ['facts'], "memdag's schema constrains the answer");
  await complete('Summarize this.');
  assert.equal(seen.constraints[1], undefined, 'no constraint without a schema');
  assert.equal(seen.created, 1, 'one base session');

  assert.equal(await promptApiComplete({ languageModel: undefined }), null, 'no LanguageModel');
  assert.equal(await promptApiComplete(), null, 'none in Node');
  const unavailable = { ...LanguageModel, availability: async () => 'unavailable' };
  assert.equal(await promptApiComplete({ languageModel: unavailable }), null);
  // Without it, Memory.open gets no complete and learns by the rules.
  const rules = await learnThrough((await promptApiComplete()) ?? undefined);
  assert.equal(rules.llm, undefined);
  assert.deepEqual(rules.learned.map((l) => l.item.object), ['Lisbon']);
});

test('an OpenAI-compatible endpoint: strict structured outputs, errors with their status', async () => {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const parsed = JSON.parse(body);
      requests.push({ url: req.url, auth: req.headers.authorization, body: parsed });
      if (parsed.model === 'broken') {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return res.end('overloaded');
      }
      const content = parsed.response_format ? JSON.stringify(standIn(parsed.messages[0].content)) : 'plain text';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1/`;
  try {
    const complete = openAiComplete({ baseUrl, apiKey: 'sk-test', model: 'small' });
    lisbon(await learnThrough(complete));
    const [first] = requests;
    assert.equal(first.url, '/v1/chat/completions');
    assert.equal(first.auth, 'Bearer sk-test');
    assert.equal(first.body.model, 'small');
    assert.equal(first.body.response_format.type, 'json_schema');
    assert.equal(first.body.response_format.json_schema.strict, true);
    assert.deepEqual(first.body.response_format.json_schema.schema.required, ['facts']);
    assert.equal(await complete('Summarize this.'), 'plain text');
    assert.equal(requests[1].body.response_format, undefined);

    const broken = openAiComplete({ baseUrl, model: 'broken' });
    await assert.rejects(broken('hi'), /HTTP 503: overloaded/);
    const report = await learnThrough(broken);
    assert.equal(report.refused[0].code, 'NOT_JSON', 'a failed call is refused whole');
    assert.match(report.refused[0].message, /HTTP 503/);
    assert.deepEqual(report.byRules, ['t1'], 'and the rules learn the batch');
    assert.throws(() => openAiComplete({ baseUrl }), /needs a model/);
  } finally {
    server.close();
  }
});

test('a Workers AI binding: JSON mode on the schema, an object answer serialized', async () => {
  const runs = [];
  const ai = {
    async run(model, input) {
      runs.push({ model, input });
      return { response: input.response_format ? standIn(input.messages[0].content) : 'plain text' };
    },
  };
  const complete = workersAiComplete(ai, { model: '@cf/test/model', maxTokens: 512 });
  lisbon(await learnThrough(complete));
  assert.equal(runs[0].model, '@cf/test/model');
  assert.equal(runs[0].input.max_tokens, 512);
  assert.equal(runs[0].input.response_format.type, 'json_schema');
  assert.deepEqual(runs[0].input.response_format.json_schema.required, ['facts']);
  assert.equal(await complete('Summarize this.'), 'plain text');
  assert.equal(runs[1].model, '@cf/test/model');
  assert.throws(() => workersAiComplete({}), TypeError);
});
