// onrecord engine worker: the wasm engine runs here, off the page's main thread, so decoding a
// large index (577 ms at 100k fragments in Chromium) never freezes the page. The loader
// (onrecord.js) sends { id, op, ...args } and gets back { id, result } or { id, error, name }.
//   init {glue, wasm}           compile the module (once)
//   load {index}                fetch and decode the site's index → { vectors }
//   model {url}                 add the query model (matching by meaning)
//   documents {names, texts, lang}   index a visitor's files in memory
//   forget                      drop the visitor's files
//   ask {which, question}       'site' or 'local' → AnswerDto
//   info                        the site index's IndexInfoDto (version, corpus hash)
//   verifyQuote {fragment, text}   re-check a model's quote against the site index (summary.js)
let wasm = null;
let site = null;
let local = null;

const ops = {
  async init({ glue, wasm: module }) {
    if (wasm) return;
    const loaded = await import(glue);
    await loaded.default({ module_or_path: module });
    wasm = loaded;
  },
  async load({ index }) {
    site = await wasm.loadEngine(index);
    return { vectors: site.hasVectors() };
  },
  async model({ url }) {
    site.setQueryModel(await wasm.loadQueryModel(url));
  },
  documents({ names, texts, lang }) {
    local?.free();
    local = null;
    local = wasm.Engine.fromDocuments(names, texts, lang);
  },
  forget() {
    local?.free();
    local = null;
  },
  info() {
    return site.info();
  },
  verifyQuote({ fragment, text }) {
    return site.verifyQuote(fragment, text);
  },
  ask({ which, question }) {
    const engine = which === 'local' ? local : site;
    if (!engine) throw new Error(`no ${which === 'local' ? 'documents' : 'index'} loaded`);
    return engine.ask(question);
  },
};

self.onmessage = async ({ data: { id, op, ...args } }) => {
  try {
    self.postMessage({ id, result: await ops[op](args) });
  } catch (err) {
    self.postMessage({ id, error: (err && err.message) || String(err), name: err?.name ?? 'Error' });
  }
};
