// The memory explorer: opens a memdag store kept in this browser's IndexedDB and shows its
// threads, turns, records (raw log, compact node, DAG), search, recall, and import/export.
// Serve the repository root (scripts/serve-www.sh) so both www/ and pkg/ resolve.
import { Memory } from '../pkg/index.js';
import { drawDag } from './dag.js';

const $ = (sel) => document.querySelector(sel);
const state = { memory: null, thread: null, record: null };
const params = new URLSearchParams(location.search);

function status(text) {
  $('#status').textContent = text;
}

function fail(error) {
  status(`${error.code ?? 'ERROR'}: ${error.message}`);
  console.warn(error);
}

const list = (text) => String(text ?? '').split(',').map((s) => s.trim()).filter(Boolean);

async function open(name) {
  if (state.memory) await state.memory.close();
  state.memory = await Memory.open({ name, autoFlush: true });
  state.memory.addEventListener('change', () => render());
  state.memory.addEventListener('error', (e) => fail(e.error));
  $('#store-name').value = name;
  state.thread = state.memory.threads()[0]?.name ?? null;
  state.record = null;
  render();
}

function render() {
  const m = state.memory;
  $('#count').textContent = String(m.len);
  $('#generation').textContent = String(m.generation);
  renderThreads();
  renderTurns();
  renderRecord();
  renderRecall();
}

function renderThreads() {
  const ul = $('#threads');
  ul.replaceChildren();
  for (const t of state.memory.threads()) {
    const li = document.createElement('li');
    li.dataset.thread = t.name;
    li.textContent = `${t.name} (${t.count})`;
    li.classList.toggle('active', t.name === state.thread);
    li.addEventListener('click', () => {
      state.thread = t.name;
      render();
    });
    ul.append(li);
  }
}

function renderTurns() {
  const ul = $('#turns');
  ul.replaceChildren();
  $('#turns-thread').textContent = state.thread ?? '';
  if (!state.thread) return;
  for (const r of state.memory.recent(state.thread, Infinity)) {
    const li = document.createElement('li');
    li.className = 'record';
    li.dataset.id = r.id;
    li.classList.toggle('active', r.id === state.record);
    const id = document.createElement('code');
    id.textContent = r.id;
    const turn = document.createElement('div');
    turn.className = 'turn';
    turn.textContent = `${r.input} → ${r.output}`;
    const parents = document.createElement('div');
    parents.className = 'parents muted';
    parents.textContent = r.parents.length ? `parents: ${r.parents.join(', ')}` : 'root';
    li.append(id, turn, parents);
    li.addEventListener('click', () => pick(r.id));
    ul.append(li);
  }
}

function pick(id) {
  state.record = id;
  const r = state.memory.get(id);
  if (r) state.thread = r.thread;
  render();
}

function renderRecord() {
  const r = state.record && state.memory.get(state.record);
  $('#record').hidden = !r;
  $('#record-empty').hidden = Boolean(r);
  $('#record-id').textContent = r ? r.id : '';
  if (!r) return;
  const meta = $('#record-meta');
  meta.replaceChildren();
  const fields = [
    ['thread', r.thread], ['user', r.user || '—'], ['created', new Date(r.createdAt).toISOString()],
    ['seq', r.seq], ['importance', r.importance], ['tags', r.tags.join(', ') || '—'],
    ['parents', r.parents.join(', ') || 'root'], ['children', state.memory.children(r.id).join(', ') || '—'],
    ['embedding', r.embedding ? `${r.embedding.length} dims` : 'none'],
  ];
  for (const [k, v] of fields) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    dd.dataset.field = k;
    meta.append(dt, dd);
  }
  $('#dag').replaceChildren(drawDag(state.memory, r.id, pick));
  const steps = r.steps.map((s, i) => `  ${i + 1}. ${s.tool}(${s.args}) ${s.ok ? 'ok' : 'error'}: ${s.result}`);
  $('#raw-log').textContent = [`user: ${r.input}`, ...(steps.length ? ['steps:', ...steps] : []), `agent: ${r.output}`].join('\n');
  const node = $('#compact-node');
  node.replaceChildren();
  if (!r.compact) {
    node.textContent = 'No compact node yet.';
    node.className = 'muted';
    return;
  }
  node.className = '';
  const summary = document.createElement('p');
  summary.textContent = r.compact.summary;
  node.append(summary);
  for (const s of r.compact.sections) {
    const p = document.createElement('p');
    const name = document.createElement('span');
    name.className = 'section-name';
    name.textContent = `${s.name}: `;
    p.append(name, s.text);
    node.append(p);
  }
}

function renderRecall() {
  $('#recall-thread').textContent = state.thread ?? '–';
  if (!state.thread) {
    $('#recall-block').textContent = '';
    $('#recall-tokens').textContent = '0';
    return;
  }
  const budget = Number($('#recall-budget').value) || 600;
  const r = state.memory.recallView({ thread: state.thread, budgetTokens: budget });
  $('#recall-block').textContent = r.block;
  $('#recall-tokens').textContent = String(r.tokens);
}

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
    pick(r.id);
  } catch (e) {
    fail(e);
  }
});

$('#search-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const f = new FormData(event.target);
  const filter = {};
  if (f.get('thread')) filter.thread = String(f.get('thread'));
  if (f.get('user')) filter.user = String(f.get('user'));
  if (list(f.get('tags')).length) filter.tags = list(f.get('tags'));
  const ol = $('#hits');
  ol.replaceChildren();
  try {
    const hits = await state.memory.searchAsync({ text: String(f.get('text')), mode: String(f.get('mode')), k: Number(f.get('k')) || 10, filter });
    for (const h of hits) {
      const li = document.createElement('li');
      li.className = 'hit';
      li.dataset.id = h.id;
      const head = document.createElement('div');
      head.innerHTML = '<code></code> <span class="muted"></span>';
      head.children[0].textContent = h.id;
      head.children[1].textContent = `score ${h.score.toFixed(3)}`;
      const snippet = document.createElement('div');
      snippet.className = 'snippet';
      // «term» marks become <mark>, built as nodes (never innerHTML of record text).
      for (const [i, part] of h.snippet.split(/[«»]/).entries()) {
        snippet.append(i % 2 ? Object.assign(document.createElement('mark'), { textContent: part }) : part);
      }
      li.append(head, snippet);
      li.addEventListener('click', () => pick(h.id));
      ol.append(li);
    }
    status(hits.length ? '' : 'no hits');
  } catch (e) {
    fail(e);
  }
});

$('#compact').addEventListener('click', async () => {
  try {
    await state.memory.compact(state.record);
    render();
  } catch (e) {
    fail(e);
  }
});

$('#recall-budget').addEventListener('change', renderRecall);
$('#open-store').addEventListener('click', () => open($('#store-name').value.trim() || 'explorer').catch(fail));

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
    render();
    status(`imported ${records} records`);
  } catch (e) {
    fail(e);
  } finally {
    event.target.value = '';
  }
});

try {
  await open(params.get('store') ?? 'explorer');
} catch (e) {
  fail(e);
}
window.memdag = { get memory() { return state.memory; }, pick, render };
document.body.dataset.ready = 'true';
