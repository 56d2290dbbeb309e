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
//
// Promises tell the truth. `add`, `addMany`, `compact`, `compactMany`, `delete` and the
// memory changes below resolve only once their change is durable: each schedules a flush
// (coalesced with any others in the same task) and waits for the flush that writes it. If that
// flush fails they reject with its `STORAGE` error (the change stays queued for the next
// flush); if a rebase drops the change (another tab deleted a parent first) they reject with
// the replay's code (`UNKNOWN_PARENT`, `NOT_FOUND`, ...), `reason: 'rebase'`, and the journal
// operation as `op`. The sync forms (`addTurn`, `applyCompaction`, ...) change memory at once
// and persist at the next flush.
//
// Memory changes: `addItem`, `updateItem`, `deleteItem`, `setMemoryConfig`, `extract`,
// `learn`, `updateWork`, `clearWork`, `purge`, `importJsonl`, `importMarkdown`, `prepare`,
// `finish`, `retainBlobs`, `setVectorSettings`, and `callTool` when the tool changed the store.
// Their replays are deterministic: a time the caller left out (`createdAt`, `at`, `now`) is
// fixed to `Date.now()` before the first run and journaled so, and a new item keeps the id the
// core gave it. Working memory changes field by field, so two tabs that change different
// fields of one thread both keep their change; of two changes to one field, the newest wins.
//
// Opening reads `head`, the keys it names and two keys ahead of it where the adapter says
// listing is costly (`boundedOpen`, e.g. Workers KV): 3 + parts reads, whatever the number of
// records. It lists instead when `head` is unreadable or a key ahead exists, so the core can
// open the newest commit its segments carry (a lost or stale `head` loses nothing).
//
// Opening (open.js), reindexing (reindex.js) and the context pipeline (pipeline.js) live in
// their own modules; they reach this memory through `#pipelineSide()`.
//
// Encryption at rest: with `key` (32 bytes, or an extractable WebCrypto CryptoKey read once
// as raw bytes) every stored value is sealed; the flush counter `sync/generation` stays plain.
// Where WebCrypto exists, this host seals each value of a change set with AES-256-GCM (seal
// v2, seal.js) and opens the v2 values before the core loads, which then opens only the rest
// (v1 values the core or the CLI sealed); without it the core seals (v1) and opens all.
// Exports are sealed by the core (v1) either way. The key is kept in this object for reloads;
// a missing or wrong key rejects `open` with `LOCKED`.
import { IndexedDbStorage, Memory, decodeSnapshot, recallMatchText, searchWantsVector } from './dist/memdag_wasm.js';
import { memdagError, storageError } from './errors.js';
import { EmbedBatcher, completeChecked, turnText } from './host.js';
import { learnThrough } from './learn.js';
import { withLock } from './lock.js';
import { GENERATION_KEY, decodeGeneration, encodeGeneration, fromCore, loadCore, rawKey, readStore } from './open.js';
import { hostSealer } from './seal.js';
import { finish, prepare } from './pipeline.js';
import { reindex } from './reindex.js';
import { MemoryStorage } from './storage/memory.js';

export { GENERATION_KEY };

/** Sync methods passed straight to the core. */
const READS = [
  'get', 'recent', 'byUser', 'ancestors', 'descendants', 'children', 'threads', 'users', 'search',
  'searchFull', 'grep', 'recall', 'recallView', 'accessCount', 'compactionPrompt', 'blob', 'blobIds',
  'snapshot', '__trapForTests', 'getItem', 'itemHistory', 'listItems', 'resolutions', 'proposeItems',
  'llmBatches', 'llmPrompt', 'itemCandidates',
  'workingMemory', 'workThreads', 'timeline', 'neighbors', 'path', 'subgraph', 'toolSchemas',
  'cited', 'exportSnapshot', 'exportJsonl', 'exportMarkdown', 'readBlob', 'runningSummary',
];

/** Outcomes of `addItem` that created an item (whose id a replay must keep). */
const NEW_ITEM = new Set(['added', 'superseded', 'flagged']);

/** Sync methods that change the store: journaled for replay, and flushed by autoFlush. */
const WRITES = ['applyCompaction', 'compactExtractive', 'putBlob', 'removeBlob', 'clearRunningSummary'];

/** The journal arguments of an added turn: the turn with the id and time the core gave it,
 * so a replay after a rebase adds the same record (a turn without `createdAt` took the host
 * clock once); with options, also the parents it kept, and the options. */
function replayable(turn, record, options) {
  const pinned = { ...turn, id: record.id, createdAt: record.createdAt };
  return options == null ? [pinned] : [{ ...pinned, parents: record.parents }, options];
}

/** `input` with `key` set to `value` when it is a plain object lacking it (`undefined` or
 * `null`); anything else as it is, for the core to refuse. */
function withDefault(input, key, value) {
  if (input === null || typeof input !== 'object' || Array.isArray(input) || input[key] != null) return input;
  return { ...input, [key]: value };
}

export class PersistentMemory extends EventTarget {
  #core;
  #key = null;
  /** The host's v2 sealer (seal.js), or null: the core seals. */
  #host = null;
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
  #limits = null;
  #reopening = null;
  #damage = null;

  /** Use `Memory.open`. */
  constructor(core, storage, { name, embed, complete, autoFlush, limits }) {
    super();
    this.#core = this.#guard(core);
    this.#limits = limits ?? null;
    this.#storage = storage;
    this.#name = name;
    this.#embedder = embed ? new EmbedBatcher(embed) : null;
    this.#complete = complete ?? null;
    this.#autoFlush = Boolean(autoFlush);
    this.#core.autoEmbed = !this.#embedder;
  }

  /** See `Memory.open` in index.d.ts. */
  static async open(options = {}) {
    const { name = 'default', embed, complete, autoFlush = false, sync = true, limits, salvage = false } = options;
    if (typeof name !== 'string' || name === '') throw memdagError('INVALID_INPUT', 'invalid input: name must be a non-empty string');
    for (const [k, f] of [['embed', embed], ['complete', complete]]) {
      if (f != null && typeof f !== 'function') throw memdagError('INVALID_INPUT', `invalid input: ${k} must be a function`);
    }
    const key = await rawKey(options.key);
    const host = await hostSealer(key);
    let storage = options.storage;
    if (storage == null) {
      storage = globalThis.indexedDB ? await IndexedDbStorage.open(`memdag:${name}`) : new MemoryStorage();
    }
    let read;
    try {
      read = await readStore(storage, key, host);
    } catch (e) {
      if (fromCore(e)) throw e;
      throw storageError(e, 'open');
    }
    const salvaged = salvage ? {} : null;
    const core = await loadCore(read.entries, storage, key, limits, salvaged, host, read.opened);
    const memory = new PersistentMemory(core, storage, { name, embed, complete, autoFlush, limits });
    memory.#key = key;
    memory.#host = host;
    memory.#damage = salvaged?.damage ?? null;
    memory.#generation = read.generation;
    memory.#retainAtOpen();
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
  /** The limits new turns are checked against. */
  get limits() {
    return this.#core.limits;
  }
  /** What the last open or reload recovered from (`[{ code, key, message }]`; see the
   * `Memory.loadWarnings` of the core). */
  get loadWarnings() {
    return this.#core.loadWarnings;
  }

  /** What a salvaging open (`Memory.open({ salvage: true })`) skipped and lost (see
   * `Memory.salvage`); `null` for a plain open. */
  get damage() {
    return this.#damage;
  }

  /** What is damaged in the store `options` name (`storage`, `name`, `key` as in
   * `Memory.open`), and what a salvaging open would hold and lose (see `Memory.verify`).
   * Reads and writes nothing else. */
  static async verify(options = {}) {
    const { name = 'default' } = options;
    const key = await rawKey(options.key);
    const host = await hostSealer(key);
    const storage = options.storage ?? (globalThis.indexedDB ? await IndexedDbStorage.open(`memdag:${name}`) : new MemoryStorage());
    let entries;
    try {
      entries = await storage.loadRange('');
    } catch (e) {
      throw storageError(e, 'verify');
    }
    let opened;
    if (host) ({ entries, opened } = await host.openEntries(entries));
    return Memory.verify(entries, key, opened);
  }

  /** Tool-output retention on the host clock, run once opened (the core's rule: faces run it
   * at open and at prepare). What it removes is journaled and persists at the next flush. */
  #retainAtOpen() {
    const now = Date.now();
    const before = this.#core.hasChanges;
    const removed = this.#core.retainBlobs(now);
    if (removed.length > 0 || (!before && this.#core.hasChanges)) {
      this.#journalReplay('retainBlobs', (core) => core.retainBlobs(now), [now]);
    }
  }

  /** Removes the stored tool outputs past the memory setting `blobMaxAgeMs` at `now` (default
   * now) that no record references; resolves with their ids once durable. */
  async retainBlobs(now = Date.now()) {
    return this.#change('retainBlobs', [now], (core) => core.retainBlobs(now));
  }

  /** One call before a turn, through the host's `complete` when the memory has one (see
   * pipeline.js); resolves once the blobs and summary it wrote are durable. */
  async prepare(messages, options) {
    return prepare(this.#pipelineSide(), messages, options);
  }

  /** One call after a turn: the turn embedded (host `embed`), written with its cited parents,
   * and learned from (host `complete`, else the rules); resolves once durable. */
  async finish(turn, options) {
    return finish(this.#pipelineSide(), turn, options);
  }

  /** What pipeline.js and learn.js need of this memory. */
  #pipelineSide() {
    return {
      core: () => this.#core,
      embedder: this.#embedder,
      complete: this.#complete,
      journal: (op, args, replay) => this.#journalReplay(op, replay, args),
      durable: (entries, value) => this.#durable(entries, value),
    };
  }

  /** `item` (a new item or an update) with its `text` embedded by the host's `embed`, when the
   * memory has an embedder and the item gives no vector (as the WIT face does). */
  async #embedItem(item) {
    const text = item?.text;
    if (!this.#embedder || item === null || typeof item !== 'object' || item.embedding != null) return item;
    if (typeof text !== 'string' || text.trim() === '') return item;
    return { ...item, embedding: Array.from(await this.#embedder.one(text)) };
  }

  /** Changes limits for turns added from now on (kept across reloads, not stored). */
  setLimits(limits) {
    this.#core.setLimits(limits);
    this.#limits = { ...(this.#limits ?? {}), ...limits };
  }

  /** Erases every turn of `user`, the blobs only they referenced and their index entries,
   * and rewrites the stored memory so no key keeps them; resolves with `{ records, blobs }`
   * once that is durable. */
  async forgetUser(user) {
    const gone = this.#core.forgetUser(user);
    return this.#durable([this.#record('forgetUser', [user])], gone);
  }

  /** Embeds every turn again, so the memory can move to another embedding model and
   * dimension: with the host's `embed` in calls of `batchSize` texts (default 64), or the
   * built-in embedder when there is none. `onProgress({ phase, done, total })` follows each
   * call. The new vectors are swapped in at once, so a failure changes nothing; resolves with
   * `{ records, previousDimension, dimension }` once the rewritten store is durable. */
  async reindex(options) {
    return reindex(this.#pipelineSide(), options);
  }

  /** Rebuilds the memory from storage and replays the unflushed journal on it: how a memory
   * closed by a WebAssembly trap comes back (it is also started on its own after a trap). */
  reopen() {
    if (this.#reopening) return this.#reopening;
    const run = this.#serial.then(() => this.#rebase());
    this.#serial = run.catch(() => {});
    this.#reopening = run.then((conflicts) => {
      this.#reopening = null;
      this.dispatchEvent(new Event('reopen'));
      return { conflicts };
    }, (error) => {
      this.#reopening = null;
      throw error;
    });
    return this.#reopening;
  }

  /** Whether the store is encrypted at rest. */
  get encrypted() {
    return this.#core.encrypted;
  }

  /** Adds a turn now (sync, no host embedder); it persists at the next flush. See `add`. */
  addTurn(turn, options) {
    const record = this.#core.addTurn(turn, options);
    this.#record('addTurn', replayable(turn, record, options));
    return record;
  }

  /** Embeds the turn with the host's `embed` (if given and the turn has none), adds it, and
   * resolves once it is durable (see the module notes). `options` as in `Memory.addTurn`
   * (`{ dropUnknownParents: true }`: the record carries `dropped`). */
  async add(turn, options) {
    let t = turn;
    if (this.#embedder && turn?.embedding == null) t = { ...turn, embedding: await this.#embedder.one(turnText(turn)) };
    const record = this.#core.addTurn(t, options);
    return this.#durable([this.#record('addTurn', replayable(t, record, options))], record);
  }

  /** Adds turns in order with one `embed` call for all of them; resolves once all are durable
   * (one flush). A turn that fails validation throws before anything later is added.
   * `options` apply to every turn. */
  async addMany(turns, options) {
    const list = [...turns];
    let vectors = [];
    const missing = list.filter((t) => t?.embedding == null);
    if (this.#embedder && missing.length) vectors = await this.#embedder.many(missing.map(turnText));
    let v = 0;
    const entries = [];
    const records = list.map((t) => {
      const turn = this.#embedder && t?.embedding == null ? { ...t, embedding: vectors[v++] } : t;
      const record = this.#core.addTurn(turn, options);
      entries.push(this.#record('addTurn', replayable(turn, record, options)));
      return record;
    });
    return this.#durable(entries, records);
  }

  /** Deletes a record (its children take over its parents) and resolves with it once the
   * deletion is durable. Throws `NOT_FOUND` for an unknown id. */
  async delete(id) {
    const record = this.#core.delete(id);
    return this.#durable([this.#record('delete', [id])], record);
  }

  /** The long-term memory settings. */
  get memoryConfig() {
    return this.#core.memoryConfig;
  }

  /** Adds a long-term memory item (dedup and conflicts) and resolves with what happened once
   * it is durable. `createdAt` defaults to now; its text is embedded with the host's `embed`
   * when the memory has one and the item has no `embedding`. */
  async addItem(item) {
    const pinned = await this.#embedItem(withDefault(item, 'createdAt', Date.now()));
    const learned = this.#core.addItem(pinned);
    const replay = NEW_ITEM.has(learned.outcome) && pinned.id == null ? { ...pinned, id: learned.item.id } : pinned;
    return this.#durable([this.#journalReplay('addItem', (core) => core.addItem(replay), [replay])], learned);
  }

  /** Makes a new version of an item; resolves with it once durable. `at` defaults to now; a
   * new `text` is embedded with the host's `embed` as in `addItem`. */
  async updateItem(id, update) {
    const pinned = await this.#embedItem(withDefault(update, 'at', Date.now()));
    return this.#change('updateItem', [id, pinned], (core) => core.updateItem(id, pinned));
  }

  /** Deletes an item softly at `at` (default now); resolves with it once durable. */
  async deleteItem(id, at) {
    const pinned = at ?? Date.now();
    return this.#change('deleteItem', [id, pinned], (core) => core.deleteItem(id, pinned));
  }

  /** Sets the long-term memory settings (stored with the memory); resolves once durable. */
  async setMemoryConfig(config) {
    return this.#change('setMemoryConfig', [config], (core) => core.setMemoryConfig(config));
  }

  /** How the memory keeps its vectors: `{ precision, train }` (see `Memory.vectorSettings`). */
  get vectorSettings() {
    return this.#core.vectorSettings;
  }

  /** Sets how the memory keeps its vectors (stored with the memory); resolves once durable. */
  async setVectorSettings(settings) {
    return this.#change('setVectorSettings', [settings], (core) => core.setVectorSettings(settings));
  }

  /** Learns items from turns: through the host's `complete` when the memory has one, batch by
   * batch (see learn.js: a bad fact is refused alone, a failed call has the rules learn its
   * batch), else by the rules. Resolves with the report once it is durable. */
  async extract(query) {
    if (!this.#complete) return this.#change('extract', [query], (core) => core.extract(query));
    const { report, entries } = await learnThrough(this.#pipelineSide(), query);
    return this.#durable(entries, report);
  }

  /** Learns the model's answer to the prompt of a batch (see `Memory.learnLlm`); resolves
   * with the report once it is durable. */
  async learnLlm(index, batch, prompt, answer) {
    return this.#change('learnLlm', [index, batch, prompt, answer], (core) => core.learnLlm(index, batch, prompt, answer));
  }

  /** Learns proposals with the judgements of their candidates; resolves once durable. */
  async learn(proposals, judged) {
    const now = Date.now();
    const pinned = Array.isArray(proposals) ? proposals.map((p) => withDefault(p, 'createdAt', now)) : proposals;
    return this.#change('learn', [pinned, judged], (core) => core.learn(pinned, judged));
  }

  /** Changes one field of a thread's working memory (`at` defaults to now); resolves with the
   * change once durable. */
  async updateWork(update) {
    const pinned = withDefault(update, 'at', Date.now());
    return this.#change('updateWork', [pinned], (core) => core.updateWork(pinned));
  }

  /** Forgets `user`'s working memory of a thread (omitted: no user's); resolves with whether
   * there was one once durable. */
  async clearWork(thread, user) {
    return this.#change('clearWork', [thread, user], (core) => core.clearWork(thread, user));
  }

  /** Removes expired items (and what the query adds) for good and rewrites the stored memory
   * so no key keeps them; resolves with `{ items, blobs }` once durable. `now` defaults to
   * now, `expired` to true. */
  async purge(query = {}) {
    const pinned = withDefault(query ?? {}, 'now', Date.now());
    return this.#change('purge', [pinned], (core) => core.purge(pinned));
  }

  /** Runs a tool (see `Memory.callTool`); when it changed the store (`remember`, `forget`,
   * `recall`'s use counts), resolves once that is durable. The context's `now` defaults to
   * now. */
  async callTool(name, args, context = {}) {
    const pinned = withDefault(context ?? {}, 'now', Date.now());
    const answer = this.#core.callTool(name, args, pinned);
    if (!this.#core.hasChanges) return answer;
    const entry = this.#journalReplay('callTool', (core) => core.callTool(name, args, pinned), [name, args, pinned]);
    return this.#durable([entry], answer);
  }

  /** `search`, embedding the query text with the host's `embed` for vector and hybrid modes. */
  async searchAsync(query) {
    if (this.#embedder && query != null && searchWantsVector(query)) {
      query = { ...query, embedding: await this.#embedder.one(query.text) };
    }
    return this.#core.search(query);
  }

  /** `recall`, embedding the text recall matches (the core's rule: keywords, then the query
   * text) with the host's `embed`. */
  async recallAsync(query) {
    const text = query == null ? '' : recallMatchText(query).trim();
    if (this.#embedder && query?.embedding == null && text) {
      query = { ...query, embedding: await this.#embedder.one(text) };
    }
    return this.#core.recall(query);
  }

  /** Compacts record `id` with the host's `complete` (LLM), or the extractive compactor when
   * there is none. A malformed LLM answer is `HOST` and changes nothing. */
  async compact(id, { previous } = {}) {
    const [record, entry] = await this.#compactNow(id, previous);
    return this.#durable([entry], record);
  }

  /** Compacts several records, at most `concurrency` LLM calls at a time; resolves once all
   * are durable (one flush). */
  async compactMany(ids, { concurrency = 4 } = {}) {
    const list = [...ids];
    const out = new Array(list.length);
    const entries = [];
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const i = next++;
        const [record, entry] = await this.#compactNow(list[i]);
        out[i] = record;
        entries.push(entry);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, list.length)) }, worker));
    return this.#durable(entries, out);
  }

  /** Compacts in memory; returns the record and its journal entry. */
  async #compactNow(id, previous) {
    if (this.#complete) {
      const prompt = this.#core.compactionPrompt(id, previous);
      const answer = await completeChecked(this.#complete, prompt);
      const record = this.#core.applyCompaction(id, answer);
      return [record, this.#record('applyCompaction', [id, answer])];
    }
    const record = this.#core.compactExtractive(id);
    return [record, this.#record('compactExtractive', [id])];
  }

  /** Cuts oversized tool results and stores their full texts as blobs (journaled). */
  compactToolResults(messages, limits) {
    const out = this.#core.compactToolResults(messages, limits);
    for (const id of out.blobIds) this.#record('putBlob', [this.#core.blob(id)]);
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

  /** The whole memory (with unflushed changes) as an export file: the core's snapshot. */
  exportBytes() {
    return this.#core.exportSnapshot();
  }

  /** Adds what a JSONL export (or any ingest file) holds and this memory does not; resolves
   * with `{ turns, items, work, skipped }` once durable. `now` (default now) dates turns
   * without a time. */
  async importJsonl(text, now = Date.now()) {
    return this.#change('importJsonl', [text, now], (core) => core.importJsonl(text, now));
  }

  /** Adds what Markdown export files (`[path, text]` pairs) hold and this memory does not;
   * resolves with `{ turns, items, work, skipped }` once durable. */
  async importMarkdown(files) {
    const list = files != null && typeof files[Symbol.iterator] === 'function' && typeof files !== 'string' ? [...files] : files;
    return this.#change('importMarkdown', [list], (core) => core.importMarkdown(list));
  }

  /** Replaces the memory and its storage with an export file, in one batch. */
  importBytes(bytes) {
    const run = this.#serial.then(() =>
      withLock(`memdag:${this.#name}`, async () => {
        const entries = decodeSnapshot(bytes).filter(([k]) => k !== GENERATION_KEY);
        const fresh = await loadCore(entries, this.#storage, this.#key, this.#limits, null, this.#host);
        fresh.autoEmbed = !this.#embedder;
        // Unflushed work is written first, so no promise is left waiting on a replaced store.
        await this.#flushLocked();
        let stored;
        try {
          stored = await this.#storage.loadRange('');
        } catch (e) {
          fresh.free();
          throw storageError(e, 'import');
        }
        const durable = decodeGeneration(stored.find(([k]) => k === GENERATION_KEY)?.[1]);
        const next = Math.max(durable, this.#generation) + 1;
        // The core writes the import under new generations, commits, then deletes the old keys.
        fresh.prepareToReplace(stored.map(([k]) => k));
        const changes = fresh.takeChanges();
        try {
          await this.#storage.saveBatch([...await this.#sealed(changes), [GENERATION_KEY, encodeGeneration(next)]]);
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

  /** Releases the wasm memory without flushing (for a memory opened only to read). */
  free() {
    this.#channel?.close();
    this.#channel = null;
    this.#core.free();
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
        this.#record(method, args);
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
      for (const entry of this.#journal.splice(0, taken)) entry.settle?.(null);
      return { written: 0, generation: this.#generation, conflicts };
    }
    const next = Math.max(durable, this.#generation) + 1;
    try {
      await this.#storage.saveBatch([...await this.#sealed(changes), [GENERATION_KEY, encodeGeneration(next)]]);
    } catch (e) {
      this.#core.requeue(changes);
      const error = storageError(e, 'flush');
      // The change stays queued for the next flush, but this flush did not make it durable.
      for (const entry of this.#journal.slice(0, taken)) entry.settle?.(error);
      throw error;
    }
    this.#generation = next;
    for (const entry of this.#journal.splice(0, taken)) entry.settle?.(null);
    this.#channel?.postMessage({ generation: next });
    return { written: changes.length, generation: next, conflicts };
  }

  /** Reloads the durable store and replays the journal on it; returns the ops that failed. */
  async #rebase() {
    let read;
    try {
      read = await readStore(this.#storage, this.#key, this.#host);
    } catch (e) {
      if (fromCore(e)) throw e;
      throw storageError(e, 'reload');
    }
    const fresh = await loadCore(read.entries, this.#storage, this.#key, this.#limits, null, this.#host, read.opened);
    fresh.autoEmbed = !this.#embedder;
    const conflicts = [];
    const kept = [];
    for (const entry of this.#journal) {
      const { op, args } = entry;
      try {
        if (entry.replay) entry.replay(fresh);
        else fresh[op](...args);
        kept.push(entry);
      } catch (error) {
        conflicts.push({ op, args, error });
        entry.settle?.(memdagError(error?.code ?? 'INVALID_INPUT',
          `dropped: after another writer's flush, ${op} no longer applies: ${error?.message ?? error}`,
          { reason: 'rebase', op, cause: error }));
        entry.settle = null;
      }
    }
    this.#journal = kept;
    this.#swap(fresh);
    this.#generation = read.generation;
    return conflicts;
  }

  /** A change set as it is stored: sealed by the host (seal v2) when it seals, else as the
   * core gave it (plain, or sealed v1 by the core). */
  #sealed(changes) {
    return this.#host ? this.#host.sealChanges(changes) : changes;
  }

  #swap(fresh) {
    const old = this.#core;
    this.#core = this.#guard(fresh);
    try {
      old.free();
    } catch {
      // A core closed by a trap may not free cleanly; it is dropped either way.
    }
  }

  /** The core, with every call watched for a trap (a `CLOSED` error marked `trapped`, see
   * index.js): the first one starts `reopen`, so the memory comes back by itself. */
  #guard(core) {
    const watch = (error) => {
      if (error?.code === 'CLOSED' && error.trapped) {
        this.reopen().catch((e) => this.dispatchEvent(Object.assign(new Event('error'), { error: e })));
      }
      return error;
    };
    return new Proxy(core, {
      get(target, prop) {
        let value;
        try {
          value = Reflect.get(target, prop, target);
        } catch (e) {
          throw watch(e);
        }
        if (typeof value !== 'function') return value;
        return (...args) => {
          try {
            return value.apply(target, args);
          } catch (e) {
            throw watch(e);
          }
        };
      },
      set(target, prop, value) {
        try {
          return Reflect.set(target, prop, value, target);
        } catch (e) {
          throw watch(e);
        }
      },
    });
  }

  async #load(key) {
    try {
      return await this.#storage.load(key);
    } catch (e) {
      throw storageError(e, 'load');
    }
  }

  /** Journals an operation already applied to the core that replays through `replay(core)`
   * rather than a core method of the same name (`args` are for conflict reports); returns its
   * journal entry. */
  #journalReplay(op, replay, args = []) {
    const entry = this.#record(op, args);
    entry.replay = replay;
    return entry;
  }

  /** Runs `run` on the core now, journals it to replay the same way after a rebase, and
   * resolves with its result once durable. */
  #change(op, args, run) {
    const result = run(this.#core);
    return this.#durable([this.#journalReplay(op, run, args)], result);
  }

  /** Journals an operation already applied to the core; returns its journal entry. */
  #record(op, args) {
    const entry = { op, args, settle: null };
    this.#journal.push(entry);
    this.#changed();
    return entry;
  }

  /** Resolves with `value` once every entry is durable; rejects if a flush fails or a rebase
   * drops one of them. Schedules a flush. */
  #durable(entries, value) {
    // Each entry comes from one operation, so it has one waiter.
    const waits = entries.map((entry) => new Promise((resolve, reject) => {
      entry.settle = (error) => (error ? reject(error) : resolve());
    }));
    this.#scheduleFlush();
    return Promise.all(waits).then(() => value);
  }

  #scheduleFlush() {
    if (this.#scheduled) return;
    this.#scheduled = Promise.resolve().then(() => {
      this.#scheduled = null;
      return this.flush().catch((error) => this.dispatchEvent(Object.assign(new Event('error'), { error })));
    });
  }

  /** After a sync write: with autoFlush, flush once the current task is done. */
  #changed() {
    if (this.#autoFlush) this.#scheduleFlush();
  }

  #listen() {
    this.#channel = new BroadcastChannel(`memdag:${this.#name}`);
    this.#channel.unref?.();
    this.#channel.onmessage = (event) => {
      if (event.data?.generation > this.#generation) this.refresh().catch(() => {});
    };
  }
}
