// The storage-adapter conformance suite against every adapter in Node: MemoryStorage,
// KeyValueStorage (over a Map-backed async key-value object) and IndexedDbStorage on
// fake-indexeddb. Chromium runs the same suite on real IndexedDB (tests/browser/).
import 'fake-indexeddb/auto';
import { test } from 'node:test';

import { IndexedDbStorage, KeyValueStorage, MemoryStorage } from '../../pkg/index.js';
import { runStorageAdapterTests } from '../storage/adapter-suite.mjs';

/** An async key-value object like Workers KV's, kept in a Map. */
export function asyncKv(map = new Map()) {
  return {
    map,
    get: async (k) => map.get(k) ?? null,
    put: async (k, v) => void map.set(k, v.slice()),
    delete: async (k) => void map.delete(k),
    list: async (prefix) => [...map.keys()].filter((k) => k.startsWith(prefix)).map((name) => ({ name })),
  };
}

runStorageAdapterTests(() => new MemoryStorage(), {
  test,
  name: 'MemoryStorage',
  reopen: async (a) => new MemoryStorage(a.map),
});

runStorageAdapterTests(() => new KeyValueStorage(asyncKv(), { prefix: 'app1:' }), {
  test,
  name: 'KeyValueStorage',
  reopen: async (a) => new KeyValueStorage(a.kv, { prefix: 'app1:' }),
});

let n = 0;
runStorageAdapterTests(() => IndexedDbStorage.open(`suite-${n++}`), {
  test,
  name: 'IndexedDbStorage (fake-indexeddb)',
  reopen: async () => IndexedDbStorage.open(`suite-${n - 1}`),
});
