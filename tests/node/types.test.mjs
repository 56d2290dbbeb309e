// pkg/index.d.ts compiles against a typed usage file (tests/types/usage.ts) with strict tsc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('index.d.ts type-checks against typed usage', () => {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL('../types/tsconfig.json', import.meta.url));
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
