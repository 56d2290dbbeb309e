// Launching Debian's Chromium for the browser tests, headless, with the flags this machine
// needs, and collecting a page's errors.
import { chromium } from 'playwright-core';

export const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const options = { executablePath: '/usr/bin/chromium', headless: true, args: ARGS };

/** A fresh browser (no profile on disk); `extra` are more command-line flags. */
export const launch = (extra = []) => chromium.launch({ ...options, args: [...ARGS, ...extra] });

/** A browser context whose profile lives in `dir`, so IndexedDB survives a relaunch; `extra`
 * are more command-line flags. */
export const launchPersistent = (dir, extra = []) =>
  chromium.launchPersistentContext(dir, { ...options, args: [...ARGS, ...extra] });

/** Records page errors and console errors/warnings of `page` into the returned array. */
export function watch(page) {
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  return problems;
}
