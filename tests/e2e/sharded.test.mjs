// End-to-end: a sharded site (the demo corpus built by `onrecord build --shards` with small
// shards) in headless Chromium. The worker loads the sharded engine only for it, fetches only the
// shards a question needs, answers a question whose shards it has without a request, says so
// when a shard cannot be fetched (offline) and shows a clear error for a corrupt one. Needs
// www/dist/sharded (scripts/test.sh builds it with the onrecord CLI, whose carried widget files
// it has just checked).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { serve } from '../../scripts/serve.mjs';
import { writeSite } from '../../scripts/site.mjs';
import { ask, launch, open } from './browser.mjs';

const built = fileURLToPath(new URL('../../www/dist/sharded/', import.meta.url));
const site = fileURLToPath(new URL('./artifacts/sharded/', import.meta.url));
const SHARD = /\/onrecord\/[a-z]-[0-9a-f]{8}\.onr$/;
const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sharded</title>' +
  '<link rel="icon" href="data:,"></head><body><h1>A sharded site</h1>' +
  '<script type="module" src="/onrecord/onrecord.js"></script></body></html>';
const CHARGING = 'How long does charging take with the fast charger?';
let server, base, browser, shards;

before(async () => {
  assert.ok(existsSync(built + 'onrecord.js'), 'www/dist/sharded is missing: run scripts/test.sh (it builds it)');
  rmSync(site, { recursive: true, force: true });
  cpSync(built, site + 'onrecord', { recursive: true });
  writeFileSync(site + 'index.html', PAGE);
  shards = readdirSync(site + 'onrecord').filter((name) => SHARD.test('/onrecord/' + name));
  ({ server, url: base } = await serve({ root: site }));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
});

const status = (page) => page.locator('.onrecord-status').textContent();
/** Asks and waits for the live region to report on the question (not on loading the engine). */
async function askForStatus(page, question) {
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  const before = await status(page);
  await input.fill(question);
  await input.press('Enter');
  await page.waitForFunction(([before]) => {
    const host = document.querySelector('.onrecord');
    const text = host?.shadowRoot?.querySelector('.onrecord-status')?.textContent ?? '';
    return text && text !== before && !/^(Loading|Ready)/.test(text);
  }, [before]);
  return status(page);
}

test('a sharded site answers with a quote, fetching only the shards its questions need, and from cache with no request', async () => {
  assert.ok(shards.length >= 4, `the demo corpus has several shards: ${shards.join(' ')}`);
  const context = await browser.newContext();
  const { page, errors, requests } = await open(context, base);
  await ask(page, CHARGING);
  assert.match(await page.locator('.onrecord-quote').first().textContent(), /With the 4 A fast charger it takes about 3 hours\./);
  // The sharded engine, and not the default one, answered.
  assert.ok(requests.some((p) => /\/onrecord_wasm_sharded_bg\.[0-9a-f]{10}\.wasm\.gz$/.test(p)), `sharded wasm: ${requests.join(' ')}`);
  assert.ok(!requests.some((p) => /\/onrecord_wasm_bg\./.test(p)), 'the default wasm is not loaded for a sharded site');
  const fetched = requests.filter((p) => SHARD.test(p));
  assert.ok(fetched.length > 0 && fetched.length < shards.length, `fetched ${fetched.length} of ${shards.length} shards`);
  assert.equal(new Set(fetched).size, fetched.length, `each shard once: ${fetched.join(' ')}`);
  // Shards are named by their checksums, so the HTTP cache keeps them across visits.
  const shard = await fetch(new URL(fetched[0], base));
  assert.equal(shard.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  console.log(`# sharded demo: the first question fetched ${fetched.length} of ${shards.length} shards`);

  // The same question in other words reads the same shards: answered with no request at all.
  const seen = requests.length;
  await ask(page, 'How long does charging with the fast charger take?', { open: false });
  assert.match(await page.locator('.turn').last().locator('.onrecord-quote').first().textContent(), /4 A fast charger/);
  assert.deepEqual(requests.slice(seen), [], 'a question whose shards are cached fetches nothing');

  // Offline: a question that needs shards not fetched yet says so; the cached ones still answer.
  await context.setOffline(true);
  assert.match(await askForStatus(page, 'How many days do I have to return a bike?'),
    /^This question needs parts of the search index that could not be fetched \(are you offline\?\)/);
  const offline = requests.length;
  await ask(page, CHARGING, { open: false });
  assert.match(await page.locator('.turn').last().locator('.onrecord-quote').first().textContent(), /4 A fast charger/);
  assert.deepEqual(requests.slice(offline), [], 'answered offline from the shards already fetched');
  // Back online, the question that could not be answered is answered.
  await context.setOffline(false);
  await ask(page, 'How many days do I have to return a bike?', { open: false });
  assert.match(await page.locator('.turn').last().locator('.onrecord-quote').first().textContent(), /30 days/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a corrupt shard gives a clear error naming it, never a page error; plain files are read too', async () => {
  const context = await browser.newContext();
  // Every shard served corrupt (one flipped byte): the first the question needs is named.
  const { page, errors } = await open(context, base, (p) => p.route(SHARD, async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    // Inside the build's gzip stream, so it is the engine's checksum that catches it.
    const bytes = gunzipSync(readFileSync(site + 'onrecord/' + name));
    bytes[bytes.length - 1] ^= 1;
    await route.fulfill({ status: 200, body: gzipSync(bytes), contentType: 'application/octet-stream' });
  }));
  await page.locator('.launch').click();
  const said = await askForStatus(page, CHARGING);
  assert.match(said, /^Something went wrong: index shard [a-z]-[0-9a-f]{8}\.onr: shard is corrupt: checksum [0-9a-f]{8} does not match [0-9a-f]{8}$/);
  assert.deepEqual(errors, []);
  await context.close();

  // A damaged gzip stream (its last byte flipped) is a shard that does not read, not offline.
  const cut = await open(await browser.newContext(), base, (p) => p.route(SHARD, async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    const bytes = readFileSync(site + 'onrecord/' + name);
    bytes[bytes.length - 1] ^= 1;
    await route.fulfill({ status: 200, body: bytes, contentType: 'application/octet-stream' });
  }));
  await cut.page.locator('.launch').click();
  assert.match(await askForStatus(cut.page, CHARGING), /^Something went wrong: could not read the index shard \S+\/[a-z]-[0-9a-f]{8}\.onr: /);
  assert.deepEqual(cut.errors, []);
  await cut.page.context().close();

  // The build compresses its files (gzip, 1f 8b; the site above is read that way); the worker
  // reads them plain as well (a host that stored them decompressed).
  const site0 = readFileSync(site + 'onrecord/' + readdirSync(site + 'onrecord').find((n) => n.startsWith('index.')));
  assert.deepEqual([...site0.subarray(0, 2)], [0x1f, 0x8b]);
  const gzipped = fileURLToPath(new URL('./artifacts/sharded-plain/', import.meta.url));
  rmSync(gzipped, { recursive: true, force: true });
  cpSync(site, gzipped, { recursive: true });
  for (const name of readdirSync(gzipped + 'onrecord').filter((n) => n.endsWith('.onr'))) {
    writeFileSync(gzipped + 'onrecord/' + name, gunzipSync(readFileSync(gzipped + 'onrecord/' + name)));
  }
  const gz = await serve({ root: gzipped });
  const again = await browser.newContext();
  const opened = await open(again, gz.url);
  await ask(opened.page, CHARGING);
  assert.match(await opened.page.locator('.onrecord-quote').first().textContent(), /4 A fast charger/);
  assert.deepEqual(opened.errors, []);
  await again.close();
  gz.server.close();
});

test('scripts/site.mjs writes the same sharded folder as onrecord build', () => {
  const manifest = readdirSync(built).find((name) => /^index\.[0-9a-f]{10}\.onr$/.test(name));
  const out = fileURLToPath(new URL('./artifacts/sharded-by-site-mjs/', import.meta.url));
  rmSync(out, { recursive: true, force: true });
  const { files } = writeSite({ index: built + manifest, out });
  assert.deepEqual(Object.keys(files).sort(), readdirSync(built).sort());
  for (const [name, bytes] of Object.entries(files)) assert.ok(bytes.equals(readFileSync(built + name)), `${name} differs`);
});
