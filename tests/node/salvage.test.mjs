// One flipped byte costs one block, in the JS package: Memory.load refuses the entries naming
// the key and every damaged block, Memory.verify reports the damage and what it held,
// Memory.salvage and Memory.open({ salvage: true }) keep everything intact and list what was
// lost by id, and the next write leaves a store that opens plainly.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { KeyValueStorage, Memory, PersistentMemory } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { thrown } from './throws.mjs';

/** `n` turns of varied words, so that segment parts hold several blocks. */
function turns(n) {
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const word = () => Array.from({ length: 3 + (next() % 7) }, () => String.fromCharCode(97 + (next() % 26))).join('');
  return Array.from({ length: n }, (_, i) => ({
    id: `w${i}`, thread: `t${i % 3}`, user: 'ada', createdAt: 1_700_000_000_000 + i,
    input: Array.from({ length: 120 }, word).join(' '), output: 'ok',
  }));
}

/** Flips one bit in the middle of the largest segment part of `map`; returns its key. */
function flipLargestSegment(map) {
  const [key] = [...map.entries()].filter(([k]) => k.startsWith('seg/')).sort((a, b) => b[1].length - a[1].length)[0];
  const value = new Uint8Array(map.get(key));
  value[value.length >> 1] ^= 0x10;
  map.set(key, value);
  return key;
}

function apply(map, changes) {
  for (const [key, value] of changes) {
    if (value == null) map.delete(key);
    else map.set(key, value);
  }
}

test('Memory.verify and Memory.salvage on entries with one flipped byte', () => {
  const mem = new Memory();
  for (const t of turns(400)) mem.addTurn(t);
  const map = new Map();
  apply(map, mem.takeChanges());
  const clean = Memory.verify(map);
  assert.equal(clean.intact, true);
  assert.equal(clean.records, 400);
  assert.deepEqual(clean.damaged, []);

  const key = flipLargestSegment(map);
  const refused = thrown(() => Memory.load(map));
  assert.equal(refused.code, 'CORRUPT_DATA');
  assert.equal(refused.key, key);
  assert.match(refused.message, /1 damaged value or block/);

  const v = Memory.verify(map);
  assert.equal(v.intact, false);
  assert.equal(v.damaged.length, 1);
  assert.equal(v.damaged[0].key, key);
  assert.equal(typeof v.damaged[0].block, 'number');
  assert.ok(v.damaged[0].records.length > 0, 'the ids before the damage still read');
  const lost = 400 - v.records;
  assert.ok(lost > 0 && lost < 200, `one block's records: ${lost}`);
  assert.deepEqual(v.lostRecords, v.damaged[0].records);

  const { memory, damage } = Memory.salvage(map);
  assert.equal(memory.len, v.records);
  assert.deepEqual(damage.damaged, v.damaged);
  assert.deepEqual(memory.loadWarnings.map((w) => [w.code, w.key]), [['BLOCK_SKIPPED', key]]);
  for (const id of damage.lostRecords) assert.equal(memory.get(id), undefined, id);
  // The salvaged memory's changes rewrite the store whole; then a plain load works.
  apply(map, memory.takeChanges());
  assert.equal(map.has(key), false, 'the damaged part is deleted after the new commit');
  assert.equal(Memory.load(map).len, v.records);
  assert.equal(Memory.verify(map).intact, true);
});

test('Memory.open({ salvage: true }) on a damaged KeyValueStorage store, and PersistentMemory.verify', async () => {
  const kv = asyncKv();
  const storage = new KeyValueStorage(kv);
  const mem = await Memory.open({ name: 'salvage', storage, sync: false });
  for (const t of turns(300)) mem.addTurn(t);
  await mem.flush();
  await mem.close();
  const key = flipLargestSegment(kv.map);

  const refused = await Memory.open({ name: 'salvage', storage, sync: false }).catch((e) => e);
  assert.equal(refused.code, 'CORRUPT_DATA');
  assert.equal(refused.key, key);

  const v = await PersistentMemory.verify({ storage });
  assert.equal(v.intact, false);
  assert.equal(v.damaged[0].key, key);

  const salvaged = await Memory.open({ name: 'salvage', storage, sync: false, salvage: true });
  assert.equal(salvaged.len, v.records);
  assert.equal(salvaged.damage.damaged[0].key, key);
  assert.deepEqual(salvaged.damage.lostRecords, v.lostRecords);
  assert.equal(salvaged.loadWarnings[0].code, 'BLOCK_SKIPPED');
  await salvaged.add({ thread: 't0', input: 'after the salvage' });
  await salvaged.close();

  const plain = await Memory.open({ name: 'salvage', storage, sync: false });
  assert.equal(plain.len, v.records + 1);
  assert.equal(plain.damage, null, 'a plain open has no damage report');
  assert.equal((await PersistentMemory.verify({ storage })).intact, true);
  await plain.close();
});

test('a sealed store verifies only with its key', () => {
  const key = new Uint8Array(32).fill(9);
  const mem = Memory.load([], key);
  for (const t of turns(50)) mem.addTurn(t);
  const map = new Map();
  apply(map, mem.takeChanges());
  assert.equal(thrown(() => Memory.verify(map)).code, 'LOCKED');
  assert.equal(Memory.verify(map, key).intact, true);
  const bad = flipLargestSegment(map);
  const v = Memory.verify(map, key);
  assert.equal(v.damaged[0].key, bad);
  assert.equal(v.damaged[0].block, null, 'a sealed part is one AEAD value');
});
