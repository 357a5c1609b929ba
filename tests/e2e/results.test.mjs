// End-to-end: results as the visitor types (issue 41), in headless Chromium, on the demo page
// (www/, as demo.test.mjs serves it) and on the demo corpus as a sharded site (www/dist/sharded,
// as sharded.test.mjs serves it): results appear as the box is typed into, Enter (or a pause)
// puts the answer above them, the arrow keys move through them and Enter opens one; a decline
// shows the sections that may help, a question about something no page mentions shows none; a
// typo says which word was read; a pasted 500-character question works; a reply to an earlier
// text never overwrites a later one; a shard that cannot be fetched while typing keeps the last
// results. Needs www/dist and www/dist/sharded (scripts/test.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { writeSite } from '../../scripts/site.mjs';
import { launch, open } from './browser.mjs';

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const built = fileURLToPath(new URL('../../www/dist/sharded/', import.meta.url));
const site = fileURLToPath(new URL('./artifacts/results-sharded/', import.meta.url));
const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sharded</title>' +
  '<link rel="icon" href="data:,"></head><body><h1>A sharded site</h1>' +
  '<script type="module" src="/onrecord/onrecord.js"></script></body></html>';
const RETURN = 'How many days do I have to return a bike?';
let demo, sharded, browser;

before(async () => {
  assert.ok(existsSync(www + 'dist/index.onr'), 'www/dist is missing: run scripts/test.sh (it builds it)');
  assert.ok(existsSync(built + 'onrecord.js'), 'www/dist/sharded is missing: run scripts/test.sh (it builds it)');
  // The sharded index and its shards, with the widget as www/ has it.
  rmSync(site, { recursive: true, force: true });
  const manifest = readdirSync(built).find((name) => /^index\.[0-9a-f]{10}\.onr$/.test(name));
  writeSite({ index: built + manifest, out: site + 'onrecord' });
  writeFileSync(site + 'index.html', PAGE);
  demo = await serve({ root: www });
  sharded = await serve({ root: site });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  demo?.server.close();
  sharded?.server.close();
});

/** Records the requests the page sends its engine worker (kind and payload), and lets a test hold
 * back the worker's replies to searches for the texts in `window.__slow` until it releases them. */
const recordWorker = (page) => page.addInitScript(() => {
  window.__sent = [];
  window.__slow = new Set();
  window.__held = [];
  const post = Worker.prototype.postMessage;
  const slow = new Set();
  Worker.prototype.postMessage = function (message, ...rest) {
    window.__sent.push({ kind: message.kind, ...message.payload });
    if (message.kind === 'search' && window.__slow.has(message.payload.query)) slow.add(message.id);
    return post.call(this, message, ...rest);
  };
  const handler = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', {
    get() { return handler.get.call(this); },
    set(fn) {
      handler.set.call(this, (event) => (slow.has(event.data.id) ? window.__held.push(() => fn(event)) : fn(event)));
    },
  });
});
const sent = (page, kind) => page.evaluate((kind) => window.__sent.filter((m) => m.kind === kind), kind);

const box = (page) => page.getByRole('searchbox', { name: 'Ask these pages' });
const status = (page) => page.locator('.onrecord-status').textContent();
/** What the results list shows, as "Page › link: excerpt" lines. */
const shown = (list) => list.evaluate((found) => [...found.querySelectorAll('.hits > li')].map((li) => {
  const page = li.closest('.pages > li').querySelector('.page').textContent;
  return `${page} › ${li.querySelector('a, span').textContent}: ${li.querySelector('.excerpt').textContent}`;
}));
/** Which element has focus inside the widget, as tag and text. */
const focused = (page) => page.evaluate(() => {
  const inner = document.activeElement?.shadowRoot?.activeElement;
  return inner ? `${inner.tagName.toLowerCase()}:${inner.textContent}` : 'outside';
});

/** Types like a visitor, a key at a time (`delay` ms apart), into the open widget's box. */
async function type(page, text, delay = 30) {
  await box(page).focus();
  await page.keyboard.type(text, { delay });
}

test('typing shows results; Enter puts the answer above them; the arrow keys reach them and Enter opens one', async () => {
  const context = await browser.newContext({ viewport: { width: 900, height: 720 } });
  const { page, errors } = await open(context, demo.url, recordWorker);
  await page.locator('.launch').click();
  await page.locator('.onrecord-status', { hasText: 'Ready' }).waitFor();
  // One letter finds nothing and asks nothing.
  await type(page, 'b');
  await page.waitForTimeout(1200);
  assert.deepEqual([await sent(page, 'search'), await sent(page, 'ask')], [[], []], 'one letter sends nothing');
  assert.equal(await page.locator('.found').count(), 0);
  await box(page).fill('');

  // Results follow the box as it is typed, grouped by page, the typed words highlighted.
  await type(page, 'return a bike');
  const live = page.locator('.live .found');
  await live.waitFor();
  const results = await shown(live);
  assert.ok(results.length >= 2, `results as typed: ${results.join(' | ')}`);
  assert.ok(results.some((r) => r.startsWith('Returns and refunds › ')), results.join(' | '));
  assert.ok(await live.locator('mark').count() >= 1, 'the typed words are highlighted');
  const searches = (await sent(page, 'search')).map((m) => m.query);
  assert.ok(searches.length >= 1 && searches.length < 'return a bike'.length - 1, `debounced: ${searches.join(' | ')}`);
  // The live region counts the results, visually hidden (the list shows them).
  await page.locator('.onrecord-status', { hasText: /^\d+ results?$/ }).waitFor();
  assert.match(await page.locator('.onrecord-status').getAttribute('class'), /quiet/);
  // Every link goes to a heading on this site.
  for (const href of await live.locator('a').evaluateAll((links) => links.map((a) => a.href))) {
    assert.ok(href.startsWith(demo.url), href);
  }

  // The whole question, then Enter: the answer, its results under it (never its own quote).
  await box(page).fill(RETURN);
  await box(page).press('Enter');
  const turn = page.locator('.turn').last();
  await turn.locator('.answer').waitFor();
  assert.match(await turn.locator('.onrecord-quote').first().textContent(), /30 days/);
  const under = turn.locator('.found');
  await under.waitFor();
  assert.equal(await under.locator('h3').textContent(), 'Related sections');
  assert.equal(await under.locator('.chip.confidence').count(), 0, 'results carry no confidence');
  const order = await turn.evaluate((t) => [...t.querySelectorAll('.answer, .found')].map((n) => n.className));
  assert.deepEqual(order, ['answer', 'found'], 'the answer above the results');
  const quoted = await turn.locator('.onrecord-cite a.cite').first().getAttribute('href');
  assert.ok(!(await under.locator('a').evaluateAll((links) => links.map((a) => a.href))).includes(quoted),
    'the results never repeat the quoted section');
  assert.equal(await page.locator('.live .found').count(), 0, 'the box is empty: nothing as typed');
  assert.match(await status(page), /^Answered with 1 quote from Returns and refunds › .+ \d+ results?\.$/);

  // ArrowDown from the box to the first result, on to the next, ArrowUp back; Enter opens it.
  const links = await under.locator('a').allTextContents();
  assert.ok(links.length >= 2, `results under the answer: ${links.join(' | ')}`);
  await box(page).focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(page), `a:${links[0]}`);
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(page), `a:${links[1]}`);
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(page), `a:${links[0]}`);
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(page), 'input:', 'back in the box');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const href = await under.locator('a').nth(1).getAttribute('href');
  assert.deepEqual(errors, []);
  await Promise.all([page.waitForURL(href), page.keyboard.press('Enter')]);
  assert.match(new URL(page.url()).hash, /^#./, 'the link goes to the heading');
  await context.close();
});

test('a pause asks, and shows the answer above the results; Enter then keeps that answer', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, demo.url, recordWorker);
  await page.locator('.launch').click();
  await type(page, RETURN, 10);
  const answer = page.locator('.live .answer');
  await answer.waitFor();
  assert.match(await answer.locator('.onrecord-quote').first().textContent(), /30 days/);
  const order = await page.locator('.live').evaluate((l) => [...l.children].map((n) => n.className));
  assert.deepEqual(order, ['answer', 'found']);
  const asks = (await sent(page, 'ask')).length;
  await box(page).press('Enter');
  await page.locator('.turn .answer').waitFor();
  assert.equal((await sent(page, 'ask')).length, asks, 'the answer already given is not asked again');
  assert.equal(await page.locator('.turn').count(), 1, 'one turn in the thread, not one per pause');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a decline shows the sections that may help; a question about what no page mentions shows none', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, demo.url);
  await page.locator('.launch').click();
  // The pages cover warranty, but not this.
  await box(page).fill('Does the warranty cover a stolen battery?');
  await box(page).press('Enter');
  const turn = page.locator('.turn').last();
  await turn.locator('.answer').waitFor();
  assert.equal(await turn.locator('.onrecord-quote').count(), 0, 'declined');
  assert.match(await turn.locator('.onrecord-decline').textContent(), /^Not in these documents\. /);
  const found = turn.locator('.found');
  assert.equal(await found.locator('h3').textContent(), 'These sections may help:');
  const results = await shown(found);
  assert.ok(results.some((r) => r.startsWith('Warranty › ')), results.join(' | '));
  assert.match(await status(page), /^Not in these documents\. .+ \d+ results?\.$/);

  // Half the question's words are words no page uses: its subject is not on these pages.
  await box(page).fill('Do you ship to Canada?');
  await box(page).press('Enter');
  const never = page.locator('.turn').last();
  await never.locator('.onrecord-decline', { hasText: 'Canada' }).waitFor();
  assert.match(await never.locator('.onrecord-decline').textContent(), /never mention ‘Canada’/);
  assert.equal(await never.locator('.found').count(), 0, 'no list');
  assert.equal(await never.locator('a').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a typo is read as the site\'s word, and the results say so', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, demo.url);
  await page.locator('.launch').click();
  await type(page, 'waranty claim');
  const live = page.locator('.live .found');
  await live.locator('.fixed').waitFor();
  assert.equal(await live.locator('.fixed').textContent(), 'Showing results for ‘warranty’');
  assert.ok((await shown(live)).some((r) => r.startsWith('Warranty › ')));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a pasted 500-character question finds results and is answered within the limits', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, demo.url);
  await page.locator('.launch').click();
  const long = 'How long is the warranty on the battery and on the frame? '.repeat(9).slice(0, 500);
  await box(page).fill(long);
  await page.locator('.live .found').waitFor();
  await box(page).press('Enter');
  await page.locator('.turn .answer').waitFor();
  assert.equal(await page.locator('.turn summary').textContent(), long.trim());
  assert.deepEqual(errors, []);
  await context.close();
});

test('a reply to an earlier text never overwrites the results of a later one', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, demo.url, recordWorker);
  await page.locator('.launch').click();
  await page.locator('.onrecord-status', { hasText: 'Ready' }).waitFor();
  // The reply to "opening" is held back until "warranty claim" has its results.
  await page.evaluate(() => window.__slow.add('opening'));
  await type(page, 'opening');
  await page.waitForFunction(() => window.__held.length === 1);
  await box(page).fill('');
  await type(page, 'warranty claim', 5);
  // Its results, then its answer after the pause: all the box's text gets.
  await page.locator('.live .answer').waitFor();
  const live = page.locator('.live .found');
  const later = await shown(live);
  assert.ok(later.some((r) => r.startsWith('Warranty › ')), later.join(' | '));
  await page.evaluate(() => window.__held.forEach((deliver) => deliver()));
  await page.waitForTimeout(300);
  assert.deepEqual(await shown(live), later, 'the stale reply was dropped');
  assert.deepEqual(errors, []);
  await context.close();
});

test('sharded: results as typed fetch the shards they need; offline, the last results stay with the note', async () => {
  const context = await browser.newContext();
  const { page, errors, requests } = await open(context, sharded.url);
  await page.locator('.launch').click();
  await type(page, 'fast charger');
  const live = page.locator('.live .found');
  await live.waitFor();
  const results = await shown(live);
  assert.ok(results.length >= 1, results.join(' | '));
  assert.ok(requests.some((p) => /\/onrecord\/[a-z]-[0-9a-f]{8}\.onr$/.test(p)), 'shards were fetched');
  await box(page).press('Enter');
  const turn = page.locator('.turn').last();
  await turn.locator('.onrecord-quote').first().waitFor();
  assert.match(await turn.locator('.onrecord-quote').first().textContent(), /fast charger/);

  // Offline, words whose shards were never fetched: the results shown stay, with the note.
  await type(page, 'fast charger');
  await live.waitFor();
  const before = await shown(live);
  await context.setOffline(true);
  await type(page, ' xylophone zebra');
  await page.locator('.onrecord-status', { hasText: 'could not be fetched (are you offline?)' }).waitFor();
  assert.deepEqual(await shown(live), before, 'the last good results stay');
  await context.setOffline(false);
  assert.deepEqual(errors, []);
  await context.close();
});
