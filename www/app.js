// The demo page: adds turns from the form to an in-memory `Memory` and lists them by thread,
// newest first. Serve the repository root so both www/ and pkg/ resolve.
import { Memory } from '../pkg/index.js';

const memory = new Memory();
const threads = new Set();
const form = document.querySelector('#turn-form');
const status = document.querySelector('#status');

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const parents = String(data.get('parents'))
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  try {
    const record = memory.addTurn({
      thread: String(data.get('thread')).trim(),
      input: String(data.get('input')),
      output: String(data.get('output')),
      parents,
      createdAt: Date.now(),
    });
    threads.add(record.thread);
    status.textContent = '';
    form.elements.input.value = '';
    form.elements.output.value = '';
    form.elements.parents.value = record.id;
    render();
  } catch (error) {
    status.textContent = `${error.code ?? 'ERROR'}: ${error.message}`;
  }
});

function render() {
  const container = document.querySelector('#records');
  container.replaceChildren();
  for (const thread of [...threads].sort()) {
    const heading = document.createElement('h3');
    heading.textContent = `Thread ${thread}`;
    const list = document.createElement('ul');
    for (const record of memory.recent(thread, Infinity)) {
      list.append(item(record));
    }
    container.append(heading, list);
  }
  document.querySelector('#count').textContent = String(memory.len);
}

function item(record) {
  const li = document.createElement('li');
  li.className = 'record';
  li.dataset.id = record.id;
  const id = document.createElement('code');
  id.textContent = record.id;
  const text = document.createElement('div');
  text.className = 'turn';
  text.textContent = `${record.input} → ${record.output}`;
  const parents = document.createElement('div');
  parents.className = 'parents';
  parents.textContent = record.parents.length ? `parents: ${record.parents.join(', ')}` : 'root';
  li.append(id, text, parents);
  return li;
}

document.body.dataset.ready = 'true';
