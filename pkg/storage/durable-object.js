// DurableObjectStorage: a memdag storage adapter on a Cloudflare Durable Object's
// transactional storage (`ctx.storage`).
//
// One Durable Object holds one memory (one per user or agent: the Worker routes by name with
// idFromName), so every memory lives on one machine close to its user, and many memories
// spread over Cloudflare's network: that is how memdag grows past one machine. Requests to
// one object run one at a time, so its memory has a single writer.
//
// saveBatch is atomic: the whole change set (puts in objects of at most 128 keys, then
// deletes) is written inside one `storage.transaction`, which commits all of it or, if
// anything throws before it returns, none of it. Values are kept under 128 KiB, the most
// Durable Object storage takes (`maxValueBytes`, which `Memory.open` sizes the core's segment
// parts by).

import { checkBytes } from './memory.js';

/** Most keys one put/delete call may carry. */
const MAX_KEYS = 128;
/** The largest value Durable Object storage accepts. */
const MAX_VALUE_BYTES = 128 * 1024;
/** Entries a page of `loadPages` holds: at most 8 MiB of values. */
const PAGE_ENTRIES = 64;

const chunks = (list, n) => Array.from({ length: Math.ceil(list.length / n) }, (_, i) => list.slice(i * n, i * n + n));

const toBytes = (v) => (v instanceof Uint8Array ? v : new Uint8Array(v));

export class DurableObjectStorage {
  /**
   * @param {object} storage `ctx.storage` of the Durable Object.
   * @param {{ beforeCommit?: () => void, pageEntries?: number }} [options] `beforeCommit` runs
   *   inside the transaction after every write was issued (the test suite injects a failure
   *   there); `pageEntries` (default 64) is the most entries `loadPages` lists a call.
   */
  constructor(storage, { beforeCommit, pageEntries = PAGE_ENTRIES } = {}) {
    this.storage = storage;
    this.beforeCommit = beforeCommit;
    this.pageEntries = pageEntries;
  }

  /** True: a batch commits entirely or not at all. */
  get atomic() {
    return true;
  }

  /** The largest value it stores: `Memory.open` keeps the core's segment parts under it. */
  get maxValueBytes() {
    return MAX_VALUE_BYTES;
  }

  async load(key) {
    const v = await this.storage.get(key);
    return v == null ? undefined : toBytes(v);
  }

  async save(key, bytes) {
    await this.storage.put(key, checkBytes(key, bytes));
  }

  async remove(key) {
    await this.storage.delete(key);
  }

  async loadRange(prefix) {
    const found = await this.storage.list({ prefix });
    return [...found].map(([k, v]) => [k, toBytes(v)]);
  }

  /** Every entry under `prefix`, sorted by key, handed to `take(entries)` a page of at most
   * `limit` at a time (one `list` call each): `Memory.open` copies each page into wasm memory
   * before it reads the next, so a large store is never held in JS whole (a page is at most
   * `limit` values of 128 KiB). */
  async loadPages(prefix, take, limit = this.pageEntries) {
    let startAfter;
    for (;;) {
      const found = await this.storage.list(startAfter === undefined ? { prefix, limit } : { prefix, limit, startAfter });
      const page = [...found].map(([k, v]) => [k, toBytes(v)]);
      if (page.length > 0) take(page);
      if (page.length < limit) return;
      startAfter = page[page.length - 1][0];
    }
  }

  async removeRange(prefix) {
    const keys = [...(await this.storage.list({ prefix })).keys()];
    await this.storage.transaction(async (txn) => {
      for (const part of chunks(keys, MAX_KEYS)) await txn.delete(part);
    });
  }

  async saveBatch(changes) {
    const list = [...changes];
    // Durable Object storage takes any structured value: refuse what is not bytes before
    // anything is written, as every memdag adapter does.
    for (const [key, value] of list) if (value != null) checkBytes(key, value);
    const puts = list.filter(([, v]) => v != null);
    const deletes = list.filter(([, v]) => v == null).map(([k]) => k);
    await this.storage.transaction(async (txn) => {
      for (const part of chunks(puts, MAX_KEYS)) await txn.put(Object.fromEntries(part));
      for (const part of chunks(deletes, MAX_KEYS)) await txn.delete(part);
      this.beforeCommit?.();
    });
  }

  close() {}
}
