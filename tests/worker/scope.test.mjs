// examples/cloudflare-worker on real workerd (through miniflare), both backends: every read
// route keeps to the user of the header x-memdag-user (a second user sees nothing of the first,
// a blank header is INVALID_INPUT), and the routes for records and users: descendants, the
// thread and user listings, delete, forget-user, item update, export and import.
// Run by scripts/test-worker.sh, after scripts/build-pkg.sh has built pkg/dist.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { start } from './harness.mjs';

let w;
before(async () => {
  w = await start();
});
after(async () => {
  await w?.mf.dispose();
});

const T0 = Date.UTC(2024, 4, 1, 9);
const DAY = 86_400_000;

/** lin's turns in threads a and b, kim's in c, one of kim's shared with everyone. */
async function seed(agent) {
  const lin = [
    { id: 'l1', thread: 'a', createdAt: T0, input: 'the lighthouse keeper password is heron', output: 'noted' },
    { id: 'l2', thread: 'a', createdAt: T0 + DAY, input: 'lighthouse lamp replaced', output: 'ok', parents: ['l1', 's1'],
      steps: [{ tool: 'lamp', args: '{}', result: 'lighthouse lamp: 400 W', ok: true }] },
    { id: 'l3', thread: 'b', createdAt: T0 + 2 * DAY, input: 'lighthouse paint is blue', output: 'fine' },
  ];
  const kim = [
    { id: 's1', thread: 'c', createdAt: T0, input: 'the lighthouse opens at nine', tags: ['shared'] },
    { id: 'k1', thread: 'c', createdAt: T0 + DAY, input: 'kim lighthouse ticket 4471', parents: ['s1'] },
  ];
  let r = await w.post(`${agent}/turns`, { turns: kim }, { user: 'kim' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await w.post(`${agent}/turns`, { turns: lin }, { user: 'lin' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  r = await w.post(`${agent}/memory`, { kind: 'personal', text: 'Lin keeps the lighthouse', relation: 'job', object: 'lighthouse', createdAt: T0 }, { user: 'lin' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.item.id;
}

for (const backend of ['kv', 'do']) {
  test(`${backend}: every read route keeps to the header's user; a second user sees nothing of the first`, async () => {
    const agent = `/${backend}/scope-read`;
    const item = await seed(agent);
    const as = (user) => (path) => w.call(`${agent}/${path}`, { user });
    const lin = as('lin');
    const kim = as('kim');
    const mei = as('mei');

    // A turn takes the request's user; one naming another user is refused, whole.
    assert.equal((await lin('get?id=l1')).body.user, 'lin');
    let r = await w.post(`${agent}/turns`, { turns: [{ id: 'x', thread: 'a', user: 'kim', input: 'forged' }] }, { user: 'lin' });
    assert.equal(r.body.error?.code, 'INVALID_INPUT', JSON.stringify(r.body));
    assert.equal((await w.call(`${agent}/get?id=x`)).status, 404);

    // get, ancestors, descendants, recent
    assert.equal((await lin('get?id=l1')).status, 200);
    assert.equal((await kim('get?id=l1')).status, 404);
    assert.equal((await mei('get?id=s1')).status, 200, 'a shared record is everyone\'s to read');
    assert.equal((await w.call(`${agent}/get?id=l1`)).status, 200, 'no user: store-wide');
    assert.deepEqual((await lin('ancestors?id=l2')).body.ids, ['l1', 's1']);
    assert.equal((await kim('ancestors?id=l2')).body.error.code, 'NOT_FOUND');
    assert.deepEqual((await kim('ancestors?id=k1')).body.ids, ['s1']);
    assert.deepEqual((await lin('descendants?id=l1')).body.ids, ['l2']);
    assert.deepEqual((await kim('descendants?id=s1')).body.ids, ['k1'], "lin's child of the shared turn is not kim's");
    assert.deepEqual((await w.call(`${agent}/descendants?id=s1`)).body.ids.sort(), ['k1', 'l2']);
    assert.equal((await mei('descendants?id=l1')).body.error.code, 'NOT_FOUND');
    assert.deepEqual((await lin('recent?thread=a')).body.ids, ['l2', 'l1']);
    assert.deepEqual((await kim('recent?thread=a')).body.ids, []);

    // search and grep
    const ids = (hits) => hits.map((h) => h.id).sort();
    const linHits = ids((await lin('search?q=lighthouse&mode=bm25&k=20')).body.hits);
    assert.ok(['l1', 'l2', 'l3'].every((id) => linHits.includes(id)) && linHits.every((id) => [item, 'l1', 'l2', 'l3', 's1'].includes(id)), `${linHits}`);
    assert.deepEqual(ids((await lin('search?q=opens%20nine&mode=bm25')).body.hits), ['s1'], 'a shared turn is found by everyone');
    assert.deepEqual(ids((await kim('search?q=lighthouse&mode=bm25&k=20')).body.hits), ['k1', 's1']);
    assert.deepEqual(ids((await mei('search?q=lighthouse&k=20')).body.hits), ['s1']);
    const heron = ids((await mei('search?q=heron&k=20')).body.hits);
    assert.ok(heron.every((id) => id === 's1'), `not even by vector: ${heron}`);
    assert.deepEqual((await lin('grep?pattern=400%20W')).body.matches.map((m) => m.id), ['l2']);
    assert.deepEqual((await kim('grep?pattern=400%20W')).body.matches, []);
    assert.deepEqual((await kim('grep?pattern=lighthouse')).body.matches.map((m) => m.id).sort(), ['k1', 's1']);

    // recall: the body's user must be the header's
    r = await w.post(`${agent}/recall`, { thread: 'a', queryText: 'lighthouse password', now: T0 + 3 * DAY }, { user: 'kim' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.items.every((i) => ['s1', 'k1'].includes(i.id)), JSON.stringify(r.body.items.map((i) => i.id)));
    assert.doesNotMatch(r.body.block, /heron/);
    r = await w.post(`${agent}/recall`, { thread: 'a', queryText: 'lighthouse password', now: T0 + 3 * DAY }, { user: 'lin' });
    assert.match(r.body.block, /heron/);
    r = await w.post(`${agent}/recall`, { thread: 'a', user: 'lin' }, { user: 'kim' });
    assert.equal(r.body.error.code, 'INVALID_INPUT');

    // listings
    const groups = (g) => g.map(({ name, count }) => [name, count]);
    assert.deepEqual(groups((await lin('threads')).body.threads), [['b', 1], ['a', 2]]);
    assert.deepEqual(groups((await kim('threads')).body.threads), [['c', 2]]);
    assert.deepEqual((await mei('threads')).body.threads, []);
    assert.deepEqual(groups((await w.call(`${agent}/threads`)).body.threads).sort(), [['a', 2], ['b', 1], ['c', 2]]);
    assert.deepEqual(groups((await lin('users')).body.users), [['lin', 4]], 'three turns and an item');
    assert.deepEqual((await mei('users')).body.users, []);
    assert.deepEqual(groups((await w.call(`${agent}/users`)).body.users).sort(), [['kim', 2], ['lin', 4]]);

    // long-term memory, working memory, timeline, graph
    assert.deepEqual((await lin('memory')).body.items.map((i) => i.id), [item]);
    assert.deepEqual((await kim('memory')).body.items, []);
    assert.equal((await lin(`memory/history?id=${item}`)).body.history.length, 1);
    assert.equal((await kim(`memory/history?id=${item}`)).status, 404);
    assert.equal((await w.post(`${agent}/work`, { thread: 'a', field: 'goal', op: 'set', value: 'paint the lighthouse', at: T0 }, { user: 'lin' })).status, 200);
    assert.equal((await lin('work?thread=a')).body.fields.goal.value, 'paint the lighthouse');
    assert.deepEqual((await kim('work?thread=a')).body.fields, {});
    r = await w.post(`${agent}/work`, { thread: 'a', field: 'goal', op: 'set', value: 'x', user: 'lin' }, { user: 'kim' });
    assert.equal(r.body.error.code, 'INVALID_INPUT', 'kim cannot write lin\'s working memory');
    const days = async (f) => (await f('timeline')).body.days.flatMap((d) => d.entries.map((e) => e.id)).sort();
    assert.deepEqual(await days(kim), ['k1', 's1']);
    assert.deepEqual(await days(lin), [item, 'l1', 'l2', 'l3'].sort(), "a user's own timeline");
    assert.deepEqual((await kim('graph/neighbors?entity=lighthouse')).body.edges, []);
    assert.deepEqual((await lin('graph/neighbors?entity=lighthouse')).body.edges.map((e) => e.id), [item]);

    // the tool route takes the header's user too
    r = await w.post(`${agent}/tool?name=search`, { query: 'lighthouse', mode: 'bm25' }, { user: 'mei' });
    assert.deepEqual(r.body.hits.map((h) => h.id), ['s1']);

    // A blank user names nobody: INVALID_INPUT on every route, never every user's memory.
    for (const path of ['get?id=l1', 'ancestors?id=l2', 'descendants?id=l1', 'recent?thread=a', 'threads', 'users', 'search?q=lighthouse',
      'grep?pattern=lighthouse', 'memory', `memory/history?id=${item}`, 'work?thread=a', 'timeline', 'graph/neighbors?entity=lighthouse', 'export']) {
      for (const blank of ['', '   ']) {
        r = await w.call(`${agent}/${path}`, { user: blank });
        assert.equal(r.status, 400, `${path} with user ${JSON.stringify(blank)}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'INVALID_INPUT');
      }
    }
    r = await w.post(`${agent}/recall`, { thread: 'a' }, { user: ' ' });
    assert.equal(r.body.error.code, 'INVALID_INPUT');
    assert.equal((await w.call(`${agent}/search?q=lighthouse&user=`)).body.error.code, 'INVALID_INPUT', 'nor ?user=');
    assert.equal((await w.call(`${agent}/get?id=l1&user=%20%09`)).body.error.code, 'INVALID_INPUT');
    // Store-wide maintenance routes refuse a user.
    assert.equal((await lin('stored')).body.error.code, 'INVALID_INPUT');
    assert.equal((await w.post(`${agent}/purge`, {}, { user: 'lin' })).body.error.code, 'INVALID_INPUT');
  });

  test(`${backend}: delete, item update and forget-user change only the user's own records`, async () => {
    const agent = `/${backend}/scope-write`;
    const item = await seed(agent);
    const post = (path, user, body) => w.post(`${agent}/${path}`, body, { user });

    // delete a record
    assert.equal((await post('delete?id=l1', 'kim')).body.error.code, 'NOT_FOUND');
    assert.equal((await post('delete?id=s1', 'lin')).body.error.code, 'INVALID_INPUT', "kim's shared turn is not lin's to delete");
    let r = await post('delete?id=l1', 'lin');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.deleted, 'l1');
    assert.equal(r.body.record.input, 'the lighthouse keeper password is heron');
    assert.equal((await w.call(`${agent}/get?id=l1`)).status, 404);
    assert.deepEqual((await w.call(`${agent}/ancestors?id=l2`, { user: 'lin' })).body.ids, ['s1'], 'l2 keeps its other parent');
    assert.equal((await post('delete?id=l1', 'lin')).status, 404);
    assert.equal((await post('delete')).status, 400, 'id is required');

    // compact someone else's record
    assert.equal((await post('compact?id=l2', 'kim')).status, 404);
    assert.equal((await post('compact?id=l2', 'lin')).status, 200);

    // update and delete an item
    assert.equal((await post(`memory/update?id=${item}`, 'kim', { text: 'Kim keeps it' })).status, 404);
    r = await post(`memory/update?id=${item}`, 'lin', { text: 'Lin keeps the old lighthouse', at: T0 + DAY });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.text, 'Lin keeps the old lighthouse');
    assert.equal((await w.call(`${agent}/memory`, { user: 'lin' })).body.items[0].text, 'Lin keeps the old lighthouse');
    assert.equal((await post(`memory/update?id=${item}`, 'lin', { colour: 'red' })).body.error.code, 'INVALID_INPUT');
    assert.equal((await post('memory/update?id=ghost', 'lin', { text: 'x' })).status, 404);
    assert.equal((await post(`memory/delete?id=${item}`, 'kim')).status, 404);
    assert.equal((await post(`memory/delete?id=${item}`, 'lin')).body.status, 'deleted');

    // forget-user: lin's turns go, kim's stay
    assert.equal((await post('forget-user')).body.error.code, 'INVALID_INPUT', 'the user must be named');
    r = await post('forget-user', 'lin');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.records, ['l2', 'l3', item], 'her turns and her item');
    assert.deepEqual((await w.call(`${agent}/memory?all=1`, { user: 'lin' })).body.items, []);
    assert.deepEqual((await w.call(`${agent}/threads`, { user: 'lin' })).body.threads, []);
    assert.deepEqual((await w.call(`${agent}/search?q=lighthouse&mode=bm25`, { user: 'lin' })).body.hits.map((h) => h.id), ['s1']);
    assert.deepEqual((await w.call(`${agent}/recent?thread=c`)).body.ids, ['k1', 's1'], "kim's turns stay");
    const grep = (await w.call(`${agent}/stored?find=${encodeURIComponent('lighthouse paint is blue')}`)).body.entries;
    assert.deepEqual(grep.filter(([, , , hit]) => hit), [], 'no stored byte of lin\'s turn');
  });

  test(`${backend}: export and import, store-wide and for one user`, async () => {
    const agent = `/${backend}/scope-export`;
    await seed(agent);
    // A user's export: only their lines, links to others' records left out.
    let r = await w.call(`${agent}/export`, { user: 'lin' });
    assert.equal(r.status, 200);
    const lines = r.body.trim().split('\n').map((l) => JSON.parse(l));
    const holder = (v) => v.memory ?? v.work ?? v;
    assert.deepEqual(lines.map((v) => holder(v).id ?? 'work').sort(), [lines.find((v) => v.memory).memory.id, 'l1', 'l2', 'l3'].sort());
    assert.ok(lines.every((v) => holder(v).user === 'lin'), r.body);
    assert.deepEqual(lines.find((v) => v.id === 'l2').parents, ['l1'], 'the shared parent s1 is not lin\'s');
    assert.deepEqual((await w.call(`${agent}/export`, { user: 'mei' })).body, '');
    const linExport = r.body;

    // It imports into another store as lin, and not as kim.
    const other = `/${backend}/scope-import`;
    r = await w.post(`${other}/import`, undefined, { user: 'kim', raw: linExport });
    assert.equal(r.body.error.code, 'INVALID_INPUT', JSON.stringify(r.body));
    assert.match(r.body.error.message, /line 1/);
    assert.deepEqual((await w.call(`${other}/threads`)).body.threads, [], 'nothing imported');
    r = await w.post(`${other}/import`, undefined, { user: 'lin', raw: linExport });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([r.body.turns, r.body.items], [3, 1]);
    assert.deepEqual((await w.call(`${other}/ancestors?id=l2`, { user: 'lin' })).body.ids, ['l1']);
    // A line naming no user becomes the request's user's.
    r = await w.post(`${other}/import`, undefined, { user: 'mei', raw: '{"id":"m1","thread":"m","input":"mei was here","createdAt":1}\n' });
    assert.equal(r.body.turns, 1, JSON.stringify(r.body));
    assert.equal((await w.call(`${other}/get?id=m1`)).body.user, 'mei');
    assert.equal((await w.post(`${other}/import`, undefined, { user: 'mei', raw: 'not json' })).body.error.code, 'INVALID_INPUT');
    assert.equal((await w.call(`${agent}/export?format=markdown`, { user: 'lin' })).body.error.code, 'INVALID_INPUT', 'markdown is store-wide');

    // Store-wide: JSONL, Markdown and the snapshot each carry every user's records.
    const all = (await w.call(`${agent}/export`)).body;
    assert.deepEqual(all.trim().split('\n').map((l) => JSON.parse(l)).map((v) => (v.memory ?? v).user).sort(), ['kim', 'kim', 'lin', 'lin', 'lin', 'lin']);
    const md = (await w.call(`${agent}/export?format=markdown`)).body.files;
    assert.ok(md.some(([path]) => path.startsWith('threads/')), JSON.stringify(md.map(([p]) => p)));
    r = await w.post(`/${backend}/scope-md/import?format=markdown`, { files: md });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.turns, 5);
    assert.deepEqual((await w.call(`/${backend}/scope-md/export?format=markdown`)).body.files, md, 'export, import, export: the same files');
    const snapshot = (await w.call(`${agent}/export?format=snapshot`)).body;
    assert.ok(snapshot instanceof Uint8Array && snapshot.length > 100);
    assert.equal(new TextDecoder().decode(snapshot.subarray(0, 8)), 'MDAGEXP1');
    r = await w.post(`/${backend}/scope-snap/import?format=snapshot`, undefined, { raw: snapshot, headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((await w.call(`/${backend}/scope-snap/descendants?id=s1`)).body.ids.sort(), ['k1', 'l2']);
    assert.equal((await w.call(`${agent}/export?format=zip`)).body.error.code, 'INVALID_INPUT');
  });
}
