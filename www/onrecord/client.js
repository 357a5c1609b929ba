// The page's side of the engine: one Web Worker per index URL (onrecord-worker.js), started on
// first use. Decoding an index is one synchronous step that took 101 ms at 10k fragments and
// 577 ms at 100k on the main thread; in the worker the page never waits for it.
import { connect } from './protocol.js';

/**
 * @typedef {import('./protocol.js').Call} Call
 * @typedef {import('./protocol.js').AnswerDto} AnswerDto
 * @typedef {import('./protocol.js').SearchDto} SearchDto
 * @typedef {import('./protocol.js').IndexInfoDto} IndexInfoDto
 * @typedef {import('./protocol.js').VerifiedQuoteDto} VerifiedQuoteDto
 * @typedef {import('./protocol.js').TurnContextDto} TurnContextDto
 * @typedef {import('../onrecord.js').Options} Options
 *
 * @typedef {object} SiteEngine  the site's index; summary.js needs info and verifyQuote
 * @property {(question: string, context?: TurnContextDto | null) => Promise<AnswerDto>} ask
 *   a follow-up when `context` is the previous answer's
 * @property {(query: string) => Promise<SearchDto>} search  results for the words typed so far
 * @property {() => Promise<IndexInfoDto>} info
 * @property {(fragment: number, text: string) => Promise<VerifiedQuoteDto | null>} verifyQuote
 *
 * @typedef {object} DocumentsEngine  the visitor's own files, indexed in the worker
 * @property {(question: string, context?: TurnContextDto | null) => Promise<AnswerDto>} ask
 * @property {(query: string) => Promise<SearchDto>} search
 * @property {() => Promise<void>} forget
 */

/** @type {Map<string, Promise<Call>>} */
const workers = new Map();
/** @type {Map<string, Promise<SiteEngine>>} */
const sites = new Map();

/** @param {Options} opts */
function workerFor(opts) {
  let call = workers.get(opts.index);
  if (!call) {
    const { worker: url, glue, wasm, shardedGlue, shardedWasm, documentsGlue, documentsWasm } = opts.assets;
    call = (async () => {
      const started = connect(new Worker(scriptUrl(url), { type: 'module' }),
        () => new Error(`could not start the search worker ${url}`));
      const sharded = shardedGlue && shardedWasm ? { glue: shardedGlue, wasm: shardedWasm } : null;
      const documents = documentsGlue && documentsWasm ? { glue: documentsGlue, wasm: documentsWasm } : null;
      await started('init', { single: { glue, wasm }, sharded, documents });
      return started;
    })();
    workers.set(opts.index, call);
  }
  return call;
}

/**
 * The site's engine, loaded once per index URL and scope (a second scope of the same index,
 * rare, loads it into the same worker again; its questions carry their own). The query model only improves ranking: it is
 * fetched when the browser is idle, and answers stay lexical meanwhile (or for good, if it
 * cannot load); `onMeaning` hears which.
 * @param {Options} opts
 * @param {(state: 'ready' | 'unavailable') => void} onMeaning
 * @returns {Promise<SiteEngine>}
 */
export function siteEngine(opts, onMeaning) {
  const key = `${opts.index} ${opts.scope}`;
  let engine = sites.get(key);
  if (!engine) {
    engine = (async () => {
      const call = await workerFor(opts);
      const { vectors } = await call('load', { index: opts.index });
      // A question asked as the widget opens is answered before the model loads: it would be
      // lexical either way, and fetching, unpacking and reading 600 KB beside it made that
      // answer ~40% slower (tests/e2e budget test on 2 cores: medians 283-403 ms, 228-267 after).
      let asking = Promise.resolve();
      if (vectors) {
        const later = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 200));
        later(() => asking.then(() => call('model', { url: opts.model })).then(() => onMeaning('ready'), (err) => {
          onMeaning('unavailable');
          console.warn('onrecord: matching by meaning is off:', err.message);
        }));
      }
      return {
        ask: (question, context = null) => {
          const answer = call('ask', { corpus: 'site', question, context, scope: opts.scope });
          asking = answer.then(() => {}, () => {});
          return answer;
        },
        search: (query) => call('search', { corpus: 'site', query, scope: opts.scope }),
        info: () => call('info', {}),
        verifyQuote: (fragment, text) => call('verifyQuote', { fragment, text }),
      };
    })();
    sites.set(key, engine);
  }
  return engine;
}

/**
 * Indexes the visitor's files in the worker; rejects with the refusal as data when the engine
 * refuses them (and then the previous files stay askable).
 * @param {Options} opts
 * @param {string[]} names
 * @param {string[]} texts
 * @returns {Promise<DocumentsEngine>}
 */
export async function documentsEngine(opts, names, texts) {
  const call = await workerFor(opts);
  await call('documents', { names, texts, lang: opts.lang });
  return {
    ask: (question, context = null) => call('ask', { corpus: 'documents', question, context }),
    search: (query) => call('search', { corpus: 'documents', query }),
    forget: () => call('forget', {}),
  };
}

/** @type {{ createScriptURL(url: string): string } | undefined} */
let policy;
/** Under Trusted Types, a worker's URL must come from a policy; ours admits this origin only.
 * @param {string} url */
function scriptUrl(url) {
  const tt = /** @type {any} */ (window).trustedTypes;
  if (!tt) return url;
  policy ??= /** @type {{ createScriptURL(url: string): string }} */ (tt.createPolicy('onrecord', {
    createScriptURL: (/** @type {string} */ u) => {
      if (new URL(u).origin !== new URL(import.meta.url).origin) throw new Error(`onrecord: refusing worker URL ${u}`);
      return u;
    },
  }));
  return policy.createScriptURL(url);
}
