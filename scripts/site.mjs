// Writes a ready-to-copy widget folder for a site: the loader (stable name) and every file it
// loads under a content-hashed name, so a static host can cache those forever.
//
//   node scripts/site.mjs --index DIR/index.onr --out OUT [--model FILE] [--pkg DIR] [--www DIR]
//   node scripts/site.mjs --index DIR/manifest.onr --out OUT ...   a sharded index, shards and all
//   node scripts/site.mjs --template --out OUT     the widget alone, as the onrecord CLI carries it
//
// The loader keeps its name (the site's <script> tag points at it) and gets its ASSETS line
// rewritten with the hashed names: no manifest to fetch first, one round trip fewer.
// The widget's ES modules (www/onrecord/*.js, imported by the loader, the worker and summary.js)
// are hashed in dependency order with their relative import specifiers rewritten first, so each
// file's hash covers the names of everything it imports: a change anywhere renames every file
// that reaches it, and a page never mixes old and new modules. No bundler, no import map.
// Each JavaScript file is minified on its own (esbuild's transform, from scripts/tools): the
// sources keep their comments and JSDoc types and run as written in www/, but a site's visitors
// should not download them (the widget's modules are 18 KB gzipped as written, 7 KB minified).
// The style sheet is minified the same way (6,829 → 5,360 bytes).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

// A shard of a sharded index (build-index --shards): its kind's letter and its CRC-32.
const SHARD = /^[a-z]-[0-9a-f]{8}\.onr$/;
const ASSETS_LINE = /^const ASSETS = \{.*\};$/m;
// The loader is minified with these names in its ASSETS line, which are then replaced by the
// index's and query model's (or null): the minified code never depends on them (esbuild picks
// short names by character frequency), so `onrecord build` (crates/onrecord-cli) fills the same
// names into the template it carries (`--template`) and writes the same bytes as this script.
const PLACEHOLDERS = { index: 'index.0000000000.onr', model: 'query-model.0000000000.onq' };
// Static imports and re-exports with a relative specifier: `import { a } from './x.js'`,
// `import './x.js'`, `export { a } from './x.js'` (also across lines).
const STATIC_IMPORT = /^([ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*|[ \t]*import\s*)(['"])(\.{1,2}\/[^'"]+)\2/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"`]\./;

/** The files a module imports statically by relative path, resolved against its own path. */
export function staticImports(source, path) {
  return [...source.matchAll(STATIC_IMPORT)].map((m) => resolve(dirname(path), m[3]));
}

/** Minifies one ES module (imports and exports keep their names), or a style sheet with
 * `loader` 'css'; needs scripts/tools. */
function minify(source, path, loader = 'js') {
  let esbuild;
  try {
    esbuild = createRequire(import.meta.url)('./tools/node_modules/esbuild');
  } catch {
    throw new Error('esbuild is missing from scripts/tools/node_modules: run scripts/setup.sh');
  }
  try {
    const options = loader === 'css' ? { loader } : { format: 'esm', target: 'es2022' };
    return esbuild.transformSync(source, { minify: true, legalComments: 'none', ...options }).code;
  } catch (err) {
    throw new Error(`could not minify ${path}: ${err.message}`);
  }
}

const hashed = (stem, ext, bytes) => `${stem}.${createHash('sha256').update(bytes).digest('hex').slice(0, 10)}${ext}`;

/**
 * Hashes the modules reachable from `entries` by relative static imports, dependencies first.
 * Returns { name(path) → hashed name of an entry, modules: [[name, bytes]] in dependency order,
 * rewrite(source, path) for a file that keeps its name (the loader) }.
 */
function moduleGraph(www, read) {
  const names = new Map(); // absolute path → hashed name
  const stems = new Map(); // stem → absolute path, to refuse two files that would share a name
  const modules = [];
  const visiting = new Set();
  const rewrite = (source, path) => {
    // Type imports in JSDoc comments (`{import('../dist/pkg/onrecord_wasm.js').AnswerDto}`) are not loads.
    if (DYNAMIC_IMPORT.test(source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, ''))) {
      throw new Error(`${path} imports a relative path dynamically; use a static import or an ASSETS entry`);
    }
    return source.replace(STATIC_IMPORT, (_, head, quote, spec) => `${head}${quote}./${visit(resolve(dirname(path), spec))}${quote}`);
  };
  const visit = (path) => {
    if (names.has(path)) return names.get(path);
    if (visiting.has(path)) throw new Error(`import cycle through ${path}`);
    visiting.add(path);
    const bytes = Buffer.from(minify(rewrite(read(path, 'the module').toString('utf8'), path), path));
    // www/onrecord/panel.js → onrecord-panel.<hash>.js: one flat folder, so every specifier is ./name.
    const inside = relative(www, path);
    const stem = (inside.startsWith('..') ? basename(path) : inside).split(sep).join('-').replace(/\.js$/, '');
    if (stems.has(stem) && stems.get(stem) !== path) throw new Error(`${path} and ${stems.get(stem)} would share the name ${stem}`);
    stems.set(stem, path);
    const name = hashed(stem, '.js', bytes);
    names.set(path, name);
    modules.push([name, bytes]);
    visiting.delete(path);
    return name;
  };
  /** The hashed names of every module `path` imports, directly or not, and its own if hashed. */
  const closure = (path) => {
    const seen = new Set();
    const walk = (file) => {
      if (seen.has(file)) return;
      seen.add(file);
      staticImports(read(file, 'the module').toString('utf8'), file).forEach(walk);
    };
    walk(path);
    return [...seen].filter((file) => names.has(file)).map((file) => names.get(file));
  };
  return { name: visit, modules, rewrite, closure };
}

/** Puts the index and query model names (or null) in place of the placeholders of a minified
 * loader (the npm package's loader gets null for both: the site names its index). */
export function putNames(loader, assets) {
  for (const key of ['index', 'model']) {
    const placeholder = JSON.stringify(PLACEHOLDERS[key]);
    if (loader.split(placeholder).length !== 2) throw new Error(`the minified loader must name ${placeholder} once`);
    loader = loader.replace(placeholder, JSON.stringify(assets[key]));
  }
  return loader;
}

/**
 * Builds the folder; returns { files: {name: bytes}, assets, firstAnswer: [names] } for reports
 * and tests. With `template`, no index is given or written and the loader keeps the placeholders.
 */
export function writeSite({ index, out, model, pkg, www, summary, template = false }) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  pkg = resolve(pkg ?? join(root, 'www/dist/pkg'));
  www = resolve(www ?? join(root, 'www'));
  const sibling = template ? null : join(dirname(index), 'query-model.onq');
  model ??= sibling && existsSync(sibling) ? sibling : null;
  const need = (path, what) => {
    if (!existsSync(path)) throw new Error(`${what} ${path} does not exist (build it first)`);
    return readFileSync(path);
  };
  // An engine bundle: its glue, minified, and its wasm as scripts/build-wasm.sh gzips it (the
  // worker gunzips it; the plain one is not shipped). Besides the engine every site starts,
  // the worker loads the sharded one only for a sharded index and the documents one only for
  // a visitor's own files.
  const engine = (dir, suffix, what) => [
    [Buffer.from(minify(need(join(dir, 'onrecord_wasm.js'), `${what} glue`).toString('utf8'), `${what} glue`)), `onrecord_wasm${suffix}`, '.js'],
    [need(join(dir, 'onrecord_wasm_bg.wasm.gz'), `${what} wasm module`), `onrecord_wasm${suffix}_bg`, '.wasm.gz'],
  ];
  const [glue, wasm] = engine(pkg, '', 'the engine\'s');
  const [shardedGlue, shardedWasm] = engine(`${pkg}-sharded`, '_sharded', 'the sharded engine\'s');
  const [documentsGlue, documentsWasm] = engine(`${pkg}-documents`, '_documents', 'the documents engine\'s');
  const inputs = {
    css: [Buffer.from(minify(need(join(www, 'onrecord.css'), 'the widget styles').toString('utf8'), 'the widget styles', 'css')), 'onrecord', '.css'],
    glue, wasm, shardedGlue, shardedWasm, documentsGlue, documentsWasm,
  };
  if (!template) inputs.index = [need(index, 'the index'), 'index', '.onr'];
  if (model) inputs.model = [need(model, 'the query model'), 'query-model', '.onq'];
  summary ??= join(www, 'summary.js'); // the proxy's "Ask for a summary" flow, when it exists

  mkdirSync(out, { recursive: true });
  const assets = { css: null, worker: null, glue: null, wasm: null, shardedGlue: null, shardedWasm: null, documentsGlue: null, documentsWasm: null, index: null, model: null, summary: null, owner: null };
  const files = {};
  const write = (name, bytes) => {
    writeFileSync(join(out, name), bytes);
    files[name] = bytes;
  };
  for (const [key, [bytes, stem, ext]] of Object.entries(inputs)) {
    assets[key] = hashed(stem, ext, bytes);
    write(assets[key], bytes);
  }
  // A sharded index's manifest takes the index's place; its shards (named by their checksums,
  // which the manifest lists) go beside it under their own names.
  // (The build gzips a sharded index's files, so the magic is looked for inside.)
  const head = (bytes) => (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes);
  if (!template && head(inputs.index[0]).subarray(0, 8).toString('latin1') === 'ONRMANIF') {
    for (const name of readdirSync(dirname(index)).filter((n) => SHARD.test(n))) write(name, readFileSync(join(dirname(index), name)));
  }
  const graph = moduleGraph(www, need);
  assets.worker = graph.name(join(www, 'onrecord-worker.js'));
  if (existsSync(summary)) assets.summary = graph.name(resolve(summary));
  // What a site owner turns on (data-feedback, data-report): loaded only then.
  assets.owner = graph.name(join(www, 'onrecord/owner.js'));
  const loaderPath = join(www, 'onrecord.js');
  const loader = need(loaderPath, 'the loader').toString('utf8');
  if ((loader.match(new RegExp(ASSETS_LINE, 'gm')) ?? []).length !== 1) {
    throw new Error('www/onrecord.js must have exactly one `const ASSETS = {...};` line to rewrite');
  }
  // The loader's own imports are hashed before its ASSETS line is written.
  const withImports = graph.rewrite(loader, loaderPath);
  for (const [name, bytes] of graph.modules) write(name, bytes);
  const minified = minify(withImports.replace(ASSETS_LINE, `const ASSETS = ${JSON.stringify({ ...assets, ...PLACEHOLDERS })};`), loaderPath);
  write('onrecord.js', Buffer.from(template ? minified : putNames(minified, assets)));
  // What a visitor loads before the first answer: the loader and the worker with their modules,
  // the styles and the glue (summary.js, owner.js and the wasm, index and model are counted apart).
  const firstAnswer = ['onrecord.js', ...graph.closure(loaderPath), ...graph.closure(join(www, 'onrecord-worker.js')),
    assets.css, assets.glue];
  return { files, assets, firstAnswer: [...new Set(firstAnswer)] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const index = opt('--index');
  const out = opt('--out');
  const template = args.includes('--template');
  if (!(index || template) || !out) {
    console.error('usage: node scripts/site.mjs (--index DIR/index.onr | --template) --out OUT [--model FILE] [--pkg DIR] [--www DIR]');
    process.exit(2);
  }
  try {
    const { files, firstAnswer } = writeSite({ index, out, model: opt('--model'), pkg: opt('--pkg'), www: opt('--www'), template });
    const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
    for (const [name, bytes] of Object.entries(files)) {
      console.log(`${name.padEnd(36)} ${String(bytes.length).padStart(9)} bytes, ${String(gz(bytes)).padStart(8)} gzipped`);
    }
    const before = firstAnswer.reduce((sum, name) => sum + gz(files[name]), 0);
    console.log(`loaded before the first answer (besides wasm and index): ${before} bytes gzipped in ${firstAnswer.length} files`);
    console.log(`wrote ${resolve(out)}: copy it to your site and add <script type="module" src="/${basename(resolve(out))}/onrecord.js"></script>`);
  } catch (err) {
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
}
