// An open under a capped wasm memory, at every cap a MiB apart: each either opens the store or
// fails with STORAGE; none traps (a trap kills the wasm instance and every memory open in it).
// The memory is capped in the module as the Worker benchmark caps it (capMemory), and each cap
// opens in a fresh Node process through tests/bench/capped-open.mjs, over KeyValueStorage as a
// Worker opens from KV. The Worker itself (workerd) is tested at two caps in
// tests/worker/capped.test.mjs; this sweeps the caps, which takes a process each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Memory } from '../../pkg/index.js';
import { writeEntryDump } from '../bench/lib.mjs';

const tool = fileURLToPath(new URL('../bench/capped-open.mjs', import.meta.url));
const DIM = 384;

test('under every cap from 2 to 14 MiB, opening a 5000-turn int8 store opens it or fails with STORAGE, never a trap', () => {
  const mem = new Memory();
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  for (let i = 0; i < 5000; i++) {
    const embedding = Float32Array.from({ length: DIM }, next);
    mem.addTurn({ id: `t${i}`, thread: `th${i % 9}`, user: `u${i % 3}`, createdAt: i, input: `turn ${i} about the harbour crane, shift ${i % 17}`, embedding });
  }
  const entries = mem.snapshot();
  mem.free();
  const dir = mkdtempSync(join(tmpdir(), 'memdag-capped-'));
  try {
    writeEntryDump(join(dir, 'store'), entries);
    const caps = Array.from({ length: 13 }, (_, i) => i + 2);
    const out = execFileSync(process.execPath, [tool, join(dir, 'store'), '--limit-mib', caps.join(',')], { encoding: 'utf8', maxBuffer: 1 << 24 });
    const rows = out.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(rows.map((r) => r.limitMib), caps);
    for (const row of rows) {
      if (row.ok) {
        assert.equal(row.len, 5000, JSON.stringify(row));
      } else {
        assert.equal(row.code, 'STORAGE', `a cap of ${row.limitMib} MiB: ${JSON.stringify(row)}`);
        assert.match(row.message, /out of memory/);
      }
      assert.ok(row.wasmMiB <= row.limitMib, JSON.stringify(row));
    }
    // The sweep spans both outcomes: the smallest caps fail, the largest open.
    assert.equal(rows[0].ok, false);
    assert.equal(rows.at(-1).ok, true, JSON.stringify(rows.at(-1)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
