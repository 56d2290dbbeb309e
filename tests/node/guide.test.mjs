// The guide (pkg/README.md) runs: every `js test` block in its own Node process against the
// built package, its stdout compared with the `text output` block after it; every `js parse`
// block (the bundler configurations) checked by `node --check`, which parses and runs nothing.
// Every block must carry a known marker, so a new snippet cannot go unrun by accident. The
// `html browser` and `js worker` blocks run in tests/browser/guide.test.mjs and
// tests/worker/guide.test.mjs. See tests/guide/snippets.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { GUIDE, RUN, resolvePackage, snippets } from '../guide/snippets.mjs';

const blocks = snippets(readFileSync(GUIDE, 'utf8'));
const pkg = new URL('../../pkg/index.js', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'memdag-guide-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

test('every block of the guide has a known marker, and the guide has what it promises', () => {
  for (const b of blocks) {
    assert.ok(RUN[b.lang]?.includes(b.marker), `pkg/README.md:${b.line}: \`${b.lang} ${b.marker}\` is not a known block kind`);
  }
  const count = (lang, marker) => blocks.filter((b) => b.lang === lang && b.marker === marker).length;
  assert.ok(count('js', 'test') >= 8, 'Node snippets');
  assert.equal(count('html', 'browser'), 1);
  assert.equal(count('js', 'worker'), 2);
  assert.equal(count('js', 'parse'), 2);
  const text = readFileSync(GUIDE, 'utf8');
  for (const topic of ['## Install', 'Vite', 'webpack', '<script type="module">', 'Durable Object', 'visibilitychange',
    'cited(', 'One call before a turn, one after', 'prepare(', 'readBlob(', 'addItem', 'extract', 'listItems', 'updateWork', 'toolSchemas', 'callTool', 'mcp --user', '`STORAGE`', '`UNKNOWN_PARENT`']) {
    assert.ok(text.includes(topic), `the guide covers ${topic}`);
  }
});

for (const [i, b] of blocks.entries()) {
  if (b.lang !== 'js' || (b.marker !== 'test' && b.marker !== 'parse')) continue;
  test(`guide snippet at pkg/README.md:${b.line} ${b.marker === 'test' ? 'runs' : 'parses'}`, () => {
    const file = join(dir, `snippet-${i}.mjs`);
    writeFileSync(file, b.marker === 'test' ? resolvePackage(b.code, pkg) : b.code);
    const args = b.marker === 'test' ? [file] : ['--check', file];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    if (b.output != null) assert.equal(run.stdout, b.output, 'stdout is the output block');
  });
}
