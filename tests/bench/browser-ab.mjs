// A/B benchmark (not a test): cold opens of one IndexedDB store in Chromium with two or more
// builds of the package, alternated in one browser run, so a noisy machine moves every variant
// alike and their ratio means something.
//
//   node tests/bench/browser-ab.mjs [--sizes 10000] [--rounds 5] [--json] NAME=PKGDIR NAME=PKGDIR ...
//
// Each PKGDIR is a package directory (index.js, its modules and dist/, as scripts/build-pkg.sh
// leaves pkg/). The variants are copied under tests/out/ab/ and served from there. The store is
// written once by the first variant in a profile kept on disk; then each round opens it in a
// fresh page of every variant in turn: `open` is `Memory.open` (read and load), `load_again` a
// second `Memory.load` of the same entries in that page (compiled code, touched memory).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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

async function page(v) {
  const p = await context.newPage();
  await p.goto(`${server.url}/ab-${v.name}.html`);
  await p.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 30000 });
  return p;
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = [];
for (const n of sizes) {
  const name = `ab-${n}`;
  const writer = await page(variants[0]);
  await writer.evaluate(async ({ name, n }) => {
    const { Memory } = window.memdag;
    const mem = await Memory.open({ name, sync: false });
    const text = 'the agent ran the build, read the logs and fixed a flaky test in the parser module';
    let parent;
    for (let i = 0; i < n; i++) {
      const r = mem.addTurn({ thread: `t${i % 50}`, user: 'u', createdAt: i, input: `${text} #${i}`, output: `done ${i}`, parents: parent && i % 4 ? [parent] : [] });
      parent = r.id;
      if (i % 5000 === 4999) await mem.flush();
    }
    await mem.flush();
    await mem.close();
  }, { name, n });
  await writer.close();
  const runs = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of variants) {
      const p = await page(v);
      runs[v.name].push(await p.evaluate(async ({ name, n }) => {
        const { Memory, IndexedDbStorage } = window.memdag;
        const t0 = performance.now();
        const mem = await Memory.open({ name, sync: false });
        const open = performance.now() - t0;
        if (mem.len !== n) throw new Error(`opened ${mem.len} records, expected ${n}`);
        await mem.close();
        const storage = await IndexedDbStorage.open(`memdag:${name}`);
        const entries = await storage.loadRange('');
        const t1 = performance.now();
        Memory.load(entries).free();
        const again = performance.now() - t1;
        storage.close();
        return { open, again };
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
    });
  }
}

await context.close();
await server.close();
rmSync(profile, { recursive: true, force: true });
if (args.includes('--json')) for (const row of out) console.log(JSON.stringify(row));
else {
  console.log('| variant | records | open ms (median) | open ms (each) | load again ms (median) |\n|---|---:|---:|---|---:|');
  for (const r of out) console.log(`| ${r.variant} | ${r.records} | ${r.open_median_ms} | ${r.open_ms.join(', ')} | ${r.load_again_median_ms} |`);
}
