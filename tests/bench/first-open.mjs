// First open of a large store in a fresh Node process (not a test): what a server or a Worker
// pays when it opens a memory for the first time, with builds of the package alternated in one
// run so that their ratio means something on a noisy machine.
//
//   node tests/bench/first-open.mjs [--records 100000] [--precision int8|f32 (default int8, the store default)] [--rounds 3]
//        [--data DIR] [--no-build] [--json] [--store-per-variant] [--from-storage] [NAME=PKGDIR ...]
//
// Builds the benchmark's workload store once with the package in pkg/ (N records of the LoCoMo
// dev turns replicated, with the clustered 384-d vectors of every other benchmark, as
// worker-128mb.mjs does) and writes it to a temporary snapshot file (`exportSnapshot`). Then
// each round starts a fresh `node` for every variant in turn (default: `pkg=pkg/`), which reads
// the entries and times `Memory.load` twice: `first` (a new wasm instance: cold code, an
// ungrown memory) and `again` (the same entries in the same instance). Prints the median of
// each, and each variant's first-open ratio to the first variant's (the median of the
// per-round ratios). With --store-per-variant, each variant builds the store with its own
// package and opens that one: the way to compare builds that write different storage formats
// (an older build cannot open a newer format, and a newer one reads an older format the old
// way).
//
// --from-storage: each child opens through `Memory.open` on a storage adapter that reads one
// file per key when asked (`boundedOpen`, as KeyValueStorage over Workers KV), not from
// entries it was handed, and also reports the process's peak resident memory during the first
// open (`maxRSS`, above what it held before) and the wasm memory's size: what an open costs a
// Worker's isolate, JS copies of the values included.
//
// --tierup: also opens the store once more per variant under `--trace-wasm-compilation-times`
// and lists the functions V8 optimized (TurboFan) during the first open, the slowest to
// optimize first: V8 optimizes them one after another on a background thread, and a function
// runs unoptimized until its optimized code is ready, so a large function that runs once can
// hold up the per-record ones behind it. Names need a package that keeps them
// (scripts/pkg-with-names.sh DIR); otherwise functions are listed by index. Each function
// comes with the time its optimized code was ready, in ms from the open's start (V8 prints a
// line as it finishes one, read here as it arrives, line-buffered under `stdbuf` when the
// machine has it), and the list goes on past the open's end for what was still compiling
// then: on 2 cores, those compiles take CPU from the open, and a function called once per open
// (a loop over every record) is optimized for nothing.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultData, loadBench, locomo, option, root } from './lib.mjs';

/** The entries of a snapshot file (`Memory.exportSnapshot`: `MDAGEXP1`, then per entry a u32
 * LE key length, the key, a u32 LE value length and the value). Read here in JS, not with the
 * package's `decodeExport`: that runs in the wasm, and would grow its memory and warm its code
 * before the open it is meant to leave cold. */
function readSnapshot(path) {
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 8).toString() !== 'MDAGEXP1') throw new Error(`${path} is not a snapshot`);
  const entries = [];
  let at = 8;
  while (at < bytes.length) {
    const kl = bytes.readUInt32LE(at);
    const key = bytes.subarray(at + 4, at + 4 + kl).toString();
    at += 4 + kl;
    const vl = bytes.readUInt32LE(at);
    entries.push([key, new Uint8Array(bytes.subarray(at + 4, at + 4 + vl))]);
    at += 4 + vl;
  }
  return entries;
}

const FIRST_OPEN_START = '=== first open: start';
const FIRST_OPEN_END = '=== first open: end';
const SECOND_OPEN_START = '=== second open: start';

/** A child's result: the last line of its output (V8's trace comes before it). */
const childResult = (out) => JSON.parse(out.trim().split('\n').pop());

/** The names of a wasm module's functions by index, from its `name` section (empty without
 * one), with Rust's legacy mangling undone and the hash dropped. */
function functionNames(wasmPath) {
  const names = new Map();
  const module = new WebAssembly.Module(readFileSync(wasmPath));
  const [section] = WebAssembly.Module.customSections(module, 'name');
  if (!section) return names;
  const bytes = new Uint8Array(section);
  let at = 0;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 1) {
      for (let n = leb(); n > 0; n--) {
        const index = leb();
        const len = leb();
        names.set(index, demangle(new TextDecoder().decode(bytes.subarray(at, at + len))));
        at += len;
      }
    }
    at = end;
  }
  return names;
}

/** `_ZN4core3fmt5write17h…E` → `core::fmt::write`; the hash is dropped from names already
 * demangled (as wasm-bindgen leaves most). */
function demangle(name) {
  if (!name.startsWith('_ZN')) return name.replace(/::h[0-9a-f]{16}$/, '');
  const parts = [];
  let at = 3;
  while (at < name.length && name[at] !== 'E') {
    const digits = /^\d+/.exec(name.slice(at));
    if (!digits) return name;
    at += digits[0].length;
    parts.push(name.slice(at, at + Number(digits[0])));
    at += Number(digits[0]);
  }
  if (/^h[0-9a-f]{16}$/.test(parts.at(-1) ?? '')) parts.pop();
  const escapes = { LT: '<', GT: '>', RF: '&', BP: '*', C: ',', SP: '@', u20: ' ', u27: "'", u5b: '[', u5d: ']', u7b: '{', u7d: '}', u7e: '~' };
  return parts.join('::').replace(/\$(\w+?)\$/g, (m, e) => escapes[e] ?? m).replace(/\.\./g, '::');
}

/** The functions V8 optimized with TurboFan from the start of the first open of `file` by the
 * package in `pkgDir`, in a fresh process, until the second open starts: `{ name, ms, bytes,
 * ready_ms }` each, in the order they were done, `ready_ms` counted from the first open's
 * start; and the first open's length as the trace's timing saw it, `open_ms`. */
async function tierUp(pkgDir, file) {
  const argv = ['--trace-wasm-compilation-times', new URL(import.meta.url).pathname, '--child', pkgDir, file];
  // V8 prints its trace through C's stdio, which buffers a pipe in blocks: under stdbuf each
  // line arrives as it is printed, so its arrival time is when the function was done.
  const lineBuffered = spawnSync('stdbuf', ['--version']).status === 0;
  const child = lineBuffered ? spawn('stdbuf', ['-oL', process.execPath, ...argv]) : spawn(process.execPath, argv);
  const lines = [];
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const now = performance.now();
    partial += chunk;
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
      lines.push({ at: now, text: partial.slice(0, nl) });
      partial = partial.slice(nl + 1);
    }
  });
  child.stderr.resume();
  const code = await new Promise((done) => child.on('close', done));
  if (code !== 0) throw new Error(`--tierup: the traced open exited with ${code}`);
  const names = functionNames(join(pkgDir, 'dist/memdag_wasm_bg.wasm'));
  const start = lines.findIndex((l) => l.text.startsWith(FIRST_OPEN_START));
  const end = lines.findIndex((l) => l.text.startsWith(FIRST_OPEN_END));
  const next = lines.findIndex((l) => l.text.startsWith(SECOND_OPEN_START));
  if (start < 0 || end < start || next < end) throw new Error('--tierup: the open markers are missing from the trace');
  const functions = [];
  for (const { at, text } of lines.slice(start, next)) {
    const m = /#(\d+) using TurboFan, took (\d+) ms.*?bodysize (\d+)/.exec(text);
    if (!m) continue;
    functions.push({
      name: names.get(Number(m[1])) ?? `function #${m[1]}`,
      ms: Number(m[2]),
      bytes: Number(m[3]),
      ready_ms: at - lines[start].at,
    });
  }
  return { open_ms: lines[end].at - lines[start].at, line_buffered: lineBuffered, functions };
}

const args = process.argv.slice(2);

/** A storage adapter over a directory of one file per key (the key URI-encoded), read when
 * asked, as a Worker reads Workers KV: `boundedOpen`, so `Memory.open` reads `head` and the keys
 * it names. Only what an open calls. */
class FileStorage {
  constructor(dir) {
    this.dir = dir;
  }
  get boundedOpen() {
    return true;
  }
  async load(key) {
    try {
      // A Buffer is a Uint8Array: no copy (Workers KV also hands over its own buffer).
      return readFileSync(join(this.dir, encodeURIComponent(key)));
    } catch (e) {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    }
  }
  async loadRange(prefix) {
    return readdirSync(this.dir).map(decodeURIComponent).filter((k) => k.startsWith(prefix)).map((k) => [k, readFileSync(join(this.dir, encodeURIComponent(k)))]);
  }
}

/** Writes the entries of a snapshot file into `dir`, a file per key (see `FileStorage`). */
function writeFiles(file, dir) {
  mkdirSync(dir, { recursive: true });
  for (const [k, v] of readSnapshot(file)) writeFileSync(join(dir, encodeURIComponent(k)), v);
}

if (args[0] === '--child-storage') {
  // `--child-storage PKGDIR DIR`: Memory.open on FileStorage(DIR), twice; the peak resident
  // memory the first open added, and the wasm memory's size after it.
  const [, pkgDir, dir] = args;
  const { Memory } = await import(pathToFileURL(join(pkgDir, 'index.js')).href);
  const { initSync } = await import(pathToFileURL(join(pkgDir, 'dist/memdag_wasm.js')).href);
  const rssBefore = process.memoryUsage().rss;
  const times = [];
  let records = 0;
  let peakKib = 0;
  let wasmBytes = 0;
  for (let i = 0; i < 2; i++) {
    const t = performance.now();
    const memory = await Memory.open({ name: 'bench', storage: new FileStorage(dir), sync: false });
    times.push(performance.now() - t);
    if (i === 0) {
      peakKib = process.resourceUsage().maxRSS;
      wasmBytes = initSync().memory.buffer.byteLength;
    }
    records = memory.len;
    await memory.close();
  }
  console.log(JSON.stringify({ first: times[0], again: times[1], records, peakAddedBytes: peakKib * 1024 - rssBefore, wasmBytes }));
  process.exit(0);
}

if (args[0] === '--child') {
  // One measurement in this fresh process: `--child PKGDIR FILE`.
  const [, pkgDir, file] = args;
  const { Memory } = await import(pathToFileURL(join(pkgDir, 'index.js')).href);
  const entries = readSnapshot(file);
  const times = [];
  let records = 0;
  for (let i = 0; i < 2; i++) {
    // Markers for --tierup, which reads V8's trace of this process from stdout: written at
    // once, not queued behind the stream.
    writeSync(1, `${i === 0 ? FIRST_OPEN_START : SECOND_OPEN_START}\n`);
    const t = performance.now();
    const memory = Memory.load(entries);
    times.push(performance.now() - t);
    if (i === 0) writeSync(1, `${FIRST_OPEN_END}\n`);
    records = memory.len;
    memory.free();
  }
  console.log(JSON.stringify({ first: times[0], again: times[1], records }));
  process.exit(0);
}

const records = Number(option(args, '--records', '100000'));
const precision = option(args, '--precision', 'int8');
const rounds = Number(option(args, '--rounds', '3'));
const json = args.includes('--json');
const variants = args.filter((a) => /^[\w.-]+=/.test(a)).map((a) => {
  const at = a.indexOf('=');
  return { name: a.slice(0, at), dir: resolve(a.slice(at + 1)) };
});
if (variants.length === 0) variants.push({ name: 'pkg', dir: join(root, 'pkg') });

const perVariant = args.includes('--store-per-variant');
const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions } = locomo(resolve(option(args, '--data', defaultData)));
const DIM = 384;
const texts = bench.corpus_texts(records, turns, questions);
const vectors = bench.corpus_vectors(records, 0);
const dir = mkdtempSync(join(tmpdir(), 'memdag-first-open-'));

/** Builds the workload store with the package in `pkgDir` and writes its snapshot to `file`;
 * returns the snapshot's size in bytes. */
async function buildStore(pkgDir, file) {
  const { Memory } = await import(pathToFileURL(join(pkgDir, 'index.js')).href);
  const started = performance.now();
  const memory = new Memory();
  memory.setVectorSettings({ precision });
  for (let i = 0; i < records; i++) {
    const embedding = vectors.subarray(i * DIM, (i + 1) * DIM);
    memory.addTurn({ id: `r${i}`, thread: `t${i % 50}`, user: 'u', createdAt: i, input: texts[i], embedding });
  }
  const snapshot = memory.exportSnapshot();
  memory.free();
  writeFileSync(file, snapshot);
  console.error(`built ${records} records (${precision}) with ${pkgDir} in ${((performance.now() - started) / 1000).toFixed(1)} s: a ${(snapshot.length / 1048576).toFixed(1)} MiB snapshot`);
  return snapshot.length;
}

// One store for all (built with pkg/), or one per variant (built with its own package).
const files = [];
let bytes = 0;
if (perVariant) {
  for (const [i, v] of variants.entries()) {
    files.push(join(dir, `store-${i}.mdagexp`));
    bytes = await buildStore(v.dir, files[i]);
  }
} else {
  const file = join(dir, 'store.mdagexp');
  bytes = await buildStore(join(root, 'pkg'), file);
  variants.forEach(() => files.push(file));
}

const fromStorage = args.includes('--from-storage');
const stored = files.map((file, i) => {
  if (!fromStorage) return file;
  const into = join(dir, `files-${i}`);
  writeFiles(file, into);
  return into;
});
const samples = variants.map(() => ({ first: [], again: [], peak: [], wasm: [] }));
for (let round = 0; round < rounds; round++) {
  variants.forEach((v, i) => {
    const child = fromStorage ? '--child-storage' : '--child';
    const out = childResult(execFileSync(process.execPath, [new URL(import.meta.url).pathname, child, v.dir, stored[i]], { encoding: 'utf8', maxBuffer: 1 << 20 }));
    if (out.records !== records) throw new Error(`${v.name} opened ${out.records} records, not ${records}`);
    samples[i].first.push(out.first);
    samples[i].again.push(out.again);
    if (fromStorage) {
      samples[i].peak.push(out.peakAddedBytes);
      samples[i].wasm.push(out.wasmBytes);
    }
    const memory = fromStorage ? `, peak +${(out.peakAddedBytes / 1048576).toFixed(1)} MiB resident, wasm ${(out.wasmBytes / 1048576).toFixed(1)} MiB` : '';
    console.error(`round ${round + 1} ${v.name}: first ${out.first.toFixed(0)} ms, again ${out.again.toFixed(0)} ms${memory}`);
  });
}
const tierups = [];
if (args.includes('--tierup')) {
  for (const [i, v] of variants.entries()) tierups.push(await tierUp(v.dir, files[i]));
}
rmSync(dir, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const rows = variants.map((v, i) => ({
  variant: v.name,
  records,
  precision,
  first_open_ms: median(samples[i].first),
  again_ms: median(samples[i].again),
  first_ratio: median(samples[i].first.map((x, r) => x / samples[0].first[r])),
  first_each_ms: samples[i].first,
  ...(fromStorage ? { peak_added_mib: median(samples[i].peak) / 1048576, wasm_mib: median(samples[i].wasm) / 1048576 } : {}),
}));
rows.forEach((r, i) => {
  if (tierups[i]) r.tierup = tierups[i];
});
if (json) {
  console.log(JSON.stringify(rows));
} else {
  const stores = perVariant ? 'each variant on a store it built' : `a ${(bytes / 1048576).toFixed(1)} MiB snapshot`;
  console.log(`First open in a fresh Node process (${records} records, ${precision}, ${stores}), median of ${rounds} rounds, variants alternated`);
  const how = fromStorage ? 'Memory.open on a file per key (--from-storage)' : 'Memory.load of the entries';
  console.log(`(${how})`);
  const memory = fromStorage ? ' peak resident MiB added | wasm MiB |' : '';
  console.log(`| variant | first open ms | each | again ms | first vs first variant |${memory}`);
  console.log(`|---|---:|---|---:|---:|${fromStorage ? '---:|---:|' : ''}`);
  for (const r of rows) {
    const m = fromStorage ? ` ${r.peak_added_mib.toFixed(1)} | ${r.wasm_mib.toFixed(1)} |` : '';
    console.log(`| ${r.variant} | ${r.first_open_ms.toFixed(0)} | ${r.first_each_ms.map((x) => x.toFixed(0)).join(', ')} | ${r.again_ms.toFixed(0)} | ${r.first_ratio.toFixed(2)} |${m}`);
  }
  for (const r of rows.filter((x) => x.tierup)) {
    const { open_ms: open, functions, line_buffered: timed } = r.tierup;
    const during = functions.filter((f) => f.ready_ms <= open);
    const sum = (fs) => fs.reduce((a, f) => a + f.ms, 0);
    console.log(`\n${r.variant} (--tierup, one more first open, ${open.toFixed(0)} ms under the trace): ${during.length} functions optimized by its end, ${sum(during)} ms of TurboFan time on V8's background threads; ${functions.length - during.length} more, ${sum(functions) - sum(during)} ms, were done after it${timed ? '' : ' (no stdbuf here: the ready times are when the buffered trace arrived)'}. The slowest to optimize:`);
    console.log('| function | TurboFan ms | body bytes | ready, ms into the open |\n|---|---:|---:|---:|');
    for (const f of [...functions].sort((a, b) => b.ms - a.ms).slice(0, 16)) {
      console.log(`| ${f.name} | ${f.ms} | ${f.bytes} | ${f.ready_ms.toFixed(0)}${f.ready_ms > open ? ' (after)' : ''} |`);
    }
  }
}
