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
  | 'STORAGE'
  | 'HOST'
  | 'BUSY';

/** The shape of every error memdag throws: a plain `Error` with extra properties. */
export interface MemdagError extends Error {
  code: ErrorCode;
  /** The storage key concerned (`CORRUPT_DATA`, `UNSUPPORTED_VERSION`). */
  key?: string;
  /** The missing parent ids (`UNKNOWN_PARENT`). */
  ids?: string[];
  /** The id concerned (`NOT_FOUND`, `DUPLICATE_ID`). */
  id?: string;
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
   */
  static load(entries: Iterable<Entry | Change>): Memory;
  /** Adds one turn and returns its record. Throws `UNKNOWN_PARENT` (nothing written). */
  addTurn(turn: NewTurn): MemoryRecord;
  /** The record with this id, or `undefined`. */
  get(id: string): MemoryRecord | undefined;
  /** The `n` newest records of a thread, newest first. */
  recent(thread: string, n: number): MemoryRecord[];
  /** The `n` newest records of a user across all threads, newest first. */
  byUser(user: string, n: number): MemoryRecord[];
  /**
   * The ancestors of `id`, nearest first, at most `depth` edges away and at most `limit`
   * records (unbounded when omitted). Throws `NOT_FOUND` for an unknown id.
   */
  ancestors(id: string, depth?: number, limit?: number): MemoryRecord[];
  /** The descendants of `id`, nearest first. See `ancestors`. */
  descendants(id: string, depth?: number, limit?: number): MemoryRecord[];
  /** Deletes a record and returns it; its children take over its parents. Throws `NOT_FOUND`. */
  delete(id: string): MemoryRecord;
  /** Takes the changes since the last call, in write order. */
  takeChanges(): Change[];
  /** Marks the keys of a change set that could not be written dirty again. */
  requeue(changes: Iterable<Change>): void;
  /** Every stored key and value: a full export. */
  snapshot(): Entry[];
  /** The number of records. */
  readonly len: number;
  /** Whether the memory holds no record. */
  readonly isEmpty: boolean;
  /** Frees the WebAssembly memory of this instance; it must not be used afterwards. */
  free(): void;
}
