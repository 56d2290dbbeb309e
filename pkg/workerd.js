// memdag on Cloudflare Workers (workerd), the package's `workerd` export condition: Workers
// cannot fetch the .wasm next to the glue, so the module is imported as a compiled
// WebAssembly module (wrangler's default rule for `.wasm` imports, `CompiledWasm` in
// miniflare) and instantiated synchronously. Exports the same API as index.js (see api.js).
import { initSync } from './dist/memdag_wasm.js';
import wasm from './dist/memdag_wasm_bg.wasm';

export * from './api.js';

initSync({ module: wasm });
