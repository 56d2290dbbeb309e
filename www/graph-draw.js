// Draws an entity neighbourhood (a `Subgraph` from `neighbors`) as an SVG node-link diagram
// in rings by depth: the start entity in the centre, the entities d edges away on ring d,
// each in a wedge of its parent's sized by the entities below it (a radial tree), the rings
// far enough apart that no two labels touch. The layout is deterministic: the same subgraph
// always gives the same picture. Edges are arrows from
// subject to object, labelled with their relation; parallel edges between two entities bend
// apart. Edges and entities on `path` are highlighted, the rest dimmed.
import { columns, cutColumns } from './ui.js';

const SVG = 'http://www.w3.org/2000/svg';
const NODE_H = 24;
const RING_STEP = 160;
const GAP = 16;
const MAX_COLS = 20;
const TAU = 2 * Math.PI;

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) if (v != null) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The label of an entity, cut to MAX_COLS display columns. */
export function label(entity) {
  const cut = cutColumns(entity, MAX_COLS);
  return cut === entity ? entity : `${cutColumns(entity, MAX_COLS - 1)}…`;
}

const width = (text) => [...text].reduce((w, ch) => w + columns(ch) * 7, 18);

const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Positions `{ x, y, w, depth }` of every entity, centred on (0, 0), and the ring radii.
 * A radial tree (Eades): each entity's parent is its first neighbour (by name) one ring in;
 * every entity gets a wedge of its parent's, in proportion to the leaves below it, and sits
 * in the middle of it, so crowded branches get room. The largest branch points right. Each
 * ring's radius is at least RING_STEP beyond the last, and larger if two neighbouring labels
 * on it would touch.
 */
export function layout({ nodes, edges }) {
  const depth = new Map(nodes.map((n) => [n.entity, n.depth]));
  const adj = new Map(nodes.map((n) => [n.entity, new Set()]));
  for (const e of edges) {
    adj.get(e.from)?.add(e.to);
    adj.get(e.to)?.add(e.from);
  }
  const roots = nodes.filter((n) => n.depth === 0).map((n) => n.entity).sort(byName);
  // Several roots (not from `neighbors`) hang off an unnamed centre, one ring further out.
  const shift = roots.length === 1 ? 0 : 1;
  const children = new Map([[null, shift ? roots : []], ...nodes.map((n) => [n.entity, []])]);
  for (const n of [...nodes].sort((a, b) => a.depth - b.depth || byName(a.entity, b.entity))) {
    if (n.depth === 0) continue;
    const parent = [...adj.get(n.entity)].filter((nb) => depth.get(nb) === n.depth - 1).sort(byName)[0];
    children.get(parent ?? (shift ? null : roots[0]))?.push(n.entity);
  }
  const leaves = new Map();
  const count = (n) => {
    const c = children.get(n) ?? [];
    const total = c.length ? c.reduce((sum, k) => sum + count(k), 0) : 1;
    leaves.set(n, total);
    return total;
  };
  const top = shift ? null : roots[0];
  count(top);
  const angle = new Map();
  const assign = (n, a0, a1) => {
    angle.set(n, (a0 + a1) / 2);
    let a = a0;
    for (const c of children.get(n) ?? []) {
      const span = ((a1 - a0) * leaves.get(c)) / leaves.get(n);
      assign(c, a, a + span);
      a += span;
    }
  };
  // Turn the whole so that the largest first branch is centred at angle 0 (pointing right).
  const first = children.get(top) ?? [];
  let start = -Math.PI;
  if (first.length) {
    let best = 0;
    let before = 0;
    let offset = 0;
    for (const c of first) {
      const share = (TAU * leaves.get(c)) / leaves.get(top);
      if (share > best) [best, offset] = [share, before + share / 2];
      before += share;
    }
    start = -offset;
  }
  assign(top, start, start + TAU);

  const ring = (n) => depth.get(n) + shift;
  const widths = new Map(nodes.map((n) => [n.entity, width(label(n.entity))]));
  const rings = [];
  for (const n of nodes) (rings[ring(n.entity)] ??= []).push(n.entity);
  const radii = [];
  let radius = 0;
  rings.forEach((names, d) => {
    if (d === 0 && !shift) {
      radii.push(0);
      return;
    }
    names.sort((a, b) => angle.get(a) - angle.get(b));
    // Far enough out that no label here meets one on the ring inside, even side by side.
    const widest = (list) => Math.max(0, ...(list ?? []).map((n) => widths.get(n)));
    let need = radius + Math.max(RING_STEP, (widest(rings[d - 1]) + widest(names)) / 2 + GAP);
    for (let i = 0; names.length > 1 && i < names.length; i++) {
      const [a, b] = [names[i], names[(i + 1) % names.length]];
      const gap = (angle.get(b) - angle.get(a) + TAU) % TAU || TAU;
      const chord = (widths.get(a) + widths.get(b)) / 2 + GAP;
      need = Math.max(need, chord / (2 * Math.sin(Math.min(Math.max(gap, 0.02), Math.PI) / 2)));
    }
    radius = need;
    radii.push(radius);
  });
  const pos = new Map();
  for (const n of nodes) {
    const r = radii[ring(n.entity)];
    const a = angle.get(n.entity);
    pos.set(n.entity, { x: r * Math.cos(a), y: r * Math.sin(a), w: widths.get(n.entity), depth: n.depth });
  }
  return { pos, radii };
}

/** Where the segment from a box's centre in direction (dx, dy) leaves the box. */
function boundary(p, dx, dy, pad = 3) {
  const s = Math.max(Math.abs(dx) / (p.w / 2 + pad), Math.abs(dy) / (NODE_H / 2 + pad)) || 1;
  return [p.x + dx / s, p.y + dy / s];
}

/**
 * The SVG of `subgraph`. Options: `center` (the start entity), `path` (a Set of edge ids to
 * highlight), `selected` (an edge id), `onEdge(edge)` and `onNode(entity)` for clicks.
 */
export function drawGraph(subgraph, { center, path = new Set(), selected = null, onEdge, onNode } = {}) {
  const { pos, radii } = layout(subgraph);
  const onPath = new Set();
  for (const e of subgraph.edges) if (path.has(e.id)) onPath.add(e.from).add(e.to);
  let [x0, y0, x1, y1] = [0, 0, 0, 0];
  for (const p of pos.values()) {
    x0 = Math.min(x0, p.x - p.w / 2);
    x1 = Math.max(x1, p.x + p.w / 2);
    y0 = Math.min(y0, p.y - NODE_H);
    y1 = Math.max(y1, p.y + NODE_H);
  }
  const m = 24;
  const w = x1 - x0 + 2 * m;
  const h = y1 - y0 + 2 * m;
  const svg = el('svg', {
    viewBox: `${x0 - m} ${y0 - m} ${w} ${h}`, role: 'img', class: path.size ? 'has-path' : null,
    'aria-label': `entities around ${center ?? ''}`,
  });
  // Small drawings may grow a little to fill the panel, never so much that text looms.
  svg.style.maxWidth = `${Math.ceil(w * 1.3)}px`;
  const defs = el('defs');
  for (const [id, cls] of [['g-arrow', 'arrow'], ['g-arrow-on', 'arrow on']]) {
    const marker = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', class: cls }));
    defs.append(marker);
  }
  svg.append(defs);
  for (const r of radii) if (r > 0) svg.append(el('circle', { cx: 0, cy: 0, r, class: 'ring' }));

  // Parallel edges (either direction) between one pair bend apart by their index.
  const pairs = new Map();
  const key = (e) => [e.from, e.to].sort().join('\u0000');
  for (const e of subgraph.edges) pairs.set(key(e), [...(pairs.get(key(e)) ?? []), e]);
  const edgeLayer = el('g', { class: 'edges' });
  const labelLayer = el('g', { class: 'edge-labels' });
  for (const e of subgraph.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const group = pairs.get(key(e));
    const k = group.indexOf(e) - (group.length - 1) / 2;
    const classes = ['edge', path.has(e.id) ? 'on-path' : '', e.id === selected ? 'selected' : ''].filter(Boolean).join(' ');
    const g = el('g', { class: classes, 'data-id': e.id, 'data-from': e.from, 'data-to': e.to, 'data-relation': e.relation });
    let d;
    let lx;
    let ly;
    if (a === b) {
      // A fact about an entity and itself: a loop above it.
      const [sx, sy] = [a.x - 8, a.y - NODE_H / 2];
      d = `M${sx},${sy} C${sx - 30},${sy - 50} ${sx + 46},${sy - 50} ${sx + 16},${sy}`;
      [lx, ly] = [a.x, a.y - NODE_H / 2 - 40];
    } else {
      const [dx, dy] = [b.x - a.x, b.y - a.y];
      const len = Math.hypot(dx, dy) || 1;
      // The normal of the pair's canonical direction, so both directions bend consistently.
      const sign = e.from < e.to ? 1 : -1;
      const bend = k * 40 * sign;
      const [cx, cy] = [(a.x + b.x) / 2 - (dy / len) * bend, (a.y + b.y) / 2 + (dx / len) * bend];
      const [sx, sy] = boundary(a, cx - a.x, cy - a.y);
      const [tx, ty] = boundary(b, cx - b.x, cy - b.y);
      d = bend ? `M${sx},${sy} Q${cx},${cy} ${tx},${ty}` : `M${sx},${sy} L${tx},${ty}`;
      // The label halfway along the drawn part, between the two boxes.
      [lx, ly] = bend ? [(sx + 2 * cx + tx) / 4, (sy + 2 * cy + ty) / 4] : [(sx + tx) / 2, (sy + ty) / 2];
    }
    g.append(el('path', { d, class: 'hit' }));
    g.append(el('path', { d, class: 'line', 'marker-end': `url(#${path.has(e.id) ? 'g-arrow-on' : 'g-arrow'})` }));
    g.append(el('title', {}, `${e.from} —${e.relation}→ ${e.to}\n${e.text}`));
    const text = el('text', { x: lx, y: ly + 4, class: `elabel${path.has(e.id) ? ' on-path' : ''}`, 'data-id': e.id }, e.relation);
    if (onEdge) {
      g.addEventListener('click', () => onEdge(e));
      text.addEventListener('click', () => onEdge(e));
    }
    edgeLayer.append(g);
    labelLayer.append(text);
  }
  svg.append(edgeLayer, labelLayer);

  for (const [entity, p] of pos) {
    const classes = ['node', entity === center ? 'center' : '', onPath.has(entity) ? 'on-path' : ''].filter(Boolean).join(' ');
    const g = el('g', { class: classes, 'data-entity': entity, 'data-depth': p.depth, transform: `translate(${p.x},${p.y})` });
    g.append(el('rect', { x: -p.w / 2, y: -NODE_H / 2, width: p.w, height: NODE_H, rx: NODE_H / 2 }));
    g.append(el('text', { x: 0, y: 4, 'text-anchor': 'middle' }, label(entity)));
    g.append(el('title', {}, `${entity} (depth ${p.depth})`));
    if (onNode) g.addEventListener('click', () => onNode(entity));
    svg.append(g);
  }
  return svg;
}
