// Opening a stored memory for PersistentMemory: the encryption key as bytes, the stored entries
// (read in a bounded number of reads where the adapter says listing is costly, and copied into
// wasm memory as they arrive), the core loaded from them, and the flush counter kept beside the
// core's keys.
import { Memory, StoredEntries, headKey } from './dist/memdag_wasm.js';
import { memdagError } from './errors.js';

/** The storage key of the flush counter. The core ignores keys outside its own prefixes. */
export const GENERATION_KEY = 'sync/generation';

export const decodeGeneration = (bytes) => (bytes ? Number(new TextDecoder().decode(bytes)) || 0 : 0);
export const encodeGeneration = (n) => new TextEncoder().encode(String(n));

/** Codes of the core about stored data (from `keysToRead` while reading): not storage errors. */
export const DATA_CODES = new Set(['LOCKED', 'CORRUPT_DATA', 'UNSUPPORTED_VERSION']);

/** Whether a failure of `readStore` came from the core, not the adapter: a code about stored
 * data, a value that is not bytes (`INVALID_INPUT`, as `Memory.load` throws it), or a trap
 * while copying values into wasm memory (out of memory). The rest are storage errors. */
export const fromCore = (e) => DATA_CODES.has(e?.code) || e?.code === 'INVALID_INPUT' || e instanceof WebAssembly.RuntimeError;

/** A core memory from stored entries (a `StoredEntries` or `[key, value]` pairs; opened with
 * `key` when the store is encrypted: by `host`, see seal.js, for the v2 values it can open, by
 * the core for the rest), its segment parts sized for the adapter, with the limits the memory
 * was opened with. `opened` names the keys `host` already opened (as `readStore` returns them);
 * without it, `host` opens the pairs first. With a `host`, the memory's change sets are plain,
 * for the host to seal. */
export async function loadCore(entries, storage, key, limits, salvaged, host, opened = null) {
  // Pairs not yet opened (an import's); `readStore` opens what it reads as it arrives.
  if (host && opened == null) ({ entries, opened } = await host.openEntries(entries));
  const stored = entries instanceof StoredEntries;
  let core;
  try {
    if (salvaged) {
      const { memory, damage } = stored ? Memory.salvageStored(entries, key, opened) : Memory.salvage(entries, key, opened);
      salvaged.damage = damage;
      core = memory;
    } else {
      core = stored ? Memory.loadStored(entries, key, opened) : Memory.load(entries, key, opened);
    }
  } finally {
    // Emptied by the open, whether it succeeded or threw.
    if (stored) release(entries);
  }
  if (storage.maxValueBytes) core.setPartBytes(storage.maxValueBytes);
  if (limits) core.setLimits(limits);
  return core;
}

/** Frees a `StoredEntries`. After a trap (out of wasm memory) in a call that borrowed it, it
 * stays borrowed and cannot be freed; the trap itself is what the caller throws. */
function release(entries) {
  try {
    entries.free();
  } catch {}
}

/** Values read at once while opening: the rest wait. Each is copied into wasm memory as it
 * arrives, so an open holds at most this many values on the JS side (parts are at most 1 MiB,
 * or the adapter's `maxValueBytes`). */
export const READS_IN_FLIGHT = 8;

/** Where the values an open reads go: into wasm memory as they arrive (`StoredEntries`). A
 * `host` that opens sealed values itself (seal.js) opens each first, as it arrives, so JS holds
 * only the values still being opened, not the whole store sealed and opened. `put` returns
 * what to wait for before reading more, if anything; `settle()` waits for the openings under
 * way and resolves to the keys the host opened (`null` without a host), or throws the first
 * failure to put a value. */
function gather(host) {
  const entries = new StoredEntries();
  const free = () => release(entries);
  if (!host) return { entries, put: (k, v) => entries.put(k, v), settle: async () => null, free };
  const opened = [];
  const pending = new Set();
  let failure = null;
  const put = (k, v) => {
    if (v == null) return undefined;
    const opening = (async () => {
      try {
        const plain = await host.open(k, v);
        if (failure) return;
        entries.put(k, plain ?? v);
        if (plain !== null) opened.push(k);
      } catch (e) {
        failure ??= e;
      } finally {
        pending.delete(opening);
      }
    })();
    pending.add(opening);
    return opening;
  };
  const settle = async () => {
    await Promise.all([...pending]);
    if (failure) throw failure;
    return opened;
  };
  return { entries, put, settle, free };
}

/** Runs `fill`, which puts values into `into` (see `gather`), then waits for the openings under
 * way; resolves to the keys the host opened. On a failure, the entries are freed once nothing
 * is still being put into them, and the failure is thrown. */
async function filled(into, fill) {
  try {
    await fill();
    return await into.settle();
  } catch (e) {
    await into.settle().catch(() => {});
    into.free();
    throw e;
  }
}

/** Loads `keys` from `storage`, at most READS_IN_FLIGHT at a time, handing each value to
 * `put` as it arrives. The first failure stops the reads still to start and, once those
 * under way have settled, is thrown. */
async function readEach(storage, keys, put) {
  let next = 0;
  let failed = false;
  const reader = async () => {
    while (!failed && next < keys.length) {
      const k = keys[next++];
      try {
        const value = await storage.load(k);
        // A host opening the value: wait for it, so no more than READS_IN_FLIGHT are held.
        if (!failed) await put(k, value);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const done = await Promise.allSettled(Array.from({ length: Math.min(READS_IN_FLIGHT, keys.length) }, reader));
  const failure = done.find((d) => d.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Every stored entry of `storage`, for `loadCore`, and the flush counter beside them:
 * `{ entries, generation, opened }` (`opened`: the keys `host` opened, for `loadCore`; `null`
 * without a host). For `boundedOpen` adapters it reads `head`, the keys it names and
 * the core's keys ahead of it; it lists instead when there is no readable `head` (a v1 store,
 * or one the core recovers from its segments) or a key ahead exists (a segment newer than
 * `head`: the core must see them all to keep the newest commit). Values go into wasm memory
 * as they arrive (see `gather`), so the JS side does not keep them all. */
export async function readStore(storage, key, host) {
  if (storage.boundedOpen) {
    // The core's key of the commit, read first (asked when the wasm module is running: a
    // browser instantiates it after this module loads).
    const HEAD_KEY = headKey();
    const head = await storage.load(HEAD_KEY);
    let plan = null;
    if (head) {
      // A `head` the host opens (seal v2) is plain for the core; else the core opens it.
      const plain = host ? await host.open(HEAD_KEY, head) : null;
      const [bytes, k] = plain ? [plain, null] : [head, key];
      try {
        plan = { named: Memory.keysToRead(bytes, k), ahead: Memory.keysAhead(bytes, k) };
      } catch (e) {
        if (e?.code !== 'CORRUPT_DATA') throw e;
      }
    }
    if (plan) {
      // The flush counter and the keys ahead first: a key ahead means listing instead.
      const [generation, ...ahead] = await Promise.all([GENERATION_KEY, ...plan.ahead].map((k) => storage.load(k)));
      if (ahead.every((v) => v == null)) {
        const into = gather(host);
        const opened = await filled(into, async () => {
          into.put(HEAD_KEY, head);
          await readEach(storage, plan.named, into.put);
        });
        return { entries: into.entries, generation: decodeGeneration(generation), opened };
      }
    }
  }
  let generation = 0;
  const into = gather(host);
  const take = (entries) => {
    for (const [k, v] of entries) {
      if (k === GENERATION_KEY) generation = decodeGeneration(v);
      else into.put(k, v);
    }
  };
  // An adapter that lists a page at a time (IndexedDB, Durable Object storage) has each page
  // copied before it reads the next; a whole listing is garbage once this returns, before the
  // core decodes anything.
  const opened = await filled(into, async () => {
    if (typeof storage.loadPages === 'function') await storage.loadPages('', take);
    else take(await storage.loadRange(''));
  });
  return { entries: into.entries, generation, opened };
}

/** The raw bytes of an encryption key: a Uint8Array as it is, or an extractable CryptoKey (the
 * core derives its subkeys from the raw key with keyed BLAKE2b, which WebCrypto lacks, and
 * opens what the core sealed). */
export async function rawKey(key) {
  if (key == null || key instanceof Uint8Array) return key ?? null;
  if (typeof CryptoKey === 'function' && key instanceof CryptoKey) {
    if (!key.extractable) {
      throw memdagError('INVALID_INPUT', 'invalid input: key: the CryptoKey must be extractable (memdag derives its subkeys inside wasm)');
    }
    return new Uint8Array(await crypto.subtle.exportKey('raw', key));
  }
  throw memdagError('INVALID_INPUT', 'invalid input: key must be a 32-byte Uint8Array or a CryptoKey');
}
