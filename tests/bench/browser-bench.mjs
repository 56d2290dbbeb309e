// Browser benchmark (not a test): memdag on real IndexedDB in headless Chromium.
//
//   node tests/bench/browser-bench.mjs [--sizes 10000,100000] [--flush 1000] [--json] [--incognito]
//                                      [--js-flags "V8 FLAGS"]
//
// --js-flags passes V8 flags to Chromium, for diagnosis: `--js-flags "--no-liftoff
// --no-wasm-lazy-compilation"` optimizes every wasm function before the page runs, which shows
// how much of an open is spent in V8's unoptimized code while the functions it runs wait to be
// optimized (a user's browser runs the defaults).
//
// The browser keeps a profile on disk (a fresh temporary directory), as a user's browser does,
// so IndexedDB is the on-disk database. --incognito uses an off-the-record context instead,
// whose IndexedDB lives in memory (how this benchmark ran before 2026-12-02).
//
// --json prints one object with named fields instead of the table: flush_<N>_ms,
// add_<N>_ms, cold_open_<n/1000>k_ms for each size, and chromium (its version).
//
// Rows, in ms (median of 3 runs for flush, one run for the big opens):
//   flush N turns      add N turns to an opened empty store, then one `flush()` (timed)
//   cold open N        a fresh page (new JS realm, empty caches) runs `Memory.open` on a
//                      store of N records written beforehand; timed from the call to resolve
// Turns carry about 200 bytes of text and the built-in 256-d embedding (so the vector graph
// is stored and loaded too). Run scripts/build-pkg.sh first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launch, launchPersistent } from '../browser/chromium.mjs';
import { serve } from '../browser/static-server.mjs';
import { option } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const sizes = opt('--sizes', '10000,100000').split(',').map(Number);
const flushN = Number(opt('--flush', '1000'));
const root = fileURLToPath(new URL('../../', import.meta.url));

const incognito = args.includes('--incognito');
const jsFlags = opt('--js-flags', '');
const extra = jsFlags ? [`--js-flags=${jsFlags}`] : [];
const server = await serve(root);
const profile = incognito ? null : mkdtempSync(join(tmpdir(), 'memdag-bench-profile-'));
const browser = incognito ? await launch(extra) : null;
const context = incognito ? await browser.newContext() : await launchPersistent(profile, extra);
const rows = [];

async function page() {
  const p = await context.newPage();
  await p.goto(`${server.url}/tests/browser/blank.html`);
  await p.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 30000 });
  return p;
}

const fill = (p, name, n, timed) => p.evaluate(async ({ name, n, timed }) => {
  const { Memory } = window.memdag;
  const mem = await Memory.open({ name, sync: false });
  const text = 'the agent ran the build, read the logs and fixed a flaky test in the parser module';
  let parent;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = mem.addTurn({ thread: `t${i % 50}`, user: 'u', createdAt: i, input: `${text} #${i}`, output: `done ${i}`, parents: parent && i % 4 ? [parent] : [] });
    parent = r.id;
    if (!timed && i % 5000 === 4999) await mem.flush();
  }
  const t1 = performance.now();
  await mem.flush();
  const t2 = performance.now();
  await mem.close();
  return { add: t1 - t0, flush: t2 - t1 };
}, { name, n, timed });

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

{
  const p = await page();
  const runs = [];
  for (let r = 0; r < 3; r++) runs.push(await fill(p, `bench-flush-${r}`, flushN, true));
  rows.push([`flush ${flushN} turns (one transaction)`, median(runs.map((x) => x.flush)), `flush_${flushN}_ms`]);
  rows.push([`  (adding them, in memory)`, median(runs.map((x) => x.add)), `add_${flushN}_ms`]);
  await p.close();
}

for (const n of sizes) {
  const writer = await page();
  const started = Date.now();
  await fill(writer, `bench-open-${n}`, n, false);
  process.stderr.write(`wrote ${n} records in ${Date.now() - started} ms\n`);
  await writer.close();
  const reader = await page();
  const out = await reader.evaluate(async (name) => {
    const { Memory } = window.memdag;
    const t0 = performance.now();
    const mem = await Memory.open({ name, sync: false });
    const t1 = performance.now();
    return { ms: t1 - t0, len: mem.len };
  }, `bench-open-${n}`);
  if (out.len !== n) throw new Error(`opened ${out.len} records, expected ${n}`);
  const tag = n >= 1000 ? `${n / 1000}k` : n;
  rows.push([`cold open ${n} records`, out.ms, `cold_open_${tag}_ms`]);
  await reader.close();
  // The same cold open in phases, in another fresh page: opening the database, reading every
  // entry, and building the memory from them (the core's load, with the copy into wasm).
  const phased = await page();
  const parts = await phased.evaluate(async (name) => {
    const { Memory, IndexedDbStorage } = window.memdag;
    const t0 = performance.now();
    const storage = await IndexedDbStorage.open(`memdag:${name}`);
    const t1 = performance.now();
    const entries = await storage.loadRange('');
    const t2 = performance.now();
    const mem = Memory.load(entries);
    const t3 = performance.now();
    const len = mem.len;
    mem.free();
    // The same entries again in the same page: the code is compiled and the memory touched.
    const t4 = performance.now();
    Memory.load(entries).free();
    const again = performance.now() - t4;
    storage.close();
    return { idb_open: t1 - t0, read: t2 - t1, load: t3 - t2, again, len };
  }, `bench-open-${n}`);
  rows.push([`  (open the database)`, parts.idb_open, `cold_open_${tag}_idb_open_ms`]);
  rows.push([`  (read every entry)`, parts.read, `cold_open_${tag}_read_ms`]);
  rows.push([`  (Memory.load)`, parts.load, `cold_open_${tag}_load_ms`]);
  rows.push([`  (Memory.load again, same page)`, parts.again, `cold_open_${tag}_load_again_ms`]);
  await phased.close();
}

await (browser ?? context).close();
await server.close();
if (profile) rmSync(profile, { recursive: true, force: true });

const version = (await import('node:child_process')).execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
if (args.includes('--json')) {
  console.log(JSON.stringify({ chromium: version, indexeddb: incognito ? 'in memory (incognito)' : 'on disk', js_flags: jsFlags || null, ...Object.fromEntries(rows.map(([, ms, field]) => [field, Number(ms.toFixed(1))])) }));
} else {
  console.log(`memdag browser benchmark: ${version}, headless, IndexedDB ${incognito ? 'in memory (incognito)' : 'on disk'}${jsFlags ? `, --js-flags=${jsFlags}` : ''}`);
  console.log('| row | ms |\n|---|---:|');
  for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(1)} |`);
}
