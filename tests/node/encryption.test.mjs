// Encryption at rest in Node: `Memory.load(entries, key)`, `keysToRead(head, key)`, `setKey`,
// and `Memory.open({ key })` with raw bytes or a WebCrypto CryptoKey, over KeyValueStorage
// (bounded open) and IndexedDB (fake-indexeddb). No stored byte shows the content, and a
// missing or wrong key is LOCKED and writes nothing.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';

import { GENERATION_KEY, IndexedDbStorage, KeyValueStorage, Memory } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { thrown, rejection } from './throws.mjs';

const subtle = globalThis.crypto?.subtle ?? webcrypto.subtle;
const KEY = new Uint8Array(32).fill(7);
const OTHER = new Uint8Array(32).fill(9);
const SECRET = 'my bank password is hunter2-quokka';

let n = 0;
const fresh = () => `enc-${process.pid}-${n++}`;

function apply(store, changes) {
  for (const [key, value] of changes) {
    if (value === null) store.delete(key);
    else store.set(key, value);
  }
  return store;
}

/** Whether any stored key or value (outside the plain flush counter) shows `text`. */
function shows(entries, text) {
  const needle = Buffer.from(text);
  return [...entries].some(([k, v]) => k.includes(text) || (v && Buffer.from(v).includes(needle)));
}

const turn = (i) => ({ id: `id-${i}`, thread: 'vault', user: 'ann', createdAt: i, input: `${SECRET} ${i}`, output: 'noted' });

test('Memory.load with a key: round trip, sealed bytes, LOCKED without or with another key', () => {
  const mem = Memory.load([], KEY);
  assert.equal(mem.encrypted, true);
  assert.equal(new Memory().encrypted, false);
  for (let i = 0; i < 5; i++) mem.addTurn(turn(i));
  mem.putBlob(`tool output ${SECRET}`);
  const stored = apply(new Map(), mem.takeChanges());
  assert.ok(!shows(stored, SECRET) && !shows(stored, 'vault'));
  for (const value of stored.values()) assert.equal(Buffer.from(value.subarray(0, 4)).toString(), 'MDAS');

  const again = Memory.load(stored, KEY);
  assert.equal(again.len, 5);
  assert.equal(again.get('id-3').input, `${SECRET} 3`);
  for (const key of [undefined, OTHER]) {
    const e = thrown(() => Memory.load(stored, key));
    assert.equal(e.code, 'LOCKED', e.message);
    assert.equal(e.key, 'head');
  }
  assert.equal(thrown(() => Memory.keysToRead(stored.get('head'))).code, 'LOCKED');
  assert.deepEqual(Memory.keysToRead(stored.get('head'), KEY), [...stored.keys()].filter((k) => k.startsWith('seg/')).sort());
  for (const bad of [new Uint8Array(31), 'a string key', [1, 2, 3]]) {
    assert.equal(thrown(() => Memory.load(stored, bad)).code, 'INVALID_INPUT');
  }
  // A key for a plain store is LOCKED too.
  const plain = new Memory();
  plain.addTurn(turn(0));
  assert.equal(thrown(() => Memory.load(apply(new Map(), plain.takeChanges()), KEY)).code, 'LOCKED');
  // A value moved to another key fails, naming it.
  const parts = [...stored.keys()].filter((k) => k.startsWith('seg/'));
  if (parts.length > 1) {
    const moved = new Map(stored).set(parts[1], stored.get(parts[0]));
    const e = thrown(() => Memory.load(moved, KEY));
    assert.equal(e.code, 'CORRUPT_DATA');
    assert.equal(e.key, parts[1]);
  }
});

test('setKey encrypts a plain memory, changes its key and decrypts it', () => {
  const mem = new Memory();
  for (let i = 0; i < 3; i++) mem.addTurn(turn(i));
  const stored = apply(new Map(), mem.takeChanges());
  assert.ok(shows(stored, SECRET));
  mem.setKey(KEY);
  assert.equal(mem.encrypted, true);
  apply(stored, mem.takeChanges());
  assert.ok(!shows(stored, SECRET));
  assert.equal(Memory.load(stored, KEY).len, 3);
  mem.setKey(OTHER);
  apply(stored, mem.takeChanges());
  assert.equal(thrown(() => Memory.load(stored, KEY)).code, 'LOCKED');
  assert.equal(Memory.load(stored, OTHER).len, 3);
  mem.setKey(null);
  assert.equal(mem.encrypted, false);
  apply(stored, mem.takeChanges());
  assert.equal(Memory.load(stored).len, 3);
  assert.equal(thrown(() => mem.setKey(new Uint8Array(5))).code, 'INVALID_INPUT');
});

test('Memory.open({ key }) over KeyValueStorage: bounded open, rebase and export stay sealed', async () => {
  const kv = asyncKv();
  const storage = () => new KeyValueStorage(kv);
  const one = await Memory.open({ name: 'enc-kv', storage: storage(), key: KEY, sync: false });
  assert.equal(one.encrypted, true);
  await one.add(turn(1));
  // A second writer with the same key: the first rebases on it at its next flush.
  const two = await Memory.open({ name: 'enc-kv', storage: storage(), key: KEY, sync: false });
  await two.add(turn(2));
  await one.add(turn(3));
  assert.equal(one.len, 3);
  const entries = [...kv.map].filter(([k]) => k !== GENERATION_KEY);
  assert.ok(entries.length > 1 && !shows(entries, SECRET) && !shows(entries, 'id-1'));
  assert.equal(Memory.load(kv.map, KEY).len, 3);

  // Missing and wrong keys: LOCKED, and nothing is written.
  const before = new Map(kv.map);
  for (const key of [undefined, OTHER]) {
    const e = await rejection(Memory.open({ name: 'enc-kv', storage: storage(), key, sync: false }));
    assert.equal(e.code, 'LOCKED', e.message);
  }
  assert.deepEqual(kv.map, before);

  // An export is sealed with the store's key and imports into a store with that key.
  const bytes = one.exportBytes();
  assert.ok(!Buffer.from(bytes).includes(Buffer.from(SECRET)));
  const other = await Memory.open({ name: 'enc-import', storage: new KeyValueStorage(asyncKv()), key: KEY, sync: false });
  assert.deepEqual(await other.importBytes(bytes), { records: 3 });
  const plain = await Memory.open({ name: 'plain-import', storage: new KeyValueStorage(asyncKv()), sync: false });
  assert.equal((await rejection(plain.importBytes(bytes))).code, 'LOCKED');
  for (const m of [one, two, other, plain]) await m.close();
});

test('Memory.open({ key }) takes an extractable WebCrypto CryptoKey, over IndexedDB', async () => {
  const name = fresh();
  const cryptoKey = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  const mem = await Memory.open({ name, key: cryptoKey });
  assert.ok(mem.storage instanceof IndexedDbStorage);
  await mem.add(turn(1));
  await mem.close();
  const reader = await IndexedDbStorage.open(`memdag:${name}`);
  const entries = (await reader.loadRange('')).filter(([k]) => k !== GENERATION_KEY);
  reader.close();
  assert.ok(entries.length >= 2 && !shows(entries, SECRET));

  const again = await Memory.open({ name, key: cryptoKey });
  assert.equal(again.get('id-1').input, `${SECRET} 1`);
  await again.close();
  const raw = new Uint8Array(await subtle.exportKey('raw', cryptoKey));
  assert.equal(Memory.load(entries, raw).len, 1);
  assert.equal((await rejection(Memory.open({ name }))).code, 'LOCKED');

  const locked = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt']);
  assert.equal((await rejection(Memory.open({ name: fresh(), key: locked }))).code, 'INVALID_INPUT');
  assert.equal((await rejection(Memory.open({ name: fresh(), key: 'hex?' }))).code, 'INVALID_INPUT');
});
