// memdag (wasm) side by side with peer engines, in one Node run, on the same corpus and queries.
// A benchmark, not a test.
//
//   node --expose-gc tests/bench/peers.mjs [--sizes 10000,100000] [--no-build] [--data DIR]
//        [--vector-queries 500] [--peer-text-queries 30] [--no-rebuild] [--native FILE] [--json]
//        [--precisions f32,int8,int8+f32]
//
// - Data: the record and query vectors and the record texts come out of the memdag-bench wasm
//   module itself (corpus_vectors, corpus_texts, corpus_questions), so every engine indexes the
//   very data memdag indexes: 384-d unit vectors around 200 centres (sigma 0.06) and the LoCoMo
//   dev turns replicated to N (copies suffixed ` #i`), queried with the LoCoMo dev questions.
// - memdag: a `Bench` handle holds the workload store; Node times each query call the same way
//   it times the peers. Its own workload report (timed inside wasm) is printed too: that is the
//   wasm table of run-wasm.mjs, from the same store.
// - Vector peers: hnswlib-node (native C++; M 16, ef_construction 100 like memdag's HNSW),
//   hnswlib-wasm (emscripten; 10k only: its 100k build takes minutes), Orama's exact vector
//   scan. Recall@10 against the exact ten nearest of the f32 corpus (memdag's `exact`).
// - --precisions: how memdag keeps its vectors (f32, int8, int8+f32); the first (default: the
//   store's default) gives the memdag rows every peer is set beside, each other one adds a store
//   built at that precision and its raw index rows, set beside hnswlib-node at the same ef.
// - Text peers: MiniSearch and Orama, default options, top 10 asked for (MiniSearch returns
//   every match: it has no limit). At sizes over 20k the peers take only the first
//   --peer-text-queries questions, one timed pass (Orama takes seconds a query there); memdag
//   is timed on that same subset for the ratio, and on all questions for its own row.
// - Memory per record: memdag's own heap accounting (index_bytes_per_record, split into text
//   and vectors); peers: RSS and V8 heap growth across their build, after a full GC.
// - --native FILE: the `memdag-bench --json` output of the same machine, for wasm/native ratios.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultData, loadBench, locomo, option } from './lib.mjs';

const args = process.argv.slice(2);
const sizes = option(args, '--sizes', '10000,100000').split(',').map(Number).filter((n) => n > 0);
const data = resolve(option(args, '--data', defaultData));
const VQ = Number(option(args, '--vector-queries', '500'));
const peerTextQueries = Number(option(args, '--peer-text-queries', '30'));
const rebuild = !args.includes('--no-rebuild');
const nativeFile = option(args, '--native', '');
const json = args.includes('--json');
const precisions = option(args, '--precisions', '').split(',').filter(Boolean);
const mainPrecision = precisions[0] ?? '';
const DIM = 384;
const K = 10;
const EFS = [32, 64, 128, 256];
const require = createRequire(import.meta.url);
const now = () => performance.now();
const log = (...a) => console.error(...a);

if (typeof globalThis.gc !== 'function') {
  // Re-run with --expose-gc so memory deltas are taken after a full collection.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, process.argv[1], ...args], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions: questionFiles } = locomo(data);
const questions = bench.corpus_questions(turns, questionFiles);

function pct(samples, p) {
  if (!samples.length) return NaN;
  const v = [...samples].sort((a, b) => a - b);
  return v[Math.min(v.length, Math.max(1, Math.ceil((p / 100) * v.length))) - 1];
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function memory() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await sleep(20);
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
}
function recallAt10(results, truth) {
  let found = 0;
  let total = 0;
  for (let i = 0; i < truth.length; i++) {
    const t = truth[i];
    total += t.length;
    const got = new Set(results[i].slice(0, K));
    for (const x of t) if (got.has(x)) found++;
  }
  return found / Math.max(1, total);
}
// Times `fn(i)` for each i of `ids`, `passes` times after `warm` untimed calls; returns times.
function timeQueries(ids, fn, { passes = 1, warm = 0 } = {}) {
  for (let j = 0; j < warm; j++) fn(ids[j % ids.length]);
  const times = [];
  for (let p = 0; p < passes; p++) {
    for (const i of ids) {
      const t = now();
      fn(i);
      times.push(now() - t);
    }
  }
  return times;
}

const f = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const ratio = (a, b) => {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= 0) return '-';
  const r = a / b;
  return r >= 0.1 ? r.toFixed(2) : r.toPrecision(2);
};
const mb = (b) => (Number.isFinite(b) ? (b / 1048576).toFixed(1) : '-');

const vectorRows = [];
const textRows = [];
const reports = [];
const notes = [];

for (const n of sizes) {
  log(`== ${n} records`);
  const big = n > 20000;
  // ---------- memdag (wasm) ----------
  const memdag = new bench.Bench(n, turns, questionFiles, VQ, rebuild, true, mainPrecision);
  const mdBuildMs = memdag.ingest_ms();
  log(`memdag: built in ${(mdBuildMs / 1000).toFixed(1)} s`);
  const textOnly = new bench.Bench(n, turns, questionFiles, 0, false, false, mainPrecision);
  const mdTextBuildMs = textOnly.ingest_ms();
  const mdTextBytes = textOnly.text_bytes_per_record();
  textOnly.free();
  const vq = [...Array(VQ).keys()];
  const truth = vq.map((i) => Array.from(memdag.exact(i, K)));
  const allQ = [...Array(questions.length).keys()];
  const subQ = big ? allQ.slice(0, peerTextQueries) : allQ;
  const textPasses = big ? 1 : 2;
  const textWarm = big ? Math.min(5, subQ.length) : subQ.length;

  const mdText = timeQueries(allQ, (i) => memdag.bm25(i), { passes: 2, warm: allQ.length });
  const mdTextSub = timeQueries(subQ, (i) => memdag.bm25(i), { passes: textPasses, warm: textWarm });
  const mdVec = {};
  for (const ef of [0, 128]) {
    const res = [];
    const times = timeQueries(vq, (i) => { res[i] = Array.from(memdag.vector(i, ef)); });
    mdVec[ef] = { times, recall: recallAt10(res, truth) };
  }
  // The ANN alone: the raw index at each width, the rows set beside the peers'.
  const mdRaw = {};
  for (const ef of EFS) {
    const res = [];
    const times = timeQueries(vq, (i) => { res[i] = Array.from(memdag.raw_vector(i, ef)); });
    mdRaw[ef] = { times, recall: recallAt10(res, truth) };
  }
  const mdHybrid = timeQueries(vq, (i) => memdag.hybrid(i));
  const mdPrecision = memdag.precision();
  const mdVecBytes = memdag.vector_bytes_per_record();
  const mdIndexBytes = memdag.index_bytes_per_record();
  log('memdag: running the workload report');
  const report = JSON.parse(memdag.report_json());
  reports.push(report);
  memdag.free();

  for (const ef of EFS) {
    vectorRows.push({ n, engine: 'memdag-wasm', ef: String(ef), build: mdBuildMs, times: mdRaw[ef].times, recall: mdRaw[ef].recall,
      bytes: mdVecBytes });
  }
  // The other precisions: a store each, its raw index at each width.
  for (const p of precisions.slice(1)) {
    const other = new bench.Bench(n, turns, questionFiles, VQ, false, true, p);
    const build = other.ingest_ms();
    log(`memdag ${p}: built in ${(build / 1000).toFixed(1)} s`);
    for (const ef of EFS) {
      const res = [];
      const times = timeQueries(vq, (i) => { res[i] = Array.from(other.raw_vector(i, ef)); });
      vectorRows.push({ n, engine: `memdag-wasm (${p})`, ef: String(ef), build, times, recall: recallAt10(res, truth),
        bytes: other.vector_bytes_per_record() });
    }
    other.free();
  }
  if (n === sizes[0]) {
    notes.push(`memdag-wasm: vectors kept at precision ${mdPrecision}; rows "memdag-wasm (p)" are stores kept at precision p, their ratio column against hnswlib-node at the same ef`);
    notes.push('memdag-wasm vector rows: the raw index (the graph walk only, as the peers run), each peer row set beside memdag at the same ef; build = the whole ingest (text + vectors + records); B/rec = vectors + graph');
    notes.push('memdag-wasm search(vector), default: what users get, the graph walk then thread context, scope and dedup re-ranking the ten; its recall is counted against the exact nearest, which that re-ranking is not trying to return');
  }
  vectorRows.push({ n, engine: 'memdag-wasm search(vector), default', ef: '64 (default)', build: mdBuildMs, times: mdVec[0].times, recall: mdVec[0].recall,
    bytes: mdVecBytes });
  vectorRows.push({ n, engine: 'memdag-wasm search(vector), default', ef: '128', build: mdBuildMs, times: mdVec[128].times, recall: mdVec[128].recall, bytes: mdVecBytes });
  vectorRows.push({ n, engine: 'memdag-wasm hybrid', ef: '64', build: mdBuildMs, times: mdHybrid, recall: NaN, bytes: mdIndexBytes });
  textRows.push({ n, engine: 'memdag-wasm', build: mdTextBuildMs, times: mdText, sub: mdTextSub, queries: allQ.length,
    bytes: mdTextBytes, note: 'build = text-only store ingest; B/rec = inverted index' });

  // ---------- shared data ----------
  const flat = bench.corpus_vectors(n, VQ);
  const vec = (i) => flat.subarray(i * DIM, (i + 1) * DIM);
  const qvec = (i) => vec(n + i);
  const qArrays = vq.map((i) => Array.from(qvec(i)));
  const texts = bench.corpus_texts(n, turns, questionFiles);

  // ---------- hnswlib-node ----------
  {
    const { HierarchicalNSW } = require('hnswlib-node');
    let m0 = await memory();
    let idx = new HierarchicalNSW('ip', DIM);
    idx.initIndex(n, 16, 100, 100);
    let build = 0;
    for (let i = 0; i < n; i++) {
      const a = Array.from(vec(i));
      const t = now();
      idx.addPoint(a, i);
      build += now() - t;
    }
    const m1 = await memory();
    log(`hnswlib-node: built in ${(build / 1000).toFixed(1)} s`);
    for (const ef of EFS) {
      idx.setEf(ef);
      const res = [];
      const times = timeQueries(vq, (i) => { res[i] = idx.searchKnn(qArrays[i], K).neighbors; });
      vectorRows.push({ n, engine: 'hnswlib-node', ef: String(ef), build, times, recall: recallAt10(res, truth),
        bytes: (m1.rss - m0.rss) / n, heap: (m1.heap - m0.heap) / n });
    }
    idx = null;
    m0 = null;
  }

  // ---------- hnswlib-wasm (10k only) ----------
  if (!big) {
    globalThis.window ??= globalThis; // a browser build: it looks for `window`
    const quiet = [console.log, console.error, console.warn];
    console.log = console.error = console.warn = () => {};
    let lib;
    try {
      const { loadHnswlib } = await import('hnswlib-wasm/dist/hnswlib.js');
      lib = await loadHnswlib();
      await sleep(50); // its IDBFS mount fails asynchronously (no indexedDB in Node): harmless
    } catch (e) {
      lib = null;
      notes.push(`hnswlib-wasm did not load: ${e}`);
    } finally {
      [console.log, console.error, console.warn] = quiet;
    }
    if (lib) {
      const m0 = await memory();
      let idx = new lib.HierarchicalNSW('ip', DIM, '');
      idx.initIndex(n, 16, 100, 100);
      let build = 0;
      for (let i = 0; i < n; i++) {
        const a = vec(i);
        const t = now();
        idx.addPoint(a, i, false);
        build += now() - t;
      }
      const m1 = await memory();
      log(`hnswlib-wasm: built in ${(build / 1000).toFixed(1)} s`);
      for (const ef of EFS) {
        idx.setEfSearch(ef);
        const res = [];
        const qs = vq.map((i) => qvec(i));
        const times = timeQueries(vq, (i) => { res[i] = idx.searchKnn(qs[i], K, undefined).neighbors; });
        vectorRows.push({ n, engine: 'hnswlib-wasm', ef: String(ef), build, times, recall: recallAt10(res, truth),
          bytes: (m1.rss - m0.rss) / n, heap: (m1.heap - m0.heap) / n });
      }
      idx = null;
    }
  } else {
    notes.push(`hnswlib-wasm: ${n} skipped (its build takes about 3 minutes there; PEERS.md)`);
  }

  // ---------- Orama vector (exact scan) ----------
  {
    const { create, insertMultiple, search } = await import('@orama/orama');
    const docs = [];
    for (let i = 0; i < n; i++) docs.push({ id: String(i), embedding: Array.from(vec(i)) });
    const m0 = await memory();
    let db = create({ schema: { embedding: `vector[${DIM}]` } });
    const t = now();
    await insertMultiple(db, docs, 5000);
    const build = now() - t;
    docs.length = 0;
    const m1 = await memory();
    log(`orama vector: built in ${(build / 1000).toFixed(1)} s`);
    const count = big ? Math.min(VQ, 50) : VQ;
    if (count < VQ) notes.push(`orama vector at ${n}: first ${count} of the ${VQ} vector queries (an exact scan takes ~0.1 s a query)`);
    const ids = vq.slice(0, count);
    const res = [];
    const times = timeQueries(ids, (i) => {
      const r = search(db, { mode: 'vector', vector: { value: qArrays[i], property: 'embedding' }, similarity: 0, limit: K });
      res[i] = r.hits.map((h) => Number(h.id));
    });
    vectorRows.push({ n, engine: 'orama (exact scan)', ef: '-', build, times, recall: recallAt10(ids.map((i) => res[i]), ids.map((i) => truth[i])),
      bytes: (m1.rss - m0.rss) / n, heap: (m1.heap - m0.heap) / n, queries: count });
    db = null;
  }

  // ---------- MiniSearch ----------
  {
    const MiniSearch = require('minisearch');
    const m0 = await memory();
    let ms = new MiniSearch({ fields: ['text'], idField: 'id' });
    const t = now();
    for (let i = 0; i < n; i++) ms.add({ id: i, text: texts[i] });
    const build = now() - t;
    const m1 = await memory();
    log(`minisearch: built in ${(build / 1000).toFixed(1)} s`);
    const times = timeQueries(subQ, (i) => ms.search(questions[i]).slice(0, K), { passes: textPasses, warm: textWarm });
    textRows.push({ n, engine: 'minisearch', build, times, queries: subQ.length, passes: textPasses,
      bytes: (m1.rss - m0.rss) / n, heap: (m1.heap - m0.heap) / n });
    ms = null;
  }

  // ---------- Orama full text ----------
  {
    const { create, insertMultiple, search } = await import('@orama/orama');
    const docs = texts.map((text, i) => ({ id: String(i), text }));
    const m0 = await memory();
    let db = create({ schema: { text: 'string' } });
    const t = now();
    await insertMultiple(db, docs, 5000);
    const build = now() - t;
    docs.length = 0;
    const m1 = await memory();
    log(`orama text: built in ${(build / 1000).toFixed(1)} s`);
    const times = timeQueries(subQ, (i) => search(db, { term: questions[i], limit: K }), { passes: textPasses, warm: textWarm });
    textRows.push({ n, engine: 'orama', build, times, queries: subQ.length, passes: textPasses,
      bytes: (m1.rss - m0.rss) / n, heap: (m1.heap - m0.heap) / n });
    db = null;
  }
  if (big) notes.push(`text peers at ${n}: the first ${subQ.length} questions, 1 timed pass after 5 warm-up queries; memdag's ratio uses the same subset`);
}

// ---------- tables ----------
function vectorTable() {
  let s = '| engine | N | ef | build s | p50 ms | p99 ms | recall@10 | B/rec (RSS Δ; V8 Δ) | memdag/peer p50 | memdag/peer build |\n|---|---|---|---|---|---|---|---|---|---|\n';
  for (const r of vectorRows) {
    // A peer is set beside memdag's raw index at the same width (or its first row, for an exact scan).
    const md = vectorRows.find((x) => x.n === r.n && x.engine === 'memdag-wasm' && x.ef === r.ef)
      || vectorRows.find((x) => x.n === r.n && x.engine === 'memdag-wasm');
    const peer = !r.engine.startsWith('memdag');
    const p50 = pct(r.times, 50);
    const hnsw = r.engine.startsWith('memdag-wasm (') && vectorRows.find((x) => x.n === r.n && x.engine === 'hnswlib-node' && x.ef === r.ef);
    if (hnsw) {
      const hp = pct(hnsw.times, 50);
      s += `| ${r.engine} | ${r.n} | ${r.ef} | ${f(r.build / 1000, 2)} | ${f(p50)} | ${f(pct(r.times, 99))} | ${f(r.recall, 4)} | ${f(r.bytes, 0)} (own count) | ${ratio(p50, hp)} (vs hnswlib-node) | ${ratio(r.build, hnsw.build)} |\n`;
      continue;
    }
    const bytes = peer ? `${f(r.bytes, 0)}; ${f(r.heap, 0)}` : `${f(r.bytes, 0)} (own count)`;
    s += `| ${r.engine} | ${r.n} | ${r.ef} | ${f(r.build / 1000, 2)} | ${f(p50)} | ${f(pct(r.times, 99))} | ${f(r.recall, 4)} | ${bytes} | ${peer ? ratio(pct(md.times, 50), p50) : '-'} | ${peer ? ratio(md.build, r.build) : '-'} |\n`;
  }
  return s;
}
function textTable() {
  let s = '| engine | N | queries x passes | build s | p50 ms | p99 ms | B/rec (RSS Δ; V8 Δ) | memdag/peer p50 (same queries) | memdag/peer build |\n|---|---|---|---|---|---|---|---|---|\n';
  for (const r of textRows) {
    const md = textRows.find((x) => x.n === r.n && x.engine === 'memdag-wasm');
    const peer = r.engine !== 'memdag-wasm';
    const p50 = pct(r.times, 50);
    const bytes = peer ? `${f(r.bytes, 0)}; ${f(r.heap, 0)}` : `${f(r.bytes, 0)} (own count)`;
    const qp = peer ? `${r.queries} x ${r.passes}` : `${r.queries} x 2`;
    s += `| ${r.engine} | ${r.n} | ${qp} | ${f(r.build / 1000, 2)} | ${f(p50)} | ${f(pct(r.times, 99))} | ${bytes} | ${peer ? ratio(pct(md.sub, 50), p50) : '-'} | ${peer ? ratio(md.build, r.build) : '-'} |\n`;
    if (!peer && md.sub.length !== md.times.length) s += `| memdag-wasm (peer subset) | ${r.n} | ${md.sub.length} x 1 | - | ${f(pct(md.sub, 50))} | ${f(pct(md.sub, 99))} | - | - | - |\n`;
  }
  return s;
}
function readNative() {
  if (!nativeFile) return null;
  const lines = readFileSync(nativeFile, 'utf8').split('\n').filter((l) => l.trim().startsWith('{')).map((l) => JSON.parse(l));
  return { reports: lines.filter((r) => r.records), recall: lines.find((r) => r.locomo) };
}
function nativeTables(native) {
  let s = `memdag-bench workload, native (same machine, just before this run)\n${bench.sizes_table(JSON.stringify(native.reports))}`;
  if (native.recall) s += `\nLoCoMo dev evidence recall, native\n${bench.recall_table(JSON.stringify(native.recall.locomo))}`;
  return s;
}
function wasmVsNative(native) {
  let s = 'wasm (this run) against native\n| N | metric | native | wasm | wasm/native |\n|---|---|---|---|---|\n';
  for (const w of reports) {
    const nat = native.reports.find((r) => r.records === w.records);
    if (!nat) continue;
    for (const k of ['bm25_p50_ms', 'bm25_p99_ms', 'vector_p50_ms', 'vector_p99_ms', 'hybrid_p50_ms', 'hybrid_p99_ms', 'add_p99_ms', 'load_ms']) {
      s += `| ${w.records} | ${k} | ${f(nat[k])} | ${f(w[k])} | ${ratio(w[k], nat[k])} |\n`;
    }
    s += `| ${w.records} | ingest time (1/ingest_per_s) | ${f(1000 / nat.ingest_per_s)} ms/rec | ${f(1000 / w.ingest_per_s)} ms/rec | ${ratio(nat.ingest_per_s, w.ingest_per_s)} |\n`;
  }
  return s;
}

if (json) {
  console.log(JSON.stringify({ reports, vector: vectorRows.map(({ times, ...r }) => ({ ...r, p50_ms: pct(times, 50), p99_ms: pct(times, 99) })),
    text: textRows.map(({ times, sub, ...r }) => ({ ...r, p50_ms: pct(times, 50), p99_ms: pct(times, 99), subset_p50_ms: sub ? pct(sub, 50) : undefined })), notes }));
} else {
  const native = readNative();
  if (native) console.log(nativeTables(native));
  console.log(`memdag-bench workload in wasm (timed inside wasm; same stores as below)\n${bench.sizes_table(JSON.stringify(reports))}`);
  console.log(`Memory a record, by part (memdag's own heap accounting)\n${bench.bytes_table(JSON.stringify(reports))}`);
  if (turns.length) console.log(`LoCoMo dev evidence recall, wasm (${data})\n${bench.recall_table(bench.locomo_json(turns, questionFiles))}`);
  console.log(`Vectors: ${VQ} queries of dim ${DIM}, k ${K}, one at a time, timed from Node (recall@10 against the exact ten of the f32 corpus)\n${vectorTable()}`);
  console.log(`Full text: ${questions.length} LoCoMo questions, top ${K}, timed from Node\n${textTable()}`);
  if (native) console.log(wasmVsNative(native));
  for (const n of notes) console.log(`note: ${n}`);
  console.log('note: memdag rows: build = the whole ingest of the workload store (records, text index, vectors, graph, change log), measured inside wasm; memory = memdag\'s own heap accounting. Peers: build = their insert calls only; memory = growth across the build after a full GC.');
}
