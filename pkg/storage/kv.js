// KeyValueStorage: a storage adapter over any async key-value object with get, put, delete
// and list (Cloudflare Workers KV, Deno KV wrappers, a REST store, a Map wrapped in promises).
//
// The object's contract:
//   get(key)       -> Promise<Uint8Array | ArrayBuffer | null | undefined>
//   put(key, bytes) -> Promise<unknown>
//   delete(key)    -> Promise<unknown>
//   list(prefix)   -> Promise<Iterable<string | { name: string }>> or an AsyncIterable of them
// workersKv(namespace) adapts a Workers KV namespace (get(key, 'arrayBuffer'), paged list).
//
// saveBatch is not atomic here: most key-value services have no transaction. It writes every
// put in order before any delete, and rejects with the first failure. The core's change sets
// put the commit key `head` last among the puts, and readers trust only what `head` names, so
// a batch cut short leaves the store as it was before or after it.
//
// Workers KV is eventually consistent and has no compare-and-set: use it with one writer per
// store. The Worker example routes every write through a Durable Object, which is
// single-threaded and transactional, and lets Workers KV serve reads.
import { storageError } from '../errors.js';
import { checkBytes } from './memory.js';

/** A memdag storage adapter over an async key-value object; `prefix` namespaces its keys. */
export class KeyValueStorage {
  /**
   * @param {{ get: Function, put: Function, delete: Function, list: Function }} kv
   * @param {{ prefix?: string }} [options]
   */
  constructor(kv, { prefix = '' } = {}) {
    for (const m of ['get', 'put', 'delete', 'list']) {
      if (typeof kv?.[m] !== 'function') throw new TypeError(`the key-value object needs a ${m}() method`);
    }
    this.kv = kv;
    this.prefix = prefix;
  }

  /** False: a batch is a sequence of independent writes. The core's change sets are safe
   * anyway: segment parts first, then the commit `head`, then deletions. */
  get atomic() {
    return false;
  }

  /** True: `Memory.open` reads `head` and the keys it names instead of listing every key
   * (1 + parts reads; Workers KV allows 1,000 operations per invocation). */
  get boundedOpen() {
    return true;
  }

  async load(key) {
    const value = await this.#call('load', () => this.kv.get(this.prefix + key));
    if (value == null) return undefined;
    return value instanceof Uint8Array ? value : new Uint8Array(value);
  }

  async save(key, bytes) {
    checkBytes(key, bytes);
    await this.#call('save', () => this.kv.put(this.prefix + key, bytes));
  }

  async remove(key) {
    await this.#call('remove', () => this.kv.delete(this.prefix + key));
  }

  async loadRange(prefix) {
    const keys = await this.#keys(prefix);
    const values = await Promise.all(keys.map((key) => this.load(key)));
    return keys.map((key, i) => [key, values[i]]).filter(([, v]) => v !== undefined);
  }

  async removeRange(prefix) {
    for (const key of await this.#keys(prefix)) await this.remove(key);
  }

  async saveBatch(changes) {
    const list = [...changes];
    for (const [key, value] of list) if (value != null) checkBytes(key, value);
    for (const [key, value] of list) if (value != null) await this.save(key, value);
    for (const [key, value] of list) if (value == null) await this.remove(key);
  }

  close() {}

  /** The adapter-level keys under `prefix`, sorted. */
  async #keys(prefix) {
    const listed = await this.#call('list', () => this.kv.list(this.prefix + prefix));
    const keys = [];
    const take = (entry) => {
      const name = typeof entry === 'string' ? entry : entry?.name;
      if (typeof name === 'string' && name.startsWith(this.prefix + prefix)) keys.push(name.slice(this.prefix.length));
    };
    if (listed && typeof listed[Symbol.asyncIterator] === 'function') {
      for await (const entry of listed) take(entry);
    } else {
      for (const entry of listed ?? []) take(entry);
    }
    return keys.sort();
  }

  async #call(what, fn) {
    try {
      return await fn();
    } catch (e) {
      throw storageError(e, what);
    }
  }
}

/**
 * Shapes a Cloudflare Workers KV namespace as the object KeyValueStorage expects: bytes come
 * back as ArrayBuffers and list() follows the cursor through every page.
 */
export function workersKv(namespace) {
  return {
    get: (key) => namespace.get(key, 'arrayBuffer'),
    put: (key, bytes) => namespace.put(key, bytes),
    delete: (key) => namespace.delete(key),
    list: async function* list(prefix) {
      let cursor;
      do {
        const page = await namespace.list({ prefix, cursor });
        for (const k of page.keys) yield k.name;
        cursor = page.list_complete ? undefined : page.cursor;
      } while (cursor);
    },
  };
}
