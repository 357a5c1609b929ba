// What a site owner turned on, loaded only then (data-feedback, data-report): the row that asks
// whether an answer helped, and the record each question sends to the owner. A site without
// either never downloads this module.
import { el } from './render.js';

/**
 * One record per thing a visitor did, as `onrecord gaps` reads it (crates/onrecord-cli/src/gaps.rs,
 * `Record`, whose golden file tests/e2e holds the beacon to): every key, always; a DOM event's
 * `detail` holds the keys that event fills. Version 1.
 * @typedef {{ v: 1, event: 'answered' | 'declined' | 'opened' | 'feedback', question: string, page: string,
 *   confidence: string | null, reason: string | null, missing: string[], url: string | null, helpful: boolean | null }} Report
 * @typedef {import('./state.js').Turn} Turn
 * @typedef {import('./messages.js').Messages} Messages
 */

/** Turns on what the owner asked for in `panel`: the feedback row under answers, the records.
 * @param {import('./panel.js').Panel} panel */
export function install(panel) {
  const { opts, ctx, msgs } = panel;
  if (opts.feedback) {
    ctx.feedback = (turn) => feedbackView(turn, (t, helpful) => panel.tell('feedback', { question: t.question, helpful }), msgs);
  }
  const url = opts.report;
  if (url) panel.report = (event, fields) => report(url, event, fields);
}

/** The turns given feedback on: a turn keeps its object once answered, so a redrawn turn (the
 * thread is redrawn on every change) does not offer the buttons twice. @type {WeakSet<Turn>} */
const rated = new WeakSet();

/** "Did this answer help? Yes No", then thanks, in place (the focus moves to the thanks).
 * @param {Turn} turn @param {(turn: Turn, helpful: boolean) => void} onFeedback @param {Messages} msgs */
function feedbackView(turn, onFeedback, msgs) {
  const row = el('p', { class: 'feedback', role: 'status', tabindex: '-1' });
  if (rated.has(turn)) row.append(msgs.thanks);
  else row.append(msgs.feedback, ...[true, false].flatMap((helpful) => {
    const button = el('button', { type: 'button', class: 'link' }, helpful ? msgs.yes : msgs.no);
    button.addEventListener('click', () => {
      rated.add(turn);
      onFeedback(turn, helpful);
      row.replaceChildren(msgs.thanks);
      row.focus();
    });
    return [' ', button];
  }));
  return row;
}

/** Sends the owner one record, holding no identifier (docs/widget.md says what the browser adds).
 * @param {string} url @param {Report['event']} event @param {Partial<Report>} fields */
function report(url, event, fields) {
  /** @type {Report} */
  const record = {
    v: 1, event, question: '', page: location.pathname, confidence: null, reason: null, missing: [], url: null, helpful: null, ...fields,
  };
  // A string is sent as text/plain, which needs no CORS preflight to another origin.
  navigator.sendBeacon(url, JSON.stringify(record));
}
