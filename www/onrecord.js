// onrecord loader. One tag adds a search button and a Ctrl/Cmd-K dialog that answers with
// verbatim, cited quotes from the site's pages, or declines and says why:
//   <script type="module" src="/onrecord/onrecord.js" data-index="/onrecord/index.onr"></script>
// or, with the same tag on the page, an inline box: <onrecord-ask></onrecord-ask>.
// Nothing is fetched until the widget is opened (or the browser is idle, with data-preload="idle").
// The rest of the widget is in onrecord/: protocol, client, state, render, messages, panel.
// A bundled site imports it instead (the npm package, packages/onrecord-widget) and calls
// `mount({ assets, index })`: a bundle moves this file away from the widget's other files.
import { messagesFor } from './onrecord/messages.js';
import { Panel } from './onrecord/panel.js';
import { el } from './onrecord/render.js';

// Asset paths relative to this file. scripts/site.mjs rewrites this line with content-hashed
// names when it writes a deploy folder; these defaults serve www/ as it is in the repository.
const ASSETS = {"css":"onrecord.css","worker":"onrecord-worker.js","glue":"dist/pkg/onrecord_wasm.js","wasm":"dist/pkg/onrecord_wasm_bg.wasm.gz","shardedGlue":"dist/pkg-sharded/onrecord_wasm.js","shardedWasm":"dist/pkg-sharded/onrecord_wasm_bg.wasm.gz","documentsGlue":"dist/pkg-documents/onrecord_wasm.js","documentsWasm":"dist/pkg-documents/onrecord_wasm_bg.wasm.gz","index":"dist/index.onr","model":null,"summary":"summary.js","owner":"onrecord/owner.js"};

/**
 * What a widget needs, from data attributes: the element's own, then `mount()`'s, then the
 * script tag's (the same names, camelCased).
 * @typedef {object} Options
 * @property {string} index  the index URL
 * @property {string} model  the query model URL
 * @property {string | null} proxy  the summary proxy
 * @property {string | null} placeholder  else the language's
 * @property {string} lang  the language of the widget and of a visitor's files
 * @property {string} theme
 * @property {number} maxQuotes
 * @property {string} preload
 * @property {boolean} feedback  "Did this answer help?" under answers
 * @property {string | null} report  where a record of each question goes (sendBeacon), if anywhere
 * @property {string | null} scope  a path prefix or a collection name: the part of the site asked
 * @property {{ css: string, worker: string, glue: string, wasm: string, shardedGlue: string | null, shardedWasm: string | null, documentsGlue: string | null, documentsWasm: string | null, summary: string | null, owner: string | null }} assets
 *   absolute URLs; the sharded engine loads only for a sharded index, the documents engine only
 *   when a visitor drops files
 */

const here = new URL(import.meta.url);
const script = /** @type {HTMLScriptElement[]} */ ([...document.querySelectorAll('script[type="module"][src]')])
  .find((s) => new URL(s.src, document.baseURI).href === here.href);
/** What `mount()` was given (the npm package's way to set the data attributes).
 * @type {Record<string, string | number | boolean | undefined> | null} */
let config = null;

/** @param {HTMLElement | null} el @returns {Options} */
function options(el) {
  /** @param {string} key */
  const get = (key) => el?.dataset[key] ?? config?.[key]?.toString() ?? script?.dataset[key];
  const given = (/** @type {string} */ key) => {
    const value = get(key);
    return value ? new URL(value, document.baseURI).href : null;
  };
  // The folder holding the widget's files: this file's own, unless a bundle moved it.
  const base = given('assets')?.replace(/\/?$/, '/') ?? here;
  /** @param {keyof typeof ASSETS} name */
  const asset = (name) => {
    const path = ASSETS[name];
    return path ? new URL(path, base).href : null;
  };
  const index = given('index') ?? asset('index');
  if (!index) throw new Error('onrecord: no index given (data-index, or mount({ index }))');
  const max = Number.parseInt(get('maxQuotes') ?? '', 10);
  return {
    index,
    model: given('model') ?? asset('model') ?? new URL('query-model.onq', index).href,
    proxy: get('proxy') ?? null,
    placeholder: get('placeholder') ?? null,
    lang: get('language') || document.documentElement.lang || 'en',
    theme: get('theme') ?? 'auto',
    maxQuotes: max > 0 ? max : 3,
    preload: get('preload') ?? '',
    // Present (data-feedback, or mount({ feedback: true })) turns it on.
    feedback: (get('feedback') ?? 'false') !== 'false',
    report: given('report'),
    scope: get('scope') || null,
    assets: {
      css: /** @type {string} */ (asset('css')),
      worker: /** @type {string} */ (asset('worker')),
      glue: /** @type {string} */ (asset('glue')),
      wasm: /** @type {string} */ (asset('wasm')),
      shardedGlue: asset('shardedGlue'),
      shardedWasm: asset('shardedWasm'),
      documentsGlue: asset('documentsGlue'),
      documentsWasm: asset('documentsWasm'),
      summary: asset('summary'),
      owner: asset('owner'),
    },
  };
}

/** @param {HTMLElement} host @param {Options} opts */
function shadowHost(host, opts) {
  host.dataset.theme = opts.theme;
  const shadow = host.attachShadow({ mode: 'open' });
  shadow.append(el('link', { rel: 'stylesheet', href: opts.assets.css }));
  return shadow;
}

/** The search button and its modal dialog, placed where the script tag stands. */
function mountDialog() {
  const opts = options(null);
  const msgs = messagesFor(opts.lang);
  const host = el('div', { class: 'onrecord' });
  const shadow = shadowHost(host, opts);
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  const launch = el('button', { type: 'button', class: 'launch', 'aria-haspopup': 'dialog', 'aria-keyshortcuts': mac ? 'Meta+K' : 'Control+K' },
    el('span', {}, msgs.ask), el('kbd', { 'aria-hidden': 'true' }, msgs.shortcut(mac)));
  const panel = new Panel(host, opts);
  const close = el('button', { type: 'button', class: 'close', 'aria-label': msgs.close }, '×');
  const dialog = el('dialog', { class: 'dialog', 'aria-labelledby': 'title' },
    el('div', { class: 'frame' },
      el('header', {}, el('h2', { id: 'title' }, msgs.title), close),
      panel.root));
  shadow.append(launch, dialog);
  if (script?.parentElement && script.parentElement !== document.head) script.after(host);
  else document.body.append(host);

  /** @type {Element | null} */
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
  dialog.addEventListener('close', () => /** @type {HTMLElement | null} */ (before)?.focus?.());
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
  if (opts.preload === 'idle') idle(() => panel.load());
}

/** Keeps Tab and Shift-Tab inside the open dialog.
 * @param {KeyboardEvent} event @param {HTMLDialogElement} dialog @param {ShadowRoot} shadow */
function trapFocus(event, dialog, shadow) {
  const items = /** @type {HTMLElement[]} */ ([...dialog.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]), summary')])
    .filter((node) => node.getClientRects().length);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const active = /** @type {HTMLElement} */ (shadow.activeElement);
  if (event.shiftKey && (active === first || !items.includes(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !items.includes(active))) {
    event.preventDefault();
    first.focus();
  }
}

/** @param {() => void} fn */
const idle = (fn) => (window.requestIdleCallback ?? setTimeout)(fn);

class OnrecordAsk extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const opts = options(this);
    const panel = new Panel(this, opts);
    shadowHost(this, opts).append(el('div', { class: 'inline' }, panel.root));
    panel.input.addEventListener('focus', () => panel.load(), { once: true });
    if (opts.preload === 'idle') idle(() => panel.load());
  }
}

/**
 * Starts the widget: defines `<onrecord-ask>` and, unless the page has one, adds the button and
 * dialog. `options` takes the data attributes' names camelCased (`assets`, `index`, `model`,
 * `proxy`, `placeholder`, `language`, `theme`, `maxQuotes`, `preload`, `feedback`, `report`,
 * `scope`). Runs once.
 * @param {Record<string, string | number | boolean | undefined>} [options]
 */
export function mount(options = {}) {
  if (config) return;
  config = options;
  if (!customElements.get('onrecord-ask')) customElements.define('onrecord-ask', OnrecordAsk);
  if (!document.querySelector('onrecord-ask')) mountDialog();
}

// The loader starts itself once the module graph has run, so a module importing it (a bundle's
// entry) that calls mount() at its top level, before any await, is heard first.
queueMicrotask(() => mount());
