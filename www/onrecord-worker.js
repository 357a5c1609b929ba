// onrecord engine worker: the wasm engine runs here, off the page's main thread, so decoding a
// large index (577 ms at 100k fragments in Chromium) never freezes the page. It serves the
// requests declared in onrecord/protocol.js; it holds the site's engine and the visitor's files.
import { serve } from './onrecord/protocol.js';

/**
 * @typedef {typeof import('./dist/pkg/onrecord_wasm.js')} Wasm
 * @typedef {import('./dist/pkg/onrecord_wasm.js').Engine} Engine
 */

/** @type {Wasm | null} */
let wasm = null;
/** @type {Engine | null} */
let site = null;
/** @type {Engine | null} */
let documents = null;

const compiled = () => {
  if (!wasm) throw new Error('the engine is not started');
  return wasm;
};
const loaded = () => {
  if (!site) throw new Error('no index loaded');
  return site;
};

serve({
  async init({ glue, wasm: module }) {
    if (wasm) return;
    /** @type {Wasm} */
    const glueModule = await import(glue);
    await glueModule.default({ module_or_path: module });
    wasm = glueModule;
  },
  async load({ index }) {
    site = await compiled().loadEngine(index);
    return { vectors: site.hasVectors() };
  },
  async model({ url }) {
    const model = await compiled().loadQueryModel(url);
    loaded().setQueryModel(model);
  },
  documents({ names, texts, lang }) {
    // Built before the old one is dropped: refused files keep the previous ones askable.
    const next = compiled().Engine.fromDocuments(names, texts, lang);
    documents?.free();
    documents = next;
  },
  forget() {
    documents?.free();
    documents = null;
  },
  info: () => loaded().info(),
  verifyQuote: ({ fragment, text }) => loaded().verifyQuote(fragment, text),
  ask({ corpus, question, context }) {
    const engine = corpus === 'documents' ? documents : site;
    if (!engine) throw new Error(`no ${corpus === 'documents' ? 'documents' : 'index'} loaded`);
    return engine.ask(question, context);
  },
});
