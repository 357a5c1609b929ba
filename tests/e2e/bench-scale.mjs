// The browser half of scripts/bench-scale.sh (a benchmark, not part of `node --test`): bytes a
// cold first answer downloads, our widget against Pagefind's default UI on the same pages, each
// question in a fresh browser context (empty HTTP cache), over scripts/serve.mjs (no compression).
//
//   node tests/e2e/bench-scale.mjs --label NAME --site DIR --questions FILE [--label … --site …]
//                                  [--out FILE.md]
//
// Each site folder holds index.html (our script tag), pagefind.html (Pagefind's UI), onrecord/
// (the widget folder: loader, hashed modules, wasm, and the index in whatever layout the build
// wrote) and pagefind/. FILE is a JSON array of questions. Bytes are the bodies the server sent
// (headers left out), counted at the server, worker fetches included. After each answer the page
// is given until the network has been quiet for QUIET ms, so the query model, fetched when the
// browser is idle, is seen and reported on its own.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { serve } from '../../scripts/serve.mjs';
import { ask, launch } from './browser.mjs';

const QUIET = 700;
const QUIET_LIMIT = 30_000;

const args = process.argv.slice(2);
const runs = [];
let out = null;
let questions = null;
for (let i = 0; i < args.length; i += 2) {
  const [flag, value] = [args[i], args[i + 1]];
  if (value === undefined) usage(`${flag} needs a value`);
  if (flag === '--label') runs.push({ label: value });
  else if (flag === '--site') (runs.at(-1) ?? usage('--site comes after --label')).site = value;
  else if (flag === '--questions') questions = JSON.parse(readFileSync(value, 'utf8'));
  else if (flag === '--out') out = value;
  else usage(`unknown option ${flag}`);
}
if (!runs.length || runs.some((r) => !r.site) || !Array.isArray(questions) || questions.length < 2) {
  usage('every --label needs a --site, and --questions a JSON array of at least two questions');
}

function usage(why) {
  console.error(`bench-scale: ${why}\nusage: node tests/e2e/bench-scale.mjs --label NAME --site DIR [--label NAME --site DIR]… --questions FILE [--out FILE.md]`);
  process.exit(2);
}

/** Which part of a download a served path is, or null for the host page itself. */
function category(system, path) {
  if (system === 'onrecord') {
    if (!path.startsWith('/onrecord/')) return null;
    const ext = extname(path);
    if (['.js', '.wasm', '.css'].includes(ext) || path.endsWith('.wasm.gz')) return 'widget'; // the wasm ships gzipped
    if (ext === '.onq') return 'model';
    return 'index'; // index.onr, or a manifest and its shards: any other file of the folder
  }
  if (!path.startsWith('/pagefind/')) return null;
  if (path.startsWith('/pagefind/fragment/')) return 'fragments';
  if (/^\/pagefind\/(index|filter)\/|\.pf_meta$/.test(path)) return 'index';
  return 'widget'; // pagefind-ui.js/css, pagefind.js, the wasm, pagefind-entry.json
}

/** Counts what the server sends: every file it serves in full (it never compresses and never
 * answers 304), so a file's bytes on disk are the body on the wire. Counting at the server sees the
 * engine worker's fetches and worker scripts, whose sizes the browser side does not always report. */
function counter(site) {
  const hits = [];
  let last = Date.now();
  const headers = (path) => {
    let file = join(site, path);
    if (statSync(file).isDirectory()) file = join(file, 'index.html'); // as serve.mjs does
    hits.push({ path, file, bytes: statSync(file).size });
    last = Date.now();
    return {};
  };
  return {
    headers,
    /** What was served since `from`, each labelled with its part for `system`. */
    since: (from, system) => hits.slice(from).map((h) => ({ ...h, cat: category(system, h.path) })),
    get count() { return hits.length; },
    /** Waits until the page has no request in flight and the server has been idle for QUIET ms. */
    async quiet(page) {
      const start = Date.now();
      while (page.inflight > 0 || Date.now() - last < QUIET) {
        if (Date.now() - start > QUIET_LIMIT) throw new Error(`the network never went quiet (${page.inflight} in flight)`);
        await new Promise((ok) => setTimeout(ok, 50));
      }
    },
  };
}

/** Keeps `page.inflight`: requests the page (or its workers) started and that have not ended. */
function track(page) {
  page.inflight = 0;
  page.on('request', () => page.inflight++);
  page.on('requestfinished', () => page.inflight--);
  page.on('requestfailed', () => page.inflight--);
  return page;
}

const gzCache = new Map();
/** What the file would weigh gzipped (-6), had the host compressed it. */
function gzipped(file) {
  if (!gzCache.has(file)) {
    let size = 0;
    try { size = gzipSync(readFileSync(file), { level: 6 }).length; } catch { /* not a file */ }
    gzCache.set(file, size);
  }
  return gzCache.get(file);
}

/** What an index file holds: shard names start with their kind (`p-`, `t-`, `v-`, `r-`); the
 * other one is what the loader names (`index.<hash>.onr`): the manifest, or the whole index. */
const INDEX_KINDS = ['first', 'postings', 'text', 'vectors', 'rows'];
function indexKind(path) {
  const name = path.split('/').at(-1);
  return { 'p-': 'postings', 't-': 'text', 'v-': 'vectors', 'r-': 'rows' }[name.slice(0, 2)] ?? 'first';
}

function tally(records) {
  const t = { widget: 0, index: 0, fragments: 0, model: 0, total: 0, gz: 0, requests: 0, indexRequests: 0 };
  for (const kind of INDEX_KINDS) t[kind] = 0;
  for (const r of records) {
    if (!r.cat) continue;
    t[r.cat] += r.bytes;
    t.requests++;
    if (r.cat === 'index') {
      t.indexRequests++;
      t[indexKind(r.path)] += r.bytes;
    }
    if (r.cat !== 'model') {
      t.total += r.bytes;
      t.gz += gzipped(r.file);
    }
  }
  return t;
}

/** Answer time in the page: from the Enter keydown to the new answer in the shadow root's DOM. */
async function armTimer(page) {
  await page.evaluate(() => {
    const root = document.querySelector('.onrecord').shadowRoot;
    // As browser.mjs's ask(): the answer joins the thread as a new last turn.
    const turns = root.querySelectorAll('.turn').length;
    const t = { start: null, end: null };
    window.__answerTime = t;
    root.addEventListener('keydown', (e) => { if (e.key === 'Enter' && t.start === null) t.start = performance.now(); }, true);
    new MutationObserver((_, obs) => {
      if (t.start !== null && root.querySelectorAll('.turn')[turns]?.querySelector('.answer')) {
        t.end = performance.now();
        obs.disconnect();
      }
    }).observe(root, { subtree: true, childList: true });
  });
}

async function ours(browser, url, served, question, next) {
  const context = await browser.newContext();
  try {
    const page = track(await context.newPage());
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const from = served.count;
    await page.goto(new URL('index.html', url).href);
    const t0 = Date.now();
    await ask(page, question).catch(async (err) => {
      // E.g. a widget that cannot read the index layout the build wrote: say what it showed.
      const shown = await page.locator('.onrecord .dialog').innerText().catch(() => '');
      throw new Error(`no answer to "${question}" (${err.message.split('\n')[0]}); the widget shows: ${shown.replace(/\s+/g, ' ').slice(0, 300)}; page errors: ${errors.join('; ') || 'none'}`);
    });
    const cold = Date.now() - t0;
    await served.quiet(page);
    const first = tally(served.since(from, 'onrecord'));
    const quoted = (await page.locator('.onrecord-quote').count()) > 0;
    // The second question in the same context: the engine, index and model are loaded.
    const before = served.count;
    await armTimer(page);
    await ask(page, next, { open: false });
    await served.quiet(page);
    const { start, end } = await page.evaluate(() => window.__answerTime);
    if (start === null || end === null) throw new Error('the second answer was not timed');
    const warmBytes = tally(served.since(before, 'onrecord')).total;
    // The same question once more: every shard it needs is in the engine (issue 11's "warm").
    const again = served.count;
    await armTimer(page);
    await ask(page, next, { open: false });
    await served.quiet(page);
    const cachedTime = await page.evaluate(() => window.__answerTime);
    if (cachedTime.start === null || cachedTime.end === null) throw new Error('the repeated answer was not timed');
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    return {
      ...first, cold, quoted, warm: end - start, warmBytes,
      cached: cachedTime.end - cachedTime.start, cachedBytes: tally(served.since(again, 'onrecord')).total,
    };
  } finally {
    await context.close();
  }
}

async function pagefind(browser, url, served, question) {
  const context = await browser.newContext();
  try {
    const page = track(await context.newPage());
    const from = served.count;
    await page.goto(new URL('pagefind.html', url).href);
    const input = page.locator('.pagefind-ui__search-input');
    const t0 = Date.now();
    await input.fill(question);
    // The UI shows "N results for …" (or "No results for …") once the search ran, then loads the
    // first page of results' fragments.
    await page.locator('.pagefind-ui__message').filter({ hasText: /results? for/ }).waitFor({ timeout: 60_000 });
    const cold = Date.now() - t0;
    await served.quiet(page);
    const results = await page.locator('.pagefind-ui__result').count();
    return { ...tally(served.since(from, 'pagefind')), cold, results };
  } finally {
    await context.close();
  }
}

const pick = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const kb = (b) => (b / 1000).toFixed(1);
const ms = (x) => x.toFixed(0);
const mp = (rows, key, fmt = kb) => `${fmt(pick(rows.map((r) => r[key]), 0.5))} / ${fmt(pick(rows.map((r) => r[key]), 0.95))}`;

const browser = await launch();
const lines = [];
const say = (s) => { console.log(s); lines.push(s); };
try {
  const results = [];
  for (const run of runs) {
    const served = counter(run.site);
    const { server, url } = await serve({ root: run.site, headers: served.headers });
    try {
      const mine = [];
      const theirs = [];
      for (const [i, question] of questions.entries()) {
        const next = questions[(i + 1) % questions.length];
        mine.push(await ours(browser, url, served, question, next));
        theirs.push(await pagefind(browser, url, served, question));
        const [m, p] = [mine.at(-1), theirs.at(-1)];
        console.error(`${run.label} ${i + 1}/${questions.length}: ours ${kb(m.total)} KB (+${kb(m.model)} model, ${m.indexRequests} index files), warm ${ms(m.warm)} ms; pagefind ${kb(p.total)} KB, ${p.results} results`);
      }
      results.push({ run, mine, theirs });
    } finally {
      server.close();
    }
  }
  say(`Cold first answer, each question in a fresh browser context, ${questions.length} questions; KB = 1000 bytes of response bodies as received from a server that does not compress; median / p95.`);
  say('');
  say('| site | system | widget: wasm + JS (+ CSS) | index files (requests, median) | query model (lazy) | total, model aside | total if the host gzipped | cold answer (ms) |');
  say('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const { run, mine, theirs } of results) {
    say(`| ${run.label} | onrecord | ${mp(mine, 'widget')} | ${mp(mine, 'index')} (${pick(mine.map((r) => r.indexRequests), 0.5)}) | ${mp(mine, 'model')} | ${mp(mine, 'total')} | ${mp(mine, 'gz')} | ${mp(mine, 'cold', ms)} |`);
    say(`| ${run.label} | Pagefind | ${mp(theirs, 'widget')} | ${mp(theirs, 'index')} + fragments ${mp(theirs, 'fragments')} (${pick(theirs.map((r) => r.indexRequests), 0.5)}) | – | ${mp(theirs, 'total')} | ${mp(theirs, 'gz')} | ${mp(theirs, 'cold', ms)} |`);
  }
  say('');
  say('Our index files by kind, median / p95 (KB): `index.<hash>.onr` (the manifest, or the whole index), postings shards, text shards (fragments and page records), vector lists, vector rows (the int8 vectors of a text shard\'s fragments, fetched for the fragments the meaning gate weighs).');
  say('');
  say('| site | index.onr | postings | text | vector lists | vector rows |');
  say('|---|---:|---:|---:|---:|---:|');
  for (const { run, mine } of results) {
    say(`| ${run.label} | ${mp(mine, 'first')} | ${mp(mine, 'postings')} | ${mp(mine, 'text')} | ${mp(mine, 'vectors')} | ${mp(mine, 'rows')} |`);
  }
  say('');
  say('| site | ours / Pagefind, total median | ours / Pagefind, total p95 | warm second question (ms), median / p95 | bytes of the second question, median / p95 (KB) | that question again, its shards cached (ms), median / p95 | bytes of it (KB), median / p95 | answers with a quote | Pagefind questions with results |');
  say('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { run, mine, theirs } of results) {
    const ratio = (q) => (pick(mine.map((r) => r.total), q) / pick(theirs.map((r) => r.total), q)).toFixed(1);
    say(`| ${run.label} | ${ratio(0.5)}× | ${ratio(0.95)}× | ${mp(mine, 'warm', ms)} | ${mp(mine, 'warmBytes')} | ${mp(mine, 'cached', ms)} | ${mp(mine, 'cachedBytes')} | ${mine.filter((r) => r.quoted).length} of ${mine.length} | ${theirs.filter((r) => r.results > 0).length} of ${theirs.length} |`);
  }
  if (out) writeFileSync(out, lines.join('\n') + '\n');
} catch (err) {
  console.error(`bench-scale: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
