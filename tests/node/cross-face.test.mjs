// One JSON turn shape for every face: the JS package adds the lines of
// tests/data/cross-face/turns.jsonl as plain objects and stores exactly the bytes the core does
// (tests/data/cross-face/snapshot.mdagexp, checked by the core's tests/cross_face.rs and, for
// the WIT component, by memdag-host's tests/cross_face.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Memory, encodeExport } from '../../pkg/index.js';

const dir = new URL('../data/cross-face/', import.meta.url);

test('the same JSON turns give the same stored bytes as the core', () => {
  const mem = new Memory();
  for (const line of readFileSync(new URL('turns.jsonl', dir), 'utf8').split('\n').filter(Boolean)) {
    mem.addTurn(JSON.parse(line));
  }
  assert.equal(mem.get('c1').steps[0].ok, true, 'ok defaults to true');
  assert.equal(mem.get('c3').createdAt, 1715173200000);
  const file = encodeExport(mem.snapshot());
  const expected = readFileSync(new URL('snapshot.mdagexp', dir));
  assert.equal(Buffer.from(file).toString('hex'), expected.toString('hex'));
});
