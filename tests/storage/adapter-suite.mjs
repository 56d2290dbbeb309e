// The one conformance suite of memdag storage adapters. It runs against every adapter:
// MemoryStorage, KeyValueStorage and IndexedDbStorage (fake-indexeddb) in Node, IndexedDbStorage
// in real Chromium (tests/browser/storage.test.mjs runs it inside a page) and
// DurableObjectStorage on workerd (tests/worker/suite-worker.mjs). So it imports nothing, not
// even the package (each runner passes the `Memory` of the package entry it loaded): each case
// gets a fresh adapter, a `reopen`, and the runner's `env`.
//
//   runStorageAdapterTests(makeAdapter, { test, Memory, entries })  one node:test case per check
//   runInPage(makeAdapter, reopen, { Memory, entries })  runs every case, returns [{ name, error }]
//
// `env.Memory` is the package's Memory class (for the cases that write a real memory through
// the adapter: forgetting a user and purging leave no byte behind). `env.entries(adapter)`
// reads every entry the backend holds, beneath the adapter where the runner can (the Map of a
// KeyValueStorage, every object store of the IndexedDB database, the Durable Object's whole
// storage); by default the adapter's own `loadRange('')`.

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
export function runStorageAdapterTests(makeAdapter, { test, name = 'adapter', reopen = async (a) => a, Memory, entries }) {
  const env = { Memory, entries };
  for (const [title, fn] of cases) {
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
  for (const [name, fn] of cases) {
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
