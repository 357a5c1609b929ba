// The engine worker's protocol, for both ends: client.js in the page calls, onrecord-worker.js
// serves. Every request kind, its payload and its reply are declared once, in `Requests`;
// `tsc --checkJs` (scripts/test.sh) holds both ends and the engine's DTOs to it.
//
//   page → worker   { id, kind, payload }
//   worker → page   { id, ok: true, value }  or  { id, ok: false, error: { name, message, refusal? } }

/**
 * @typedef {import('../dist/pkg/onrecord_wasm.js').AnswerDto} AnswerDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').SearchDto} SearchDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').ResultDto} ResultDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').IndexInfoDto} IndexInfoDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').VerifiedQuoteDto} VerifiedQuoteDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').RefusalDto} RefusalDto
 * @typedef {import('../dist/pkg/onrecord_wasm.js').TurnContextDto} TurnContextDto
 *
 * @typedef {'site' | 'documents'} Corpus  the site's index, or the visitor's own files
 * @typedef {{ glue: string, wasm: string }} Bundle  an engine build: its glue module and wasm
 * @typedef {{ single: Bundle, sharded: Bundle | null, documents: Bundle | null }} Bundles  the
 *   engine for every site, the one that also reads a sharded index, and the one that indexes a
 *   visitor's files (null where the widget's files lack it)
 *
 * @typedef {{
 *   init: { payload: Bundles, reply: void },
 *   load: { payload: { index: string }, reply: { vectors: boolean } },
 *   model: { payload: { url: string }, reply: void },
 *   documents: { payload: { names: string[], texts: string[], lang: string }, reply: void },
 *   forget: { payload: {}, reply: void },
 *   ask: { payload: { corpus: Corpus, question: string, context: TurnContextDto | null, scope?: string | null }, reply: AnswerDto },
 *   search: { payload: { corpus: Corpus, query: string, scope?: string | null }, reply: SearchDto },
 *   info: { payload: {}, reply: IndexInfoDto },
 *   verifyQuote: { payload: { fragment: number, text: string }, reply: VerifiedQuoteDto | null },
 * }} Requests
 *   init: where the engines are; load: fetch the site's index (or a sharded index's manifest)
 *   and start the engine that reads it; model: add
 *   the query model (matching by meaning); documents: index a visitor's files in memory (a
 *   refusal keeps the previous ones); forget: drop them; ask: a question to either corpus, a
 *   follow-up when it carries the context of the thread's previous answer (for a sharded index,
 *   after fetching the shards it needs; shards that cannot be fetched fail it with
 *   `unavailable`); `scope` (data-scope) limits the site's pages to a part of the site;
 *   search: results for the words typed so far (the last one a prefix), fetching shards as ask does;
 *   info: the site index's version and corpus hash; verifyQuote: re-check a model's quote
 *   against the site index (summary.js).
 *
 * @typedef {keyof Requests} Kind
 * @typedef {<K extends Kind>(kind: K, payload: Requests[K]['payload']) => Promise<Requests[K]['reply']>} Call
 * @typedef {{ [K in Kind]: (payload: Requests[K]['payload']) => Requests[K]['reply'] | Promise<Requests[K]['reply']> }} Handlers
 * @typedef {{ name: string, message: string, refusal?: RefusalDto, unavailable?: string[] }} ErrorInfo
 *   `unavailable`: the index shards a question needed and could not fetch (offline)
 * @typedef {Error & { refusal?: RefusalDto, unavailable?: string[] }} EngineError  a failed request, as the page sees it
 * @typedef {{ id: number, ok: true, value: unknown } | { id: number, ok: false, error: ErrorInfo }} Reply
 */

/**
 * The page's end. Every call resolves with the worker's reply or rejects with an EngineError;
 * a worker that cannot start (missing file, blocked by worker-src) fails every pending call
 * with `cannotStart()`.
 * @param {Worker} worker
 * @param {() => Error} cannotStart
 * @returns {Call}
 */
export function connect(worker, cannotStart) {
  /** @type {Map<number, { ok: (value: any) => void, fail: (err: Error) => void }>} */
  const pending = new Map();
  let next = 0;
  worker.onmessage = (/** @type {MessageEvent<Reply>} */ { data }) => {
    const call = pending.get(data.id);
    pending.delete(data.id);
    if (data.ok) call?.ok(data.value);
    else call?.fail(Object.assign(new Error(data.error.message), data.error));
  };
  worker.onerror = (event) => {
    event.preventDefault();
    for (const { fail } of pending.values()) fail(cannotStart());
    pending.clear();
  };
  return (kind, payload) => new Promise((ok, fail) => {
    pending.set(++next, { ok, fail });
    worker.postMessage({ id: next, kind, payload });
  });
}

/**
 * The worker's end: answers each request with its handler's value, or with the error it threw
 * (its name, message and, for refused files, the refusal as data).
 * @param {Handlers} handlers
 */
export function serve(handlers) {
  self.onmessage = async (/** @type {MessageEvent<{ id: number, kind: Kind, payload: any }>} */ { data: { id, kind, payload } }) => {
    /** @type {Reply} */
    let reply;
    try {
      if (!Object.hasOwn(handlers, kind)) throw new Error(`unknown request ${kind}`);
      reply = { id, ok: true, value: await handlers[kind](payload) };
    } catch (err) {
      const { name = 'Error', message = String(err), refusal, unavailable } = /** @type {EngineError} */ (err ?? {});
      reply = { id, ok: false, error: { name, message, ...(refusal && { refusal }), ...(unavailable && { unavailable }) } };
    }
    self.postMessage(reply);
  };
}
