// End-to-end on a real generator's output: the Sphinx 9 + Furo HTML of the Black docs that
// scripts/setup.sh builds from PyPI packages into target/sites/black. The site owner's whole job
// is done as the README says: one tag in the page template, `onrecord build public --out
// public/onrecord`, previewed with `onrecord serve`. A visitor's answer quotes the real page and
// its citation opens the heading the quote sits under.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ask, launch, open } from './browser.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const built = repo + 'target/sites/black/';
const site = fileURLToPath(new URL('./artifacts/generator/', import.meta.url));
const shots = fileURLToPath(new URL('./artifacts/', import.meta.url));
const TAG = '<script type="module" src="/onrecord/onrecord.js"></script>';
let onrecord, server, base, browser, context;

/** Every .html file under `dir`. */
function pages(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => dir + name)
    .filter((path) => path.endsWith('.html') && statSync(path).isFile());
}

before(async () => {
  assert.ok(existsSync(built + 'index.html'), 'target/sites/black is missing: run scripts/setup.sh (it builds the Sphinx site)');
  rmSync(site, { recursive: true, force: true });
  cpSync(built, site, { recursive: true });
  // The owner's template edit: the one tag in every page's <head>.
  for (const page of pages(site)) {
    const html = readFileSync(page, 'utf8');
    assert.ok(html.includes('</head>'), `${page} has a </head>`);
    writeFileSync(page, html.replace('</head>', `${TAG}\n</head>`));
  }
  // The CLI as scripts/cli-install.sh installs it (a no-op build when it is up to date).
  execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'onrecord-cli'], { cwd: repo, stdio: 'inherit' });
  onrecord = repo + 'target/release/onrecord';
  const report = execFileSync(onrecord, ['build', site, '--out', site + 'onrecord', '--lexical'], { encoding: 'utf8' });
  assert.match(report, /^pages indexed +29$/m);
  assert.match(report, /lexical build/);
  execFileSync(onrecord, ['check', site + 'onrecord'], { encoding: 'utf8' });

  const child = spawn(onrecord, ['serve', site, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  server = child;
  base = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`onrecord serve exited with ${code}`)));
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = out.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (url) resolve(url[1]);
    });
  });
  browser = await launch();
  context = await browser.newContext();
  // The Black docs have no favicon; Chromium's automatic request for one is not the widget's
  // business, and its 404 would count as a page error below.
  await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
});

after(async () => {
  await browser?.close();
  server?.kill();
});

/** Text as a reader sees it: whitespace runs as one space. */
const flat = (text) => text.replace(/\s+/g, ' ').trim();

test("a Sphinx site answers with a quote from the real page, and its citation opens that quote's heading", async () => {
  const { page, errors } = await open(context, base + 'getting_started.html');
  await ask(page, "What is Black's default line length?");
  const quote = flat(await page.locator('.onrecord-quote').first().textContent());
  assert.match(quote, /\b88\b/);
  const link = page.locator('.onrecord-cite a.cite').first();
  const label = await link.textContent();
  const href = new URL(await link.getAttribute('href'));
  assert.equal(href.origin + '/', base, 'the citation stays on the site');
  assert.ok(href.hash.length > 1, `the citation names a heading: ${href}`);
  await page.screenshot({ path: shots + 'generator-answer.png' });

  await Promise.all([page.waitForURL(href.href), link.click()]);
  const id = decodeURIComponent(href.hash.slice(1));
  const target = await page.evaluate((id) => {
    const el = document.getElementById(id);
    if (!el) return null;
    // Sphinx puts a heading's id on its <section> (or on a label <span> just before the heading).
    const section = el.tagName === 'SECTION' ? el : el.closest('section');
    const heading = section?.querySelector('h1, h2, h3, h4, h5, h6');
    return { text: section?.textContent ?? '', heading: heading?.textContent.replace('¶', '').trim() ?? '' };
  }, id);
  assert.ok(target, `${href.pathname} has no element with id ${href.hash}`);
  assert.ok(flat(target.text).includes(quote), `the quote is not under ${href.hash} on ${href.pathname}: ${quote}`);
  assert.equal(target.heading, label.split(' › ').at(-1), 'the citation names the heading it opens');
  // Furo scrolls smoothly: wait until the heading has arrived in the viewport.
  await page.waitForFunction((id) => {
    const top = document.getElementById(id).getBoundingClientRect().top;
    return top >= 0 && top < window.innerHeight;
  }, id, { timeout: 5000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the theme's navigation, buttons and footer are never quoted", async () => {
  // (index.html would do as well, but its badge images are on shields.io, offline here.)
  const { page, errors } = await open(context, base + 'faq.html');
  // Furo's sidebar toggles and theme switch ("Toggle Light / Dark / Auto color theme") are on
  // every page; only the documents' own text is indexed, so this is declined as never mentioned.
  await ask(page, 'How do I toggle the dark color theme?');
  assert.equal(await page.locator('.onrecord-quote').count(), 0);
  assert.match(await page.locator('.onrecord-decline').textContent(), /never mention.*‘toggle’/);
  assert.deepEqual(errors, []);
  await page.close();
});
