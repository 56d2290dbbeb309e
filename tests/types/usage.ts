// Typed usage of the package, checked by `tsc --noEmit` (tests/node/types.test.mjs) so that
// pkg/index.d.ts stays usable. Never run.
import { Memory, StoredEntries, type Change, type MemdagError, type MemoryRecord, type NewTurn } from '../../pkg/index.js';

const mem = new Memory();
const turn: NewTurn = { thread: 't', input: 'hi', createdAt: Date.now(), importance: 0.7 };
const root: MemoryRecord = mem.addTurn(turn);
const child = mem.addTurn({
  thread: 't',
  parents: [root.id],
  steps: [{ tool: 'grep', args: '{}', result: '', ok: true }],
  compact: { summary: 's', sections: [{ name: 'Goal', text: 'g' }] },
  embedding: new Float32Array([1, 2]),
});
const maybe: MemoryRecord | undefined = mem.get(child.id);
const n: number = (maybe?.createdAt ?? 0) + mem.len + child.seq;
const empty: boolean = mem.isEmpty;
const vector: Float32Array | null = child.embedding;
const lists: MemoryRecord[][] = [
  mem.recent('t', 10),
  mem.byUser('u', 10),
  mem.ancestors(child.id),
  mem.ancestors(child.id, 2),
  mem.descendants(root.id, 1, 5),
  [mem.delete(child.id)],
];

const store = new Map<string, Uint8Array>();
const changes: Change[] = mem.takeChanges();
for (const [key, value] of changes) {
  if (value === null) store.delete(key);
  else store.set(key, value);
}
mem.requeue(changes);
const again: Memory = Memory.load(store);
Memory.load(again.snapshot());
Memory.load(changes);
const sealed: Memory = Memory.load([], new Uint8Array(32));
const gathered = new StoredEntries();
for (const [k, v] of again.snapshot()) gathered.put(k, v);
gathered.put('gone', null);
const gatheredSize: number = gathered.len + gathered.bytes + (gathered.isEmpty ? 0 : 1);
const fromStored: Memory = Memory.loadStored(gathered, null, null);
const salvagedStored: Memory = Memory.salvageStored(new StoredEntries()).memory;
sealed.setKey(null);
const isSealed: boolean = sealed.encrypted;
const named: string[] = Memory.keysToRead(new Uint8Array(), new Uint8Array(32));
async function openSealed(): Promise<boolean> {
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  const memory = await Memory.open({ name: 'sealed', key });
  return memory.encrypted && isSealed && named.length === 0;
}
openSealed();

try {
  mem.addTurn({ thread: 't', parents: ['ghost'] });
} catch (e) {
  const error = e as MemdagError;
  const code: 'UNKNOWN_PARENT' | string = error.code;
  const key: string | undefined = error.key;
  const ids: string[] | undefined = error.ids;
  console.log(code, key, ids, error.message);
}
mem.free();

// @ts-expect-error thread is required
mem.addTurn({ input: 'x' });
// @ts-expect-error a misspelt field is refused by the types too
mem.addTurn({ thread: 't', parent: ['x'] });
// @ts-expect-error len is read-only
mem.len = 3;

export { n, empty, vector, lists };

// The async API: Memory.open, storage adapters, host callbacks, search, recall, context tools.
import {
  embeddingText,
  type Reindexed,
  type ReindexProgress,
  IndexedDbStorage,
  KeyValueStorage,
  MemoryStorage,
  checkContext,
  compactToolResult,
  countTokens,
  workersKv,
  type FlushResult,
  type PersistentMemory,
  type Recall,
  type SearchHit,
  type StorageAdapter,
} from '../../pkg/index.js';

async function asyncUsage(): Promise<void> {
  const storage: StorageAdapter = new MemoryStorage();
  const idb: StorageAdapter = await IndexedDbStorage.open('db');
  const paged = await IndexedDbStorage.open('paged');
  await paged.loadPages('rec/', (page) => page.forEach(([key, bytes]) => key.length + bytes.length), 8);
  await paged.loadPages('', () => {});
  const kv = new KeyValueStorage({
    get: async () => null,
    put: async () => {},
    delete: async () => {},
    list: async () => ['a', { name: 'b' }],
  });
  const memory: PersistentMemory = await Memory.open({
    name: 'agent',
    storage,
    autoFlush: true,
    embed: async (texts) => texts.map(() => new Float32Array(3)),
    complete: async (prompt) => prompt,
  });
  const r = await memory.add({ thread: 't', input: 'hi' });
  await memory.addMany([{ thread: 't', parents: [r.id] }]);
  const hits: SearchHit[] = await memory.searchAsync({ text: '迁移', mode: 'bm25', filter: { thread: 't', tags: [] } });
  const recall: Recall = memory.recallView({ thread: 't', budgetTokens: 500 });
  const flushed: FlushResult = await memory.flush();
  const file: Uint8Array = memory.exportBytes();
  await memory.importBytes(file);
  await memory.compact(r.id);
  const n: number = countTokens('hello', 'o200k_base') + recall.tokens + hits.length + flushed.generation;
  checkContext([{ role: 'user', content: 'x' }], { threshold: 10 }).toKeep.forEach((m) => m.content);
  compactToolResult('long', 10).blobId?.toUpperCase();
  memory.grep({ pattern: 'E\\d+', fields: ['input'] }).map((m) => m.start);
  // @ts-expect-error mode is one of three names
  memory.search({ text: 'x', mode: 'fuzzy' });
  const moved: Reindexed = await memory.reindex({ batchSize: 32, onProgress: (p: ReindexProgress) => p.done / p.total });
  const core = new Memory();
  core.reindexBegin();
  core.reindexSupply(core.reindexBatch(8).map((t) => new Float32Array([t.length, 1])));
  const finished: number = core.reindexFinish().dimension + core.reindexBuiltin().records + moved.previousDimension;
  embeddingText('in', 'out').toUpperCase();
  // @ts-expect-error phase is one of two names
  const wrong: ReindexProgress = { phase: 'done', done: 1, total: 1 };
  workersKv;
  console.log(idb, kv, n, finished, wrong);
  await memory.close();
}

export { asyncUsage };

// Turns in the one JSON shape; search with time; recall's known section and working memory.
import { recallMatchText, type SearchResults, type TimeExpr } from '../../pkg/index.js';
import {
  DurableObjectStorage,
  decodeExport,
  encodeExport,
  type AddedRecord,
  type DurableObjectStorageApi,
  type Imported,
  type MarkdownFile,
} from '../../pkg/index.js';

function timeUsage(): void {
  const m = new Memory();
  m.addTurn({ thread: 't', createdAt: '2024-05-08T13:56:00Z', text: 'hi', steps: [{ tool: 'x', args: { q: 1 } }] });
  m.addTurn({ thread: 't', created_at: 5, user: null, steps: null });
  const full: SearchResults = m.searchFull({ text: 'deploy last week', now: Date.now(), offsetMinutes: 60, time: 'boost' });
  const range: TimeExpr | null = full.time;
  const kinds = m.search({ text: 'x', filter: { scope: 'items', kinds: ['personal'], statuses: ['active'], now: 1 } }).map((h) => h.kind);
  const r = m.recall({ thread: 't', knownLimit: 4, workTokens: 100, since: 0, until: 10, weights: { known: 1 } });
  const section: 'known' | 'thread' | 'user' | 'match' | 'ancestor' = r.items[0].section;
  const working: string | null = r.working;
  const text: string = recallMatchText({ thread: 't', keywords: ['a'], queryText: 'b' });
  const dirty: boolean = m.hasChanges;
  // @ts-expect-error a step needs its tool
  m.addTurn({ thread: 't', steps: [{ args: 'x' }] });
  // @ts-expect-error time is one of three names
  m.search({ text: 'x', time: 'never' });
  console.log(range?.grain, kinds, section, working, text, dirty);
}

export { timeUsage };

// Long-term memory items, learning, working memory, the graph, purge and tools.
import {
  parseDuration,
  type ExtractReport,
  type Judged,
  type Learned,
  type LlmBatch,
  type Refusal,
  type Complete,
  llmSchema,
  openAiComplete,
  promptApiComplete,
  workersAiComplete,
  type MemoryItem,
  type NewItem,
  type OpenAiTool,
  type Proposal,
  type Subgraph,
  type WorkChange,
} from '../../pkg/index.js';

function itemUsage(m: Memory): void {
  const item: NewItem = { kind: 'personal', user: 'ada', text: 'Lives in Berlin', relation: 'residence', object: 'Berlin', ttl: '30d' };
  const learned: Learned = m.addItem(item);
  const outcome: 'added' | 'corroborated' | 'superseded' | 'flagged' | 'merged' | 'updated' = learned.outcome;
  const got: MemoryItem | undefined = m.getItem(learned.item.id, 'ada');
  m.updateItem(learned.item.id, { text: 'Lives in Berlin-Mitte', ttlMs: 0, at: Date.now() });
  m.deleteItem(learned.item.id);
  m.deleteItem(learned.item.id, 5);
  const versions: number[] = m.itemHistory(learned.item.id).map((h) => h.version);
  const listed: MemoryItem[] = m.listItems({ kinds: ['tool'], statuses: ['expired'], order: 'uses', limit: 5 });
  m.listItems();
  m.resolutions({ actions: ['superseded'] }).map((r) => r.item + r.action);
  m.setMemoryConfig({ conflict: 'keep', ttlMs: { tool: parseDuration('7d') }, opposites: [['likes', 'hates']] });
  const conflict: 'newest' | 'keep' | 'merge' = m.memoryConfig.conflict;
  const report: ExtractReport = m.extract({ thread: 't', kinds: ['personal'] });
  const proposals: Proposal[] = m.proposeItems({ ids: ['a'] });
  const batches: LlmBatch[] = m.llmBatches({ user: 'ada' });
  const prompt: string = m.llmPrompt(batches[0]);
  const llmReport: ExtractReport = m.learnLlm(0, batches[0], prompt, '{"facts": []}');
  m.learnLlm(0, batches[0], prompt, { error: 'timeout' });
  const codes: string[] = (llmReport.refused ?? []).map((r: Refusal) => r.code + (r.fact ?? ''));
  const prompts = [codes, llmReport.llm?.calls, llmReport.byRules];
  const candidates: MemoryItem[] = m.itemCandidates(proposals[0]);
  const judged: Judged = { item: candidates[0].id, verdict: 'same' };
  m.learn(proposals, [[judged]]);
  const schema: object = llmSchema();
  const openai: Complete = openAiComplete({ baseUrl: 'http://localhost:8000/v1', model: 'm' });
  const workers: Complete = workersAiComplete({ run: async () => ({ response: '{}' }) });
  promptApiComplete().then((c: Complete | null) => c?.('hi', { schema }));
  console.log(openai, workers);
  m.learn([item]);
  // @ts-expect-error a kind is one of four names
  m.addItem({ kind: 'mood', text: 'x' });
  console.log(outcome, got?.status, versions, listed, conflict, report.learned, prompts, prompt);
}

function workAndGraphUsage(m: Memory): void {
  const change: WorkChange = m.updateWork({ thread: 't', field: 'tasks', op: 'push', value: { text: 'x', status: 'open' } });
  const stale: boolean = change.stale;
  const goal: unknown = m.workingMemory('t').fields.goal?.value;
  const cleared: boolean = m.clearWork('t');
  const threads: string[] = m.workThreads();
  // @ts-expect-error an op is one of five names
  m.updateWork({ thread: 't', field: 'x', op: 'append' });
  const days = m.timeline({ offsetMinutes: 60, itemsOnly: true }).map((d) => d.date + d.entries.length);
  const near: Subgraph = m.neighbors('ada', 2, { user: 'ada', now: 1 });
  const paths: string[][] = m.path('ada', 'norway', 3).map((p) => p.map((e) => e.relation));
  const sub: Subgraph = m.subgraph([]);
  const purged: string[] = m.purge({ ended: true }).items.concat(m.purge().blobs);
  console.log(stale, goal, cleared, threads, days, near.nodes, paths, sub.edges, purged);
}

async function persistentItemUsage(memory: PersistentMemory): Promise<void> {
  const learned: Learned = await memory.addItem({ kind: 'fact', text: 'Oslo is in Norway' });
  const report: ExtractReport = await memory.extract({ thread: 't' });
  await memory.learn(memory.proposeItems({ thread: 't' }));
  await memory.updateItem(learned.item.id, { importance: 0.2 });
  await memory.deleteItem(learned.item.id);
  await memory.setMemoryConfig({ dedupOverlap: 0.7 });
  const items: MemoryItem[] = memory.listItems({ user: 'ada' });
  memory.searchFull({ text: 'yesterday' }).time?.since;
  // @ts-expect-error the async form resolves to a Learned, not one
  const sync: Learned = memory.addItem({ kind: 'fact', text: 'x' });
  console.log(report, items, sync, memory.memoryConfig.aliases);
}

async function persistentWorkUsage(memory: PersistentMemory): Promise<void> {
  const change: WorkChange = await memory.updateWork({ thread: 't', field: 'goal', op: 'set', value: 'ship' });
  const had: boolean = await memory.clearWork('t');
  const purged: string[] = (await memory.purge({ now: Date.now() })).items;
  console.log(change, had, purged, memory.path('a', 'b', 2), memory.timeline());
}

async function toolUsage(memory: PersistentMemory): Promise<void> {
  const m = new Memory();
  const tools: OpenAiTool[] = m.toolSchemas('openai');
  const names: string[] = tools.map((t) => t.function.name).concat(m.toolSchemas('mcp').map((t) => t.inputSchema && t.name));
  m.toolSchemas('anthropic').map((t) => t.input_schema);
  const answer: Record<string, unknown> = m.callTool('search', '{"query": "x"}', { user: 'ada', now: Date.now() });
  m.callTool('remember', { text: 'y' });
  const durable: Record<string, unknown> = await memory.callTool('forget', { id: 'm1' }, { user: 'ada' });
  // @ts-expect-error a format is one of three names
  m.toolSchemas('gemini');
  console.log(names, answer, durable, memory.toolSchemas('openai').length);
}

async function exportAndCiteUsage(memory: PersistentMemory, ctx: { storage: DurableObjectStorageApi }): Promise<void> {
  const m = new Memory();
  const files: MarkdownFile[] = m.exportMarkdown();
  const imported: Imported = m.importMarkdown(new Map(files));
  const fromText: Imported = m.importJsonl(m.exportJsonl(), Date.now());
  const file: Uint8Array = m.exportSnapshot();
  const entries = decodeExport(file);
  encodeExport(entries);
  const later: Imported = await memory.importMarkdown(memory.exportMarkdown());
  await memory.importJsonl(memory.exportJsonl());
  const ids: string[] = m.cited('see [a1]', 'ada');
  const plain: MemoryRecord = m.addTurn({ thread: 't', parents: ids });
  const added: AddedRecord = m.addTurn({ thread: 't', parents: ids }, { dropUnknownParents: true });
  const dropped: string[] = (await memory.add({ thread: 't' }, { dropUnknownParents: true })).dropped;
  // @ts-expect-error without options the record has no dropped
  m.addTurn({ thread: 't' }).dropped;
  const durableObject = await Memory.open({ name: 'do', storage: new DurableObjectStorage(ctx.storage), sync: false });
  console.log(imported, fromText, later, plain, added, dropped, durableObject.len, memory.cited('[x]'));
}

import type { BlobPage, Finished, LlmError, Message, PrepareStage, Prepared, RunningSummary } from '../../pkg/index.js';

async function pipelineUsage(memory: PersistentMemory): Promise<void> {
  const m = new Memory();
  const messages: Message[] = [{ role: 'user', content: 'hi' }, { role: 'tool', toolCallId: 'c1', content: 'out' }];
  const options = { thread: 't', user: 'ada', window: 8000, toolLimits: { oldTokens: 200 }, recall: { queryText: 'hi', halfLifeMs: 1 } };
  const p: Prepared = m.prepare(messages, options);
  const by: 'none' | 'llm' | 'rules' = p.summarizedBy;
  const error: LlmError | null = p.llmError;
  const stage: PrepareStage = m.prepareBegin(messages, { ...options, now: Date.now() });
  const prompt: string | null = stage.prompt;
  const ended: Prepared[] = [m.prepareEnd(stage, 'answer'), m.prepareEnd(stage, { error: 'down' }), m.prepareEnd(stage, null), m.prepareEnd(stage)];
  const stored: Prepared = await memory.prepare(messages, options);
  const finished: Finished = m.finish({ thread: 't', output: 'see [a1]' }, { learn: false, cite: true, dropUnknownParents: true });
  const durable: Finished = await memory.finish({ thread: 't' });
  const page: BlobPage = m.readBlob('b1', { fromLine: 3, lines: 10, user: 'ada' });
  const next: number | null = page.nextLine;
  const gone: string[] = m.retainBlobs(Date.now());
  const goneLater: string[] = await memory.retainBlobs();
  const summary: RunningSummary | undefined = memory.runningSummary('t', 'ada');
  const cleared: boolean = m.clearRunningSummary('t');
  // @ts-expect-error a window is required
  m.prepare(messages, { thread: 't' });
  // @ts-expect-error finish options are booleans
  m.finish({ thread: 't' }, { learn: 'yes' });
  console.log(by, error, prompt, ended, stored.timings.summarizeMs, finished.cited, durable.learned, next, gone, goneLater, summary?.version, cleared);
}

export { itemUsage, persistentItemUsage, workAndGraphUsage, persistentWorkUsage, toolUsage, exportAndCiteUsage, pipelineUsage };
