// memdag for JS: loads the WebAssembly module once, when this module is first imported, then
// exports the `Memory` class, the storage adapters and the context tools (see api.js). Node
// reads the .wasm file from disk; browsers and bundlers fetch it with wasm-bindgen's default
// init (the .wasm next to the glue). Cloudflare Workers take workerd.js instead (the package's
// `workerd` export condition). dist/ is written by scripts/build-pkg.sh: wasm-bindgen
// --target web, then wasm-opt.
import init, { initSync } from './dist/memdag_wasm.js';

export * from './api.js';

const wasmUrl = new URL('./dist/memdag_wasm_bg.wasm', import.meta.url);

if (wasmUrl.protocol === 'file:' && globalThis.process?.versions?.node) {
  // A computed specifier keeps bundlers from resolving node:fs into browser builds.
  const fs = 'node:fs';
  const { readFileSync } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fs);
  initSync({ module: readFileSync(wasmUrl) });
} else {
  await init();
}
