// Type declarations of the memdag package (pkg/index.js). Property names are camelCase;
// the Rust core's snake_case `created_at` is also accepted on input.
//
// Times are milliseconds since the Unix epoch. The core never reads a clock: wherever a time
// is left out (`createdAt`, `at`, `now`), the JS face takes `Date.now()`. Pass it to pin it
// (a replayed dataset, a test).

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

/** A step of a new turn: only `tool` is required. */
export interface NewStep {
  tool: string;
  /** Text, or any JSON value (kept as its JSON text). */
  args?: unknown;
  result?: string;
  /** Default `true`: a step that says nothing about failing succeeded. */
  ok?: boolean;
}

/**
 * A turn to add: the one JSON turn shape of every memdag face. Every field but `thread` is
 * optional; `undefined` and `null` read as absent. Unknown properties (in steps too) are
 * refused with `INVALID_INPUT`, so a typo cannot silently drop a field.
 */
export interface NewTurn {
  /** A caller-chosen id (1 to 256 bytes); when absent the store derives one. */
  id?: string | null;
  /** The conversation thread; must not be empty. */
  thread: string;
  user?: string | null;
  /** Milliseconds since the Unix epoch or an ISO 8601 text; default `Date.now()`. */
  createdAt?: number | string | null;
  /** The snake_case spelling of `createdAt`. */
  created_at?: number | string | null;
  input?: string | null;
  /** An alias of `input` (dialogue datasets write it so). */
  text?: string | null;
  output?: string | null;
  steps?: NewStep[] | null;
  /** Ids of earlier records this turn used. Each must exist, or `UNKNOWN_PARENT` is thrown. */
  parents?: string[] | null;
  tags?: string[] | null;
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

/** How `addTurn` treats a turn (the core's `AddOptions`). */
export interface AddOptions {
  /**
   * Add the turn without the parents no record has (a model may cite an id that does not
   * exist) instead of refusing it with `UNKNOWN_PARENT`; they are reported in `dropped`.
   */
  dropUnknownParents?: boolean;
}

/** The record `addTurn` returns when given options: the record, plus the parents left out. */
export interface AddedRecord extends MemoryRecord {
  /** The parents dropped because no record has their id (`[]` when none were). */
  dropped: string[];
}

/** What an import added (`importJsonl`, `importMarkdown`). */
export interface Imported {
  turns: number;
  items: number;
  /** Working memories imported (one per user and thread). */
  work: number;
  /** Ids the memory already had, left as they were. */
  skipped: string[];
  /** Of `skipped`, the ids whose stored record says something else (another thread, user,
   * input, output or tool steps): what the import brought for them was not added. */
  conflicts: string[];
}

/** One Markdown file of an export: its path in the export folder and its text. */
export type MarkdownFile = [path: string, text: string];

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
  /** The threads whose working memory was the user's and was removed. */
  work: string[];
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
/**
 * Stored entries copied into wasm memory one at a time, for `Memory.loadStored`: a host that
 * reads its values one by one hands each over as it arrives and can drop its own copy, so an
 * open does not hold every value twice (in JS and in wasm). `Memory.open` reads this way.
 */
export class StoredEntries {
  constructor();
  /** Copies one entry in; `null` or `undefined` (a deleted key) is skipped. Any order. Throws
   * `INVALID_INPUT` for a key that is not a string or a value that is not bytes. */
  put(key: string, value: Uint8Array | ArrayBuffer | null | undefined): void;
  /** Entries put, deletions not counted. */
  readonly len: number;
  readonly isEmpty: boolean;
  /** Bytes of the keys and values put, held in wasm memory until an open takes them. */
  readonly bytes: number;
  /** Frees the entries without opening them. */
  free(): void;
}

export class Memory {
  /** An empty memory. */
  constructor();
  /**
   * Rebuilds a memory from stored entries in any order; `null` values are skipped. Throws
   * `CORRUPT_DATA` or `UNSUPPORTED_VERSION` with `key` naming the first bad entry.
   *
   * `key`, 32 bytes, opens an encrypted store; the memory then seals every value it writes
   * (XChaCha20-Poly1305, bound to its storage key: seal v1). No entries and a key: a new
   * encrypted memory. A missing, wrong or unexpected key (for a plain store) throws `LOCKED`.
   *
   * `opened` is for a host that seals itself (AES-256-GCM, seal v2; see `hostKey`): the keys
   * whose values it opened, given plain. Every other value must be sealed and opens with
   * `key` (a plain value the host did not name is refused), and the memory's `takeChanges`
   * returns plain values for the host to seal (`hostSeals`).
   */
  static load(entries: Iterable<Entry | Change>, key?: Uint8Array | null, opened?: string[] | null): Memory;
  /**
   * What a host needs to seal and open seal v2 itself: the AES-256-GCM subkey of the master
   * `key` (32 bytes) and the 13 header bytes every v2 value starts with. A v2 value is
   * `header ‖ nonce (12 random bytes) ‖ AES-GCM(key, nonce, additionalData = header ‖ storage
   * key in UTF-8, value)`. `Memory.open` does this through WebCrypto by itself.
   */
  static hostKey(key: Uint8Array): { key: Uint8Array; header: Uint8Array };
  /**
   * What is damaged in stored entries (as `load` takes them), what each damaged value or
   * block held, and what `salvage` would hold and lose. Throws `LOCKED` (a sealed store
   * without its key) or `UNSUPPORTED_VERSION` only when nothing can be read at all.
   */
  static verify(entries: Iterable<Entry | Change>, key?: Uint8Array | null, opened?: string[] | null): Verified;
  /**
   * A memory of everything intact in entries that `load` refuses as damaged (`CORRUPT_DATA`),
   * and what was lost by id. Its next `takeChanges` rewrites the store whole, then deletes
   * the old keys, damaged ones included. Throws as `verify`; `opened` as in `load`.
   */
  static salvage(entries: Iterable<Entry | Change>, key?: Uint8Array | null, opened?: string[] | null): { memory: Memory; damage: Damage };
  /**
   * `load` from entries already copied into wasm memory (see `StoredEntries`), which it
   * takes: `entries` is empty afterwards, whether the open succeeds or throws.
   */
  static loadStored(entries: StoredEntries, key?: Uint8Array | null, opened?: string[] | null): Memory;
  /** `salvage` from a `StoredEntries`, which it takes as `loadStored` does. */
  static salvageStored(entries: StoredEntries, key?: Uint8Array | null, opened?: string[] | null): { memory: Memory; damage: Damage };
  /** Whether this memory's stored values are sealed. */
  readonly encrypted: boolean;
  /** Whether its host seals what this memory stores (loaded with `opened`): `takeChanges`
   * returns plain values then. `setKey` hands the sealing back to the core. */
  readonly hostSeals: boolean;
  /**
   * Seals with `key` from now on (`null`: plain) and makes the next `takeChanges` rewrite the
   * whole store with it, then delete the older keys: encrypts, re-keys or decrypts a store.
   */
  setKey(key?: Uint8Array | null): void;
  /** Adds one turn and returns its record. Throws `UNKNOWN_PARENT` (nothing written). */
  addTurn(turn: NewTurn): MemoryRecord;
  /**
   * Adds one turn with options and returns its record with `dropped`. With
   * `{ dropUnknownParents: true }` parents no record has are left out and listed there.
   *
   * @example
   * const parents = mem.cited(reply, user); // the [id]s the model cited
   * const { dropped } = mem.addTurn({ thread, user, input, output: reply, parents }, { dropUnknownParents: true });
   */
  addTurn(turn: NewTurn, options: AddOptions): AddedRecord;
  /**
   * The ids a reply cites as `[id]` that name a record `user` may see (every record when
   * omitted), in order of first citation, once each: the parents of the agent's next turn.
   */
  cited(replyText: string, user?: string): string[];
  /** Every stored entry in one snapshot file (`MDAGEXP1`), unflushed changes included. */
  exportSnapshot(): Uint8Array;
  /** The memory as JSONL, the ingest format: turns (with vectors), then items, then working
   * memories. */
  exportJsonl(): string;
  /**
   * Adds what JSONL text holds and the memory does not (ids already there are `skipped`);
   * `now` (default `Date.now()`) dates turns without a time. Every line is checked before
   * anything is added: a bad one is `INVALID_INPUT` naming its line, an unknown parent
   * `UNKNOWN_PARENT`.
   */
  importJsonl(text: string, now?: number): Imported;
  /** The memory as Markdown files a person can read and edit, in path order: `README.md`,
   * `threads/*.md`, `memory/*.md`, `blobs/*.md`, `settings.md`. */
  exportMarkdown(): MarkdownFile[];
  /** Adds what Markdown export files (any iterable of `[path, text]`, e.g. a `Map`) hold and
   * the memory does not. Other files are skipped; a malformed one is `INVALID_INPUT` naming the
   * file and line, and nothing is added. Export, import, export gives the same files. */
  importMarkdown(files: Iterable<MarkdownFile>): Imported;
  /** The record with this id, or `undefined`. With `user`, only a record that user may see
   * (their own, or tagged `shared`); a hidden one is `undefined` like a missing one. Without
   * one, any record: a store-wide read. An empty or blank `user` (here and in every call
   * and query that takes one) throws `INVALID_INPUT`: it never means every user. */
  get(id: string, user?: string): MemoryRecord | undefined;
  /** The `n` newest records of a thread, newest first; with `user`, only those that user may
   * see. */
  recent(thread: string, n: number, user?: string): MemoryRecord[];
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
  /** The keys a host reading key by key also reads: when any exists, `head` is older than a
   * stored segment, and the host must list its keys and load them all instead. */
  static keysAhead(head: Uint8Array, key?: Uint8Array | null): string[];
  /** What the `load` that made this memory recovered from (`COMMIT_RECOVERED`: `head` was
   * missing, unreadable or older than a whole segment; the newest commit a segment carries
   * was opened, and the next `takeChanges` writes `head` again). */
  readonly loadWarnings: LoadWarning[];
  /** Takes the changes since the last call, in write order. */
  takeChanges(): Change[];
  /** Marks the keys of a change set that could not be written dirty again. */
  requeue(changes: Iterable<Change>): void;
  /** Every stored key and value: a full export. */
  snapshot(): Entry[];
  /** Whether there are changes `takeChanges` has not taken yet. */
  readonly hasChanges: boolean;
  /**
   * Searches: BM25, vector or hybrid (default), filters inside. `now` defaults to
   * `Date.now()`: a time expression in the text ("last week", "上周") filters by the range it
   * names (`time: 'off'` reads it as words), and expired items leave. Throws `INVALID_INPUT`.
   */
  search(query: SearchQuery): SearchHit[];
  /** `search`, with the time range understood in the text. */
  searchFull(query: SearchQuery): SearchResults;
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
  /** Adds a long-term memory item through dedup and conflicts. Throws `INVALID_INPUT` (no
   * kind, an empty text, a limit) or `UNKNOWN_PARENT` (an unknown source). */
  addItem(item: NewItem): Learned;
  /** The item (whatever its status), or `undefined`; with `user`, only if they may see it. */
  getItem(id: string, user?: string): MemoryItem | undefined;
  /** Makes a new version of an item. Throws `NOT_FOUND`. */
  updateItem(id: string, update: ItemUpdate): MemoryItem;
  /** Deletes an item softly at `at` (default now): kept with its history, out of search and
   * recall. Throws `NOT_FOUND`. `delete(id)` removes it for good. */
  deleteItem(id: string, at?: number): MemoryItem;
  /** Every version of an item, oldest first, those of the items it superseded included; with
   * `user`, only an item that user may see (else `NOT_FOUND`). */
  itemHistory(id: string, user?: string): HistoryEntry[];
  /** The items a query selects; active ones, newest first, by default. */
  listItems(query?: ItemQuery): MemoryItem[];
  /** The logged resolutions a query selects, newest first. */
  resolutions(query?: ResolutionQuery): LoggedResolution[];
  /** The long-term memory settings (the defaults until set). */
  readonly memoryConfig: MemoryConfig;
  /** Sets the long-term memory settings (stored); names left out take their defaults. */
  setMemoryConfig(config: Partial<MemoryConfig>): void;
  /** Learns items from turns by the rules (English and Chinese). */
  extract(query: ExtractQuery): ExtractReport;
  /** What the rules would propose, writing nothing. */
  proposeItems(query: ExtractQuery): Proposal[];
  /** The batches of an LLM pass: one thread's turns each, capped by estimated tokens. */
  llmBatches(query: ExtractQuery): LlmBatch[];
  /** The prompt of a batch: instructions, the answer's JSON Schema, known items, turns. */
  llmPrompt(batch: LlmBatch): string;
  /** Learns a model's answer to the prompt of batch `index` (`{ error }`: the call failed, so
   * the rules learn the batch), fact by fact: a bad fact is refused alone with its code. */
  learnLlm(index: number, batch: LlmBatch, prompt: string, answer: string | { error: string }): ExtractReport;
  /** The active items a judge should compare a new item with. */
  itemCandidates(item: NewItem): MemoryItem[];
  /** Learns proposals, `judged[i]` judging the candidates of `proposals[i]`. */
  learn(proposals: NewItem[], judged?: Judged[][]): ExtractReport;
  /** `user`'s working memory of `thread` (omitted: no user's); empty fields if none. */
  workingMemory(thread: string, user?: string): WorkingMemory;
  /** Changes one field of a thread's working memory. */
  updateWork(update: WorkUpdate): WorkChange;
  /** Forgets `user`'s working memory of a thread (omitted: no user's); whether there was one. */
  clearWork(thread: string, user?: string): boolean;
  /** The threads that have working memory. */
  workThreads(): string[];
  /** Turns and items by local day. */
  timeline(query?: TimelineQuery): TimelineDay[];
  /** The entities within `depth` (at most 6) edges of `entity`, and the edges among them. */
  neighbors(entity: string, depth: number, query?: GraphQuery): Subgraph;
  /** The shortest paths from `a` to `b` of at most `maxDepth` (at most 6) edges. */
  path(a: string, b: string, maxDepth: number, query?: GraphQuery): Edge[][];
  /** The nodes and edges of `entities` (`[]`: the whole graph under the query). */
  subgraph(entities: string[], query?: GraphQuery): Subgraph;
  /** Removes expired items (and what the query adds) for good; the next `takeChanges`
   * rewrites the whole store, so no stored key keeps them. */
  purge(query?: PurgeQuery): Purged;
  /** The tool definitions for a model API. */
  toolSchemas(format: 'openai'): OpenAiTool[];
  toolSchemas(format: 'anthropic'): AnthropicTool[];
  toolSchemas(format: 'mcp'): McpTool[];
  toolSchemas(format: ToolFormat): Array<OpenAiTool | AnthropicTool | McpTool>;
  /** Runs a tool with the model's arguments (JSON text or an object) under the host's
   * context; answers a plain object. Throws `INVALID_INPUT` for a malformed call. */
  callTool(name: string, args: string | Record<string, unknown> | null | undefined, context?: ToolContext): Record<string, unknown>;
  /** Every thread with its record count and newest `createdAt`, newest first. */
  threads(): Group[];
  /** Every user with its record count and newest `createdAt`, newest first. */
  users(): Group[];
  /** The ids of the records naming `id` as a parent. */
  children(id: string): string[];
  /**
   * One call before a turn, by the rules (no LLM): cuts oversized tool results into blobs,
   * splits the messages without parting a tool call from its result, folds the older ones
   * into the thread's running summary, and recalls. Throws `INVALID_INPUT` (no thread or
   * window, budgets leaving no room, a malformed message); nothing changes then.
   *
   * @example
   * const p = memory.prepare(messages, { thread: 't1', user: 'ada', window: 8000 });
   * send([{ role: 'system', content: `${p.summary ?? ''}\n\n${p.recall}` }, ...p.messages]);
   */
  prepare(messages: Message[], options: PrepareOptions): Prepared;
  /** The first half of `prepare`, for a host that brings its own LLM: when `stage.prompt` is
   * not `null`, ask the model and pass its text to `prepareEnd`. */
  prepareBegin(messages: Message[], options: PrepareOptions): PrepareStage;
  /** The second half of `prepare`: `answer` is the model's text for `stage.prompt`,
   * `{ error }` when the call failed, or `null` for the rules. An answer that fails or does
   * not parse is reported in `llmError`, and the rules write the summary. */
  prepareEnd(stage: PrepareStage, answer?: string | { error: string } | null): Prepared;
  /** One call after a turn: adds it with the `[id]`s its output cites as parents, drops
   * parents no record has, learns by the rules. Throws as `addTurn` (nothing is added). */
  finish(turn: NewTurn, options?: FinishOptions): Finished;
  /** Lines of a blob (a cut tool result's full text) from the line its marker names. Throws
   * `NOT_FOUND` for a missing blob, or with `user`, one neither stored for them nor referenced
   * by a record they may see. */
  readBlob(id: string, options?: ReadBlobOptions): BlobPage;
  /** Removes the stored tool outputs past the memory setting `blobMaxAgeMs` at `now` (default
   * `Date.now()`) that no record references; returns their ids. */
  retainBlobs(now?: number): string[];
  /** The running summary `prepare` keeps for `thread` and `user`, or `undefined`. */
  runningSummary(thread: string, user?: string | null): RunningSummary | undefined;
  /** Forgets the running summary of `thread` for `user`; returns whether there was one. */
  clearRunningSummary(thread: string, user?: string | null): boolean;
  /** Whether turns without an embedding get one from the built-in embedder (not persisted). */
  autoEmbed: boolean;
  /** The dimension of the memory's vectors; 0 before the first. */
  readonly dimension: number;
  /** How the memory keeps its vectors (stored with it; the defaults until set). */
  readonly vectorSettings: VectorSettings;
  /** Sets how the memory keeps its vectors (stored); names left out take their defaults.
   * Throws `INVALID_INPUT` for an unknown name or precision, or `train` 0. */
  setVectorSettings(settings: Partial<VectorSettings>): void;
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

/** What a long-term memory item is about. */
export type ItemKind = 'personal' | 'procedural' | 'tool' | 'fact';
/** Where an item is in its life. */
export type ItemStatus = 'active' | 'superseded' | 'deleted' | 'expired';

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
  /** Turns, long-term memory items, or both (default). */
  scope?: 'all' | 'turns' | 'items';
  /** Only items of these kinds (so no turns). */
  kinds?: ItemKind[];
  /** Items of these statuses; empty: active items only. */
  statuses?: ItemStatus[];
  /** Items past their time to live at this time leave; default: the query's `now`. */
  now?: number | null;
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
  /** The `k` of reciprocal-rank fusion (`fusion: 'rrf'`): a hit scores `Σ 1 / (rrfK + rank)`
   * over the text and vector rankings (default 60). */
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
  /** The clock relative dates in `text` resolve against; default `Date.now()`. */
  now?: number | null;
  /** Minutes east of UTC for the days of time expressions (default 0). */
  offsetMinutes?: number;
  /** What a time expression in `text` does: keep to its range (default), rank it higher, or
   * nothing. */
  time?: 'filter' | 'boost' | 'off';
  /** Importance in the ranking, 0 to 1 (default 0: off): a hit's score is multiplied by
   * `1 + w·(2·importance − 1)`. */
  importanceWeight?: number;
  /** Recency in the ranking, 0 to 1 (default 0: off): a hit's score is multiplied by
   * `1 − w·(1 − 2^(−age / halfLifeMs))`, its age counted from `now`. */
  recencyWeight?: number;
  /** The half-life of `recencyWeight`, in ms (default 30 days). */
  halfLifeMs?: number;
}

/** One search hit. */
export interface SearchHit {
  id: string;
  score: number;
  bm25: number | null;
  vector: number | null;
  /** An excerpt with matched terms marked «like this». */
  snippet: string;
  /** The kind of a long-term memory item; `null` for a turn. */
  kind: ItemKind | null;
}

/** A time expression found in a query and the range it names. */
export interface TimeExpr {
  /** Start of the range, inclusive (ms). */
  since: number;
  /** End of the range, exclusive (ms). */
  until: number;
  /** The expression as it appears in the text: `text.slice(start, end)`. */
  matched: string;
  /** UTF-16 offsets into the query text. */
  start: number;
  end: number;
  grain: 'day' | 'week' | 'month' | 'year' | 'span';
}

/** The answer of `searchFull`. */
export interface SearchResults {
  hits: SearchHit[];
  /** The range a time expression in the text named, or `null`. */
  time: TimeExpr | null;
}

/** A regular-expression query over raw logs. */
export interface GrepQuery {
  /** `regex` crate syntax, run in linear time: no lookaround or backreferences. This package
   * leaves out Unicode property classes (`\p{Han}`: `INVALID_INPUT`); use a range such as
   * `[\x{4e00}-\x{9fff}]`. `\w`, `\d`, `\b` and `(?i)` are Unicode-aware. */
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
  /** The current user: only their records and shared ones, and their working memory of the
   * thread. Omitted: a store-wide recall (and no user's working memory). An empty or blank
   * user throws `INVALID_INPUT`: it never means every user. */
  user?: string;
  keywords?: string[];
  queryText?: string | null;
  embedding?: Float32Array | number[] | null;
  /** Default 2,000; the block never exceeds it. */
  budgetTokens?: number;
  encoding?: Encoding;
  /** For recency, expiry and relative dates in the query; default `Date.now()`. */
  now?: number | null;
  halfLifeMs?: number;
  threadLimit?: number;
  userLimit?: number;
  matchLimit?: number;
  matchUserOnly?: boolean;
  /** Only records created at or after this time (ms) ... */
  since?: number | null;
  /** ... and before this one. */
  until?: number | null;
  /** Long-term memory items considered for the known section (default 8). */
  knownLimit?: number;
  /** Token cap of the working memory at the top of the block (default 300; 0 leaves it out). */
  workTokens?: number;
  ancestorDepth?: number;
  ancestorLimit?: number;
  itemTokens?: number;
  rawItemTokens?: number;
  weights?: Partial<Record<'recency' | 'importance' | 'access' | 'relevance' | 'known' | 'thread' | 'user' | 'matched' | 'ancestor', number>>;
}

/** One recalled record: a turn, or a long-term memory item (section `known`). */
export interface RecallItem {
  id: string;
  section: 'known' | 'thread' | 'user' | 'match' | 'ancestor';
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
  /** The thread's working memory as the block shows it first, or `null`. */
  working: string | null;
}

/** The text recall matches (its keywords, then its query text): what a host embeds. */
export function recallMatchText(query: RecallQuery): string;

// ---------------------------------------------------------------------------------------------
// Long-term memory items (the core's crate::item and crate::memory; camelCase serde shapes).

/** A long-term memory item to add. Everything but `kind` and `text` has a default. */
export interface NewItem {
  /** A caller-chosen id; when absent the store derives one (`m` + 16 hex digits). */
  id?: string | null;
  kind: ItemKind | null;
  user?: string;
  text: string;
  subject?: string | null;
  relation?: string | null;
  object?: string | null;
  /** The kind of task a procedural item is about. */
  task?: string | null;
  /** The tool a tool item is about. */
  tool?: string | null;
  /** 0 to 1 (default 0.5). */
  importance?: number | null;
  /** How likely it is true and lasting, 0 to 1 (default 1: the caller states it). */
  confidence?: number | null;
  /** When it was said (ms); default `Date.now()`. */
  createdAt?: number;
  /** The turns it was learned from; each must exist. */
  sources?: string[];
  tags?: string[];
  /** A vector in the store's dimension; else the built-in embedder's, if on. */
  embedding?: Float32Array | number[] | null;
  /** Time to live in ms from `createdAt`; overrides the kind's default. */
  ttlMs?: number | null;
  /** `ttlMs` as a duration text (`"30d"`, `"12h"`, see `parseDuration`) or ms; not both. */
  ttl?: string | number | null;
}

/** A proposed item, as the extractor or the LLM suggests it: a `NewItem` with its source turn. */
export interface Proposal extends NewItem {
  createdAt: number;
  sources: string[];
}

/** One earlier version of an item. */
export interface ItemVersion {
  version: number;
  text: string;
  importance: number;
  subject?: string;
  relation?: string;
  object?: string;
  validFrom: number;
  validUntil: number;
}

/** What a resolution did to an item. */
export type Action = 'added' | 'corroborated' | 'updated' | 'superseded' | 'flagged' | 'merged' | 'deleted' | 'expired';

/** One logged step in an item's life. */
export interface Resolution {
  at: number;
  action: Action;
  /** The other item involved. */
  other?: string;
  /** The turn that caused it. */
  source?: string;
  /** `rule`, `llm` or `caller`. */
  by: string;
  reason: string;
}

/** A long-term memory item, as every face shows it. */
export interface MemoryItem {
  id: string;
  user: string;
  text: string;
  importance: number;
  createdAt: number;
  /** The turns it was learned from (its DAG parents). */
  sources: string[];
  tags: string[];
  /** How often recall returned it. */
  uses: number;
  kind: ItemKind;
  subject?: string;
  relation?: string;
  object?: string;
  task?: string;
  tool?: string;
  status: ItemStatus;
  /** 1 for a new item, one more per update. */
  version: number;
  updatedAt: number;
  validFrom: number;
  validUntil?: number;
  /** How many later items said the same thing. */
  corroborations: number;
  /** How likely it is true and lasting, 0 to 1: 1 for a caller's item, the rules' or the
   * LLM's for a learned one, raised by each corroboration (`1 − (1 − c)(1 − c_new)`). */
  confidence: number;
  lastSeen: number;
  expiresAt?: number;
  /** The item that replaced this one. */
  supersededBy?: string;
  /** The items this one replaced. */
  supersedes?: string[];
  /** Active items it contradicts, kept side by side (conflict strategy `keep`). */
  conflicts?: string[];
  /** Earlier versions, oldest first. */
  history?: ItemVersion[];
  /** Every resolution that touched it, oldest first. */
  log?: Resolution[];
}

/** What adding an item did. */
export interface Learned {
  outcome: 'added' | 'corroborated' | 'superseded' | 'flagged' | 'merged' | 'updated';
  /** The item that now holds the knowledge: the new one, or the existing one it went into. */
  item: MemoryItem;
  /** The existing items involved. */
  others: string[];
  reason: string;
}

/** A caller's change to an item: the fields given replace the current version's. */
export interface ItemUpdate {
  text?: string | null;
  subject?: string | null;
  relation?: string | null;
  object?: string | null;
  task?: string | null;
  tool?: string | null;
  importance?: number | null;
  tags?: string[] | null;
  embedding?: Float32Array | number[] | null;
  /** Time to live in ms from `at`; `0` removes the expiry. */
  ttlMs?: number | null;
  /** `ttlMs` as a duration text or ms; not both. */
  ttl?: string | number | null;
  /** When the change happens; default `Date.now()`. */
  at?: number;
}

/** One version in an item's history. */
export interface HistoryEntry {
  /** The item the version belongs to (this one, or one it superseded). */
  id: string;
  version: number;
  text: string;
  subject?: string;
  relation?: string;
  object?: string;
  importance: number;
  validFrom: number;
  validUntil: number | null;
  status: ItemStatus;
}

/** Which items `listItems` returns. Every field is optional. */
export interface ItemQuery {
  /** Only what this user may see: their own items and those tagged `shared`. */
  user?: string | null;
  kinds?: ItemKind[];
  task?: string | null;
  tool?: string | null;
  /** Only these statuses; empty: active only (unless `all`). */
  statuses?: ItemStatus[];
  all?: boolean;
  since?: number | null;
  until?: number | null;
  /** The items as they were valid at this time, each in the version valid then. */
  asOf?: number | null;
  /** Items past their time to live by then count as expired; default `Date.now()`. */
  now?: number | null;
  order?: 'created' | 'updated' | 'importance' | 'uses';
  ascending?: boolean;
  /** 1 to 10,000 (default 100). */
  limit?: number;
  offset?: number;
}

/** Which resolutions `resolutions` returns, newest first. */
export interface ResolutionQuery {
  user?: string | null;
  item?: string | null;
  actions?: Action[];
  since?: number | null;
  until?: number | null;
  /** Default 100. */
  limit?: number | null;
}

/** A resolution with the item it is logged on. */
export interface LoggedResolution extends Resolution {
  item: string;
}

/**
 * How a memory keeps its vectors, stored with it.
 * - `int8` (default): int8 codes with a step per dimension, a quarter of the bytes (384-d: 392 B
 *   a vector instead of 1,540); scores and `embedding` are what the codes stand for, each
 *   component within half a step of the given one; recall@10 0.98-0.99 on the benchmark's 384-d
 *   corpus, the same hybrid recall on LoCoMo.
 * - `f32`: as given; exact. A memory stored before int8 became the default stays `f32`.
 * - `int8+f32`: the codes for the graph walk and `f32` kept to re-score the best exactly.
 * At an int8 precision the vectors stay `f32` until `train` of them are in (default 1024): the
 * steps are trained on those, and never change after.
 */
export interface VectorSettings {
  precision: 'f32' | 'int8' | 'int8+f32';
  train: number;
}

/** The long-term memory settings, stored with the memory. */
export interface MemoryConfig {
  /** Cosine at or above which two items say the same thing (default 0.92). */
  dedupCosine: number;
  /** Share of shared words at or above which two items say the same thing (default 0.8). */
  dedupOverlap: number;
  /** What a contradiction does: supersede (default), keep both flagged, or LLM merge. */
  conflict: 'newest' | 'keep' | 'merge';
  /** Relations holding one value at a time (name, residence, employer, ...). */
  singleValued: string[];
  /** Pairs of relations that contradict each other for one object. */
  opposites: Array<[string, string]>;
  /** Pairs of relations that say the same of one object. */
  equivalents: Array<[string, string]>;
  /** Time to live per kind, in ms. */
  ttlMs: Partial<Record<ItemKind, number>>;
  /** Decay half-life per kind, in ms. */
  halfLifeMs: Partial<Record<ItemKind, number>>;
  /** Entity aliases: alias → canonical name. */
  aliases: Record<string, string>;
  /** The least confidence of an item recall's known section shows (default 0.6). */
  recallConfidence: number;
  /** How long a stored tool output (a blob `prepare` cut) lives without a record referencing
   * it, in ms (default a week); `null` keeps them. Retention runs at `prepare` and at open. */
  blobMaxAgeMs: number | null;
}

/** Which turns to learn from: the given ids, or every turn of a thread and/or user. */
export interface ExtractQuery {
  ids?: string[];
  thread?: string | null;
  user?: string | null;
  /** Kinds to learn; empty: personal, procedural and tool. */
  kinds?: ItemKind[];
}

/** What a learning pass did. */
export interface ExtractReport {
  /** Turns read. */
  turns: number;
  /** One entry per proposal learned. */
  learned: Learned[];
  /** Items ended by a retraction ("I don't mind cilantro anymore"). */
  retracted: string[];
  /** What of the model's answers was refused, fact by fact (an LLM pass only). */
  refused?: Refusal[];
  /** Turns the rules learned because their batch's answer was refused whole. */
  byRules?: string[];
  /** The pass's LLM calls and their estimated tokens (an LLM pass only). */
  llm?: { calls: number; promptTokens: number; answerTokens: number };
}

/** The turns one LLM call learns from. */
export interface LlmBatch {
  turns: string[];
  tokens: number;
  kinds: ItemKind[];
}

/** A refused fact of a model's answer (`fact`: its index), or the refused answer. */
export interface Refusal {
  batch: number;
  fact?: number;
  code: 'NOT_JSON' | 'BAD_SHAPE' | 'BAD_FACT' | 'UNKNOWN_OP' | 'UNKNOWN_SOURCE' | 'UNKNOWN_ITEM' | 'EMPTY_TEXT' | 'BAD_CONFIDENCE' | 'UNKNOWN_SPEAKER' | 'INVALID_ITEM';
  message: string;
}

/** A host's LLM: the model's answer to `prompt`. `schema` (given when memdag extracts) is the
 * JSON Schema the answer must follow; pass it to a model that takes one. */
export type Complete = (prompt: string, options?: { schema?: object }) => Promise<string>;

/** The JSON Schema of a model's extraction answer (`{ facts: [...] }`). */
export function llmSchema(): object;
/** Chrome's built-in Prompt API (`LanguageModel`) as `complete`, or null when absent. */
export function promptApiComplete(options?: { languageModel?: unknown; options?: object }): Promise<Complete | null>;
/** A Workers AI binding (`env.AI`) as `complete`. */
export function workersAiComplete(ai: { run(model: string, input: object): Promise<unknown> }, options?: { model?: string; maxTokens?: number }): Complete;
/** An OpenAI-compatible chat completions endpoint as `complete`. */
export function openAiComplete(options: { baseUrl?: string; apiKey?: string; model: string; fetch?: typeof fetch; temperature?: number }): Complete;

/** The LLM's judgement of a new item against candidate `item`. */
export interface Judged {
  item: string;
  verdict: 'same' | 'update' | 'contradicts' | 'unrelated';
  /** The merged text, for `update` and the `merge` strategy. */
  merged?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Working memory (crate::work).

/** One working-memory field. */
export interface WorkField {
  /** Any JSON value. */
  value: unknown;
  updatedAt: number;
  /** How many changes were applied to it. */
  version: number;
}

/** One change of working memory, applied or `stale` (a newer change of the field won). */
export interface WorkChange {
  at: number;
  field: string;
  op: WorkOp;
  /** The value given (for `pop`, the element popped). */
  value?: unknown;
  /** The field's value before. */
  previous?: unknown;
  stale: boolean;
  user?: string;
}

/** A working-memory operation. */
export type WorkOp = 'set' | 'push' | 'pop' | 'patch' | 'remove';

/** The working memory of one user in one thread (working memory is per user and thread: a
 * user never sees another's, even on a thread id they share). Conventional fields: `goal`
 * (text), `tasks` (a list of `{ text, status }`), `constraints` (a list), `notes` (an
 * object). */
export interface WorkingMemory {
  thread: string;
  /** Whose it is; `''` for no user's. */
  user: string;
  fields: Record<string, WorkField>;
  /** Oldest first. */
  history: WorkChange[];
}

/** A change to one field of a thread's working memory. */
export interface WorkUpdate {
  thread: string;
  field: string;
  op: WorkOp;
  /** The value to set, the element to push, or the JSON merge patch. */
  value?: unknown;
  /** Default `Date.now()`; an older change than the field's newest is kept as `stale`. */
  at?: number;
  /** Whose working memory it changes; omitted: no user's. An empty or blank user throws
   * `INVALID_INPUT`. */
  user?: string;
}

// ---------------------------------------------------------------------------------------------
// Timeline, entity graph, purge (crate::timeline, crate::graph, crate::erase).

/** Which timeline. Every field is optional. */
export interface TimelineQuery {
  user?: string | null;
  thread?: string | null;
  since?: number | null;
  until?: number | null;
  /** Minutes east of UTC for the days (default 0). */
  offsetMinutes?: number;
  itemsOnly?: boolean;
  turnsOnly?: boolean;
  /** The newest this many entries (default 500, at most 10,000). */
  limit?: number;
}

/** One day of a timeline. */
export interface TimelineDay {
  /** `YYYY-MM-DD` in the query's offset. */
  date: string;
  entries: Array<{ id: string; at: number; kind?: ItemKind; thread?: string; user: string; text: string }>;
}

/** Which edges a graph walk may use. */
export interface GraphQuery {
  /** Only this user's items and shared ones. */
  user?: string | null;
  /** The graph as it was at this time. */
  asOf?: number | null;
  /** Items past their time to live are no edges; default `Date.now()`. */
  now?: number | null;
}

/** One edge: a fact (an item) between two entities. */
export interface Edge {
  /** The item. */
  id: string;
  from: string;
  relation: string;
  to: string;
  text: string;
  /** The turns it was learned from. */
  sources: string[];
}

/** A set of entities (with their distance from the start) and the edges among them. */
export interface Subgraph {
  nodes: Array<{ entity: string; depth: number }>;
  edges: Edge[];
}

/** What `purge` removes. */
export interface PurgeQuery {
  /** Default `Date.now()`. */
  now?: number;
  /** Remove items past their time to live (default true). */
  expired?: boolean;
  /** Also remove superseded and deleted items, with their history. */
  ended?: boolean;
  /** Remove blobs every referencing record left behind this long before `now` (ms). */
  blobMaxAgeMs?: number | null;
  /** Remove blobs no live record references. */
  unreferencedBlobs?: boolean;
}

/** What `purge` removed. */
export interface Purged {
  items: string[];
  blobs: string[];
}

// ---------------------------------------------------------------------------------------------
// Tools (crate::tools).

/** The API whose tool format `toolSchemas` emits. */
export type ToolFormat = 'openai' | 'anthropic' | 'mcp';

/** The tool names. */
export type ToolName = 'search' | 'grep' | 'get' | 'ancestors' | 'descendants' | 'recall' | 'remember' | 'memories' | 'forget' | 'read_blob';

/** An OpenAI function-calling tool. */
export interface OpenAiTool {
  type: 'function';
  function: { name: ToolName; description: string; parameters: Record<string, unknown> };
}

/** An Anthropic tool. */
export interface AnthropicTool {
  name: ToolName;
  description: string;
  input_schema: Record<string, unknown>;
}

/** An MCP tool, as `tools/list` answers. */
export interface McpTool {
  name: ToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What the host knows and the model must not choose. */
export interface ToolContext {
  /** Every tool keeps to this user's memory. Omitted: every user's memory (an explicit,
   * store-wide context); an empty or blank user throws `INVALID_INPUT`. */
  user?: string | null;
  /** Recall's thread when the model names none. */
  thread?: string | null;
  /** The clock of new items and relative dates; default `Date.now()`. */
  now?: number | null;
}

/** The milliseconds of a duration text such as `"90s"`, `"15m"`, `"12h"`, `"30d"` or `"2w"`. */
export function parseDuration(text: string): number;

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

// ---------------------------------------------------------------------------------------------
// The context pipeline: one call before a turn, one after (the core's crate::pipeline).

/** Options of `prepare`: the thread, the model's window and the budgets within it. */
export interface PrepareOptions {
  thread: string;
  /** Whose summary, blobs and recall: only their records and shared ones. Omitted: no user's
   * (store-wide). An empty or blank user throws `INVALID_INPUT`. */
  user?: string | null;
  /** The model's context window in tokens (> 0). */
  window: number;
  /** Compact when the messages total more than this (default: the window less the summary
   * and recall budgets). */
  threshold?: number | null;
  /** Tokens of the newest messages kept when compacting (default: half the threshold). */
  keepTokens?: number | null;
  /** Cap of the running summary (default: an eighth of the window). */
  summaryTokens?: number | null;
  /** Budget of the recall block (default: an eighth of the window; 0: no recall). */
  recallTokens?: number | null;
  /** Tool result limits; the core caps the newest at half the kept budget and older ones at
   * an eighth, so a cut result stays beside its call. */
  toolLimits?: { recentTokens?: number; oldTokens?: number; recentCount?: number } | null;
  /** Recall knobs (`queryText`, `keywords`, `weights`, `halfLifeMs`, ...); its `thread`,
   * `user`, `budgetTokens` and `now` are prepare's own. Pass the new user message as
   * `queryText` to recall what matches it. */
  recall?: Partial<RecallQuery> | null;
  /** The time of the blobs' age, the summary's date and recall; default `Date.now()`. */
  now?: number | null;
}

/** The time each step of `prepare` took, in ms of `performance.now()`. */
export interface PrepareTimings {
  truncateMs: number;
  checkMs: number;
  /** Folding into the summary, with the LLM's wait when an answer was given. */
  summarizeMs: number;
  recallMs: number;
  totalMs: number;
}

/** Why the host's LLM gave no summary (the rules wrote it): `HOST` for a call that threw,
 * rejected or answered no string, another code for an answer that did not parse. */
export interface LlmError {
  code: ErrorCode;
  message: string;
}

/** What `prepare` answers. */
export interface Prepared {
  /** The messages to send, tool results cut: leading system messages, then the newest. */
  messages: Message[];
  /** The thread's running summary as Markdown (put it before `messages`), or `null`. */
  summary: string | null;
  summaryVersion: number;
  /** Who wrote this call's summary update: `none` when nothing was compacted. */
  summarizedBy: 'none' | 'llm' | 'rules';
  /** Messages folded into the summary by this call. */
  compacted: number;
  /** The recall block ('' when nothing fits or recall is off). */
  recall: string;
  /** Blobs holding the full text of the tool results this call cut. */
  blobIds: string[];
  /** Stored tool outputs past their age that this call removed. */
  expiredBlobs: string[];
  totalTokens: number;
  keptTokens: number;
  summaryTokens: number;
  recallTokens: number;
  /** Whether `messages`, the summary and the recall block fit in the window together. */
  fits: boolean;
  llmError: LlmError | null;
  timings: PrepareTimings;
}

/** The first half of `prepare` (`Memory.prepareBegin`): hand it to `prepareEnd` as it came. */
export interface PrepareStage {
  /** The prompt for the host's LLM, or `null` when nothing must be folded into the summary. */
  prompt: string | null;
  /** The messages to keep (tool results cut) and the older ones to fold. */
  keep: Message[];
  compact: Message[];
  blobIds: string[];
  expiredBlobs: string[];
  totalTokens: number;
  timings: PrepareTimings;
  /** `performance.now()` when the stage began and when it was ready. */
  started: number;
  readyAt: number;
  /** The options given, with `now` filled in. */
  options: PrepareOptions;
}

/** How `finish` writes a turn; every option defaults to true. */
export interface FinishOptions {
  /** Learn long-term memory items from the turn. */
  learn?: boolean;
  /** Add the `[id]`s the turn's output cites (records its user may see) to its parents. */
  cite?: boolean;
  /** Leave out parents no record has, reporting them in `dropped`; false throws
   * `UNKNOWN_PARENT`. */
  dropUnknownParents?: boolean;
}

/** What `finish` wrote. */
export interface Finished {
  record: MemoryRecord;
  /** The ids the output cited that became parents. */
  cited: string[];
  /** Parents left out because no record has their id. */
  dropped: string[];
  /** What was learned; `null` with `learn: false`. */
  learned: ExtractReport | null;
}

/** Options of `readBlob`. */
export interface ReadBlobOptions {
  /** The first line, counted from 1 (the line a truncation marker names); default 1. */
  fromLine?: number;
  /** How many lines (default and most 2,000). */
  lines?: number;
  /** Only a blob stored for this user or referenced by a record they may see. */
  user?: string;
}

/** A page of a blob's lines; pages read one after another concatenate to its exact text. */
export interface BlobPage {
  id: string;
  /** The lines, each with its line break. */
  text: string;
  fromLine: number;
  lines: number;
  totalLines: number;
  /** The line to read on from, or `null` at the end. */
  nextLine: number | null;
}

/** A thread's running summary. */
export interface RunningSummary {
  /** As Markdown, as `prepare` returns it. */
  summary: string;
  node: CompactNode;
  /** How many times it was updated. */
  version: number;
  /** The `now` of its last update. */
  updatedAt: number;
  /** Messages folded into it so far. */
  messages: number;
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
  /** Optional: what `loadRange` returns, handed to `take` a page at a time (sorted by key,
   * at most `limit` entries a page). `Memory.open` lists through it when present, copying each
   * page into wasm memory before the next is read. */
  loadPages?(prefix: string, take: (page: Entry[]) => void, limit?: number): Promise<void>;
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
  /** `loadRange` a page of at most `limit` (default 16) at a time, every page in one readonly
   * transaction (a flush from another tab waits for the last page). Rejects with what `take`
   * threw, if it threw, handing over no later page. */
  loadPages(prefix: string, take: (page: Entry[]) => void, limit?: number): Promise<void>;
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

/**
 * A storage adapter on a Cloudflare Durable Object's storage (`ctx.storage`): each change set
 * commits in one `storage.transaction`, all or nothing; values stay under 128 KiB.
 *
 * @example
 * export class MemoryObject {
 *   constructor(ctx) { this.ctx = ctx; }
 *   async fetch(request) {
 *     this.memory ??= await Memory.open({ name: 'agent', storage: new DurableObjectStorage(this.ctx.storage), sync: false });
 *     // ...
 *   }
 * }
 */
export class DurableObjectStorage implements StorageAdapter {
  /** `beforeCommit` runs inside the transaction after every write was issued (a test hook);
   * `pageEntries` (default 64) is the most entries `loadPages` lists a call. */
  constructor(storage: DurableObjectStorageApi, options?: { beforeCommit?: () => void; pageEntries?: number });
  readonly storage: DurableObjectStorageApi;
  readonly atomic: true;
  /** 131072: the largest value Durable Object storage takes. */
  readonly maxValueBytes: number;
  load(key: string): Promise<Uint8Array | undefined>;
  save(key: string, bytes: Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  loadRange(prefix: string): Promise<Entry[]>;
  /** `loadRange` a page of `limit` (default `pageEntries`) at a time, one `list` call each. */
  loadPages(prefix: string, take: (page: Entry[]) => void, limit?: number): Promise<void>;
  removeRange(prefix: string): Promise<void>;
  saveBatch(changes: Iterable<Change>): Promise<void>;
  close(): void;
}

/** The part of a Durable Object's `ctx.storage` the adapter uses. */
export interface DurableObjectStorageApi {
  get(key: string): Promise<unknown>;
  put(entries: Record<string, unknown>): Promise<void>;
  put(key: string, value: unknown): Promise<void>;
  delete(keys: string | string[]): Promise<unknown>;
  list(options?: { prefix?: string; limit?: number; startAfter?: string }): Promise<Map<string, unknown>>;
  transaction<T>(closure: (txn: DurableObjectStorageApi) => Promise<T>): Promise<T>;
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
  /** The host's LLM; absent: the extractive compactor and the extraction rules. */
  complete?: Complete;
  /** Flush after each turn (default false). */
  autoFlush?: boolean;
  /** Refresh when another tab flushes (BroadcastChannel hint; default true). */
  sync?: boolean;
  /** Limits for this memory (see `Limits`); names left out keep their defaults. */
  limits?: Partial<Limits>;
  /**
   * Encrypts the store at rest: 32 raw bytes, or a WebCrypto `CryptoKey` of 256 bits that is
   * extractable (it is read once with `crypto.subtle.exportKey('raw', key)`: the core derives
   * its subkeys from it and opens what it sealed itself), e.g. from
   * `crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt'])`.
   * Every stored value is sealed: where WebCrypto exists with AES-256-GCM (seal v2, natively,
   * by the package), else inside wasm with XChaCha20-Poly1305 (seal v1); the core and the CLI
   * open both. Opening with a missing or wrong key rejects with `LOCKED`. Keep the key outside
   * the store. The flush counter `sync/generation` stays plain.
   */
  key?: Uint8Array | CryptoKey;
  /**
   * Opens what is intact in a store a plain open refuses as damaged (see `Memory.salvage`);
   * what was lost is `PersistentMemory.damage`. The next flush rewrites the store whole.
   */
  salvage?: boolean;
}

/** One damaged stored value, or one damaged block inside a segment part. What it held is a
 * best guess read from its bytes (the damage may have altered an id), and the sequence numbers
 * its records lie between, from the intact blocks around it. */
export interface DamagedBlock {
  key: string;
  /** The block inside the part, from 0; `null` for the whole value. */
  block: number | null;
  reason: string;
  /** Ids of the turn records and of the items it held, as read. */
  records: string[];
  items: string[];
  /** Whether its bytes still decode whole, so that `records` and `items` name all it held.
   * Its records' sequence numbers lie above `afterSeq` and below `beforeSeq` either way
   * (absent: unknown on that side). */
  idsKnown: boolean;
  afterSeq?: number;
  beforeSeq?: number;
}

/** What a salvaging open skipped, and what it lost by id. */
export interface Damage {
  damaged: DamagedBlock[];
  /** Held by a damaged block and by no intact one. */
  lostRecords: string[];
  lostItems: string[];
  lostBlobs: string[];
  /** Working-memory and settings documents, by name. */
  lostDocuments: string[];
  /** Records and items whose newest version was damaged: an older intact one was opened. */
  olderVersions: string[];
  /** `[record, parent]`: parents dropped from intact records because the parent was lost. */
  detached: Array<[string, string]>;
}

/** What `Memory.verify` found: the counts a salvaging open holds, and the damage. */
export interface Verified extends Damage {
  /** No damage at all: `load` succeeds. */
  intact: boolean;
  /** Stored values read. */
  keys: number;
  records: number;
  items: number;
  blobs: number;
  documents: number;
  /** What the open recovered from, though it lost nothing (`COMMIT_RECOVERED`). */
  warnings: LoadWarning[];
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

/** Something an open recovered from, though it lost nothing. */
export interface LoadWarning {
  /** `COMMIT_RECOVERED`, or `BLOCK_SKIPPED` for each value or block a salvaging open skipped. */
  code: string;
  /** The key concerned (`head`). */
  key: string;
  message: string;
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
  readonly vectorSettings: VectorSettings;
  /** Sets how the memory keeps its vectors; resolves once durable. */
  setVectorSettings(settings: Partial<VectorSettings>): Promise<void>;
  /** Whether the store is encrypted at rest (opened with `key`). */
  readonly encrypted: boolean;
  /** Adds a turn now; it persists at the next flush. Options as in `Memory.addTurn`. */
  addTurn(turn: NewTurn): MemoryRecord;
  addTurn(turn: NewTurn, options: AddOptions): AddedRecord;
  /** Embeds with the host (when given), adds, and resolves once the turn is durable. Rejects
   * with `STORAGE` if the flush fails, or with the replay's code and `reason: 'rebase'` if a
   * rebase onto another writer's flush drops the turn. With options (`{ dropUnknownParents:
   * true }`) the record carries `dropped`, and a replay keeps the parents it kept. */
  add(turn: NewTurn): Promise<MemoryRecord>;
  add(turn: NewTurn, options: AddOptions): Promise<AddedRecord>;
  /** Adds turns with one `embed` call; resolves once all are durable (one flush). */
  addMany(turns: Iterable<NewTurn>): Promise<MemoryRecord[]>;
  addMany(turns: Iterable<NewTurn>, options: AddOptions): Promise<AddedRecord[]>;
  /** The ids a reply cites that name records `user` may see (see `Memory.cited`). */
  cited(replyText: string, user?: string): string[];
  get(id: string, user?: string): MemoryRecord | undefined;
  recent(thread: string, n: number, user?: string): MemoryRecord[];
  byUser(user: string, n: number): MemoryRecord[];
  ancestors(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  descendants(id: string, depth?: number, limit?: number, user?: string): MemoryRecord[];
  children(id: string): string[];
  readonly limits: Limits;
  /** What the last open or reload recovered from (see `Memory.loadWarnings`). */
  readonly loadWarnings: LoadWarning[];
  /** What a salvaging open (`Memory.open({ salvage: true })`) skipped and lost; `null` for a
   * plain open. */
  readonly damage: Damage | null;
  /** What is damaged in the store `options` name (`storage`, `name`, `key` as in
   * `Memory.open`; the other options are ignored), without opening it (see `Memory.verify`). */
  static verify(options?: OpenOptions): Promise<Verified>;
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
  /** Adds an item; resolves with what happened once durable (rejects like `add`). Its text is
   * embedded with the host's `embed` when the memory has one and the item has no `embedding`. */
  addItem(item: NewItem): Promise<Learned>;
  getItem(id: string, user?: string): MemoryItem | undefined;
  /** A new version of an item; a new `text` is embedded with the host's `embed` as in
   * `addItem`. */
  updateItem(id: string, update: ItemUpdate): Promise<MemoryItem>;
  deleteItem(id: string, at?: number): Promise<MemoryItem>;
  itemHistory(id: string, user?: string): HistoryEntry[];
  listItems(query?: ItemQuery): MemoryItem[];
  resolutions(query?: ResolutionQuery): LoggedResolution[];
  readonly memoryConfig: MemoryConfig;
  setMemoryConfig(config: Partial<MemoryConfig>): Promise<void>;
  /** Learns items from turns through the host's `complete` when the memory has one, batch by
   * batch (a bad fact is refused alone, a failed call has the rules learn its batch), else
   * by the rules; resolves once durable. */
  extract(query: ExtractQuery): Promise<ExtractReport>;
  proposeItems(query: ExtractQuery): Proposal[];
  llmBatches(query: ExtractQuery): LlmBatch[];
  llmPrompt(batch: LlmBatch): string;
  learnLlm(index: number, batch: LlmBatch, prompt: string, answer: string | { error: string }): Promise<ExtractReport>;
  itemCandidates(item: NewItem): MemoryItem[];
  learn(proposals: NewItem[], judged?: Judged[][]): Promise<ExtractReport>;
  workingMemory(thread: string, user?: string): WorkingMemory;
  /** Changes one field of a user's working memory of a thread; resolves once durable. Two
   * tabs that change different fields both keep their change. */
  updateWork(update: WorkUpdate): Promise<WorkChange>;
  clearWork(thread: string, user?: string): Promise<boolean>;
  workThreads(): string[];
  timeline(query?: TimelineQuery): TimelineDay[];
  neighbors(entity: string, depth: number, query?: GraphQuery): Subgraph;
  path(a: string, b: string, maxDepth: number, query?: GraphQuery): Edge[][];
  subgraph(entities: string[], query?: GraphQuery): Subgraph;
  /** Purges and resolves once the rewritten store is durable (no stored byte of a purged
   * item left). */
  purge(query?: PurgeQuery): Promise<Purged>;
  toolSchemas(format: 'openai'): OpenAiTool[];
  toolSchemas(format: 'anthropic'): AnthropicTool[];
  toolSchemas(format: 'mcp'): McpTool[];
  toolSchemas(format: ToolFormat): Array<OpenAiTool | AnthropicTool | McpTool>;
  /** Runs a tool; when it changed the store (`remember`, `forget`, `recall`'s use counts),
   * resolves once that is durable. */
  callTool(name: string, args: string | Record<string, unknown> | null | undefined, context?: ToolContext): Promise<Record<string, unknown>>;
  /** Deletes a record; resolves with it once the deletion is durable (rejects like `add`). */
  delete(id: string): Promise<MemoryRecord>;
  search(query: SearchQuery): SearchHit[];
  searchFull(query: SearchQuery): SearchResults;
  /** `search` with the query embedded by the host's `embed`. */
  searchAsync(query: SearchQuery): Promise<SearchHit[]>;
  grep(query: GrepQuery): GrepMatch[];
  recall(query: RecallQuery): Recall;
  recallView(query: RecallQuery): Recall;
  /** `recall` with its match text (`recallMatchText`) embedded by the host's `embed`. */
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
  /**
   * One call before a turn (see `Memory.prepare`), through the host's `complete` when the
   * memory has one: it gets the summary prompt (with the previous summary, for an incremental
   * update); a throw, a rejection or an answer that is no string becomes `llmError` (code
   * `HOST`) and the rules write the summary, so no message is lost. `now` defaults to
   * `Date.now()`. Resolves once the blobs and the summary it wrote are durable (rejects like
   * `add`).
   */
  prepare(messages: Message[], options: PrepareOptions): Promise<Prepared>;
  /** One call after a turn (see `Memory.finish`): embeds the turn with the host's `embed` as
   * `add` does, writes it with its cited parents, and learns through the host's `complete`
   * when the memory has one (as `extract`), else by the rules. Resolves once durable. */
  finish(turn: NewTurn, options?: FinishOptions): Promise<Finished>;
  readBlob(id: string, options?: ReadBlobOptions): BlobPage;
  /** Removes expired tool outputs (see `Memory.retainBlobs`); resolves with their ids once
   * durable. `open` runs it on the host clock; what it removes persists at the next flush. */
  retainBlobs(now?: number): Promise<string[]>;
  runningSummary(thread: string, user?: string | null): RunningSummary | undefined;
  /** Forgets a thread's running summary; persists at the next flush. */
  clearRunningSummary(thread: string, user?: string | null): boolean;
  snapshot(): Entry[];
  flush(): Promise<FlushResult>;
  /** Reloads when another writer flushed, keeping unflushed work. */
  refresh(): Promise<{ reloaded: boolean; conflicts: FlushResult['conflicts'] }>;
  /** The whole memory (unflushed changes included) as an export file: the core's snapshot. */
  exportBytes(): Uint8Array;
  /** The same file as `exportBytes`. */
  exportSnapshot(): Uint8Array;
  exportJsonl(): string;
  exportMarkdown(): MarkdownFile[];
  /** Adds what JSONL text holds (see `Memory.importJsonl`); resolves once durable. Journaled:
   * replayed after a rebase onto another writer's flush. */
  importJsonl(text: string, now?: number): Promise<Imported>;
  /** Adds what Markdown export files hold (see `Memory.importMarkdown`); resolves once
   * durable. Journaled like `importJsonl`. */
  importMarkdown(files: Iterable<MarkdownFile>): Promise<Imported>;
  /** Replaces memory and storage with an export file. */
  importBytes(bytes: Uint8Array | ArrayBuffer): Promise<{ records: number }>;
  /** Flushes, then releases storage and wasm memory. */
  close(): Promise<void>;
  /** Releases the wasm memory without flushing (for a memory opened only to read). */
  free(): void;
}

/** The storage key of the flush counter. */
export const GENERATION_KEY: string;
/**
 * Encodes entries as an export file, the core's snapshot format: the magic `MDAGEXP1`, then per
 * entry a u32 LE key length, the key (UTF-8), a u32 LE value length and the value.
 */
export function encodeExport(entries: Iterable<Entry | Change>): Uint8Array;
/** Decodes an export file; `INVALID_INPUT` if it is not one (bad magic, cut short). */
export function decodeExport(bytes: Uint8Array | ArrayBuffer): Entry[];
