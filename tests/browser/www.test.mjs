// The demo page (www/) in headless Debian Chromium: it loads the built package from ../pkg/,
// adds turns from its form and lists them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { serve } from './static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
let server;
let browser;

before(async () => {
  server = await serve(root);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the page adds a turn from its form and lists it', async () => {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  const wasm = page.waitForResponse((r) => r.url().endsWith('.wasm'));

  await page.goto(`${server.url}/www/`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  const wasmResponse = await wasm;
  assert.equal(wasmResponse.status(), 200);
  assert.equal(wasmResponse.headers()['content-type'], 'application/wasm');

  await page.fill('#thread', 'demo');
  await page.fill('#input', 'what is memdag?');
  await page.fill('#output', 'a DAG of turns');
  await page.click('button[type="submit"]');
  const first = page.locator('.record', { hasText: 'what is memdag?' });
  await first.waitFor({ timeout: 5000 });
  assert.equal(await first.locator('.turn').textContent(), 'what is memdag? → a DAG of turns');
  assert.equal(await first.locator('.parents').textContent(), 'root');
  const firstId = await first.getAttribute('data-id');
  assert.match(firstId, /^[0-9a-f]{16}$/);

  // The form pre-fills the new record as the next turn's parent.
  assert.equal(await page.inputValue('#parents'), firstId);
  await page.fill('#input', 'tell me more');
  await page.click('button[type="submit"]');
  const second = page.locator('.record', { hasText: 'tell me more' });
  await second.waitFor({ timeout: 5000 });
  assert.equal(await second.locator('.parents').textContent(), `parents: ${firstId}`);
  assert.equal(await page.textContent('#count'), '2');
  assert.deepEqual(
    await page.locator('.record .turn').allTextContents(),
    ['tell me more → ', 'what is memdag? → a DAG of turns'],
    'newest first',
  );

  // An unknown parent is refused with its code, and nothing is added.
  await page.fill('#input', 'orphan');
  await page.fill('#parents', 'ghost');
  await page.click('button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#status').textContent !== '');
  assert.match(await page.textContent('#status'), /^UNKNOWN_PARENT: /);
  assert.equal(await page.textContent('#count'), '2');

  assert.deepEqual(problems, []);
  await page.close();
});
