// examples/fastly-compute under Viceroy, Fastly's local Compute runtime: requests in sequence
// see each other's turns, a refused request writes nothing, agents stay apart, every route
// answers in the core's shapes, and a request naming a user (x-memdag-user) sees and changes
// only what that user may. Run by scripts/test-fastly.sh, which builds the app and passes
// VICEROY and MEMDAG_FASTLY_WASM.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const app = join(root, 'examples/fastly-compute');
let child;
let base;
let log = '';

/** A free local port. */
const freePort = () =>
  new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.env.VICEROY ?? 'viceroy', ['serve', '-C', join(app, 'fastly.toml'), '--addr', `127.0.0.1:${port}`, process.env.MEMDAG_FASTLY_WASM], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  // Viceroy compiles the app (about 5 MB of wasm) with Cranelift before it listens: about 10
  // CPU-seconds in the debug build scripts/lib.sh installs, longer on a loaded machine.
  for (let i = 0; i < 1200; i++) {
    try {
      await fetch(`${base}/probe/recent`);
      return;
    } catch {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`viceroy did not start:\n${log}`);
});

after(() => child?.kill());

const call = async (path, init) => {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    assert.fail(`${res.status} ${text}\n${log}`);
  }
};

const post = (agent, turns, user) => call(`/${agent}/turns`, { method: 'POST', body: JSON.stringify({ turns }), headers: as(user) });

/** The headers of a request acting for `user` (none: for the whole agent). */
const as = (user) => (user === undefined ? {} : { 'x-memdag-user': user });
const get = (path, user) => call(path, { headers: as(user) });
const send = (path, body, user) => call(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: as(user) });

const turn = (id, at, parents = [], input = `input of ${id}`) => ({ id, thread: 'main', user: 'lin', created_at: at, input, parents });

test('requests in sequence see each other\'s turns', async () => {
  let r = await post('agent-1', [turn('a', 1000, [], 'the deploy failed with a timeout')]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await post('agent-1', [turn('b', 2000, ['a']), turn('c', 3000, ['b'])]);
  assert.deepEqual(r.body, { added: ['b', 'c'], len: 3 });
  assert.deepEqual((await call('/agent-1/ancestors?id=c')).body.ids, ['b', 'a']);
  assert.deepEqual((await call('/agent-1/recent?thread=main')).body.ids, ['c', 'b', 'a']);
  assert.equal((await call('/agent-1/search?q=timeout&mode=bm25')).body.hits[0].id, 'a');
  assert.deepEqual((await call('/agent-2/recent?thread=main')).body.ids, []);
});

test('a refused request writes nothing', async () => {
  assert.equal((await post('agent-3', [turn('a', 1)])).status, 201);
  const r = await post('agent-3', [turn('b', 2, ['a']), turn('c', 3, ['ghost'])]);
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'UNKNOWN_PARENT');
  assert.equal((await call('/agent-3/ancestors?id=b')).status, 404);
  assert.deepEqual((await call('/agent-3/recent?thread=main')).body.ids, ['a']);
});

test('turns are read in memdag\'s JSON shape, as every face reads them', async () => {
  // A typo is refused (the shape denies unknown fields) and writes nothing.
  const typo = await post('agent-5', [{ thread: 'main', input: 'x', parent: [] }]);
  assert.equal(typo.status, 400);
  assert.equal(typo.body.error.code, 'INVALID_INPUT');
  // camelCase createdAt and a step without `ok` are taken.
  const r = await post('agent-5', [{ id: 'a', thread: 'main', createdAt: '2024-05-08T13:56:00Z', input: 'x', steps: [{ tool: 'ls' }] }]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual((await call('/agent-5/recent?thread=main')).body.ids, ['a']);
});

test('routes that do not exist, and methods a route does not take', async () => {
  const none = await get('/agent-6/nothing');
  assert.equal(none.status, 404);
  assert.equal(none.body.error.code, 'NOT_FOUND');
  const wrong = await get('/agent-6/turns');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.body.error.code, 'INVALID_INPUT');
  const missing = await get('/agent-6/get');
  assert.equal(missing.status, 400);
  assert.match(missing.body.error.message, /id/);
  const mode = await get('/agent-6/search?q=x&mode=fuzzy');
  assert.equal(mode.body.error.code, 'INVALID_INPUT');
});

// Two users of one agent: ada's and lin's turns, and one of lin's tagged `shared`.
const seedUsers = async (agent) => {
  const r = await post(agent, [
    { id: 'l1', thread: 'main', user: 'lin', created_at: 1000, input: 'lin deployed the api; the deploy failed with a timeout' },
    { id: 'a1', thread: 'main', user: 'ada', created_at: 2000, input: 'ada asked about the timeout in the deploy', parents: ['l1'] },
    { id: 'l2', thread: 'main', user: 'lin', created_at: 3000, input: 'lin raised the TIMEOUT to 30 s', parents: ['a1'] },
    { id: 's1', thread: 'main', user: 'lin', created_at: 4000, input: 'the team runbook: deploys go out on tuesdays', tags: ['shared'] },
  ]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
};

test('get answers the record in memdag\'s JSON shape, to those who may see it', async () => {
  await seedUsers('agent-7');
  const r = await get('/agent-7/get?id=a1');
  assert.equal(r.status, 200);
  assert.deepEqual(
    { id: r.body.id, thread: r.body.thread, user: r.body.user, createdAt: r.body.createdAt, parents: r.body.parents },
    { id: 'a1', thread: 'main', user: 'ada', createdAt: '1970-01-01T00:00:02Z', parents: ['l1'] },
  );
  assert.equal(r.body.embedding, undefined, 'no vector unless asked for');
  assert.equal((await get('/agent-7/get?id=a1', 'ada')).body.id, 'a1');
  assert.equal((await get('/agent-7/get?id=s1', 'ada')).body.id, 's1', 'a shared record');
  const hidden = await get('/agent-7/get?id=l1', 'ada');
  assert.equal(hidden.status, 404);
  assert.equal(hidden.body.error.code, 'NOT_FOUND');
  assert.equal((await get('/agent-7/get?id=ghost')).status, 404);
});

test('a user header keeps every read to that user\'s records and the shared ones', async () => {
  await seedUsers('agent-8');
  assert.deepEqual((await get('/agent-8/recent?thread=main')).body.ids, ['s1', 'l2', 'a1', 'l1']);
  assert.deepEqual((await get('/agent-8/recent?thread=main&n=2')).body.ids, ['s1', 'l2']);
  assert.deepEqual((await get('/agent-8/recent?thread=main', 'ada')).body.ids, ['s1', 'a1']);
  assert.deepEqual((await get('/agent-8/ancestors?id=l2')).body.ids, ['a1', 'l1']);
  assert.deepEqual((await get('/agent-8/ancestors?id=l2&depth=1')).body.ids, ['a1']);
  assert.equal((await get('/agent-8/ancestors?id=l2', 'ada')).status, 404, 'the walk starts at a record ada may see');
  assert.deepEqual((await get('/agent-8/ancestors?id=a1', 'ada')).body.ids, []);
  assert.deepEqual((await get('/agent-8/descendants?id=l1')).body.ids, ['a1', 'l2']);
  assert.deepEqual((await get('/agent-8/descendants?id=l1&depth=1')).body.ids, ['a1']);
  assert.deepEqual((await get('/agent-8/descendants?id=a1', 'ada')).body.ids, [], 'l2 is lin\'s');
  // Search borrows scores along a thread, so the shared s1 may come too; lin's turns never
  // reach ada.
  const all = (await get('/agent-8/search?q=timeout&mode=bm25')).body.hits.map((h) => h.id);
  assert.ok(['a1', 'l1', 'l2'].every((id) => all.includes(id)), JSON.stringify(all));
  const ada = (await get('/agent-8/search?q=timeout&mode=bm25', 'ada')).body.hits.map((h) => h.id);
  assert.equal(ada[0], 'a1');
  assert.ok(ada.every((id) => id === 'a1' || id === 's1'), JSON.stringify(ada));
  // Query parameters are percent-decoded: two words, not one with a %20 in it.
  assert.equal((await get('/agent-8/search?q=raised%20TIMEOUT&mode=bm25')).body.hits[0].id, 'l2');
  assert.equal((await get('/agent-8/search?q=raised+TIMEOUT&mode=bm25')).body.hits[0].id, 'l2');
  assert.equal((await get('/agent-8/search?q=timeout&mode=bm25&k=1')).body.hits.length, 1);
  // An empty name names nobody: refused, never read as every user.
  const blank = await get('/agent-8/recent?thread=main', ' ');
  assert.equal(blank.status, 400);
  assert.equal(blank.body.error.code, 'INVALID_INPUT');
});

test('a user header writes turns as that user, and refuses turns of another', async () => {
  let r = await post('agent-9', [{ id: 'x', thread: 'main', input: 'no user named' }], 'ada');
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal((await get('/agent-9/get?id=x')).body.user, 'ada');
  r = await post('agent-9', [{ id: 'y', thread: 'main', input: 'fine', user: 'ada' }, { id: 'z', thread: 'main', input: 'not ada', user: 'lin' }], 'ada');
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'INVALID_INPUT');
  assert.match(r.body.error.message, /lin/);
  assert.deepEqual((await get('/agent-9/recent?thread=main')).body.ids, ['x'], 'the refused request wrote nothing');
});

test('grep finds a pattern in the raw logs, case-insensitive on asking, within the user\'s records', async () => {
  await seedUsers('agent-10');
  const exact = (await get('/agent-10/grep?pattern=TIMEOUT')).body.matches;
  assert.deepEqual(exact.map((m) => [m.id, m.field]), [['l2', 'input']]);
  const any = (await get('/agent-10/grep?pattern=time%5Cw*&i=1')).body.matches.map((m) => m.id);
  assert.deepEqual([...new Set(any)].sort(), ['a1', 'l1', 'l2']);
  assert.deepEqual((await get('/agent-10/grep?pattern=timeout&i=1', 'ada')).body.matches.map((m) => m.id), ['a1']);
  const bad = await get('/agent-10/grep?pattern=(');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'INVALID_INPUT');
});

test('recall builds the block for the request\'s user only, and counts its uses', async () => {
  await seedUsers('agent-11');
  assert.equal((await send('/agent-11/memory', { kind: 'personal', text: 'Ada wants deploy timeouts under a minute' }, 'ada')).status, 201);
  const r = await send('/agent-11/recall', { thread: 'main', queryText: 'deploy timeout', budgetTokens: 500 }, 'ada');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const ids = r.body.items.map((i) => i.id);
  assert.ok(ids.includes('a1') && ids.includes('s1'), JSON.stringify(ids));
  assert.ok(!ids.includes('l1') && !ids.includes('l2'), `lin's turns reached ada's recall: ${ids}`);
  assert.ok(r.body.tokens <= 500 && r.body.block.includes('ada asked'), r.body.block);
  assert.ok(!r.body.block.includes('lin raised'), r.body.block);
  // The recall counted a use of ada's item, and that count was written.
  assert.equal(r.body.items.find((i) => i.section === 'known')?.text.includes('under a minute'), true, r.body.block);
  assert.equal((await get('/agent-11/memory', 'ada')).body.items[0].uses, 1);
  // A recall naming another user than the request's is refused.
  const other = await send('/agent-11/recall', { thread: 'main', user: 'lin' }, 'ada');
  assert.equal(other.body.error.code, 'INVALID_INPUT');
  // Without a header it is agent-wide: lin's turns come too.
  const wide = await send('/agent-11/recall', { thread: 'main', queryText: 'timeout' });
  assert.ok(wide.body.items.some((i) => i.id === 'l2'), JSON.stringify(wide.body.items));
  const bad = await send('/agent-11/recall', { thread: 'main', budgetTokens: 'many' });
  assert.equal(bad.status, 400);
  const typo = await send('/agent-11/recall', { thread: 'main', budget_tokens: 500 });
  assert.equal(typo.body.error.code, 'INVALID_INPUT', 'a misspelt name is refused, not ignored');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'INVALID_INPUT');
});

test('memory items: added as the user, listed to them, deleted softly by them alone', async () => {
  const added = await send('/agent-12/memory', { kind: 'personal', text: 'Ada prefers green tea' }, 'ada');
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const { id, user, kind, status } = added.body.item;
  assert.deepEqual({ user, kind, status, outcome: added.body.outcome }, { user: 'ada', kind: 'personal', status: 'active', outcome: 'added' });
  assert.equal((await send('/agent-12/memory', { kind: 'fact', text: 'Lin uses vim' }, 'lin')).status, 201);
  const other = await send('/agent-12/memory', { kind: 'fact', text: 'x', user: 'lin' }, 'ada');
  assert.equal(other.body.error.code, 'INVALID_INPUT');
  assert.deepEqual((await get('/agent-12/memory', 'ada')).body.items.map((i) => i.text), ['Ada prefers green tea']);
  assert.deepEqual((await get('/agent-12/memory?kind=fact')).body.items.map((i) => i.text), ['Lin uses vim']);
  assert.equal((await get('/agent-12/memory?kind=mood')).body.error.code, 'INVALID_INPUT');
  assert.equal((await get('/agent-12/memory')).body.items.length, 2);
  // Ada changes her item: a new version, the old one in its history. Lin may not.
  assert.equal((await send(`/agent-12/memory/update?id=${id}`, { text: 'Ada prefers jasmine tea' }, 'lin')).status, 404);
  const updated = await send(`/agent-12/memory/update?id=${id}`, { text: 'Ada prefers jasmine tea' }, 'ada');
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual([updated.body.text, updated.body.version], ['Ada prefers jasmine tea', 2]);
  const history = (await get(`/agent-12/memory/history?id=${id}`, 'ada')).body.history;
  assert.deepEqual(history.map((h) => [h.version, h.text]), [[1, 'Ada prefers green tea'], [2, 'Ada prefers jasmine tea']]);
  assert.equal((await get(`/agent-12/memory/history?id=${id}`, 'lin')).status, 404);
  // Lin cannot even see ada's item; ada deletes it softly: it keeps its history.
  assert.equal((await send(`/agent-12/memory/delete?id=${id}`, '', 'lin')).status, 404);
  const deleted = await send(`/agent-12/memory/delete?id=${id}`, '', 'ada');
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.equal(deleted.body.status, 'deleted');
  assert.deepEqual((await get('/agent-12/memory', 'ada')).body.items, []);
  assert.deepEqual((await get('/agent-12/memory?all=1', 'ada')).body.items.map((i) => [i.id, i.status]), [[id, 'deleted']]);
});

test('delete removes a record for good and splices the DAG; a user deletes only their own', async () => {
  await seedUsers('agent-13');
  assert.equal((await send('/agent-13/delete?id=l1', '', 'ada')).status, 404, 'ada may not see l1');
  const shared = await send('/agent-13/delete?id=s1', '', 'ada');
  assert.equal(shared.status, 400);
  assert.equal(shared.body.error.code, 'INVALID_INPUT');
  const r = await send('/agent-13/delete?id=a1', '', 'ada');
  assert.deepEqual(r.body, { deleted: 'a1' });
  assert.equal((await get('/agent-13/get?id=a1')).status, 404);
  assert.deepEqual((await get('/agent-13/get?id=l2')).body.parents, ['l1'], 'l2 now rests on a1\'s parent');
  assert.deepEqual((await get('/agent-13/ancestors?id=l2')).body.ids, ['l1']);
  assert.equal((await send('/agent-13/delete?id=a1', '')).status, 404);
});

test('forget erases every record of the request\'s user and nothing of another', async () => {
  await seedUsers('agent-14');
  assert.equal((await send('/agent-14/memory', { kind: 'personal', text: 'Ada likes rain' }, 'ada')).status, 201);
  const nobody = await send('/agent-14/forget', '');
  assert.equal(nobody.status, 400, 'forget names its user');
  const r = await send('/agent-14/forget', '', 'ada');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.records.length, 2, JSON.stringify(r.body));
  assert.ok(r.body.records.includes('a1'));
  assert.deepEqual((await get('/agent-14/recent?thread=main')).body.ids, ['s1', 'l2', 'l1']);
  assert.deepEqual((await get('/agent-14/memory')).body.items, []);
  assert.equal((await get('/agent-14/grep?pattern=ada')).body.matches.length, 0);
});

test('export gives the agent as JSONL, and import reads it into another agent', async () => {
  await seedUsers('agent-15');
  assert.equal((await send('/agent-15/memory', { kind: 'fact', text: 'deploys go out on tuesdays' }, 'lin')).status, 201);
  const res = await fetch(`${base}/agent-15/export`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /ndjson/);
  const text = await res.text();
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.filter((l) => l.id).map((l) => l.id), ['l1', 'a1', 'l2', 's1']);
  assert.equal(lines.filter((l) => l.memory).length, 1);
  assert.equal((await get('/agent-15/export', 'ada')).status, 400, 'no user exports the agent');
  const imported = await send('/agent-16/import', text);
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  assert.deepEqual({ turns: imported.body.turns, items: imported.body.items }, { turns: 4, items: 1 });
  assert.deepEqual((await get('/agent-16/recent?thread=main')).body.ids, ['s1', 'l2', 'a1', 'l1']);
  assert.deepEqual((await get('/agent-16/get?id=a1')).body, (await get('/agent-15/get?id=a1')).body);
  assert.equal((await send('/agent-17/import', '')).body.error.code, 'INVALID_INPUT');
  assert.equal((await send('/agent-17/import', text, 'ada')).status, 400);
});

test('the model tools: schemas in each format, and calls kept to the request\'s user', async () => {
  const openai = (await get('/agent-18/tools')).body;
  const names = openai.map((t) => t.function.name);
  assert.ok(['search', 'recall', 'remember', 'read_blob'].every((n) => names.includes(n)), JSON.stringify(names));
  assert.ok((await get('/agent-18/tools?format=mcp')).body.every((t) => t.inputSchema.type === 'object'));
  assert.equal((await get('/agent-18/tools?format=gopher')).body.error.code, 'INVALID_INPUT');
  await seedUsers('agent-18');
  const remembered = await send('/agent-18/tool?name=remember', { text: 'Ada deploys on fridays', kind: 'fact' }, 'ada');
  assert.equal(remembered.status, 200, JSON.stringify(remembered.body));
  assert.equal(remembered.body.memory.text, 'Ada deploys on fridays');
  // The item is the request's user's: the model names no user.
  assert.deepEqual((await get('/agent-18/memory', 'ada')).body.items.map((i) => [i.text, i.user]), [['Ada deploys on fridays', 'ada']]);
  assert.deepEqual((await get('/agent-18/memory', 'lin')).body.items, []);
  const hits = (await send('/agent-18/tool?name=search', { query: 'timeout', mode: 'bm25' }, 'ada')).body.hits.map((h) => h.id);
  assert.ok(hits.includes('a1') && !hits.includes('l1') && !hits.includes('l2'), JSON.stringify(hits));
  const typo = await send('/agent-18/tool?name=search', { qurey: 'x' }, 'ada');
  assert.equal(typo.status, 400);
  assert.equal(typo.body.error.code, 'INVALID_INPUT');
  assert.equal((await send('/agent-18/tool?name=teleport', {})).body.error.code, 'INVALID_INPUT');
});
