// memdag in a Worker: the JS package's wasm, initialized synchronously from a CompiledWasm
// module (Workers cannot fetch the .wasm next to the glue, so the package's index.js, which
// does, is not used here), then its PersistentMemory and Workers KV adapter.
import { initSync } from '../../../pkg/dist/memdag_wasm.js';
import wasm from '../../../pkg/dist/memdag_wasm_bg.wasm';

initSync({ module: wasm });

export { PersistentMemory } from '../../../pkg/persistent.js';
export { KeyValueStorage, workersKv } from '../../../pkg/storage/kv.js';
