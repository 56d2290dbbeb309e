// The Mode-2 search benchmark in wasm under Node: the same workload as `memdag-bench`.
//
//   node tests/bench/run-wasm.mjs [--sizes 10000,100000] [--json] [--data DIR] [--no-build]
//
// Builds crates/memdag-bench for wasm32-unknown-unknown (release, +simd128), runs
// wasm-bindgen --target nodejs (CLI 0.2.130, as pinned), loads it and prints the same table.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const sizes = opt('--sizes', '10000,100000').split(',').map(Number).filter((n) => n > 0);
const json = args.includes('--json');
const data = resolve(opt('--data', join(root, '../shared/data/locomo-dev')));
const vectorQueries = Number(opt('--vector-queries', '500'));
const rebuild = !args.includes('--no-rebuild');
const target = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache/memdag-target');
const out = join(target, 'memdag-bench-wasm');

if (!args.includes('--no-build')) {
  const env = { ...process.env, CARGO_TARGET_DIR: target, RUSTFLAGS: '-C target-feature=+simd128' };
  const run = (cmd, a) => execFileSync(cmd, a, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  run('rustup', ['target', 'add', 'wasm32-unknown-unknown']);
  run('cargo', ['build', '-p', 'memdag-bench', '--lib', '--release', '--target', 'wasm32-unknown-unknown']);
  mkdirSync(out, { recursive: true });
  run('wasm-bindgen', ['--target', 'nodejs', '--out-dir', out,
    join(target, 'wasm32-unknown-unknown/release/memdag_bench.wasm')]);
}

const bench = createRequire(import.meta.url)(join(out, 'memdag_bench.js'));
const turns = [];
const questions = [];
for (const c of ['conv-26', 'conv-30']) {
  const t = join(data, `${c}.turns.jsonl`);
  const q = join(data, `${c}.questions.jsonl`);
  if (existsSync(t) && existsSync(q)) {
    turns.push(readFileSync(t, 'utf8'));
    questions.push(readFileSync(q, 'utf8'));
  }
}
if (turns.length === 0) console.error(`no LoCoMo data at ${data}: using a synthetic text corpus`);

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
