// BM25 alone in wasm on a text-only workload store (quick; for profiling the text path):
//   node tests/bench/bm25-wasm.mjs [--sizes 10000,100000] [--no-build]
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultData, loadBench, locomo, option } from './lib.mjs';

const args = process.argv.slice(2);
const sizes = option(args, '--sizes', '10000,100000').split(',').map(Number).filter((n) => n > 0);
const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions } = locomo(resolve(option(args, '--data', defaultData)));
const count = bench.corpus_questions(turns, questions).length;
for (const n of sizes) {
  const b = new bench.Bench(n, turns, questions, 0, false, false, '');
  const times = [];
  for (let pass = 0; pass < 6; pass++) {
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      b.bm25(i);
      if (pass > 0) times.push(performance.now() - t);
    }
  }
  times.sort((x, y) => x - y);
  const p = (q) => times[Math.ceil(q * times.length) - 1].toFixed(3);
  console.log(`bm25-only wasm ${n} records: build ${b.ingest_ms().toFixed(0)} ms, p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (${times.length} queries)`);
  b.free();
}
