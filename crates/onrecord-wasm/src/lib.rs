//! onrecord-wasm: the browser adapter. One opaque [`Engine`] handle, one export per user action.
//!
//! Each export decodes its input, makes one core call and encodes the output; all decisions
//! live in `onrecord-core`. `loadEngine` and `loadQueryModel` (the default `fetch` feature)
//! fetch with gloo-net, which works in the page and in a Web Worker alike; the widget's worker
//! (`www/onrecord-worker.js`) fetches for itself and never calls them.
//!
//! With the `sharded` feature (a second bundle, `www/dist/pkg-sharded`, which the worker loads
//! only for a sharded site) the engine also reads a manifest and takes the shards a question
//! names (`Engine.fromManifest`, `needed`, `addShard`); the default bundle stays without that
//! code (~11 KB gzipped, measured). The sharded bundle is built without `fetch`: only the
//! worker loads it.
//!
//! With the `documents` feature (a third bundle, `www/dist/pkg-documents`, which the worker
//! loads only when a visitor drops files) the engine also indexes a visitor's own files
//! (`Engine.fromDocuments`); the other bundles stay without the indexer (~13.5 KB gzipped,
//! measured), so a site's first answer does not download it.

mod api;
#[cfg(feature = "documents")]
mod documents;

// Talc instead of the default dlmalloc: 7 KB smaller raw and 2.5 KB gzipped (measured), and
// no slower.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(feature = "fetch")]
use gloo_net::http::Request;
use onrecord_core::{
    AnswerConfig, FORMAT_VERSION, Index, MAX_CONTEXT_FRAGMENTS, QueryModel as CoreQueryModel,
    Scope, TurnContext, ask_turn_in, model_fits, search_sections_in,
};
use wasm_bindgen::prelude::*;

use crate::api::{AnswerDto, IndexInfoDto, SearchDto, VerifiedQuoteDto};

/// A loaded index, ready to answer questions.
#[wasm_bindgen]
pub struct Engine {
    store: Store,
    model: Option<CoreQueryModel>,
}

/// The index an engine answers from: one file, or a manifest with the shards fetched so far.
enum Store {
    Whole(Index),
    #[cfg(feature = "sharded")]
    Sharded(onrecord_core::ShardedIndex),
}

impl Engine {
    fn index(&self) -> &Index {
        match &self.store {
            Store::Whole(index) => index,
            #[cfg(feature = "sharded")]
            Store::Sharded(sharded) => sharded.index(),
        }
    }

    pub(crate) fn whole(index: Index) -> Engine {
        Engine {
            store: Store::Whole(index),
            model: None,
        }
    }
}

/// A loaded query-embedding model, to hand to [`Engine::set_query_model`].
#[wasm_bindgen]
pub struct QueryModel {
    inner: CoreQueryModel,
}

#[wasm_bindgen]
impl QueryModel {
    /// Reads a query-model file; corrupt or foreign bytes give an error.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<QueryModel, JsError> {
        let inner = CoreQueryModel::from_bytes(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(QueryModel { inner })
    }
}

#[wasm_bindgen]
impl Engine {
    /// Builds an engine from index bytes; corrupt, truncated or foreign bytes give an error.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<Engine, JsError> {
        let index = Index::from_bytes(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Engine::whole(index))
    }

    /// Answers a question: quotes with citations, or a decline that says why. `context` is the
    /// `context` of the previous answer in the thread (or nothing): the question is read as a
    /// follow-up of it. A context that is not a `TurnContextDto` is ignored, never an error.
    /// `scope` (a widget's `data-scope`: a path prefix such as `/v2/`, or a collection name)
    /// answers from that part of the site only.
    #[wasm_bindgen(unchecked_return_type = "AnswerDto")]
    pub fn ask(
        &self,
        question: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "TurnContextDto | null")] context: Option<
            JsValue,
        >,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] scope: Option<String>,
    ) -> Result<JsValue, JsError> {
        let index = self.index();
        to_js(&AnswerDto::from(ask_turn_in(
            index,
            self.model.as_ref(),
            question,
            context.and_then(|c| turn_context(&c)).as_ref(),
            scope.map(|s| Scope::part(index, &s)).as_ref(),
            &AnswerConfig::DEFAULT,
        )))
    }

    /// Results for the words typed so far (the last one read as a prefix): sections with
    /// their best-matching words, lexical, cheap enough for every keystroke. Never an answer.
    /// `scope` as for [`Engine::ask`].
    #[wasm_bindgen(unchecked_return_type = "SearchDto")]
    pub fn search(
        &self,
        query: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] scope: Option<String>,
    ) -> Result<JsValue, JsError> {
        let index = self.index();
        to_js(&SearchDto::from(search_sections_in(
            index,
            self.model.as_ref(),
            query,
            scope.map(|s| Scope::part(index, &s)).as_ref(),
        )))
    }

    /// Whether the index has fragment vectors (then a query model can improve retrieval).
    #[wasm_bindgen(js_name = hasVectors)]
    pub fn has_vectors(&self) -> bool {
        self.index().vector_space().is_some()
    }

    /// Adds the query model, after which questions are also matched by meaning. Refused when
    /// the model is not the one the index was built for.
    #[wasm_bindgen(js_name = setQueryModel)]
    pub fn set_query_model(&mut self, model: QueryModel) -> Result<(), JsError> {
        if !model_fits(self.index(), &model.inner) {
            return Err(JsError::new(
                "query model does not match this index; rebuild both together",
            ));
        }
        self.model = Some(model.inner);
        Ok(())
    }

    /// Checks a quote that something else (the model, via the proxy) attributes to a fragment:
    /// `{start, end, text}` with the fragment's own bytes at those offsets, or `null` when the
    /// quote is not in that fragment or the fragment does not exist.
    #[wasm_bindgen(js_name = verifyQuote, unchecked_return_type = "VerifiedQuoteDto | null")]
    pub fn verify_quote(&self, fragment: u32, text: &str) -> Result<JsValue, JsError> {
        let Some(frag) = self.index().fragment(fragment) else {
            return Ok(JsValue::NULL);
        };
        match onrecord_core::verify_quote(&frag.text, text) {
            Some(range) => to_js(&VerifiedQuoteDto {
                start: range.start,
                end: range.end,
                text: frag.text.get(range).unwrap_or_default().to_string(),
            }),
            None => Ok(JsValue::NULL),
        }
    }

    /// Counts and the corpus hash of the loaded index.
    #[wasm_bindgen(unchecked_return_type = "IndexInfoDto")]
    pub fn info(&self) -> Result<JsValue, JsError> {
        let index = self.index();
        let hash = onrecord_core::hex(&index.corpus_hash);
        to_js(&IndexInfoDto {
            documents: index.docs.len(),
            fragments: index.fragment_count() as usize,
            // For a sharded index: the terms of the shards fetched so far.
            terms: index.terms.len(),
            corpus_hash: hash,
            format_version: FORMAT_VERSION,
        })
    }
}

/// A sharded index: the worker asks, fetches the shards `needed` names, adds them and asks
/// again until nothing is needed (then the answer is the whole index's).
#[cfg(feature = "sharded")]
#[wasm_bindgen]
impl Engine {
    /// Builds an engine from a sharded index's manifest; corrupt, truncated or foreign bytes
    /// give an error naming the manifest.
    #[wasm_bindgen(js_name = fromManifest)]
    pub fn from_manifest(bytes: &[u8]) -> Result<Engine, JsError> {
        let sharded = onrecord_core::ShardedIndex::from_manifest(bytes)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Engine {
            store: Store::Sharded(sharded),
            model: None,
        })
    }

    /// The file names of the shards the reads since the last call needed and did not have
    /// (empty for a whole index, and once a question's shards are all added).
    pub fn needed(&self) -> Vec<String> {
        match &self.store {
            Store::Sharded(sharded) => sharded.needed(),
            Store::Whole(_) => Vec::new(),
        }
    }

    /// Takes a fetched shard by its file name. A shard that is cut off, corrupt, of another
    /// format version or build, or not the one the manifest lists gives an error naming it.
    #[wasm_bindgen(js_name = addShard)]
    pub fn add_shard(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsError> {
        match &mut self.store {
            Store::Sharded(sharded) => sharded
                .add_shard(name, bytes)
                .map_err(|e| JsError::new(&e.to_string())),
            Store::Whole(_) => Err(JsError::new(&format!(
                "index shard {name}: this index is one file and has no shards"
            ))),
        }
    }
}

/// Fetches an index over HTTP and builds an engine from it.
#[cfg(feature = "fetch")]
#[wasm_bindgen(js_name = loadEngine)]
pub async fn load_engine(url: String) -> Result<Engine, JsError> {
    Engine::new(&fetch(&url, "search index").await?)
}

/// Fetches a query model over HTTP.
#[cfg(feature = "fetch")]
#[wasm_bindgen(js_name = loadQueryModel)]
pub async fn load_query_model(url: String) -> Result<QueryModel, JsError> {
    QueryModel::new(&fetch(&url, "query model").await?)
}

#[cfg(feature = "fetch")]
async fn fetch(url: &str, what: &str) -> Result<Vec<u8>, JsError> {
    let response = Request::get(url)
        .send()
        .await
        .map_err(|e| JsError::new(&format!("could not fetch the {what} {url}: {e}")))?;
    if !response.ok() {
        return Err(JsError::new(&format!(
            "could not fetch the {what} {url}: HTTP {} {}",
            response.status(),
            response.status_text()
        )));
    }
    response
        .binary()
        .await
        .map_err(|e| JsError::new(&format!("could not read the {what} {url}: {e}")))
}

#[wasm_bindgen]
extern "C" {
    // Catching, unlike `js_sys::Array::is_array`: it throws on a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
}

/// The turn context the widget echoed, if it has the shape of a `TurnContextDto`: any field of
/// another type (or too many fragments to be one) makes it no context at all. The core checks
/// the rest (version, index, sizes).
///
/// Every read is a catching call (`Reflect.get`, `Array.isArray`): a getter or a Proxy trap
/// that throws makes the context unreadable, hence none. An exception unwinding through wasm
/// would leave the engine borrowed and, call after call, the module's stack spent.
fn turn_context(value: &JsValue) -> Option<TurnContext> {
    let get = |from: &JsValue, key: &str| js_sys::Reflect::get(from, &JsValue::from_str(key)).ok();
    let whole = |v: JsValue| {
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(n))
    };
    if !value.is_object() {
        return None;
    }
    let fragments = get(value, "fragments").filter(|v| matches!(is_array(v), Ok(true)))?;
    // The length is read once, and bounded before any element is.
    let n = whole(get(&fragments, "length")?)? as u32;
    if n as usize > MAX_CONTEXT_FRAGMENTS {
        return None;
    }
    Some(TurnContext {
        version: whole(get(value, "version")?)? as u32,
        index: get(value, "index")?.as_string()?,
        question: get(value, "question")?.as_string()?,
        fragments: (0..n)
            .map(|i| whole(js_sys::Reflect::get_u32(&fragments, i).ok()?).map(|n| n as u32))
            .collect::<Option<_>>()?,
    })
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}
