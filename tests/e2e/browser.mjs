// Shared by the end-to-end tests: the system Chromium, headless, and a page opener that records
// browser errors, CSP violations and network requests.
import { chromium } from 'playwright-core';

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens `url` in a fresh page of `context`; returns the page, its errors, requests and CSP
 * violations (securitypolicyviolation events and "Refused to" console messages). */
export async function open(context, url, setup = async () => {}) {
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  const refused = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (/Refused to|Content Security Policy|TrustedScript|Trusted Type/i.test(msg.text())) refused.push(msg.text());
    else if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation',
      (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.__longTasks = [];
    try {
      new PerformanceObserver((list) => {
        for (const t of list.getEntries()) window.__longTasks.push(t.duration);
      }).observe({ type: 'longtask', buffered: true });
    } catch { /* no long-task timing in this browser */ }
  });
  await setup(page);
  await page.goto(url);
  const violations = async () => [...(await page.evaluate(() => window.__violations)), ...refused];
  return { page, errors, requests, violations };
}

/** Opens the dialog with the button, asks, and waits until an answer or a decline is shown. */
export async function ask(page, question, { open = true } = {}) {
  if (open) await page.locator('.launch').click();
  const input = page.getByRole('searchbox', { name: 'Ask these pages' });
  // The answer joins the thread as its last turn; earlier turns stay, collapsed.
  const turns = await page.locator('.turn').count();
  await input.fill(question);
  await input.press('Enter');
  await page.locator('.turn').nth(turns).locator('.answer').waitFor();
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
