// End-to-end: the deploy folder (scripts/site.mjs) on a small fixture site, served under a strict
// Content Security Policy with Trusted Types enforced; the XSS corpus; offline use; the inline
// element; no HTML sinks in the shipped JavaScript.
// Needs www/dist/fixture/index.onr (scripts/test.sh builds it from tests/e2e/fixtures/corpus).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { serve } from '../../scripts/serve.mjs';
import { writeSite } from '../../scripts/site.mjs';
import { ask, launch, open } from './browser.mjs';

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const site = fileURLToPath(new URL('./artifacts/site/', import.meta.url));
// Violations are counted twice: securitypolicyviolation events in the page, and reports the
// browser posts to the test server (those include the engine worker's).
const REPORT = '; report-uri /csp-report';
const STRICT = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self'; require-trusted-types-for 'script'" + REPORT;
const NO_WASM = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; require-trusted-types-for 'script'" + REPORT;
let strict, noWasm, browser, assets, firstAnswer;

before(async () => {
  const index = www + 'dist/fixture/index.onr';
  assert.ok(existsSync(index), 'www/dist/fixture/index.onr is missing: run scripts/test.sh (it builds it)');
  rmSync(site, { recursive: true, force: true });
  cpSync(fileURLToPath(new URL('./fixtures/pages/', import.meta.url)), site, { recursive: true });
  ({ assets, firstAnswer } = writeSite({ index, out: site + 'onrecord', summary: fileURLToPath(new URL('./fixtures/summary.js', import.meta.url)) }));
  strict = await serve({ root: site, headers: { 'content-security-policy': STRICT } });
  noWasm = await serve({ root: site, headers: { 'content-security-policy': NO_WASM } });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  strict?.server.close();
  noWasm?.server.close();
});

test('the deploy folder has content-hashed names, a rewritten loader and immutable cache headers', async () => {
  const names = readdirSync(site + 'onrecord').sort();
  for (const key of ['css', 'worker', 'glue', 'wasm', 'index', 'summary']) {
    assert.match(assets[key], /\.[0-9a-f]{10}\.(css|js|wasm\.gz|onr)$/, key);
    assert.ok(names.includes(assets[key]), `${assets[key]} written`);
  }
  const loader = readFileSync(site + 'onrecord/onrecord.js', 'utf8');
  for (const name of Object.values(assets).filter(Boolean)) assert.ok(loader.includes(`"${name}"`), `the loader points at ${name}`);
  // Every module but the loader is hashed, and every relative import names a file in the folder.
  for (const name of names.filter((n) => n.endsWith('.js'))) {
    if (name !== 'onrecord.js') assert.match(name, /\.[0-9a-f]{10}\.js$/, name);
    const specifiers = [...readFileSync(site + 'onrecord/' + name, 'utf8').matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1]);
    for (const spec of specifiers) {
      assert.match(spec, /^\.\/[\w-]+\.[0-9a-f]{10}\.js$/, `${name} imports ${spec}`);
      assert.ok(names.includes(spec.slice(2)), `${name} imports ${spec}, which is missing`);
    }
  }
  assert.ok(/from\s*"\.\/onrecord-panel\.[0-9a-f]{10}\.js"/.test(loader), 'the loader imports the hashed panel');
  const hashed = await fetch(new URL(`onrecord/${assets.wasm}`, strict.url));
  assert.equal(hashed.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const stable = await fetch(new URL('onrecord/onrecord.js', strict.url));
  assert.equal(stable.headers.get('cache-control'), 'no-cache');
});

test('a change to one module renames it and every module that imports it, and nothing else', () => {
  // A copy of www/ whose messages.js differs by one export: the loader, panel.js and summary.js
  // import it; the worker, protocol.js, client.js, state.js and render.js do not.
  const copy = fileURLToPath(new URL('./artifacts/www-changed/', import.meta.url));
  rmSync(copy, { recursive: true, force: true });
  for (const name of ['onrecord.js', 'onrecord-worker.js', 'onrecord.css', 'summary.js', 'onrecord']) cpSync(www + name, copy + name, { recursive: true });
  appendFileSync(copy + 'onrecord/messages.js', '\nexport const changed = true;\n');
  const index = www + 'dist/fixture/index.onr';
  const before = writeSite({ index, out: fileURLToPath(new URL('./artifacts/site-before/', import.meta.url)) });
  const after = writeSite({ index, out: fileURLToPath(new URL('./artifacts/site-after/', import.meta.url)), www: copy });
  const stems = (files) => new Map(Object.keys(files).map((n) => [n.replace(/\.[0-9a-f]{10}(?=\.\w+$)/, ''), n]));
  const [old, now] = [stems(before.files), stems(after.files)];
  const renamed = [...old.keys()].filter((stem) => old.get(stem) !== now.get(stem)).sort();
  assert.deepEqual(renamed, ['onrecord-messages.js', 'onrecord-panel.js', 'summary.js']);
  assert.notDeepEqual(before.files['onrecord.js'], after.files['onrecord.js'], 'the loader imports the new names');
});

test('strict CSP with Trusted Types: answers, follows the citation to its heading, zero violations', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations, requests } = await open(context, strict.url);
  await ask(page, 'When does the first ferry leave on weekdays?');
  // Before the first answer the page (and its worker) loaded exactly what the budget counts.
  const loaded = new Set(requests.filter((p) => /^\/onrecord\/.*\.(js|css)$/.test(p)).map((p) => p.slice('/onrecord/'.length)));
  assert.deepEqual([...loaded].sort(), [...firstAnswer].sort());
  assert.equal(await page.locator('.onrecord-quote').first().textContent(), 'The first ferry leaves the north pier at 06:40 every weekday.');
  const link = page.locator('.onrecord-cite a.cite').first();
  assert.equal(await link.textContent(), 'Ferry guide › Timetable');
  assert.match(await page.locator('.onrecord-cite a.jump').getAttribute('href'), /^http:\/\/127\.0\.0\.1:\d+\/guide\/#timetable:~:text=/);
  assert.equal(await page.locator('button.summary').count(), 0, 'no summary button without data-proxy');
  assert.deepEqual(await allViolations(violations, strict.server, since), [], 'CSP violations');
  await link.click();
  await page.waitForURL('**/guide/#timetable');
  assert.equal(await page.evaluate(() => document.querySelector(':target')?.textContent), 'Timetable');
  assert.deepEqual(errors, []);
  await context.close();
});

test('keyboard only, strict CSP: a thread of a question, a refinement and a new subject; collections as labels; "New question"', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations } = await open(context, strict.url);
  const shadow = (/** @type {string} */ selector) => page.locator(`.onrecord ${selector}`);
  const active = () => page.evaluate(() => {
    const inner = document.activeElement?.shadowRoot?.activeElement;
    return inner ? `${inner.tagName.toLowerCase()}${inner.className ? '.' + inner.className.replace(/ /g, '.') : ''}:${inner.textContent?.slice(0, 40)}` : '';
  });
  /** Tabs forward until the focused element matches, at most 30 times. */
  const tabTo = async (/** @type {RegExp} */ want) => {
    const seen = [];
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const now = await active();
      if (want.test(now)) return;
      seen.push(now);
    }
    assert.fail(`never reached ${want}: ${seen.join(' | ')}`);
  };
  const turns = shadow('details.turn');
  /** Types a question, presses Enter and waits for its turn (the `n`th). */
  const askByKeyboard = async (/** @type {string} */ question, /** @type {number} */ n) => {
    await page.keyboard.type(question);
    await page.keyboard.press('Enter');
    await turns.nth(n - 1).locator('.answer').waitFor();
    assert.equal(await turns.count(), n);
  };
  await page.locator('.launch').waitFor();
  await page.keyboard.press('Control+k');
  await askByKeyboard('When does the first ferry leave on weekdays?', 1);
  assert.match(await shadow('.onrecord-quote').textContent(), /06:40 every weekday/);
  assert.equal(await shadow('.onrecord-cite .chip.collection').textContent(), 'How it works');
  // A refinement: read with the previous question, said so on screen and in the live region.
  await askByKeyboard('And on Sundays?', 2);
  const read = 'Read as “When does the first ferry leave on Sundays?”.';
  assert.equal(await turns.nth(1).locator('.read-as').textContent(), read);
  assert.match(await shadow('.onrecord-quote').textContent(), /On Sundays the first ferry leaves at 09:15/);
  assert.ok((await shadow('.onrecord-status').textContent()).startsWith(read + ' Answered with 1 quote'));
  // The earlier turn is collapsed to its question.
  assert.deepEqual(await turns.evaluateAll((ds) => ds.map((d) => d.open)), [false, true]);
  assert.equal(await turns.nth(0).locator('summary').textContent(), 'When does the first ferry leave on weekdays?');
  assert.equal(await turns.nth(0).locator('.answer').count(), 0);
  // A new subject: read as typed, nothing of the ferry times in it.
  await askByKeyboard('How much is a return ticket?', 3);
  assert.equal(await turns.nth(2).locator('.read-as').count(), 0);
  assert.match(await shadow('.onrecord-quote').textContent(), /A return ticket costs 7 euros/);
  // Explore further: a suggestion fills the box and asks nothing.
  await tabTo(/^button\.link\.suggest:/);
  const suggestion = (await active()).split(':').slice(1).join(':');
  await page.keyboard.press('Enter');
  assert.equal(await shadow('input[type="search"]').inputValue(), (await shadow('button.suggest').first().textContent()));
  // A neighbouring section's heading, not a template question ("What does … say about …?").
  assert.match(suggestion, /^[^“”?]+$/, suggestion);
  assert.equal(await turns.count(), 3, 'a suggestion is not asked');
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Backspace');
  // An earlier turn opens from the keyboard.
  await tabTo(/^summary\.asked:When does the first ferry/);
  await page.keyboard.press('Enter');
  await turns.nth(0).locator('.onrecord-quote').waitFor();
  // "New question" drops the thread: the next question is read on its own.
  await tabTo(/^button\.link\.fresh:/);
  await page.keyboard.press('Enter');
  assert.equal(await turns.count(), 0);
  assert.match(await shadow('.onrecord-status').textContent(), /^New question/);
  assert.match(await active(), /^input/, 'focus back in the box');
  await askByKeyboard('Why does the first ferry leave so early?', 1);
  assert.equal(await turns.nth(0).locator('.read-as').count(), 0);
  assert.equal(await shadow('.onrecord-cite .chip.collection').first().textContent(), 'Why we decided');
  assert.match(await shadow('.onrecord-quote').first().textContent(), /shifts/);
  assert.deepEqual(await allViolations(violations, strict.server, since), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('XSS payloads in the corpus render literally as text', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations } = await open(context, strict.url);
  page.on('dialog', (d) => d.dismiss());
  await ask(page, 'When is the harbour siren tested?');
  const quote = await page.locator('.onrecord-quote').first().textContent();
  assert.ok(quote.includes('<img src=x onerror="window.__xss=\'entity\'">'), quote);
  assert.ok(quote.includes('<script>window.__xss=\'numeric\'</script>'), quote);
  assert.match(await page.locator('.onrecord-cite .cite').first().textContent(), /^Harbour alarm <img src=x onerror="window.__xss='title'"> › Siren test/);
  const code = await ask2(page, 'What does the siren panel print?');
  assert.ok(code.includes('<img src=x onerror="window.__xss=\'code\'">'), code);
  const shadow = page.locator('.onrecord');
  assert.equal(await page.evaluate(() => document.querySelector('.onrecord').shadowRoot.querySelectorAll('img, script, svg, iframe').length), 0);
  assert.equal(await shadow.evaluate(() => window.__xss), undefined, 'no payload ran');
  assert.deepEqual(await allViolations(violations, strict.server, since), []);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Asks a second question on an open dialog; resolves to the first quote's text. */
/** Every CSP violation seen since `since` (a count of server reports): page events and reports. */
async function allViolations(violations, server, since, settle = 300) {
  await new Promise((ok) => setTimeout(ok, settle)); // reports are posted asynchronously
  return [...await violations(), ...server.cspReports.slice(since)];
}

async function ask2(page, question) {
  // The previous answer is removed first, so the next one is not mistaken for it.
  await page.locator('.result').evaluate((result) => result.replaceChildren());
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  await input.fill(question);
  await input.press('Enter');
  await page.locator('.answer').waitFor();
  const quote = page.locator('.onrecord-quote').first();
  assert.ok(await quote.count(), `no quote for "${question}": ${await page.locator('.onrecord-status').textContent()}`);
  return quote.textContent();
}

test('citations to javascript: or another origin render as text, never as links', async () => {
  const context = await browser.newContext();
  const { page, errors } = await open(context, strict.url);
  await ask(page, 'When do the lighthouse keepers change shifts?');
  assert.equal(await page.locator('.onrecord-cite .cite').first().textContent(), 'Lighthouse keepers › Shifts');
  assert.equal(await page.locator('.onrecord-cite .cite').first().evaluate((n) => n.tagName), 'SPAN');
  await ask2(page, 'What do spring tides at the harbour reach?');
  assert.equal(await page.locator('.onrecord-cite .cite').first().textContent(), 'Tide tables › Spring tides');
  assert.equal(await page.locator('.onrecord-cite .cite').first().evaluate((n) => n.tagName), 'SPAN');
  assert.equal(await page.locator('.answer a[href^="javascript"], .answer a[href*="evil.example"]').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('without wasm-unsafe-eval the widget says search is unavailable', async () => {
  const context = await browser.newContext();
  const since = noWasm.server.cspReports.length;
  const { page } = await open(context, noWasm.url);
  await page.locator('.launch').click();
  const alert = page.locator('.onrecord-status[role="alert"]');
  await alert.waitFor();
  assert.equal(await alert.textContent(),
    'Search is unavailable: this site’s Content Security Policy does not allow WebAssembly (script-src needs \'wasm-unsafe-eval\').');
  // The report counting the other tests rely on does see this violation (made in the worker).
  let reports = [];
  for (let i = 0; i < 50 && !reports.length; i++) reports = await allViolations(async () => [], noWasm.server, since, 100);
  assert.ok(reports.some((r) => /script-src/.test(r)), `the blocked compile is reported: ${reports}`);
  await context.close();
});

test('the wasm ships gzip-compressed: a host that sends the file as it is and one that adds Content-Encoding both answer', async () => {
  const wasm = readFileSync(site + 'onrecord/' + assets.wasm);
  assert.deepEqual([...wasm.subarray(0, 2)], [0x1f, 0x8b], `${assets.wasm} is gzip`);
  assert.ok(!readdirSync(site + 'onrecord').some((n) => n.endsWith('.wasm')), 'no plain wasm is shipped');
  // Apache's `AddEncoding gzip .gz` and the like: the browser gunzips, the worker gets plain wasm.
  const encoding = await serve({ root: site, headers: (path) => ({ 'content-security-policy': STRICT, ...(path.endsWith('.gz') ? { 'content-encoding': 'gzip' } : {}) }) });
  try {
    for (const [host, url] of [['as it is', strict.url], ['Content-Encoding: gzip', encoding.url]]) {
      const context = await browser.newContext();
      const { page, errors } = await open(context, url);
      const sent = [];
      page.on('response', (r) => r.url().endsWith(assets.wasm) && sent.push(r.headers()['content-encoding'] ?? 'none'));
      await ask(page, 'When does the first ferry leave on weekdays?');
      assert.equal(await page.locator('.onrecord-quote').first().textContent(), 'The first ferry leaves the north pier at 06:40 every weekday.', host);
      assert.deepEqual(sent, [host === 'as it is' ? 'none' : 'gzip'], host);
      assert.deepEqual(errors, [], host);
      await context.close();
    }
  } finally {
    encoding.server.close();
  }
});

test('a wasm file that is missing, not wasm or a damaged gzip stream gives a clear message naming it', async () => {
  const good = readFileSync(site + 'onrecord/' + assets.wasm);
  const cases = [
    [{ status: 404, body: 'not found' }, /^Search is unavailable: could not fetch the search engine \S+: HTTP 404/],
    // A host's HTML page where the wasm should be, gzipped or not.
    [{ status: 200, body: gzipSync('<!doctype html><p>Not here') }, /^Search is unavailable: could not read the search engine \S+: .*magic word/],
    [{ status: 200, body: '<!doctype html><p>Not here' }, /^Search is unavailable: could not read the search engine \S+: .*magic word/],
    [{ status: 200, body: good.subarray(0, good.length >> 1) }, /^Search is unavailable: could not read the search engine \S+: ./],
  ];
  for (const [reply, message] of cases) {
    const context = await browser.newContext();
    const { page } = await open(context, strict.url, (p) => p.route(`**/${assets.wasm}`, (route) => route.fulfill(reply)));
    await page.locator('.launch').click();
    const alert = page.locator('.onrecord-status[role="alert"]');
    await alert.waitFor();
    const text = await alert.textContent();
    assert.match(text, message);
    assert.ok(text.includes(`/onrecord/${assets.wasm}`), `names the file: ${text}`);
    await context.close();
  }
});

test('offline after the first load: answers with the network gone, from the HTTP cache', async () => {
  const context = await browser.newContext();
  const first = await open(context, strict.url);
  await ask(first.page, 'How much is a return ticket?');
  // A later visit: the page comes online, then the network goes before the widget is opened.
  const { page, errors } = await open(context, strict.url);
  await context.setOffline(true);
  await ask(page, 'When does the first ferry leave on Sundays?');
  assert.match(await page.locator('.onrecord-quote').first().textContent(), /09:15/);
  // The first page keeps answering too.
  assert.match(await ask2(first.page, 'Do bicycles travel free?'), /Bicycles travel free/);
  assert.deepEqual(errors, []);
  // And the network really was gone: anything not cached fails.
  const probe = await page.evaluate(() => fetch(`/guide/?${Math.random()}`).then(() => 'online', () => 'offline'));
  assert.equal(probe, 'offline');
  await context.close();
});

test('the inline <onrecord-ask> element takes its options from data attributes', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations } = await open(context, new URL('inline.html', strict.url).href);
  assert.equal(await page.locator('.launch').count(), 0, 'no button when the page places the widget inline');
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  assert.equal(await input.getAttribute('placeholder'), 'When does the ferry leave?');
  assert.equal(await page.locator('onrecord-ask').getAttribute('data-theme'), 'dark');
  await input.fill('When does the first ferry leave?');
  await input.press('Enter');
  await page.locator('.answer').waitFor();
  assert.equal(await page.locator('.onrecord-quote').count(), 1, 'data-max-quotes="1"');
  assert.deepEqual(await allViolations(violations, strict.server, since), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('with data-proxy, "Ask for a summary" hands the answer to summary.js', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations } = await open(context, new URL('proxy.html', strict.url).href);
  await ask(page, 'How much is a return ticket?');
  await page.getByRole('button', { name: 'Ask for a summary' }).click();
  assert.equal(await page.locator('.fake-summary').textContent(),
    'summary via /api/summary for “How much is a return ticket?”: 1 quote(s), engine function');
  assert.deepEqual(await allViolations(violations, strict.server, since), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a German page every sentence is German: labels, status, answer, decline and refusal', async () => {
  const context = await browser.newContext();
  const since = strict.server.cspReports.length;
  const { page, errors, violations } = await open(context, new URL('de.html', strict.url).href);
  assert.equal(await page.locator('.launch span').textContent(), 'Fragen');
  assert.equal(await page.locator('.launch kbd').textContent(), 'Strg K');
  await page.locator('.launch').click();
  const input = page.getByRole('searchbox', { name: 'Diese Seiten fragen' });
  assert.equal(await input.getAttribute('placeholder'), 'Eine Frage zu diesen Seiten stellen');
  await input.fill('When does the first ferry leave on weekdays?');
  await input.press('Enter');
  await page.locator('.onrecord-quote').first().waitFor();
  assert.match(await page.locator('.chip.mode').textContent(), /^Antwort · (gestützt|teilweise)$/);
  assert.match(await page.locator('.chip.confidence').textContent(), /^Zuverlässigkeit (hoch|mittel|niedrig)$/);
  assert.match(await page.locator('.onrecord-status').textContent(), /^Beantwortet mit 1 Zitat aus Ferry guide › Timetable\./);
  assert.equal(await page.locator('.onrecord-cite .jump').first().textContent(), 'Zum Zitat');
  // The question's first word is capitalised as any question opens; a later one as written.
  await input.fill('Hubschrauberlandeplatz Zeppelin?');
  await input.press('Enter');
  const decline = page.locator('.onrecord-decline');
  await decline.waitFor();
  assert.equal(await decline.textContent(), 'Nicht in diesen Dokumenten. Diese Seiten erwähnen ‚hubschrauberlandeplatz‘ oder ‚Zeppelin‘ nicht.');
  // A German question on these English pages is declined as one, not for its small words.
  await input.fill('Wie früh fährt die erste Fähre unter der Woche?');
  await input.press('Enter');
  await page.locator('.onrecord-decline', { hasText: 'auf Deutsch' }).waitFor();
  assert.equal(await page.locator('.onrecord-decline').last().textContent(),
    'Nicht in diesen Dokumenten. Ihre Frage ist offenbar auf Deutsch gestellt; diese Seiten sind nicht auf Deutsch geschrieben. Bitte fragen Sie in der Sprache dieser Seiten.');
  await page.locator('input[type="file"]').setInputFiles({ name: 'leer.md', mimeType: 'text/plain', buffer: Buffer.from(' \n') });
  await page.locator('.source[role="alert"]', { hasText: 'leer.md ist leer.' }).waitFor();
  assert.deepEqual(await allViolations(violations, strict.server, since), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('data-preload="idle" loads the engine without waiting to be opened', async () => {
  const context = await browser.newContext();
  const { page, requests } = await open(context, new URL('preload.html', strict.url).href);
  await page.waitForFunction(() => document.querySelector('.onrecord').shadowRoot
    .querySelector('.onrecord-status').textContent.startsWith('Ready'));
  assert.ok(requests.some((p) => /\/index\.[0-9a-f]{10}\.onr$/.test(p)), `index fetched: ${requests.join(' ')}`);
  assert.equal(await page.locator('dialog').evaluate((d) => d.open), false, 'still closed');
  await context.close();
});

test('the shipped JavaScript has no HTML sinks', () => {
  const shipped = readdirSync(site + 'onrecord').filter((f) => f.endsWith('.js')).map((f) => site + 'onrecord/' + f);
  assert.ok(shipped.length >= 8, shipped.join(' '));
  // The sources as written too (the demo page serves them).
  shipped.push(...['onrecord.js', 'onrecord-worker.js', 'summary.js'].map((f) => www + f),
    ...readdirSync(www + 'onrecord').filter((f) => f.endsWith('.js')).map((f) => www + 'onrecord/' + f));
  const sinks = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|setHTMLUnsafe|parseHTMLUnsafe|srcdoc)\b|\beval\(|new Function\(/;
  for (const file of shipped) {
    const found = readFileSync(file, 'utf8').match(sinks);
    assert.equal(found, null, `${file} uses ${found?.[0]}`);
  }
});
