// A tiny static file server for browser tests: serves one directory on 127.0.0.1 with the MIME
// types that matter (application/wasm lets WebAssembly.instantiateStreaming work).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
};

/** Serves `root` on 127.0.0.1 (`port` 0: an ephemeral one), and `pages` (path → HTML text)
 * at their paths. Resolves to `{ url, close }`. */
export async function serve(root, port = 0, pages = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      if (Object.hasOwn(pages, path)) {
        res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' });
        res.end(pages[path]);
        return;
      }
      let file = resolve(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end();
        return;
      }
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise((ok) => server.close(ok)),
  };
}
