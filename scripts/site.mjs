// Writes a ready-to-copy widget folder for a site: the loader (stable name) and every file it
// loads under a content-hashed name, so a static host can cache those forever.
//
//   node scripts/site.mjs --index DIR/index.onr --out OUT [--model FILE] [--pkg DIR] [--www DIR]
//
// The loader keeps its name (the site's <script> tag points at it) and gets its ASSETS line
// rewritten with the hashed names: no manifest to fetch first, one round trip fewer.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ASSETS_LINE = /^const ASSETS = \{.*\};$/m;

/** Builds the folder; returns { files: {name: bytes}, assets } for reports and tests. */
export function writeSite({ index, out, model, pkg, www, summary }) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  pkg = resolve(pkg ?? join(root, 'www/dist/pkg'));
  www = resolve(www ?? join(root, 'www'));
  const sibling = join(dirname(index), 'query-model.onq');
  model ??= existsSync(sibling) ? sibling : null;
  const need = (path, what) => {
    if (!existsSync(path)) throw new Error(`${what} ${path} does not exist (build it first)`);
    return readFileSync(path);
  };
  const inputs = {
    css: [need(join(www, 'onrecord.css'), 'the widget styles'), 'onrecord', '.css'],
    worker: [need(join(www, 'onrecord-worker.js'), 'the engine worker'), 'onrecord-worker', '.js'],
    glue: [need(join(pkg, 'onrecord_wasm.js'), 'the wasm glue'), 'onrecord_wasm', '.js'],
    wasm: [need(join(pkg, 'onrecord_wasm_bg.wasm'), 'the wasm module'), 'onrecord_wasm_bg', '.wasm'],
    index: [need(index, 'the index'), 'index', '.onr'],
  };
  if (model) inputs.model = [need(model, 'the query model'), 'query-model', '.onq'];
  summary ??= join(www, 'summary.js'); // the proxy's "Ask for a summary" flow, when it exists
  if (existsSync(summary)) inputs.summary = [readFileSync(summary), 'summary', '.js'];

  mkdirSync(out, { recursive: true });
  const assets = { css: null, worker: null, glue: null, wasm: null, index: null, model: null, summary: null };
  const files = {};
  for (const [key, [bytes, stem, ext]] of Object.entries(inputs)) {
    const name = `${stem}.${createHash('sha256').update(bytes).digest('hex').slice(0, 10)}${ext}`;
    writeFileSync(join(out, name), bytes);
    assets[key] = name;
    files[name] = bytes;
  }
  const loader = need(join(www, 'onrecord.js'), 'the loader').toString('utf8');
  if ((loader.match(new RegExp(ASSETS_LINE, 'gm')) ?? []).length !== 1) {
    throw new Error('www/onrecord.js must have exactly one `const ASSETS = {...};` line to rewrite');
  }
  const rewritten = loader.replace(ASSETS_LINE, `const ASSETS = ${JSON.stringify(assets)};`);
  writeFileSync(join(out, 'onrecord.js'), rewritten);
  files['onrecord.js'] = Buffer.from(rewritten);
  return { files, assets };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const index = opt('--index');
  const out = opt('--out');
  if (!index || !out) {
    console.error('usage: node scripts/site.mjs --index DIR/index.onr --out OUT [--model FILE] [--pkg DIR] [--www DIR]');
    process.exit(2);
  }
  try {
    const { files } = writeSite({ index, out, model: opt('--model'), pkg: opt('--pkg'), www: opt('--www') });
    for (const [name, bytes] of Object.entries(files)) {
      console.log(`${name.padEnd(36)} ${String(bytes.length).padStart(9)} bytes, ${String(gzipSync(bytes, { level: 9 }).length).padStart(8)} gzipped`);
    }
    console.log(`wrote ${resolve(out)}: copy it to your site and add <script type="module" src="/${basename(resolve(out))}/onrecord.js"></script>`);
  } catch (err) {
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
}
