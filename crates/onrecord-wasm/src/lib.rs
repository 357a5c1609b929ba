//! onrecord-wasm: the browser adapter. One opaque [`Engine`] handle, one export per user action.
//!
//! Each export decodes its input, makes one core call and encodes the output; all decisions
//! live in `onrecord-core`.

mod api;

use gloo_net::http::Request;
use onrecord_core::{AnswerConfig, Index, ask};
use wasm_bindgen::prelude::*;

use crate::api::{AnswerDto, IndexInfoDto};

/// A loaded index, ready to answer questions.
#[wasm_bindgen]
pub struct Engine {
    index: Index,
}

#[wasm_bindgen]
impl Engine {
    /// Builds an engine from index bytes; corrupt, truncated or foreign bytes give an error.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<Engine, JsError> {
        let index = Index::from_bytes(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Engine { index })
    }

    /// Answers a question: quotes with citations, or a decline that says why.
    #[wasm_bindgen(unchecked_return_type = "AnswerDto")]
    pub fn ask(&self, question: &str) -> Result<JsValue, JsError> {
        to_js(&AnswerDto::from(ask(
            &self.index,
            question,
            &AnswerConfig::DEFAULT,
        )))
    }

    /// Counts and the corpus hash of the loaded index.
    #[wasm_bindgen(unchecked_return_type = "IndexInfoDto")]
    pub fn info(&self) -> Result<JsValue, JsError> {
        let hash: String = self
            .index
            .corpus_hash
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        to_js(&IndexInfoDto {
            documents: self.index.docs.len(),
            fragments: self.index.fragments.len(),
            terms: self.index.terms.len(),
            corpus_hash: hash,
        })
    }
}

/// Fetches an index over HTTP and builds an engine from it.
#[wasm_bindgen(js_name = loadEngine)]
pub async fn load_engine(url: String) -> Result<Engine, JsError> {
    let response = Request::get(&url)
        .send()
        .await
        .map_err(|e| JsError::new(&format!("could not fetch the search index {url}: {e}")))?;
    if !response.ok() {
        return Err(JsError::new(&format!(
            "could not fetch the search index {url}: HTTP {} {}",
            response.status(),
            response.status_text()
        )));
    }
    let bytes = response
        .binary()
        .await
        .map_err(|e| JsError::new(&format!("could not read the search index {url}: {e}")))?;
    Engine::new(&bytes)
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}
