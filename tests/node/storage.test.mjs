// The storage-adapter conformance suite against every adapter in Node: MemoryStorage,
// KeyValueStorage (over a Map-backed async key-value object) and IndexedDbStorage on
// fake-indexeddb. Chromium runs the same suite on real IndexedDB (tests/browser/), workerd on
// Durable Object storage (tests/worker/). The scans for forgotten bytes read beneath each
// adapter: the Map itself, the async key-value object's Map, every IndexedDB object store.
import 'fake-indexeddb/auto';
import { test } from 'node:test';

import { IndexedDbStorage, KeyValueStorage, Memory, MemoryStorage } from '../../pkg/index.js';
import { idbEntries, runStorageAdapterTests } from '../storage/adapter-suite.mjs';

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
  Memory,
  entries: async (a) => [...a.map],
});

runStorageAdapterTests(() => new KeyValueStorage(asyncKv(), { prefix: 'app1:' }), {
  test,
  name: 'KeyValueStorage',
  reopen: async (a) => new KeyValueStorage(a.kv, { prefix: 'app1:' }),
  Memory,
  entries: async (a) => [...a.kv.map],
});

let n = 0;
runStorageAdapterTests(() => IndexedDbStorage.open(`suite-${n++}`), {
  test,
  name: 'IndexedDbStorage (fake-indexeddb)',
  reopen: async () => IndexedDbStorage.open(`suite-${n - 1}`),
  Memory,
  entries: () => idbEntries(`suite-${n - 1}`),
  paged: true,
  snapshot: true,
});
