// End-to-end: www/summary.js in headless Chromium against the real onrecord-proxy, which talks
// to the misbehaving fake upstream (crates/onrecord-proxy/examples/fake_upstream.rs). The page
// runs under a strict CSP with Trusted Types enforced, so any HTML sink would throw.
// Needs www/dist (scripts/build-wasm.sh and build-index); scripts/test.sh builds both first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const www = root + 'www/';
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const targetDir = process.env.CARGO_TARGET_DIR ?? root + 'target';
const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' http://127.0.0.1:*; " +
  "style-src 'self'; img-src 'self'; require-trusted-types-for 'script'; trusted-types 'none'";
const RETURNS = 'How many days do I have to return a bike?';
let server, base, browser, proxyUrl;
const children = [];

/** Starts a binary; resolves with the first stdout line or the stderr line that matches. */
function launch(bin, args, match) {
  return new Promise((ok, fail) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const look = (chunk) => {
      out += chunk;
      const m = out.match(match);
      if (m) ok(m[1]);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => fail(new Error(`${bin} exited with ${code}: ${out}`)));
  });
}

before(async () => {
  for (const built of ['dist/index.onr', 'dist/pkg/onrecord_wasm_bg.wasm']) {
    assert.ok(existsSync(www + built), `www/${built} is missing: run scripts/test.sh (it builds it)`);
  }
  execFileSync('cargo', ['build', '--quiet', '-p', 'onrecord-proxy', '--bin', 'onrecord-proxy', '--example', 'fake_upstream'],
    { cwd: root, stdio: 'inherit' });
  ({ server, url: base } = await serve({ root: www, headers: { 'content-security-policy': CSP } }));
  const origin = new URL(base).origin;
  const fakeUrl = await launch(`${targetDir}/debug/examples/fake_upstream`, ['127.0.0.1:0'], /^(http\S+)\n/m);
  const addr = await launch(`${targetDir}/debug/onrecord-proxy`, [
    '--index', www + 'dist/index.onr', '--upstream', fakeUrl, '--model', 'fake', '--no-key',
    '--listen', '127.0.0.1:0', '--allow-origin', origin, '--client-rate', '1000/1000', '--no-cache',
  ], /serving POST (http:\/\/\S+)\/v1\/summary/);
  proxyUrl = addr;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    // Page and proxy are both on loopback here, on different ports; Chromium's Local Network
    // Access prompt (which a real site on a public origin calling a public proxy never meets)
    // cannot be answered headless, so it is turned off.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-features=LocalNetworkAccessChecks'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  for (const child of children) child.kill();
});

/** Opens the fixture page; returns the page, its errors and every URL it requested. */
async function open() {
  const page = await browser.newPage();
  const errors = [];
  const requested = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('request', (r) => requested.push(r.url()));
  for (const name of ['summary.html', 'summary-page.js']) {
    await page.route(`${base}${name}`, (route) => route.fulfill({
      status: 200,
      contentType: name.endsWith('.html') ? 'text/html' : 'text/javascript',
      headers: { 'content-security-policy': CSP },
      body: readFileSync(fixtures + name),
    }));
  }
  await page.goto(`${base}summary.html`);
  await page.waitForFunction(() => document.getElementById('ready').textContent === 'ready');
  return { page, errors, requested };
}

const run = (page, question, opts = {}) =>
  page.evaluate(([u, r, q, o]) => window.runSummary(u, r, q, o), [proxyUrl, RETURNS, question, opts]);

const corpusText = readFileSync(root + 'corpus/shop/returns.md', 'utf8').replaceAll('**', '').replace(/\s+/g, ' ');

test('a verified quote is shown, from the page’s own index, after a draft marked provisional', async () => {
  const { page, errors } = await open();
  const result = await run(page, RETURNS);
  assert.equal(result.mode, 'answer', JSON.stringify(result) + errors.join('\n'));
  const quotes = await page.locator('.onrecord-summary-quote').allTextContents();
  assert.equal(quotes.length, 1);
  assert.ok(corpusText.includes(quotes[0].replace(/\s+/g, ' ')), `not verbatim: ${quotes[0]}`);
  const link = page.locator('.onrecord-summary-cite a');
  assert.equal(await link.getAttribute('href'), new URL('/shop/returns/#bikes', base).href);
  const drafts = await page.evaluate(() => window.__drafts);
  assert.ok(drafts.some((d) => d.startsWith('Draft, not yet checked: Here is')), JSON.stringify(drafts));
  assert.equal(await page.locator('[data-provisional]').count(), 0, 'the draft is replaced');
  assert.match(await page.locator('.onrecord-summary-status').textContent(), /^Summary: 1 checked quote\.$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an invented quote is never shown', async () => {
  const { page, errors } = await open();
  const result = await run(page, `${RETURNS} invent`);
  assert.equal(result.mode, 'not-found');
  assert.equal(await page.locator('.onrecord-summary-quote').count(), 0);
  const body = await page.locator('body').textContent();
  assert.ok(!body.includes('365 days'), 'invented quote on screen');
  assert.ok(!body.includes('full year'), 'the model’s draft stays on screen');
  assert.match(await page.locator('.onrecord-summary-status').textContent(), /could not be checked/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a real quote cited to the wrong passage is not shown', async () => {
  const { page } = await open();
  const result = await run(page, `${RETURNS} elsewhere`, { neighbour: true });
  assert.equal(result.mode, 'not-found', JSON.stringify(result));
  assert.equal(result.dropped, 1);
  assert.equal(await page.locator('.onrecord-summary-quote').count(), 0);
  await page.close();
});

test('markup and image links from the model are literal text and fetch nothing', async () => {
  const { page, errors, requested } = await open();
  const result = await run(page, `${RETURNS} markup`);
  assert.equal(result.mode, 'answer');
  const drafts = await page.evaluate(() => window.__drafts);
  assert.ok(drafts.some((d) => d.includes('<img src=x onerror="window.__pwned=1">')), JSON.stringify(drafts));
  const added = await page.evaluate(() => window.__added);
  for (const tag of ['IMG', 'SCRIPT', 'IFRAME', 'STRONG']) assert.ok(!added.includes(tag), `${tag} created: ${added}`);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.ok(!requested.some((u) => u.includes('evil.example')), requested.join('\n'));
  assert.ok(!(await page.locator('body').textContent()).includes('evil.example'), 'draft left on screen');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the browser re-verifies: a tampered claim from the proxy is dropped', async () => {
  const { page } = await open();
  await page.route(`${proxyUrl}/v1/summary`, async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace(/"text":"[^"]*"(?=,"title")/, '"text":"Bikes can be returned for a full year without any fee"');
    await route.fulfill({ response, body });
  });
  const result = await run(page, RETURNS);
  assert.equal(result.droppedHere, 1, JSON.stringify(result));
  assert.equal(result.mode, 'not-found');
  assert.equal(await page.locator('.onrecord-summary-quote').count(), 0);
  assert.ok(!(await page.locator('body').textContent()).includes('full year'));
  await page.close();
});

test('an engine that cannot verify quotes means nothing is asked or shown', async () => {
  const { page, requested } = await open();
  const result = await run(page, RETURNS, { askOnly: true });
  assert.equal(result.mode, 'error');
  assert.equal(await page.locator('.onrecord-summary-status').textContent(),
    'Summary unavailable: this page cannot check the model’s quotes');
  assert.ok(!requested.some((u) => u.startsWith(proxyUrl)), 'the proxy was called');
  await page.close();
});

test('a proxy that refuses is a clear message, not a broken widget', async () => {
  const { page } = await open();
  await page.route(`${proxyUrl}/v1/summary`, (route) => route.fulfill({
    status: 429, contentType: 'application/json', headers: { 'retry-after': '5', 'access-control-allow-origin': new URL(base).origin },
    body: '{"error":"too many requests from this address"}',
  }));
  const result = await run(page, RETURNS);
  assert.equal(result.mode, 'error');
  assert.equal(await page.locator('.onrecord-summary-status').textContent(),
    'Summary unavailable: too many requests from this address');
  await page.close();
});

/** The real loader (engine in its worker) on a page with data-proxy, opened; the Trusted Types
 * policy the loader needs for its worker is allowed by name. `onPage` runs before the page loads.
 * @param {(page: import('playwright-core').Page) => void} [onPage] */
async function openWidget(onPage = () => {}) {
  const csp = CSP.replace("trusted-types 'none'", 'trusted-types onrecord');
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  onPage(page);
  await page.route(`${base}widget.html`, (route) => route.fulfill({
    status: 200,
    contentType: 'text/html',
    headers: { 'content-security-policy': csp },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>widget</title>
      <script type="module" src="/onrecord.js" data-index="/dist/index.onr" data-proxy="${proxyUrl}"></script>
      </head><body><h1>Widget with a proxy</h1></body></html>`,
  }));
  await page.goto(`${base}widget.html`);
  await page.locator('.launch').click();
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  return { page, errors, input };
}

test('the widget’s "Ask for a summary" runs summary.js against the proxy: only checked quotes show', async () => {
  const { page, errors, input } = await openWidget();
  await input.fill(RETURNS);
  await input.press('Enter');
  await page.locator('.answer').waitFor();
  await page.getByRole('button', { name: 'Ask for a summary' }).click();
  const status = page.locator('.onrecord-summary-status');
  await page.locator('.onrecord-summary-status', { hasText: /^Summary: / }).waitFor();
  assert.match(await status.textContent(), /^Summary: 1 checked quote\.$/);
  const quote = await page.locator('.onrecord-summary-quote').textContent();
  assert.ok(corpusText.includes(quote.replace(/\s+/g, ' ')), `not verbatim: ${quote}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('under a decline, "Ask for a summary" asks the proxy about the sections listed: only checked quotes show', async () => {
  const asked = [];
  const { page, errors, input } = await openWidget((p) => {
    p.on('request', (r) => r.url().endsWith('/v1/summary') && asked.push(JSON.parse(r.postData() ?? '{}')));
  });
  await input.fill('Does the warranty cover a stolen battery?');
  await input.press('Enter');
  const turn = page.locator('.turn').last();
  await turn.locator('.onrecord-decline').waitFor();
  const listed = await turn.locator('.found a').count();
  assert.ok(listed > 0, 'the decline lists sections');
  await turn.getByRole('button', { name: 'Ask for a summary' }).click();
  await turn.locator('.onrecord-summary-status', { hasText: /^Summary: / }).waitFor();
  assert.equal(asked.length, 1);
  assert.ok(asked[0].fragments.length > 0 && asked[0].fragments.length <= 8, JSON.stringify(asked[0]));
  assert.equal(asked[0].question, 'Does the warranty cover a stolen battery?');
  // What the model quoted is shown only as the page's own words.
  const pages = execFileSync('find', [root + 'corpus', '-name', '*.md'], { encoding: 'utf8' }).trim().split('\n');
  // The page's words as the reader keeps them: no emphasis marks, no list bullets.
  const allText = pages
    .map((p) => readFileSync(p, 'utf8').replace(/^\s*[-*+] /gm, ''))
    .join(' ')
    .replaceAll('**', '')
    .replace(/\s+/g, ' ');
  for (const quote of await turn.locator('.onrecord-summary-quote').allTextContents()) {
    assert.ok(allText.includes(quote.replace(/\s+/g, ' ')), `not verbatim: ${quote}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
