// Shared by run-wasm.mjs and peers.mjs: build and load the memdag-bench wasm module, read the
// LoCoMo dev files, parse the common options.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/// `--name value` from argv, or the default.
export function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
}

/// Builds crates/memdag-bench for wasm32-unknown-unknown with the JS package's release settings
/// (scripts/build-bench-wasm.sh: LTO, one codegen unit, opt-level 3, SIMD) unless `build` is
/// false, and loads the module. Until 2026-12-06 the module was built with the workspace's
/// release profile (16 codegen units, no LTO), which is not what ships: in one run at 10k
/// records it opened 1.17x and answered hybrid queries 1.5x slower than the package's settings.
export function loadBench({ build = true } = {}) {
  const target = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache/memdag-target');
  const out = join(target, 'memdag-bench-wasm');
  if (build) {
    execFileSync(join(root, 'scripts/build-bench-wasm.sh'), {
      cwd: root,
      env: { ...process.env, CARGO_TARGET_DIR: target },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return createRequire(import.meta.url)(join(out, 'memdag_bench.js'));
}

/// The LoCoMo dev conversations as jsonl texts: `{ turns: [..], questions: [..] }` (empty lists
/// when the data is missing: the benchmark then uses a synthetic corpus).
export function locomo(data) {
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
  return { turns, questions };
}

export const defaultData = join(root, '../shared/data/locomo-dev');

/** Writes a store's `entries` ([key, Uint8Array] pairs) as `base.json` (each key with its
 * offset and length in the other file) and `base.bin` (the values, one after another), the
 * form tests/bench/capped-open.mjs opens; returns `base`. */
export function writeEntryDump(base, entries) {
  mkdirSync(dirname(base), { recursive: true });
  const index = [];
  let offset = 0;
  for (const [key, value] of entries) {
    index.push([key, offset, value.length]);
    offset += value.length;
  }
  writeFileSync(`${base}.json`, JSON.stringify(index));
  writeFileSync(`${base}.bin`, Buffer.concat(entries.map(([, v]) => v)));
  return base;
}

/** The entries [`writeEntryDump`] wrote at `base`, as a map of key to its bytes. */
export function readEntryDump(base) {
  const values = readFileSync(`${base}.bin`);
  return new Map(JSON.parse(readFileSync(`${base}.json`, 'utf8'))
    .map(([key, offset, length]) => [key, values.subarray(offset, offset + length)]));
}
