// Drawing the panel from its state (state.js) with DOM nodes and text nodes only: nothing from
// an index, a visitor's file or a model is ever parsed as HTML, and links go only to same-origin
// http(s) URLs. Every visible sentence comes from messages.js.

import { MAX_QUESTION_CHARS } from './state.js';

/**
 * @typedef {import('./messages.js').Messages} Messages
 * @typedef {import('./state.js').PanelState} PanelState
 * @typedef {import('./state.js').Turn} Turn
 * @typedef {import('./state.js').Notice} Notice
 * @typedef {import('./protocol.js').AnswerDto} AnswerDto
 * @typedef {import('./protocol.js').SearchDto} SearchDto
 * @typedef {import('./state.js').Live} Live
 * @typedef {import('../dist/pkg/onrecord_wasm.js').QuoteDto} QuoteDto
 *
 * @typedef {object} PanelView  the panel's fixed elements
 * @property {HTMLElement} root
 * @property {HTMLFormElement} form
 * @property {HTMLInputElement} input
 * @property {HTMLInputElement} files
 * @property {HTMLElement} drop
 * @property {HTMLElement} status  the live region
 * @property {HTMLElement} result  the thread
 * @property {HTMLElement} live  what the box's text finds as it is typed
 * @property {() => HTMLElement[]} links  the links of the results shown last (arrow keys)
 * @property {HTMLButtonElement} fresh  "New question": ends the thread
 * @property {HTMLElement} refusal
 * @property {HTMLElement} documents
 *
 * @typedef {object} DrawContext
 * @property {Messages} msgs
 * @property {number} maxQuotes
 * @property {((turn: Turn, box: HTMLElement, button: HTMLButtonElement) => void) | null} onSummary
 *   offers "Ask for a summary" under answers from the site's pages
 * @property {() => void} onSiteAgain
 * @property {() => void} onNewThread
 * @property {(question: string) => void} onSuggest  puts a suggested question in the box
 * @property {((turn: Turn) => HTMLElement) | null} feedback  draws "Did this answer help?" under
 *   answers from the site's pages (data-feedback; owner.js, once loaded)
 */

/**
 * An element with attributes and children; strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} T
 * @param {T} tag
 * @param {Record<string, string>} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[T]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== '' || k !== 'class') node.setAttribute(k, v);
  for (const child of children) {
    if (child === '' || child == null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** The form, the live region, the thread and "your documents".
 * @param {Messages} msgs @param {{ placeholder: string | null }} opts @returns {PanelView} */
export function panelView(msgs, opts) {
  const input = el('input', {
    id: 'q', type: 'search', name: 'q', autocomplete: 'off', enterkeyhint: 'search',
    placeholder: opts.placeholder ?? msgs.placeholder, maxlength: String(MAX_QUESTION_CHARS),
  });
  const form = el('form', { role: 'search', 'aria-label': msgs.title },
    el('label', { for: 'q', class: 'label' }, msgs.title),
    el('div', { class: 'row' }, input, el('button', { type: 'submit', class: 'ask' }, msgs.ask)));
  const status = el('p', { class: 'onrecord-status', role: 'status', 'aria-live': 'polite' });
  const result = el('div', { class: 'result' });
  const live = el('div', { class: 'live' });
  const fresh = el('button', { type: 'button', class: 'link fresh', hidden: '' }, msgs.newQuestion);
  const files = el('input', { type: 'file', multiple: '', class: 'sr-only', accept: '.md,.markdown,.txt,text/markdown,text/plain' });
  const refusal = el('p', { class: 'source error', role: 'alert' });
  const documents = el('p', { class: 'source' });
  const drop = el('div', { class: 'drop' },
    el('p', {}, ...msgs.drop(el('label', { class: 'pick' }, msgs.chooseFiles, files))),
    refusal, documents);
  const root = el('div', { class: 'panel' }, form, status, result, live, fresh, drop);
  const links = () => /** @type {HTMLElement[]} */ ([...((live.firstChild ? live : result.lastElementChild)?.querySelectorAll('.found a') ?? [])]);
  return { root, form, input, files, drop, status, result, live, links, fresh, refusal, documents };
}

/** Brings the view from `prev` to `next`, touching only what changed (a summary shown under
 * an answer stays until the thread changes).
 * @param {PanelView} view @param {PanelState} prev @param {PanelState} next @param {DrawContext} ctx */
export function draw(view, prev, next, ctx) {
  const { turns, live } = next;
  if (turns !== prev.turns || !live !== !prev.live) {
    // The thread: earlier turns collapsed to their question, the latest one open (a question
    // shows at once, its answer when it comes; the answer before it is collapsed by then, and
    // so is the latest while the box's next question finds results).
    view.result.replaceChildren(...turns.map((t, i) => turnView(t, ctx, !live && i === turns.length - 1)));
    view.fresh.hidden = !turns.some((t) => t.answer);
  }
  if (live !== prev.live) {
    // As typed: the answer after a pause above its results, else the results alone.
    const shown = live?.answer
      ? answerView({ id: 0, question: live.query, corpus: next.corpus, context: live.context, answer: live.answer }, ctx)
      : [live?.search?.results.length && resultsView(live.search, ctx.msgs.found(live.search.results.length), next.corpus === 'documents', ctx.msgs)];
    view.live.replaceChildren(...shown.filter((node) => !!node));
  }
  if (next.refusal !== prev.refusal) view.refusal.textContent = next.refusal ? ctx.msgs.refusal(next.refusal) : '';
  if (next.documents !== prev.documents) {
    view.documents.replaceChildren();
    if (next.documents.length) {
      const back = el('button', { type: 'button', class: 'link' }, ctx.msgs.askSiteAgain);
      back.addEventListener('click', ctx.onSiteAgain);
      view.documents.append(ctx.msgs.askingDocuments(next.documents), back);
    }
  }
  if (next.notice !== prev.notice || next.turns !== prev.turns) drawStatus(view.status, next, ctx);
}

/** The live region: it announces every result; under a shown result it is visually hidden.
 * @param {HTMLElement} status @param {PanelState} state @param {DrawContext} ctx */
function drawStatus(status, { notice, turns, live }, ctx) {
  const { msgs } = ctx;
  const alert = notice?.kind === 'unavailable';
  // Shown results speak for themselves: their count is for screen readers.
  const quiet = notice?.kind === 'answered' || (notice?.kind === 'results' && notice.count > 0);
  status.className = 'onrecord-status' + (alert ? ' onrecord-error' : '') + (quiet ? ' quiet' : '');
  status.setAttribute('role', alert ? 'alert' : 'status');
  const answer = live?.answer ?? turns[turns.length - 1]?.answer;
  let text = '';
  switch (notice?.kind) {
    case 'loading': text = msgs.loading; break;
    case 'ready': text = msgs.ready; break;
    case 'answered': text = answer ? answerStatus(answer, ctx) : ''; break;
    case 'results': text = msgs.found(notice.count); break;
    case 'indexed': text = msgs.indexed(notice.count); break;
    case 'site-again': text = msgs.siteAgain; break;
    case 'new-thread': text = msgs.newThread; break;
    case 'ask-failed': text = msgs.askFailed(notice.detail); break;
    case 'offline': text = msgs.offline; break;
    case 'summary-failed': text = msgs.summariesFailed(notice.detail); break;
    case 'unavailable': text = msgs.unavailable(notice.failure); break;
  }
  // The same count again (another keystroke, as many results) is not announced again.
  if (status.textContent !== text) status.textContent = text;
}

/** What the live region says about an answer: how a follow-up was read, then the outcome.
 * @param {AnswerDto} answer @param {DrawContext} ctx */
function answerStatus(answer, ctx) {
  const read = readAs(answer) ? `${ctx.msgs.readAs(answer.turn)} ` : '';
  const found = answer.results.length ? ` ${ctx.msgs.found(answer.results.length)}.` : '';
  return read + outcome(answer, ctx) + found;
}

/** @param {AnswerDto} answer @param {DrawContext} ctx */
function outcome(answer, { msgs, maxQuotes }) {
  if (answer.mode === 'answer') {
    const shown = answer.quotes.slice(0, maxQuotes);
    const first = shown[0]?.citation;
    return msgs.answered(shown.length, first ? msgs.citation(first.title, first.section) : null, answer.confidence);
  }
  if (answer.mode === 'related-material') return msgs.relatedOnly;
  return msgs.declined(msgs.declineReason(answer.decline, answer.missingTerms));
}

/** Whether the question was read in the light of the turn before ("Read as: …").
 * @param {AnswerDto} answer */
const readAs = (answer) => ['refinement', 'explanation', 'pronoun'].includes(answer.turn?.kind);

/** One turn: a disclosure headed by its question, open for the latest turn.
 * @param {Turn} turn @param {DrawContext} ctx @param {boolean} latest */
function turnView(turn, ctx, latest) {
  const thread = el('details', { class: 'turn' }, el('summary', { class: 'asked' }, turn.question));
  // An earlier turn is drawn when the visitor opens it: the thread stays light, and only the
  // latest answer is in the page until then.
  if (latest) {
    thread.open = true;
    if (turn.answer) thread.append(...answerView(turn, ctx));
  } else if (turn.answer) {
    thread.addEventListener('toggle', () => {
      if (thread.open && thread.childElementCount === 1) thread.append(...answerView(turn, ctx));
    });
  }
  return thread;
}

/** How a follow-up was read, then the answer.
 * @param {Turn} turn @param {DrawContext} ctx @returns {HTMLElement[]} */
function answerView(turn, ctx) {
  const { msgs } = ctx;
  const answer = /** @type {AnswerDto} */ (turn.answer);
  const own = turn.corpus === 'documents'; // the visitor's files have no pages to link to
  const box = el('div', { class: 'answer', 'data-mode': answer.mode });
  if (answer.mode === 'answer') {
    const quotes = answer.quotes.slice(0, ctx.maxQuotes);
    box.append(el('p', { class: 'meta' },
      el('span', { class: 'chip mode' }, msgs.mode(answer.completeness)),
      answer.confidence && el('span', { class: `chip confidence ${answer.confidence}` }, msgs.confidence(answer.confidence))));
    for (const quote of quotes) box.append(quoteView(quote, own, msgs));
    // A partial answer names the part of the question the quoted pages do not cover.
    if (answer.incomplete.length) box.append(el('p', { class: 'missing' }, msgs.nothingOn(answer.incomplete)));
    // Explore further: questions about the sections next to the quoted ones; they fill the box.
    if (answer.explore?.length) {
      const list = el('ul', { class: 'explore' });
      for (const section of answer.explore) {
        const question = msgs.suggest(section);
        const button = el('button', { type: 'button', class: 'link suggest' }, question);
        button.addEventListener('click', () => ctx.onSuggest(question));
        list.append(el('li', {}, button));
      }
      box.append(el('h3', { class: 'sub' }, msgs.exploreFurther), list);
    }
    // Feedback on answers in the thread only (turn 0 is the answer to the text as typed).
    if (ctx.feedback && !own && turn.id) box.append(ctx.feedback(turn));
    if (ctx.onSummary && !own) summaryButton(turn, box, ctx.onSummary, msgs.askForSummary);
  } else if (answer.mode === 'related-material') {
    // A private note bears on the question: say where the moment lives, never what it says.
    const list = el('ul', { class: 'hints' });
    for (const hint of answer.hints) list.append(el('li', {}, place(hint.url, hint.label, own), hint.locator && ` — ${hint.locator}`));
    box.append(el('p', {}, msgs.privateNotes), list);
  }
  // The matching sections, never dressed as an answer, never repeating a quoted fragment.
  const results = answer.results.filter((r) => !answer.quotes.some((q) => q.fragment === r.fragment));
  if (answer.mode === 'not-found') {
    // A decline quotes nothing: only the reason, and the sections that may help under it; the
    // proxy may be asked about those sections (its quotes checked as for an answer's).
    box.append(el('p', { class: 'onrecord-decline' }, msgs.declined(msgs.declineReason(answer.decline, answer.missingTerms))));
    if (ctx.onSummary && !own && results.length) summaryButton(turn, box, ctx.onSummary, msgs.askForSummary);
  }
  const found = results.length && resultsView({ ...answer, results }, answer.mode === 'answer' ? msgs.relatedSections : msgs.mayHelp, own, msgs);
  return [readAs(answer) && el('p', { class: 'read-as' }, msgs.readAs(answer.turn)), box, found].filter((node) => !!node);
}

/** "Ask for a summary" at the end of `box`.
 * @param {Turn} turn @param {HTMLElement} box @param {NonNullable<DrawContext['onSummary']>} onSummary @param {string} label */
function summaryButton(turn, box, onSummary, label) {
  const button = el('button', { type: 'button', class: 'summary' }, label);
  button.addEventListener('click', () => onSummary(turn, box, button));
  box.append(button);
}

/** Results, grouped by page (page › its sections, each a link to its heading, its best-matching
 * words highlighted), under their own heading and a note for words read as the site's.
 * @param {SearchDto} found @param {string} heading @param {boolean} own @param {Messages} msgs */
function resultsView({ results, corrections }, heading, own, msgs) {
  const list = el('ul', { class: 'pages' });
  let page = '';
  let hits = list;
  for (const r of results) {
    if (r.title + r.url.split('#')[0] !== page) {
      page = r.title + r.url.split('#')[0];
      hits = el('ul', { class: 'hits' });
      list.append(el('li', {}, el('span', { class: 'page' }, r.title), r.collection && el('span', { class: 'chip collection' }, msgs.collection(r.collection)), hits));
    }
    hits.append(el('li', {}, place(r.url, r.section || r.title, own), el('p', { class: 'excerpt' }, ...highlight({ text: r.excerpt, highlights: r.highlights }))));
  }
  return el('section', { class: 'found' }, el('h3', { class: 'sub' }, heading),
    corrections.length > 0 && el('p', { class: 'fixed' }, msgs.showingFor(corrections.map((c) => c.to))), list);
}

/** @param {QuoteDto} quote @param {boolean} own @param {Messages} msgs */
function quoteView(quote, own, msgs) {
  const c = quote.citation;
  const caption = el('figcaption', { class: 'onrecord-cite' }, place(c.url, msgs.citation(c.title, c.section), own, 'chip cite'));
  const jump = !own && c.textFragmentUrl && place(c.textFragmentUrl, msgs.goToQuote, false, 'jump');
  if (jump && jump.tagName === 'A') caption.append(' ', jump);
  caption.append(el('span', { class: 'pos' }, msgs.position(c.fragmentNo, c.fragmentCount)));
  // The kind of truth it is: "How it works", "Why we decided", or the site's own label.
  if (c.collection) caption.prepend(el('span', { class: 'chip collection' }, msgs.collection(c.collection)), ' ');
  // A table row is quoted under its header row, as the page shows it.
  const header = quote.header && el('div', { class: 'onrecord-row-header' }, quote.header);
  return el('figure', { class: 'quote' }, el('blockquote', { class: 'onrecord-quote' }, ...(header ? [header] : []), ...highlight(quote)), caption);
}

/** A quote or an excerpt as text nodes, with the question's terms in <mark> by UTF-16 offsets.
 * @param {{ text: string, highlights: { start: number, end: number }[] }} quote @returns {(string | HTMLElement)[]} */
function highlight({ text, highlights }) {
  const parts = [];
  let at = 0;
  const spans = highlights
    .filter((h) => Number.isInteger(h.start) && Number.isInteger(h.end) && h.start < h.end)
    .sort((a, b) => a.start - b.start);
  for (const { start, end } of spans) {
    const from = Math.max(start, at);
    const to = Math.min(end, text.length);
    if (from >= to) continue;
    if (from > at) parts.push(text.slice(at, from));
    parts.push(el('mark', {}, text.slice(from, to)));
    at = to;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

/** A link for same-origin http(s) URLs; anything else (or a visitor's own file) is plain text.
 * @param {string} url @param {string} text @param {boolean} own @param {string} [cls] */
function place(url, text, own, cls = '') {
  let target = null;
  try {
    if (!own && url) target = new URL(url, document.baseURI);
  } catch {
    target = null;
  }
  if (target && (target.protocol === 'http:' || target.protocol === 'https:') && target.origin === location.origin) {
    return el('a', { href: target.href, class: cls }, text);
  }
  return el('span', { class: cls }, text);
}
