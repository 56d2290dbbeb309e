// Exports and imports in the built package, all through the core (crates/memdag-core/src/
// export): Markdown files a person can edit, JSONL in the ingest format, the binary snapshot
// (MDAGEXP1, also as encodeExport/decodeExport), and PersistentMemory's imports, which resolve
// once durable and replay after a rebase onto another writer's flush.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { KeyValueStorage, Memory, MemoryStorage, decodeExport, encodeExport } from '../../pkg/index.js';
import { asyncKv } from './storage.test.mjs';
import { thrown, rejection } from './throws.mjs';

const T0 = Date.UTC(2024, 4, 8, 13, 56);
const MIN = 60_000;

/** Two threads with a cross-thread parent, a tool step, a compact node, an item with a
 * superseded version, working memory and a blob. */
function sample() {
  const mem = new Memory();
  mem.addTurn({ id: 'a1', thread: 'deploy', user: 'ada', createdAt: T0, input: 'deploy the app', output: 'which env?' });
  mem.addTurn({
    id: 'a2', thread: 'deploy', user: 'ada', createdAt: T0 + MIN, input: 'prod', parents: ['a1'],
    steps: [{ tool: 'deploy', args: '{"env":"prod"}', result: 'error: pending migrations', ok: false }],
    output: 'the deploy failed: ~~~ pending migrations', tags: ['shared'], importance: 0.7,
  });
  mem.addTurn({ id: 'b1', thread: 'notes', user: 'ada', createdAt: T0 + 2 * MIN, input: 'remember the fix', parents: ['a2'] });
  mem.compactExtractive('a2');
  mem.addItem({ kind: 'personal', user: 'ada', text: 'Lives in Berlin', relation: 'residence', object: 'Berlin', createdAt: T0, sources: ['a1'] });
  mem.addItem({ kind: 'personal', user: 'ada', text: 'Lives in Paris', relation: 'residence', object: 'Paris', createdAt: T0 + MIN });
  mem.updateWork({ thread: 'deploy', field: 'goal', op: 'set', value: 'ship v2', at: T0 });
  mem.updateWork({ thread: 'deploy', field: 'tasks', op: 'push', value: { text: 'run migrations', status: 'todo' }, at: T0 + 1 });
  mem.putBlob('the full tool output');
  return mem;
}

const ids = (mem) => [...mem.recent('deploy', 10), ...mem.recent('notes', 10)].map((r) => r.id).sort();

test('Markdown: export, import into an empty memory, export again gives the same files', () => {
  const mem = sample();
  const files = mem.exportMarkdown();
  assert.ok(Array.isArray(files) && files.every(([p, t]) => typeof p === 'string' && typeof t === 'string'));
  const paths = files.map(([p]) => p);
  assert.deepEqual(paths, [...paths].sort(), 'in path order');
  assert.ok(paths.includes('README.md'));
  assert.ok(paths.some((p) => /^threads\/deploy-[0-9a-f]{8}\.md$/.test(p)), paths.join(', '));
  assert.ok(paths.some((p) => /^memory\/ada-[0-9a-f]{8}\.md$/.test(p)), paths.join(', '));
  const deploy = files.find(([p]) => p.startsWith('threads/deploy-'))[1];
  assert.match(deploy, /the deploy failed: ~~~ pending migrations/);
  assert.match(deploy, /## Working memory/);

  const copy = new Memory();
  const report = copy.importMarkdown(files);
  assert.deepEqual(report, { turns: 3, items: 2, work: 1, skipped: [], conflicts: [] });
  assert.deepEqual(ids(copy), ['a1', 'a2', 'b1']);
  assert.deepEqual(copy.get('a2').parents, ['a1']);
  assert.deepEqual(copy.get('a2').steps, mem.get('a2').steps);
  assert.deepEqual(copy.get('a2').compact, mem.get('a2').compact);
  assert.equal(copy.listItems({ user: 'ada' })[0].text, 'Lives in Paris');
  assert.equal(copy.listItems({ user: 'ada', all: true }).length, 2, 'the superseded item came too');
  assert.equal(copy.workingMemory('deploy').fields.goal.value, 'ship v2');
  assert.deepEqual(copy.blobIds(), mem.blobIds());
  assert.deepEqual(copy.exportMarkdown(), files, 'export, import, export: the same files');

  // A Map of files works too; ids already there are skipped and reported.
  assert.deepEqual(copy.importMarkdown(new Map(files)).skipped.length, 5);
  // A person's edit reads back.
  const edited = files.map(([p, t]) => [p, p.startsWith('threads/deploy-') ? t.replace('deploy the app', 'deploy the app now') : t]);
  const fromEdit = new Memory();
  fromEdit.importMarkdown(edited);
  assert.equal(fromEdit.get('a1').input, 'deploy the app now');
  // Files that are not a memdag export are skipped; a malformed one is refused, naming it.
  assert.deepEqual(new Memory().importMarkdown([['notes.md', '# my notes']]), { turns: 0, items: 0, work: 0, skipped: [], conflicts: [] });
  const broken = files.map(([p, t]) => [p, p.startsWith('threads/deploy-') ? t.replace('- createdAt: "', '- createdAt: "x') : t]);
  const e = thrown(() => new Memory().importMarkdown(broken));
  assert.equal(e.code, 'INVALID_INPUT');
  assert.match(e.message, /threads\/deploy-/);
  assert.equal(thrown(() => copy.importMarkdown([['a.md', 42]])).code, 'INVALID_INPUT');
  assert.equal(thrown(() => copy.importMarkdown('not files')).code, 'INVALID_INPUT');
});

test('JSONL: the ingest format with items and working memory; vectors kept; a bad line named', () => {
  const mem = sample();
  mem.addTurn({ id: 'v1', thread: 'notes', user: 'ada', createdAt: T0 + 3 * MIN, input: 'vector', embedding: [0.5, 0.25, 1] });
  const text = mem.exportJsonl();
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.filter((l) => l.id).map((l) => l.id), ['a1', 'a2', 'b1', 'v1']);
  assert.equal(lines.find((l) => l.id === 'a1').createdAt, '2024-05-08T13:56:00Z', 'ISO 8601, as ingest reads it');
  assert.equal(lines.filter((l) => l.memory).length, 2);
  assert.equal(lines.filter((l) => l.work).length, 1);

  const copy = new Memory();
  assert.deepEqual(copy.importJsonl(text), { turns: 4, items: 2, work: 1, skipped: [], conflicts: [] });
  assert.deepEqual([...copy.get('v1').embedding], [0.5, 0.25, 1], 'the vector came back');
  assert.equal(copy.exportJsonl(), text);
  assert.deepEqual(copy.importJsonl(text).skipped.sort(), [...lines.filter((l) => l.id).map((l) => l.id), ...lines.filter((l) => l.memory).map((l) => l.memory.id)].sort());

  // A turn without a time takes `now`, default the host clock.
  const dated = new Memory();
  dated.importJsonl('{"id":"x","thread":"t","input":"undated"}\n', 1234);
  assert.equal(dated.get('x').createdAt, 1234);
  const before = Date.now();
  dated.importJsonl('{"id":"y","thread":"t","input":"undated"}');
  assert.ok(dated.get('y').createdAt >= before);

  const e = thrown(() => new Memory().importJsonl('{"id":"a","thread":"t"}\nnot json\n'));
  assert.equal(e.code, 'INVALID_INPUT');
  assert.match(e.message, /line 2/);
  const orphan = thrown(() => new Memory().importJsonl('{"id":"a","thread":"t","parents":["ghost"]}'));
  assert.equal(orphan.code, 'UNKNOWN_PARENT');
  assert.equal(thrown(() => copy.importJsonl(42)).code, 'INVALID_INPUT');
});

test('the snapshot file comes from the core, with the committed fixture\'s format', () => {
  const mem = sample();
  const file = mem.exportSnapshot();
  assert.ok(file instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(file.subarray(0, 8)), 'MDAGEXP1');
  const entries = decodeExport(file);
  assert.deepEqual(entries.map(([k]) => k), mem.snapshot().map(([k]) => k));
  assert.deepEqual(encodeExport(entries), file, 'encode(decode(file)) is the file');
  assert.deepEqual(encodeExport(mem.snapshot()), file);
  assert.deepEqual(decodeExport(file.buffer.slice(file.byteOffset, file.byteOffset + file.length)), entries, 'an ArrayBuffer too');
  const back = Memory.load(entries);
  assert.deepEqual(ids(back), ids(mem));
  // The layout, by hand: magic, then per entry u32 LE key length, key, u32 LE value length, value.
  const one = encodeExport([['k', new Uint8Array([7, 8])]]);
  assert.deepEqual([...one], [...new TextEncoder().encode('MDAGEXP1'), 1, 0, 0, 0, 107, 2, 0, 0, 0, 7, 8]);
  for (const bad of [new Uint8Array([1, 2, 3]), one.subarray(0, one.length - 1), 'MDAGEXP1']) {
    assert.equal(thrown(() => decodeExport(bad)).code, 'INVALID_INPUT');
  }
  // The core's committed fixture of the format (crates/memdag-core/tests/fixtures) reads back.
  const fixture = readFileSync(new URL('../../crates/memdag-core/tests/fixtures/snapshot-v1.mdagexp', import.meta.url));
  const loaded = Memory.load(decodeExport(fixture));
  assert.equal(loaded.get('b1').input, '继续：写文档');
  assert.equal(loaded.workingMemory('plans', 'ada').fields.goal.value, 'ship v1');
  assert.equal(loaded.listItems({ all: true }).length, 2);
});

test('PersistentMemory: imports resolve once durable, exports read the live memory', async () => {
  const storage = new MemoryStorage();
  const mem = await Memory.open({ name: 'export-durable', storage, sync: false });
  const files = sample().exportMarkdown();
  const report = await mem.importMarkdown(files);
  assert.deepEqual(report, { turns: 3, items: 2, work: 1, skipped: [], conflicts: [] });
  assert.equal(mem.pending, 0);
  const stored = Memory.load(storage.map);
  assert.deepEqual(ids(stored), ['a1', 'a2', 'b1'], 'durable when it resolves');
  assert.equal(stored.workingMemory('deploy').fields.goal.value, 'ship v2');
  assert.deepEqual(mem.exportMarkdown(), files);

  const jsonl = await Memory.open({ name: 'export-jsonl', storage: new MemoryStorage(), sync: false });
  assert.equal((await jsonl.importJsonl(mem.exportJsonl())).turns, 3);
  assert.equal((await jsonl.importJsonl('{"id":"late","thread":"t"}', 77)).turns, 1);
  assert.equal(Memory.load(jsonl.storage.map).get('late').createdAt, 77);
  assert.equal((await rejection(jsonl.importJsonl('nope'))).code, 'INVALID_INPUT');
  assert.equal(jsonl.pending, 0, 'a refused import journals nothing');

  // exportBytes is the core's snapshot, and importBytes reads it.
  const bytes = mem.exportBytes();
  assert.deepEqual(bytes, mem.exportSnapshot());
  const target = await Memory.open({ name: 'export-target', storage: new MemoryStorage(), sync: false });
  assert.deepEqual(await target.importBytes(bytes), { records: 5 });
  assert.deepEqual(ids(target), ['a1', 'a2', 'b1']);
  await Promise.all([mem.close(), jsonl.close(), target.close()]);
});

test('PersistentMemory: an import replays after another writer\'s flush', async () => {
  const kv = asyncKv();
  const one = await Memory.open({ name: 'import-rebase', storage: new KeyValueStorage(kv), sync: false });
  const two = await Memory.open({ name: 'import-rebase', storage: new KeyValueStorage(kv), sync: false });
  await two.add({ id: 'other', thread: 'x', input: 'from the other writer', createdAt: 5 });
  // `one` has not seen that flush: its import is replayed onto the reloaded store.
  const report = await one.importJsonl(sample().exportJsonl());
  assert.equal(report.turns, 3);
  const durable = Memory.load(kv.map);
  assert.ok(durable.get('other'), "the other writer's turn is kept");
  assert.deepEqual(ids(durable), ['a1', 'a2', 'b1']);
  assert.equal(durable.listItems({ user: 'ada', all: true }).length, 2);
  assert.equal(one.len, durable.len);
  await Promise.all([one.close(), two.close()]);
});
