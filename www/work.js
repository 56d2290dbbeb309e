// The Working memory tab: the selected thread's working memory (`workingMemory`) in its
// conventional fields, the goal (text), the task stack (a list of `{ text, status }`), the
// constraints (a list) and the notes (an object), any other field as JSON, and the change
// history, newest first. Every control is one `updateWork` of one field: set the goal, push or
// pop a task, mark a task done or open again (a JSON merge patch of its index), add a
// constraint, set or remove a note; `clearWork` forgets it all. Working memory is per user
// and thread: the tab shows and changes that of the user of the thread's newest turn.
import { $, h, badge, clip, fillMeta, fillTable, fmtStamp, show, timeEl } from './ui.js';

/** `MM-DD HH:MM:SS`: the changes of one thread are rarely years apart. */
const stamp = (ms) => fmtStamp(ms).slice(5);

const CONVENTIONAL = new Set(['goal', 'tasks', 'constraints', 'notes']);

/** A change's value in the history: cut short, and free to wrap anywhere (JSON has few spaces). */
const json = (value) => (value === undefined ? '' : h('span', { class: 'json' }, clip(show(value), 36)));

/** One change of one field of the selected thread, as the user of its newest turn. */
async function change(ctx, field, op, value) {
  const thread = ctx.state.thread;
  if (!thread) return;
  const update = { thread, field, op };
  if (value !== undefined) update.value = value;
  const user = ctx.threadUser(thread);
  if (user) update.user = user;
  try {
    const done = await ctx.memory.updateWork(update);
    ctx.status(done.stale ? `${field}: stale, a newer change of it won` : '');
    ctx.render();
  } catch (e) {
    ctx.fail(e);
  }
}

/** Submitting `form` runs `fn` with the trimmed value of `input`, then clears it. */
function onSubmit(form, input, fn) {
  $(form).addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $(input).value.trim();
    if (!text) return;
    $(input).value = '';
    fn(text);
  });
}

export function init(ctx) {
  onSubmit('#goal-form', '#goal-text', (text) => change(ctx, 'goal', 'set', text));
  onSubmit('#task-form', '#task-text', (text) => change(ctx, 'tasks', 'push', { text, status: 'open' }));
  onSubmit('#constraint-form', '#constraint-text', (text) => change(ctx, 'constraints', 'push', text));
  onSubmit('#note-form', '#note-key', (key) => {
    const raw = $('#note-value').value.trim();
    $('#note-value').value = '';
    let value = null;
    if (raw) {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    }
    change(ctx, 'notes', 'patch', { [key]: value });
  });
  $('#task-pop').addEventListener('click', () => change(ctx, 'tasks', 'pop'));
  $('#work-clear').addEventListener('click', async () => {
    try {
      const thread = ctx.state.thread;
      const had = await ctx.memory.clearWork(thread, ctx.threadUser(thread) || undefined);
      ctx.status(had ? 'working memory cleared' : 'no working memory to clear');
      ctx.render();
    } catch (e) {
      ctx.fail(e);
    }
  });
}

export function render(ctx) {
  const { state, memory } = ctx;
  $('#work-thread').textContent = state.thread ?? '–';
  $('#work').hidden = !state.thread;
  $('#work-empty').hidden = Boolean(state.thread);
  $('#work-clear').disabled = !state.thread;
  if (!state.thread) {
    $('#work-history').replaceChildren();
    return;
  }
  const wm = memory.workingMemory(state.thread, ctx.threadUser(state.thread) || undefined);
  const value = (name) => wm.fields[name]?.value;

  const goal = value('goal');
  $('#work-goal').textContent = goal == null ? 'No goal set.' : show(goal);
  $('#work-goal').classList.toggle('muted', goal == null);

  const tasks = Array.isArray(value('tasks')) ? value('tasks') : [];
  $('#work-tasks').replaceChildren(...tasks.map((t, i) => taskRow(ctx, t, i, i === tasks.length - 1)));
  if (!tasks.length) $('#work-tasks').append(h('li', { class: 'muted empty' }, 'No tasks.'));
  $('#task-pop').disabled = !tasks.length;

  const constraints = Array.isArray(value('constraints')) ? value('constraints') : [];
  $('#work-constraints').replaceChildren(...constraints.map((c) => h('li', {}, show(c))));
  if (!constraints.length) $('#work-constraints').append(h('li', { class: 'muted empty' }, 'No constraints.'));

  const notes = value('notes');
  const noteList = notes && typeof notes === 'object' && !Array.isArray(notes) ? Object.entries(notes) : [];
  fillMeta($('#work-notes'), noteList.map(([k, v]) => [k, show(v)]));
  if (!noteList.length) $('#work-notes').append(h('dd', { class: 'muted empty' }, 'No notes.'));

  const other = Object.entries(wm.fields).filter(([name]) => !CONVENTIONAL.has(name));
  $('#work-other-box').hidden = !other.length;
  fillMeta($('#work-other'), other.map(([name, f]) => [name, show(f.value)]));

  const rows = [...wm.history].reverse();
  fillTable($('#work-history'), ['at', 'field', 'op', 'value', 'before', 'user'],
    rows.map((c) => [timeEl(c.at, stamp), c.field, badge(c.stale ? `${c.op} (stale)` : c.op, c.op),
      json(c.value), json(c.previous), c.user ?? '']),
    (i) => ({ class: rows[i].stale ? 'stale' : null, 'data-field': rows[i].field, 'data-op': rows[i].op }));
}

function taskRow(ctx, task, i, top) {
  const isObject = task && typeof task === 'object' && !Array.isArray(task);
  const text = isObject ? show(task.text ?? '') : show(task);
  const status = isObject ? String(task.status ?? 'open') : 'open';
  const done = status === 'done';
  // A merge patch of element i; a task that is not an object becomes one.
  const toggle = () => change(ctx, 'tasks', 'patch', { [i]: isObject ? { status: done ? 'open' : 'done' } : { text, status: 'done' } });
  return h('li', { class: `task ${done ? 'done' : ''}`, 'data-index': i, 'data-status': status },
    badge(status, status), ' ', h('span', { class: 'task-text' }, text), top ? h('span', { class: 'muted small' }, ' (top)') : null, ' ',
    h('button', { type: 'button', class: 'small', onclick: toggle }, done ? 'Reopen' : 'Done'));
}
