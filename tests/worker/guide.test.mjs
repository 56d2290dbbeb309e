// The guide's Worker snippets (the `js worker` blocks of pkg/README.md) on real workerd through
// miniflare, each as written but for `'memdag'` resolved to this checkout's Workers entry
// (pkg/workerd.js, what the package's `workerd` export condition names): each stores a turn
// from a POST and answers a recall that shows it, per user, across requests, and keeps one
// user's memory from another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

import { GUIDE, resolvePackage, snippets } from '../guide/snippets.mjs';
import { bundle } from './bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const workers = snippets(readFileSync(GUIDE, 'utf8')).filter((b) => b.lang === 'js' && b.marker === 'worker');

test('the guide has its two Worker snippets', () => {
  assert.equal(workers.length, 2);
});

for (const snippet of workers) {
  test(`guide Worker snippet at pkg/README.md:${snippet.line} runs on workerd`, async () => {
    // A path of its own under the repository, so the package resolves relative to it.
    const entry = join(root, 'tests/worker', `guide-${snippet.line}.mjs`);
    const specifier = `./${relative(dirname(entry), join(root, 'pkg/workerd.js'))}`;
    const code = resolvePackage(snippet.code, specifier);
    const durable = /export class AgentMemory/.test(code);
    const mf = new Miniflare({
      modules: bundle(entry, code),
      modulesRoot: root,
      compatibilityDate: '2025-01-01',
      kvNamespaces: ['MEM'],
      ...(durable ? { durableObjects: { AGENT_MEMORY: 'AgentMemory' } } : {}),
    });
    try {
      const send = (path, body) => mf.dispatchFetch(`http://guide.test${path}`, body && {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      let res = await send('/?user=ada', { input: 'we deploy on Fridays', output: 'noted' });
      assert.equal(res.status, 200, await res.clone().text());
      const { id } = await res.json();
      assert.match(id, /^[0-9a-f]{16}$/);
      res = await send('/?user=ada', { input: 'the staging cluster is eu-west', output: 'ok' });
      assert.equal(res.status, 200);
      const block = await (await send('/?user=ada&q=deploy')).text();
      assert.match(block, /^# Memory recall · thread ada · user ada/);
      assert.ok(block.includes(`[${id}]`) && block.includes('we deploy on Fridays'), block);
      assert.ok(block.includes('eu-west'), 'both requests were stored');
      const other = await (await send('/?user=bob&q=deploy')).text();
      assert.ok(!other.includes('Fridays'), "bob's memory does not hold ada's turns");
      if (!durable) {
        const ns = await mf.getKVNamespace('MEM');
        const { keys } = await ns.list({ prefix: 'ada/' });
        assert.ok(keys.some((k) => k.name === 'ada/head'), 'stored in Workers KV under the user prefix');
      }
    } finally {
      await mf.dispose();
    }
  });
}
