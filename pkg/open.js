// Opening a stored memory for PersistentMemory: the encryption key as bytes, the stored entries
// (read in a bounded number of reads where the adapter says listing is costly), the core loaded
// from them, and the flush counter kept beside the core's keys.
import { Memory, headKey } from './dist/memdag_wasm.js';
import { memdagError } from './errors.js';

/** The storage key of the flush counter. The core ignores keys outside its own prefixes. */
export const GENERATION_KEY = 'sync/generation';

export const decodeGeneration = (bytes) => (bytes ? Number(new TextDecoder().decode(bytes)) || 0 : 0);
export const encodeGeneration = (n) => new TextEncoder().encode(String(n));

/** Codes of the core about stored data (from `keysToRead` while reading): not storage errors. */
export const DATA_CODES = new Set(['LOCKED', 'CORRUPT_DATA', 'UNSUPPORTED_VERSION']);

/** A core memory from stored entries (opened with `key` when the store is encrypted: by
 * `host`, see seal.js, for the v2 values it can open, by the core for the rest), its segment
 * parts sized for the adapter, with the limits the memory was opened with. With a `host`, the
 * memory's change sets are plain, for the host to seal. */
export async function loadCore(entries, storage, key, limits, salvaged, host) {
  let opened;
  if (host) ({ entries, opened } = await host.openEntries(entries));
  let core;
  if (salvaged) {
    const { memory, damage } = Memory.salvage(entries, key, opened);
    salvaged.damage = damage;
    core = memory;
  } else {
    core = Memory.load(entries, key, opened);
  }
  if (storage.maxValueBytes) core.setPartBytes(storage.maxValueBytes);
  if (limits) core.setLimits(limits);
  return core;
}

/** Every stored entry of `storage`: listed, or, for `boundedOpen` adapters, `head`, the keys
 * it names and the core's keys ahead of it. It lists instead when there is no readable `head`
 * (a v1 store, or one the core recovers from its segments) or a key ahead exists (a segment
 * newer than `head`: the core must see them all to keep the newest commit). */
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
      const keys = [...plan.named, GENERATION_KEY, ...plan.ahead];
      const values = await Promise.all(keys.map((k) => storage.load(k)));
      if (values.slice(plan.named.length + 1).every((v) => v == null)) {
        return [[HEAD_KEY, head], ...keys.map((k, i) => [k, values[i]])].filter(([, v]) => v != null);
      }
    }
  }
  return storage.loadRange('');
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
