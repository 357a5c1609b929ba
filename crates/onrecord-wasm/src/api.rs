//! Serde DTOs at the JavaScript boundary, converted from core types.

use onrecord_core::{
    Answer, Citation, Decline, MAX_QUESTION_CHARS, Mode, QuestionError, Quote, Section,
};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
export interface AnswerDto {
  mode: "answer" | "related-material" | "not-found";
  /** For an answer: a private note also bears on it. */
  supported: boolean;
  /** For an answer, from the evidence alone; null for a decline. */
  confidence: "high" | "medium" | "low" | null;
  quotes: QuoteDto[];
  /** Other matching sections under an answer; empty for a decline. */
  related: SectionDto[];
  /** Where private notes that bear on the question live (never their text). */
  hints: HintDto[];
  decline: DeclineDto | null;
  missingTerms: string[];
}
export interface QuoteDto {
  text: string; fragment: number; start: number; end: number; citation: CitationDto;
  /** UTF-16 offsets into `text` of the question's words. */
  highlights: { start: number; end: number }[];
}
export interface SectionDto { fragment: number; title: string; section: string; url: string; }
export interface HintDto { label: string; url: string; locator: string; }
export interface CitationDto { title: string; section: string; url: string; textFragmentUrl: string; fragmentNo: number; fragmentCount: number; }
export interface DeclineDto { gate: "bad-question" | "no-content-words" | "never-mentioned" | "below-floor" | "unsupported"; message: string; terms: string[]; }
export interface VerifiedQuoteDto { start: number; end: number; text: string; }
export interface IndexInfoDto { documents: number; fragments: number; terms: number; corpusHash: string; formatVersion: number; }
"#;

/// The reply to a question, as the widget renders it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AnswerDto {
    mode: &'static str,
    supported: bool,
    confidence: Option<&'static str>,
    quotes: Vec<QuoteDto>,
    related: Vec<SectionDto>,
    hints: Vec<HintDto>,
    decline: Option<DeclineDto>,
    missing_terms: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HintDto {
    label: String,
    url: String,
    locator: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QuoteDto {
    text: String,
    fragment: u32,
    start: u32,
    end: u32,
    citation: CitationDto,
    highlights: Vec<SpanDto>,
}

/// A range in UTF-16 code units, as JavaScript strings index.
#[derive(Serialize)]
struct SpanDto {
    start: usize,
    end: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SectionDto {
    fragment: u32,
    title: String,
    section: String,
    url: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CitationDto {
    title: String,
    section: String,
    url: String,
    text_fragment_url: String,
    fragment_no: u32,
    fragment_count: u32,
}

/// Which gate declined, and a sentence a person can read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeclineDto {
    gate: &'static str,
    message: String,
    terms: Vec<String>,
}

/// What the loaded index holds.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexInfoDto {
    pub(crate) documents: usize,
    pub(crate) fragments: usize,
    pub(crate) terms: usize,
    pub(crate) corpus_hash: String,
    /// The index format version, which the proxy checks along with the corpus hash.
    pub(crate) format_version: u32,
}

/// A quote found in a fragment: byte offsets and the fragment's own text there.
#[derive(Serialize)]
pub(crate) struct VerifiedQuoteDto {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
}

impl From<Answer> for AnswerDto {
    fn from(a: Answer) -> AnswerDto {
        AnswerDto {
            mode: match a.mode {
                Mode::Answer => "answer",
                Mode::RelatedMaterial => "related-material",
                _ => "not-found",
            },
            supported: a.supported,
            confidence: a.confidence.map(|c| c.label()),
            quotes: a.quotes.into_iter().map(QuoteDto::from).collect(),
            related: a
                .related
                .into_iter()
                .map(|Section { fragment, citation }| SectionDto {
                    fragment,
                    title: citation.title,
                    section: citation.section,
                    url: citation.url,
                })
                .collect(),
            hints: a
                .hints
                .into_iter()
                .map(|h| HintDto {
                    label: h.label,
                    url: h.url,
                    locator: h.locator,
                })
                .collect(),
            decline: a.decline.map(DeclineDto::from),
            missing_terms: a.missing_terms,
        }
    }
}

impl From<Quote> for QuoteDto {
    fn from(q: Quote) -> QuoteDto {
        // Byte offsets become UTF-16 offsets: count the code units before each boundary.
        let utf16 = |byte: u32| -> usize {
            q.text
                .get(..byte as usize)
                .map_or(0, |prefix| prefix.encode_utf16().count())
        };
        let highlights = q
            .highlights
            .iter()
            .map(|&(s, e)| SpanDto {
                start: utf16(s),
                end: utf16(e),
            })
            .collect();
        QuoteDto {
            highlights,
            text: q.text,
            fragment: q.fragment,
            start: q.start,
            end: q.end,
            citation: q.citation.into(),
        }
    }
}

impl From<Citation> for CitationDto {
    fn from(c: Citation) -> CitationDto {
        CitationDto {
            title: c.title,
            section: c.section,
            url: c.url,
            text_fragment_url: c.text_fragment_url,
            fragment_no: c.fragment_no,
            fragment_count: c.fragment_count,
        }
    }
}

impl From<Decline> for DeclineDto {
    fn from(d: Decline) -> DeclineDto {
        match d {
            Decline::BadQuestion(why) => DeclineDto {
                gate: "bad-question",
                message: match why {
                    QuestionError::TooLong { chars } => format!(
                        "Questions can be at most {MAX_QUESTION_CHARS} characters long; this one has {chars}."
                    ),
                    _ => "The question holds control characters; please type it again.".into(),
                },
                terms: Vec::new(),
            },
            Decline::NoContentWords => DeclineDto {
                gate: "no-content-words",
                message: "Ask a question with some words these pages could contain.".into(),
                terms: Vec::new(),
            },
            Decline::NeverMentioned { terms } => DeclineDto {
                gate: "never-mentioned",
                message: format!("These pages never mention {}.", quoted_list(&terms)),
                terms,
            },
            Decline::BelowFloor { coverage, .. } => DeclineDto {
                gate: "below-floor",
                message: format!(
                    "The closest passage covers only {}% of what you asked, so it is not quoted as an answer.",
                    percent(coverage)
                ),
                terms: Vec::new(),
            },
            Decline::Unsupported { coverage, .. } => DeclineDto {
                gate: "unsupported",
                message: format!(
                    "The closest sentence carries only {}% of what you asked, so it is not quoted as an answer.",
                    percent(coverage)
                ),
                terms: Vec::new(),
            },
            _ => DeclineDto {
                gate: "other",
                message: "These pages do not answer that.".into(),
                terms: Vec::new(),
            },
        }
    }
}

/// A share as a whole percentage, rounded as `{:.0}` would (ties to even) but without pulling
/// float formatting into the wasm module (about 6 KB gzipped).
fn percent(share: f32) -> u32 {
    (share * 100.0).round_ties_even() as u32
}

fn quoted_list(terms: &[String]) -> String {
    let quoted: Vec<String> = terms.iter().map(|t| format!("‘{t}’")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
