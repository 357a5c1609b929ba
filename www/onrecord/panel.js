// The panel, used by both layouts (dialog and inline): it wires the form, the file drop and the
// engines to the state's transitions (state.js) and redraws after each (render.js).
// As the visitor types, results follow the box (debounced); a pause, or Enter, asks. The arrow
// keys move between the box and the links of the results shown last; Enter on one opens it.
// What the visitor does is told to the page as DOM events (and, with data-report, to the owner):
// see `tell`.
import { documentsEngine, siteEngine } from './client.js';
import { messagesFor } from './messages.js';
import { draw, panelView } from './render.js';
import * as S from './state.js';

/** @typedef {import('./owner.js').Report} Report */

/** Milliseconds without typing before results are looked up, and before the text is asked. */
const SEARCH_AFTER = 120;
const ASK_AFTER = 900;

/**
 * @typedef {import('../onrecord.js').Options} Options
 * @typedef {import('./client.js').SiteEngine} SiteEngine
 * @typedef {import('./client.js').DocumentsEngine} DocumentsEngine
 * @typedef {import('./state.js').PanelState} PanelState
 * @typedef {import('./state.js').Turn} Turn
 * @typedef {import('./protocol.js').AnswerDto} AnswerDto
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
    /** The box's text as last looked up, and the timers of its lookup and its question. */
    this.query = '';
    /** @type {ReturnType<typeof setTimeout>[]} */
    this.timers = [];
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
      feedback: null,
    };
    /** With data-report, sends the owner a record of what `tell` told (owner.js sets it).
     * @type {((event: Report['event'], fields: Partial<Report>) => void) | null} */
    this.report = null;
    // The owner's options load their module (owner.js) while the engine loads: answers drawn
    // once it has carry the feedback row.
    if ((opts.feedback || opts.report) && opts.assets.owner) {
      import(opts.assets.owner).then((owner) => owner.install(this), (err) => console.warn('onrecord: owner.js could not be loaded:', err));
    }

    const { form, files, drop, fresh } = this.view;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const question = this.input.value.trim();
      // The box empties for the next question; this one heads its turn in the thread.
      if (question) this.input.value = '';
      this.ask(question);
      this.typed();
    });
    this.input.addEventListener('input', () => this.typed());
    this.root.addEventListener('keydown', (event) => this.arrow(event));
    // A page opened from a result, a citation or "Go to the quote", with the question it was for.
    this.root.addEventListener('click', (event) => {
      const link = /** @type {Element} */ (event.target).closest('a');
      if (link && this.state.corpus === 'site') {
        const question = link.closest('.turn')?.querySelector('.asked')?.textContent ?? this.query;
        this.tell('opened', { question, url: link.pathname + link.hash });
      }
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

  /** The engine questions go to now. */
  engine() {
    return this.state.corpus === 'documents' ? Promise.resolve(this.documents) : this.load();
  }

  /** The box's text changed (or was emptied, or goes to other pages: `again`): results for it
   * after a short pause, its answer after a longer one; nothing for fewer than two characters.
   * @param {boolean} [again] */
  typed(again = false) {
    const query = this.input.value.trim();
    if (query === this.query && !again) return;
    this.query = query;
    this.timers.forEach(clearTimeout);
    const seq = this.state.typed + 1;
    this.update(S.typed(this.state, seq, query));
    if (query.length < 2) return;
    /** @param {(engine: SiteEngine | DocumentsEngine) => Promise<void>} step @param {number} ms */
    const later = (step, ms) => setTimeout(async () => {
      try {
        const engine = await this.engine();
        if (engine) await step(engine);
      } catch (err) {
        const { message = String(err), unavailable } = /** @type {import('./protocol.js').EngineError} */ (err ?? {});
        this.update(S.liveFailed(this.state, seq, !!unavailable, message));
      }
    }, ms);
    // The state is read when the reply comes, not when it was asked for.
    this.timers = [
      later(async (engine) => {
        const found = await engine.search(query);
        this.update(S.searched(this.state, seq, query, found));
      }, SEARCH_AFTER),
      later(async (engine) => {
        const context = S.contextOf(this.state);
        const answer = await engine.ask(query, context);
        this.update(S.previewed(this.state, seq, query, context, answer));
      }, ASK_AFTER),
    ];
  }

  /** ArrowDown from the box to the first result, on to the next; ArrowUp back (to the box).
   * @param {KeyboardEvent} event */
  arrow(event) {
    const { key, target } = event;
    const down = key === 'ArrowDown';
    if (!down && (key !== 'ArrowUp' || target === this.input)) return;
    const links = this.view.links();
    const at = links.indexOf(/** @type {HTMLElement} */ (target));
    if (at < 0 && target !== this.input) return;
    event.preventDefault();
    (links[at + (down ? 1 : -1)] ?? (down ? links[at] : this.input))?.focus();
  }

  /** @param {string} question */
  async ask(question) {
    if (!question) return;
    this.update(S.asked(this.state, question));
    const turn = this.state.turns[this.state.turns.length - 1];
    // Questions about a visitor's own files are never told: those stay in the page.
    const site = turn.corpus === 'site';
    if (site) this.tell('asked', { question });
    if (turn.answer) { // answered as typed
      if (site) this.told(question, turn.answer);
      return;
    }
    const engine = await this.engine();
    if (!engine) return;
    try {
      const answer = await engine.ask(question, turn.context);
      this.update(S.answered(this.state, turn.id, answer));
      if (site) this.told(question, answer);
    } catch (err) {
      const { message = String(err), unavailable } = /** @type {import('./protocol.js').EngineError} */ (err ?? {});
      if (unavailable) console.warn('onrecord: index shards could not be fetched:', message);
      this.update(unavailable ? S.askOffline(this.state, turn.id) : S.askFailed(this.state, turn.id, message));
    }
  }

  /** Tells the page what a visitor did: a DOM event `onrecord:<event>` on the widget's element
   * (it bubbles), whose `detail` is `fields`; with data-report, also the owner: one record, sent
   * by sendBeacon, that holds no identifier (docs/widget.md says what the browser adds).
   * @param {'asked' | Report['event']} event @param {Partial<Report>} fields */
  tell(event, fields) {
    this.host.dispatchEvent(new CustomEvent(`onrecord:${event}`, { detail: fields, bubbles: true }));
    if (event !== 'asked') this.report?.(event, fields);
  }

  /** An answer or a decline of the site's pages. @param {string} question @param {AnswerDto} answer */
  told(question, answer) {
    if (answer.mode === 'answer') this.tell('answered', { question, confidence: answer.confidence });
    else this.tell('declined', { question, reason: answer.decline?.gate ?? null, missing: answer.missingTerms });
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
    this.typed(true);
    this.input.focus();
  }

  /** "New question": drops the thread's context; the next question is read on its own. */
  newThread() {
    this.update(S.newThread(this.state));
    this.input.value = '';
    this.typed();
    this.input.focus();
  }

  backToSite() {
    this.documents?.forget();
    this.documents = null;
    this.update(S.backToSite(this.state));
    this.typed(true);
    this.input.focus();
  }

  /** "Ask for a summary": hands the turn to summary.js (the proxy flow), loaded on first use.
   * @param {Turn} turn @param {HTMLElement} box @param {HTMLButtonElement} button */
  async summary(turn, box, button) {
    button.disabled = true;
    try {
      const engine = await this.load();
      const { askForSummary } = await import(/** @type {string} */ (this.opts.assets.summary));
      // Under a decline: the sections listed, best first (summary.js sends at most eight).
      const answer = turn.answer;
      const fragments = answer && answer.mode !== 'answer' ? answer.results.map((r) => r.fragment) : undefined;
      await askForSummary({
        proxy: this.opts.proxy, question: turn.question, answer, fragments, engine, container: box, lang: this.opts.lang,
      });
    } catch (err) {
      this.update(S.summaryFailed(this.state, err instanceof Error ? err.message : String(err)));
      button.disabled = false;
    }
  }
}
