// The package's exports over the wasm-bindgen glue, whichever way the WebAssembly module was
// loaded: index.js fetches or reads it (browsers, bundlers, Node), workerd.js takes it as a
// compiled module (Cloudflare Workers). Nothing here calls into wasm while it is evaluated, so
// an entry may initialize the module after importing this one.
import {
  Memory,
  StoredEntries,
  IndexedDbStorage,
  countTokens,
  checkContext,
  compactToolResult,
  tokensExact,
  embeddingText,
  recallMatchText,
  parseDuration,
  encodeSnapshot,
  decodeSnapshot,
  llmSchema,
} from './dist/memdag_wasm.js';
import { memdagError } from './errors.js';
import { PersistentMemory, GENERATION_KEY } from './persistent.js';

// A WebAssembly trap (out of wasm memory, a bug) unwinds without running Rust's drops, so the
// Memory's store stays borrowed and every later call would be BUSY. Each method is wrapped:
// after a trap the instance is closed, and every call on it throws `CLOSED` at once.
// PersistentMemory then reopens from storage and replays its journal (see persistent.js).
const trapped = new WeakSet();
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

/** Opens a memory on a storage adapter; see index.d.ts. */
Memory.open = (options) => PersistentMemory.open(options);

export { Memory, PersistentMemory, GENERATION_KEY, IndexedDbStorage, StoredEntries };
export { countTokens, checkContext, compactToolResult, tokensExact, embeddingText, recallMatchText, parseDuration, llmSchema };
export { promptApiComplete, workersAiComplete, openAiComplete } from './llm.js';
/** The binary snapshot file (`MDAGEXP1`) of stored entries, and back: the core's format. */
export { encodeSnapshot as encodeExport, decodeSnapshot as decodeExport };
export { MemoryStorage } from './storage/memory.js';
export { KeyValueStorage, workersKv } from './storage/kv.js';
export { DurableObjectStorage } from './storage/durable-object.js';
