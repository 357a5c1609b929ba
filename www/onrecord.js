// onrecord loader. One tag adds a search button and a Ctrl/Cmd-K dialog that answers with
// verbatim, cited quotes from the site's pages, or declines and says why:
//   <script type="module" src="/onrecord/onrecord.js" data-index="/onrecord/index.onr"></script>
// or, with the same tag on the page, an inline box: <onrecord-ask></onrecord-ask>.
// Nothing is fetched until the widget is opened (or the browser is idle, with data-preload="idle").
// Rendering builds DOM nodes and text nodes only: nothing from an index is ever parsed as HTML.

// Asset paths relative to this file. scripts/site.mjs rewrites this line with content-hashed
// names when it writes a deploy folder; these defaults serve www/ as it is in the repository.
const ASSETS = {"css":"onrecord.css","worker":"onrecord-worker.js","glue":"dist/pkg/onrecord_wasm.js","wasm":"dist/pkg/onrecord_wasm_bg.wasm","index":"dist/index.onr","model":null,"summary":"summary.js"};

const here = new URL(import.meta.url);
const asset = (name) => ASSETS[name] && new URL(ASSETS[name], here).href;
const script = [...document.querySelectorAll('script[type="module"][src]')]
  .find((s) => new URL(s.src, document.baseURI).href === here.href);
const ACCEPTED = /\.(md|markdown|txt)$/i;
const MAX_FILE_BYTES = 2_000_000; // the core's MAX_FILE_BYTES: checked before reading the file

/** Options from data attributes: the element's own, then the script tag's. */
function options(el) {
  const get = (key) => el?.dataset[key] ?? script?.dataset[key];
  const index = get('index') ? new URL(get('index'), document.baseURI).href : asset('index');
  const max = Number.parseInt(get('maxQuotes') ?? '', 10);
  return {
    index,
    model: get('model') ? new URL(get('model'), document.baseURI).href
      : asset('model') ?? new URL('query-model.onq', index).href,
    proxy: get('proxy') ?? null,
    placeholder: get('placeholder') ?? 'Ask a question about these pages',
    lang: get('language') ?? document.documentElement.lang ?? 'en',
    theme: get('theme') ?? 'auto',
    maxQuotes: max > 0 ? max : 3,
    preload: get('preload') ?? '',
  };
}

// ---------------------------------------------------------------------------------------------
// Loading, on first use only.

// The engine runs in a Web Worker (onrecord-worker.js): decoding an index is one synchronous
// step that took 101 ms at 10k fragments and 577 ms at 100k on the main thread. One worker per
// index URL; it also holds the visitor's own files.
const workers = new Map();

function workerFor(index) {
  if (!workers.has(index)) {
    workers.set(index, (async () => {
      const worker = new Worker(scriptUrl(asset('worker')), { type: 'module' });
      const pending = new Map();
      let next = 0;
      worker.onmessage = ({ data: { id, result, error, name } }) => {
        const { ok, fail } = pending.get(id);
        pending.delete(id);
        if (error === undefined) ok(result);
        else fail(Object.assign(new Error(error), { name }));
      };
      // A worker that cannot start (missing file, blocked by worker-src) fails every call.
      worker.onerror = (event) => {
        event.preventDefault();
        for (const { fail } of pending.values()) fail(new Error(`could not start the search worker ${asset('worker')}`));
        pending.clear();
      };
      const call = (op, args = {}) => new Promise((ok, fail) => {
        pending.set(++next, { ok, fail });
        worker.postMessage({ id: next, op, ...args });
      });
      await call('init', { glue: asset('glue'), wasm: asset('wasm') });
      return call;
    })());
  }
  return workers.get(index);
}

/** Under Trusted Types, a worker's URL must come from a policy; ours admits this origin only. */
let policy;
function scriptUrl(url) {
  if (!window.trustedTypes) return url;
  policy ??= window.trustedTypes.createPolicy('onrecord', {
    createScriptURL: (u) => {
      if (new URL(u).origin !== here.origin) throw new Error(`onrecord: refusing worker URL ${u}`);
      return u;
    },
  });
  return policy.createScriptURL(url);
}

/** The site's engine: resolves to { ask(question) → Promise<AnswerDto> } once the index loads. */
function loadEngine(opts, host) {
  if (!engines.has(opts.index)) {
    engines.set(opts.index, (async () => {
      const call = await workerFor(opts.index);
      const { vectors } = await call('load', { index: opts.index });
      // Matching by meaning only improves ranking: fetch the model when the browser is idle and
      // keep answering lexically meanwhile (or for good, if it cannot load).
      if (vectors) {
        const later = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 200));
        later(() => call('model', { url: opts.model }).then(
          () => { host.dataset.meaning = 'ready'; },
          (err) => {
            host.dataset.meaning = 'unavailable';
            console.warn('onrecord: matching by meaning is off:', message(err));
          }));
      }
      return {
        ask: (question) => call('ask', { which: 'site', question }),
        // For summary.js: the proxy is told which index asks, and every quote it returns is
        // re-checked here against the site's own fragments before it is shown.
        info: () => call('info'),
        verifyQuote: (fragment, text) => call('verifyQuote', { fragment, text }),
      };
    })());
  }
  return engines.get(opts.index);
}
const engines = new Map();

// ---------------------------------------------------------------------------------------------
// The panel: question form, live status, results and "your documents". Used by both layouts.

class Panel {
  constructor(host, opts) {
    this.host = host;
    this.opts = opts;
    this.local = null; // an engine over the visitor's own files, when they dropped some
    this.root = el('div', { class: 'panel' });
    this.input = el('input', {
      id: 'q', type: 'search', name: 'q', autocomplete: 'off', enterkeyhint: 'search',
      placeholder: opts.placeholder, maxlength: '500', // onrecord_core::MAX_QUESTION_CHARS
    });
    const form = el('form', { role: 'search', 'aria-label': 'Ask these pages' },
      el('label', { for: 'q', class: 'label' }, 'Ask these pages'),
      el('div', { class: 'row' }, this.input, el('button', { type: 'submit', class: 'ask' }, 'Ask')));
    this.status = el('p', { class: 'onrecord-status', role: 'status', 'aria-live': 'polite' });
    this.result = el('div', { class: 'result' });
    this.files = el('input', { type: 'file', multiple: '', class: 'sr-only', accept: '.md,.markdown,.txt,text/markdown,text/plain' });
    this.source = el('p', { class: 'source' });
    const drop = el('div', { class: 'drop' },
      el('p', {}, 'Your documents: drop .md or .txt files here, or ',
        el('label', { class: 'pick' }, 'choose files', this.files),
        '. They are indexed in this page and never sent anywhere.'),
      this.source);
    this.root.append(form, this.status, this.result, drop);

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.ask(this.input.value.trim());
    });
    this.files.addEventListener('change', () => this.addFiles([...this.files.files]));
    this.root.addEventListener('dragover', (event) => {
      event.preventDefault();
      drop.classList.add('over');
    });
    this.root.addEventListener('dragleave', () => drop.classList.remove('over'));
    this.root.addEventListener('drop', (event) => {
      event.preventDefault();
      drop.classList.remove('over');
      this.addFiles([...(event.dataTransfer?.files ?? [])]);
    });
  }

  /** Starts loading the site's engine (once); failures are shown, not thrown. */
  load() {
    this.engine ??= loadEngine(this.opts, this.host).then((engine) => {
      if (!this.status.textContent.startsWith('Answered') && !this.local) {
        this.say('Ready. Answers are quoted from these pages, or declined.');
      }
      return engine;
    }, (err) => {
      this.fail(unavailable(err));
      return null;
    });
    if (!this.failed && !this.ready) this.say('Loading the search index…');
    this.engine.then((engine) => { this.ready = !!engine; });
    return this.engine;
  }

  async ask(question) {
    if (!question) return;
    const engine = this.local ?? await this.load();
    if (!engine) return;
    let answer;
    try {
      answer = await engine.ask(question);
    } catch (err) {
      this.say(`Something went wrong: ${message(err)}`);
      return;
    }
    this.render(answer, question, engine);
  }

  async addFiles(files) {
    const reject = (why) => {
      this.source.className = 'source error';
      this.source.setAttribute('role', 'alert');
      this.source.textContent = why;
    };
    if (!files.length) return;
    // Checked before reading: a huge file would stall the page before the core could refuse it.
    for (const file of files) {
      if (!ACCEPTED.test(file.name)) return reject(`${file.name} is not a .md or .txt file.`);
      if (file.size > MAX_FILE_BYTES) {
        return reject(`${file.name} is ${file.size} bytes: files of at most ${MAX_FILE_BYTES} bytes can be indexed.`);
      }
    }
    try {
      const [call, texts] = await Promise.all([workerFor(this.opts.index), Promise.all(files.map((f) => f.text()))]);
      this.local = null;
      await call('documents', { names: files.map((f) => f.name), texts, lang: this.opts.lang });
      this.local = { ask: (question) => call('ask', { which: 'local', question }), forget: () => call('forget') };
    } catch (err) {
      return reject(`${message(err)}.`);
    }
    const names = files.map((f) => f.name).join(', ');
    this.source.className = 'source';
    this.source.removeAttribute('role');
    this.source.replaceChildren(`Asking your documents: ${names}. `);
    const back = el('button', { type: 'button', class: 'link' }, 'Ask this site again');
    back.addEventListener('click', () => {
      this.local?.forget();
      this.local = null;
      this.source.replaceChildren();
      this.result.replaceChildren();
      this.say('Asking this site’s pages again.');
      this.input.focus();
    });
    this.source.append(back);
    this.result.replaceChildren();
    this.say(`Indexed ${files.length} file${files.length === 1 ? '' : 's'} in this page. Ask away.`);
    this.input.focus();
  }

  say(text) {
    this.status.className = 'onrecord-status';
    this.status.setAttribute('role', 'status');
    this.status.textContent = text;
  }

  fail(text) {
    this.failed = true;
    this.status.className = 'onrecord-status onrecord-error';
    this.status.setAttribute('role', 'alert');
    this.status.textContent = text;
  }

  render(answer, question, engine) {
    const own = engine === this.local; // the visitor's files have no pages to link to
    const box = el('div', { class: 'answer', 'data-mode': answer.mode });
    if (answer.mode === 'answer') {
      const quotes = answer.quotes.slice(0, this.opts.maxQuotes);
      box.append(el('p', { class: 'meta' },
        el('span', { class: 'chip mode' }, `Answer · ${answer.supported ? 'supported' : 'partial'}`),
        answer.confidence ? el('span', { class: `chip confidence ${answer.confidence}` }, `${cap(answer.confidence)} confidence`) : ''));
      for (const quote of quotes) box.append(renderQuote(quote, own));
      // Words of the question no page uses: the quotes cannot speak to them.
      if (answer.missingTerms?.length) {
        box.append(el('p', { class: 'missing' }, `These pages never mention ${quoted(answer.missingTerms)}.`));
      }
      const related = (answer.related ?? []).filter((r) => !quotes.some((q) => q.citation.url === r.url));
      if (related.length) {
        const list = el('ul', { class: 'related' });
        for (const r of related) list.append(el('li', {}, place(r.url, where(r), own)));
        box.append(el('h3', { class: 'sub' }, 'Other matching sections'), list);
      }
      if (this.opts.proxy && ASSETS.summary && !own) box.append(this.summaryButton(question, answer, engine, box));
      const conf = answer.confidence ? ` ${cap(answer.confidence)} confidence.` : '';
      const from = quotes.length ? ` from ${where(quotes[0].citation)}` : '';
      this.say(`Answered with ${quotes.length} quote${quotes.length === 1 ? '' : 's'}${from}.${conf}`);
    } else if (answer.mode === 'related-material') {
      // A private note bears on the question: say where the moment lives, never what it says.
      box.append(el('p', {}, 'These pages do not answer that, but private notes of the site owner cover it:'));
      const list = el('ul', { class: 'hints' });
      for (const hint of answer.hints) {
        list.append(el('li', {}, place(hint.url, hint.label, own), hint.locator ? ` — ${hint.locator}` : ''));
      }
      box.append(list);
      this.say('Not in these documents; related private material exists.');
    } else {
      // A decline cites nothing: no quotes, no links, only the reason.
      let why = answer.decline?.message ?? '';
      if (answer.decline?.gate !== 'never-mentioned' && answer.missingTerms?.length) {
        why += ` These pages never mention ${quoted(answer.missingTerms)}.`;
      }
      box.append(el('p', { class: 'onrecord-decline' }, `Not in these documents. ${why}`.trim()));
      this.say(`Not in these documents. ${why}`.trim());
    }
    this.result.replaceChildren(box);
    // The result says it on screen; the status line still announces it to screen readers.
    this.status.classList.add('quiet');
  }

  /** "Ask for a summary": hands over to www/summary.js (the proxy flow) when it is deployed. */
  summaryButton(question, answer, engine, box) {
    const button = el('button', { type: 'button', class: 'summary' }, 'Ask for a summary');
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const mod = await import(asset('summary'));
        await mod.askForSummary({ proxy: this.opts.proxy, question, answer, engine, container: box });
      } catch (err) {
        this.say(`Summaries are unavailable: ${message(err)}`);
        button.disabled = false;
      }
    });
    return button;
  }
}

function renderQuote(quote, own) {
  const c = quote.citation;
  const caption = el('figcaption', { class: 'onrecord-cite' }, place(c.url, where(c), own, 'chip cite'));
  const jump = !own && c.textFragmentUrl && place(c.textFragmentUrl, 'Go to the quote', false, 'jump');
  if (jump?.tagName === 'A') caption.append(' ', jump);
  caption.append(el('span', { class: 'pos' }, ` fragment ${c.fragmentNo} of ${c.fragmentCount}`));
  return el('figure', { class: 'quote' }, el('blockquote', { class: 'onrecord-quote' }, ...highlight(quote)), caption);
}

/** The quote as text nodes, with the question's terms in <mark> by UTF-16 offsets. */
function highlight({ text, highlights }) {
  const parts = [];
  let at = 0;
  const spans = (highlights ?? [])
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

const where = (c) => (c.section ? `${c.title} › ${c.section}` : c.title);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** A link for same-origin http(s) URLs; anything else (or a visitor's own file) is plain text. */
function place(url, text, own, cls = '') {
  let target = null;
  try {
    if (!own && url) target = new URL(url, document.baseURI);
  } catch {
    target = null;
  }
  const safe = target && (target.protocol === 'http:' || target.protocol === 'https:') && target.origin === location.origin;
  return safe ? el('a', { href: target.href, class: cls }, text) : el('span', { class: cls }, text);
}

function unavailable(err) {
  const text = message(err);
  if (err?.name === 'CompileError' && /wasm-unsafe-eval|Content Security Policy|wasm-eval/i.test(text)) {
    return 'Search is unavailable: this site’s Content Security Policy does not allow WebAssembly (script-src needs \'wasm-unsafe-eval\').';
  }
  return `Search is unavailable: ${text}`;
}

// ---------------------------------------------------------------------------------------------
// Layouts: a search button with a modal dialog, or the inline <onrecord-ask> element.

function shadowHost(host, opts) {
  host.dataset.theme = opts.theme;
  const shadow = host.attachShadow({ mode: 'open' });
  shadow.append(el('link', { rel: 'stylesheet', href: asset('css') }));
  return shadow;
}

function mountDialog() {
  const opts = options(null);
  const host = el('div', { class: 'onrecord' });
  const shadow = shadowHost(host, opts);
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  const launch = el('button', { type: 'button', class: 'launch', 'aria-haspopup': 'dialog', 'aria-keyshortcuts': mac ? 'Meta+K' : 'Control+K' },
    el('span', {}, 'Ask'), el('kbd', { 'aria-hidden': 'true' }, mac ? '⌘K' : 'Ctrl K'));
  const panel = new Panel(host, opts);
  const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Close' }, '×');
  const dialog = el('dialog', { class: 'dialog', 'aria-labelledby': 'title' },
    el('div', { class: 'frame' },
      el('header', {}, el('h2', { id: 'title' }, 'Ask these pages'), close),
      panel.root));
  shadow.append(launch, dialog);
  if (script?.parentElement && script.parentElement !== document.head) script.after(host);
  else document.body.append(host);

  let before = null;
  const open = () => {
    if (dialog.open) return;
    // Focus inside this widget's shadow root shows up as the host in document.activeElement.
    before = document.activeElement === host ? shadow.activeElement : document.activeElement;
    dialog.showModal();
    panel.input.focus();
    panel.load();
  };
  launch.addEventListener('click', open);
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => before?.focus?.());
  // A click on the backdrop (outside the frame) closes, as in other search dialogs.
  dialog.addEventListener('click', (event) => event.target === dialog && dialog.close());
  dialog.addEventListener('keydown', (event) => event.key === 'Tab' && trapFocus(event, dialog, shadow));
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
      event.preventDefault();
      if (dialog.open) dialog.close();
      else open();
    }
  });
  if (opts.preload === 'idle') (window.requestIdleCallback ?? setTimeout)(() => panel.load());
}

/** Keeps Tab and Shift-Tab inside the open dialog. */
function trapFocus(event, dialog, shadow) {
  const items = [...dialog.querySelectorAll('a[href], button:not([disabled]), input:not([disabled])')]
    .filter((node) => node.getClientRects().length);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const active = shadow.activeElement;
  if (event.shiftKey && (active === first || !items.includes(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !items.includes(active))) {
    event.preventDefault();
    first.focus();
  }
}

class OnrecordAsk extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const opts = options(this);
    const panel = new Panel(this, opts);
    shadowHost(this, opts).append(el('div', { class: 'inline' }, panel.root));
    panel.input.addEventListener('focus', () => panel.load(), { once: true });
    if (opts.preload === 'idle') (window.requestIdleCallback ?? setTimeout)(() => panel.load());
  }
}

if (!customElements.get('onrecord-ask')) customElements.define('onrecord-ask', OnrecordAsk);
// The tag adds the button and dialog unless the page places the widget inline.
if (!document.querySelector('onrecord-ask')) mountDialog();

/** ‘a’, ‘b’ or ‘c’ — as the core's decline messages list words. */
function quoted(words) {
  const q = words.map((w) => `‘${w}’`);
  return q.length > 1 ? `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}` : q[0];
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== '' || k !== 'class') node.setAttribute(k, v);
  for (const child of children) {
    if (child === '' || child == null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

function message(err) {
  return (err && err.message) || String(err);
}
