// The export file of a memory: every stored entry in one binary file.
//
//   offset 0  8 bytes  magic "MDAGEXP1"
//   then, per entry: u32 LE key length, the key (UTF-8), u32 LE value length, the value
//
// The values are the core's own envelopes (magic, version, CRC-32), so a damaged file fails
// to import with CORRUPT_DATA naming the key.
import { memdagError } from './errors.js';

const MAGIC = 'MDAGEXP1';

/** Encodes `[key, Uint8Array][]` as an export file. */
export function encodeExport(entries) {
  const enc = new TextEncoder();
  const parts = entries.map(([k, v]) => [enc.encode(k), v]);
  const size = 8 + parts.reduce((n, [k, v]) => n + 8 + k.length + v.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(enc.encode(MAGIC), 0);
  let at = 8;
  for (const [k, v] of parts) {
    view.setUint32(at, k.length, true);
    out.set(k, at + 4);
    at += 4 + k.length;
    view.setUint32(at, v.length, true);
    out.set(v, at + 4);
    at += 4 + v.length;
  }
  return out;
}

/** Decodes an export file; `INVALID_INPUT` if it is not one. */
export function decodeExport(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const bad = (why) => memdagError('INVALID_INPUT', `invalid input: not a memdag export file (${why})`);
  if (data.length < 8 || new TextDecoder().decode(data.subarray(0, 8)) !== MAGIC) throw bad('bad magic');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const dec = new TextDecoder('utf-8', { fatal: true });
  const entries = [];
  let at = 8;
  const take = () => {
    if (at + 4 > data.length) throw bad('truncated');
    const n = view.getUint32(at, true);
    if (at + 4 + n > data.length) throw bad('truncated');
    const slice = data.slice(at + 4, at + 4 + n);
    at += 4 + n;
    return slice;
  };
  while (at < data.length) entries.push([dec.decode(take()), take()]);
  return entries;
}
