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

const { PersistentMemory, GENERATION_KEY } = await import('./persistent.js');

/** Opens a memory on a storage adapter; see index.d.ts. */
Memory.open = (options) => PersistentMemory.open(options);

export { Memory, PersistentMemory, GENERATION_KEY, IndexedDbStorage };
export { countTokens, checkContext, compactToolResult, tokensExact };
export { MemoryStorage } from './storage/memory.js';
export { KeyValueStorage, workersKv } from './storage/kv.js';
export { encodeExport, decodeExport } from './export.js';
