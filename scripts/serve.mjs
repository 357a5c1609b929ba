// A small static file server for www/: correct MIME types (application/wasm), no directory
// listings, nothing outside the root. Used by the demo and by the end-to-end tests.
//
//   node scripts/serve.mjs [--root DIR] [--port N] [--host 127.0.0.1]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.gz': 'application/gzip', // the wasm ships gzipped; sent as the file it is (the worker gunzips it)
  '.onr': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

// Content-hashed names, and index shards (named by their checksums).
const HASHED = /\.[0-9a-f]{10}(\.[a-z]+)+$|\/[a-z]-[0-9a-f]{8}\.onr$/;

/** Starts serving `root`; resolves to { server, url } once listening. Port 0 picks a free port.
 * `headers` is an object of extra response headers, or a function of the path returning one. */
export function serve({ root, port = 0, host = '127.0.0.1', headers = {} }) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      // CSP violation reports (`report-uri /csp-report`), from pages and their workers alike.
      if (req.method === 'POST' && path === '/csp-report') {
        let body = '';
        for await (const chunk of req) body += chunk;
        server.cspReports.push(body);
        return send(res, 204, '');
      }
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) return send(res, 403, 'forbidden');
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) {
        file = join(file, 'index.html');
        info = await stat(file).catch(() => null);
      }
      if (!info?.isFile()) return send(res, 404, 'not found');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(typeof headers === 'function' ? headers(path) : headers),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      send(res, 400, `bad request: ${err.message}`);
    }
  });
  server.cspReports = [];
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      ok({ server, url: `http://${host}:${actual}/` });
    });
  });
}

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
  };
  const root = opt('--root', 'www');
  const host = opt('--host', '127.0.0.1');
  const wanted = Number(opt('--port', process.env.PORT ?? '8000'));
  let started;
  try {
    started = await serve({ root, port: wanted, host });
  } catch (err) {
    if (err.code !== 'EADDRINUSE') throw err;
    console.log(`port ${wanted} is busy; using a free one`);
    started = await serve({ root, port: 0, host });
  }
  console.log(`serving ${resolve(root)}`);
  console.log(`open ${started.url}`);
}
