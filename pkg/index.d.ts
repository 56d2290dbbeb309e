// Type declarations of the memdag package (pkg/index.js). Property names are camelCase;
// the Rust core's snake_case `created_at` is also accepted on input.

/** One call in the tool-call loop of a turn. */
export interface Step {
  /** The tool's name. */
  tool: string;
  /** The arguments as the agent wrote them (usually JSON text). */
  args: string;
  /** What the tool returned, or its error message. */
  result: string;
  /** Whether the call succeeded. */
  ok: boolean;
}

/** One named section of a compact node, e.g. "Goal" or "Next Steps". */
export interface Section {
  name: string;
  text: string;
}

/** A summary of a turn's tool-call loop. */
export interface CompactNode {
  summary: string;
  sections: Section[];
}

/**
 * A turn to add. Every field but `thread` is optional. Unknown properties are refused with
 * `INVALID_INPUT`, so a typo cannot silently drop a field.
 */
export interface NewTurn {
  /** A caller-chosen id (1 to 256 bytes); when absent the store derives one. */
  id?: string | null;
  /** The conversation thread; must not be empty. */
  thread: string;
  user?: string;
  /** Milliseconds since the Unix epoch, e.g. `Date.now()`. The core never reads a clock. */
  createdAt?: number;
  input?: string;
  output?: string;
  steps?: Partial<Step>[];
  /** Ids of earlier records this turn used. Each must exist, or `UNKNOWN_PARENT` is thrown. */
  parents?: string[];
  tags?: string[];
  /** How much the turn matters, 0 to 1 (default 0.5). */
  importance?: number | null;
  compact?: CompactNode | null;
  /** A non-empty vector of finite numbers, given by the host. */
  embedding?: Float32Array | number[] | null;
}

/** A stored turn, as a plain object. */
export interface MemoryRecord {
  id: string;
  /** Insertion sequence number, unique in the store. */
  seq: number;
  thread: string;
  user: string;
  /** Milliseconds since the Unix epoch, as given. */
  createdAt: number;
  input: string;
  output: string;
  steps: Step[];
  /** The earlier records this turn used; every one exists. */
  parents: string[];
  tags: string[];
  importance: number;
  compact: CompactNode | null;
  embedding: Float32Array | null;
}

/** One change to persist: a key and its new bytes, or `null` to delete the key. */
export type Change = [key: string, value: Uint8Array | null];

/** One stored entry, as read back from storage. */
export type Entry = [key: string, value: Uint8Array];

/** The stable code of every error memdag throws. */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'UNKNOWN_PARENT'
  | 'DUPLICATE_ID'
  | 'INVALID_INPUT'
  | 'CORRUPT_DATA'
  | 'UNSUPPORTED_VERSION'
  | 'LOCKED'
  | 'STORAGE'
  | 'HOST'
  | 'BUSY'
  | 'CLOSED';

/** The shape of every error memdag throws: a plain `Error` with extra properties. */
export interface MemdagError extends Error {
  code: ErrorCode;
  /** The storage key concerned (`CORRUPT_DATA`, `UNSUPPORTED_VERSION`, `LOCKED`). */
  key?: string;
  /** The missing parent ids (`UNKNOWN_PARENT`). */
  ids?: string[];
  /** The id concerned (`NOT_FOUND`, `DUPLICATE_ID`). */
  id?: string;
  /** `CLOSED` after a WebAssembly trap: the instance is unusable; reopen from storage. */
  trapped?: boolean;
}

/**
 * The most a memory accepts; a turn over any limit is `INVALID_INPUT` naming the field, and a
 * string over `maxFieldBytes` is refused before it is copied into wasm memory. Defaults:
 * maxFieldBytes 8 MiB, maxTurnBytes 32 MiB, maxNameBytes 1 KiB, maxTags 256, maxTagBytes 256,
 * maxParents 1024, maxSteps 10000, maxSections 256, maxDimension 8192.
 */
export interface Limits {
  maxFieldBytes: number;
  maxTurnBytes: number;
  maxNameBytes: number;
  maxTags: number;
  maxTagBytes: number;
  maxParents: number;
  maxSteps: number;
  maxSections: number;
  maxDimension: number;
}

/** Where a reindex is: embedding texts through the host, or rebuilding the vector graph. */
export interface ReindexProgress {
  phase: 'embedding' | 'indexing';
  done: number;
  total: number;
}

/** What a finished reindex did. `dimension` is 0 when no record has a vector. */
export interface Reindexed {
  /** Records that got a new vector (a text without words gets none from the built-in embedder). */
  records: number;
  previousDimension: number;
  dimension: number;
}

/** The text a turn is embedded from, the same in every face: `input`, a newline, `output`. */
export function embeddingText(input: string, output: string): string;

/** What `forgetUser` erased. */
export interface Forgotten {
  /** The deleted records' ids, oldest first. */
  records: string[];
  /** The removed blobs' ids. */
  blobs: string[];
}

/**
 * The memory of one agent or user: turn records linked into a DAG, kept in memory. Persist it
 * by writing `takeChanges()` to any key-value store and reopen it with `Memory.load`.
 *
 * @example
 * const mem = new Memory();
 * const a = mem.addTurn({ thread: 't1', input: 'hi', output: 'hello', createdAt: Date.now() });
 * mem.addTurn({ thread: 't1', input: 'more', parents: [a.id] });
 * const store = new Map();
 * for (const [key, value] of mem.takeChanges()) value ? store.set(key, value) : store.delete(key);
 * const again = Memory.load(store);
 */
export class Memory {
  /** An empty memory. */
  constructor();
  /**
   * Rebuilds a memory from stored entries in any order; `null` values are skipped. Throws
   * `CORRUPT_DATA` or `UNSUPPORTED_VERSION` with `key` naming the first bad entry.
   *
   * `key`, 32 bytes, opens an encrypted store; the memory then seals every value it writes
   * (XChaCha20-Poly1305, bound to its storage key). No entries and a key: a new encrypted
   * memory. A missing, wrong or unexpected key (for a plain store) throws `LOCKED`.
   */
  static load(entries: Iterable<Entry | Change>, key?: Uint8Array | null): Memory;
  /** Whether this memory seals what it stores. */
  readonly encrypted: boolean;
  /**
   * Seals with `key` from now on (`null`: plain) and makes the next `takeChanges` rewrite the
   * whole store with it, then delete the older keys: encrypts, re-keys or decrypts a store.
   */
  setKey(key?: Uint8Array | null): void;
  /** Adds one turn and returns its record. Throws `UNKNOWN_PARENT` (nothing written). */
  addTurn(turn: NewTurn): MemoryRecord;
  /** The record with this id, or `undefined`. With `user`, only a record that user may see
   * (their own, or tagged `shared`); a hidden one is `undefined` like a missing one. */
  get(id: string, user?: string): MemoryRecord | undefined;
  /** The `n` newest records of a thread, newest first. */
  recent(thread: string, n: number): MemoryRecord[];
  /** The `n` newest records of a user across all threads, newest first. */
  byUser(user: string, n: number): MemoryRecord[];
  /**
   * The ancestors of `id`, nearest first, at most `depth` edges away and at most `limit`
   * records (64 edges and 1,000 records when omitted; `Infinity` for no bound). With a
   * `user`, only that user's records and those tagged `shared` are returned or counted, and
   * `id` must be one of them. Throws `NOT_FOUND` for an unknown (or invisible) id.
   */
  ancestors(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  /** The descendants of `id`, nearest first. See `ancestors`. */
  descendants(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  /** Deletes a record and returns it; its children take over its parents, and the blobs only
   * it referenced go with it. Throws `NOT_FOUND`. */
  delete(id: string): MemoryRecord;
  /** Erases every turn of `user`, the blobs only they referenced and their index entries; the
   * next `takeChanges` rewrites the whole store. Throws `INVALID_INPUT` for an empty user. */
  forgetUser(user: string): Forgotten;
  /**
   * Starts moving the memory to another embedding model (dropping an unfinished reindex):
   * then `reindexBatch` for texts and `reindexSupply` for their vectors until the batch is
   * empty, then `reindexFinish`, which swaps every vector in at once.
   */
  reindexBegin(): ReindexProgress;
  /** The embedding texts of the next `n` records (default 64); `[]` once all were handed out. */
  reindexBatch(n?: number): string[];
  /** The vectors of the last batch, one per text, all of one length. Throws `INVALID_INPUT`
   * (the job unchanged) for a wrong count, an empty, non-finite or zero vector, or a length
   * other than earlier batches'. */
  reindexSupply(vectors: ArrayLike<number>[]): ReindexProgress;
  /** Swaps the new vectors in and rebuilds the graph; the next `takeChanges` rewrites the
   * store. Throws `INVALID_INPUT`, changing nothing, when incomplete or when records were
   * added since `reindexBegin`. */
  reindexFinish(): Reindexed;
  /** Re-embeds every record with the built-in embedder, at once. */
  reindexBuiltin(): Reindexed;
  /** The limits new turns are checked against. */
  readonly limits: Limits;
  /** Changes limits for turns added from now on; names left out keep their defaults. */
  setLimits(limits: Partial<Limits>): void;
  /** A test hook: traps while holding the store, as running out of wasm memory would. */
  __trapForTests(): void;
  /** Makes the next `takeChanges` replace the store stored under `keys` (for import). */
  prepareToReplace(keys: string[]): void;
  /** The largest value a change set may hold, in bytes (default 1 MiB). */
  setPartBytes(bytes: number): void;
  /** The generation of the last change set taken, or of the loaded commit. */
  readonly storeGeneration: number;
  /** The keys to read besides `head` to open a store whose `head` value is `head`. */
  static keysToRead(head: Uint8Array, key?: Uint8Array | null): string[];
  /** Takes the changes since the last call, in write order. */
  takeChanges(): Change[];
  /** Marks the keys of a change set that could not be written dirty again. */
  requeue(changes: Iterable<Change>): void;
  /** Every stored key and value: a full export. */
  snapshot(): Entry[];
  /** Searches: BM25, vector or hybrid (default), filters inside. Throws `INVALID_INPUT`. */
  search(query: SearchQuery): SearchHit[];
  /** Regular-expression search over raw logs; offsets are UTF-16 into the field's text. */
  grep(query: GrepQuery): GrepMatch[];
  /** The memory block for a new turn, counting an access per record returned. */
  recall(query: RecallQuery): Recall;
  /** `recall` without counting accesses. */
  recallView(query: RecallQuery): Recall;
  /** How often recall returned record `id` since this memory was created or loaded. */
  accessCount(id: string): number;
  /** The prompt asking an LLM to compact record `id` (updating `previous` when given). */
  compactionPrompt(id: string, previous?: CompactNode | null): string;
  /** Applies an LLM answer as the compact node of `id`; `HOST` if malformed (nothing changes). */
  applyCompaction(id: string, answer: string): MemoryRecord;
  /** Compacts `id` with the deterministic extractive compactor. */
  compactExtractive(id: string): MemoryRecord;
  /** Cuts oversized tool messages, storing full texts as blobs. The input is not modified. */
  compactToolResults(messages: Message[], limits?: ToolResultLimits): { messages: Message[]; blobIds: string[] };
  /** Stores a text blob; returns its content-derived id. */
  putBlob(text: string): string;
  /** A blob's text, or `undefined`. */
  blob(id: string): string | undefined;
  /** Removes a blob; whether there was one. */
  removeBlob(id: string): boolean;
  /** Every blob id, sorted. */
  blobIds(): string[];
  /** Every thread with its record count and newest `createdAt`, newest first. */
  threads(): Group[];
  /** Every user with its record count and newest `createdAt`, newest first. */
  users(): Group[];
  /** The ids of the records naming `id` as a parent. */
  children(id: string): string[];
  /** Whether turns without an embedding get one from the built-in embedder (not persisted). */
  autoEmbed: boolean;
  /** The dimension of the memory's vectors; 0 before the first. */
  readonly dimension: number;
  /**
   * Opens a memory on a storage adapter (default: IndexedDB database `memdag:<name>` where
   * `indexedDB` exists, else an in-memory Map) and loads it.
   *
   * @example
   * const memory = await Memory.open({ name: 'agent', autoFlush: true });
   * const turn = await memory.add({ thread: 't1', input: 'hi', output: 'hello', createdAt: Date.now() });
   */
  static open(options?: OpenOptions): Promise<PersistentMemory>;
  /** The number of records. */
  readonly len: number;
  /** Whether the memory holds no record. */
  readonly isEmpty: boolean;
  /** Frees the WebAssembly memory of this instance; it must not be used afterwards. */
  free(): void;
}

/** Which signals rank search hits. */
export type SearchMode = 'bm25' | 'vector' | 'hybrid';

/** Conditions a hit must meet; applied before the top `k` are taken. */
export interface SearchFilter {
  thread?: string | null;
  user?: string | null;
  /** Only records carrying every one of these tags. */
  tags?: string[];
  /** Created at or after (ms). */
  since?: number | null;
  /** Created before (ms). */
  until?: number | null;
  /** Only these ids. */
  ids?: string[] | null;
}

/** A search query; every field is optional but `text` or `embedding`. */
export interface SearchQuery {
  text?: string;
  embedding?: Float32Array | number[] | null;
  /** Default `hybrid`. */
  mode?: SearchMode;
  /** 1 to 1000, default 10. */
  k?: number;
  filter?: SearchFilter;
  fusion?: 'weighted' | 'rrf';
  /** Weight of the vector signal in weighted fusion, default 0.5. */
  vectorWeight?: number;
  rrfK?: number;
  minScore?: number | null;
  /** Share of its best thread neighbour's score a record borrows, 0 to 1 (default 0.5; 0: off). */
  context?: number;
  /** Share of the best score in its thread a record gains, 0 to 1 (default 0.25; 0: off). */
  threadScope?: number;
  /** Drop English function words from the BM25 query (default true). */
  dropStopwords?: boolean;
  /** Keep one of hits with identical input and output (default true). */
  dedup?: boolean;
  /** BM25F; `keys` weighs the derived keys (user, date forms of `createdAt`), 0 turns them off. */
  bm25?: { k1?: number; b?: number; weights?: { input?: number; output?: number; compact?: number; steps?: number; keys?: number } };
  ef?: number | null;
  snippets?: boolean;
}

/** One search hit. */
export interface SearchHit {
  id: string;
  score: number;
  bm25: number | null;
  vector: number | null;
  /** An excerpt with matched terms marked «like this». */
  snippet: string;
}

/** A regular-expression query over raw logs. */
export interface GrepQuery {
  pattern: string;
  caseInsensitive?: boolean;
  /** Among `input`, `output`, `args`, `results`; empty means all. */
  fields?: Array<'input' | 'output' | 'args' | 'results'>;
  filter?: SearchFilter;
  /** Default 100, at most 10,000. */
  maxMatches?: number;
}

/** One grep match. */
export interface GrepMatch {
  id: string;
  /** `input`, `output`, `steps[i].args` or `steps[i].result`. */
  field: string;
  line: number;
  /** UTF-16 offsets into the field's text. */
  start: number;
  end: number;
  text: string;
}

/** A token encoding. */
export type Encoding = 'cl100k_base' | 'o200k_base';

/** What to recall; every field but `thread` is optional. */
export interface RecallQuery {
  thread: string;
  user?: string;
  keywords?: string[];
  queryText?: string | null;
  embedding?: Float32Array | number[] | null;
  /** Default 2,000; the block never exceeds it. */
  budgetTokens?: number;
  encoding?: Encoding;
  now?: number | null;
  halfLifeMs?: number;
  threadLimit?: number;
  userLimit?: number;
  matchLimit?: number;
  matchUserOnly?: boolean;
  ancestorDepth?: number;
  ancestorLimit?: number;
  itemTokens?: number;
  rawItemTokens?: number;
  weights?: Partial<Record<'recency' | 'importance' | 'access' | 'relevance' | 'thread' | 'user' | 'matched' | 'ancestor', number>>;
}

/** One recalled record. */
export interface RecallItem {
  id: string;
  section: 'thread' | 'user' | 'match' | 'ancestor';
  score: number;
  text: string;
  tokens: number;
  raw: boolean;
}

/** The answer of a recall. */
export interface Recall {
  items: RecallItem[];
  /** The rendered block, ready to inject. */
  block: string;
  /** Tokens of `block`, at most the budget. */
  tokens: number;
  omitted: number;
}

/** A chat message for the context tools. */
export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId?: string;
  toolCalls?: string[];
}

/** Token limits of tool results. */
export interface ToolResultLimits {
  recentTokens?: number;
  oldTokens?: number;
  recentCount?: number;
  encoding?: Encoding;
}

/** A thread or user in a listing. */
export interface Group {
  name: string;
  count: number;
  newest: number;
}

/** The tokens of `text` (an estimate unless built with the `tiktoken` feature). */
export function countTokens(text: string, encoding?: Encoding): number;
/** Whether counts in `encoding` are exact BPE counts. */
export function tokensExact(encoding?: Encoding): boolean;
/** Splits messages into older ones to compact and newer ones to keep. */
export function checkContext(
  messages: Message[],
  options?: { threshold?: number; reserve?: number; encoding?: Encoding },
): {
  totalTokens: number;
  needsCompaction: boolean;
  toCompact: Message[];
  toKeep: Message[];
  compactTokens: number;
  keepTokens: number;
};
/** Cuts one tool output to `limit` tokens with a marker naming the blob of the full text. */
export function compactToolResult(
  text: string,
  limit: number,
  encoding?: Encoding,
): { text: string; truncated: boolean; blobId: string | null; full: string | null; originalTokens: number; tokens: number };

/**
 * A byte-oriented storage adapter. Adapters know nothing about what keys mean. Every failure
 * rejects with an Error whose `code` is `STORAGE` (with `reason`, the backend's error name) or
 * `INVALID_INPUT` for a value that is not bytes.
 */
export interface StorageAdapter {
  /** The bytes under `key`, or `undefined`. */
  load(key: string): Promise<Uint8Array | undefined>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  /** Idempotent. */
  remove(key: string): Promise<void>;
  /** Every entry whose key starts with `prefix` (all for `""`), sorted by key. */
  loadRange(prefix: string): Promise<Entry[]>;
  removeRange(prefix: string): Promise<void>;
  /** Applies a change set in order; all or nothing when `atomic`. */
  saveBatch(changes: Iterable<Change>): Promise<void>;
  close?(): void | Promise<void>;
  readonly atomic?: boolean;
  /** When true, `Memory.open` reads `head` and the keys it names instead of listing. */
  readonly boundedOpen?: boolean;
  /** The largest value it stores; the core keeps its segment parts under it. */
  readonly maxValueBytes?: number;
}

/** The storage adapter on IndexedDB (written in Rust against web-sys). */
export class IndexedDbStorage implements StorageAdapter {
  private constructor();
  /** Opens (creating or upgrading) the database `name`. */
  static open(name: string): Promise<IndexedDbStorage>;
  /** Deletes the database `name`. */
  static deleteDatabase(name: string): Promise<void>;
  /** The schema version this build writes. */
  static readonly schemaVersion: number;
  readonly atomic: boolean;
  load(key: string): Promise<Uint8Array | undefined>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  loadRange(prefix: string): Promise<Entry[]>;
  removeRange(prefix: string): Promise<void>;
  saveBatch(changes: Iterable<Change>): Promise<void>;
  close(): void;
  free(): void;
}

/** A storage adapter on a Map (shared through `map`). */
export class MemoryStorage implements StorageAdapter {
  constructor(map?: Map<string, Uint8Array>);
  readonly map: Map<string, Uint8Array>;
  readonly atomic: true;
  load(key: string): Promise<Uint8Array | undefined>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  loadRange(prefix: string): Promise<Entry[]>;
  removeRange(prefix: string): Promise<void>;
  saveBatch(changes: Iterable<Change>): Promise<void>;
  close(): void;
}

/** An async key-value object, such as Workers KV shaped by `workersKv`. */
export interface KeyValueObject {
  get(key: string): Promise<Uint8Array | ArrayBuffer | null | undefined>;
  put(key: string, bytes: Uint8Array): Promise<unknown>;
  delete(key: string): Promise<unknown>;
  list(prefix: string): Promise<Iterable<string | { name: string }>> | AsyncIterable<string | { name: string }>;
}

/** A storage adapter over any async key-value object; `saveBatch` is not atomic. */
export class KeyValueStorage implements StorageAdapter {
  constructor(kv: KeyValueObject, options?: { prefix?: string });
  readonly atomic: false;
  readonly boundedOpen: true;
  load(key: string): Promise<Uint8Array | undefined>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  loadRange(prefix: string): Promise<Entry[]>;
  removeRange(prefix: string): Promise<void>;
  saveBatch(changes: Iterable<Change>): Promise<void>;
  close(): void;
}

/** Shapes a Cloudflare Workers KV namespace as a `KeyValueObject`. */
export function workersKv(namespace: {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  put(key: string, value: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix?: string; cursor?: string }): Promise<{ keys: { name: string }[]; list_complete: boolean; cursor?: string }>;
}): KeyValueObject;

/** Options of `Memory.open`. */
export interface OpenOptions {
  /** Names the store (the IndexedDB database `memdag:<name>`, the lock and the channel). */
  name?: string;
  storage?: StorageAdapter;
  /** The host's embedder; absent: the built-in lexical embedder. Calls are batched. */
  embed?: (texts: string[]) => Promise<Array<Float32Array | number[]>>;
  /** The host's LLM; absent: the extractive compactor. */
  complete?: (prompt: string) => Promise<string>;
  /** Flush after each turn (default false). */
  autoFlush?: boolean;
  /** Refresh when another tab flushes (BroadcastChannel hint; default true). */
  sync?: boolean;
  /** Limits for this memory (see `Limits`); names left out keep their defaults. */
  limits?: Partial<Limits>;
  /**
   * Encrypts the store at rest: 32 raw bytes, or a WebCrypto `CryptoKey` of 256 bits that is
   * extractable (it is read once with `crypto.subtle.exportKey('raw', key)`, because the
   * sealing runs inside wasm, synchronously), e.g. from
   * `crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt'])`.
   * Every stored value is sealed; opening with a missing or wrong key rejects with `LOCKED`.
   * Keep the key outside the store. The flush counter `sync/generation` stays plain.
   */
  key?: Uint8Array | CryptoKey;
}

/** What a flush did. */
export interface FlushResult {
  /** Keys written (0: nothing to do). */
  written: number;
  /** The stored flush counter after it. */
  generation: number;
  /** Unflushed operations that no longer applied after reloading another tab's writes. */
  conflicts: Array<{ op: string; args: unknown[]; error: MemdagError }>;
}

/**
 * A memory bound to storage and host callbacks (from `Memory.open`). Reads are synchronous;
 * `flush` writes the change set in one transaction under a Web Lock, reloading first when
 * another tab wrote. Events: `change` (reloaded), `error` (a failed automatic flush).
 */
export class PersistentMemory extends EventTarget {
  private constructor();
  readonly name: string;
  readonly storage: StorageAdapter;
  readonly generation: number;
  /** Operations not yet flushed. */
  readonly pending: number;
  readonly len: number;
  readonly isEmpty: boolean;
  readonly dimension: number;
  /** Whether the store is encrypted at rest (opened with `key`). */
  readonly encrypted: boolean;
  addTurn(turn: NewTurn): MemoryRecord;
  /** Embeds with the host (when given), adds, and resolves once the turn is durable. Rejects
   * with `STORAGE` if the flush fails, or with the replay's code and `reason: 'rebase'` if a
   * rebase onto another writer's flush drops the turn. */
  add(turn: NewTurn): Promise<MemoryRecord>;
  /** Adds turns with one `embed` call; resolves once all are durable (one flush). */
  addMany(turns: Iterable<NewTurn>): Promise<MemoryRecord[]>;
  get(id: string, user?: string): MemoryRecord | undefined;
  recent(thread: string, n: number): MemoryRecord[];
  byUser(user: string, n: number): MemoryRecord[];
  ancestors(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  descendants(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  children(id: string): string[];
  readonly limits: Limits;
  /** Changes limits for turns added from now on (kept across reloads, not stored). */
  setLimits(limits: Partial<Limits>): void;
  /** Erases a user (see `Memory.forgetUser`); resolves once the rewrite is durable. */
  forgetUser(user: string): Promise<Forgotten>;
  /**
   * Embeds every turn again to move to another model and dimension: with the host's `embed`
   * in calls of `batchSize` texts (default 64), else the built-in embedder. All or nothing;
   * resolves once the rewritten store is durable.
   */
  reindex(options?: { batchSize?: number; onProgress?: (progress: ReindexProgress) => void }): Promise<Reindexed>;
  /** Reloads from storage and replays the unflushed journal: how a memory closed by a
   * WebAssembly trap comes back (started on its own after a trap; event `reopen`). */
  reopen(): Promise<{ conflicts: Array<{ op: string; args: unknown[]; error: MemdagError }> }>;
  __trapForTests(): void;
  threads(): Group[];
  users(): Group[];
  /** Deletes a record; resolves with it once the deletion is durable (rejects like `add`). */
  delete(id: string): Promise<MemoryRecord>;
  search(query: SearchQuery): SearchHit[];
  /** `search` with the query embedded by the host's `embed`. */
  searchAsync(query: SearchQuery): Promise<SearchHit[]>;
  grep(query: GrepQuery): GrepMatch[];
  recall(query: RecallQuery): Recall;
  recallView(query: RecallQuery): Recall;
  /** `recall` with the query embedded by the host's `embed`. */
  recallAsync(query: RecallQuery): Promise<Recall>;
  accessCount(id: string): number;
  compactionPrompt(id: string, previous?: CompactNode | null): string;
  applyCompaction(id: string, answer: string): MemoryRecord;
  compactExtractive(id: string): MemoryRecord;
  /** Compacts with the host's `complete`, or extractively without one; resolves once the
   * compact node is durable (rejects like `add`). */
  compact(id: string, options?: { previous?: CompactNode | null }): Promise<MemoryRecord>;
  compactMany(ids: Iterable<string>, options?: { concurrency?: number }): Promise<MemoryRecord[]>;
  compactToolResults(messages: Message[], limits?: ToolResultLimits): { messages: Message[]; blobIds: string[] };
  putBlob(text: string): string;
  blob(id: string): string | undefined;
  removeBlob(id: string): boolean;
  blobIds(): string[];
  snapshot(): Entry[];
  flush(): Promise<FlushResult>;
  /** Reloads when another writer flushed, keeping unflushed work. */
  refresh(): Promise<{ reloaded: boolean; conflicts: FlushResult['conflicts'] }>;
  /** The whole memory as an export file. */
  exportBytes(): Uint8Array;
  /** Replaces memory and storage with an export file. */
  importBytes(bytes: Uint8Array | ArrayBuffer): Promise<{ records: number }>;
  /** Flushes, then releases storage and wasm memory. */
  close(): Promise<void>;
  /** Releases the wasm memory without flushing (for a memory opened only to read). */
  free(): void;
}

/** The storage key of the flush counter. */
export const GENERATION_KEY: string;
/** Encodes entries as an export file. */
export function encodeExport(entries: Entry[]): Uint8Array;
/** Decodes an export file; `INVALID_INPUT` if it is not one. */
export function decodeExport(bytes: Uint8Array | ArrayBuffer): Entry[];
