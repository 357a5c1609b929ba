// The optional model summary: asks the onrecord proxy about the fragments the extractive answer
// found, shows the model's draft while it writes (marked as a draft, as text only), then replaces
// it with the validated result, re-checking every quote against this page's own index with
// engine.verifyQuote. Nothing the model wrote stays on screen unless it is a verbatim quote of a
// fragment that was sent. Everything is rendered with textContent; no HTML is ever parsed.

const REASONS = {
  'model-declined': 'The model found no answer in these passages.',
  'no-verified-quote': 'The model’s answer could not be checked against these pages, so it is not shown.',
  'model-output-invalid': 'The model replied in an unusable form, so nothing is shown.',
  'model-output-cut': 'The model’s reply was cut off, so nothing is shown.',
};

/** The proxy endpoint for a `data-proxy` value: a base URL or the full /v1/summary URL. */
export function summaryEndpoint(proxyUrl) {
  const url = new URL(proxyUrl, document.baseURI);
  if (!url.pathname.endsWith('/v1/summary')) {
    url.pathname = url.pathname.replace(/\/$/, '') + '/v1/summary';
  }
  return url.href;
}

/**
 * Asks the proxy for a summary and renders it into its own section inside `container`.
 * `proxy` (or `proxyUrl`) is the data-proxy value; the fragments are `fragments`, or those of
 * `answer.quotes` (the extractive answer the widget showed). `engine` needs `info()` and
 * `verifyQuote(fragment, text)`, sync (the wasm Engine) or async (a worker handle); without
 * them nothing from the model can be checked, so nothing is asked or shown.
 * Resolves to `{ mode, shown, dropped, droppedHere, error }`; never rejects on proxy failures.
 */
export async function askForSummary({ proxy, proxyUrl, engine, question, answer, fragments, container, signal }) {
  const ids = fragments ?? (answer?.quotes ?? []).map((q) => q.fragment);
  const sent = [...new Set(ids)].filter(Number.isInteger).slice(0, 8);
  container.querySelector(':scope > .onrecord-summary')?.remove();
  const root = el('section', 'onrecord-summary');
  root.setAttribute('aria-label', 'Model summary');
  const status = el('p', 'onrecord-summary-status');
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  status.textContent = 'Asking for a summary…';
  root.append(status);
  container.append(root);
  let draft = null;

  const showDraft = (text) => {
    if (!draft) {
      draft = el('p', 'onrecord-summary-draft');
      draft.dataset.provisional = 'true';
      const label = el('span', 'onrecord-summary-draft-label');
      label.textContent = 'Draft, not yet checked: ';
      draft.append(label, el('span', 'onrecord-summary-draft-text'));
      root.append(draft);
    }
    draft.lastChild.textContent = text;
  };
  const fail = (message) => {
    draft?.remove();
    status.setAttribute('role', 'alert');
    status.textContent = `Summary unavailable: ${message}`;
    return { mode: 'error', shown: 0, dropped: 0, droppedHere: 0, error: message };
  };

  if (typeof engine?.verifyQuote !== 'function' || typeof engine?.info !== 'function') {
    return fail('this page cannot check the model’s quotes');
  }
  if (sent.length === 0) return fail('there are no passages to summarise');
  let info;
  try {
    info = await engine.info();
  } catch (err) {
    return fail(`the search index is not ready (${err.message})`);
  }

  let response;
  try {
    response = await fetch(summaryEndpoint(proxy ?? proxyUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        indexVersion: info.formatVersion,
        corpusHash: info.corpusHash,
        question,
        fragments: sent,
      }),
      signal,
    });
  } catch (err) {
    return fail(`the summary service cannot be reached (${err.message})`);
  }
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      const body = await response.json();
      if (typeof body.error === 'string') message = body.error;
    } catch { /* the status says enough */ }
    return fail(message);
  }

  let final = null;
  try {
    for await (const [name, data] of events(response.body)) {
      if (name === 'provisional' && typeof data.text === 'string') {
        status.textContent = 'The model is writing; its draft is checked before it is kept.';
        showDraft(data.text);
      } else if (name === 'summary') {
        final = data;
        break;
      } else if (name === 'error') {
        return fail(typeof data.error === 'string' ? data.error : 'the model call failed');
      }
    }
  } catch (err) {
    return fail(`the summary stream broke off (${err.message})`);
  }
  if (!final) return fail('the summary stream ended without a result');
  draft?.remove();
  return render(final, { engine, sent, root, status });
}

/** Renders the validated summary, keeping only quotes this page's own index confirms. */
async function render(summary, { engine, sent, root, status }) {
  const claims = Array.isArray(summary.claims) ? summary.claims : [];
  const kept = [];
  for (const claim of claims) {
    if (!sent.includes(claim.fragment) || typeof claim.text !== 'string') continue;
    let check = null;
    try {
      check = await engine.verifyQuote(claim.fragment, claim.text);
    } catch {
      check = null; // a quote that cannot be checked is not shown
    }
    // The proxy sends the fragment's bytes; anything else means the two indexes disagree.
    if (check === null || check === undefined || check.text !== claim.text) continue;
    kept.push({ ...claim, text: check.text });
  }
  const droppedHere = claims.length - kept.length;
  const dropped = (Number.isInteger(summary.dropped) ? summary.dropped : 0) + droppedHere;
  if (summary.mode !== 'answer' || kept.length === 0) {
    status.textContent = REASONS[summary.reason] ?? 'No checked answer from the model.';
    return { mode: 'not-found', shown: 0, dropped, droppedHere };
  }
  const list = el('div', 'onrecord-summary-quotes');
  for (const claim of kept) {
    const figure = el('figure', 'onrecord-summary-claim');
    const quote = el('blockquote', 'onrecord-summary-quote');
    quote.textContent = claim.text;
    const cite = el('figcaption', 'onrecord-summary-cite');
    const label = [claim.title, claim.section].filter(Boolean).join(' › ');
    const href = sameOriginPath(claim.url);
    if (href) {
      const a = el('a');
      a.href = href;
      a.textContent = label;
      cite.append(a);
    } else {
      cite.textContent = label;
    }
    figure.append(quote, cite);
    list.append(figure);
  }
  root.append(list);
  const n = kept.length;
  status.textContent = `Summary: ${n} checked quote${n === 1 ? '' : 's'}` +
    (dropped ? `; ${dropped} unchecked quote${dropped === 1 ? '' : 's'} left out.` : '.');
  return { mode: 'answer', shown: n, dropped, droppedHere };
}

/** Only same-origin http(s) paths become links. */
function sameOriginPath(url) {
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//')) return null;
  try {
    const resolved = new URL(url, location.href);
    return resolved.origin === location.origin && /^https?:$/.test(resolved.protocol) ? resolved.href : null;
  } catch {
    return null;
  }
}

/** Server-sent events from a fetch body: yields [event name, parsed data]. */
async function* events(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n');
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = 'message';
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data += line.slice(5).trim();
        }
        if (!data) continue;
        let parsed;
        try {
          parsed = JSON.parse(data);
        } catch {
          continue;
        }
        yield [name, parsed];
      }
      if (buffer.length > 1 << 20) throw new Error('event too large');
    }
  } finally {
    // Leaving early (an error event, a break) closes the connection, which stops the model.
    await reader.cancel().catch(() => {});
  }
}

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}
