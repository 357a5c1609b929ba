// The npm package of the widget, for sites built with a bundler: packages/onrecord-widget holds
// what is written by hand (package.json, the loader's onrecord.d.ts, README.md); its dist/ is
// made here from the same build outputs a site gets, never from a second copy of the sources:
// scripts/site.mjs --template over www/ and scripts/build-wasm.sh's www/dist/pkg (the loader,
// the hashed and minified modules, worker, glue, wasm and styles), plus wasm-bindgen's
// declarations of the engine (onrecord_wasm.d.ts). Then `npm pack`.
//
//   node scripts/npm-package.mjs [--out DIR]     writes DIR/onrecord-widget-<version>.tgz (target/npm)
//
// tests/e2e/npm-package.test.mjs installs the tarball into a scratch project and answers in Chromium.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { putNames, writeSite } from './site.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'packages/onrecord-widget');
const HAND_WRITTEN = ['package.json', 'onrecord.d.ts', 'README.md'];
// package.json's `./engine` export names the glue under this placeholder until its hash is known.
const GLUE_PLACEHOLDER = './dist/onrecord_wasm.0000000000.js';

/** Writes the package folder into `dir` (emptied first); returns the names in its dist/. */
export function stagePackage(dir, { pkg = join(root, 'www/dist/pkg') } = {}) {
  const types = join(pkg, 'onrecord_wasm.d.ts');
  if (!existsSync(types)) throw new Error(`${types} does not exist: run scripts/build-wasm.sh first`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of HAND_WRITTEN) cpSync(join(source, name), join(dir, name));
  const { files, assets } = writeSite({ template: true, out: join(dir, 'dist'), pkg });
  // No index or query model of its own: the site names its index (mount({ index })), and the
  // query model is then looked for beside it, as the loader does for a lexical `onrecord build`.
  writeFileSync(join(dir, 'dist/onrecord.js'), putNames(files['onrecord.js'].toString('utf8'), { index: null, model: null }));
  cpSync(types, join(dir, 'dist/onrecord_wasm.d.ts'));
  const manifest = readFileSync(join(dir, 'package.json'), 'utf8');
  if (manifest.split(GLUE_PLACEHOLDER).length !== 2) throw new Error(`package.json must name ${GLUE_PLACEHOLDER} once`);
  writeFileSync(join(dir, 'package.json'), manifest.replace(GLUE_PLACEHOLDER, `./dist/${assets.glue}`));
  return [...Object.keys(files), 'onrecord_wasm.d.ts'].sort();
}

/** Stages the package and runs `npm pack`; returns the tarball's path. */
export function packPackage(out = join(root, 'target/npm')) {
  const stage = mkdtempSync(join(tmpdir(), 'onrecord-npm-'));
  try {
    stagePackage(stage);
    mkdirSync(out, { recursive: true });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', resolve(out)],
      { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    return join(resolve(out), packed.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--out');
  try {
    console.log(packPackage(at >= 0 ? args[at + 1] : undefined));
  } catch (err) {
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
}
