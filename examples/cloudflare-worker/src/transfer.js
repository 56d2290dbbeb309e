// Export and import: the memory as JSONL (the ingest format, every face reads it), as the
// Markdown files a person reads and edits, or as the snapshot file (every stored entry).
//
// A request acting for a user exports and imports that user's part only, as JSONL:
// - export: the user's turns, long-term items and working memories. A parent or source that
//   is not the user's (another user's shared record) is left out of the line, so the export
//   imports anywhere on its own;
// - import: every line must be the user's; a line naming no user gets theirs, a line naming
//   another is refused (nothing is imported).
// Markdown and snapshots are store-wide (a snapshot import replaces the whole store).
import { invalid, json, object, text } from './http.js';

/** The JSON value of a JSONL line, or `INVALID_INPUT` naming the line. */
function parseLine(line, n) {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw invalid(`line ${n}: not JSON: ${e.message}`);
  }
}

/** The object of a line that holds the user: the item, the working memory or the turn. */
const holderOf = (value) => value.memory ?? value.work ?? value;

/** The lines of `jsonl` that are `user`'s, their links to records of others left out. */
function exportOf(jsonl, user) {
  const lines = jsonl.split('\n').filter((l) => l.trim() !== '').map((l, i) => parseLine(l, i + 1));
  const mine = lines.filter((v) => holderOf(v).user === user);
  const ids = new Set(mine.map((v) => (v.work ? null : holderOf(v).id)).filter(Boolean));
  for (const v of mine) {
    if (Array.isArray(v.parents)) v.parents = v.parents.filter((p) => ids.has(p));
    if (v.memory && Array.isArray(v.memory.sources)) v.memory.sources = v.memory.sources.filter((s) => ids.has(s));
  }
  return mine.map((v) => `${JSON.stringify(v)}\n`).join('');
}

/** `jsonl` with every line made `user`'s; a line naming another user is refused. */
function importOf(jsonl, user) {
  return jsonl.split('\n').map((line, i) => {
    if (line.trim() === '') return line;
    const value = parseLine(line, i + 1);
    const holder = holderOf(value);
    if (holder === null || typeof holder !== 'object' || Array.isArray(holder)) throw invalid(`line ${i + 1}: not a JSON object`);
    if (holder.user != null && holder.user !== user) {
      throw invalid(`line ${i + 1} names the user ${JSON.stringify(holder.user)}, but the request acts for ${JSON.stringify(user)}`);
    }
    holder.user = user;
    return JSON.stringify(value);
  }).join('\n');
}

/** `?format=`: jsonl (default), markdown or snapshot; a user's request takes JSONL only. */
function format(q, user) {
  const f = q.get('format') ?? 'jsonl';
  if (!['jsonl', 'markdown', 'snapshot'].includes(f)) throw invalid(`format ${f}: use jsonl, markdown or snapshot`);
  if (user !== undefined && f !== 'jsonl') throw invalid(`a ${f} export or import is store-wide: a user's is JSONL`);
  return f;
}

export const exportRoutes = {
  'GET export': (memory, { q, user }) => {
    const f = format(q, user);
    if (f === 'snapshot') return new Response(memory.exportSnapshot(), { headers: { 'content-type': 'application/octet-stream' } });
    if (f === 'markdown') return json({ files: memory.exportMarkdown() });
    const all = memory.exportJsonl();
    return new Response(user === undefined ? all : exportOf(all, user), { headers: { 'content-type': 'application/jsonl' } });
  },
  'POST import': async (memory, { q, request, user }) => {
    const f = format(q, user);
    if (f === 'snapshot') {
      const bytes = new Uint8Array(await request.arrayBuffer());
      if (bytes.length === 0) throw invalid('a body is required');
      return json(await memory.importBytes(bytes));
    }
    if (f === 'markdown') {
      const { files } = await object(request);
      if (!Array.isArray(files)) throw invalid('files must be an array of [path, text]');
      return json(await memory.importMarkdown(files));
    }
    const jsonl = await text(request);
    return json(await memory.importJsonl(user === undefined ? jsonl : importOf(jsonl, user)));
  },
};
