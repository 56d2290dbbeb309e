// memdag for JS: loads the WebAssembly module once, when this module is first imported, then
// exports the `Memory` class, the storage adapters and the context tools. Node reads the .wasm
// file from disk; browsers fetch it with wasm-bindgen's default init (the .wasm next to the
// glue). dist/ is written by scripts/build-pkg.sh: wasm-bindgen --target web, then wasm-opt.
import init, {
  initSync,
  Memory,
  IndexedDbStorage,
  countTokens,
  checkContext,
  compactToolResult,
  tokensExact,
  embeddingText,
  recallMatchText,
  parseDuration,
} from './dist/memdag_wasm.js';

const wasmUrl = new URL('./dist/memdag_wasm_bg.wasm', import.meta.url);

if (wasmUrl.protocol === 'file:' && globalThis.process?.versions?.node) {
  // A computed specifier keeps bundlers from resolving node:fs into browser builds.
  const fs = 'node:fs';
  const { readFileSync } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fs);
  initSync({ module: readFileSync(wasmUrl) });
} else {
  await init();
}

// A WebAssembly trap (out of wasm memory, a bug) unwinds without running Rust's drops, so the
// Memory's store stays borrowed and every later call would be BUSY. Each method is wrapped:
// after a trap the instance is closed, and every call on it throws `CLOSED` at once.
// PersistentMemory then reopens from storage and replays its journal (see persistent.js).
const trapped = new WeakSet();
const { memdagError } = await import('./errors.js');
const guarded = (fn) => function (...args) {
  if (trapped.has(this)) {
    throw memdagError('CLOSED', 'closed: this memory hit a WebAssembly trap earlier; reopen it from storage', { trapped: true });
  }
  try {
    return fn.apply(this, args);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    trapped.add(this);
    throw memdagError('CLOSED', `closed: a WebAssembly trap (${e.message}); reopen the memory from storage`, { trapped: true, cause: e });
  }
};
for (const name of Object.getOwnPropertyNames(Memory.prototype)) {
  if (name === 'constructor' || name === 'free') continue;
  const d = Object.getOwnPropertyDescriptor(Memory.prototype, name);
  if (typeof d.value === 'function') d.value = guarded(d.value);
  if (d.get) d.get = guarded(d.get);
  if (d.set) d.set = guarded(d.set);
  Object.defineProperty(Memory.prototype, name, d);
}

const { PersistentMemory, GENERATION_KEY } = await import('./persistent.js');

/** Opens a memory on a storage adapter; see index.d.ts. */
Memory.open = (options) => PersistentMemory.open(options);

export { Memory, PersistentMemory, GENERATION_KEY, IndexedDbStorage };
export { countTokens, checkContext, compactToolResult, tokensExact, embeddingText, recallMatchText, parseDuration };
export { MemoryStorage } from './storage/memory.js';
export { KeyValueStorage, workersKv } from './storage/kv.js';
export { encodeExport, decodeExport } from './export.js';
