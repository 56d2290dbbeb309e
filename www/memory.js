// The Memory tab: long-term memory items (`listItems`) of the picked user, filtered by kind
// and status, and the selected item with its metadata, its history (`itemHistory`: every
// version with validity times, superseded predecessors included) and its resolution log
// (`resolutions`). Items are added with a small form (`addItem`, which may corroborate or
// supersede an existing one), edited into a new version (`updateItem`), deleted softly
// (`deleteItem`), or learned from the selected thread by the rules (`extract`).
import { $, h, badge, idLink, fillMeta, fillTable, fmtTime, shortLink, timeEl } from './ui.js';

const links = (ids) => (ids?.length ? ids.flatMap((id, i) => [i ? ', ' : '', idLink(id)]) : null);

export function init(ctx) {
  const rerender = () => ctx.render();
  $('#item-user').addEventListener('change', (e) => {
    ctx.state.user = e.target.value;
    rerender();
  });
  $('#item-kind').addEventListener('change', rerender);
  $('#item-status').addEventListener('change', rerender);

  $('#item-add-toggle').addEventListener('click', () => {
    const form = $('#item-form');
    form.hidden = !form.hidden;
    $('#item-add-toggle').setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden && !$('#new-item-user').value) $('#new-item-user').value = ctx.state.user || ctx.threadUser(ctx.state.thread);
  });

  $('#item-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const f = new FormData(event.target);
    const item = { kind: String(f.get('kind')), user: String(f.get('user')).trim(), text: String(f.get('text')).trim() };
    for (const k of ['subject', 'relation', 'object', 'ttl']) if (String(f.get(k)).trim()) item[k] = String(f.get(k)).trim();
    try {
      const learned = await ctx.memory.addItem(item);
      for (const k of ['text', 'subject', 'relation', 'object', 'ttl']) event.target.elements[k].value = '';
      ctx.status(`${learned.outcome}${learned.reason ? `: ${learned.reason}` : ''}`);
      reveal(ctx, learned.item);
      ctx.render();
    } catch (e) {
      ctx.fail(e);
    }
  });

  $('#learn-thread').addEventListener('click', () => learn(ctx));

  $('#item-edit').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const item = await ctx.memory.updateItem(ctx.state.item, { text: $('#item-edit-text').value.trim() });
      ctx.status(`${item.id}: version ${item.version}`);
      ctx.render();
    } catch (e) {
      ctx.fail(e);
    }
  });

  $('#item-delete').addEventListener('click', async () => {
    try {
      const item = await ctx.memory.deleteItem(ctx.state.item);
      ctx.status(`${item.id}: ${item.status}`);
      reveal(ctx, item);
      ctx.render();
    } catch (e) {
      ctx.fail(e);
    }
  });
}

/** Learns items from every turn of the selected thread by the rules; lists what happened. */
async function learn(ctx) {
  const thread = ctx.state.thread;
  if (!thread) return;
  try {
    const report = await ctx.memory.extract({ thread });
    const counts = {};
    for (const l of report.learned) counts[l.outcome] = (counts[l.outcome] ?? 0) + 1;
    const summary = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing new';
    const box = $('#learn-report');
    box.replaceChildren(
      h('p', {}, `Learned from ${report.turns} turns of “${thread}”: ${summary}`, report.retracted.length ? `; ${report.retracted.length} retracted` : ''),
      h('ul', {}, report.learned.map((l) => h('li', { 'data-outcome': l.outcome }, badge(l.outcome, l.outcome), ' ', idLink(l.item.id, l.item.text)))),
    );
    box.hidden = false;
    ctx.status(summary);
    const user = ctx.threadUser(thread);
    if (user) ctx.state.user = user;
    ctx.render();
  } catch (e) {
    ctx.fail(e);
  }
}

/** Selects `item` and sets the filters so that the list shows it. */
export function reveal(ctx, item) {
  ctx.state.item = item.id;
  if (ctx.state.user && ctx.state.user !== item.user) ctx.state.user = item.user;
  if ($('#item-kind').value && $('#item-kind').value !== item.kind) $('#item-kind').value = '';
  if (item.status !== 'active') $('#item-status').value = 'all';
}

export function render(ctx) {
  const { state, memory } = ctx;
  const users = memory.users();
  const select = $('#item-user');
  select.replaceChildren(h('option', { value: '' }, 'all users'), ...users.map((u) => h('option', { value: u.name }, `${u.name || '(no user)'} (${u.count})`)));
  select.value = users.some((u) => u.name === state.user) ? state.user : '';
  const learnButton = $('#learn-thread');
  learnButton.disabled = !state.thread;
  learnButton.textContent = state.thread ? `Learn from thread “${state.thread}”` : 'Learn from this thread';

  const all = $('#item-status').value === 'all';
  const query = { all, limit: 1000 };
  if (select.value) query.user = select.value;
  if ($('#item-kind').value) query.kinds = [$('#item-kind').value];
  const items = memory.listItems(query);
  $('#items-count').textContent = `${items.length} ${all ? '' : 'active '}item${items.length === 1 ? '' : 's'}`;
  $('#items').replaceChildren(...items.map((item) => itemRow(ctx, item)));
  renderDetail(ctx);
}

function itemRow(ctx, item) {
  const select = (event) => {
    if (event.target.closest('[data-open]')) return;
    ctx.state.item = item.id;
    ctx.render();
  };
  return h('li', { class: `item${item.id === ctx.state.item ? ' active' : ''}`, 'data-id': item.id, 'data-status': item.status, onclick: select },
    h('div', { class: 'badges' },
      badge(item.kind, item.kind), badge(item.status, item.status), badge(`v${item.version}`, 'version'),
      badge(`${item.corroborations} corroboration${item.corroborations === 1 ? '' : 's'}`, item.corroborations ? 'corroborations' : 'corroborations none'),
      item.relation ? h('span', { class: 'triple' }, `${item.subject ?? item.user} · ${item.relation} · ${item.object ?? ''}`) : null),
    h('div', { class: 'text' }, item.text),
    h('div', { class: 'muted small' }, `${item.user || '(no user)'} · ${fmtTime(item.createdAt)}`,
      item.sources.length ? [' · from ', h('span', { class: 'sources' }, links(item.sources))] : ''));
}

function renderDetail(ctx) {
  const { state, memory } = ctx;
  const item = state.item && memory.getItem(state.item);
  $('#item-detail').hidden = !item;
  $('#item-empty').hidden = Boolean(item);
  $('#item-id').textContent = item ? item.id : '';
  if (!item) return;
  $('#item-text').textContent = item.text;
  fillMeta($('#item-meta'), [
    ['kind', item.kind], ['status', item.status], ['version', String(item.version)], ['user', item.user || '—'],
    ['fact', item.relation ? `${item.subject ?? item.user} —${item.relation}→ ${item.object ?? ''}` : null],
    ['task', item.task], ['tool', item.tool],
    ['valid', `${fmtTime(item.validFrom)} → ${item.validUntil == null ? 'now' : fmtTime(item.validUntil)}`],
    ['created', fmtTime(item.createdAt)], ['updated', fmtTime(item.updatedAt)],
    ['expires', item.expiresAt == null ? 'never' : fmtTime(item.expiresAt)],
    ['corroborations', String(item.corroborations)], ['last seen', fmtTime(item.lastSeen)],
    ['uses', String(item.uses)], ['importance', String(item.importance)], ['tags', item.tags.join(', ') || null],
    ['sources', links(item.sources)], ['supersedes', links(item.supersedes)],
    ['superseded by', item.supersededBy ? idLink(item.supersededBy) : null], ['conflicts', links(item.conflicts)],
  ].filter(([k, v]) => v != null || ['sources', 'tags'].includes(k)));

  const edit = $('#item-edit-text');
  if (edit.dataset.item !== `${item.id}@${item.version}`) {
    edit.value = item.text;
    edit.dataset.item = `${item.id}@${item.version}`;
  }
  for (const b of $('#item-edit').querySelectorAll('button')) b.disabled = item.status === 'deleted';

  const history = memory.itemHistory(item.id);
  fillTable($('#item-history'), ['v', 'item', 'text', 'valid from', 'valid until', 'status'],
    history.map((v) => [String(v.version), v.id === item.id ? h('span', { class: 'muted' }, 'this') : shortLink(v.id), v.text,
      timeEl(v.validFrom), v.validUntil == null ? 'now' : timeEl(v.validUntil), badge(v.status, v.status)]),
    (i) => ({ class: history[i].id === item.id ? 'own' : 'predecessor', 'data-id': history[i].id, 'data-version': history[i].version }));

  const log = memory.resolutions({ item: item.id });
  fillTable($('#item-log'), ['at', 'action', 'by', 'other', 'source', 'reason'],
    log.map((r) => [timeEl(r.at), badge(r.action, r.action), r.by, r.other ? shortLink(r.other) : '', r.source ? shortLink(r.source) : '', r.reason]),
    (i) => ({ 'data-action': log[i].action }));
}
