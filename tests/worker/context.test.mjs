// The context pipeline through examples/cloudflare-worker on real workerd (through
// miniflare): a scripted agent loop of 30 turns through the routes `prepare` and `finish`, with
// oversized tool outputs and a scripted LLM behind the Workers AI binding (a stand-in model in
// a worker of its own, which writes every prompt it gets to its KV namespace PROMPTS so the
// test reads exactly what the LLM received). On both backends it checks that the kept messages,
// the summary and the recall block never exceed the window, that a tool call is never parted
// from its result, that the summary is updated incrementally (each prompt quotes the previous
// summary whole, and the answer names the version it followed), and that every cut tool result
// reads back exactly through the route `blob`, by line, also over MCP as `read_blob`; another
// user reads none of it. Also: an LLM that fails, and no LLM at all (the rules summarise).
// Run by scripts/test-worker.sh, after scripts/build-pkg.sh has built pkg/dist.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { checkContext } from '../../pkg/index.js';
import { start, workerOptions } from './harness.mjs';

// The scripted LLM. A summary prompt (no JSON mode) gets the six sections, naming the turns it
// saw and the version: "SV<n>" where n is one more than the version in the quoted previous
// summary, so only a model that saw the previous summary can number it. An extraction prompt
// (JSON mode on memdag's schema) learns nothing. A prompt saying "break the model" throws.
const STAND_IN = `
export default function (env) {
  return {
    async run(model, input) {
      const prompt = input.messages[0].content;
      if (input.response_format) return { response: { facts: [] } };
      const n = Number((await env.PROMPTS.get('count')) ?? 0);
      await env.PROMPTS.put('prompt/' + String(n).padStart(4, '0'), prompt);
      await env.PROMPTS.put('count', String(n + 1));
      if (prompt.includes('break the model')) throw new Error('the model is down');
      const previous = /<previous_summary>[\\s\\S]*?\\(SV(\\d+)\\)[\\s\\S]*?<\\/previous_summary>/.exec(prompt);
      const version = previous ? Number(previous[1]) + 1 : 1;
      const turns = [...prompt.matchAll(/Turn (\\d+):/g)].map((m) => m[1]);
      return { response: '## Summary\\nDeploying services to staging (SV' + version + ').\\n## Goal\\nDeploy services to staging.\\n'
        + '## Constraints\\nNever touch prod.\\n## Progress\\nDeployed turns ' + [...new Set(turns)].join(', ') + '.\\n'
        + '## Key Decisions\\nCanary at 5%.\\n## Next Steps\\nNone\\n## Critical Context\\n/srv/app' };
    },
  };
}
`;

const SECRET = 'mcp-secret-for-the-context-tests-0123456789';
const token = (user) => `${encodeURIComponent(user)}.${createHmac('sha256', SECRET).update(`memdag-mcp:${user}`).digest('hex')}`;

let w;
before(async () => {
  const memdag = workerOptions({
    name: 'memdag',
    bindings: { AI_MODEL: '@cf/test/scripted', MCP_SECRET: SECRET },
    wrappedBindings: { AI: { scriptName: 'llm' } },
  });
  w = await start({ workers: [memdag, { name: 'llm', modules: true, script: STAND_IN, kvNamespaces: ['PROMPTS'] }] });
});
after(async () => {
  await w?.mf.dispose();
});

/** The prompts the scripted LLM received, in order, and forgets them. */
async function prompts() {
  const ns = await w.mf.getKVNamespace('PROMPTS', 'llm');
  const { keys } = await ns.list({ prefix: 'prompt/' });
  const out = [];
  for (const { name } of keys.sort((a, b) => a.name.localeCompare(b.name))) {
    out.push(await ns.get(name));
    await ns.delete(name);
  }
  await ns.put('count', '0');
  return out;
}

const WINDOW = 3000;
// The loop's clock: its 30 minutes end before the host's now, so the blobs it cuts are fresh
// when a later request opens the store (which drops blobs past a week that no record holds).
const T0 = Date.now() - 3_600_000;

/** A tool log of `lines` numbered lines: oversized every third turn. */
const toolOutput = (turn, lines) =>
  Array.from({ length: lines }, (_, i) => `turn ${turn} line ${i}: build step ok, artifact /srv/app/build-${turn}-${i}.tar\n`).join('');

/** The messages of one turn: the user, an assistant tool call, its result, the reply. */
function turnMessages(turn) {
  const call = `call-${turn}`;
  return [
    { role: 'user', content: `Turn ${turn}: please deploy service ${turn} to staging; never touch prod.` },
    { role: 'assistant', content: `Running the deploy script for service ${turn}.`, toolCalls: [call] },
    { role: 'tool', content: toolOutput(turn, turn % 3 === 0 ? 400 : 12), toolCallId: call },
    { role: 'assistant', content: `Service ${turn} is deployed; we decided to keep the canary at 5%.` },
  ];
}

/** Every kept tool result has the assistant message with its call kept before it. */
function assertPairsWhole(messages, turn) {
  const calls = new Set();
  for (const m of messages) {
    for (const c of m.toolCalls ?? []) calls.add(c);
    if (m.toolCallId) assert.ok(calls.has(m.toolCallId), `turn ${turn}: tool result ${m.toolCallId} kept without its call`);
  }
}

const MARKER = /\[memdag: truncated, \d+ of \d+ tokens shown; full text in blob (b[0-9a-f]{16}); more from line (\d+)\]\s*$/;

for (const backend of ['kv', 'do']) {
  test(`${backend}: a 30-turn agent loop through prepare and finish keeps the window, the pairs and an incremental summary`, async () => {
    const agent = `/${backend}/lin`;
    const as = { user: 'lin' };
    await prompts();
    let held = [{ role: 'system', content: 'You deploy services.' }];
    const summaries = [];
    const cut = new Map(); // blob id → [turn, line]
    let last = null;
    for (let turn = 1; turn <= 30; turn++) {
      // A turn starts with the user's message; prepare runs before the model sees it.
      const [user, ...rest] = turnMessages(turn);
      held.push(user);
      const r = await w.post(`${agent}/prepare`, { messages: held, thread: 'deploy', window: WINDOW, now: T0 + turn * 60_000 }, as);
      assert.equal(r.status, 200, `turn ${turn}: ${JSON.stringify(r.body).slice(0, 500)}`);
      const p = r.body;
      // The kept messages, the summary and the recall block fit the window, as counted.
      assert.ok(p.fits, `turn ${turn}: ${p.keptTokens} + ${p.summaryTokens} + ${p.recallTokens}`);
      assert.ok(p.keptTokens + p.summaryTokens + p.recallTokens <= WINDOW);
      assert.equal(checkContext(p.messages).totalTokens, p.keptTokens, 'the kept count is the messages\' count');
      assertPairsWhole(p.messages, turn);
      assert.equal(p.messages[0].role, 'system', 'the system message stays first');
      assert.equal(p.messages.at(-1).content, user.content, 'the newest user message is kept');
      for (const step of ['truncateMs', 'checkMs', 'summarizeMs', 'recallMs', 'totalMs']) assert.ok(p.timings[step] >= 0, step);
      if (p.compacted > 0) {
        summaries.push(p.summary);
        assert.equal(p.summarizedBy, 'llm', JSON.stringify(p.llmError));
        assert.equal(p.summaryVersion, summaries.length);
        assert.match(p.summary, new RegExp(`\\(SV${summaries.length}\\)`), 'the LLM numbered it after the previous one');
        assert.match(p.summary, /## Critical Context/);
      }
      // Every cut tool result reads back exactly through the blob route, from its marker's line.
      for (const m of p.messages.filter((x) => x.role === 'tool')) {
        const hit = MARKER.exec(m.content);
        if (!hit) continue;
        const [, id, lineText] = hit;
        const line = Number(lineText);
        const from = Number(/^turn (\d+) /.exec(m.content)[1]);
        const full = toolOutput(from, from % 3 === 0 ? 400 : 12);
        const head = full.split(/(?<=\n)/).slice(0, line - 1).join('');
        assert.ok(m.content.startsWith(head), 'the marker\'s line follows the shown head');
        let read = head;
        for (let next = line; next != null;) {
          const page = await w.call(`${agent}/blob?id=${id}&from=${next}&lines=50`, as);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          assert.equal(page.body.fromLine, next);
          read += page.body.text;
          next = page.body.nextLine;
        }
        assert.equal(read, full, `blob ${id} reads back exactly`);
        cut.set(id, [from, line]);
      }
      // The agent goes on with what prepare kept (its tool loop and reply) and writes the turn,
      // citing the one before; turn 5 also names a parent that does not exist (dropped).
      held = [...p.messages, ...rest];
      const named = turn === 5 ? ['t-typo'] : [];
      const f = await w.post(`${agent}/finish`, { turn: {
        id: `t${turn}`, thread: 'deploy', input: `Turn ${turn}: deploy service ${turn}`,
        output: `Service ${turn} deployed${last ? ` (as in [${last}])` : ''}`, parents: named, createdAt: T0 + turn * 60_000,
      } }, as);
      assert.equal(f.status, 201, JSON.stringify(f.body));
      assert.deepEqual(f.body.record.parents, last ? [last] : []);
      assert.deepEqual(f.body.cited, last ? [last] : []);
      assert.deepEqual(f.body.dropped, named);
      assert.equal(f.body.record.user, 'lin');
      assert.equal(f.body.learned.turns, 1);
      last = f.body.record.id;
    }
    console.log(`${backend}: 30 turns, ${summaries.length} summary updates by the LLM, ${cut.size} cut tool results read back`);
    assert.ok(summaries.length >= 3, `compactions: ${summaries.length}`);
    assert.ok(cut.size > 0, 'no tool result was cut');
    // The LLM got one prompt per compaction; from the second on, it quoted the previous summary.
    const got = await prompts();
    assert.equal(got.length, summaries.length);
    assert.doesNotMatch(got[0], /<previous_summary>/);
    for (let i = 1; i < got.length; i++) {
      assert.ok(got[i].includes(`<previous_summary>\n${summaries[i - 1]}\n</previous_summary>`), `prompt ${i} quotes summary ${i}`);
    }
    const stored = (await w.call(`${agent}/summary?thread=deploy`, as)).body;
    assert.equal(stored.version, summaries.length);
    assert.equal(stored.summary, summaries.at(-1));
    assert.deepEqual((await w.call(`${agent}/ancestors?id=t30&depth=64`, as)).body.ids.length, 29, 'each turn cites the one before');

    // Another user reads none of it: not the blobs, not the summary, not the turns.
    const [id] = cut.keys();
    for (const user of ['mei']) {
      const r = await w.call(`${agent}/blob?id=${id}`, { user });
      assert.equal(r.status, 404, JSON.stringify(r.body));
      assert.equal((await w.call(`${agent}/summary?thread=deploy`, { user })).status, 404);
      const p = (await w.post(`${agent}/prepare`, { messages: [{ role: 'user', content: 'Turn 31: what did we deploy?' }], thread: 'deploy', window: WINDOW }, { user })).body;
      assert.equal(p.summary, null);
      assert.doesNotMatch(p.recall, /service|staging|t\d/i, p.recall);
    }
    assert.equal((await w.call(`${agent}/blob?id=${id}`, { user: '' })).body.error.code, 'INVALID_INPUT');
    assert.equal((await w.call(`${agent}/blob?id=b0000000000000000`, as)).status, 404);

    if (backend === 'do') {
      // lin's MCP client reads the same blob by line in her object; mei's sees no such blob.
      const mcp = async (user) => {
        const client = new Client({ name: 'memdag-context-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.url), { requestInit: { headers: { authorization: `Bearer ${token(user)}` } } }));
        return client;
      };
      const [from, line] = cut.get(id);
      const lin = await mcp('lin');
      const page = await lin.callTool({ name: 'read_blob', arguments: { id, from_line: line, lines: 3 } });
      assert.equal(page.isError, false, JSON.stringify(page));
      assert.equal(JSON.parse(page.content[0].text).text, toolOutput(from, from % 3 === 0 ? 400 : 12).split(/(?<=\n)/).slice(line - 1, line + 2).join(''));
      await lin.close();
      const mei = await mcp('mei');
      const none = await mei.callTool({ name: 'read_blob', arguments: { id } });
      assert.equal(none.isError, true);
      assert.match(none.content[0].text, /^NOT_FOUND/);
      await mei.close();
    }
  });
}

test('an LLM that fails: the rules summarise, the error is reported, no message is lost', async () => {
  await prompts();
  const messages = [{ role: 'system', content: 'You deploy services.' }];
  for (let turn = 1; turn <= 12; turn++) messages.push(...turnMessages(turn));
  messages[1].content += ' And break the model.'; // an older message: in the summary prompt
  messages.push({ role: 'user', content: 'Turn 13: deploy service 13.' });
  const r = await w.post('/do/failing/prepare', { messages, thread: 'deploy', window: WINDOW, now: T0 }, { user: 'lin' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.compacted > 0);
  assert.equal(r.body.summarizedBy, 'rules');
  assert.equal(typeof r.body.llmError.code, 'string');
  assert.match(r.body.llmError.message, /the model is down/);
  assert.ok(r.body.fits);
  assert.match(r.body.summary, /## Progress/);
  assert.equal((await prompts()).length, 1, 'the LLM was asked once');
});

test('without an LLM the rules summarise, and bad input changes nothing', async () => {
  const bare = await start();
  try {
    const messages = [{ role: 'system', content: 'You deploy services.' }];
    for (let turn = 1; turn <= 12; turn++) messages.push(...turnMessages(turn));
    let r = await bare.post('/do/plain/prepare', { messages, thread: 'deploy', window: WINDOW }, { user: 'lin' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.summarizedBy, 'rules');
    assert.equal(r.body.llmError, null);
    assert.ok(r.body.compacted > 0 && r.body.fits);
    r = await bare.post('/do/plain/prepare', { messages, thread: 'deploy', window: 0 }, { user: 'lin' });
    assert.equal(r.body.error.code, 'INVALID_INPUT');
    r = await bare.post('/do/plain/prepare', { messages: 'hi', thread: 'deploy', window: WINDOW }, { user: 'lin' });
    assert.equal(r.body.error.code, 'INVALID_INPUT');
    r = await bare.post('/do/plain/prepare', { messages, thread: 'deploy', window: WINDOW, user: 'kim' }, { user: 'lin' });
    assert.equal(r.body.error.code, 'INVALID_INPUT', "lin cannot prepare kim's thread");
    assert.equal((await bare.call('/do/plain/summary?thread=deploy', { user: 'lin' })).body.version, 1, 'only the good call summarised');
    r = await bare.post('/do/plain/finish', { turn: { thread: 'deploy', input: 'x', user: 'kim' } }, { user: 'lin' });
    assert.equal(r.body.error.code, 'INVALID_INPUT');
    r = await bare.post('/do/plain/finish', { turn: { thread: 'deploy', input: 'I prefer dark mode in every editor.', output: 'ok', parents: ['ghost'] } }, { user: 'lin' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.dropped, ['ghost']);
    assert.ok(r.body.learned.learned.length > 0, 'the rules learned from the turn');
  } finally {
    await bare.mf.dispose();
  }
});

