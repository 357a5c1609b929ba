// Browser benchmark: read the query model, load each benchmark index, ask the same questions
// repeatedly, report the median and 95th percentile per size as JSON in #out (read by
// tests/e2e/bench.mjs).
const QUESTIONS = [
  'How do I run the test suite?', 'What is the query system?', 'How does incremental compilation work?',
  'Where is the borrow checker implemented?', 'How do I build the compiler from source?', 'What is MIR?',
  'How are diagnostics emitted?', 'What does the trait solver do?', 'How do I add a new feature gate?',
  'How does name resolution work?', 'What is the HIR?', 'How do I debug the compiler?', 'What is a lang item?',
  'How does monomorphization work?', 'How are lints implemented?', 'What is x.py?',
  'How do I profile the compiler?', 'How does type inference work?', 'What are opaque types?',
  'How do I write a UI test?',
];
const ROUNDS = 10;

const out = /** @type {HTMLElement} */ (document.getElementById('out'));
const bytes = async (/** @type {string} */ url) => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
};
try {
  const wasm = await import('./dist/pkg/onrecord_wasm.js');
  await wasm.default();
  /** @type {Record<string, any>} */
  const results = {};
  // Reading the query model on its own (its bytes already fetched), as the widget's worker does
  // after the first answer: a question asked meanwhile waits for it.
  const modelBytes = await bytes('dist/bench/query-model.onq').catch(() => null);
  if (modelBytes) {
    /** @type {number[]} */
    const reads = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      new wasm.QueryModel(modelBytes).free();
      reads.push(performance.now() - t);
    }
    reads.sort((a, b) => a - b);
    results.query_model = { bytes: modelBytes.length, n: reads.length, p50_ms: reads[2], max_ms: reads[4] };
  }
  let model = null;
  for (const size of ['1k', '10k', '100k']) {
    let t = performance.now();
    const engine = new wasm.Engine(await bytes(`dist/bench/index-${size}.onr`));
    const loadMs = performance.now() - t;
    /** @type {[string, boolean][]} */
    const modes = [['lexical', false]];
    if (engine.hasVectors()) modes.push(['hybrid', true]);
    results[size] = { fragments: engine.info().fragments, load_ms: loadMs };
    for (const [name, withModel] of modes) {
      if (withModel) {
        model = new wasm.QueryModel(modelBytes ?? await bytes('dist/bench/query-model.onq'));
        engine.setQueryModel(model);
      }
      /** @type {number[]} */
      const times = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (const q of QUESTIONS) {
          t = performance.now();
          engine.ask(q);
          times.push(performance.now() - t);
        }
      }
      times.sort((a, b) => a - b);
      const at = (/** @type {number} */ p) => times[Math.round((times.length - 1) * p)];
      results[size][name] = { n: times.length, p50_ms: at(0.5), p95_ms: at(0.95) };
    }
    engine.free();
  }
  out.textContent = JSON.stringify(results, null, 2);
  out.dataset.done = 'yes';
} catch (err) {
  out.textContent = `benchmark failed: ${err instanceof Error ? err.message : err}`;
  out.dataset.done = 'failed';
}
