// The Timeline tab: the turns and long-term memory items of the picked user, or of the
// selected thread, grouped by local day (`timeline` with this browser's offset), oldest day
// first, as the core orders them. Clicking an entry opens it: a turn in the Turns tab, an item in the Memory tab.
import { $, h, badge, fmtClock, fmtOffset, fillSelect, localOffset } from './ui.js';

export function init(ctx) {
  $('#timeline-of').addEventListener('change', () => ctx.render());
  $('#timeline-show').addEventListener('change', () => ctx.render());
  $('#timeline-who').addEventListener('change', (e) => {
    if ($('#timeline-of').value === 'thread') ctx.state.thread = e.target.value || null;
    else ctx.state.user = e.target.value;
    ctx.render();
  });
}

export function render(ctx) {
  const { state, memory } = ctx;
  const byThread = $('#timeline-of').value === 'thread';
  const who = $('#timeline-who');
  if (byThread) fillSelect(who, memory.threads().map((t) => [t.name, `${t.name} (${t.count})`]), state.thread ?? '');
  else fillSelect(who, [['', 'all users'], ...memory.users().map((u) => [u.name, `${u.name || '(no user)'} (${u.count})`])], state.user);

  const offset = localOffset();
  $('#timeline-zone').textContent = `days in ${fmtOffset(offset)}`;
  const query = { offsetMinutes: offset, limit: 2000 };
  if (who.value) query[byThread ? 'thread' : 'user'] = who.value;
  if ($('#timeline-show').value === 'turns') query.turnsOnly = true;
  if ($('#timeline-show').value === 'items') query.itemsOnly = true;
  const days = byThread && !who.value ? [] : memory.timeline(query);
  const entries = days.reduce((n, d) => n + d.entries.length, 0);
  $('#timeline-summary').textContent = `${entries} entr${entries === 1 ? 'y' : 'ies'} on ${days.length} day${days.length === 1 ? '' : 's'}`;
  $('#timeline').replaceChildren(...days.map((day) => dayBox(ctx, day)));
  if (!days.length) $('#timeline').append(h('p', { class: 'muted' }, 'Nothing on the timeline yet.'));
}

function dayBox(ctx, day) {
  const weekday = new Date(`${day.date}T12:00:00Z`).toLocaleDateString('en', { weekday: 'long', timeZone: 'UTC' });
  return h('section', { class: 'day', 'data-date': day.date },
    h('h3', {}, day.date, ' ', h('small', {}, `${weekday} · ${day.entries.length}`)),
    h('ol', {}, day.entries.map((e) => entryRow(ctx, e))));
}

function entryRow(ctx, e) {
  const item = e.kind ? ctx.memory.getItem(e.id) : null;
  const label = e.kind
    ? [badge(e.kind, e.kind), item && item.status !== 'active' ? [' ', badge(item.status, item.status)] : null]
    : badge(`turn · ${e.thread}`, 'turn');
  return h('li', { class: `entry ${e.kind ? 'item-entry' : 'turn-entry'}`, 'data-id': e.id, 'data-kind': e.kind ?? 'turn', onclick: () => ctx.open(e.id) },
    h('time', { datetime: new Date(e.at).toISOString() }, fmtClock(e.at)), ' ', label, ' ',
    h('span', { class: 'entry-text' }, e.text),
    e.user ? h('span', { class: 'muted small' }, ` · ${e.user}`) : null);
}
