// End-to-end: data-scope (issue 45) on a two-version site (tests/e2e/fixtures/versions: v1 and v2
// of the same page, and a page only v2 has), in headless Chromium: the v2 pages' widget answers,
// cites and lists results from v2 only, as typed and when asked; the v1 pages' widget declines
// what only v2 covers; without a scope the same question cites v1. Builds the index with
// build-index (as scripts/test.sh builds the fixture site's).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { writeSite } from '../../scripts/site.mjs';
import { ask, launch, open } from './browser.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const site = fileURLToPath(new URL('./artifacts/scope/', import.meta.url));
const PORT = 'Which port does the server listen on?';
const tag = (scope) => `<script type="module" src="/onrecord/onrecord.js"${scope ? ` data-scope="${scope}"` : ''}></script>`;
const html = (scope) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Server</title><link rel="icon" href="data:,">${tag(scope)}</head>` +
  '<body><h1>Server</h1></body></html>';
let server, browser;

before(async () => {
  rmSync(site, { recursive: true, force: true });
  execFileSync('cargo', ['run', '--quiet', '--release', '-p', 'build-index', '--', 'tests/e2e/fixtures/versions', '--out', site + 'index'],
    { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  writeSite({ index: site + 'index/index.onr', out: site + 'onrecord' });
  for (const [path, scope] of [['v1/server/', '/v1/'], ['v2/server/', '/v2/'], ['all/', null]]) {
    mkdirSync(site + path, { recursive: true });
    writeFileSync(site + path + 'index.html', html(scope));
  }
  server = await serve({ root: site });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.server.close();
});

/** The paths of every link the open widget shows (citations, results). */
const links = (p) => p.locator('.onrecord a').evaluateAll((as) => as.map((a) => new URL(a.href).pathname));

test('data-scope="/v2/": answers, citations and results from v2 only; v1 declines what only v2 covers', async () => {
  const context = await browser.newContext();
  const { page: p, errors } = await open(context, server.url + 'v2/server/');
  await ask(p, PORT);
  assert.match(await p.locator('.onrecord-quote').first().textContent(), /9090/);
  const shown = await links(p);
  assert.ok(shown.length >= 2, shown.join());
  for (const path of shown) assert.match(path, /^\/v2\//);
  // As typed: results from v2 only.
  await p.getByRole('searchbox', { name: 'Ask these pages' }).fill('request logged');
  await p.locator('.live .found').waitFor();
  const typed = await p.locator('.live .found a').evaluateAll((as) => as.map((a) => new URL(a.href).pathname));
  assert.ok(typed.length >= 1);
  for (const path of typed) assert.match(path, /^\/v2\//);
  assert.deepEqual(errors, []);

  const old = await open(context, server.url + 'v1/server/');
  await ask(old.page, PORT);
  assert.match(await old.page.locator('.onrecord-quote').first().textContent(), /8080/);
  for (const path of await links(old.page)) assert.match(path, /^\/v1\//);
  await ask(old.page, 'How are requests traced with OpenTelemetry?', { open: false });
  assert.equal(await old.page.locator('.turn').last().locator('.answer').getAttribute('data-mode'), 'not-found');
  assert.equal(await old.page.locator('.turn').last().locator('.onrecord-quote').count(), 0);
  assert.deepEqual(old.errors, []);

  // The whole site, for contrast: the same question quotes v1 first.
  const all = await open(context, server.url + 'all/');
  await ask(all.page, PORT);
  assert.ok((await links(all.page)).some((path) => path.startsWith('/v1/')), 'without a scope, v1 is cited too');
  await context.close();
});
