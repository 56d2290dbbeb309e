// Opens a store's entries, as tests/bench/worker-128mb.mjs --dump DIR wrote them, in Node with
// the package's wasm memory capped as that benchmark caps the Worker's (capMemory): the same
// open (`PersistentMemory.open` over `KeyValueStorage`, each value copied into wasm as it
// arrives), in seconds rather than minutes, and without miniflare. A measurement aid, not a
// test.
//
//   node tests/bench/capped-open.mjs DIR/100000-int8 [--limit-mib 128[,126...]] [--pkg DIR]
//
// For each cap, in a fresh process (a trap kills the instance), it prints one JSON line: opened
// or the error's code and message, the open's time, and the wasm memory's size after it. With
// --pkg, the package copy that scripts/pkg-with-names.sh writes, a trap prints its wasm stack
// with function names: that is how an allocation the memory refuses outside `crate::room` is
// found (an `INTERNAL unreachable` in the Worker).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { option, readEntryDump } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const base = args[0];
if (!base || base.startsWith('--')) {
  console.error('usage: node tests/bench/capped-open.mjs DIR/<records>-<precision> [--limit-mib 128[,126...]] [--pkg DIR]');
  process.exit(2);
}
const pkg = resolve(option(args, '--pkg', join(here, '../../pkg')));

if (process.env.MEMDAG_CAPPED_CHILD) {
  await openCapped(Number(process.env.MEMDAG_CAPPED_CHILD));
} else {
  for (const mib of option(args, '--limit-mib', '128').split(',').map(Number)) {
    try {
      process.stdout.write(execFileSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
        env: { ...process.env, MEMDAG_CAPPED_CHILD: String(mib) },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1 << 24,
      }));
    } catch (e) {
      process.stdout.write(e.stdout ?? '');
      console.log(JSON.stringify({ limitMib: mib, ok: false, exit: e.status }));
    }
  }
}

/** Opens the entries in an instance whose memory is capped at `mib` (0: uncapped). */
async function openCapped(mib) {
  const { initSync } = await import(pathToFileURL(join(pkg, 'dist/memdag_wasm.js')).href);
  const { capMemory } = await import('../worker/bundle.mjs');
  let wasm = readFileSync(join(pkg, 'dist/memdag_wasm_bg.wasm'));
  if (mib > 0) wasm = capMemory(wasm, mib * 16);
  const instance = initSync({ module: wasm });
  const { PersistentMemory, KeyValueStorage } = await import(pathToFileURL(join(pkg, 'api.js')).href);
  const stored = readEntryDump(base);
  // A key-value namespace as `workersKv` makes of a Worker's: each value a fresh ArrayBuffer.
  const storage = new KeyValueStorage({
    get: async (key) => (stored.has(key) ? Uint8Array.from(stored.get(key)).buffer : null),
    put: async () => {},
    delete: async () => {},
    list: async function* list(prefix = '') {
      for (const key of stored.keys()) if (key.startsWith(prefix)) yield key;
    },
  });
  const row = { limitMib: mib, keys: stored.size };
  const started = performance.now();
  try {
    const memory = await PersistentMemory.open({ name: 'capped', storage, sync: false });
    Object.assign(row, { ok: true, len: memory.len });
  } catch (e) {
    Object.assign(row, { ok: false, code: e?.code, message: String(e?.message ?? e) });
    if (e?.code === undefined && e?.stack) console.error(e.stack);
  }
  row.openMs = Math.round(performance.now() - started);
  row.wasmMiB = instance.memory.buffer.byteLength / 1048576;
  console.log(JSON.stringify(row));
}
