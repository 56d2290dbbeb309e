// The memory explorer: opens a memdag store kept in this browser's IndexedDB and shows it in
// tabs: Turns (threads, turns, records with raw log, compact node and DAG), Memory (long-term
// items with history and resolutions), Working memory (of the selected thread), Timeline (by
// day) and Graph (entities and the facts between them); search, recall, import and export
// stay beside every tab. Serve the repository root (scripts/serve-www.sh) so both www/ and
// pkg/ resolve.
//
// This file holds the shared state, the store, the tabs and the routing of ids: `open(id)`
// shows a turn in the Turns tab and an item in the Memory tab. Each tab is a module with
// `init(ctx)` and `render(ctx)`; `ctx` carries the state and these helpers.
import { Memory } from '../pkg/index.js';
import { $, h } from './ui.js';
import * as turns from './turns.js';
import * as memoryView from './memory.js';
import * as work from './work.js';
import * as timeline from './timeline.js';
import * as graph from './graph.js';
import * as tools from './search.js';

const VIEWS = { turns, memory: memoryView, work, timeline, graph };
const params = new URLSearchParams(location.search);

const state = {
  memory: null,
  tab: 'turns',
  /** The selected thread, record (a turn), user and item. */
  thread: null,
  record: null,
  user: '',
  item: null,
};

const ctx = {
  state,
  get memory() {
    return state.memory;
  },
  render,
  open,
  show,
  status,
  fail,
  /** The user of a thread's newest turn ('' when it has none). */
  threadUser: (thread) => (thread ? state.memory.recent(thread, 1)[0]?.user ?? '' : ''),
};

function status(text) {
  $('#status').textContent = text;
}

function fail(error) {
  status(`${error.code ?? 'ERROR'}: ${error.message}`);
  console.warn(error);
}

const list = (text) => String(text ?? '').split(',').map((s) => s.trim()).filter(Boolean);

async function openStore(name) {
  if (state.memory) await state.memory.close();
  state.memory = await Memory.open({ name, autoFlush: true });
  state.memory.addEventListener('change', () => render());
  state.memory.addEventListener('error', (e) => fail(e.error));
  $('#store-name').value = name;
  state.thread = state.memory.threads()[0]?.name ?? null;
  state.record = null;
  state.item = null;
  state.user = ctx.threadUser(state.thread) || state.memory.users()[0]?.name || '';
  render();
}

/** Shows tab `name` (its name is kept in the URL's hash). */
function show(name) {
  if (!VIEWS[name]) return;
  state.tab = name;
  history.replaceState(null, '', `${location.pathname}${location.search}#${name}`);
  render();
}

/** Opens a turn (Turns tab) or a long-term memory item (Memory tab) by id. */
function open(id) {
  const item = state.memory.getItem(id);
  if (item) {
    memoryView.reveal(ctx, item);
    show('memory');
    return;
  }
  const r = state.memory.get(id);
  if (!r) {
    status(`${id}: not found`);
    return;
  }
  state.record = id;
  if (r.thread) state.thread = r.thread;
  show('turns');
}

function render() {
  const m = state.memory;
  if (!m) return;
  $('#count').textContent = String(m.len);
  $('#generation').textContent = String(m.generation);
  for (const b of document.querySelectorAll('#tabs [data-tab]')) b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
  for (const v of document.querySelectorAll('main > .view')) v.hidden = v.dataset.tab !== state.tab;
  // A store that had no thread when it was opened gets one selected once it has.
  if (!state.thread) state.thread = m.threads()[0]?.name ?? null;
  renderThreads();
  try {
    VIEWS[state.tab].render(ctx);
    tools.render(ctx);
  } catch (e) {
    fail(e);
  }
}

function renderThreads() {
  const ul = $('#threads');
  ul.replaceChildren();
  for (const t of state.memory.threads()) {
    ul.append(h('li', {
      'data-thread': t.name,
      class: t.name === state.thread ? 'active' : null,
      onclick: () => {
        state.thread = t.name;
        render();
      },
    }, `${t.name} (${t.count})`));
  }
}

$('#tabs').addEventListener('click', (event) => {
  const tab = event.target.closest('[data-tab]');
  if (tab) show(tab.dataset.tab);
});

// Every `data-open` link (ui.js idLink) opens its id.
document.addEventListener('click', (event) => {
  const link = event.target.closest('[data-open]');
  if (!link) return;
  event.preventDefault();
  open(link.dataset.open);
});

$('#turn-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = new FormData(event.target);
  try {
    const r = await state.memory.add({
      thread: String(f.get('thread')).trim(),
      user: String(f.get('user')).trim(),
      input: String(f.get('input')),
      output: String(f.get('output')),
      parents: list(f.get('parents')),
      tags: list(f.get('tags')),
      createdAt: Date.now(),
    });
    status('');
    $('#input').value = '';
    $('#output').value = '';
    $('#parents').value = r.id;
    open(r.id);
  } catch (e) {
    fail(e);
  }
});

$('#open-store').addEventListener('click', () => openStore($('#store-name').value.trim() || 'explorer').catch(fail));

$('#export').addEventListener('click', () => {
  const blob = new Blob([state.memory.exportBytes()], { type: 'application/octet-stream' });
  const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(blob), download: `${state.memory.name}.memdag` });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});

$('#import').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  try {
    const { records } = await state.memory.importBytes(new Uint8Array(await file.arrayBuffer()));
    state.thread = state.memory.threads()[0]?.name ?? null;
    state.record = null;
    state.item = null;
    render();
    status(`imported ${records} records`);
  } catch (e) {
    fail(e);
  } finally {
    event.target.value = '';
  }
});

for (const view of [...Object.values(VIEWS), tools]) view.init(ctx);
if (VIEWS[location.hash.slice(1)]) state.tab = location.hash.slice(1);
try {
  await openStore(params.get('store') ?? 'explorer');
} catch (e) {
  fail(e);
}
/** For tests and the console: the open memory, `open(id)`, `show(tab)` and `render()`. */
window.memdag = { get memory() { return state.memory; }, state, pick: open, open, show, render };
document.body.dataset.ready = 'true';
