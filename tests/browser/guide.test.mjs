// The guide's browser snippet (the `html browser` block of pkg/README.md) in headless
// Chromium: served as a page with its import map pointed at this checkout's pkg/, it loads the
// package, writes a turn and shows the recall; hidden (the visibilitychange flush) and
// reloaded, it shows both visits, so the turn of the first was stored by that flush alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { GUIDE, snippets } from '../guide/snippets.mjs';
import { launch, watch } from './chromium.mjs';
import { serve } from './static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const [page] = snippets(readFileSync(GUIDE, 'utf8')).filter((b) => b.lang === 'html' && b.marker === 'browser');
let server;
let browser;

before(async () => {
  assert.ok(page, 'the guide has an html browser block');
  assert.ok(page.code.includes('"/node_modules/memdag/index.js"'), 'its import map names the installed package');
  // The one change: the installed package's path becomes this checkout's build.
  // The browser asks for /favicon.ico, which a site has; an empty one keeps the console clean.
  const html = page.code.replace('"/node_modules/memdag/index.js"', '"/pkg/index.js"');
  server = await serve(root, 0, { '/guide.html': html, '/favicon.ico': '' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the guide\'s browser snippet runs, and its visibilitychange flush stores the turn', async () => {
  const context = await browser.newContext();
  const tab = await context.newPage();
  const problems = watch(tab);
  await tab.goto(`${server.url}/guide.html`);
  await tab.waitForFunction(() => document.querySelector('#recall').textContent.includes('opened the page'), null, { timeout: 15000 });
  const first = await tab.textContent('#recall');
  assert.match(first, /^# Memory recall · thread visits/);
  assert.equal(first.match(/opened the page/g).length, 1);

  // Nothing flushed it yet: the database has no commit.
  const stored = () => tab.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('memdag:notes');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction('entries').objectStore('entries').get('head');
      get.onsuccess = () => {
        db.close();
        resolve(get.result != null);
      };
      get.onerror = () => reject(get.error);
    };
  }));
  assert.equal(await stored(), false, 'the turn is not stored before the tab is hidden');
  // The tab is hidden, as when the user switches away (then maybe closes it).
  await tab.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const deadline = Date.now() + 10_000;
  while (!(await stored())) {
    assert.ok(Date.now() < deadline, 'the visibilitychange flush wrote the store');
    await new Promise((r) => setTimeout(r, 50));
  }

  await tab.reload();
  await tab.waitForFunction(() => (document.querySelector('#recall').textContent.match(/opened the page/g) ?? []).length === 2, null, { timeout: 15000 });
  assert.deepEqual(problems, []);
  await context.close();
});
