// The Mode-2 search benchmark in wasm under Node: the same workload as `memdag-bench`.
//
//   node tests/bench/run-wasm.mjs [--sizes 10000,100000] [--json] [--data DIR] [--no-build]
//        [--precision f32|int8|int8+f32]
//   node tests/bench/run-wasm.mjs --seal [--rounds 3] [--sizes ...] [--json]
//   node tests/bench/run-wasm.mjs --memory [--sizes 100000] [--json]
//   node tests/bench/run-wasm.mjs --prepare [--sizes 100000] [--json]
//
// The size table's `prepare p50 ms` is the context pipeline's one call before a turn on the
// workload's store (crates/memdag-bench/src/prepare.rs: 42 messages, oversized tool outputs,
// rules summarizer, the median of 50 calls). --prepare times only that, at each size.
//
// --memory reports long-term memory: the rule-based extractor's quality on
// tests/data/memory/{dev,heldout}.jsonl, the observation figures on LoCoMo's dev conversations
// (--data; else the fixture tests/data/locomo: crates/memdag-bench/src/observations.rs), and memory_add_p99_ms (one item add with its dedup and
// conflict checks into a store of N turns and N/10 items), path_p50_ms (N facts),
// work_update_p99_ms and purge_ms (N/10 expired items), at the largest size.
//
// --seal times only a flush of the whole store and a cold open, plain and encrypted at rest,
// alternated in one run: in wasm alone, plain and sealed by the core (seal v1,
// crates/memdag-bench/src/seal.rs), with the floor native AEADs (node:crypto) would give over
// the same bytes; then through the JS package (pkg/, built by scripts/build-pkg.sh unless
// --no-build) as PersistentMemory runs it: plain, sealed by the core (v1) and sealed by the
// host (v2, pkg/seal.js: node:crypto's AES-256-GCM as in Node, and WebCrypto's as in browsers
// and workerd), with ratios. Both also time the cipher
// alone over the image, a call per stored value and a call per 128 KiB block.
//
// Builds crates/memdag-bench for wasm32-unknown-unknown with the JS package's release settings
// (scripts/build-bench-wasm.sh), runs wasm-bindgen --target nodejs (CLI 0.2.130, as pinned),
// loads it and prints the same table.
// tests/bench/peers.mjs runs this workload too, side by side with the peer engines.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultData, loadBench, locomo, option, root } from './lib.mjs';

const args = process.argv.slice(2);
const sizes = option(args, '--sizes', '10000,100000').split(',').map(Number).filter((n) => n > 0);
const json = args.includes('--json');
const data = resolve(option(args, '--data', defaultData));
const vectorQueries = Number(option(args, '--vector-queries', '500'));
const rebuild = !args.includes('--no-rebuild');
// How the stores keep their vectors (f32, int8, int8+f32); default: the store's default (int8).
const precision = option(args, '--precision', '');

/** LoCoMo's dev conversations with their observations in `dir`, else the repository's fixture
 * (tests/data/locomo): what memdag-bench --memory scores too. */
function observationSets(dir) {
  const read = (d, names) => (names.every((c) => existsSync(join(d, `${c}.observations.jsonl`)))
    ? names.map((c) => ({ turns: readFileSync(join(d, `${c}.turns.jsonl`), 'utf8'), observations: readFileSync(join(d, `${c}.observations.jsonl`), 'utf8') }))
    : null);
  return read(dir, ['conv-26', 'conv-30']) ?? read(new URL('../data/locomo/', import.meta.url).pathname, ['conv-30']);
}

const bench = loadBench({ build: !args.includes('--no-build') });
const { turns, questions } = locomo(data);

if (args.includes('--memory')) {
  const n = Math.max(...sizes);
  const root = new URL('../data/memory/', import.meta.url);
  const dev = readFileSync(new URL('dev.jsonl', root), 'utf8');
  const heldout = readFileSync(new URL('heldout.jsonl', root), 'utf8');
  const r = JSON.parse(bench.memory_json(n, turns, questions, dev, heldout));
  if (r.error) throw new Error(r.error);
  const obs = observationSets(data);
  const observations = JSON.parse(bench.observations_json(obs.map((o) => o.turns), obs.map((o) => o.observations)));
  if (observations.error) throw new Error(observations.error);
  if (json) console.log(JSON.stringify({ ...r, observations, runtime: 'wasm' }));
  else {
    console.log(bench.observations_line(JSON.stringify(observations)));
    for (const set of ['dev', 'heldout']) {
      const a = r[set].all;
      console.log(`extraction ${set}: precision ${a.precision.toFixed(3)} recall ${a.recall.toFixed(3)} duplicates ${a.duplicates} superseded-active ${a.superseded_active}`);
    }
    console.log(bench.memory_table(JSON.stringify([r.speed])));
  }
  process.exit(0);
}

if (args.includes('--prepare')) {
  const rows = sizes.map((n) => JSON.parse(bench.prepare_json(n, turns, questions)));
  if (json) for (const r of rows) console.log(JSON.stringify(r));
  else {
    console.log('| runtime | records | prepare p50 ms (rules, 42 messages, median of calls) |\n|---|---|---|');
    for (const r of rows) console.log(`| ${r.runtime} | ${r.records} | ${r.prepare_p50_ms.toFixed(2)} (${r.calls} calls) |`);
  }
  process.exit(0);
}

if (args.includes('--seal')) {
  const rounds = Number(option(args, '--rounds', '3'));
  // The JS package, as PersistentMemory runs it: its wasm (scripts/build-pkg.sh) and seal.js.
  if (!args.includes('--no-build')) execFileSync('scripts/build-pkg.sh', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const pkg = await import('../../pkg/index.js');
  const { hostSealer } = await import('../../pkg/seal.js');
  const out = [];
  const faces = [];
  for (const n of sizes) {
    const run = bench.seal_run(n, turns, questions, rounds);
    const r = JSON.parse(run.report);
    const image = pkg.decodeExport(run.takeImage());
    run.free();
    if (json) console.log(JSON.stringify(r));
    out.push(r);
    const face = { records: n, ...await faceCosts(pkg, hostSealer, image, rounds) };
    if (json) console.log(JSON.stringify({ face }));
    else console.error(`done: ${n} records`);
    faces.push(face);
  }
  // The floor under any cipher: native AEADs (OpenSSL through node:crypto, one thread) over
  // as many bytes as the plain image, added to the plain flush and open of the same run. A
  // sealed store cannot beat these ratios, whatever cipher runs inside the wasm.
  const floors = out.map((r) => ({ records: r.records, ...aeadFloor(r) }));
  if (json) console.log(JSON.stringify({ aead_floor: floors }));
  else {
    console.log('In wasm alone (crates/memdag-bench/src/seal.rs): plain and sealed by the core (v1)');
    console.log(bench.seal_table(JSON.stringify(out)));
    console.log('| records | native AEAD (node:crypto) | seal ms | open ms | best flush ratio | best open ratio |\n|---|---|---|---|---|---|');
    for (const f of floors) {
      for (const a of f.aeads) console.log(`| ${f.records} | ${a.name} | ${a.seal_ms.toFixed(0)} | ${a.open_ms.toFixed(0)} | ${a.flush_ratio.toFixed(3)} | ${a.open_ratio.toFixed(3)} |`);
    }
    console.log(`\nThrough the JS package (Memory.takeChanges, Memory.load), plain, sealed by the core (v1) and by the host (v2, pkg/seal.js: node:crypto as PersistentMemory in Node, WebCrypto as in browsers and workerd), median of ${rounds} rounds (each ratio: the median of the ratios within a round): wall ms, and the process's CPU ms (Node's WebCrypto runs on libuv's thread pool)`);
    console.log('| records | stored MB | | flush plain / v1 / v2 node / v2 web | ratio v1 / v2 node / v2 web | cold open plain / v1 / v2 node / v2 web | ratio v1 / v2 node / v2 web |\n|---|---|---|---|---|---|---|');
    const ms = (x) => x.toFixed(0);
    const MODES = ['plain', 'v1', 'v2', 'v2web'];
    for (const f of faces) {
      for (const [what, k] of [['wall', ''], ['cpu', '_cpu']]) {
        const cells = (phase) => [MODES.map((m) => ms(f.modes[m][phase + k])).join(' / '), MODES.slice(1).map((m) => f.modes[m].ratio[phase + k].toFixed(3)).join(' / ')];
        console.log(`| ${f.records} | ${f.stored_mb.toFixed(1)} | ${what} | ${cells('flush').join(' | ')} | ${cells('open').join(' | ')} |`);
      }
    }
    console.log('\n| records | host AES-256-GCM alone over the image (wall ms) | seal | open |\n|---|---|---|---|');
    for (const f of faces) {
      for (const [what, w] of Object.entries(f.alone)) {
        const label = what.replace('v2web', 'WebCrypto').replace('v2', 'node:crypto').replace('value', 'a call per value').replace('block', 'a call per 128 KiB block');
        console.log(`| ${f.records} | ${label} | ${ms(w[0])} | ${ms(w[1])} |`);
      }
    }
  }
  process.exit(0);
}

/** A full rewrite and a cold open of `image` through the JS package, plain, sealed by the core
 * (v1) and sealed by the host (v2 through pkg/seal.js as PersistentMemory does, with node:crypto
 * and with WebCrypto), alternated in a rotating order over `rounds` timed rounds after one
 * warm-up: the median wall and CPU ms of each; then each host cipher alone over the image, a call per value and
 * per 128 KiB block. */
async function faceCosts({ Memory }, hostSealer, image, rounds) {
  const KEY = new Uint8Array(32).fill(0x5e);
  // PersistentMemory's in Node (node:crypto), and the browsers' and workerd's (WebCrypto).
  const hosts = { v2: await hostSealer(KEY), v2web: await hostSealer(KEY, { webCrypto: true }) };
  if (!hosts.v2 || !hosts.v2web) throw new Error('no WebCrypto in this Node');
  const keys = image.map(([k]) => k);
  const hostMode = (host) => ({
    memory: () => withCall(Memory.load(image, KEY, keys), (m) => m.prepareToReplace(keys)),
    seal: (changes) => host.sealChanges(changes),
    open: async (e) => {
      const opened = await host.openEntries(e);
      return Memory.load(opened.entries, KEY, opened.opened);
    },
  });
  const modes = {
    // setKey and prepareToReplace make the next takeChanges a full rewrite.
    plain: { memory: () => withCall(Memory.load(image), (m) => m.setKey(null)), open: (e) => Memory.load(e) },
    v1: { memory: () => withCall(Memory.load(image), (m) => m.setKey(KEY)), open: (e) => Memory.load(e, KEY) },
    v2: hostMode(hosts.v2),
    v2web: hostMode(hosts.v2web),
  };
  const samples = Object.fromEntries(Object.keys(modes).map((m) => [m, { flush: [], open: [], flush_cpu: [], open_cpu: [] }]));
  const time = async (f) => {
    const [t, c] = [performance.now(), process.cpuUsage()];
    const value = await f();
    const cpu = process.cpuUsage(c);
    return [value, performance.now() - t, (cpu.user + cpu.system) / 1000];
  };
  const order = Object.entries(modes);
  for (let round = 0; round <= rounds; round++) {
    // Each round starts with the next mode, so no mode always follows the same one.
    for (const [name, mode] of [...order.slice(round % order.length), ...order.slice(0, round % order.length)]) {
      const memory = mode.memory();
      const [changes, flush, flushCpu] = await time(async () => {
        const taken = memory.takeChanges();
        return mode.seal ? mode.seal(taken) : taken;
      });
      memory.free();
      const entries = changes.filter(([, v]) => v);
      const [opened, open, openCpu] = await time(() => mode.open(entries));
      if (opened.len === 0 || name.startsWith('v2') !== opened.hostSeals) throw new Error(`${name}: opened ${opened.len}`);
      opened.free();
      if (round > 0) {
        const s = samples[name];
        s.flush.push(flush); s.open.push(open); s.flush_cpu.push(flushCpu); s.open_cpu.push(openCpu);
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  // Each time is the median over the rounds; each ratio the median of the ratios within a
  // round (the modes of a round ran back to back, so a change in the machine's load moves
  // both sides of it).
  const result = Object.fromEntries(Object.entries(samples).map(([m, s]) => [m, Object.fromEntries(Object.entries(s).map(([k, xs]) => [k, median(xs)]))]));
  for (const [m, s] of Object.entries(samples)) {
    result[m].ratio = Object.fromEntries(Object.entries(s).map(([k, xs]) => [k, median(xs.map((x, i) => x / samples.plain[k][i]))]));
  }
  // Each host cipher alone over the plain image: a call per value, or per 128 KiB block of it.
  const alone = {};
  for (const [cipher, host] of Object.entries(hosts)) {
    for (const [name, piece] of [['value', Infinity], ['block', 128 << 10]]) {
      const pieces = image.flatMap(([k, v]) => {
        const out = [];
        for (let at = 0, i = 0; at < v.length; at += piece, i++) out.push([`${k}#${i}`, v.subarray(at, Math.min(v.length, at + piece))]);
        return out;
      });
      let best = [Infinity, Infinity];
      for (let pass = 0; pass < 2; pass++) {
        const [sealed, seal] = await time(() => host.sealChanges(pieces));
        const [opened, open] = await time(() => host.openEntries(sealed));
        if (opened.opened.length !== pieces.length) throw new Error(`${cipher}: not every piece opened`);
        best = [Math.min(best[0], seal), Math.min(best[1], open)];
      }
      alone[`${cipher} ${name}`] = best;
    }
  }
  const stored = image.reduce((sum, [k, v]) => sum + k.length + v.length, 0);
  return { stored_mb: stored / 1e6, modes: result, alone };
}

/** `value` after `f(value)`. */
function withCall(value, f) {
  f(value);
  return value;
}

/** Seals and opens `r.stored_mb` of bytes in 1 MiB values with each native AEAD, the best of
 * three passes, and the flush and open ratios that would give beside `r`'s plain times. */
function aeadFloor(r) {
  const part = 1 << 20;
  const count = Math.max(1, Math.round((r.stored_mb * 1e6) / part));
  const values = Array.from({ length: count }, (_, i) => Buffer.alloc(part, i & 255));
  const key = Buffer.alloc(32, 0x5e);
  const aad = Buffer.from('seg/0000000000000003/0');
  const aeads = ['chacha20-poly1305', 'aes-256-gcm'].map((name) => {
    let seal = Infinity;
    let open = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      let t = performance.now();
      const sealed = values.map((v) => {
        const iv = crypto.randomBytes(12);
        const c = crypto.createCipheriv(name, key, iv, { authTagLength: 16 }).setAAD(aad);
        return [iv, Buffer.concat([c.update(v), c.final()]), c.getAuthTag()];
      });
      seal = Math.min(seal, performance.now() - t);
      t = performance.now();
      for (const [iv, body, tag] of sealed) {
        const d = crypto.createDecipheriv(name, key, iv, { authTagLength: 16 }).setAAD(aad);
        d.setAuthTag(tag);
        Buffer.concat([d.update(body), d.final()]);
      }
      open = Math.min(open, performance.now() - t);
    }
    return { name, seal_ms: seal, open_ms: open, flush_ratio: (r.flush_ms + seal) / r.flush_ms, open_ratio: (r.open_ms + open) / r.open_ms };
  });
  return { mb: (count * part) / 1e6, aeads };
}

const reports = [];
for (const n of sizes) {
  const r = bench.run_size_json(n, turns, questions, vectorQueries, rebuild, precision);
  if (json) console.log(r);
  else console.error(`done: ${n} records`);
  reports.push(JSON.parse(r));
}
const recall = turns.length ? bench.locomo_json(turns, questions) : '[]';
if (json) {
  if (turns.length) console.log(JSON.stringify({ locomo: JSON.parse(recall), runtime: 'wasm' }));
} else {
  console.log(bench.sizes_table(JSON.stringify(reports)));
  if (turns.length) console.log(`LoCoMo dev evidence recall (${data})\n${bench.recall_table(recall)}`);
}
