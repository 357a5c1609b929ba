// The optional model summary: asks the onrecord proxy about the fragments the extractive answer
// found, shows the model's draft while it writes (marked as a draft, as text only), then replaces
// it with the validated result, re-checking every quote against this page's own index with
// engine.verifyQuote. Nothing the model wrote stays on screen unless it is a verbatim quote of a
// fragment that was sent. Everything is rendered with textContent; no HTML is ever parsed.
// Its sentences come from onrecord/messages.js, in the widget's language.
import { messagesFor } from './onrecord/messages.js';

/**
 * @typedef {import('./dist/pkg/onrecord_wasm.js').AnswerDto} AnswerDto
 * @typedef {import('./dist/pkg/onrecord_wasm.js').IndexInfoDto} IndexInfoDto
 * @typedef {import('./dist/pkg/onrecord_wasm.js').VerifiedQuoteDto} VerifiedQuoteDto
 * @typedef {{ mode: 'answer' | 'not-found' | 'error', shown: number, dropped: number, droppedHere: number, error?: string }} SummaryResult
 * @typedef {{ fragment: number, text: string, title?: string, section?: string, url?: string }} Claim
 * @typedef {object} SummaryEngine  the wasm Engine (sync) or the widget's worker handle (async)
 * @property {() => IndexInfoDto | Promise<IndexInfoDto>} [info]
 * @property {(fragment: number, text: string) => VerifiedQuoteDto | null | Promise<VerifiedQuoteDto | null>} [verifyQuote]
 */

/** The proxy endpoint for a `data-proxy` value: a base URL or the full /v1/summary URL.
 * @param {string} proxyUrl */
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
 * them nothing from the model can be checked, so nothing is asked or shown. `lang` picks the
 * language of its sentences (English by default).
 * Resolves to `{ mode, shown, dropped, droppedHere, error }`; never rejects on proxy failures.
 * @param {{ proxy?: string | null, proxyUrl?: string, engine?: SummaryEngine | null, question: string,
 *   answer?: AnswerDto | null, fragments?: number[], container: HTMLElement, signal?: AbortSignal, lang?: string }} request
 * @returns {Promise<SummaryResult>}
 */
export async function askForSummary({ proxy, proxyUrl, engine, question, answer, fragments, container, signal, lang = 'en' }) {
  const msgs = messagesFor(lang).summary;
  const ids = fragments ?? (answer?.quotes ?? []).map((q) => q.fragment);
  const sent = [...new Set(ids)].filter(Number.isInteger).slice(0, 8);
  container.querySelector(':scope > .onrecord-summary')?.remove();
  const root = el('section', 'onrecord-summary');
  root.setAttribute('aria-label', msgs.label);
  const status = el('p', 'onrecord-summary-status');
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  status.textContent = msgs.asking;
  root.append(status);
  container.append(root);
  /** @type {HTMLElement | null} */
  let draft = null;

  const showDraft = (/** @type {string} */ text) => {
    if (!draft) {
      draft = el('p', 'onrecord-summary-draft');
      draft.dataset.provisional = 'true';
      const label = el('span', 'onrecord-summary-draft-label');
      label.textContent = msgs.draft;
      draft.append(label, el('span', 'onrecord-summary-draft-text'));
      root.append(draft);
    }
    /** @type {Node} */ (draft.lastChild).textContent = text;
  };
  /** @param {string} message @returns {SummaryResult} */
  const fail = (message) => {
    draft?.remove();
    status.setAttribute('role', 'alert');
    status.textContent = msgs.unavailable(message);
    return { mode: 'error', shown: 0, dropped: 0, droppedHere: 0, error: message };
  };

  if (typeof engine?.verifyQuote !== 'function' || typeof engine?.info !== 'function') {
    return fail(msgs.cannotCheck);
  }
  if (sent.length === 0) return fail(msgs.noPassages);
  let info;
  try {
    info = await engine.info();
  } catch (err) {
    return fail(msgs.notReady(messageOf(err)));
  }

  let response;
  try {
    response = await fetch(summaryEndpoint(/** @type {string} */ (proxy ?? proxyUrl)), {
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
    return fail(msgs.unreachable(messageOf(err)));
  }
  if (!response.ok || !response.body) {
    let message = msgs.http(response.status);
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
        status.textContent = msgs.writing;
        showDraft(data.text);
      } else if (name === 'summary') {
        final = data;
        break;
      } else if (name === 'error') {
        return fail(typeof data.error === 'string' ? data.error : msgs.callFailed);
      }
    }
  } catch (err) {
    return fail(msgs.brokeOff(messageOf(err)));
  }
  if (!final) return fail(msgs.noResult);
  /** @type {HTMLElement | null} */ (draft)?.remove(); // set by showDraft
  return render(final, { engine, sent, root, status, msgs });
}

/**
 * Renders the validated summary, keeping only quotes this page's own index confirms.
 * @param {any} summary the proxy's reply, untrusted
 * @param {{ engine: SummaryEngine, sent: number[], root: HTMLElement, status: HTMLElement,
 *   msgs: import('./onrecord/messages.js').Messages['summary'] }} where
 * @returns {Promise<SummaryResult>}
 */
async function render(summary, { engine, sent, root, status, msgs }) {
  /** @type {Claim[]} */
  const claims = Array.isArray(summary.claims) ? summary.claims : [];
  const kept = [];
  for (const claim of claims) {
    if (!sent.includes(claim.fragment) || typeof claim.text !== 'string') continue;
    let check = null;
    try {
      check = await engine.verifyQuote?.(claim.fragment, claim.text);
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
    status.textContent = msgs.nothing(summary.reason);
    return { mode: 'not-found', shown: 0, dropped, droppedHere };
  }
  const list = el('div', 'onrecord-summary-quotes');
  for (const claim of kept) {
    const figure = el('figure', 'onrecord-summary-claim');
    const quote = el('blockquote', 'onrecord-summary-quote');
    quote.textContent = claim.text;
    const cite = el('figcaption', 'onrecord-summary-cite');
    const label = [claim.title, claim.section].filter(Boolean).join(' › '); // as messages.citation
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
  status.textContent = msgs.result(kept.length, dropped);
  return { mode: 'answer', shown: kept.length, dropped, droppedHere };
}

/** Only same-origin http(s) paths become links. @param {unknown} url */
function sameOriginPath(url) {
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//')) return null;
  try {
    const resolved = new URL(url, location.href);
    return resolved.origin === location.origin && /^https?:$/.test(resolved.protocol) ? resolved.href : null;
  } catch {
    return null;
  }
}

/** Server-sent events from a fetch body: yields [event name, parsed data].
 * @param {ReadableStream<Uint8Array>} body @returns {AsyncGenerator<[string, any]>} */
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

/** @template {keyof HTMLElementTagNameMap} T @param {T} tag @param {string} [className] */
function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

/** @param {unknown} err */
const messageOf = (err) => (err instanceof Error ? err.message : String(err));
