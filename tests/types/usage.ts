// Typed usage of the package, checked by `tsc --noEmit` (tests/node/types.test.mjs) so that
// pkg/index.d.ts stays usable. Never run.
import { Memory, type Change, type MemdagError, type MemoryRecord, type NewTurn } from '../../pkg/index.js';

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
