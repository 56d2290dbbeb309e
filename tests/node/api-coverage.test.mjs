// Every public name of the JS package is used by a test: the methods and accessors of
// Memory.prototype, PersistentMemory.prototype and StoredEntries.prototype, their static
// methods, and the package's exported free functions, enumerated from the built package at run
// time.
//
// What "used" means here: a static scan of the test sources, tests/node/*.test.mjs and
// tests/browser/*.test.mjs (this file excluded, comments stripped), finds
//   - a method or static method `name` called as `.name(` (or `.name?.(`);
//   - a free function `name` called as `name(` (not after a dot);
//   - an accessor `name` read as `.name` (not followed by `(`), or set as `.name =`.
// It is a scan, not a trace: it cannot tell which object a call is on, so `.get(` on a Map
// counts for `Memory.get`. Names that are that common in JS (see COMMON) must also be called
// on an object named like a memory (`mem`, `memory`, `again`, ...), which the scan checks.
// Nor which class: a name both Memory and PersistentMemory have counts for both once used.
// Calls in the browser tests run in Chromium; the scan reads them from the test files all
// the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as pkg from '../../pkg/index.js';

const { Memory, PersistentMemory, StoredEntries } = pkg;

/** wasm-bindgen's own helpers on classes and prototypes: not the package's API. */
const GENERATED = new Set(['__wrap', '__destroy_into_raw', '__unwrap']);

/** Names common enough on other objects that a bare `.name(` proves nothing. */
const COMMON = new Set(['get', 'delete', 'search', 'free', 'load', 'open', 'len', 'path', 'flush', 'close']);

/** A receiver that is a memory in the tests' naming. */
const MEMORY_RECEIVER = String.raw`\b(?:mem|memory|again|one|two|other|copy|target|fresh|reader2|loaded|durable|stored|back|mdag|m|p|Memory|PersistentMemory|window\.memdag\.memory|[a-z]+Mem|[a-z]+Memory)`;

const members = (o) => Object.getOwnPropertyNames(o)
  .filter((n) => !['constructor', 'length', 'name', 'prototype'].includes(n) && !GENERATED.has(n));

const isClass = (f) => /^class\b/.test(Function.prototype.toString.call(f));

/** `[label, name, kind]` for every public name; kind: method, accessor or function. */
function publicNames() {
  const out = [];
  for (const [cls, label] of [[Memory, 'Memory'], [PersistentMemory, 'PersistentMemory'], [StoredEntries, 'StoredEntries']]) {
    for (const name of members(cls.prototype)) {
      const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
      out.push([`${label}.prototype.${name}`, name, typeof d.value === 'function' ? 'method' : 'accessor']);
    }
    for (const name of members(cls)) {
      if (typeof cls[name] === 'function') out.push([`${label}.${name}`, name, 'method']);
    }
  }
  for (const [name, value] of Object.entries(pkg)) {
    if (typeof value === 'function' && !isClass(value)) out.push([name, name, 'function']);
  }
  return out;
}

/** The test sources, comments stripped. */
function sources() {
  const here = fileURLToPath(import.meta.url);
  const dirs = ['../node/', '../browser/'].map((d) => new URL(d, import.meta.url));
  const texts = [];
  for (const dir of dirs) {
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.test.mjs')) continue;
      const path = fileURLToPath(new URL(file, dir));
      if (path === here) continue;
      const text = readFileSync(path, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[\s;])\/\/.*$/gm, '$1');
      texts.push(text);
    }
  }
  return texts.join('\n');
}

const escape = (s) => s.replace(/[$]/g, '\\$');

function used(text, name, kind) {
  const n = escape(name);
  if (kind === 'function') return new RegExp(String.raw`(?<![.\w$])${n}\s*\(`).test(text);
  const receiver = COMMON.has(name) ? MEMORY_RECEIVER : '';
  if (kind === 'method') return new RegExp(String.raw`${receiver}\??\.${n}\s*(?:\?\.)?\(`).test(text);
  return new RegExp(String.raw`${receiver}\??\.${n}\b(?!\s*\()`).test(text);
}

test('the scan finds what it should and nothing else', () => {
  assert.ok(used('x = mem.get(id)', 'get', 'method'));
  assert.ok(!used('x = map.get(id)', 'get', 'method'), 'a common name needs a memory receiver');
  assert.ok(used('a.recallView({})', 'recallView', 'method'));
  assert.ok(!used('a.recallViewer({})', 'recallView', 'method'));
  assert.ok(used('m.autoEmbed = false', 'autoEmbed', 'accessor'));
  assert.ok(!used('m.autoEmbed()', 'autoEmbed', 'accessor'));
  assert.ok(used('countTokens("x")', 'countTokens', 'function'));
  assert.ok(!used('mem.countTokens("x")', 'countTokens', 'function'));
});

test('every public method, accessor and free function of the package is used by a test', () => {
  const names = publicNames();
  assert.ok(names.length > 150, `${names.length} names enumerated`);
  for (const expected of ['Memory.prototype.addTurn', 'PersistentMemory.prototype.importMarkdown', 'Memory.load', 'countTokens', 'workersKv']) {
    assert.ok(names.some(([label]) => label === expected), `${expected} is enumerated`);
  }
  const text = sources();
  const missing = names.filter(([, name, kind]) => !used(text, name, kind)).map(([label]) => label);
  assert.deepEqual(missing, [], `not used by any test in tests/node or tests/browser:\n  ${missing.join('\n  ')}`);
});
