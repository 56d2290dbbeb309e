// The host side of the memdag component in Node: its kv, embedder and llm imports written in
// JS, and the WASI imports from @bytecodealliance/preview2-shim. Used with the output of
// `jco transpile --instantiation async` (see scripts/test-component-js.sh).
//
// jco's convention for an import returning `result<T, string>`: return T for ok, throw the
// message (a string, not an Error: an Error becomes a trap) for err.

import { readFile } from 'node:fs/promises';
import * as shim from '@bytecodealliance/preview2-shim';

/** A byte-oriented kv in a Map, with list-by-prefix sorted by key, as wasi-keyvalue has it. */
export class MapKv {
  constructor(entries = new Map()) {
    this.entries = entries;
    /** When set, put and delete throw this message (an injected storage failure). */
    this.failWrites = null;
  }

  get(key) {
    return this.entries.get(key);
  }

  put(key, value) {
    if (this.failWrites) throw this.failWrites;
    this.entries.set(key, new Uint8Array(value));
  }

  delete(key) {
    if (this.failWrites) throw this.failWrites;
    this.entries.delete(key);
  }

  listByPrefix(prefix) {
    return [...this.entries]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** A copy of the entries, to compare before and after. */
  dump() {
    return new Map([...this.entries].map(([k, v]) => [k, Buffer.from(v).toString('hex')]));
  }
}

/** `wasi:cli/terminal-input` -> the shim's cli.terminalInput. */
function wasiImports() {
  const out = {};
  const names = [
    'cli/environment', 'cli/exit', 'cli/stderr', 'cli/stdin', 'cli/stdout',
    'cli/terminal-input', 'cli/terminal-output', 'cli/terminal-stderr', 'cli/terminal-stdin',
    'cli/terminal-stdout', 'clocks/monotonic-clock', 'clocks/wall-clock', 'io/error', 'io/poll',
    'io/streams', 'random/insecure-seed',
  ];
  for (const name of names) {
    const [pkg, iface] = name.split('/');
    const member = iface.replace(/-(\w)/g, (_, c) => c.toUpperCase());
    out[`wasi:${name}`] = shim[pkg][member];
  }
  return out;
}

/**
 * Instantiates the transpiled component in `dir` on `kv`, with an optional embedder
 * (`texts => vectors`) and llm (`prompt => answer`). Each call is a fresh instance.
 */
export async function instantiate(dir, { kv, embed, complete } = {}) {
  const { instantiate: make } = await import(`${dir}/memdag_component.js`);
  const getCoreModule = async (path) => WebAssembly.compile(await readFile(new URL(path, `file://${dir}/`)));
  const refuse = (what) => () => {
    throw `no ${what} is plugged into this host`;
  };
  const memdag = {
    kv: {
      get: (k) => kv.get(k),
      put: (k, v) => kv.put(k, v),
      delete: (k) => kv.delete(k),
      listByPrefix: (p) => kv.listByPrefix(p),
    },
    embedder: { embed: embed ?? refuse('embedder') },
    llm: { complete: complete ?? refuse('LLM') },
    query: {},
    types: {},
    items: {},
    work: {},
    graph: {},
  };
  // jco 1.x looks imports up without their version (its .d.ts names them with it).
  const imports = wasiImports();
  for (const [name, value] of Object.entries(memdag)) {
    imports[`memdag:core/${name}`] = value;
    imports[`memdag:core/${name}@0.1.0`] = value;
  }
  return make(getCoreModule, imports);
}
