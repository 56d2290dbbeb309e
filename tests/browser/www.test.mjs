// The memory explorer (www/) in headless Chromium with a profile on disk: store turns through
// its form, restart the browser, and find the turns, the DAG, Chinese search and the recall
// block still there. Saves a screenshot to tests/out/explorer.png (and, with
// UPDATE_SCREENSHOTS=1, to the committed tests/screenshots/explorer.png).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchPersistent, watch } from './chromium.mjs';
import { serve } from './static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const profile = mkdtempSync(join(tmpdir(), 'memdag-profile-'));
let server;

before(async () => {
  server = await serve(root);
});

after(async () => {
  await server?.close();
  rmSync(profile, { recursive: true, force: true });
});

async function explorer(context) {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.setViewportSize({ width: 1500, height: 900 });
  const problems = watch(page);
  await page.goto(`${server.url}/www/?store=e2e`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 15000 });
  return { page, problems };
}

async function addTurn(page, { thread, input, output, tags = '' }) {
  await page.fill('#thread', thread);
  await page.fill('#input', input);
  await page.fill('#output', output);
  await page.fill('#tags', tags);
  await page.click('#turn-form button[type="submit"]');
  await page.locator('#turns .record', { hasText: input }).waitFor({ timeout: 5000 });
  return page.locator('#turns .record', { hasText: input }).getAttribute('data-id');
}

test('turns, the DAG, search and recall survive a browser restart', async () => {
  let context = await launchPersistent(profile);
  let { page, problems } = await explorer(context);
  // Each new turn pre-fills the parents field with the one before, so they form a chain;
  // the third names two parents, making a merge.
  const first = await addTurn(page, { thread: 'demo', input: 'what is memdag?', output: 'a DAG of turns' });
  const second = await addTurn(page, { thread: 'demo', input: '我们讨论了数据库迁移的计划', output: '好的，先备份', tags: 'db' });
  await page.fill('#parents', `${first}, ${second}`);
  const third = await addTurn(page, { thread: 'demo', input: 'merge both ideas', output: 'done' });
  const other = await addTurn(page, { thread: 'other', input: 'another thread', output: 'ok' });
  assert.equal(await page.textContent('#count'), '4');
  assert.deepEqual(problems, []);
  await context.close();

  context = await launchPersistent(profile);
  ({ page, problems } = await explorer(context));
  assert.equal(await page.textContent('#count'), '4', 'the store was reloaded from IndexedDB');
  assert.deepEqual(await page.locator('#threads li').allTextContents(), ['other (1)', 'demo (3)']);
  await page.click('#threads li[data-thread="demo"]');
  assert.deepEqual(
    await page.locator('#turns .record .turn').allTextContents(),
    ['merge both ideas → done', '我们讨论了数据库迁移的计划 → 好的，先备份', 'what is memdag? → a DAG of turns'],
  );

  await page.click(`#turns .record[data-id="${third}"]`);
  assert.equal(await page.textContent('#record-id'), third);
  assert.equal(await page.textContent('#record-meta dd[data-field="parents"]'), `${first}, ${second}`);
  // Ancestors first and second above it; below, the turn of the other thread that used it.
  assert.equal(await page.locator('#dag svg .node').count(), 4);
  assert.equal(await page.locator(`#dag line[data-edge="${third}->${other}"]`).count(), 1);
  assert.equal(await page.locator(`#dag line[data-edge="${first}->${third}"]`).count(), 1);
  assert.equal(await page.locator(`#dag line[data-edge="${second}->${third}"]`).count(), 1);
  assert.match(await page.textContent('#raw-log'), /user: merge both ideas/);

  await page.click('#compact');
  await page.locator('#compact-node .section-name').first().waitFor({ timeout: 5000 });

  // A Chinese record is found by a two-character word; filters apply inside the search.
  await page.fill('#search-text', '迁移');
  await page.selectOption('#search-mode', 'bm25');
  await page.fill('#filter-thread', 'other');
  await page.click('#search-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#status').textContent === 'no hits');
  await page.fill('#filter-thread', '');
  await page.fill('#filter-tags', 'db');
  await page.click('#search-form button[type="submit"]');
  await page.locator('#hits .hit').first().waitFor({ timeout: 5000 });
  assert.equal(await page.locator('#hits .hit').count(), 1);
  assert.equal(await page.locator('#hits .hit').first().getAttribute('data-id'), second);
  assert.equal(await page.locator('#hits .hit mark').first().textContent(), '迁移');

  assert.equal(await page.textContent('#recall-thread'), 'demo');
  const tokens = Number(await page.textContent('#recall-tokens'));
  assert.ok(tokens > 0 && tokens <= 600, `recall tokens ${tokens}`);
  assert.match(await page.textContent('#recall-block'), /# Memory recall · thread demo/);

  // Export then import into another store keeps every record.
  const moved = await page.evaluate(async () => {
    const bytes = window.memdag.memory.exportBytes();
    const { Memory } = await import('/pkg/index.js');
    const copy = await Memory.open({ name: 'e2e-copy' });
    await copy.importBytes(bytes);
    return copy.len;
  });
  assert.equal(moved, 4);

  mkdirSync(join(root, 'tests/out'), { recursive: true });
  await page.screenshot({ path: join(root, 'tests/out/explorer.png'), fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS) {
    await page.screenshot({ path: join(root, 'tests/screenshots/explorer.png'), fullPage: true });
  }
  assert.deepEqual(problems, []);
  await context.close();
});
