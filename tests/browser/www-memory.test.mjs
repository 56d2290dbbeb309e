// The explorer's memory views in headless Chromium, on a fixed clock (Wednesday 15 May 2024,
// noon in Asia/Shanghai, UTC+8): turns with facts and working memory scripted through the
// page, then what each tab shows. Memory: learning from a thread, a contradiction, an edit
// (a new version), a soft delete, the add form, filters, history and resolution log, sources
// opening their turns. Working memory: goal, push/pop, a task marked done, constraints,
// notes, the change history, and recall showing it with the known section. Timeline: local
// days (a turn at 20:00 UTC falls on the next local day). Graph: nodes and labelled edges,
// an edge's item, a highlighted 3-hop path. Search: scope and the understood time range.
// Saves tests/out/{memory,working-memory,timeline,graph}.png (and, with UPDATE_SCREENSHOTS=1,
// the committed copies in tests/screenshots/).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { launch, watch } from './chromium.mjs';
import { serve } from './static-server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const HOUR = 3_600_000;
/** Noon on Wednesday 15 May 2024 in Shanghai. */
const NOW = Date.UTC(2024, 4, 15, 4);
/** A local (UTC+8) time on May `day` at `hour`. */
const local = (day, hour, minute = 0) => Date.UTC(2024, 4, day, hour - 8, minute);

let server;
let browser;
let page;
let problems;

before(async () => {
  server = await serve(root);
  browser = await launch();
  const context = await browser.newContext({ timezoneId: 'Asia/Shanghai', viewport: { width: 1600, height: 1000 } });
  await context.clock.install({ time: NOW });
  page = await context.newPage();
  problems = watch(page);
  await page.goto(`${server.url}/www/?store=memory-views-${process.pid}`);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 15000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function screenshot(name) {
  mkdirSync(join(root, 'tests/out'), { recursive: true });
  await page.screenshot({ path: join(root, 'tests/out', name), fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: join(root, 'tests/screenshots', name), fullPage: true });
}

/** Runs `action` and waits for the page to report in the status line. */
async function andStatus(action) {
  await page.evaluate(() => { document.querySelector('#status').textContent = ''; });
  await action();
  await page.waitForFunction(() => document.querySelector('#status').textContent !== '', null, { timeout: 5000 });
  return page.textContent('#status');
}

const texts = (sel) => page.locator(sel).allTextContents();
const attrs = (sel, name) => page.locator(sel).evaluateAll((els, n) => els.map((e) => e.getAttribute(n)), name);

async function addItem({ user = 'ada', kind = 'fact', text, subject = '', relation = '', object = '', ttl = '' }) {
  if (await page.locator('#item-form').isHidden()) await page.click('#item-add-toggle');
  await page.fill('#new-item-user', user);
  await page.selectOption('#new-item-kind', kind);
  await page.fill('#new-item-text', text);
  await page.fill('#new-item-subject', subject);
  await page.fill('#new-item-relation', relation);
  await page.fill('#new-item-object', object);
  await page.fill('#new-item-ttl', ttl);
  return andStatus(() => page.click('#item-form button[type="submit"]'));
}

/** The id of the item whose text is `text`, whatever its status. */
const itemId = (text) => page.evaluate((t) => window.memdag.memory.listItems({ all: true, limit: 1000 }).find((i) => i.text === t)?.id, text);

test('a store scripted through the page: turns on three local days and a turn typed in', async () => {
  // Turns at past times go through the page's memory; the last one through the form (now).
  await page.evaluate(async (turns) => {
    for (const t of turns) await window.memdag.memory.add(t);
    window.memdag.render();
  }, [
    { id: 'berlin', thread: 'trip', user: 'ada', input: 'I live in Berlin. I am allergic to peanuts.', output: 'Noted.', createdAt: local(13, 10) },
    { id: 'paris', thread: 'trip', user: 'ada', input: 'I moved to Paris.', output: 'Congratulations on the move!', createdAt: local(14, 9), parents: ['berlin'] },
    { id: 'deploy', thread: 'trip', user: 'ada', input: 'Always run the tests before you deploy.', output: 'Will do.', createdAt: Date.UTC(2024, 4, 14, 20), parents: ['paris'] },
    { id: 'wang1', thread: '搬家', user: '王磊', input: '我叫王磊，住在上海，是做产品经理的', output: '你好，王磊！', createdAt: local(13, 15) },
    { id: 'wang2', thread: '搬家', user: '王磊', input: '我搬到北京了', output: '祝新家一切顺利', createdAt: local(14, 18), parents: ['wang1'] },
  ]);
  await page.click('#threads li[data-thread="trip"]');
  await page.fill('#thread', 'trip');
  await page.fill('#user', 'ada');
  await page.fill('#parents', 'deploy');
  await page.fill('#input', 'I prefer window seats on flights.');
  await page.fill('#output', 'Window seats it is.');
  await page.click('#turn-form button[type="submit"]');
  await page.locator('#turns .record', { hasText: 'window seats' }).waitFor({ timeout: 5000 });
  assert.equal(await page.textContent('#count'), '6');
  assert.deepEqual(problems, []);
});

test('Memory: learn from threads, a contradiction, an edit, a delete, the add form and the filters', async () => {
  await page.click('#tabs [data-tab="memory"]');
  assert.equal(await page.textContent('#learn-thread'), 'Learn from thread “trip”');
  const summary = await andStatus(() => page.click('#learn-thread'));
  assert.equal(summary, '4 added, 1 superseded');
  assert.deepEqual(await attrs('#learn-report li', 'data-outcome'), ['added', 'added', 'superseded', 'added', 'added']);
  assert.match(await page.textContent('#learn-report p'), /Learned from 4 turns of “trip”/);
  await page.click('#threads li[data-thread="搬家"]');
  assert.equal(await andStatus(() => page.click('#learn-thread')), '3 added, 1 superseded');

  // The user picker lists users from memory.users(); the list follows it.
  assert.deepEqual(await attrs('#item-user option', 'value'), ['', 'ada', '王磊'], 'newest first');
  await page.selectOption('#item-user', 'ada');
  assert.deepEqual((await texts('#items li .text')).sort(), [
    'Ada is allergic to peanuts', 'Ada prefers window seats on flights', 'Always run the tests before you deploy', 'Lives in Paris',
  ]);
  assert.equal(await page.textContent('#items-count'), '4 active items');
  await page.selectOption('#item-status', 'all');
  const berlin = await itemId('Lives in Berlin');
  assert.equal(await page.getAttribute(`#items li[data-id="${berlin}"]`, 'data-status'), 'superseded');

  // The rules' contradiction: Paris superseded Berlin; history shows both, the log why.
  const paris = await itemId('Lives in Paris');
  await page.click(`#items li[data-id="${paris}"]`);
  assert.equal(await page.textContent('#item-id'), paris);
  assert.deepEqual(await attrs('#item-history tbody tr', 'data-id'), [berlin, paris]);
  assert.deepEqual(await attrs('#item-history tbody tr', 'class'), ['predecessor', 'own']);
  assert.deepEqual(await texts('#item-history tbody tr td:nth-child(6)'), ['superseded', 'active']);
  assert.deepEqual(await texts('#item-history tbody tr td:nth-child(5)'), ['2024-05-14 09:00', 'now'], 'Berlin was valid until Paris was said');
  assert.equal(await page.textContent('#item-meta dd[data-field="supersedes"]'), berlin);
  assert.deepEqual(await attrs('#item-log tbody tr', 'data-action'), ['added']);
  assert.match(await page.textContent('#item-log tbody'), /a new value of residence/);

  // A source opens its turn in the Turns tab, which lists what was learned from it.
  await page.click(`#items li[data-id="${paris}"] .sources a[data-open="paris"]`);
  assert.equal(await page.getAttribute('#tabs [aria-selected="true"]', 'data-tab'), 'turns');
  assert.equal(await page.textContent('#record-id'), 'paris');
  assert.equal(await page.textContent('#record-meta dd[data-field="learned"]'), 'Lives in Paris');
  await page.click('#record-meta dd[data-field="learned"] a');
  assert.equal(await page.getAttribute('#tabs [aria-selected="true"]', 'data-tab'), 'memory');
  assert.equal(await page.textContent('#item-id'), paris);

  // An edit is a new version; the history keeps the first.
  const peanuts = await itemId('Ada is allergic to peanuts');
  await page.click(`#items li[data-id="${peanuts}"]`);
  await page.fill('#item-edit-text', 'Allergic to peanuts and cashews');
  assert.equal(await andStatus(() => page.click('#item-edit button[type="submit"]')), `${peanuts}: version 2`);
  assert.deepEqual(await texts('#item-history tbody tr td:nth-child(3)'), ['Ada is allergic to peanuts', 'Allergic to peanuts and cashews']);
  assert.deepEqual(await attrs('#item-history tbody tr', 'data-version'), ['1', '2']);
  assert.match(await page.textContent(`#items li[data-id="${peanuts}"]`), /v2.*Allergic to peanuts and cashews/);

  // A soft delete: out of the active list, kept (struck through) under all.
  const seats = await itemId('Ada prefers window seats on flights');
  await page.click(`#items li[data-id="${seats}"]`);
  assert.equal(await andStatus(() => page.click('#item-delete')), `${seats}: deleted`);
  assert.equal(await page.getAttribute(`#items li[data-id="${seats}"]`, 'data-status'), 'deleted');
  assert.ok(await page.locator('#item-delete').isDisabled());
  await page.selectOption('#item-status', 'active');
  assert.equal(await page.locator(`#items li[data-id="${seats}"]`).count(), 0);

  // The add form: facts forming a small graph, one with a time to live, one in Chinese, and a
  // second contradiction (Lisbon supersedes Paris, which superseded Berlin).
  assert.equal(await addItem({ text: 'Ada works at Acme', subject: 'Ada', relation: 'works_at', object: 'Acme' }), 'added');
  await addItem({ text: 'Acme is located in Oslo', subject: 'Acme', relation: 'located_in', object: 'Oslo' });
  await addItem({ text: 'Oslo is the capital of Norway', subject: 'Oslo', relation: 'capital_of', object: 'Norway' });
  await addItem({ text: 'Ada knows Bob', subject: 'Ada', relation: 'knows', object: 'Bob' });
  await addItem({ text: 'Bob works at Acme', subject: 'Bob', relation: 'works_at', object: 'Acme' });
  await addItem({ text: 'Acme builds rockets', subject: 'Acme', relation: 'builds', object: 'rockets' });
  await addItem({ text: 'Acme 的大客户是华为', subject: 'Acme', relation: '客户', object: '华为' });
  await addItem({ text: 'Ada is visiting Tokyo this week', subject: 'Ada', relation: 'visiting', object: 'Tokyo', ttl: '7d' });
  const lisbonStatus = await addItem({ kind: 'personal', text: 'Lives in Lisbon', relation: 'residence', object: 'Lisbon' });
  assert.match(lisbonStatus, /^superseded: a new value of residence/);
  const lisbon = await itemId('Lives in Lisbon');
  assert.equal(await page.textContent('#item-id'), lisbon, 'the new item is selected');
  assert.deepEqual(await attrs('#item-history tbody tr', 'data-id'), [berlin, paris, lisbon]);
  assert.deepEqual(await texts('#item-history tbody tr td:nth-child(3)'), ['Lives in Berlin', 'Lives in Paris', 'Lives in Lisbon']);
  const tokyo = await itemId('Ada is visiting Tokyo this week');
  const { createdAt, expiresAt } = await page.evaluate((id) => window.memdag.memory.getItem(id), tokyo);
  assert.equal(expiresAt - createdAt, 7 * 24 * HOUR, 'ttl 7d');

  await page.selectOption('#item-kind', 'fact');
  assert.equal(await page.textContent('#items-count'), '8 active items');
  assert.ok((await attrs('#items li', 'data-id')).length === 8);
  await page.selectOption('#item-kind', '');
  await page.selectOption('#item-status', 'all');
  await page.click(`#items li[data-id="${lisbon}"]`);
  await screenshot('memory.png');
  assert.deepEqual(problems, []);
});

test('Working memory: goal, push/pop, a task done, constraints, notes and the history; recall shows it', async () => {
  await page.click('#threads li[data-thread="trip"]');
  await page.click('#tabs [data-tab="work"]');
  assert.equal(await page.textContent('#work-thread'), 'trip');
  assert.equal(await page.textContent('#work-goal'), 'No goal set.');
  const submit = async (input, value, button = 'button[type="submit"]') => {
    const rows = await page.locator('#work-history tbody tr').count();
    await page.fill(input, value);
    await page.locator(input).locator('xpath=ancestor::form').locator(button).click();
    await page.waitForFunction((n) => document.querySelectorAll('#work-history tbody tr').length === n + 1, rows);
  };
  const click = async (sel) => {
    const rows = await page.locator('#work-history tbody tr').count();
    await page.click(sel);
    await page.waitForFunction((n) => document.querySelectorAll('#work-history tbody tr').length === n + 1, rows);
  };
  await submit('#goal-text', 'Plan the Lisbon trip');
  await submit('#task-text', 'Book flights');
  await submit('#task-text', 'Find a hotel near the river');
  await submit('#task-text', 'Buy a guidebook');
  await click('#task-pop');
  await click('#work-tasks li[data-index="0"] button');
  await submit('#constraint-text', 'No flights before 9am');
  await submit('#constraint-text', '预算不超过一万元');
  await page.fill('#note-value', '1500');
  await submit('#note-key', 'budget');
  await page.fill('#note-value', 'window');
  await submit('#note-key', 'seat');

  assert.equal(await page.textContent('#work-goal'), 'Plan the Lisbon trip');
  assert.deepEqual(await texts('#work-tasks .task-text'), ['Book flights', 'Find a hotel near the river']);
  assert.deepEqual(await attrs('#work-tasks li', 'data-status'), ['done', 'open']);
  assert.deepEqual(await texts('#work-constraints li'), ['No flights before 9am', '预算不超过一万元']);
  assert.deepEqual(await texts('#work-notes dt'), ['budget', 'seat']);
  assert.deepEqual(await texts('#work-notes dd'), ['1500', 'window']);
  assert.deepEqual(await attrs('#work-history tbody tr', 'data-op'),
    ['patch', 'patch', 'push', 'push', 'patch', 'pop', 'push', 'push', 'push', 'set'], 'newest first');
  const pop = page.locator('#work-history tbody tr[data-op="pop"] td');
  assert.equal(await pop.nth(3).locator('span[title]').getAttribute('title'), '{"status":"open","text":"Buy a guidebook"}', 'pop shows the element popped');
  assert.match(await pop.nth(3).textContent(), /^\{"status":"open","text":"Buy a.*…$/, 'cut to fit');
  assert.equal(await pop.nth(5).textContent(), 'ada');

  // The recall block starts with the working memory, then what is known about ada.
  const working = await page.textContent('#recall-block [data-section="working"]');
  assert.match(working, /^## Working memory\nGoal: Plan the Lisbon trip\n- \[done\] Book flights\n- \[open\] Find a hotel near the river\n/);
  assert.match(working, /预算不超过一万元/);
  const known = await page.textContent('#recall-block [data-section="known"]');
  assert.match(known, /^## Known about this user and task/);
  assert.match(known, /Lives in Lisbon/);
  assert.doesNotMatch(known, /Lives in Paris|window seats/, 'neither superseded nor deleted items');
  assert.ok(await page.locator('#recall-block [data-section="known"] a.id-link').count() >= 1, 'the known items\' ids are links');
  assert.equal(await page.textContent('#recall-user'), 'ada');
  await screenshot('working-memory.png');
  assert.deepEqual(problems, []);
});

test('Timeline: turns and items by local day; an entry opens', async () => {
  await page.click('#tabs [data-tab="timeline"]');
  await page.selectOption('#timeline-of', 'user');
  await page.selectOption('#timeline-who', 'ada');
  assert.equal(await page.textContent('#timeline-zone'), 'days in UTC+08:00');
  assert.deepEqual(await attrs('#timeline .day', 'data-date'), ['2024-05-13', '2024-05-14', '2024-05-15']);
  // 20:00 UTC on the 14th is 04:00 on the 15th in Shanghai.
  assert.deepEqual(await attrs('#timeline .day[data-date="2024-05-15"] .turn-entry', 'data-id'), ['deploy', await page.evaluate(() => window.memdag.memory.recent('trip', 1)[0].id)]);
  assert.equal(await page.textContent('#timeline li[data-id="deploy"] time'), '04:00');
  const may13 = await texts('#timeline .day[data-date="2024-05-13"] .entry-text');
  assert.deepEqual(may13.sort(), ['Allergic to peanuts and cashews', 'I live in Berlin. I am allergic to peanuts.', 'Lives in Berlin'].sort());
  assert.match(await page.textContent(`#timeline li[data-id="${await itemId('Lives in Berlin')}"]`), /personal superseded/);
  await screenshot('timeline.png');

  await page.selectOption('#timeline-show', 'turns');
  assert.deepEqual(await attrs('#timeline .entry', 'data-kind'), ['turn', 'turn', 'turn', 'turn']);
  await page.selectOption('#timeline-show', '');
  await page.selectOption('#timeline-of', 'thread');
  await page.selectOption('#timeline-who', '搬家');
  assert.deepEqual(await attrs('#timeline .day', 'data-date'), ['2024-05-13', '2024-05-14']);
  const beijing = await itemId('住在北京');
  await page.click(`#timeline li[data-id="${beijing}"]`);
  assert.equal(await page.getAttribute('#tabs [aria-selected="true"]', 'data-tab'), 'memory');
  assert.equal(await page.textContent('#item-id'), beijing);
  assert.equal(await page.inputValue('#item-user'), '王磊');
  await page.click('#tabs [data-tab="timeline"]');
  await page.click('#timeline li[data-id="wang1"]');
  assert.equal(await page.textContent('#record-id'), 'wang1');
  assert.deepEqual(problems, []);
});

test('Graph: the neighbourhood of an entity, an edge\'s item and a highlighted 3-hop path', async () => {
  await page.click('#tabs [data-tab="graph"]');
  await page.fill('#graph-entity', 'Ada');
  await page.fill('#graph-depth', '2');
  await page.click('#graph-form button[type="submit"]');
  const expected = await page.evaluate(() => window.memdag.memory.neighbors('Ada', 2));
  assert.deepEqual(await attrs('#graph svg .node', 'data-entity'), expected.nodes.map((n) => n.entity));
  assert.deepEqual(await attrs('#graph svg .node', 'data-depth'), expected.nodes.map((n) => String(n.depth)));
  assert.deepEqual(await attrs('#graph svg .edge', 'data-id'), expected.edges.map((e) => e.id));
  assert.deepEqual(
    expected.nodes.filter((n) => n.depth === 1).map((n) => n.entity).sort(),
    ['acme', 'bob', 'lisbon', 'peanuts', 'tokyo'],
  );
  assert.ok(expected.nodes.some((n) => n.entity === 'oslo' && n.depth === 2));
  assert.equal(await page.locator('#graph svg .node.center').getAttribute('data-entity'), 'ada');
  assert.deepEqual((await texts('#graph svg .elabel')).sort(), expected.edges.map((e) => e.relation).sort());
  assert.match(await page.textContent('#graph-summary'), /^ada: 9 entities, 9 facts within 2 edges$/);

  // Entities keep clear of each other.
  const boxes = await page.locator('#graph svg .node rect').evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect().toJSON()));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      assert.ok(!overlap, `entities ${i} and ${j} overlap`);
    }
  }

  // Clicking an edge shows its item; its link opens the item in the Memory tab.
  const worksAt = await itemId('Ada works at Acme');
  await page.click(`#graph svg .elabel[data-id="${worksAt}"]`);
  assert.equal(await page.textContent('#edge-detail [data-field="fact"]'), 'ada —works_at→ acme');
  assert.equal(await page.textContent('#edge-detail [data-field="text"]'), 'Ada works at Acme');
  assert.equal(await page.getAttribute('#graph svg .edge.selected', 'data-id'), worksAt);

  await page.fill('#path-from', 'Ada');
  await page.fill('#path-to', 'NORWAY');
  await page.fill('#path-depth', '4');
  assert.equal(await andStatus(() => page.click('#path-form button[type="submit"]')), '1 shortest path of 3 edges');
  assert.deepEqual(await texts('#paths li'), ['ada —works_at→ acme —located_in→ oslo —capital_of→ norway']);
  assert.equal(await page.inputValue('#graph-depth'), '3', 'deep enough for the whole path');
  assert.deepEqual((await attrs('#graph svg .edge.on-path', 'data-relation')).sort(), ['capital_of', 'located_in', 'works_at']);
  assert.deepEqual((await attrs('#graph svg .node.on-path', 'data-entity')).sort(), ['acme', 'ada', 'norway', 'oslo']);
  assert.equal(await page.locator('#graph svg.has-path').count(), 1);
  assert.deepEqual((await texts('#graph svg .elabel.on-path')).sort(), ['capital_of', 'located_in', 'works_at']);
  await screenshot('graph.png');

  await page.click(`#edge-detail a[data-open="${worksAt}"]`);
  assert.equal(await page.textContent('#item-id'), worksAt);
  await page.click('#tabs [data-tab="graph"]');
  await page.fill('#path-to', 'Mars');
  await andStatus(() => page.click('#path-form button[type="submit"]'));
  assert.deepEqual(await texts('#paths li'), ['No path from Ada to Mars within 4 edges.']);
  assert.equal(await page.locator('#graph svg .edge.on-path').count(), 0);

  // Clicking an entity centres the graph on it.
  await page.click('#graph svg .node[data-entity="acme"]');
  assert.equal(await page.locator('#graph svg .node.center').getAttribute('data-entity'), 'acme');
  assert.deepEqual(problems, []);
});

test('Search: the scope selector and the understood time range', async () => {
  await page.fill('#search-text', 'Lisbon');
  await page.selectOption('#search-mode', 'bm25');
  await page.selectOption('#search-scope', 'items');
  await page.click('#search-form button[type="submit"]');
  await page.locator('#hits .hit').first().waitFor({ timeout: 5000 });
  assert.deepEqual(await attrs('#hits .hit', 'data-kind'), ['personal']);
  assert.ok(await page.locator('#search-time').isHidden(), 'no time expression, no range');

  await page.fill('#search-text', 'Paris');
  await page.selectOption('#search-scope', 'turns');
  await page.click('#search-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#hits .hit')?.dataset.kind === 'turn');
  assert.equal((await attrs('#hits .hit', 'data-id'))[0], 'paris', 'its thread neighbours follow it');
  assert.deepEqual(new Set(await attrs('#hits .hit', 'data-kind')), new Set(['turn']));

  // "yesterday" is 14 May in Shanghai: the turns of that local day.
  await page.fill('#search-text', 'yesterday');
  await page.click('#search-form button[type="submit"]');
  await page.locator('#search-time').waitFor({ timeout: 5000 });
  assert.match(await page.textContent('#search-time'), /^Time: “yesterday” → 2024-05-14 \(day; 2024-05-14 00:00 to 2024-05-15 00:00\)$/);
  assert.equal(Number(await page.getAttribute('#search-time', 'data-since')), local(14, 0));
  assert.deepEqual((await attrs('#hits .hit', 'data-id')).sort(), ['paris', 'wang2']);
  await page.selectOption('#search-scope', 'all');
  await page.fill('#search-text', '上周');
  await page.click('#search-form button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#search-time b')?.textContent === '上周');
  assert.match(await page.textContent('#search-time'), /2024-05-06 – 2024-05-12 \(week;/);
  assert.equal(await page.locator('#hits .hit').count(), 0, 'nothing was said last week');
  assert.deepEqual(problems, []);
});
