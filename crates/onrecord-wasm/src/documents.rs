//! "Your documents": a visitor's own files indexed in memory. Only the `documents` bundle
//! carries this (the indexer is ~13.5 KB of the gzipped module); the worker loads that bundle
//! when files are dropped.

use onrecord_core::{Lang, PlainError, PlainFile, index_documents};
use wasm_bindgen::prelude::*;

use crate::Engine;
use crate::api::RefusalDto;

#[wasm_bindgen]
impl Engine {
    /// Indexes a visitor's own files in memory ("your documents"): `names[i]` is the file name
    /// of `texts[i]`; `lang` is a tag such as `en` (unknown tags fall back to English).
    /// Empty, binary, oversized or too many files give an `Error` whose `refusal` property is a
    /// `RefusalDto` naming the file (the widget words it).
    #[wasm_bindgen(js_name = fromDocuments)]
    pub fn from_documents(
        names: Vec<String>,
        texts: Vec<String>,
        lang: &str,
    ) -> Result<Engine, JsValue> {
        let files: Vec<PlainFile> = names
            .into_iter()
            .zip(texts)
            .map(|(name, text)| PlainFile { name, text })
            .collect();
        let lang = Lang::from_tag(lang).unwrap_or(Lang::English);
        let index = index_documents(&files, lang).map_err(|e| refusal(&e))?;
        Ok(Engine::whole(index))
    }
}

/// An `Error` with the refusal as data in its `refusal` property. The core's own sentence is
/// left out: the widget words refusals itself, and its formatting cost 235 bytes of the
/// gzipped module (measured).
fn refusal(e: &PlainError) -> JsValue {
    let err = js_sys::Error::new("the files were refused (see `refusal`)");
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(
        &err,
        &JsValue::from_str("refusal"),
        &RefusalDto::from(e).to_js(),
    );
    err.into()
}
