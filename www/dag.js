// Draws the DAG around one record as SVG: its ancestors in rows above it (nearest first),
// its descendants in rows below, and every parent -> child edge among the drawn records.
import { cutColumns } from './ui.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 150;
const H = 26;
const GAP_X = 16;
const GAP_Y = 34;

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Levels of records by edge distance from `id`: negative for ancestors, positive below. */
function levels(memory, id, depth) {
  const level = new Map([[id, 0]]);
  const walk = (dir) => {
    let frontier = [id];
    for (let d = 1; d <= depth && frontier.length; d++) {
      const next = [];
      for (const f of frontier) {
        const ids = dir < 0 ? memory.get(f)?.parents ?? [] : memory.children(f);
        for (const n of ids) {
          if (!level.has(n)) {
            level.set(n, dir * d);
            next.push(n);
          }
        }
      }
      frontier = next.slice(0, 12);
    }
  };
  walk(-1);
  walk(1);
  return level;
}

/** An SVG of the DAG around `id`; `onPick(id)` is called when a node is clicked. */
export function drawDag(memory, id, onPick, depth = 3) {
  const level = levels(memory, id, depth);
  const rows = new Map();
  for (const [n, l] of level) rows.set(l, [...(rows.get(l) ?? []), n]);
  const order = [...rows.keys()].sort((a, b) => a - b);
  const widest = Math.max(...[...rows.values()].map((r) => r.length));
  const width = widest * (W + GAP_X) + GAP_X;
  const height = order.length * (H + GAP_Y) + GAP_Y / 2;
  const pos = new Map();
  order.forEach((l, row) => {
    const ids = rows.get(l);
    const offset = (width - ids.length * (W + GAP_X) + GAP_X) / 2;
    ids.forEach((n, i) => pos.set(n, { x: offset + i * (W + GAP_X), y: GAP_Y / 2 + row * (H + GAP_Y) }));
  });
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `DAG around ${id}` });
  const defs = el('defs');
  const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' });
  marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#99a' }));
  defs.append(marker);
  svg.append(defs);
  for (const [child, p] of pos) {
    for (const parent of memory.get(child)?.parents ?? []) {
      const q = pos.get(parent);
      if (!q) continue;
      svg.append(el('line', { x1: q.x + W / 2, y1: q.y + H, x2: p.x + W / 2, y2: p.y, 'data-edge': `${parent}->${child}` }));
    }
  }
  for (const [n, p] of pos) {
    const record = memory.get(n);
    const g = el('g', { class: `node${n === id ? ' current' : ''}`, 'data-id': n, transform: `translate(${p.x},${p.y})` });
    g.append(el('rect', { width: W, height: H, rx: 4 }));
    // 12 columns of the input: a CJK character takes two, so Chinese text stays inside the box.
    const label = `${n.slice(0, 8)} ${cutColumns(record?.input ?? '', 12)}`;
    g.append(el('text', { x: 6, y: 17 }, label));
    g.append(el('title', {}, `${n}\n${record?.input ?? ''}`));
    g.addEventListener('click', () => onPick(n));
    svg.append(g);
  }
  return svg;
}
