// The one conformance suite of memdag storage adapters. It runs against every adapter:
// MemoryStorage, KeyValueStorage and IndexedDbStorage (fake-indexeddb) in Node, IndexedDbStorage
// in real Chromium (tests/browser/storage.test.mjs runs it inside a page) and
// DurableObjectStorage on workerd (tests/worker/suite-worker.mjs). So it imports nothing, not
// even the package (each runner passes the `Memory` of the package entry it loaded): each case
// gets a fresh adapter, a `reopen`, and the runner's `env`.
//
//   runStorageAdapterTests(makeAdapter, { test, Memory, entries, paged, snapshot })  one node:test case per check
//   runInPage(makeAdapter, reopen, { Memory, entries, paged, snapshot })  runs every case, returns [{ name, error }]
//
// `env.Memory` is the package's Memory class (for the cases that write a real memory through
// the adapter: forgetting a user and purging leave no byte behind). `env.entries(adapter)`
// reads every entry the backend holds, beneath the adapter where the runner can (the Map of a
// KeyValueStorage, every object store of the IndexedDB database, the Durable Object's whole
// storage); by default the adapter's own `loadRange('')`.
//
// `env.paged` says the adapter lists a page at a time (the optional `loadPages`: IndexedDB,
// Durable Objects), and adds `pagedCases`. `env.snapshot` says its pages are one snapshot (one
// IndexedDB transaction), and adds `snapshotCases`. A runner declares both: the suite does not
// guess from the adapter, so an adapter that lost its `loadPages` fails rather than skips.

/** Fails with `message` unless `ok`. */
function check(ok, message) {
  if (!ok) throw new Error(message);
}

const bytes = (...b) => new Uint8Array(b);
const same = (a, b) => a instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
const keysOf = (entries) => entries.map(([k]) => k);

async function rejects(promise, code, message) {
  try {
    await promise;
  } catch (e) {
    check(e instanceof Error, `${message}: rejects with an Error`);
    check(e.code === code, `${message}: code ${e.code}, expected ${code}`);
    return e;
  }
  throw new Error(`${message}: expected a rejection`);
}

/** The bytes of `text` in UTF-8. */
const utf8 = (text) => new TextEncoder().encode(text);

/** Whether `bytes` holds the bytes of `needle`. */
function holds(bytes, needle) {
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** `[text, key]` for each of `texts` found in a stored key or value of the backend. */
async function storedTexts(env, adapter, texts) {
  const entries = await (env.entries ?? ((a) => a.loadRange('')))(adapter);
  const found = [];
  for (const text of texts) {
    const needle = utf8(text);
    for (const [key, value] of entries) {
      if (String(key).includes(text) || holds(value instanceof Uint8Array ? value : new Uint8Array(value), needle)) {
        found.push([text, String(key)]);
      }
    }
  }
  return found;
}

/** A memory of the package on `adapter`, without the cross-tab channel. */
function openMemory(env, storage, name) {
  check(typeof env?.Memory?.open === 'function', 'the runner passes env.Memory (the package\'s Memory class)');
  return env.Memory.open({ name, storage, sync: false });
}

// Distinctive words (one search term each, unchanged by stemming), so a stored byte of them
// anywhere (a record, the full-text index, working memory, an item's log) is found.
const GONE_USER = 'quokkauser';
const GONE = ['zanzibarquokka', 'xylophonemarmot', 'quillwortnebula', 'kumquatzeppelin'];
const KEPT = 'lighthousecormorant';
const EPHEMERAL = ['wombatdoorcode', 'periwinkletoken'];
const LASTING = 'basaltarchive';

/** Every case: [name, async (adapter, reopen, env) => void]. */
export const cases = [
  ['load of a missing key is undefined', async (a) => {
    check((await a.load('nope')) === undefined, 'undefined');
  }],
  ['save then load returns equal bytes', async (a) => {
    await a.save('k', bytes(1, 2, 3));
    check(same(await a.load('k'), bytes(1, 2, 3)), 'bytes round-trip');
    await a.save('k', bytes(9));
    check(same(await a.load('k'), bytes(9)), 'overwrite');
    await a.save('empty', bytes());
    check(same(await a.load('empty'), bytes()), 'empty value kept');
  }],
  ['a stored value is a copy, and a view stores only its bytes', async (a) => {
    const src = bytes(1, 2, 3);
    await a.save('k', src);
    src[0] = 42;
    check(same(await a.load('k'), bytes(1, 2, 3)), 'later changes to the input do not leak in');
    const big = bytes(0, 1, 2, 3, 4, 5);
    await a.save('view', big.subarray(2, 4));
    check(same(await a.load('view'), bytes(2, 3)), 'a subarray stores only its range');
  }],
  ['remove deletes and is idempotent', async (a) => {
    await a.save('k', bytes(1));
    await a.remove('k');
    check((await a.load('k')) === undefined, 'removed');
    await a.remove('k');
    await a.remove('never');
  }],
  ['loadRange returns the keys of a prefix, sorted, and nothing else', async (a) => {
    for (const k of ['rec/b', 'rec/a', 'rec', 'rec0', 'reb/z', 'meta', 'rec/\u{1F600}', 'rec/a/x']) {
      await a.save(k, new TextEncoder().encode(k));
    }
    const range = await a.loadRange('rec/');
    check(JSON.stringify(keysOf(range)) === JSON.stringify(['rec/a', 'rec/a/x', 'rec/b', 'rec/\u{1F600}']), `keys ${keysOf(range)}`);
    for (const [k, v] of range) check(new TextDecoder().decode(v) === k, `value of ${k}`);
    check((await a.loadRange('zzz')).length === 0, 'empty prefix match');
    const all = await a.loadRange('');
    check(all.length === 8, `all keys: ${all.length}`);
    check(JSON.stringify(keysOf(all)) === JSON.stringify(keysOf(all).slice().sort()), 'sorted');
  }],
  ['removeRange deletes exactly the prefix', async (a) => {
    for (const k of ['idx/1', 'idx/2', 'idx', 'idy/1', 'meta']) await a.save(k, bytes(1));
    await a.removeRange('idx/');
    check(JSON.stringify(keysOf(await a.loadRange(''))) === JSON.stringify(['idx', 'idy/1', 'meta']), 'rest kept');
    await a.removeRange('');
    check((await a.loadRange('')).length === 0, 'removeRange("") clears');
  }],
  ['saveBatch applies puts and deletes in order', async (a) => {
    await a.save('old', bytes(1));
    await a.saveBatch([['a', bytes(1)], ['b', bytes(2)], ['old', null], ['a', bytes(3)], ['gone', null]]);
    check(same(await a.load('a'), bytes(3)), 'the later put of a key wins');
    check(same(await a.load('b'), bytes(2)), 'b');
    check((await a.load('old')) === undefined, 'deleted');
    await a.saveBatch([]);
    await a.saveBatch(new Map([['m', bytes(7)]]));
    check(same(await a.load('m'), bytes(7)), 'any iterable of pairs');
  }],
  ['saveBatch refuses a bad value with INVALID_INPUT and writes none of the batch', async (a) => {
    await rejects(a.saveBatch([['x', bytes(1)], ['y', 'text']]), 'INVALID_INPUT', 'string value');
    check((await a.load('x')) === undefined, 'nothing written');
  }],
  ['many keys in one batch', async (a) => {
    const n = 500;
    await a.saveBatch(Array.from({ length: n }, (_, i) => [`rec/${String(i).padStart(4, '0')}`, bytes(i & 255, i >> 8)]));
    const all = await a.loadRange('rec/');
    check(all.length === n, `count ${all.length}`);
    check(same(all[300][1], bytes(300 & 255, 300 >> 8)), 'value 300');
  }],
  ['values persist across a reopen of the same backend', async (a, reopen) => {
    await a.saveBatch([['p', bytes(5)], ['q', bytes(6)]]);
    const b = await reopen(a);
    check(same(await b.load('p'), bytes(5)), 'reopened');
    check((await b.loadRange('')).length === 2, 'everything');
  }],
  ['forgetUser leaves no byte of the user in any stored key or value; the other user reloads', async (a, reopen, env) => {
    const mem = await openMemory(env, a, 'suite-forget');
    await mem.add({ id: 'g1', thread: 'gone-thread', user: GONE_USER, createdAt: 1000, input: `we talked about ${GONE[0]}`, output: `and about ${GONE[1]}`,
      steps: [{ tool: 'lookup', args: '{}', result: `found ${GONE[0]}` }] });
    await mem.add({ id: 'g2', thread: 'gone-thread', user: GONE_USER, createdAt: 1100, input: 'more', parents: ['g1'] });
    await mem.addItem({ kind: 'personal', user: GONE_USER, text: `Collects ${GONE[2]}`, createdAt: 1200, sources: ['g1'] });
    await mem.updateWork({ thread: 'gone-thread', field: 'goal', op: 'set', value: `find the ${GONE[3]}`, user: GONE_USER, at: 1300 });
    await mem.add({ id: 'k1', thread: 'kept-thread', user: 'keptuser', createdAt: 2000, input: `notes on the ${KEPT}` });
    await mem.addItem({ kind: 'personal', user: 'keptuser', text: `Restores the ${KEPT}`, createdAt: 2100 });
    await mem.flush();
    const before = await storedTexts(env, a, [...GONE, GONE_USER]);
    for (const text of [...GONE, GONE_USER]) check(before.some(([t]) => t === text), `the scan sees ${text} before (the store is plain)`);

    const gone = await mem.forgetUser(GONE_USER);
    check(gone.records.length === 3, `erased ${gone.records}`);
    await mem.flush();
    const after = await storedTexts(env, a, [...GONE, GONE_USER]);
    check(after.length === 0, `still stored after forgetUser: ${JSON.stringify(after)}`);
    check((await storedTexts(env, a, [KEPT])).length > 0, 'the other user is still stored');
    mem.free();

    const again = await openMemory(env, await reopen(a), 'suite-forget-reload');
    check(again.len === 2, `reloaded ${again.len} records`);
    check(again.get('k1')?.input === `notes on the ${KEPT}`, 'the other user\'s turn');
    check(again.get('g1') === undefined, 'the forgotten turn is gone');
    check(again.search({ text: KEPT, mode: 'bm25', now: 3000 }).length === 2, 'the other user is searchable');
    check(again.search({ text: GONE[0], mode: 'bm25', now: 3000 }).length === 0, 'the forgotten user is not');
    check(again.workThreads().length === 0, 'their working memory is gone');
    again.free();
  }],
  ['purge of an expired item leaves no byte of it in any stored key or value', async (a, reopen, env) => {
    const mem = await openMemory(env, a, 'suite-purge');
    await mem.add({ id: 't1', thread: 'chat', user: 'keptuser', createdAt: 1000, input: 'the lab opens at nine' });
    const short = await mem.addItem({ kind: 'fact', user: 'keptuser', text: `The ${EPHEMERAL[0]} is ${EPHEMERAL[1]}`, createdAt: 1000, ttlMs: 5000 });
    await mem.addItem({ kind: 'fact', user: 'keptuser', text: `The ${LASTING} stays`, createdAt: 1000 });
    await mem.flush();
    const before = await storedTexts(env, a, EPHEMERAL);
    for (const text of EPHEMERAL) check(before.some(([t]) => t === text), `the scan sees ${text} before the purge`);

    const purged = await mem.purge({ now: 60_000 });
    check(JSON.stringify(purged.items) === JSON.stringify([short.item.id]), `purged ${JSON.stringify(purged)}`);
    await mem.flush();
    const after = await storedTexts(env, a, [...EPHEMERAL, short.item.id]);
    check(after.length === 0, `still stored after purge: ${JSON.stringify(after)}`);
    check((await storedTexts(env, a, [LASTING])).length > 0, 'the lasting item is still stored');
    mem.free();

    const again = await openMemory(env, await reopen(a), 'suite-purge-reload');
    check(again.get('t1')?.input === 'the lab opens at nine', 'the turn reloads');
    const items = again.listItems({ all: true, now: 60_000 }).map((i) => i.text);
    check(JSON.stringify(items) === JSON.stringify([`The ${LASTING} stays`]), `items ${JSON.stringify(items)}`);
    check(again.getItem(short.item.id) === undefined, 'the purged item is gone');
    again.free();
  }],
];

/** What `loadPages` handed to `take`, a page per element. */
async function pagesOf(adapter, prefix, limit) {
  const pages = [];
  await adapter.loadPages(prefix, (page) => pages.push(page), limit);
  return pages;
}

/** The cases of an adapter that lists a page at a time (`env.paged`). */
export const pagedCases = [
  ['loadPages hands every key of a prefix once, in key order, a page of at most limit', async (a) => {
    check(typeof a.loadPages === 'function', 'the adapter has loadPages');
    const keys = Array.from({ length: 150 }, (_, i) => `rec/${String(i).padStart(3, '0')}`);
    await a.saveBatch([...keys.map((k, i) => [k, bytes(i & 255, 7)]), ['rec', bytes(1)], ['rec0', bytes(1)], ['reb/z', bytes(1)], ['other', bytes(1)]]);
    const pages = await pagesOf(a, 'rec/', 64);
    check(JSON.stringify(pages.map((p) => p.length)) === '[64,64,22]', `pages of ${pages.map((p) => p.length)}`);
    const seen = pages.flat();
    check(JSON.stringify(keysOf(seen)) === JSON.stringify(keys), 'every key of the prefix once, sorted');
    check(seen.every(([, v], i) => same(v, bytes(i & 255, 7))), 'each value as saved, as a Uint8Array');
    const exact = await pagesOf(a, 'rec/', 75);
    check(JSON.stringify(exact.map((p) => p.length)) === '[75,75]', `a last full page hands nothing more: ${exact.map((p) => p.length)}`);
    const all = (await pagesOf(a, '', 50)).flat();
    check(JSON.stringify(keysOf(all)) === JSON.stringify(keysOf(await a.loadRange(''))), 'the empty prefix pages through every key, as loadRange lists them');
    const byDefault = await pagesOf(a, 'rec/');
    check(JSON.stringify(keysOf(byDefault.flat())) === JSON.stringify(keys), 'the default limit pages through every key too');
    check((await pagesOf(a, 'zzz', 10)).length === 0, 'no page for a prefix with no key');
  }],
  ['loadPages rejects with what take throws, hands no later page, and stores nothing', async (a) => {
    await a.saveBatch(Array.from({ length: 9 }, (_, i) => [`p/${i}`, bytes(i)]));
    const refused = new Error('the wasm memory is full');
    let calls = 0;
    let caught = null;
    try {
      await a.loadPages('p/', () => {
        calls++;
        throw refused;
      }, 2);
    } catch (e) {
      caught = e;
    }
    check(caught === refused, `rejects with take's own error: ${caught}`);
    check(calls === 1, `no page after the one that threw: ${calls}`);
    const after = await a.loadRange('p/');
    check(after.length === 9 && after.every(([, v], i) => same(v, bytes(i))), 'the store is as it was');
  }],
  ['Memory.open lists a store through loadPages, a page at a time', async (a, reopen, env) => {
    const first = await openMemory(env, a, 'suite-paged');
    await first.addMany(Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, thread: 't', input: `paged turn ${i} about the ferry timetable` })));
    for (let i = 0; i < 5; i++) await first.add({ id: `q${i}`, thread: 't', input: `one more ${i}`, parents: [`p${i}`] });
    await first.flush();
    first.free();
    const stored = (await a.loadRange('')).length;
    const inner = await reopen(a);
    let pages = 0;
    let most = 0;
    // Pages of two, whatever the adapter's default: fewer a page than the store has.
    const counting = new Proxy(inner, {
      get(target, prop) {
        if (prop === 'loadPages') {
          return (prefix, take) => target.loadPages(prefix, (page) => {
            pages++;
            most = Math.max(most, page.length);
            take(page);
          }, 2);
        }
        const value = target[prop];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const again = await openMemory(env, counting, 'suite-paged');
    check(again.len === 305, `reopened ${again.len}`);
    check(again.get('p299')?.input === 'paged turn 299 about the ferry timetable', 'the bulk turns');
    check(JSON.stringify(again.get('q4')?.parents) === '["p4"]', 'the single adds');
    check(again.search({ text: 'ferry timetable', mode: 'bm25', k: 3 }).length === 3, 'the text index answers');
    check(stored > 2 && pages === Math.ceil(stored / 2) && most <= 2, `${stored} entries in ${pages} pages of at most ${most}`);
    again.free();
  }],
];

/** The cases of an adapter whose pages are one snapshot (`env.snapshot`). */
export const snapshotCases = [
  ['loadPages reads one snapshot: a write issued while it lists lands after the last page', async (a) => {
    const keys = Array.from({ length: 20 }, (_, i) => `s/${String(i).padStart(2, '0')}`);
    await a.saveBatch(keys.map((k) => [k, bytes(1)]));
    let write = null;
    const seen = [];
    await a.loadPages('s/', (page) => {
      // Another writer (a flush from another tab) starts after the first page.
      write ??= a.saveBatch(keys.map((k) => [k, bytes(2)]));
      seen.push(...page);
    }, 2);
    check(seen.length === 20 && seen.every(([, v]) => same(v, bytes(1))), 'every page holds the values from before the write');
    await write;
    const now = await a.loadRange('s/');
    check(now.length === 20 && now.every(([, v]) => same(v, bytes(2))), 'the write landed whole after');
  }],
];

/** The cases `env` asks for. */
function casesFor(env) {
  return [...cases, ...(env.paged ? pagedCases : []), ...(env.snapshot ? snapshotCases : [])];
}

/** Every entry of the IndexedDB database `name`, in every object store, read with the raw
 * IndexedDB API (beneath the adapter). */
export function idbEntries(name) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const names = [...db.objectStoreNames];
      if (names.length === 0) {
        db.close();
        resolve([]);
        return;
      }
      const tx = db.transaction(names, 'readonly');
      const out = [];
      for (const store of names) {
        const cursor = tx.objectStore(store).openCursor();
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c) return;
          out.push([`${store}:${c.key}`, c.value]);
          c.continue();
        };
      }
      tx.oncomplete = () => {
        db.close();
        resolve(out);
      };
      tx.onerror = () => reject(tx.error);
    };
  });
}

/**
 * Registers every case with node:test's `test`. `makeAdapter()` returns a fresh, empty adapter
 * (or a promise of one); `reopen(adapter)` opens the same backend again (default: the same);
 * `Memory` and `entries` make the env (see the module notes).
 */
export function runStorageAdapterTests(makeAdapter, { test, name = 'adapter', reopen = async (a) => a, Memory, entries, paged = false, snapshot = false }) {
  const env = { Memory, entries, paged, snapshot };
  for (const [title, fn] of casesFor(env)) {
    test(`${name}: ${title}`, async () => {
      const adapter = await makeAdapter();
      try {
        await fn(adapter, reopen, env);
      } finally {
        await adapter.close?.();
      }
    });
  }
}

/** Runs every case (in a page); resolves to `[{ name, error }]`, error null when it passed. */
export async function runInPage(makeAdapter, reopen = async (a) => a, env = {}) {
  const results = [];
  for (const [name, fn] of casesFor(env)) {
    let error = null;
    try {
      const adapter = await makeAdapter();
      try {
        await fn(adapter, reopen, env);
      } finally {
        await adapter.close?.();
      }
    } catch (e) {
      error = `${e?.code ?? ''} ${e?.message ?? e}`;
    }
    results.push({ name, error });
  }
  return results;
}
