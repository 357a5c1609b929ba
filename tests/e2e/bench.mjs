// Runs www/bench.html in headless Chromium and prints its JSON (not part of `node --test`).
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

const www = fileURLToPath(new URL('../../www/', import.meta.url));
const { server, url } = await serve({ root: www });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.goto(new URL('bench.html', url).href);
  await page.waitForFunction(() => document.getElementById('out').dataset.done, null, { timeout: 600_000 });
  const text = await page.locator('#out').textContent();
  console.log(text);
  if (text.startsWith('benchmark failed')) process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
