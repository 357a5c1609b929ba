//! The proxy's HTTP shapes: what the browser sends and what it gets back.

use serde::{Deserialize, Serialize};

/// `POST /v1/summary`. Fragment ids and the index identity only: the proxy never takes passage
/// text from a client, so it cannot be used as an open relay to the model.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AskRequest {
    /// `onrecord_core::FORMAT_VERSION` of the browser's index.
    pub index_version: u32,
    /// The browser's index corpus hash, 64 lowercase hex digits (`engine.info().corpusHash`).
    pub corpus_hash: String,
    /// The visitor's question, 3–500 characters.
    pub question: String,
    /// The fragments the extractive answer retrieved, which the model may quote.
    pub fragments: Vec<u32>,
}

/// The validated result. Every claim is a byte range of a fragment the browser sent, checked
/// here and again in the browser; `text` is that fragment's own bytes, never the model's.
/// The model's own wording is deliberately absent: it is shown only while streaming, marked
/// provisional, and this result replaces it, so nothing the model wrote stays on screen unless
/// it is a verbatim quote.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SummaryDto {
    /// `"answer"` when at least one quote verified, else `"not-found"`.
    pub mode: &'static str,
    /// Why it declined, for a `"not-found"`: `model-declined`, `no-verified-quote`,
    /// `model-output-invalid`, `model-output-cut`.
    pub reason: Option<&'static str>,
    /// The verified quotes.
    pub claims: Vec<ClaimDto>,
    /// How many of the model's quotes failed verification or cited a fragment not sent.
    pub dropped: usize,
    /// Served from the cache.
    pub cached: bool,
}

/// One verified quote.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClaimDto {
    /// The fragment id.
    pub fragment: u32,
    /// Byte offsets into the fragment text.
    pub start: u32,
    /// Byte offsets into the fragment text.
    pub end: u32,
    /// `fragment.text[start..end]`.
    pub text: String,
    /// Document title.
    pub title: String,
    /// Heading path, joined with " › ".
    pub section: String,
    /// The page URL with the heading anchor.
    pub url: String,
}

/// Every error response: a fixed message that never contains upstream text, URLs or keys.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorDto<'a> {
    pub(crate) error: &'a str,
}

/// The provisional SSE event: the model's answer so far, unchecked, shown only until the
/// validated result arrives.
#[derive(Debug, Serialize)]
pub(crate) struct ProvisionalDto<'a> {
    pub(crate) text: &'a str,
}
