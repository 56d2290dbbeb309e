// Issue 30, item 13, in the JS face: an imported id that the memory holds with other text is
// reported in `conflicts` (and the stored record kept), never skipped silently; importing
// nothing (an empty JSONL text, an export file that is only its magic) is INVALID_INPUT.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memory, encodeExport, decodeExport } from '../../pkg/index.js';
import { thrown } from './throws.mjs';

const T0 = Date.UTC(2026, 10, 27);

test('an imported id stored with other text is a reported conflict; the stored one is kept', () => {
  const mem = new Memory();
  mem.addTurn({ id: 't1', thread: 'default', input: 'the original words', output: 'ok', createdAt: T0 });
  const line = (input) => JSON.stringify({ id: 't1', thread: 'default', input, output: 'ok', createdAt: T0 });
  assert.deepEqual(mem.importJsonl(line('the original words')).conflicts, [], 'a repeat is no conflict');
  const report = mem.importJsonl(`${line('other words')}\n{"id":"t2","thread":"default","input":"new","createdAt":${T0}}`);
  assert.deepEqual(report.skipped, ['t1']);
  assert.deepEqual(report.conflicts, ['t1']);
  assert.equal(report.turns, 1);
  assert.equal(mem.get('t1').input, 'the original words');
  assert.equal(mem.get('t2').input, 'new');
});

test('importing nothing is INVALID_INPUT: an empty JSONL text, an export that is only its magic', () => {
  const mem = new Memory();
  for (const text of ['', '\n\n', '   ']) {
    assert.equal(thrown(() => mem.importJsonl(text)).code, 'INVALID_INPUT', JSON.stringify(text));
  }
  assert.equal(mem.len, 0, 'nothing was added');
  assert.equal(thrown(() => decodeExport(new Uint8Array())).code, 'INVALID_INPUT');
  assert.equal(thrown(() => decodeExport(encodeExport([]))).code, 'INVALID_INPUT');
  // An empty memory's export still holds its commit, so it round-trips.
  const entries = decodeExport(new Memory().exportSnapshot());
  assert.ok(entries.some(([k]) => k === 'head'), 'the export carries head');
});
