// A/B benchmark (not a test): cold opens of one IndexedDB store in Chromium with two or more
// builds of the package, alternated in one browser run, so a noisy machine moves every variant
// alike and their ratio means something.
//
//   node tests/bench/browser-ab.mjs [--sizes 10000] [--rounds 5] [--vectors] [--memory] [--json] NAME=PKGDIR ...
//
// Each PKGDIR is a package directory (index.js, its modules and dist/, as scripts/build-pkg.sh
// leaves pkg/). The variants are copied under tests/out/ab/ and served from there. The store is
// written once by the first variant in a profile kept on disk; then each round opens it in a
// fresh page of every variant in turn: `open` is `Memory.open` (read and load), `load_again` a
// second `Memory.load` of the same entries in that page (compiled code, touched memory).
//
// --vectors gives each record a 384-d vector (as the other benchmarks' stores have), so the
// store is about 2 KB a record. --memory also reports `peak_mib`: the page's renderer process's
// peak resident memory during `Memory.open`, above what it held before (Linux: the peak is
// reset through /proc/PID/clear_refs and read from VmHWM, summed over every renderer process,
// since Chromium may hand the page a spare renderer started earlier; the others are idle). That
// is what an open costs a browser tab, JS copies of the values included.
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchPersistent } from '../browser/chromium.mjs';
import { serve } from '../browser/static-server.mjs';
import { option } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const sizes = opt('--sizes', '10000').split(',').map(Number);
const rounds = Number(opt('--rounds', '5'));
const vectors = args.includes('--vectors');
const memory = args.includes('--memory');
const variants = args.filter((a) => /^[\w-]+=/.test(a)).map((a) => {
  const at = a.indexOf('=');
  return { name: a.slice(0, at), dir: resolve(a.slice(at + 1)) };
});
if (variants.length < 2) throw new Error('name at least two variants: NAME=PKGDIR NAME=PKGDIR');

const root = fileURLToPath(new URL('../../', import.meta.url));
const served = join(root, 'tests/out/ab');
rmSync(served, { recursive: true, force: true });
for (const v of variants) cpSync(v.dir, join(served, v.name), { recursive: true });
const pages = Object.fromEntries(variants.map((v) => [`/ab-${v.name}.html`,
  `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
  import * as memdag from '/tests/out/ab/${v.name}/index.js';
  window.memdag = memdag; document.body.dataset.ready = 'true';</script><body></body>`]));
const server = await serve(root, 0, pages);
const profile = mkdtempSync(join(tmpdir(), 'memdag-ab-profile-'));
const context = await launchPersistent(profile);

/** The pids of Chromium's renderer processes. */
function renderers() {
  const found = new Set();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) found.add(pid);
    } catch {
      // gone
    }
  }
  return found;
}

/** A process's resident memory now and at its peak, in MiB. */
function resident(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
  return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** A fresh page of variant `v`. */
async function page(v) {
  const p = await context.newPage();
  await p.goto(`${server.url}/ab-${v.name}.html`);
  await p.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 30000 });
  return p;
}

/** Resets the peak of every renderer process; resolves to the sum of their resident MiB. */
function peakReset() {
  let now = 0;
  for (const pid of renderers()) {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    now += resident(pid).now;
  }
  return now;
}

/** The sum of the renderer processes' peaks since `peakReset`, in MiB. */
function peakRead() {
  let peak = 0;
  for (const pid of renderers()) peak += resident(pid).peak;
  return peak;
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = [];
for (const n of sizes) {
  const name = `ab-${n}`;
  const writer = await page(variants[0]);
  await writer.evaluate(async ({ name, n, vectors }) => {
    const { Memory } = window.memdag;
    const mem = await Memory.open({ name, sync: false });
    const text = 'the agent ran the build, read the logs and fixed a flaky test in the parser module';
    let parent;
    for (let i = 0; i < n; i++) {
      const embedding = vectors ? Float32Array.from({ length: 384 }, (_, d) => Math.sin(i * 0.37 + d * 1.3) + ((i * 31 + d * 17) % 13) / 13) : undefined;
      const r = mem.addTurn({ thread: `t${i % 50}`, user: 'u', createdAt: i, input: `${text} #${i}`, output: `done ${i}`, parents: parent && i % 4 ? [parent] : [], embedding });
      parent = r.id;
      if (i % 5000 === 4999) await mem.flush();
    }
    await mem.flush();
    await mem.close();
  }, { name, n, vectors });
  await writer.close();
  const runs = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of variants) {
      const p = await page(v);
      await p.exposeFunction('peakReset', () => (memory ? peakReset() : null));
      await p.exposeFunction('peakRead', () => (memory ? peakRead() : null));
      runs[v.name].push(await p.evaluate(async ({ name, n }) => {
        const { Memory, IndexedDbStorage } = window.memdag;
        const base = await window.peakReset();
        const t0 = performance.now();
        const mem = await Memory.open({ name, sync: false });
        const open = performance.now() - t0;
        const peak = base == null ? null : (await window.peakRead()) - base;
        if (mem.len !== n) throw new Error(`opened ${mem.len} records, expected ${n}`);
        await mem.close();
        const storage = await IndexedDbStorage.open(`memdag:${name}`);
        const entries = await storage.loadRange('');
        const t1 = performance.now();
        Memory.load(entries).free();
        const again = performance.now() - t1;
        storage.close();
        return { open, again, peak };
      }, { name, n }));
      await p.close();
    }
  }
  for (const v of variants) {
    out.push({
      variant: v.name,
      records: n,
      open_ms: runs[v.name].map((x) => Number(x.open.toFixed(1))),
      load_again_ms: runs[v.name].map((x) => Number(x.again.toFixed(1))),
      open_median_ms: Number(median(runs[v.name].map((x) => x.open)).toFixed(1)),
      load_again_median_ms: Number(median(runs[v.name].map((x) => x.again)).toFixed(1)),
      ...(memory ? { peak_mib: runs[v.name].map((x) => (x.peak == null ? null : Number(x.peak.toFixed(1)))) } : {}),
    });
  }
}

await context.close();
await server.close();
rmSync(profile, { recursive: true, force: true });
if (args.includes('--json')) for (const row of out) console.log(JSON.stringify(row));
else {
  console.log(`| variant | records | open ms (median) | open ms (each) | load again ms (median) |${memory ? ' open peak MiB (each) |' : ''}\n|---|---:|---:|---|---:|${memory ? '---|' : ''}`);
  for (const r of out) console.log(`| ${r.variant} | ${r.records} | ${r.open_median_ms} | ${r.open_ms.join(', ')} | ${r.load_again_median_ms} |${memory ? ` ${r.peak_mib.join(', ')} |` : ''}`);
}
