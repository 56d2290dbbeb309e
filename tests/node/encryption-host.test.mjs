// Encryption at rest sealed by the host: where WebCrypto exists (Node 20 here), Memory.open
// seals every stored value with AES-256-GCM (seal v2, pkg/seal.js: node:crypto's in Node,
// WebCrypto's elsewhere) and opens it again before the core loads; the core opens v2 by
// itself too (as the CLI does), and both refuse what they must: another key is LOCKED, a
// flipped byte or a moved value CORRUPT_DATA naming its key, a plain value at a sealed store's
// key is never taken as opened. Stores mixing the core's seal v1 and the host's v2 open both
// ways, and so do values sealed by WebCrypto's AES-GCM and node:crypto's. The format is checked
// against node:crypto's decipher directly. tests/data/cross-face/sealed-v2.mdagexp is a store
// written here, which the core (crates/memdag-core/tests/storage_seal_host.rs) and the CLI
// (crates/memdag-host/tests/encryption.rs) open. (The Worker's and Chromium's tests check
// that their stores are v2 sealed by WebCrypto.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

import { GENERATION_KEY, KeyValueStorage, Memory, decodeExport, encodeExport } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { rejection, thrown } from './throws.mjs';
import { hostSealer } from '../../pkg/seal.js';

const KEY = new Uint8Array(32).fill(0x42);
const OTHER = new Uint8Array(32).fill(0x24);
const SECRET = 'the locker code is 8812-pangolin';
const turn = (i) => ({ id: `h${i}`, thread: 'vault', user: 'ann', createdAt: i, input: `${SECRET} ${i}`, output: 'noted' });

/** A store written through Memory.open with `key`, one flush per turn; its async kv. */
async function hostStore(n, kv = asyncKv()) {
  const mem = await Memory.open({ name: 'host-sealed', storage: new KeyValueStorage(kv), key: KEY, sync: false });
  for (let i = 0; i < n; i++) await mem.add(turn(i));
  await mem.close();
  return kv;
}

const open = (kv, key = KEY) => Memory.open({ name: 'host-sealed', storage: new KeyValueStorage(kv), key, sync: false });
const coreEntries = (map) => [...map].filter(([k]) => k !== GENERATION_KEY);
/** The segment parts the store's commit names (others may be kept a while, unread). */
const segParts = (map) => Memory.keysToRead(openV2('head', map.get('head')), null).sort();
const shows = (v, text) => Buffer.from(v).includes(Buffer.from(text));

/** A v2 value opened with node:crypto (OpenSSL), from the format alone. */
function openV2(storageKey, value) {
  const { key, header } = Memory.hostKey(KEY);
  assert.deepEqual(value.subarray(0, 13), header);
  const d = crypto.createDecipheriv('aes-256-gcm', key, value.subarray(13, 25), { authTagLength: 16 });
  d.setAAD(Buffer.concat([header, Buffer.from(storageKey)]));
  d.setAuthTag(value.subarray(value.length - 16));
  return new Uint8Array(Buffer.concat([d.update(value.subarray(25, value.length - 16)), d.final()]));
}

test('Memory.open seals with AES-256-GCM on the host, and the core opens it alone', async () => {
  const kv = await hostStore(6);
  const stored = coreEntries(kv.map);
  assert.ok(segParts(kv.map).length >= 2, segParts(kv.map).join());
  for (const [k, v] of stored) {
    assert.equal(Buffer.from(v.subarray(0, 4)).toString(), 'MDAS', k);
    assert.equal(v[4], 2, `${k}: seal v2`);
    assert.ok(!shows(v, SECRET) && !shows(v, 'vault'), k);
    // The format as documented: OpenSSL opens it to the core's plain envelope.
    assert.equal(Buffer.from(openV2(k, v).subarray(0, 4)).toString(), 'MDAG', k);
  }
  const again = await open(kv);
  assert.equal(again.get('h3').input, `${SECRET} 3`);
  await again.add(turn(6));
  await again.close();
  // The core alone (as the CLI reads a store a browser wrote): it opens v2 in software.
  const core = Memory.load(kv.map, KEY);
  assert.equal(core.len, 7);
  assert.equal(core.hostSeals, false);
  // A host that opened them names the keys: the memory then writes plain, for it to seal.
  const opened = coreEntries(kv.map).map(([k, v]) => [k, openV2(k, v)]);
  const byHost = Memory.load(opened, KEY, opened.map(([k]) => k));
  assert.equal(byHost.hostSeals, true);
  byHost.addTurn(turn(7));
  for (const [k, v] of byHost.takeChanges()) if (v) assert.notEqual(Buffer.from(v.subarray(0, 4)).toString(), 'MDAS', k);
  assert.equal(thrown(() => Memory.load(opened, null, [])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => Memory.load(opened, KEY, 'head')).code, 'INVALID_INPUT');
  assert.equal(thrown(() => Memory.hostKey(undefined)).code, 'INVALID_INPUT');
  assert.notDeepEqual(Memory.hostKey(OTHER).key, Memory.hostKey(KEY).key);
});

test('a wrong or missing key is LOCKED, a flipped byte or a moved value CORRUPT_DATA naming its key', async () => {
  const kv = await hostStore(5);
  const before = new Map(kv.map);
  for (const key of [OTHER, null]) {
    const e = await rejection(open(kv, key));
    assert.equal(e.code, 'LOCKED', e.message);
    assert.equal(thrown(() => Memory.load(kv.map, key)).code, 'LOCKED');
  }
  assert.deepEqual(kv.map, before, 'a refused open writes nothing');
  const parts = segParts(kv.map);
  const [first, last] = [parts[0], parts[parts.length - 1]];
  for (const at of [4, 8, 13, 20, 25, 40, -16, -1]) {
    const flipped = new Map(before);
    const v = before.get(first).slice();
    v[at < 0 ? v.length + at : at] ^= 1;
    flipped.set(first, v);
    for (const e of [await rejection(open(asyncKv(flipped))), thrown(() => Memory.load(flipped, KEY))]) {
      assert.equal(e.code, 'CORRUPT_DATA', `byte ${at}: ${e.message}`);
      assert.equal(e.key, first);
    }
  }
  const moved = new Map(before).set(last, before.get(first));
  const e = await rejection(open(asyncKv(moved)));
  assert.equal(e.code, 'CORRUPT_DATA', e.message);
  assert.equal(e.key, last);
  assert.equal(thrown(() => Memory.load(moved, KEY)).key, last);
});

test('a plain value at a sealed store key is refused: the host names only what it opened', async () => {
  const kv = await hostStore(5);
  const part = segParts(kv.map)[0];
  const plain = openV2(part, kv.map.get(part));
  const swapped = new Map(kv.map).set(part, plain);
  const e = await rejection(open(asyncKv(swapped)));
  assert.equal(e.code, 'CORRUPT_DATA', e.message);
  assert.equal(e.key, part);
  // Through the core's API: every key but that one named as opened.
  const opened = coreEntries(kv.map).map(([k, v]) => [k, openV2(k, v)]);
  const named = opened.map(([k]) => k).filter((k) => k !== part);
  const refused = thrown(() => Memory.load(opened, KEY, named));
  assert.equal(refused.code, 'CORRUPT_DATA', refused.message);
  assert.equal(refused.key, part);
  assert.equal(Memory.load(opened, KEY, opened.map(([k]) => k)).len, 5);
  // And verify says the same of it.
  const verified = Memory.verify(opened, KEY, named);
  assert.equal(verified.intact, false);
  assert.ok(verified.damaged.some((d) => d.key === part), JSON.stringify(verified.damaged));
});

test('stores mixing the core seal (v1) and the host seal (v2) open both ways; without WebCrypto the core seals', async () => {
  // Without WebCrypto (an insecure page, an old runtime) Memory.open seals in wasm: v1.
  const kv = asyncKv();
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
  try {
    const mem = await open(kv);
    await mem.add(turn(0));
    await mem.add(turn(1));
    await mem.close();
  } finally {
    Object.defineProperty(globalThis, 'crypto', saved);
  }
  assert.ok(coreEntries(kv.map).every(([, v]) => v[4] === 1), 'seal v1');
  const mem = await open(kv);
  await mem.add(turn(2));
  await mem.close();
  const versions = new Set(coreEntries(kv.map).map(([, v]) => v[4]));
  assert.deepEqual([...versions].sort(), [1, 2]);
  const again = await open(kv);
  assert.deepEqual(['h0', 'h1', 'h2'].map((id) => again.get(id)?.input), [0, 1, 2].map((i) => `${SECRET} ${i}`));
  await again.close();
  assert.equal(Memory.load(kv.map, KEY).len, 3);
  assert.equal((await rejection(open(kv, OTHER))).code, 'LOCKED');
  // An export is sealed by the core (v1) and imports into a host-sealed memory.
  const exporter = await open(kv);
  const bytes = exporter.exportBytes();
  assert.ok(decodeExport(bytes).every(([, v]) => v[4] === 1));
  const target = await Memory.open({ name: 'host-import', storage: new KeyValueStorage(asyncKv()), key: KEY, sync: false });
  assert.deepEqual(await target.importBytes(bytes), { records: 3 });
  assert.ok(coreEntries((await target.storage.loadRange(''))).every(([, v]) => v[4] === 2));
  for (const m of [exporter, target]) await m.close();
});

test('a salvaging open of a host-sealed store keeps the intact parts', async () => {
  const kv = await hostStore(8);
  const part = segParts(kv.map)[0];
  const v = kv.map.get(part).slice();
  v[v.length >> 1] ^= 1;
  kv.map.set(part, v);
  const mem = await Memory.open({ name: 'host-sealed', storage: new KeyValueStorage(kv), key: KEY, sync: false, salvage: true });
  assert.ok(mem.damage.damaged.some((d) => d.key === part));
  assert.ok(mem.len > 0 && mem.len < 8, `${mem.len} records`);
  await mem.flush();
  await mem.close();
  assert.ok(coreEntries(kv.map).every(([, w]) => w[4] === 2), 'the rewrite is sealed by the host');
  assert.equal((await open(kv)).len, Memory.load(kv.map, KEY).len);
});

// The store the core and the CLI open (see the file header): written once, with
// MEMDAG_WRITE_FIXTURES=1, from tests/data/cross-face/turns.jsonl; never rewritten.
test('the cross-face v2 store opens in JS again', async () => {
  const dir = new URL('../data/cross-face/', import.meta.url);
  const fixture = new URL('sealed-v2.mdagexp', dir);
  if (process.env.MEMDAG_WRITE_FIXTURES && !existsSync(fixture)) {
    const kv = asyncKv();
    const mem = await open(kv);
    for (const line of readFileSync(new URL('turns.jsonl', dir), 'utf8').split('\n').filter(Boolean)) {
      await mem.add(JSON.parse(line));
    }
    await mem.close();
    writeFileSync(fixture, encodeExport(coreEntries(kv.map)));
  }
  const entries = decodeExport(readFileSync(fixture));
  assert.ok(entries.length >= 2 && entries.every(([, v]) => v[4] === 2), 'every value sealed v2');
  const mem = await open(asyncKv(new Map(entries)));
  assert.deepEqual(['c1', 'c2', 'c3', 'c4'].map((id) => mem.get(id)?.thread), ['plans', 'plans', 'other', 'plans']);
  assert.equal(mem.get('c2').input, '继续：写文档 ~~~ fences');
  await mem.close();
  assert.equal(Memory.load(entries, KEY).len, 4);
});

test('WebCrypto and node:crypto seal the same v2: each opens what the other sealed', async () => {
  const web = await hostSealer(KEY, { webCrypto: true });
  const node = await hostSealer(KEY);
  assert.equal(await hostSealer(null), null);
  const mem = Memory.load([], KEY, []);
  for (let i = 0; i < 4; i++) mem.addTurn(turn(i));
  const changes = mem.takeChanges();
  for (const [sealer, reader] of [[web, node], [node, web]]) {
    const stored = (await sealer.sealChanges(changes)).filter(([, v]) => v);
    assert.ok(stored.every(([, v]) => v[4] === 2));
    const { entries, opened } = await reader.openEntries(stored);
    assert.equal(opened.length, stored.length);
    assert.equal(Memory.load(entries, KEY, opened).get('h2').input, `${SECRET} 2`);
    assert.equal(Memory.load(stored, KEY).len, 4);
    // A tag that fails is no opening for either: the value goes to the core as stored.
    const [k, v] = stored[0];
    const bad = v.slice();
    bad[bad.length - 1] ^= 1;
    assert.equal(await reader.open(k, bad), null);
    assert.equal(await reader.open(`${k}x`, v), null);
  }
});
