// The tools column: search (`searchFull`: BM25, vector or hybrid over turns, items or both,
// with the time range a query like "last week" or "上周" was understood to name) and recall
// (the block a new turn of the selected thread would get, drawn section by section as the
// block reads: working memory, what is known about the user, then turns; its [id]s open).
import { $, h, badge, fmtDate, fmtTime, localOffset } from './ui.js';

const list = (text) => String(text ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export function init(ctx) {
  $('#search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    search(ctx, new FormData(event.target));
  });
  $('#recall-budget').addEventListener('change', () => render(ctx));
  $('#recall-query').addEventListener('change', () => render(ctx));
}

function search(ctx, f) {
  const filter = { scope: String(f.get('scope') || 'all') };
  if (f.get('thread')) filter.thread = String(f.get('thread'));
  if (f.get('user')) filter.user = String(f.get('user'));
  if (list(f.get('tags')).length) filter.tags = list(f.get('tags'));
  const ol = $('#hits');
  ol.replaceChildren();
  const time = $('#search-time');
  time.hidden = true;
  try {
    const query = { text: String(f.get('text')), mode: String(f.get('mode')), k: Number(f.get('k')) || 10, filter, offsetMinutes: localOffset() };
    const { hits, time: range } = ctx.memory.searchFull(query);
    if (range) {
      // `until` is exclusive: the last day shown is the one before it.
      const days = range.grain === 'day' ? fmtDate(range.since) : `${fmtDate(range.since)} – ${fmtDate(range.until - 1)}`;
      time.replaceChildren('Time: “', h('b', {}, range.matched), `” → ${days} `, h('span', { class: 'muted' }, `(${range.grain}; ${fmtTime(range.since)} to ${fmtTime(range.until)})`));
      time.dataset.since = String(range.since);
      time.dataset.until = String(range.until);
      time.hidden = false;
    }
    for (const hit of hits) ol.append(hitItem(ctx, hit));
    ctx.status(hits.length ? '' : 'no hits');
  } catch (e) {
    ctx.fail(e);
  }
}

function hitItem(ctx, hit) {
  const snippet = h('div', { class: 'snippet' });
  // «term» marks become <mark>, built as nodes (never innerHTML of record text).
  for (const [i, part] of hit.snippet.split(/[«»]/).entries()) snippet.append(i % 2 ? h('mark', {}, part) : part);
  return h('li', { class: 'hit', 'data-id': hit.id, 'data-kind': hit.kind ?? 'turn', onclick: () => ctx.open(hit.id) },
    h('div', {}, h('code', {}, hit.id), ' ', hit.kind ? badge(hit.kind, hit.kind) : badge('turn', 'turn'), ' ',
      h('span', { class: 'muted' }, `score ${hit.score.toFixed(3)}`)),
    snippet);
}

/** The recall block of the selected thread, for the user of its newest turn. */
export function render(ctx) {
  const { state, memory } = ctx;
  const pre = $('#recall-block');
  $('#recall-thread').textContent = state.thread ?? '–';
  if (!state.thread) {
    pre.replaceChildren();
    $('#recall-tokens').textContent = '0';
    $('#recall-user').textContent = '–';
    return;
  }
  const user = ctx.threadUser(state.thread);
  $('#recall-user').textContent = user || '–';
  const budget = Number($('#recall-budget').value) || 600;
  const query = { thread: state.thread, budgetTokens: budget };
  if (user) query.user = user;
  if ($('#recall-query').value.trim()) query.queryText = $('#recall-query').value.trim();
  const r = memory.recallView(query);
  $('#recall-tokens').textContent = String(r.tokens);
  pre.replaceChildren(...blockNodes(memory, r.block));
}

/** The block's text as nodes: one span per `## ` section (classed by its name) and links for
 * the `[id]`s of records and items that exist; its textContent is the block, unchanged. */
function blockNodes(memory, block) {
  const sections = [];
  let current = h('span', { class: 'sec sec-head' });
  sections.push(current);
  for (const line of block.split(/(?<=\n)/)) {
    if (line.startsWith('## ')) {
      const name = line.slice(3).trim();
      const key = /^Working/.test(name) ? 'working' : /^Known/.test(name) ? 'known' : 'turns';
      current = h('span', { class: `sec sec-${key}`, 'data-section': key }, h('span', { class: 'sec-title' }, line));
      sections.push(current);
      continue;
    }
    const m = /^\[([^\]\s]+)\]/.exec(line);
    if (m && (memory.getItem(m[1]) || memory.get(m[1]))) {
      current.append('[', h('a', { href: '#', class: 'id-link', 'data-open': m[1] }, m[1]), line.slice(m[0].length - 1));
    } else {
      current.append(line);
    }
  }
  return sections.filter((s) => s.childNodes.length);
}
