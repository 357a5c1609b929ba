// onrecord engine worker: the wasm engine runs here, off the page's main thread, so decoding a
// large index (577 ms at 100k fragments in Chromium) never freezes the page. It serves the
// requests declared in onrecord/protocol.js; it holds the site's engine and the visitor's files.
//
// A site's index is one file, or (a large site) a manifest whose first bytes are ONRMANIF and
// shards beside it that a question fetches on demand. The worker fetches the index first and
// starts the engine that reads it: the sharded one (dist/pkg-sharded, ~11 KB more gzipped) only
// for a manifest, so the site owner's script tag is the same either way. A visitor's own files
// are indexed by a third bundle (dist/pkg-documents), fetched only when files are dropped, so
// no site's first answer downloads the indexer (~13.5 KB gzipped).
import { serve } from './onrecord/protocol.js';

/**
 * @typedef {typeof import('./dist/pkg-sharded/onrecord_wasm.js')} Wasm  either bundle (the
 *   sharded one adds Engine.fromManifest, needed and addShard)
 * @typedef {import('./dist/pkg-sharded/onrecord_wasm.js').Engine} Engine
 * @typedef {typeof import('./dist/pkg-documents/onrecord_wasm.js')} DocumentsWasm  the bundle
 *   that also indexes a visitor's files (Engine.fromDocuments)
 * @typedef {import('./onrecord/protocol.js').Bundles} Bundles
 */

const MANIFEST_MAGIC = 'ONRMANIF';

/** @type {Bundles | null} */
let bundles = null;
/** @type {Map<string, Promise<Wasm>>} the started engines, by glue URL */
const started = new Map();
/** The site's engine, the bundle it came from and its index URL (shards are named relative to it).
 * @type {{ engine: Engine, wasm: Wasm, url: string } | null} */
let site = null;
/** @type {import('./dist/pkg-documents/onrecord_wasm.js').Engine | null} */
let documents = null;
/** Shard fetches under way, by file name, so questions asked together fetch a shard once. Fetched
 * shards live in the engine for the session (it never names them again); the HTTP cache keeps
 * them across visits (their names are their checksums).
 * @type {Map<string, Promise<Uint8Array>>} */
const fetching = new Map();

/**
 * Starts (once) the engine of a bundle. Its wasm is fetched through fetchBytes: a site serves it
 * gzip-compressed (.wasm.gz, scripts/site.mjs), so a host that does not compress sends ~100 KB,
 * not ~240 KB; one that adds Content-Encoding hands over plain wasm, which is used as it is.
 * @param {{ glue: string, wasm: string }} bundle
 */
function start({ glue, wasm }) {
  let ready = started.get(glue);
  if (!ready) {
    ready = (async () => {
      // The glue's failure is named like the wasm's ("could not fetch the search engine …").
      const module = import(glue).catch((err) => {
        throw new Error(`could not fetch the search engine ${glue}: ${err instanceof Error ? err.message : err}`);
      });
      /** @type {[Wasm, Uint8Array]} */
      const [glueModule, bytes] = await Promise.all([module, fetchBytes(wasm, 'search engine')]);
      try {
        await glueModule.default({ module_or_path: bytes });
      } catch (err) {
        // Not wasm (a damaged or wrong file): name it. A CompileError keeps its name, by which
        // the widget tells a Content Security Policy that refuses WebAssembly.
        const { name, message } = /** @type {Error} */ (err);
        throw Object.assign(new Error(`could not read the search engine ${wasm}: ${message}`), { name });
      }
      return glueModule;
    })();
    ready.catch(() => started.delete(glue));
    started.set(glue, ready);
  }
  return ready;
}

const given = () => {
  if (!bundles) throw new Error('the engine is not started');
  return bundles;
};
const loaded = () => {
  if (!site) throw new Error('no index loaded');
  return site;
};

/**
 * The bytes at `url`, gunzipped when they are gzip (1f 8b): the wasm, the query model and the
 * index files are compressed by the build whatever the host does. Errors name what was fetched and how it failed.
 * @param {string} url @param {string} what
 */
async function fetchBytes(url, what) {
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`could not fetch the ${what} ${url}: ${err instanceof Error ? err.message : err}`);
  }
  if (!response.ok) throw new Error(`could not fetch the ${what} ${url}: HTTP ${response.status} ${response.statusText}`);
  try {
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
    const plain = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(plain).arrayBuffer());
  } catch (err) {
    // Fetched but not readable (a cut or damaged gzip stream): corrupt, not offline.
    throw Object.assign(new Error(`could not read the ${what} ${url}: ${err instanceof Error ? err.message : err}`), { unreadable: true });
  }
}

/** @param {Uint8Array} bytes */
const isManifest = (bytes) => String.fromCharCode(...bytes.subarray(0, 8)) === MANIFEST_MAGIC;

/**
 * Fetches the named shards in parallel and adds them to the site's engine. A shard that does not
 * read (cut off, corrupt, another build) fails the question with the engine's error naming it;
 * shards that cannot be fetched fail it with `unavailable` naming them, after the others are
 * added (so the next question has them).
 * @param {{ engine: Engine, url: string }} site @param {string[]} names
 */
async function addShards({ engine, url }, names) {
  const results = await Promise.allSettled(names.map((name) => {
    let bytes = fetching.get(name);
    if (!bytes) {
      bytes = fetchBytes(new URL(name, url).href, 'index shard');
      fetching.set(name, bytes);
      bytes.finally(() => fetching.delete(name)).catch(() => {});
    }
    return bytes;
  }));
  const unavailable = [];
  let unreadable = null;
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') engine.addShard(names[i], result.value);
    else if (result.reason?.unreadable) unreadable ??= result.reason;
    else unavailable.push(names[i]);
  }
  if (unreadable) throw new Error(unreadable.message);
  if (unavailable.length) {
    const reasons = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []));
    throw Object.assign(new Error(reasons.join('; ')), { unavailable });
  }
}

const mine = () => {
  if (!documents) throw new Error('no documents loaded');
  return documents;
};

/**
 * What `read` gives on the site's engine. A sharded index answers with what it has and names the
 * shards its reads missed: fetch them, add them, read again, until nothing is missed (then the
 * reply is the whole index's). Each round adds at least one shard, so the loop ends; a shard
 * named twice would be a bug.
 * @template T @param {(engine: Engine) => T} read @returns {Promise<T>}
 */
async function whole(read) {
  const current = loaded();
  const added = new Set();
  for (;;) {
    const value = read(current.engine);
    const needed = current.engine.needed?.() ?? [];
    if (!needed.length) return value;
    const again = needed.find((name) => added.has(name));
    if (again) throw new Error(`index shard ${again} was added but is still needed`);
    needed.forEach((name) => added.add(name));
    await addShards(current, needed);
  }
}

serve({
  init(assets) {
    bundles = assets;
  },
  async load({ index }) {
    const bytes = await fetchBytes(index, 'search index');
    const { single, sharded } = given();
    if (isManifest(bytes) && !sharded) {
      throw new Error(`the search index ${index} is sharded, and these widget files have no engine for a sharded index (rebuild them with onrecord build)`);
    }
    const wasm = await start(isManifest(bytes) && sharded ? sharded : single);
    const engine = isManifest(bytes) ? wasm.Engine.fromManifest(bytes) : new wasm.Engine(bytes);
    site = { engine, wasm, url: index };
    return { vectors: engine.hasVectors() };
  },
  async model({ url }) {
    const { engine, wasm } = loaded();
    engine.setQueryModel(new wasm.QueryModel(await fetchBytes(url, 'query model')));
  },
  async documents({ names, texts, lang }) {
    const bundle = given().documents;
    if (!bundle) throw new Error('these widget files have no engine for your documents (rebuild them with onrecord build)');
    const wasm = /** @type {DocumentsWasm} */ (/** @type {unknown} */ (await start(bundle)));
    // Built before the old one is dropped: refused files keep the previous ones askable.
    const next = wasm.Engine.fromDocuments(names, texts, lang);
    documents?.free();
    documents = next;
  },
  forget() {
    documents?.free();
    documents = null;
  },
  info: () => loaded().engine.info(),
  verifyQuote: ({ fragment, text }) => loaded().engine.verifyQuote(fragment, text),
  ask: ({ corpus, question, context, scope }) => (corpus === 'documents'
    ? mine().ask(question, context) : whole((engine) => engine.ask(question, context, scope))),
  search: ({ corpus, query, scope }) => (corpus === 'documents' ? mine().search(query) : whole((engine) => engine.search(query, scope))),
});
