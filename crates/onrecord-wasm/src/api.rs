//! Serde DTOs at the JavaScript boundary, converted from core types.
//!
//! They carry kinds, terms and numbers, never sentences: every sentence a visitor reads is
//! built in `www/onrecord/messages.js`, in the widget's language.

use onrecord_core::{
    Citation, Collection, Correction, Decline, Mode, QuestionError, Quote, Reply, Search, Section,
    SectionHit,
};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
export interface AnswerDto {
  mode: "answer" | "related-material" | "not-found";
  /** For an answer: the quotes carry the whole question ("supported"), or not ("partial"). */
  completeness: "supported" | "partial" | null;
  /** For a partial answer: the words of the question no quoted page has. */
  incomplete: string[];
  /** For an answer: how often answers so labelled were right on corpora nobody tuned on. */
  confidence: "high" | "medium" | "low" | null;
  quotes: QuoteDto[];
  /** Where private notes that bear on the question live (never their text). */
  hints: HintDto[];
  decline: DeclineDto | null;
  missingTerms: string[];
  /** How the question was read: as typed (standalone, new-subject) or in the light of the
   *  previous turn, and the question as executed ("Read as: …"). */
  turn: { kind: "standalone" | "new-subject" | "refinement" | "explanation" | "pronoun"; question: string };
  /** Echo it with the next question of the thread (`engine.ask(question, context)`). */
  context: TurnContextDto;
  /** Sections next to the quoted ones, for suggested next questions. */
  explore: SectionDto[];
  /** Matching sections, best first, grouped by page: shown under the answer or the decline,
   *  never as an answer (empty when the pages never use the question's subject). */
  results: ResultDto[];
  /** Words of the question read as the site's nearest words ("Showing results for …"). */
  corrections: CorrectionDto[];
}
/** A section shown as a result: where it is and its best-matching words. */
export interface ResultDto {
  fragment: number; title: string; section: string; url: string; collection: CollectionDto | null;
  /** A verbatim slice of the section. */
  excerpt: string;
  /** UTF-16 offsets into `excerpt` of the question's words. */
  highlights: { start: number; end: number }[];
}
export interface CorrectionDto { from: string; to: string; }
/** What `Engine.search` finds for the words typed so far. */
export interface SearchDto { results: ResultDto[]; corrections: CorrectionDto[]; }
/** The previous turn as executed: never answer text. */
export interface TurnContextDto { version: number; index: string; question: string; fragments: number[]; }
/** A page's collection: a built-in name (guides, decisions, reference, release-notes) or the
 *  site's own, with the site's label for it ("" when it set none). */
export interface CollectionDto { name: string; label: string; }
export interface QuoteDto {
  text: string; fragment: number; start: number; end: number; citation: CitationDto;
  /** UTF-16 offsets into `text` of the question's words. */
  highlights: { start: number; end: number }[];
  /** For a table row: the table's header row, shown above it. */
  header: string | null;
}
export interface SectionDto { fragment: number; title: string; section: string; url: string; collection: CollectionDto | null; }
export interface HintDto { label: string; url: string; locator: string; }
export interface CitationDto { title: string; section: string; url: string; textFragmentUrl: string; fragmentNo: number; fragmentCount: number; collection: CollectionDto | null; }
export interface DeclineDto {
  gate: "too-long" | "control-characters" | "no-content-words" | "other-language" | "never-mentioned" | "missing" | "below-floor" | "unsupported" | "no-amount" | "other";
  /** For never-mentioned: the words no page uses; for missing: the words the closest passage
   *  lacks (as the question wrote them). */
  terms: string[];
  /** For below-floor and unsupported: the whole percentage of the question the closest passage or sentence carries. */
  coverage: number | null;
  /** For other-language: the language the question reads as (a tag such as "de"). */
  lang: string | null;
}
/** Why a visitor's files were not indexed: the `refusal` of the Error `Engine.fromDocuments` throws. */
export type RefusalDto =
  | { kind: "no-files" }
  | { kind: "too-many-files"; count: number; limit: number }
  | { kind: "too-large"; file: string; bytes: number; limit: number }
  | { kind: "empty"; file: string }
  | { kind: "binary"; file: string }
  | { kind: "no-text"; file: string }
  | { kind: "other" };
export interface VerifiedQuoteDto { start: number; end: number; text: string; }
export interface IndexInfoDto { documents: number; fragments: number; terms: number; corpusHash: string; formatVersion: number; }
"#;

/// The reply to a question, as the widget renders it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AnswerDto {
    mode: &'static str,
    completeness: Option<&'static str>,
    incomplete: Vec<String>,
    confidence: Option<&'static str>,
    quotes: Vec<QuoteDto>,
    hints: Vec<HintDto>,
    decline: Option<DeclineDto>,
    missing_terms: Vec<String>,
    turn: TurnDto,
    context: TurnContextDto,
    explore: Vec<SectionDto>,
    results: Vec<ResultDto>,
    corrections: Vec<CorrectionDto>,
}

/// What a search as the visitor types finds.
#[derive(Serialize)]
pub(crate) struct SearchDto {
    results: Vec<ResultDto>,
    corrections: Vec<CorrectionDto>,
}

impl From<Search> for SearchDto {
    fn from(s: Search) -> SearchDto {
        SearchDto {
            results: s.results.into_iter().map(ResultDto::from).collect(),
            corrections: s.corrections.into_iter().map(CorrectionDto::from).collect(),
        }
    }
}

#[derive(Serialize)]
struct ResultDto {
    fragment: u32,
    title: String,
    section: String,
    url: String,
    collection: Option<CollectionDto>,
    excerpt: String,
    highlights: Vec<SpanDto>,
}

impl From<SectionHit> for ResultDto {
    fn from(hit: SectionHit) -> ResultDto {
        ResultDto {
            highlights: spans(&hit.excerpt, &hit.highlights),
            fragment: hit.fragment,
            title: hit.citation.title,
            section: hit.citation.section,
            url: hit.citation.url,
            collection: hit.citation.collection.map(CollectionDto::from),
            excerpt: hit.excerpt,
        }
    }
}

#[derive(Serialize)]
struct CorrectionDto {
    from: String,
    to: String,
}

impl From<Correction> for CorrectionDto {
    fn from(Correction { from, to }: Correction) -> CorrectionDto {
        CorrectionDto { from, to }
    }
}

#[derive(Serialize)]
struct TurnDto {
    kind: &'static str,
    question: String,
}

#[derive(Serialize)]
struct TurnContextDto {
    version: u32,
    index: String,
    question: String,
    fragments: Vec<u32>,
}

#[derive(Serialize)]
struct CollectionDto {
    name: String,
    label: String,
}

impl From<Collection> for CollectionDto {
    fn from(c: Collection) -> CollectionDto {
        CollectionDto {
            name: c.name,
            label: c.label,
        }
    }
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
    header: Option<String>,
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
    collection: Option<CollectionDto>,
}

impl From<Section> for SectionDto {
    fn from(Section { fragment, citation }: Section) -> SectionDto {
        SectionDto {
            fragment,
            title: citation.title,
            section: citation.section,
            url: citation.url,
            collection: citation.collection.map(CollectionDto::from),
        }
    }
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
    collection: Option<CollectionDto>,
}

/// Which gate declined, with what the widget needs to say why.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeclineDto {
    gate: &'static str,
    terms: Vec<String>,
    /// A whole percentage, for the gates that measure coverage.
    coverage: Option<u32>,
    /// The language tag, for other-language.
    lang: Option<&'static str>,
}

/// Why a visitor's files were refused, naming the file. Built with `Reflect` rather than serde:
/// serde's serializer for this one cold path cost 320 bytes of the gzipped module (measured),
/// which is within 300 bytes of its budget. Only the `documents` bundle indexes files.
#[cfg(feature = "documents")]
pub(crate) struct RefusalDto<'a> {
    kind: &'static str,
    file: Option<&'a str>,
    /// `("bytes", n)` or `("count", n)`.
    size: Option<(&'static str, usize)>,
    limit: Option<usize>,
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

impl From<Reply> for AnswerDto {
    fn from(
        Reply {
            answer: a,
            turn,
            context,
            explore,
        }: Reply,
    ) -> AnswerDto {
        AnswerDto {
            mode: match a.mode {
                Mode::Answer => "answer",
                Mode::RelatedMaterial => "related-material",
                _ => "not-found",
            },
            incomplete: match &a.completeness {
                Some(onrecord_core::Completeness::Partial { missing }) => missing.clone(),
                _ => Vec::new(),
            },
            completeness: a.completeness.as_ref().map(|c| c.label()),
            confidence: a.confidence.map(|c| c.label()),
            quotes: a.quotes.into_iter().map(QuoteDto::from).collect(),
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
            turn: TurnDto {
                kind: turn.kind.name(),
                question: turn.question,
            },
            context: TurnContextDto {
                version: context.version,
                index: context.index,
                question: context.question,
                fragments: context.fragments,
            },
            explore: explore.into_iter().map(SectionDto::from).collect(),
            results: a.results.into_iter().map(ResultDto::from).collect(),
            corrections: a.corrections.into_iter().map(CorrectionDto::from).collect(),
        }
    }
}

impl From<Quote> for QuoteDto {
    fn from(q: Quote) -> QuoteDto {
        QuoteDto {
            highlights: spans(&q.text, &q.highlights),
            header: q.header,
            text: q.text,
            fragment: q.fragment,
            start: q.start,
            end: q.end,
            citation: q.citation.into(),
        }
    }
}

/// Byte ranges of `text` as UTF-16 ranges: the code units before each boundary.
fn spans(text: &str, ranges: &[(u32, u32)]) -> Vec<SpanDto> {
    let utf16 = |byte: u32| -> usize {
        text.get(..byte as usize)
            .map_or(0, |prefix| prefix.encode_utf16().count())
    };
    ranges
        .iter()
        .map(|&(s, e)| SpanDto {
            start: utf16(s),
            end: utf16(e),
        })
        .collect()
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
            collection: c.collection.map(CollectionDto::from),
        }
    }
}

impl From<Decline> for DeclineDto {
    fn from(d: Decline) -> DeclineDto {
        let mut lang = None;
        let (gate, terms, coverage) = match d {
            Decline::BadQuestion(QuestionError::TooLong { .. }) => ("too-long", Vec::new(), None),
            Decline::BadQuestion(_) => ("control-characters", Vec::new(), None),
            Decline::NoContentWords => ("no-content-words", Vec::new(), None),
            Decline::NeverMentioned { terms } => ("never-mentioned", terms, None),
            Decline::Missing { terms } => ("missing", terms, None),
            Decline::BelowFloor { coverage, .. } => ("below-floor", Vec::new(), Some(coverage)),
            Decline::Unsupported { coverage, .. } => ("unsupported", Vec::new(), Some(coverage)),
            Decline::NoAmount => ("no-amount", Vec::new(), None),
            Decline::OtherLanguage { lang: asked } => {
                lang = Some(asked.tag());
                ("other-language", Vec::new(), None)
            }
            _ => ("other", Vec::new(), None),
        };
        DeclineDto {
            gate,
            terms,
            coverage: coverage.map(percent),
            lang,
        }
    }
}

#[cfg(feature = "documents")]
impl<'a> From<&'a onrecord_core::PlainError> for RefusalDto<'a> {
    fn from(e: &'a onrecord_core::PlainError) -> RefusalDto<'a> {
        let (kind, file, size, limit) = match e {
            onrecord_core::PlainError::NoFiles => ("no-files", None, None, None),
            onrecord_core::PlainError::TooManyFiles { count } => (
                "too-many-files",
                None,
                Some(("count", *count)),
                Some(onrecord_core::MAX_FILES),
            ),
            onrecord_core::PlainError::TooLarge { name, bytes } => (
                "too-large",
                Some(name.as_str()),
                Some(("bytes", *bytes)),
                Some(onrecord_core::MAX_FILE_BYTES),
            ),
            onrecord_core::PlainError::Empty { name } => ("empty", Some(name.as_str()), None, None),
            onrecord_core::PlainError::Binary { name } => {
                ("binary", Some(name.as_str()), None, None)
            }
            onrecord_core::PlainError::NoText { name } => {
                ("no-text", Some(name.as_str()), None, None)
            }
            _ => ("other", None, None, None),
        };
        RefusalDto {
            kind,
            file,
            size,
            limit,
        }
    }
}

#[cfg(feature = "documents")]
impl RefusalDto<'_> {
    /// The `RefusalDto` object of the TypeScript declaration, with only the kind's fields.
    pub(crate) fn to_js(&self) -> wasm_bindgen::JsValue {
        use wasm_bindgen::JsValue;
        let dto = js_sys::Object::new();
        let set = |key: &str, value: JsValue| {
            // Setting a property on a fresh plain object cannot fail.
            let _ = js_sys::Reflect::set(&dto, &JsValue::from_str(key), &value);
        };
        set("kind", JsValue::from_str(self.kind));
        if let Some(file) = self.file {
            set("file", JsValue::from_str(file));
        }
        if let Some((key, n)) = self.size {
            set(key, JsValue::from_f64(n as f64));
        }
        if let Some(limit) = self.limit {
            set("limit", JsValue::from_f64(limit as f64));
        }
        dto.into()
    }
}

/// A share as a whole percentage, rounded as `{:.0}` would (ties to even); the widget formats
/// it, and float formatting stays out of the wasm module (about 6 KB gzipped).
fn percent(share: f32) -> u32 {
    (share * 100.0).round_ties_even() as u32
}
