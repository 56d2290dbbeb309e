// The modules of a Worker for miniflare: the entry and every module it loads, following
// static imports (`import`/`export ... from './x'`), with `.wasm` imports as CompiledWasm
// modules. The entry may be given as text at a path of its own (a snippet of the guide).

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Every module reached from `start`; `contents`, when given, is the entry's text. */
export function bundle(start, contents) {
  const seen = new Map();
  const visit = (path, given) => {
    if (seen.has(path)) return;
    const bytes = given === undefined ? readFileSync(path) : Buffer.from(given);
    if (path.endsWith('.wasm')) {
      seen.set(path, { type: 'CompiledWasm', path, contents: bytes });
      return;
    }
    const text = bytes.toString('utf8');
    seen.set(path, { type: 'ESModule', path, contents: text });
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gms)) {
      visit(resolve(dirname(path), m[1]));
    }
    for (const m of text.matchAll(/^\s*import\s+['"](\.[^'"]+)['"]/gm)) visit(resolve(dirname(path), m[1]));
  };
  visit(start, contents);
  return [...seen.values()];
}

/** A wasm module's bytes with its memory's maximum set to `pages` (64 KiB each): past it an
 * allocation fails, as in a Worker at its memory limit (workerd enforces none locally). */
export function capMemory(wasm, pages) {
  const bytes = new Uint8Array(wasm);
  const leb = (at) => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return [value, at];
    }
  };
  const put = (v) => {
    const out = [];
    do {
      let b = v % 128;
      v = Math.floor(v / 128);
      if (v > 0) b |= 0x80;
      out.push(b);
    } while (v > 0);
    return out;
  };
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = leb(at + 1);
    if (id === 5) {
      const [count, p] = leb(body);
      if (count !== 1 || bytes[p] > 1) throw new Error(`unexpected memory section (count ${count}, flags ${bytes[p]})`);
      const [min] = leb(p + 1);
      if (min > pages) throw new Error(`the module starts with ${min} pages, above the cap of ${pages}`);
      const content = [1, 1, ...put(min), ...put(pages)];
      const section = [5, ...put(content.length), ...content];
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(section), bytes.subarray(body + size)]);
    }
    at = body + size;
  }
  throw new Error('the module defines no memory (imported memory is not supported here)');
}
