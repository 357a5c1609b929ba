// End-to-end: the npm package (scripts/npm-package.mjs) as a site built with a bundler uses it.
// The tarball from `npm pack` is installed into a scratch project (offline: it has no
// dependencies), type-checked against, its engine run in Node, and a tiny page that imports it
// is bundled with esbuild and answers with a quote in headless Chromium under the strict CSP.
// Needs www/dist/pkg and www/dist/fixture/index.onr (scripts/test.sh builds both).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { packPackage, stagePackage } from '../../scripts/npm-package.mjs';
import { serve } from '../../scripts/serve.mjs';
import { launch, open } from './browser.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const index = here('../../www/dist/fixture/index.onr');
const STRICT = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; require-trusted-types-for 'script'; report-uri /csp-report";
const QUESTION = 'When does the first ferry leave on weekdays?';
const QUOTE = 'The first ferry leaves the north pier at 06:40 every weekday.';
let scratch, app, installed, server, browser;

before(() => {
  assert.ok(existsSync(index), 'www/dist/fixture/index.onr is missing: run scripts/test.sh (it builds it)');
  scratch = mkdtempSync(join(tmpdir(), 'onrecord-npm-test-'));
  const tarball = packPackage(join(scratch, 'pack'));
  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-site', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', tarball],
    { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
  installed = join(app, 'node_modules/onrecord-widget');
});

after(async () => {
  await browser?.close();
  server?.server.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the installed package holds everything the widget loads, its exports and its types', () => {
  // What `npm pack` kept equals what was staged: nothing dropped by package.json's `files`.
  const staged = stagePackage(join(scratch, 'staged'));
  assert.deepEqual(readdirSync(join(installed, 'dist')).sort(), staged);
  // Every hashed name the loader or a module mentions is in dist/, starting from the loader.
  const dist = join(installed, 'dist');
  const seen = new Set();
  const follow = (name) => {
    assert.ok(existsSync(join(dist, name)), `dist/${name} is missing (named by the widget)`);
    if (seen.has(name)) return;
    seen.add(name);
    if (!name.endsWith('.js')) return;
    for (const [next] of readFileSync(join(dist, name), 'utf8').matchAll(/[\w-]+\.[0-9a-f]{10}\.(?:js|css|wasm\.gz)/g)) follow(next);
  };
  follow('onrecord.js');
  for (const stem of ['onrecord-worker.', 'onrecord-panel.', 'onrecord-client.', 'onrecord_wasm.', 'onrecord_wasm_bg.', 'onrecord.']) {
    assert.ok([...seen].some((n) => n.startsWith(stem) && n !== 'onrecord.js'), `the loader reaches ${stem}*`);
  }
  const { exports } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  for (const [entry, targets] of Object.entries(exports).filter(([e]) => !e.includes('*'))) {
    for (const path of Object.values(targets)) assert.ok(existsSync(join(installed, path)), `${entry} → ${path} is missing`);
  }
  const loader = readFileSync(join(dist, 'onrecord.js'), 'utf8');
  assert.ok(!/0{10}/.test(loader), 'the loader names no placeholder index or query model');
});

test('TypeScript: the loader API and the engine types resolve from the package', () => {
  writeFileSync(join(app, 'check.ts'), `
import { mount, type MountOptions } from 'onrecord-widget';
import type { AnswerDto, Engine } from 'onrecord-widget/engine';
const options: MountOptions = { assets: '/onrecord/', index: '/search/index.onr', theme: 'dark', maxQuotes: 2 };
mount(options);
export const quotes = (answer: AnswerDto): number => answer.quotes.length;
export const ask = (engine: Engine, question: string): AnswerDto => engine.ask(question);
const inline: HTMLElement = document.createElement('onrecord-ask');
// @ts-expect-error: not a theme
mount({ theme: 'purple' });
export { inline };
`);
  // lib esnext: wasm-bindgen's declarations use Symbol.dispose (the package README says so).
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler',
    '--lib', 'esnext,dom', join(app, 'check.ts')];
  try {
    execFileSync(here('node_modules/.bin/tsc'), args, { cwd: app, encoding: 'utf8' });
  } catch (err) {
    assert.fail(`tsc failed:\n${err.stdout}${err.stderr}`);
  }
});

test('the engine module (onrecord-widget/engine) answers in Node from the package wasm', async () => {
  const glue = createRequire(join(app, 'x.js')).resolve('onrecord-widget/engine');
  const engine = await import(pathToFileURL(glue).href);
  // The wasm ships gzip-compressed (the widget's worker gunzips it; here Node does).
  const wasm = readdirSync(join(installed, 'dist')).find((n) => n.endsWith('.wasm.gz'));
  engine.initSync({ module: gunzipSync(readFileSync(join(installed, 'dist', wasm))) });
  const answer = new engine.Engine(readFileSync(index)).ask(QUESTION);
  assert.equal(answer.quotes[0]?.text, QUOTE);
});

test('a bundled page imports it, points it at its index and answers under the strict CSP', async () => {
  writeFileSync(join(app, 'main.js'), `
import { mount } from 'onrecord-widget';
mount({ assets: '/onrecord/', index: '/search/index.onr' });
`);
  const site = join(scratch, 'site');
  const esbuild = createRequire(import.meta.url)('../../scripts/tools/node_modules/esbuild');
  await esbuild.build({ entryPoints: [join(app, 'main.js')], absWorkingDir: app, bundle: true, format: 'esm',
    minify: true, outfile: join(site, 'app.js'), logLevel: 'error' });
  cpSync(join(installed, 'dist'), join(site, 'onrecord'), { recursive: true });
  cpSync(index, join(site, 'search/index.onr'));
  writeFileSync(join(site, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A bundled site</title>
<script type="module" src="/app.js"></script></head>
<body><h1>A bundled site</h1></body></html>
`);
  server = await serve({ root: site, headers: { 'content-security-policy': STRICT } });
  browser = await launch();
  const context = await browser.newContext();
  const { page, errors, violations, requests } = await open(context, server.url);
  const failed = [];
  page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${new URL(r.url()).pathname}`));
  await page.locator('.launch').click();
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  await input.fill(QUESTION);
  await input.press('Enter');
  await page.locator('.answer').waitFor();
  assert.equal(await page.locator('.onrecord-quote').first().textContent(), QUOTE);
  assert.match(await page.locator('.onrecord-cite a.jump').getAttribute('href'), /\/guide\/#timetable:~:text=/);
  assert.ok(!requests.includes('/onrecord/onrecord.js'), 'the loader came in the bundle');
  for (const prefix of ['/onrecord/onrecord-worker.', '/onrecord/onrecord_wasm_bg.', '/onrecord/onrecord.', '/search/index.onr']) {
    assert.ok(requests.some((p) => p.startsWith(prefix)), `${prefix}… loaded from the site`);
  }
  await new Promise((ok) => setTimeout(ok, 300)); // CSP reports are posted asynchronously
  assert.deepEqual([...await violations(), ...server.server.cspReports], [], 'CSP violations');
  assert.deepEqual(failed, []);
  assert.deepEqual(errors, []);
  await context.close();
});
