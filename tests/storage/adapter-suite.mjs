// The one conformance suite of memdag storage adapters. It runs against every adapter:
// MemoryStorage, KeyValueStorage and IndexedDbStorage (fake-indexeddb) in Node, and
// IndexedDbStorage in real Chromium (tests/browser/storage.test.mjs runs it inside a page).
// So it imports nothing from Node: each case gets a fresh adapter and a tiny `check` helper.
//
//   runStorageAdapterTests(makeAdapter, { test })  registers one node:test case per check
//   runInPage(makeAdapter)                         runs every case, returns [{ name, error }]

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

/** Every case: [name, async (adapter) => void]. */
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
];

/**
 * Registers every case with node:test's `test`. `makeAdapter()` returns a fresh, empty adapter
 * (or a promise of one); `reopen(adapter)` opens the same backend again (default: the same).
 */
export function runStorageAdapterTests(makeAdapter, { test, name = 'adapter', reopen = async (a) => a }) {
  for (const [title, fn] of cases) {
    test(`${name}: ${title}`, async () => {
      const adapter = await makeAdapter();
      try {
        await fn(adapter, reopen);
      } finally {
        await adapter.close?.();
      }
    });
  }
}

/** Runs every case (in a page); resolves to `[{ name, error }]`, error null when it passed. */
export async function runInPage(makeAdapter, reopen = async (a) => a) {
  const results = [];
  for (const [name, fn] of cases) {
    let error = null;
    try {
      const adapter = await makeAdapter();
      try {
        await fn(adapter, reopen);
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
