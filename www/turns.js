// The Turns tab: the selected thread's turns, newest first, and the selected record with its
// metadata, the DAG around it (dag.js), its raw log and its compact node. Long-term memory
// items learned from a turn are its DAG children; they are listed and open in the Memory tab.
import { drawDag } from './dag.js';
import { $, h, idLink, fillMeta } from './ui.js';

export function init(ctx) {
  $('#compact').addEventListener('click', async () => {
    try {
      await ctx.memory.compact(ctx.state.record);
      ctx.render();
    } catch (e) {
      ctx.fail(e);
    }
  });
}

export function render(ctx) {
  renderTurns(ctx);
  renderRecord(ctx);
}

function renderTurns(ctx) {
  const { state, memory } = ctx;
  const ul = $('#turns');
  ul.replaceChildren();
  $('#turns-thread').textContent = state.thread ?? '';
  if (!state.thread) return;
  for (const r of memory.recent(state.thread, Infinity)) {
    const li = h('li', { class: `record${r.id === state.record ? ' active' : ''}`, 'data-id': r.id, onclick: () => ctx.open(r.id) },
      h('code', {}, r.id),
      h('div', { class: 'turn' }, `${r.input} → ${r.output}`),
      h('div', { class: 'parents muted' }, r.parents.length ? `parents: ${r.parents.join(', ')}` : 'root'));
    ul.append(li);
  }
}

function renderRecord(ctx) {
  const { state, memory } = ctx;
  const r = state.record && memory.get(state.record);
  $('#record').hidden = !r;
  $('#record-empty').hidden = Boolean(r);
  $('#record-id').textContent = r ? r.id : '';
  if (!r) return;
  const children = memory.children(r.id);
  const learned = children.filter((id) => memory.getItem(id));
  fillMeta($('#record-meta'), [
    ['thread', r.thread], ['user', r.user || '—'], ['created', new Date(r.createdAt).toISOString()],
    ['seq', String(r.seq)], ['importance', String(r.importance)], ['tags', r.tags.join(', ') || '—'],
    ['parents', r.parents.join(', ') || 'root'], ['children', children.join(', ') || '—'],
    ['learned', learned.length ? learned.flatMap((id, i) => [i ? ', ' : '', idLink(id, memory.getItem(id).text)]) : '—'],
    ['embedding', r.embedding ? `${r.embedding.length} dims` : 'none'],
  ]);
  $('#dag').replaceChildren(drawDag(memory, r.id, ctx.open));
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
  node.append(h('p', {}, r.compact.summary));
  for (const s of r.compact.sections) node.append(h('p', {}, h('span', { class: 'section-name' }, `${s.name}: `), s.text));
}
