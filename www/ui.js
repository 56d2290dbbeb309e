// Small DOM helpers shared by the explorer's views: element building (text always as text
// nodes, never innerHTML), links that open a record or item (`data-open`, handled once in
// app.js), badges, tables and local times.

export const $ = (sel, root = document) => root.querySelector(sel);

/**
 * An element: `h('li', { class: 'x', 'data-id': id, onclick }, 'text', child)`. Attributes
 * starting with `on` are listeners; `null`, `undefined` and `false` attributes and children
 * are skipped; strings become text nodes.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  node.append(...children.flat(Infinity).filter((c) => c != null && c !== false).map((c) => (c instanceof Node ? c : String(c))));
  return node;
}

/** A link opening record or item `id` (the click is handled in app.js). */
export const idLink = (id, label = id) => h('a', { href: '#', class: 'id-link', 'data-open': id, title: id }, label);

/** A link to `id` labelled with its first 9 characters (tables are narrow). */
export const shortLink = (id) => idLink(id, id.length > 10 ? `${id.slice(0, 9)}…` : id);

/** A small label, e.g. a kind or a status (`cls` adds classes such as the value itself). */
export const badge = (text, cls = '') => h('span', { class: `badge ${cls}`.trim() }, text);

/** Fills `table` with a header row and one row per entry of `rows` (cells: text or nodes). */
export function fillTable(table, headers, rows, rowAttrs = () => ({})) {
  table.replaceChildren(
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', {}, t)))),
    h('tbody', {}, rows.map((cells, i) => h('tr', rowAttrs(i), cells.map((c) => h('td', {}, c))))),
  );
}

/** Fills a `<dl>` from `[name, value]` pairs; each `<dd>` has `data-field` = name. */
export function fillMeta(dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-field': k }, v ?? '—')]));
}

/** Minutes east of UTC of this browser now: the offset the timeline's days and search use. */
export const localOffset = () => -new Date().getTimezoneOffset();

const pad = (n) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` in local time. */
export function fmtDate(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `YYYY-MM-DD HH:MM` in local time, or `—` for a missing time. */
export function fmtTime(ms) {
  if (ms == null) return '—';
  const d = new Date(ms);
  return `${fmtDate(ms)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `YYYY-MM-DD HH:MM:SS` in local time. */
export function fmtStamp(ms) {
  return `${fmtTime(ms)}:${pad(new Date(ms).getSeconds())}`;
}

/** `HH:MM` in local time. */
export function fmtClock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `UTC+08:00` for an offset in minutes east of UTC. */
export function fmtOffset(minutes) {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/** A JSON value as short text: strings as they are, anything else as compact JSON. */
export const show = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/** `text` cut to `n` characters with an ellipsis, the whole of it as the tooltip. */
export const clip = (text, n = 60) => (text.length > n ? h('span', { title: text }, `${text.slice(0, n - 1)}…`) : text);

/** A `<time>` of `ms` shown by `format` (default `fmtTime`). */
export const timeEl = (ms, format = fmtTime) => (ms == null ? '—' : h('time', { datetime: new Date(ms).toISOString() }, format(ms)));

/** Display columns of a character: 2 for CJK and other wide scripts, else 1. */
export const columns = (ch) => (ch.codePointAt(0) >= 0x2e80 ? 2 : 1);

/** The longest start of `text` that fits in `n` display columns. */
export function cutColumns(text, n) {
  let out = '';
  let used = 0;
  for (const ch of text) {
    if (used + columns(ch) > n) break;
    out += ch;
    used += columns(ch);
  }
  return out;
}

/** `<option>`s for a `<select>`, keeping its value when it is still offered. */
export function fillSelect(select, options, value = select.value) {
  select.replaceChildren(...options.map(([v, label]) => h('option', { value: v }, label)));
  select.value = options.some(([v]) => v === value) ? value : options[0]?.[0] ?? '';
}
