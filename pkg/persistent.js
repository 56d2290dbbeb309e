// PersistentMemory: a Memory bound to a storage adapter, with the host's embedder and LLM.
// `Memory.open(options)` returns one. The synchronous core (records, DAG, search, recall) is
// the wasm `Memory`; this class adds what is asynchronous: loading, flushing change sets,
// host callbacks, and coordination with other tabs.
//
// Flush. `flush()` takes the core's change set and writes it with the adapter's `saveBatch`,
// plus the key `sync/generation` (a counter bumped by every flush), in one transaction where
// the adapter is atomic (IndexedDB, MemoryStorage). If the write fails, the change set is
// handed back to the core (`requeue`), so the next flush writes it again: nothing is lost, and
// what was flushed before stays as it was (an aborted transaction writes nothing). Flushes run
// one at a time, in call order.
//
// Two tabs: Web Locks plus reload-before-write, with a BroadcastChannel only as a hint.
// Every flush holds the exclusive Web Lock `memdag:<name>` (navigator.locks; a promise chain
// where there is none) while it reads the stored generation and, if another tab has written
// since this one last loaded, reloads the store and replays this tab's unflushed operations
// (kept in a journal: added turns with their ids, deletions, compactions, blobs) on top of it
// before writing. So a write never overwrites another tab's write with stale state: the
// record keys, the meta counter and the vector-graph nodes are all computed from the latest
// durable store. We chose locks over a BroadcastChannel-coordinated reload because messages
// can arrive late or never (a tab frozen in the background, a crash between write and post),
// while the lock plus the durable generation check is correct whatever the timing. Operations
// that no longer apply after the reload (deleting a record the other tab deleted) are
// reported in `flush()`'s `conflicts` and dropped. The BroadcastChannel `memdag:<name>` only
// tells other tabs to refresh their view early (event "change").
import { IndexedDbStorage, Memory } from './dist/memdag_wasm.js';
import { memdagError, storageError } from './errors.js';
import { decodeExport, encodeExport } from './export.js';
import { EmbedBatcher, completeChecked, turnText } from './host.js';
import { withLock } from './lock.js';
import { MemoryStorage } from './storage/memory.js';

/** The storage key of the flush counter. The core ignores keys outside its own prefixes. */
export const GENERATION_KEY = 'sync/generation';

const decodeGeneration = (bytes) => (bytes ? Number(new TextDecoder().decode(bytes)) || 0 : 0);
const encodeGeneration = (n) => new TextEncoder().encode(String(n));

/** Sync methods passed straight to the core. */
const READS = [
  'get', 'recent', 'byUser', 'ancestors', 'descendants', 'children', 'threads', 'users', 'search',
  'grep', 'recall', 'recallView', 'accessCount', 'compactionPrompt', 'blob', 'blobIds', 'snapshot',
];

/** Sync methods that change the store: journaled for replay, and flushed by autoFlush. */
const WRITES = ['delete', 'applyCompaction', 'compactExtractive', 'putBlob', 'removeBlob'];

export class PersistentMemory extends EventTarget {
  #core;
  #storage;
  #name;
  #embedder;
  #complete;
  #autoFlush;
  #generation = 0;
  #journal = [];
  #serial = Promise.resolve();
  #scheduled = null;
  #channel = null;

  /** Use `Memory.open`. */
  constructor(core, storage, { name, embed, complete, autoFlush }) {
    super();
    this.#core = core;
    this.#storage = storage;
    this.#name = name;
    this.#embedder = embed ? new EmbedBatcher(embed) : null;
    this.#complete = complete ?? null;
    this.#autoFlush = Boolean(autoFlush);
    this.#core.autoEmbed = !this.#embedder;
  }

  /** See `Memory.open` in index.d.ts. */
  static async open(options = {}) {
    const { name = 'default', embed, complete, autoFlush = false, sync = true } = options;
    if (typeof name !== 'string' || name === '') throw memdagError('INVALID_INPUT', 'invalid input: name must be a non-empty string');
    for (const [k, f] of [['embed', embed], ['complete', complete]]) {
      if (f != null && typeof f !== 'function') throw memdagError('INVALID_INPUT', `invalid input: ${k} must be a function`);
    }
    let storage = options.storage;
    if (storage == null) {
      storage = globalThis.indexedDB ? await IndexedDbStorage.open(`memdag:${name}`) : new MemoryStorage();
    }
    let entries;
    try {
      entries = await storage.loadRange('');
    } catch (e) {
      throw storageError(e, 'open');
    }
    const memory = new PersistentMemory(Memory.load(entries), storage, { name, embed, complete, autoFlush });
    memory.#generation = decodeGeneration(entries.find(([k]) => k === GENERATION_KEY)?.[1]);
    if (sync && typeof BroadcastChannel === 'function') memory.#listen();
    return memory;
  }

  /** The name this memory was opened with. */
  get name() {
    return this.#name;
  }
  /** The storage adapter. */
  get storage() {
    return this.#storage;
  }
  /** The flush counter last seen in storage. */
  get generation() {
    return this.#generation;
  }
  /** Operations not yet flushed. */
  get pending() {
    return this.#journal.length;
  }
  get len() {
    return this.#core.len;
  }
  get isEmpty() {
    return this.#core.isEmpty;
  }
  get dimension() {
    return this.#core.dimension;
  }

  /** Adds a turn now (sync, no host embedder); see `add` for the async form. */
  addTurn(turn) {
    const record = this.#core.addTurn(turn);
    this.#journal.push(['addTurn', [{ ...turn, id: record.id }]]);
    this.#changed();
    return record;
  }

  /** Embeds the turn with the host's `embed` (if given and the turn has none), adds it, and
   * flushes when `autoFlush` is on. */
  async add(turn) {
    let t = turn;
    if (this.#embedder && turn?.embedding == null) t = { ...turn, embedding: await this.#embedder.one(turnText(turn)) };
    const record = this.addTurn(t);
    if (this.#autoFlush) await this.flush();
    return record;
  }

  /** Adds turns in order with one `embed` call for all of them, then one flush (autoFlush). */
  async addMany(turns) {
    const list = [...turns];
    let vectors = [];
    const missing = list.filter((t) => t?.embedding == null);
    if (this.#embedder && missing.length) vectors = await this.#embedder.many(missing.map(turnText));
    let v = 0;
    const records = list.map((t) =>
      this.addTurn(this.#embedder && t?.embedding == null ? { ...t, embedding: vectors[v++] } : t));
    if (this.#autoFlush) await this.flush();
    return records;
  }

  /** `search`, embedding the query text with the host's `embed` for vector and hybrid modes. */
  async searchAsync(query) {
    if (this.#embedder && query?.embedding == null && query?.text && query.mode !== 'bm25') {
      query = { ...query, embedding: await this.#embedder.one(query.text) };
    }
    return this.#core.search(query);
  }

  /** `recall`, embedding the query text and keywords with the host's `embed`. */
  async recallAsync(query) {
    const text = [query?.queryText ?? '', ...(query?.keywords ?? [])].join(' ').trim();
    if (this.#embedder && query?.embedding == null && text) {
      query = { ...query, embedding: await this.#embedder.one(text) };
    }
    return this.#core.recall(query);
  }

  /** Compacts record `id` with the host's `complete` (LLM), or the extractive compactor when
   * there is none. A malformed LLM answer is `HOST` and changes nothing. */
  async compact(id, { previous } = {}) {
    let record;
    if (this.#complete) {
      const prompt = this.#core.compactionPrompt(id, previous);
      const answer = await completeChecked(this.#complete, prompt);
      record = this.applyCompaction(id, answer);
    } else {
      record = this.compactExtractive(id);
    }
    if (this.#autoFlush) await this.flush();
    return record;
  }

  /** Compacts several records, at most `concurrency` LLM calls at a time; one flush. */
  async compactMany(ids, { concurrency = 4 } = {}) {
    const list = [...ids];
    const out = new Array(list.length);
    let next = 0;
    const auto = this.#autoFlush;
    this.#autoFlush = false;
    try {
      const worker = async () => {
        while (next < list.length) {
          const i = next++;
          out[i] = await this.compact(list[i]);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, list.length)) }, worker));
    } finally {
      this.#autoFlush = auto;
    }
    if (auto) await this.flush();
    return out;
  }

  /** Cuts oversized tool results and stores their full texts as blobs (journaled). */
  compactToolResults(messages, limits) {
    const out = this.#core.compactToolResults(messages, limits);
    for (const id of out.blobIds) this.#journal.push(['putBlob', [this.#core.blob(id)]]);
    if (out.blobIds.length) this.#changed();
    return out;
  }

  /** Writes every change since the last flush in one transaction (see the module notes). */
  flush() {
    const run = this.#serial.then(() => withLock(`memdag:${this.#name}`, () => this.#flushLocked()));
    this.#serial = run.catch(() => {});
    return run;
  }

  /** Reloads from storage if another writer has flushed since, keeping unflushed work. */
  refresh() {
    const run = this.#serial.then(async () => {
      const durable = decodeGeneration(await this.#load(GENERATION_KEY));
      if (durable === this.#generation) return { reloaded: false, conflicts: [] };
      const conflicts = await this.#rebase();
      this.dispatchEvent(new Event('change'));
      return { reloaded: true, conflicts };
    });
    this.#serial = run.catch(() => {});
    return run;
  }

  /** The whole memory (with unflushed changes) as an export file. */
  exportBytes() {
    return encodeExport(this.#core.snapshot());
  }

  /** Replaces the memory and its storage with an export file, in one batch. */
  importBytes(bytes) {
    const run = this.#serial.then(() =>
      withLock(`memdag:${this.#name}`, async () => {
        const entries = decodeExport(bytes).filter(([k]) => k !== GENERATION_KEY);
        const fresh = Memory.load(entries);
        fresh.autoEmbed = !this.#embedder;
        const keep = new Set(entries.map(([k]) => k));
        let stored;
        try {
          stored = await this.#storage.loadRange('');
        } catch (e) {
          throw storageError(e, 'import');
        }
        const durable = decodeGeneration(stored.find(([k]) => k === GENERATION_KEY)?.[1]);
        const deletes = stored.filter(([k]) => !keep.has(k) && k !== GENERATION_KEY).map(([k]) => [k, null]);
        const next = Math.max(durable, this.#generation) + 1;
        try {
          await this.#storage.saveBatch([...entries, ...deletes, [GENERATION_KEY, encodeGeneration(next)]]);
        } catch (e) {
          fresh.free();
          throw storageError(e, 'import');
        }
        this.#swap(fresh);
        this.#journal = [];
        this.#generation = next;
        this.#channel?.postMessage({ generation: next });
        this.dispatchEvent(new Event('change'));
        return { records: fresh.len };
      }));
    this.#serial = run.catch(() => {});
    return run;
  }

  /** Flushes, then releases the storage and the wasm memory. */
  async close() {
    await this.flush();
    this.#channel?.close();
    this.#channel = null;
    await this.#storage.close?.();
    this.#core.free();
  }

  static {
    for (const method of READS) {
      this.prototype[method] = function (...args) {
        return this.#core[method](...args);
      };
    }
    for (const method of WRITES) {
      this.prototype[method] = function (...args) {
        const result = this.#core[method](...args);
        this.#journal.push([method, args]);
        this.#changed();
        return result;
      };
    }
  }

  async #flushLocked() {
    const stored = await this.#load(GENERATION_KEY);
    const durable = decodeGeneration(stored);
    const conflicts = durable === this.#generation ? [] : await this.#rebase();
    const taken = this.#journal.length;
    const changes = this.#core.takeChanges();
    if (changes.length === 0) {
      this.#journal.splice(0, taken);
      return { written: 0, generation: this.#generation, conflicts };
    }
    const next = Math.max(durable, this.#generation) + 1;
    try {
      await this.#storage.saveBatch([...changes, [GENERATION_KEY, encodeGeneration(next)]]);
    } catch (e) {
      this.#core.requeue(changes);
      throw storageError(e, 'flush');
    }
    this.#generation = next;
    this.#journal.splice(0, taken);
    this.#channel?.postMessage({ generation: next });
    return { written: changes.length, generation: next, conflicts };
  }

  /** Reloads the durable store and replays the journal on it; returns the ops that failed. */
  async #rebase() {
    let entries;
    try {
      entries = await this.#storage.loadRange('');
    } catch (e) {
      throw storageError(e, 'reload');
    }
    const fresh = Memory.load(entries);
    fresh.autoEmbed = !this.#embedder;
    const conflicts = [];
    const kept = [];
    for (const entry of this.#journal) {
      const [op, args] = entry;
      try {
        fresh[op](...args);
        kept.push(entry);
      } catch (error) {
        conflicts.push({ op, args, error });
      }
    }
    this.#journal = kept;
    this.#swap(fresh);
    this.#generation = decodeGeneration(entries.find(([k]) => k === GENERATION_KEY)?.[1]);
    return conflicts;
  }

  #swap(fresh) {
    const old = this.#core;
    this.#core = fresh;
    old.free();
  }

  async #load(key) {
    try {
      return await this.#storage.load(key);
    } catch (e) {
      throw storageError(e, 'load');
    }
  }

  /** After a sync write: with autoFlush, flush once the current task is done. */
  #changed() {
    if (!this.#autoFlush || this.#scheduled) return;
    this.#scheduled = Promise.resolve().then(() => {
      this.#scheduled = null;
      return this.flush().catch((error) => this.dispatchEvent(Object.assign(new Event('error'), { error })));
    });
  }

  #listen() {
    this.#channel = new BroadcastChannel(`memdag:${this.#name}`);
    this.#channel.unref?.();
    this.#channel.onmessage = (event) => {
      if (event.data?.generation > this.#generation) this.refresh().catch(() => {});
    };
  }
}
