// End-to-end: the demo page served on loopback, driven in the real headless Chromium.
// Needs www/dist (scripts/build-wasm.sh and build-index); scripts/test.sh builds both first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
let server, base, browser;

before(async () => {
  for (const built of ['dist/index.onr', 'dist/pkg/onrecord_wasm_bg.wasm']) {
    assert.ok(existsSync(www + built), `www/${built} is missing: run scripts/test.sh (it builds it)`);
  }
  ({ server, url: base } = await serve({ root: www }));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  mkdirSync(artifacts, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Opens the demo page; returns the page and the browser errors it logs. */
async function open(setup = async () => {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  await setup(page);
  await page.goto(base);
  return { page, errors };
}

async function ask(page, question) {
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  await input.waitFor();
  await page.waitForFunction(() => !document.querySelector('#onrecord-q').disabled);
  await input.fill(question);
  await input.press('Enter');
}

test('answers with a verbatim quote and a citation link to the heading', async () => {
  const { page, errors } = await open();
  await ask(page, 'How many days do I have to return a bike?');
  const quote = page.locator('.onrecord-quote').first();
  await quote.waitFor();
  const text = await quote.textContent();
  assert.match(text, /30 days/);
  // The quote is a verbatim slice of the page's source text (markup aside).
  const source = readFileSync(new URL('../../corpus/shop/returns.md', import.meta.url), 'utf8').replaceAll('**', '');
  assert.ok(source.includes(text), `not verbatim: ${text}`);
  const link = page.locator('.onrecord-cite a').first();
  assert.equal(await link.textContent(), 'Returns and refunds › Time limits › Bikes');
  assert.equal(await link.getAttribute('href'), new URL('/shop/returns/#bikes', base).href);
  assert.match(await page.locator('.onrecord-status').textContent(), /Answered with 1 quote/);
  await page.screenshot({ path: artifacts + 'answer.png', fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the query model loads after the index, lazily, and answers keep coming', async () => {
  const requested = [];
  const { page, errors } = await open((p) => p.on('request', (r) => requested.push(new URL(r.url()).pathname)));
  await page.waitForSelector('section.onrecord[data-meaning="ready"]');
  const index = requested.indexOf('/dist/index.onr');
  const model = requested.indexOf('/dist/query-model.onq');
  assert.ok(index >= 0 && model > index, `model after index: ${requested.join(' ')}`);
  await ask(page, 'How many days do I have to return a bike?');
  await page.locator('.onrecord-quote').first().waitFor();
  assert.match(await page.locator('.onrecord-quote').first().textContent(), /30 days/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('declines an off-topic question and names the missing words', async () => {
  const { page, errors } = await open();
  await ask(page, 'What is the capital of France?');
  const decline = page.locator('.onrecord-decline');
  await decline.waitFor();
  assert.equal(await decline.textContent(), 'Not in these documents. These pages never mention ‘capital’ or ‘france’.');
  assert.equal(await page.locator('.onrecord-quote').count(), 0, 'a decline cites nothing');
  await page.screenshot({ path: artifacts + 'decline.png', fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('a corrupt index shows a clear message, not a dead widget', async () => {
  const good = readFileSync(www + 'dist/index.onr');
  const corrupt = Buffer.from(good);
  corrupt[corrupt.length - 10] ^= 0x55;
  const { page } = await open((p) =>
    p.route('**/dist/index.onr', (route) => route.fulfill({ status: 200, body: corrupt })));
  const status = page.locator('.onrecord-status');
  await page.waitForFunction(() => document.querySelector('.onrecord-status')?.textContent.startsWith('Search is unavailable'));
  assert.match(await status.textContent(), /^Search is unavailable: index is corrupt: checksum [0-9a-f]{8} does not match [0-9a-f]{8}$/);
  assert.equal(await status.getAttribute('role'), 'alert');
  assert.ok(await page.locator('#onrecord-q').isDisabled());
  await page.close();
});

test('a missing index shows a clear message', async () => {
  const { page } = await open((p) =>
    p.route('**/dist/index.onr', (route) => route.fulfill({ status: 404, body: 'not found' })));
  await page.waitForFunction(() => document.querySelector('.onrecord-status')?.textContent.startsWith('Search is unavailable'));
  assert.match(await page.locator('.onrecord-status').textContent(), /could not fetch the search index .*index\.onr: HTTP 404/);
  await page.close();
});
