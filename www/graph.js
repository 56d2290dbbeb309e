// The Graph tab: the neighbourhood of an entity (`neighbors(entity, depth)`: facts as edges
// between entities), drawn by graph-draw.js in rings by depth. Clicking an edge shows its
// item (and its source turns) above the drawing; clicking an entity centres the graph on it.
// "Path from A to B" asks `path` for the shortest paths, centres the graph on A deep enough
// to hold them, and highlights the first (or the one picked from the list).
import { drawGraph } from './graph-draw.js';
import { $, h, badge, idLink, fillSelect } from './ui.js';

/** The tab's own state: what is drawn, the paths found and the edge shown. */
const view = { entity: '', depth: 2, user: '', paths: [], path: 0, start: '', noPath: null, edge: null };

const clampDepth = (n) => Math.min(6, Math.max(1, Math.round(Number(n)) || 1));

/** The canonical name of an entity (lower case, aliases applied), as the graph knows it. */
const canonical = (memory, entity) => memory.neighbors(entity, 0).nodes[0]?.entity ?? entity;

const query = () => (view.user ? { user: view.user } : {});

export function init(ctx) {
  $('#graph-form').addEventListener('submit', (event) => {
    event.preventDefault();
    view.entity = $('#graph-entity').value.trim();
    view.depth = clampDepth($('#graph-depth').value);
    view.paths = [];
    view.noPath = null;
    view.edge = null;
    ctx.render();
  });
  $('#graph-user').addEventListener('change', (e) => {
    view.user = e.target.value;
    view.paths = [];
    ctx.render();
  });
  $('#path-form').addEventListener('submit', (event) => {
    event.preventDefault();
    findPath(ctx);
  });
}

function findPath(ctx) {
  const { memory } = ctx;
  const [from, to] = [$('#path-from').value.trim(), $('#path-to').value.trim()];
  const max = clampDepth($('#path-depth').value);
  try {
    view.paths = memory.path(from, to, max, query());
    view.path = 0;
    if (!view.paths.length) {
      ctx.status(`no path from ${from} to ${to} within ${max} edges`);
    } else {
      // Centred on A, the neighbourhood as deep as the path holds every entity of it.
      view.entity = canonical(memory, from);
      view.start = view.entity;
      view.depth = Math.max(view.depth, view.paths[0].length);
      ctx.status(`${view.paths.length} shortest path${view.paths.length === 1 ? '' : 's'} of ${view.paths[0].length} edges`);
    }
    view.noPath = view.paths.length ? null : { from, to, max };
    ctx.render();
  } catch (e) {
    ctx.fail(e);
  }
}

/** A path as text: each hop with the direction its fact reads in. */
function pathText(start, edges) {
  const parts = [start];
  let at = start;
  for (const e of edges) {
    const forward = e.from === at;
    at = forward ? e.to : e.from;
    parts.push(forward ? ` —${e.relation}→ ` : ` ←${e.relation}— `, at);
  }
  return parts.join('');
}

export function render(ctx) {
  const { state, memory } = ctx;
  fillSelect($('#graph-user'), [['', 'all users'], ...memory.users().map((u) => [u.name, u.name || '(no user)'])], view.user);
  view.user = $('#graph-user').value;
  if (!view.entity) view.entity = state.user || ctx.threadUser(state.thread) || '';
  $('#graph-entity').value = view.entity;
  $('#graph-depth').value = String(view.depth);

  const paths = $('#paths');
  paths.replaceChildren();
  view.paths.forEach((p, i) => {
    paths.append(h('li', { class: i === view.path ? 'active' : null, 'data-index': i, onclick: () => { view.path = i; ctx.render(); } },
      pathText(view.start, p)));
  });
  if (view.noPath) paths.append(h('li', { class: 'muted' }, `No path from ${view.noPath.from} to ${view.noPath.to} within ${view.noPath.max} edges.`));

  const box = $('#graph');
  if (!view.entity) {
    box.replaceChildren(h('p', { class: 'muted' }, 'Name an entity to draw its neighbourhood.'));
    $('#graph-summary').textContent = '';
    $('#graph-nodes').replaceChildren();
    renderEdge(ctx, null);
    return;
  }
  const sub = memory.neighbors(view.entity, view.depth, query());
  const center = sub.nodes.find((n) => n.depth === 0)?.entity ?? view.entity;
  const onPath = new Set((view.paths[view.path] ?? []).map((e) => e.id));
  box.replaceChildren(drawGraph(sub, {
    center,
    path: onPath,
    selected: view.edge,
    onEdge: (e) => {
      view.edge = e.id;
      ctx.render();
    },
    onNode: (entity) => {
      view.entity = entity;
      view.paths = [];
      view.noPath = null;
      ctx.render();
    },
  }));
  $('#graph-summary').textContent = `${center}: ${sub.nodes.length} entities, ${sub.edges.length} facts within ${view.depth} edges`;
  $('#graph-nodes').replaceChildren(...sub.nodes.map((n) => h('li', {
    'data-entity': n.entity, class: onPath.size && sub.edges.some((e) => onPath.has(e.id) && (e.from === n.entity || e.to === n.entity)) ? 'on-path' : null,
    onclick: () => {
      view.entity = n.entity;
      view.paths = [];
      view.noPath = null;
      ctx.render();
    },
  }, badge(String(n.depth), 'depth'), ' ', n.entity)));
  renderEdge(ctx, sub.edges.find((e) => e.id === view.edge) ?? null);
}

function renderEdge(ctx, edge) {
  $('#edge-detail').hidden = !edge;
  $('#edge-empty').hidden = Boolean(edge);
  if (!edge) return;
  const item = ctx.memory.getItem(edge.id);
  $('#edge-detail').replaceChildren(...[
    h('span', { class: 'fact', 'data-field': 'fact' }, `${edge.from} —${edge.relation}→ ${edge.to}`), ' ',
    h('span', { 'data-field': 'text' }, edge.text), ' ',
    item ? [badge(item.kind, item.kind), ' ', badge(item.status, item.status), ' ', badge(`v${item.version}`, 'version'), ' '] : [],
    idLink(edge.id, `item ${edge.id}`),
    edge.sources.length ? h('span', { 'data-field': 'sources' }, ' · learned from ', edge.sources.flatMap((id, i) => [i ? ', ' : '', idLink(id)])) : [],
  ].flat(Infinity));
}
