// IndexedDB in real Chromium: the adapter conformance suite, an aborted transaction, a real
// quota error (a small quota set through the DevTools protocol), and two tabs writing to one
// store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { launch, watch } from './chromium.mjs';
import { serve } from './static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server;
let browser;

before(async () => {
  server = await serve(root);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function openPage(context) {
  const page = await context.newPage();
  const problems = watch(page);
  await page.goto(`${server.url}/tests/browser/blank.html`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 15000 });
  return { page, problems };
}

test('the storage adapter suite passes on real IndexedDB', async () => {
  const context = await browser.newContext();
  const { page, problems } = await openPage(context);
  const results = await page.evaluate(async () => {
    let n = 0;
    const { IndexedDbStorage, Memory } = window.memdag;
    // The scans for forgotten bytes read every object store of the database with the raw API.
    return window.suite.runInPage(
      () => IndexedDbStorage.open(`suite-${n++}`),
      () => IndexedDbStorage.open(`suite-${n - 1}`),
      { Memory, entries: () => window.suite.idbEntries(`suite-${n - 1}`), paged: true, snapshot: true },
    );
  });
  assert.ok(results.length >= 12);
  assert.ok(results.some((r) => r.name.startsWith('forgetUser')) && results.some((r) => r.name.startsWith('purge')));
  assert.ok(results.some((r) => r.name.startsWith('Memory.open lists a store through loadPages')) && results.some((r) => r.name.startsWith('loadPages reads one snapshot')));
  for (const r of results) assert.equal(r.error, null, r.name);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an aborted transaction loses nothing flushed before it', async () => {
  const context = await browser.newContext();
  const { page } = await openPage(context);
  const out = await page.evaluate(async () => {
    const { Memory, IndexedDbStorage } = window.memdag;
    const mem = await Memory.open({ name: 'abort' });
    const a = await mem.add({ thread: 't', input: 'flushed first' });
    await mem.flush();
    // Simulated: the page wraps IDBObjectStore.put so the next flush's transaction aborts
    // right after its first record write is issued.
    const put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (...args) {
      const request = put.apply(this, args);
      if (String(args[1]).startsWith('seg/')) this.transaction.abort();
      return request;
    };
    const b = mem.addTurn({ thread: 't', input: 'second', parents: [a.id] });
    let error;
    try {
      await mem.flush();
    } catch (e) {
      error = { code: e.code, reason: e.reason, isError: e instanceof Error };
    }
    IDBObjectStore.prototype.put = put;
    const reader = await IndexedDbStorage.open('memdag:abort');
    const durable = Memory.load(await reader.loadRange(''));
    const before = { len: durable.len, hasA: Boolean(durable.get(a.id)), hasB: Boolean(durable.get(b.id)) };
    await mem.flush();
    const after = Memory.load(await reader.loadRange('')).len;
    return { error, before, inMemory: mem.len, after };
  });
  assert.deepEqual(out.error, { code: 'STORAGE', reason: 'AbortError', isError: true });
  assert.deepEqual(out.before, { len: 1, hasA: true, hasB: false });
  assert.equal(out.inMemory, 2, 'the in-memory state keeps the unflushed turn');
  assert.equal(out.after, 2, 'the requeued change set is written by the next flush');
  await context.close();
});

test('a real QuotaExceededError is STORAGE and loses nothing flushed before it', async () => {
  const context = await browser.newContext();
  const { page } = await openPage(context);
  // A real quota error: the origin's quota is cut to 256 KB through the DevTools protocol
  // before the database is opened (Chromium reads the quota when the connection opens).
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: server.url, quotaSize: 256 * 1024 });
  const out = await page.evaluate(async () => {
    const { Memory, IndexedDbStorage } = window.memdag;
    const mem = await Memory.open({ name: 'quota' });
    const a = await mem.add({ thread: 't', input: 'small and safe' });
    await mem.flush();
    const huge = mem.addTurn({ thread: 't', input: 'huge', output: 'x'.repeat(2 * 1024 * 1024), parents: [a.id] });
    let error;
    try {
      await mem.flush();
    } catch (e) {
      error = { code: e.code, reason: e.reason };
    }
    const reader = await IndexedDbStorage.open('memdag:quota');
    const durable = Memory.load(await reader.loadRange(''));
    const state = { durable: durable.len, first: Boolean(durable.get(a.id)), inMemory: mem.len };
    // The app gives up on the huge turn: deleting it and flushing leaves memory and storage equal.
    await mem.delete(huge.id);
    await mem.flush();
    const settled = Memory.load(await reader.loadRange(''));
    reader.close();
    return { error, ...state, settled: settled.len, settledFirst: Boolean(settled.get(a.id)), memLen: mem.len };
  });
  assert.deepEqual(out, {
    error: { code: 'STORAGE', reason: 'QuotaExceededError' },
    durable: 1,
    first: true,
    inMemory: 2,
    settled: 1,
    settledFirst: true,
    memLen: 1,
  });
  await context.close();
});

test('two tabs writing to one store lose nothing', async () => {
  const context = await browser.newContext();
  const one = await openPage(context);
  const two = await openPage(context);
  const openIn = (p) => p.evaluate(async () => {
    window.mem = await window.memdag.Memory.open({ name: 'tabs' });
    return window.mem.len;
  });
  assert.equal(await openIn(one.page), 0);
  assert.equal(await openIn(two.page), 0);
  // Both tabs opened the empty store, then each writes 20 turns, flushing after each one,
  // interleaved: every flush of one tab finds the other's writes and rebases on them.
  const write = (p, tab) => p.evaluate(async (tab) => {
    const ids = [];
    let parent;
    for (let i = 0; i < 20; i++) {
      const r = await window.mem.add({ thread: tab, input: `${tab} turn ${i}`, parents: parent ? [parent] : [] });
      parent = r.id;
      ids.push(r.id);
      await window.mem.flush();
    }
    return ids;
  }, tab);
  const [idsOne, idsTwo] = await Promise.all([write(one.page, 'one'), write(two.page, 'two')]);
  const check = (p) => p.evaluate(async () => {
    await window.mem.refresh();
    const { Memory, IndexedDbStorage } = window.memdag;
    const reader = await IndexedDbStorage.open('memdag:tabs');
    const durable = Memory.load(await reader.loadRange(''));
    reader.close();
    const seqs = new Set(['one', 'two'].flatMap((t) => durable.recent(t, 100).map((r) => r.seq)));
    return { durable: durable.len, seen: window.mem.len, uniqueSeqs: seqs.size, chain: durable.ancestors(durable.recent('two', 1)[0].id).length };
  });
  const a = await check(one.page);
  const b = await check(two.page);
  assert.deepEqual(a, { durable: 40, seen: 40, uniqueSeqs: 40, chain: 19 });
  assert.deepEqual(b, a);
  assert.equal(new Set([...idsOne, ...idsTwo]).size, 40);
  assert.deepEqual([...one.problems, ...two.problems], []);
  await context.close();
});

test('a store encrypted with a WebCrypto key survives a reload and shows nothing in IndexedDB', async () => {
  const context = await browser.newContext();
  const { page, problems } = await openPage(context);
  const secret = 'passport number X9-capybara';
  const first = await page.evaluate(async (secret) => {
    const { Memory, IndexedDbStorage } = window.memdag;
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
    // The page keeps the key elsewhere (here: as a JWK in sessionStorage, for the reload).
    sessionStorage.setItem('memdag-key', JSON.stringify(await crypto.subtle.exportKey('jwk', key)));
    const mem = await Memory.open({ name: 'sealed', key });
    await mem.add({ id: 'p', thread: 't', input: secret, createdAt: 1 });
    const encrypted = mem.encrypted;
    await mem.close();
    const reader = await IndexedDbStorage.open('memdag:sealed');
    const entries = (await reader.loadRange('')).filter(([k]) => k !== 'sync/generation');
    reader.close();
    const needle = new TextEncoder().encode('X9-capybara');
    const shows = (v) => v.some((_, i) => needle.every((b, j) => v[i + j] === b));
    const magic = entries.map(([, v]) => new TextDecoder().decode(v.subarray(0, 4)));
    const versions = entries.map(([, v]) => v[4]);
    let locked;
    try {
      await Memory.open({ name: 'sealed' });
    } catch (e) {
      locked = e.code;
    }
    return { encrypted, keys: entries.map(([k]) => k), magic, versions, shown: entries.some(([, v]) => shows(v)), locked };
  }, secret);
  assert.equal(first.encrypted, true);
  assert.ok(first.keys.includes('head') && first.keys.length >= 2, first.keys.join(', '));
  assert.ok(first.magic.every((m) => m === 'MDAS'), first.magic.join(', '));
  // Chromium's WebCrypto sealed every value (AES-256-GCM, seal v2), not the wasm.
  assert.ok(first.versions.every((v) => v === 2), first.versions.join(', '));
  assert.equal(first.shown, false);
  assert.equal(first.locked, 'LOCKED');

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 15000 });
  const input = await page.evaluate(async () => {
    const { Memory } = window.memdag;
    const jwk = JSON.parse(sessionStorage.getItem('memdag-key'));
    const key = await crypto.subtle.importKey('jwk', jwk, { name: 'AES-GCM' }, true, ['encrypt', 'decrypt']);
    const mem = await Memory.open({ name: 'sealed', key });
    const record = mem.get('p');
    await mem.close();
    return record?.input;
  });
  assert.equal(input, secret);
  assert.deepEqual(problems, []);
  await context.close();
});

test('IndexedDbStorage.schemaVersion is the database version, and deleteDatabase removes a database even while it is open', async () => {
  const context = await browser.newContext();
  const { page, problems } = await openPage(context);
  const out = await page.evaluate(async () => {
    const { IndexedDbStorage, Memory } = window.memdag;
    const names = async () => (await indexedDB.databases()).map((d) => d.name);
    const version = (name) => new Promise((resolve, reject) => {
      const req = indexedDB.open(name);
      req.onsuccess = () => {
        const v = req.result.version;
        req.result.close();
        resolve(v);
      };
      req.onerror = () => reject(req.error);
    });
    const mem = await Memory.open({ name: 'doomed' });
    await mem.add({ thread: 't', input: 'kept until the database goes' });
    await mem.flush();
    const stored = await version('memdag:doomed');
    const before = await names();
    // The memory's connection is still open: the adapter closes it on `versionchange`, so the
    // deletion is not blocked.
    await IndexedDbStorage.deleteDatabase('memdag:doomed');
    const after = await names();
    const reopened = await Memory.open({ name: 'doomed' });
    const len = reopened.len;
    reopened.free();
    // Deleting a database that does not exist resolves too.
    await IndexedDbStorage.deleteDatabase('never-made');
    let bad;
    try {
      await IndexedDbStorage.deleteDatabase(42);
    } catch (e) {
      bad = e.code;
    }
    return { schema: IndexedDbStorage.schemaVersion, stored, listed: before.includes('memdag:doomed'), gone: !after.includes('memdag:doomed'), len, bad };
  });
  assert.equal(out.schema, 1);
  assert.equal(out.stored, out.schema, 'the database is at the schema version this build writes');
  assert.equal(out.listed, true);
  assert.equal(out.gone, true);
  assert.equal(out.len, 0, 'a new, empty store after the deletion');
  assert.equal(out.bad, 'INVALID_INPUT');
  assert.deepEqual(problems, []);
  await context.close();
});
