// Opening and answering a large memory in a Worker under a 128 MiB memory cap, on real workerd
// (miniflare, installed in tests/worker). A benchmark, not a test.
//
//   node tests/bench/worker-128mb.mjs [--records 100000[,50000...]] [--precisions f32,int8]
//        [--limit-mib 128] [--queries 200] [--data DIR] [--no-build] [--dump DIR]
//
// For each precision: builds the benchmark's workload store in Node with the JS package
// (pkg/dist, built by scripts/build-pkg.sh): N records of the LoCoMo dev turns replicated, each
// with a 384-d vector of the clustered corpus (memdag-bench's corpus_vectors, the vectors every
// other benchmark uses), kept at that precision; writes its snapshot into the Worker's KV
// namespace; then the Worker (tests/bench/worker-128mb.worker.js) opens it through the
// package's Workers entry and KeyValueStorage, as examples/cloudflare-worker does, and answers
// BM25, vector and hybrid searches, one a request.
//
// The cap: workerd enforces no memory limit locally (miniflare has no option for it), so the
// Worker's wasm module is given a memory maximum of --limit-mib (2,048 pages of 64 KiB for
// 128): past it, an allocation fails and the open or the query fails. Wasm memory only grows,
// so its size after the run is its peak, rounded up to the allocator's growth step (a sixteenth,
// at most 16 MiB; under the cap the last steps shrink to what is needed: crates/memdag-alloc).
// The JS side holds at most the eight values being read at once: `Memory.open` copies each
// into wasm memory as it arrives (`kv MiB` is the store's size, all of it in wasm memory during
// the open). --limit-mib 0 runs without a cap, to measure what the open needs.
//
// --dump DIR writes each store's entries to DIR/<records>-<precision>.{json,bin} instead of
// running the Worker, for tests/bench/capped-open.mjs, which opens them in Node under the same
// cap in seconds, and names the function of a trap when given a package with names.
//
// Times are taken in Node around each request (inside a Worker the clock stands still while
// code runs), so each includes a round trip through miniflare: the `/ping` row is that round
// trip alone.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { defaultData, loadBench, locomo, option, writeEntryDump } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const sizes = option(args, '--records', '100000').split(',').map(Number).filter((n) => n > 0);
const precisions = option(args, '--precisions', 'f32,int8').split(',').filter(Boolean);
const limitMib = Number(option(args, '--limit-mib', '128'));
const dump = option(args, '--dump', '');
const queries = Number(option(args, '--queries', '200'));
const data = resolve(option(args, '--data', defaultData));
const log = (...a) => console.error(...a);

if (!dump && !existsSync(join(here, '../worker/node_modules/miniflare'))) {
  // A fresh checkout has not installed the Worker tests' tree (scripts/test.sh does).
  console.error('worker-128mb: miniflare is not installed: run (cd tests/worker && npm ci) first');
  process.exit(2);
}
const { kvWorker } = dump ? {} : await import('../worker/harness.mjs');
const { Memory } = await import('../../pkg/index.js');

const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions: questionFiles } = locomo(data);
const DIM = 384;

function pct(samples, p) {
  const v = [...samples].sort((a, b) => a - b);
  return v[Math.min(v.length, Math.max(1, Math.ceil((p / 100) * v.length))) - 1];
}
const mib = (b) => (b / 1048576).toFixed(1);

const questions = bench.corpus_questions(turns, questionFiles);
const WARM = 20;

/** Builds the store of `records` records at `precision`, opens it in the Worker and searches. */
async function run(records, precision, vec, texts) {
  log(`== ${records} records, vectors at ${precision}`);
  const started = performance.now();
  const mem = new Memory();
  mem.setVectorSettings({ precision });
  for (let i = 0; i < records; i++) {
    mem.addTurn({ id: `r${i}`, thread: `t${i % 50}`, user: 'u', createdAt: i, input: texts[i], embedding: vec(i) });
  }
  const entries = mem.snapshot();
  mem.free();
  const kvBytes = entries.reduce((n, [k, v]) => n + k.length + v.length, 0);
  log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s: ${entries.length} keys, ${mib(kvBytes)} MiB`);

  const row = { precision, records, keys: entries.length, kvBytes, limitMib };
  if (dump) {
    row.dumped = writeEntryDump(join(dump, `${records}-${precision}`), entries);
    return row;
  }
  const mf = await kvWorker(join(here, 'worker-128mb.worker.js'), { entries, limitMib });
  try {
    const call = async (path, body) => {
      const init = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      const start = performance.now();
      const res = await mf.dispatchFetch(`http://bench.test${path}`, init);
      const json = await res.json();
      return { ms: performance.now() - start, status: res.status, json };
    };
    const ping = [];
    for (let i = 0; i < queries; i++) ping.push((await call('/ping')).ms);
    row.pingP50 = pct(ping, 50);
    const opened = await call('/open', {});
    row.openMs = opened.ms;
    if (opened.status !== 200) {
      row.error = opened.json.error;
      row.wasmBytes = opened.json.wasmBytes;
      return row;
    }
    if (opened.json.len !== records) throw new Error(`opened ${opened.json.len} records`);
    row.vectorSettings = opened.json.vectorSettings;
    row.wasmAfterOpen = opened.json.wasmBytes;
    const kinds = {
      bm25: (i) => ({ text: questions[i % questions.length], mode: 'bm25', k: 10 }),
      vector: (i) => ({ embedding: Array.from(vec(records + i)), mode: 'vector', k: 10 }),
      hybrid: (i) => ({ text: questions[i % questions.length], embedding: Array.from(vec(records + i)), mode: 'hybrid', k: 10 }),
    };
    for (const [kind, query] of Object.entries(kinds)) {
      const times = [];
      // Untimed first calls: V8 optimizes the search code after its first runs.
      for (let i = 0; i < WARM + queries && !row.error; i++) {
        const r = await call('/search', query(i % queries));
        if (r.status !== 200) row.error = r.json.error;
        else if (i >= WARM) times.push(r.ms);
      }
      row[`${kind}P50`] = times.length ? pct(times, 50) : NaN;
    }
    row.wasmBytes = (await call('/memory')).json.wasmBytes;
    return row;
  } finally {
    await mf.dispose();
  }
}

const rows = [];
for (const records of sizes) {
  const vectors = bench.corpus_vectors(records, queries);
  const vec = (i) => vectors.subarray(i * DIM, (i + 1) * DIM);
  const texts = bench.corpus_texts(records, turns, questionFiles);
  for (const precision of precisions) {
    const row = await run(records, precision, vec, texts);
    row.fits = !row.error;
    log(JSON.stringify(row));
    rows.push(row);
  }
}

const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
console.log(`Workers (workerd via miniflare): records opened from KV and searched, wasm memory capped at ${limitMib > 0 ? `${limitMib} MiB` : 'nothing'}; times in ms from Node, one request each (the round trip is the ping row)`);
console.log('| records | precision | keys | kv MiB | open ms | wasm MiB after open | wasm MiB peak | ping p50 | bm25 p50 | vector p50 | hybrid p50 | result |\n|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const result = r.dumped ? `entries written to ${r.dumped}.{json,bin}` : r.error ? `failed: ${r.error.code} ${r.error.message}`.slice(0, 120) : 'opened and answered';
  console.log(`| ${r.records} | ${r.precision} | ${r.keys} | ${mib(r.kvBytes)} | ${f(r.openMs, 0)} | ${r.wasmAfterOpen ? mib(r.wasmAfterOpen) : '-'} | ${r.wasmBytes ? mib(r.wasmBytes) : '-'} | ${f(r.pingP50)} | ${f(r.bm25P50)} | ${f(r.vectorP50)} | ${f(r.hybridP50)} | ${result} |`);
}
