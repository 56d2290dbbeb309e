// Opens one saved store in wasm, again and again, for profiling an open (not a test):
//
//   cargo run -p memdag-bench --release --example load_profile -- 100000 /tmp/store-100k.bin
//   node [--cpu-prof] tests/bench/open-image.mjs /tmp/store-100k.bin [RUNS] [--no-build]
//
// Prints each open's milliseconds: the first pays for fresh wasm memory and cold code, as
// run-wasm.mjs's load_ms; the others reuse both. The file is a binary snapshot (MDAGEXP1:
// load_profile's, or `memdag export --format snapshot`'s), opened by the benchmark module's
// `time_opens` (built as run-wasm.mjs builds it). Two builds can be compared by pointing CARGO_TARGET_DIR at each.
import { readFileSync } from 'node:fs';
import { loadBench } from './lib.mjs';

const args = process.argv.slice(2);
const [image, runs = '3'] = args.filter((a) => !a.startsWith('--'));
if (!image) {
  console.error('usage: node tests/bench/open-image.mjs IMAGE [RUNS] [--no-build]');
  process.exit(2);
}
const bench = loadBench({ build: !args.includes('--no-build') });
const times = bench.time_opens(readFileSync(image), Number(runs));
console.log(Array.from(times, (ms) => ms.toFixed(1)).join(' '));
