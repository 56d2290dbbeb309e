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
