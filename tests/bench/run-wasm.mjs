// The Mode-2 search benchmark in wasm under Node: the same workload as `memdag-bench`.
//
//   node tests/bench/run-wasm.mjs [--sizes 10000,100000] [--json] [--data DIR] [--no-build]
//   node tests/bench/run-wasm.mjs --seal [--rounds 3] [--sizes ...] [--json]
//   node tests/bench/run-wasm.mjs --memory [--sizes 100000] [--json]
//
// --memory reports long-term memory: the rule-based extractor's quality on
// tests/data/memory/{dev,heldout}.jsonl, the observation figures on LoCoMo's dev conversations
// (--data; else the fixture tests/data/locomo: crates/memdag-bench/src/observations.rs), and memory_add_p99_ms (one item add with its dedup and
// conflict checks into a store of N turns and N/10 items), path_p50_ms (N facts),
// work_update_p99_ms and purge_ms (N/10 expired items), at the largest size.
//
// --seal times only a flush of the whole store and a cold open, plain and encrypted at rest,
// alternated in one run (crates/memdag-bench/src/seal.rs), and prints their ratios.
//
// Builds crates/memdag-bench for wasm32-unknown-unknown (release, +simd128), runs
// wasm-bindgen --target nodejs (CLI 0.2.130, as pinned), loads it and prints the same table.
// tests/bench/peers.mjs runs this workload too, side by side with the peer engines.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultData, loadBench, locomo, option } from './lib.mjs';

const args = process.argv.slice(2);
const sizes = option(args, '--sizes', '10000,100000').split(',').map(Number).filter((n) => n > 0);
const json = args.includes('--json');
const data = resolve(option(args, '--data', defaultData));
const vectorQueries = Number(option(args, '--vector-queries', '500'));
const rebuild = !args.includes('--no-rebuild');

/** LoCoMo's dev conversations with their observations in `dir`, else the repository's fixture
 * (tests/data/locomo): what memdag-bench --memory scores too. */
function observationSets(dir) {
  const read = (d, names) => (names.every((c) => existsSync(join(d, `${c}.observations.jsonl`)))
    ? names.map((c) => ({ turns: readFileSync(join(d, `${c}.turns.jsonl`), 'utf8'), observations: readFileSync(join(d, `${c}.observations.jsonl`), 'utf8') }))
    : null);
  return read(dir, ['conv-26', 'conv-30']) ?? read(new URL('../data/locomo/', import.meta.url).pathname, ['conv-30']);
}

const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions } = locomo(data);

if (args.includes('--memory')) {
  const n = Math.max(...sizes);
  const root = new URL('../data/memory/', import.meta.url);
  const dev = readFileSync(new URL('dev.jsonl', root), 'utf8');
  const heldout = readFileSync(new URL('heldout.jsonl', root), 'utf8');
  const r = JSON.parse(bench.memory_json(n, turns, questions, dev, heldout));
  if (r.error) throw new Error(r.error);
  const obs = observationSets(data);
  const observations = JSON.parse(bench.observations_json(obs.map((o) => o.turns), obs.map((o) => o.observations)));
  if (observations.error) throw new Error(observations.error);
  if (json) console.log(JSON.stringify({ ...r, observations, runtime: 'wasm' }));
  else {
    console.log(bench.observations_line(JSON.stringify(observations)));
    for (const set of ['dev', 'heldout']) {
      const a = r[set].all;
      console.log(`extraction ${set}: precision ${a.precision.toFixed(3)} recall ${a.recall.toFixed(3)} duplicates ${a.duplicates} superseded-active ${a.superseded_active}`);
    }
    console.log(bench.memory_table(JSON.stringify([r.speed])));
  }
  process.exit(0);
}

if (args.includes('--seal')) {
  const rounds = Number(option(args, '--rounds', '3'));
  const out = [];
  for (const n of sizes) {
    const r = bench.seal_json(n, turns, questions, rounds);
    if (json) console.log(r);
    else console.error(`done: ${n} records`);
    out.push(JSON.parse(r));
  }
  if (!json) console.log(bench.seal_table(JSON.stringify(out)));
  process.exit(0);
}

const reports = [];
for (const n of sizes) {
  const r = bench.run_size_json(n, turns, questions, vectorQueries, rebuild);
  if (json) console.log(r);
  else console.error(`done: ${n} records`);
  reports.push(JSON.parse(r));
}
const recall = turns.length ? bench.locomo_json(turns, questions) : '[]';
if (json) {
  if (turns.length) console.log(JSON.stringify({ locomo: JSON.parse(recall), runtime: 'wasm' }));
} else {
  console.log(bench.sizes_table(JSON.stringify(reports)));
  if (turns.length) console.log(`LoCoMo dev evidence recall (${data})\n${bench.recall_table(recall)}`);
}
