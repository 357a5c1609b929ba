// The panel's state as plain data, and the only functions that change it: panel.js turns events
// into these transitions, render.js draws the result. No DOM here, so tests run it in Node.
//
// Questions and answers form a thread of turns. Each question joins the thread with the turn
// context of the thread's last answer, so the engine may read it as a follow-up ("and for
// parts?"); "New question" empties the thread, and the next question is read on its own.
//
// While the visitor types, `live` holds what the box's text finds: results as typed, and after a
// pause the answer to the text as it stands (Enter then puts that answer in the thread as it is).
// Each text the box holds has a sequence number; a reply to an earlier text is stale and dropped.

/**
 * @typedef {import('./protocol.js').Corpus} Corpus
 * @typedef {import('./protocol.js').AnswerDto} AnswerDto
 * @typedef {import('./protocol.js').SearchDto} SearchDto
 * @typedef {import('./protocol.js').RefusalDto} RefusalDto
 * @typedef {import('./protocol.js').TurnContextDto} TurnContextDto
 *
 * @typedef {object} Turn  one question and its answer
 * @property {number} id
 * @property {string} question
 * @property {Corpus} corpus  the pages it was asked of
 * @property {TurnContextDto | null} context  the previous answer's, sent with the question
 * @property {AnswerDto | null} answer  null while the engine works on it
 *
 * @typedef {object} Live  what the box's text finds as it is typed
 * @property {string} query  the text
 * @property {SearchDto | null} search  its results
 * @property {AnswerDto | null} answer  the answer to it, after a pause
 * @property {TurnContextDto | null} context  the one the answer was asked with
 *
 * @typedef {{ kind: 'wasm-blocked' } | { kind: 'error', detail: string }} Failure  why the site's engine is unavailable
 * @typedef {RefusalDto | { kind: 'not-text', file: string } | { kind: 'failed', detail: string }} Refusal  why files were not indexed
 *
 * @typedef {{ kind: 'loading' } | { kind: 'ready' } | { kind: 'answered' } | { kind: 'results', count: number } | { kind: 'indexed', count: number }
 *   | { kind: 'site-again' } | { kind: 'new-thread' } | { kind: 'ask-failed', detail: string } | { kind: 'offline' }
 *   | { kind: 'summary-failed', detail: string }
 *   | { kind: 'unavailable', failure: Failure }} Notice  what the live region says
 *
 * @typedef {object} PanelState
 * @property {'idle' | 'loading' | 'ready' | 'failed'} site  the site's engine
 * @property {Corpus} corpus  which pages questions go to
 * @property {string[]} documents  the visitor's files, while corpus is 'documents'
 * @property {Refusal | null} refusal  why the files dropped last were refused
 * @property {Turn[]} turns  the thread, oldest first
 * @property {number} nextTurn
 * @property {Live | null} live  null while the box holds fewer than two characters
 * @property {number} typed  the sequence number of the box's text
 * @property {Notice | null} notice
 */

/** The thread keeps this many turns; older ones are dropped from view. */
const MAX_TURNS = 20;

/** Checked before reading a file: a huge file would stall the page before the core refused it. */
export const MAX_FILE_BYTES = 2_000_000; // the core's MAX_FILE_BYTES
/** The question box's limit: the engine declines longer questions. */
export const MAX_QUESTION_CHARS = 500; // the core's MAX_QUESTION_CHARS
const ACCEPTED = /\.(md|markdown|txt)$/i;

/** @returns {PanelState} */
export const initial = () => ({
  site: 'idle', corpus: 'site', documents: [], refusal: null, turns: [], nextTurn: 1, live: null, typed: 0, notice: null,
});

/** The site's engine is wanted (opened, focused, preloaded or asked) and not there yet.
 * @param {PanelState} s @returns {PanelState} */
export const loading = (s) => (s.site === 'ready' || s.site === 'failed' ? s : { ...s, site: 'loading', notice: { kind: 'loading' } });

/** @param {PanelState} s @returns {PanelState} */
export const loaded = (s) => ({ ...s, site: 'ready', notice: s.notice?.kind === 'loading' ? { kind: 'ready' } : s.notice });

/** @param {PanelState} s @param {Failure} failure @returns {PanelState} */
export const failed = (s, failure) => ({ ...s, site: 'failed', notice: { kind: 'unavailable', failure } });

/** The context a question asked now carries: the thread's last answer's.
 * @param {PanelState} s @returns {TurnContextDto | null} */
export const contextOf = (s) => s.turns.findLast((t) => t.answer)?.answer?.context ?? null;

/** A question joins the thread, carrying the context of the thread's last answer; the answer
 * the box's text already got after a pause, asked the same way, comes with it.
 * @param {PanelState} s @param {string} question @returns {PanelState} */
export function asked(s, question) {
  const context = contextOf(s);
  const { live } = s;
  const answer = live?.query === question && live.context === context ? live.answer : null;
  const turn = { id: s.nextTurn, question, corpus: s.corpus, context, answer };
  return { ...s, turns: [...s.turns, turn].slice(-MAX_TURNS), nextTurn: s.nextTurn + 1, ...(answer && { notice: { kind: 'answered' } }) };
}

/** The box's text changed; it is number `seq`. A box of fewer than two characters shows nothing.
 * @param {PanelState} s @param {number} seq @param {string} query @returns {PanelState} */
export const typed = (s, seq, query) => ({ ...s, typed: seq, live: query.length > 1 ? s.live : null });

/** Results for text number `seq` (dropped unless it is still the box's); an answer to the same
 * text stays above them.
 * @param {PanelState} s @param {number} seq @param {string} query @param {SearchDto} search @returns {PanelState} */
export function searched(s, seq, query, search) {
  if (seq !== s.typed) return s;
  const same = s.live?.query === query ? s.live : null;
  const live = { query, search, answer: same?.answer ?? null, context: same?.context ?? null };
  return { ...s, live, notice: { kind: 'results', count: search.results.length } };
}

/** The answer to text number `seq` after a pause, asked with `context` (dropped unless the text
 * is still the box's); it is shown above its own results.
 * @param {PanelState} s @param {number} seq @param {string} query @param {TurnContextDto | null} context
 * @param {AnswerDto} answer @returns {PanelState} */
export function previewed(s, seq, query, context, answer) {
  if (seq !== s.typed) return s;
  return { ...s, live: { query, search: null, answer, context }, notice: { kind: 'answered' } };
}

/** Results or an answer for text number `seq` failed: the last good results stay, with why.
 * @param {PanelState} s @param {number} seq @param {boolean} offline @param {string} detail @returns {PanelState} */
export const liveFailed = (s, seq, offline, detail) => (seq !== s.typed ? s
  : { ...s, notice: offline ? { kind: 'offline' } : { kind: 'ask-failed', detail } });

/** "New question": the thread is emptied, so the next question carries no context.
 * @param {PanelState} s @returns {PanelState} */
export const newThread = (s) => ({ ...s, turns: [], notice: { kind: 'new-thread' } });

/** The engine answered turn `id`; an answer for a turn no longer in the thread is dropped.
 * @param {PanelState} s @param {number} id @param {AnswerDto} answer @returns {PanelState} */
export function answered(s, id, answer) {
  if (!s.turns.some((t) => t.id === id)) return s;
  return { ...s, turns: s.turns.map((t) => (t.id === id ? { ...t, answer } : t)), notice: { kind: 'answered' } };
}

/** @param {PanelState} s @param {number} id @param {string} detail @returns {PanelState} */
export function askFailed(s, id, detail) {
  if (!s.turns.some((t) => t.id === id)) return s;
  return { ...s, turns: s.turns.filter((t) => t.id !== id), notice: { kind: 'ask-failed', detail } };
}

/** A question needed index shards that could not be fetched (offline): it gets no answer, and
 * the questions that can be answered from what was fetched keep working.
 * @param {PanelState} s @param {number} id @returns {PanelState} */
export function askOffline(s, id) {
  if (!s.turns.some((t) => t.id === id)) return s;
  return { ...s, turns: s.turns.filter((t) => t.id !== id), notice: { kind: 'offline' } };
}

/** The visitor's files are indexed: questions go to them, in a new thread.
 * @param {PanelState} s @param {string[]} names @returns {PanelState} */
export const documentsIndexed = (s, names) => ({
  ...s, corpus: 'documents', documents: names, refusal: null, turns: [], live: null, notice: { kind: 'indexed', count: names.length },
});

/** Files were refused; whatever was asked before stays askable.
 * @param {PanelState} s @param {Refusal} refusal @returns {PanelState} */
export const documentsRefused = (s, refusal) => ({ ...s, refusal });

/** @param {PanelState} s @returns {PanelState} */
export const backToSite = (s) => ({
  ...s, corpus: 'site', documents: [], refusal: null, turns: [], live: null, notice: { kind: 'site-again' },
});

/** @param {PanelState} s @param {string} detail @returns {PanelState} */
export const summaryFailed = (s, detail) => ({ ...s, notice: { kind: 'summary-failed', detail } });

/** The first file that cannot be indexed, judged by name and size before reading anything.
 * @param {{ name: string, size: number }[]} files @returns {Refusal | null} */
export function precheck(files) {
  for (const { name, size } of files) {
    if (!ACCEPTED.test(name)) return { kind: 'not-text', file: name };
    if (size > MAX_FILE_BYTES) return { kind: 'too-large', file: name, bytes: size, limit: MAX_FILE_BYTES };
  }
  return null;
}

/** Why the site's engine failed, from the error its loading threw. @param {unknown} err @returns {Failure} */
export function failureOf(err) {
  const { name = '', message = String(err) } = /** @type {Error} */ (err ?? {});
  return name === 'CompileError' && /wasm-unsafe-eval|Content Security Policy|wasm-eval/i.test(message)
    ? { kind: 'wasm-blocked' } : { kind: 'error', detail: message };
}

/** Why files were not indexed: the engine's refusal, else what went wrong.
 * @param {unknown} err @returns {Refusal} */
export function refusalOf(err) {
  const { message = String(err), refusal } = /** @type {import('./protocol.js').EngineError} */ (err ?? {});
  return refusal ?? { kind: 'failed', detail: message };
}
