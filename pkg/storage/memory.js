// MemoryStorage: a storage adapter on a Map, for tests, Node scripts and pages that need no
// persistence. Values are copied in and out, so callers cannot alter what is stored.
import { memdagError } from '../errors.js';

/** The keys of a prefix, in key order. */
function sortedKeys(map, prefix) {
  const keys = [];
  for (const key of map.keys()) if (key.startsWith(prefix)) keys.push(key);
  return keys.sort();
}

/** A memdag storage adapter kept in a `Map<string, Uint8Array>` (its `map`). */
export class MemoryStorage {
  /** @param {Map<string, Uint8Array>} [map] an existing map to use (and share). */
  constructor(map = new Map()) {
    this.map = map;
  }

  /** Always true: a batch is applied in one synchronous step. */
  get atomic() {
    return true;
  }

  async load(key) {
    const value = this.map.get(key);
    return value === undefined ? undefined : value.slice();
  }

  async save(key, bytes) {
    this.map.set(key, checkBytes(key, bytes).slice());
  }

  async remove(key) {
    this.map.delete(key);
  }

  async loadRange(prefix) {
    return sortedKeys(this.map, prefix).map((key) => [key, this.map.get(key).slice()]);
  }

  async removeRange(prefix) {
    for (const key of sortedKeys(this.map, prefix)) this.map.delete(key);
  }

  async saveBatch(changes) {
    const ops = [...changes].map(([key, value]) => [key, value == null ? null : checkBytes(key, value).slice()]);
    for (const [key, value] of ops) {
      if (value === null) this.map.delete(key);
      else this.map.set(key, value);
    }
  }

  close() {}
}

/** Checks a value is bytes; `INVALID_INPUT` otherwise. */
export function checkBytes(key, bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  throw memdagError('INVALID_INPUT', `invalid input: value of ${JSON.stringify(key)} must be a Uint8Array or null`);
}
