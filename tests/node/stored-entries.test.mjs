// StoredEntries and the open that reads into it: values copied into wasm memory one at a
// time, Memory.loadStored and Memory.salvageStored opening them as Memory.load and
// Memory.salvage open arrays, and Memory.open on a bounded adapter reading a few values at a
// time, handing each over as it arrives, and stopping at the first failed read.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { KeyValueStorage, Memory, MemoryStorage, StoredEntries } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { rejection, thrown } from './throws.mjs';

/** The stored entries of a memory of `n` turns, its segment parts cut at `partBytes`. */
function storedTurns(n, partBytes = 4096) {
  const mem = new Memory();
  mem.setPartBytes(partBytes);
  for (let i = 0; i < n; i++) {
    mem.addTurn({ id: `r${i}`, thread: `t${i % 4}`, user: 'ada', createdAt: 1_700_000_000_000 + i, input: `turn ${i} about the harbour crane number ${i * 7}`, output: 'noted' });
  }
  const map = new Map();
  for (const [k, v] of mem.takeChanges()) {
    if (v == null) map.delete(k);
    else map.set(k, v);
  }
  mem.free();
  return map;
}

test('StoredEntries copies values in, skips deletions and refuses what is not bytes', () => {
  const entries = new StoredEntries();
  assert.equal(entries.isEmpty, true);
  assert.equal(entries.len, 0);
  entries.put('a', new Uint8Array([1, 2, 3]));
  entries.put('bb', new Uint8Array([4, 5]).buffer);
  entries.put('gone', null);
  entries.put('gone too', undefined);
  assert.equal(entries.len, 2);
  assert.equal(entries.isEmpty, false);
  assert.equal(entries.bytes, 1 + 3 + 2 + 2);
  const notBytes = thrown(() => entries.put('c', 'text'));
  assert.equal(notBytes.code, 'INVALID_INPUT');
  assert.match(notBytes.message, /"c"/);
  assert.equal(thrown(() => entries.put(7, new Uint8Array(1))).code, 'INVALID_INPUT');
  assert.equal(entries.len, 2, 'a refused entry keeps nothing');
  entries.free();
});

test('Memory.loadStored opens what Memory.load opens, and takes the entries', () => {
  const map = storedTurns(120);
  const entries = new StoredEntries();
  for (const [k, v] of map) entries.put(k, v);
  const viaArray = Memory.load(map);
  const viaStored = Memory.loadStored(entries);
  assert.equal(viaStored.len, 120);
  assert.deepEqual(viaStored.get('r77'), viaArray.get('r77'));
  assert.deepEqual(viaStored.search({ text: 'crane 539', mode: 'bm25', k: 3 }).map((h) => h.id),
    viaArray.search({ text: 'crane 539', mode: 'bm25', k: 3 }).map((h) => h.id));
  assert.equal(entries.len, 0, 'taken');
  assert.equal(entries.bytes, 0);
  // Emptied, not consumed: it can gather again.
  entries.put('x', new Uint8Array(1));
  assert.equal(entries.len, 1);
  entries.free();
});

test('Memory.loadStored names the bad key, and Memory.salvageStored keeps what is intact', () => {
  const map = storedTurns(300);
  const [key] = [...map.entries()].filter(([k]) => k.startsWith('seg/')).sort((a, b) => b[1].length - a[1].length)[0];
  const damaged = new Uint8Array(map.get(key));
  damaged[damaged.length >> 1] ^= 0x10;
  map.set(key, damaged);
  const fill = () => {
    const e = new StoredEntries();
    for (const [k, v] of map) e.put(k, v);
    return e;
  };
  const entries = fill();
  const refused = thrown(() => Memory.loadStored(entries));
  assert.equal(refused.code, 'CORRUPT_DATA');
  assert.equal(refused.key, key);
  assert.equal(entries.len, 0, 'taken even when the open throws');

  const fromArray = Memory.salvage(map);
  const again = fill();
  const { memory, damage } = Memory.salvageStored(again);
  assert.equal(again.len, 0);
  assert.equal(memory.len, fromArray.memory.len);
  assert.ok(memory.len > 0 && memory.len < 300);
  assert.deepEqual(damage.lostRecords, fromArray.damage.lostRecords);
  assert.equal(damage.damaged[0].key, key);
});

test('Memory.open on a bounded adapter reads a few values at a time and stops at the first failure', async () => {
  const kv = asyncKv(storedTurns(400, 2048));
  const parts = [...kv.map.keys()].filter((k) => k.startsWith('seg/')).length;
  assert.ok(parts > 12, `${parts} parts: more than the reads in flight`);
  let inFlight = 0;
  let most = 0;
  let reads = 0;
  let failOn = null;
  const slow = {
    ...kv,
    get: async (k) => {
      reads++;
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      if (k === failOn) throw new Error('network down');
      return kv.get(k);
    },
    list: async () => assert.fail('a bounded open does not list'),
  };
  const mem = await Memory.open({ name: 'stream', storage: new KeyValueStorage(slow), sync: false });
  assert.equal(mem.len, 400);
  assert.equal(mem.get('r399').input, 'turn 399 about the harbour crane number 2793');
  assert.ok(most > 1, 'reads overlap');
  assert.ok(most <= 8, `at most 8 reads at once, saw ${most}`);
  await mem.close();

  // A failed read: a STORAGE error, and the reads not yet started are not started.
  const named = Memory.keysToRead(kv.map.get('head'));
  failOn = named[2];
  reads = 0;
  const e = await rejection(Memory.open({ name: 'stream', storage: new KeyValueStorage(slow), sync: false }));
  assert.equal(e.code, 'STORAGE');
  assert.match(e.message, /network down/);
  assert.ok(reads < named.length, `${reads} reads of ${named.length} named keys`);

  // A value that is not bytes is the core's INVALID_INPUT, as Memory.load throws it.
  failOn = null;
  class OddStorage extends KeyValueStorage {
    async load(k) {
      return k === named[0] ? 'not bytes' : super.load(k);
    }
  }
  const bad = await rejection(Memory.open({ name: 'stream', storage: new OddStorage(kv), sync: false }));
  assert.equal(bad.code, 'INVALID_INPUT');
});

test('an encrypted open copies each value into wasm memory as the host opens it, a page or a few reads at a time', async () => {
  const key = new Uint8Array(32).fill(7);
  // Small parts, so the store has many values; pages of two.
  class PagedStorage extends MemoryStorage {
    get maxValueBytes() {
      return 2048;
    }

    async loadPages(prefix, take, limit = 2) {
      const all = await this.loadRange(prefix);
      for (let i = 0; i < all.length; i += limit) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const page = all.slice(i, i + limit);
        handed += page.filter(([k]) => k.startsWith('seg/')).length;
        held = Math.max(held, handed - copied);
        take(page);
      }
    }
  }
  let handed = 0;
  let copied = 0;
  let held = 0;
  const storage = new PagedStorage();
  const writer = await Memory.open({ name: 'sealed-pages', storage, key, sync: false });
  await writer.addMany(Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, thread: 't', input: `turn ${i} about the harbour crane number ${i * 7}` })));
  await writer.close();
  const values = [...storage.map];
  assert.ok(values.length > 20, `${values.length} values`);
  const plain = new TextEncoder().encode('harbour crane');
  const holds = (v) => v.some((_, i) => plain.every((b, j) => v[i + j] === b));
  assert.ok(!values.some(([, v]) => holds(v)), 'every value is sealed');

  const put = StoredEntries.prototype.put;
  StoredEntries.prototype.put = function (k, v) {
    if (k.startsWith('seg/')) copied++;
    return put.call(this, k, v);
  };
  try {
    const mem = await Memory.open({ name: 'sealed-pages', storage, key, sync: false });
    assert.equal(mem.len, 400);
    assert.equal(mem.get('r399').input, 'turn 399 about the harbour crane number 2793');
    assert.equal(handed, values.filter(([k]) => k.startsWith('seg/')).length);
    assert.equal(copied, values.filter(([k]) => k.startsWith('seg/')).length, 'every part copied in');
    assert.ok(handed > 20 && held <= 2, `at most a page handed over and not yet copied in, saw ${held} of ${handed} parts`);
    await mem.close();

    // A bounded adapter: at most eight values read and not yet copied in.
    const kv = asyncKv(new Map(storage.map));
    let read = 0;
    copied = 0;
    held = 0;
    const counting = {
      ...kv,
      get: async (k) => {
        const v = await kv.get(k);
        if (k.startsWith('seg/') && v != null) read++;
        held = Math.max(held, read - copied);
        return v;
      },
    };
    const again = await Memory.open({ name: 'sealed-kv', storage: new KeyValueStorage(counting), key, sync: false });
    assert.equal(again.len, 400);
    assert.ok(read > 20 && held <= 8, `at most the reads in flight held, saw ${held} of ${read} parts`);
    await again.close();

    // The wrong key: LOCKED, as before.
    const locked = await rejection(Memory.open({ name: 'sealed-pages', storage, key: new Uint8Array(32).fill(8), sync: false }));
    assert.equal(locked.code, 'LOCKED');
  } finally {
    StoredEntries.prototype.put = put;
  }
});
