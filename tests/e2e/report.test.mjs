// End-to-end: what visitors could not find, on the owner's terms (issue 45), in headless
// Chromium on the fixture site's deploy folder under the strict CSP: the widget's DOM events carry
// the question, the confidence, the decline's reason and missing words, the page opened and the
// feedback; without data-report nothing is sent; with it, one record per question, result opened
// and feedback goes out by sendBeacon, in exactly the shape of the golden records `onrecord gaps`
// reads (crates/onrecord-cli/tests/data/gaps/records.jsonl); the feedback buttons work from the
// keyboard. Needs www/dist/fixture/index.onr (scripts/test.sh builds it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../../scripts/serve.mjs';
import { writeSite } from '../../scripts/site.mjs';
import { ask, launch, open } from './browser.mjs';

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const site = fileURLToPath(new URL('./artifacts/report/', import.meta.url));
const GOLDEN = new URL('../../crates/onrecord-cli/tests/data/gaps/records.jsonl', import.meta.url);
const STRICT = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; require-trusted-types-for 'script'";
const page = (tag) => '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour</title>' +
  `${tag}</head><body><h1>Harbour</h1></body></html>`;
const ANSWERED = 'When does the first ferry leave on weekdays?';
const DECLINED = 'Can I take a kayak on the first ferry on weekdays?';
// The decline's reasons (DeclineDto's gate in crates/onrecord-wasm/src/api.rs).
const GATES = ['too-long', 'control-characters', 'no-content-words', 'other-language', 'never-mentioned', 'missing',
  'below-floor', 'unsupported', 'no-amount', 'other'];
let server, browser;

before(async () => {
  const index = www + 'dist/fixture/index.onr';
  assert.ok(existsSync(index), 'www/dist/fixture/index.onr is missing: run scripts/test.sh (it builds it)');
  rmSync(site, { recursive: true, force: true });
  cpSync(fileURLToPath(new URL('./fixtures/pages/', import.meta.url)), site, { recursive: true });
  writeSite({ index, out: site + 'onrecord' });
  writeFileSync(site + 'plain.html', page('<script type="module" src="/onrecord/onrecord.js"></script>'));
  writeFileSync(site + 'report.html',
    page('<script type="module" src="/onrecord/onrecord.js" data-feedback data-report="/collect"></script>'));
  server = await serve({ root: site, headers: { 'content-security-policy': STRICT } });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.server.close();
});

/** Records the widget's events (type and detail) and the beacons the page sends (held back). */
const listen = (p) => p.addInitScript(() => {
  window.__events = [];
  window.__beacons = [];
  for (const kind of ['asked', 'answered', 'declined', 'opened', 'feedback']) {
    document.addEventListener(`onrecord:${kind}`, (e) => window.__events.push({ type: e.type, ...e.detail }));
  }
  navigator.sendBeacon = (url, body) => {
    window.__beacons.push({ url: String(url), body: String(body) });
    return true;
  };
});
const events = (p) => p.evaluate(() => window.__events.splice(0));
const beacons = (p) => p.evaluate(() => window.__beacons.splice(0));

test('events carry the question, the confidence, the page opened and the decline; nothing is sent without data-report', async () => {
  const context = await browser.newContext();
  const { page: p, errors, violations, requests } = await open(context, server.url + 'plain.html', listen);
  await ask(p, ANSWERED);
  const confidence = await p.locator('.turn .chip.confidence').count()
    ? (await p.locator('.turn .chip.confidence').getAttribute('class')).split(' ').pop() : null;
  assert.deepEqual(await events(p), [
    { type: 'onrecord:asked', question: ANSWERED },
    { type: 'onrecord:answered', question: ANSWERED, confidence },
  ]);
  assert.equal(await p.locator('.feedback').count(), 0, 'no feedback buttons without data-feedback');
  // The citation's page, opened (the test keeps the page: the link's own listener cancels the
  // navigation, and the widget's hears the click all the same).
  const link = p.locator('.turn a.cite').first();
  const href = new URL(await link.getAttribute('href'));
  await link.evaluate((a) => a.addEventListener('click', (e) => e.preventDefault()));
  await link.click();
  assert.deepEqual(await events(p), [{ type: 'onrecord:opened', question: ANSWERED, url: href.pathname + href.hash }]);

  await ask(p, DECLINED, { open: false });
  const [asked, declined] = await events(p);
  assert.deepEqual(asked, { type: 'onrecord:asked', question: DECLINED });
  assert.equal(declined.type, 'onrecord:declined');
  assert.equal(declined.question, DECLINED);
  assert.ok(GATES.includes(declined.reason), declined.reason);
  assert.ok(declined.missing.includes('kayak'), declined.missing.join());
  assert.match(await p.locator('.onrecord-decline').textContent(), /‘kayak’/, 'the decline the visitor read names the same words');

  assert.deepEqual(await beacons(p), [], 'no beacon without data-report');
  assert.deepEqual(requests.filter((path) => !path.startsWith('/onrecord/') && !['/plain.html', '/favicon.ico'].includes(path)), [],
    'no request but the page and the widget\'s files');
  assert.deepEqual(await violations(), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('data-report: one record per question, result opened and feedback, shaped as onrecord gaps reads them; feedback by keyboard', async () => {
  const golden = readFileSync(GOLDEN, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const keys = Object.keys(golden[0]);
  for (const record of golden) assert.deepEqual(Object.keys(record), keys, 'the golden records share one shape');

  const context = await browser.newContext();
  const { page: p, errors, violations } = await open(context, server.url + 'report.html', listen);
  await ask(p, ANSWERED);
  // Feedback on the answer: Tab goes from one button to the other, Enter presses.
  const yes = p.getByRole('button', { name: 'Yes' });
  await yes.focus();
  await p.keyboard.press('Tab');
  assert.equal(await p.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent), 'No');
  await p.keyboard.press('Enter');
  const thanks = p.locator('.turn .feedback');
  assert.equal(await thanks.textContent(), 'Thank you for telling us.');
  assert.equal(await p.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.className), 'feedback', 'the focus stays on the row');
  // The next question redraws the thread; the answer, reopened, still says thanks: no second vote.
  await ask(p, DECLINED, { open: false });
  await p.locator('.turn').first().locator('summary').click();
  assert.equal(await p.locator('.turn').first().locator('.feedback').textContent(), 'Thank you for telling us.');
  const link = p.locator('.turn').first().locator('a.cite').first();
  const opened = new URL(await link.getAttribute('href'));
  await link.evaluate((a) => a.addEventListener('click', (e) => e.preventDefault()));
  await link.click();

  const sent = await beacons(p);
  for (const { url } of sent) assert.equal(url, server.url + 'collect');
  const records = sent.map(({ body }) => JSON.parse(body));
  for (const record of records) assert.deepEqual(Object.keys(record), keys, `the golden shape: ${JSON.stringify(record)}`);
  // Each record is its event's detail, completed to the golden shape.
  const told = (await events(p)).filter((e) => e.type !== 'onrecord:asked');
  const base = { v: 1, page: '/report.html', confidence: null, reason: null, missing: [], url: null, helpful: null };
  assert.deepEqual(records, told.map(({ type, ...detail }) => Object.fromEntries(
    keys.map((k) => [k, { ...base, event: type.replace('onrecord:', ''), ...detail }[k]]))));
  assert.deepEqual(records.map((r) => [r.event, r.question]), [
    ['answered', ANSWERED], ['feedback', ANSWERED], ['declined', DECLINED], ['opened', ANSWERED]]);
  assert.ok([null, 'high', 'medium', 'low'].includes(records[0].confidence), records[0].confidence);
  assert.equal(records[1].helpful, false);
  assert.ok(GATES.includes(records[2].reason) && records[2].missing.includes('kayak'), JSON.stringify(records[2]));
  assert.equal(records[3].url, opened.pathname + opened.hash);
  assert.deepEqual(await violations(), []);
  assert.deepEqual(errors, []);
  await context.close();
});
