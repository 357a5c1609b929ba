// Runs www/bench.html in headless Chromium and prints its JSON (not part of `node --test`).
//
//   node tests/e2e/bench.mjs [--only ask|typing] [--runs N]
//
// --only: one part of the page (`ask`: the query model and `ask` per size on the page's thread;
// `typing`: search as you type at 10k fragments through the widget's worker). --runs N: the page
// N times, each in a fresh browser context (a fresh worker), a JSON object per run. Before it
// opens the page it writes www/dist/bench/typing-questions.json, the questions the typing part
// types: the rustc-dev-guide's eval sets (the benchmark indexes replicate its pages), the typed
// set (what visitors type, 3-9 words) and the long one. After the JSON, a markdown table of the
// typing part, one row per run and set (eval/notes/2026-12-04-search-as-you-type.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
let only = null;
let runs = 1;
for (let i = 0; i < args.length; i += 2) {
  const [flag, value] = [args[i], args[i + 1]];
  if (flag === '--only' && ['ask', 'typing'].includes(value)) only = value;
  else if (flag === '--runs' && Number(value) >= 1) runs = Number(value);
  else {
    console.error('usage: node tests/e2e/bench.mjs [--only ask|typing] [--runs N]');
    process.exit(2);
  }
}

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const questions = [['typed', 'rustc-dev-guide-typed'], ['long', 'rustc-dev-guide']].flatMap(([set, name]) =>
  JSON.parse(readFileSync(new URL(`../../eval/questions/${name}.json`, import.meta.url), 'utf8'))
    .map((/** @type {{ question: string }} */ q) => ({ set, question: q.question })));
writeFileSync(`${www}dist/bench/typing-questions.json`, JSON.stringify(questions));

const { server, url } = await serve({ root: www });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const typed = [];
try {
  for (let run = 1; run <= runs; run++) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(new URL(`bench.html${only ? `?parts=${only}` : ''}`, url).href);
      await page.waitForFunction(() => document.getElementById('out').dataset.done, null, { timeout: 600_000 });
      const text = await page.locator('#out').textContent();
      console.log(text);
      if (text.startsWith('benchmark failed')) {
        process.exitCode = 1;
        break;
      }
      const { typing } = JSON.parse(text);
      if (typing) typed.push(typing);
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}

if (typed.length) {
  const ms = (/** @type {{ p50_ms: number, p95_ms: number, over_16_ms: number }} */ s) => `${s.p50_ms.toFixed(1)} / ${s.p95_ms.toFixed(1)} (${s.over_16_ms})`;
  const x = (/** @type {number} */ r) => `${r.toFixed(2)}×`;
  const lines = [
    'Search as you type, warm, in headless Chromium; ms from the call (postMessage) to the reply; median / p95 per keystroke (in brackets: keystrokes over 16 ms).',
    '',
    '| run | index | questions | keystrokes | `search` via the worker | `ask` via the worker (peer) | search / ask: medians, p95s, per keystroke | `search` on the page\'s thread | keystrokes with results | with a correction | replies that differ from the warm pass\'s |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [i, layouts] of typed.entries()) {
    for (const [layout, t] of Object.entries(layouts)) {
      const label = `${layout === 'single' ? 'one file' : 'manifest + shards'}, ${t.fragments} fragments, query model: ${t.query_model}`;
      const rows = [['all', t], ...Object.entries(t.by_set), ...(t.first_pass ? [['all, first pass (shards fetched)', t.first_pass]] : [])];
      for (const [set, m] of rows) {
        const q = set.startsWith('all') ? `${set} ${t.questions}` : `${set} ${m.questions}`;
        lines.push(`| ${i + 1} | ${label} | ${q} | ${m.keystrokes} | ${ms(m.search)} | ${ms(m.ask)} | ${x(m.ratio.p50)}, ${x(m.ratio.p95)}, ${x(m.ratio.paired_p50)} | ${m.search_on_page ? ms(m.search_on_page) : '–'} | ${m.with_results} | ${m.corrected} | ${m.differ_from_warm ?? '–'} |`);
      }
    }
  }
  console.log(`\n${lines.join('\n')}`);
}
