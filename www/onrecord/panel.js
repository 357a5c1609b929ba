// The panel, used by both layouts (dialog and inline): it wires the form, the file drop and the
// engines to the state's transitions (state.js) and redraws after each (render.js).
import { documentsEngine, siteEngine } from './client.js';
import { messagesFor } from './messages.js';
import { draw, panelView } from './render.js';
import * as S from './state.js';

/**
 * @typedef {import('../onrecord.js').Options} Options
 * @typedef {import('./client.js').SiteEngine} SiteEngine
 * @typedef {import('./client.js').DocumentsEngine} DocumentsEngine
 * @typedef {import('./state.js').PanelState} PanelState
 * @typedef {import('./state.js').Turn} Turn
 */

export class Panel {
  /** @param {HTMLElement} host @param {Options} opts */
  constructor(host, opts) {
    this.host = host;
    this.opts = opts;
    this.msgs = messagesFor(opts.lang);
    this.state = S.initial();
    /** @type {Promise<SiteEngine | null> | null} */
    this.site = null;
    /** @type {DocumentsEngine | null} */
    this.documents = null;
    this.view = panelView(this.msgs, opts);
    this.root = this.view.root;
    this.input = this.view.input;
    /** @type {import('./render.js').DrawContext} */
    this.ctx = {
      msgs: this.msgs,
      maxQuotes: opts.maxQuotes,
      onSummary: opts.proxy && opts.assets.summary ? (turn, box, button) => this.summary(turn, box, button) : null,
      onSiteAgain: () => this.backToSite(),
      onNewThread: () => this.newThread(),
      onSuggest: (question) => {
        this.input.value = question;
        this.input.focus();
      },
    };

    const { form, files, drop, fresh } = this.view;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const question = this.input.value.trim();
      // The box empties for the next question; this one heads its turn in the thread.
      if (question) this.input.value = '';
      this.ask(question);
    });
    fresh.addEventListener('click', this.ctx.onNewThread);
    files.addEventListener('change', () => this.addFiles([...(files.files ?? [])]));
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

  /** Applies a transition and redraws what it changed. @param {PanelState} next */
  update(next) {
    const prev = this.state;
    this.state = next;
    draw(this.view, prev, next, this.ctx);
  }

  /** Starts loading the site's engine (once); a failure is shown, never thrown. */
  load() {
    this.update(S.loading(this.state));
    this.site ??= siteEngine(this.opts, (meaning) => { this.host.dataset.meaning = meaning; }).then((engine) => {
      this.update(S.loaded(this.state));
      return engine;
    }, (err) => {
      this.update(S.failed(this.state, S.failureOf(err)));
      return null;
    });
    return this.site;
  }

  /** @param {string} question */
  async ask(question) {
    if (!question) return;
    this.update(S.asked(this.state, question));
    const turn = this.state.turns[this.state.turns.length - 1];
    const engine = turn.corpus === 'documents' ? this.documents : await this.load();
    if (!engine) return;
    try {
      this.update(S.answered(this.state, turn.id, await engine.ask(question, turn.context)));
    } catch (err) {
      const { message = String(err), unavailable } = /** @type {import('./protocol.js').EngineError} */ (err ?? {});
      if (unavailable) console.warn('onrecord: index shards could not be fetched:', message);
      this.update(unavailable ? S.askOffline(this.state, turn.id) : S.askFailed(this.state, turn.id, message));
    }
  }

  /** "Your documents": indexes dropped or chosen files in the worker, never sending them anywhere.
   * @param {File[]} files */
  async addFiles(files) {
    if (!files.length) return;
    const refusal = S.precheck(files);
    if (refusal) return this.update(S.documentsRefused(this.state, refusal));
    try {
      const texts = await Promise.all(files.map((f) => f.text()));
      this.documents = await documentsEngine(this.opts, files.map((f) => f.name), texts);
    } catch (err) {
      return this.update(S.documentsRefused(this.state, S.refusalOf(err)));
    }
    this.update(S.documentsIndexed(this.state, files.map((f) => f.name)));
    this.input.focus();
  }

  /** "New question": drops the thread's context; the next question is read on its own. */
  newThread() {
    this.update(S.newThread(this.state));
    this.input.value = '';
    this.input.focus();
  }

  backToSite() {
    this.documents?.forget();
    this.documents = null;
    this.update(S.backToSite(this.state));
    this.input.focus();
  }

  /** "Ask for a summary": hands the turn to summary.js (the proxy flow), loaded on first use.
   * @param {Turn} turn @param {HTMLElement} box @param {HTMLButtonElement} button */
  async summary(turn, box, button) {
    button.disabled = true;
    try {
      const engine = await this.load();
      const { askForSummary } = await import(/** @type {string} */ (this.opts.assets.summary));
      await askForSummary({
        proxy: this.opts.proxy, question: turn.question, answer: turn.answer, engine, container: box, lang: this.opts.lang,
      });
    } catch (err) {
      this.update(S.summaryFailed(this.state, err instanceof Error ? err.message : String(err)));
      button.disabled = false;
    }
  }
}
