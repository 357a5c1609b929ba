// onrecord loader: one <script type="module" src="onrecord.js" data-index="..."> adds an
// "Ask" box that answers with verbatim, cited quotes from the site's pages, or declines.
// Rendering uses textContent only: nothing from the index is ever parsed as HTML.

const here = new URL(import.meta.url);
const script = [...document.querySelectorAll('script[type="module"][src]')]
  .find((s) => new URL(s.src, document.baseURI).href === here.href);

mount(script).catch((err) => console.error('onrecord:', err));

async function mount(script) {
  const root = el('section', { class: 'onrecord', 'aria-label': 'Ask these pages' });
  const form = el('form', { role: 'search' });
  const label = el('label', { for: 'onrecord-q' }, 'Ask these pages');
  const input = el('input', { id: 'onrecord-q', type: 'search', name: 'q', autocomplete: 'off', disabled: '' });
  const button = el('button', { type: 'submit', disabled: '' }, 'Ask');
  const status = el('p', { class: 'onrecord-status', role: 'status', 'aria-live': 'polite' }, 'Loading the search index…');
  const result = el('div', { class: 'onrecord-result' });
  form.append(label, input, button);
  root.append(form, status, result);

  const css = el('link', { rel: 'stylesheet', href: new URL('onrecord.css', here).href });
  document.head.append(css);
  if (script) script.after(root);
  else document.body.append(root);

  const indexUrl = new URL(script?.dataset.index ?? 'dist/index.onr', document.baseURI).href;
  let engine, wasm;
  try {
    wasm = await import(new URL('dist/pkg/onrecord_wasm.js', here).href);
    await wasm.default();
    engine = await wasm.loadEngine(indexUrl);
  } catch (err) {
    status.className = 'onrecord-status onrecord-error';
    status.setAttribute('role', 'alert');
    status.textContent = `Search is unavailable: ${message(err)}`;
    return;
  }
  input.disabled = false;
  button.disabled = false;
  status.textContent = 'Ready. Answers are quoted from these pages, or declined.';

  // The query model only adds matching by meaning: fetch it after the first paint, and keep
  // answering lexically meanwhile (or for good, if it cannot load).
  if (engine.hasVectors()) {
    const modelUrl = new URL(script?.dataset.model ?? 'query-model.onq', indexUrl).href;
    const later = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 200));
    later(async () => {
      try {
        engine.setQueryModel(await wasm.loadQueryModel(modelUrl));
        root.dataset.meaning = 'ready';
      } catch (err) {
        root.dataset.meaning = 'unavailable';
        console.warn('onrecord: matching by meaning is off:', message(err));
      }
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (!question) return;
    let answer;
    try {
      answer = engine.ask(question);
    } catch (err) {
      status.textContent = `Something went wrong: ${message(err)}`;
      return;
    }
    render(answer, result, status);
  });
}

function render(answer, result, status) {
  result.replaceChildren();
  if (answer.mode === 'answer') {
    for (const quote of answer.quotes) {
      const block = el('blockquote', { class: 'onrecord-quote' }, quote.text);
      const cite = el('p', { class: 'onrecord-cite' });
      const where = quote.citation.section
        ? `${quote.citation.title} › ${quote.citation.section}`
        : quote.citation.title;
      cite.append(link(quote.citation.url, where), ` (fragment ${quote.citation.fragmentNo} of ${quote.citation.fragmentCount})`);
      result.append(el('div', { class: 'onrecord-answer', 'data-mode': answer.mode }, block, cite));
    }
    status.textContent = `Answered with ${answer.quotes.length} quote${answer.quotes.length === 1 ? '' : 's'}.`;
  } else if (answer.mode === 'related-material') {
    // A private note bears on the question: say where the moment lives, never what it says.
    const box = el('div', { class: 'onrecord-related', 'data-mode': answer.mode });
    box.append(el('p', {}, 'These pages do not answer that, but private notes of the site owner cover it:'));
    const list = el('ul');
    for (const hint of answer.hints) {
      const item = el('li');
      item.append(hint.url ? link(hint.url, hint.label) : el('span', {}, hint.label));
      if (hint.locator) item.append(` — ${hint.locator}`);
      list.append(item);
    }
    box.append(list);
    result.append(box);
    status.textContent = 'Not in these documents; related private material exists.';
  } else {
    const why = answer.decline?.message ?? '';
    result.append(el('p', { class: 'onrecord-decline', 'data-mode': answer.mode }, `Not in these documents. ${why}`.trim()));
    status.textContent = 'Not in these documents.';
  }
}

/** A link for same-origin http(s) URLs; anything else is shown as plain text. */
function link(url, text) {
  let target;
  try {
    target = new URL(url, document.baseURI);
  } catch {
    return el('span', {}, text);
  }
  const safe = (target.protocol === 'http:' || target.protocol === 'https:') && target.origin === location.origin;
  return safe ? el('a', { href: target.href }, text) : el('span', {}, text);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

function message(err) {
  return (err && err.message) || String(err);
}
