//! The index file format: one set of types for the writer (`build-index`) and the reader (wasm).
//!
//! Layout: a 56-byte header, then a postcard payload.
//!
//! | bytes  | field                                                        |
//! |--------|--------------------------------------------------------------|
//! | 0..8   | magic `ONRINDEX`                                             |
//! | 8..12  | format version, u32 little-endian                           |
//! | 12..44 | corpus hash (SHA-256 of the inputs, computed by the writer)  |
//! | 44..52 | payload length, u64 little-endian                           |
//! | 52..56 | CRC-32 of bytes 0..52 followed by the payload                |
//!
//! Postcard writes no field names, so these struct definitions *are* the format:
//! any change to them must bump [`FORMAT_VERSION`] and add a golden file in `tests/data/`.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::collection::Collection;
use crate::source::PageKind;
use crate::text::Lang;

/// The first eight bytes of every index file.
pub const MAGIC: [u8; 8] = *b"ONRINDEX";
/// The format version this build writes and reads. 7: fragments mark their code units.
pub const FORMAT_VERSION: u32 = 7;
/// Length of the fixed header before the payload.
pub const HEADER_LEN: usize = 56;

/// A searchable index: documents, fragments with their quotable text, and BM25 postings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// Hash of the corpus and settings this index was built from (stored in the header).
    #[serde(skip)]
    pub corpus_hash: [u8; 32],
    /// Language assumed for pages that do not name one.
    pub default_lang: Lang,
    /// How the index was built; the query side must analyse words the same way.
    pub settings: IndexSettings,
    /// Documents, in path order.
    pub docs: Vec<Doc>,
    /// Fragments, grouped by document, in document order.
    pub fragments: Vec<Fragment>,
    /// Postings sorted by term, each term once.
    pub terms: Vec<TermPostings>,
    /// Mean number of indexed terms per fragment.
    pub avg_fragment_terms: f32,
    /// Fragment vectors, when the index was built with an embedding model.
    pub vectors: Option<VectorIndex>,
    /// Routing hints to private notes: captions and places, never their prose.
    pub hints: Vec<RoutingHint>,
    /// Postings of the hints' public-safe words (label, locator, keywords), sorted by term;
    /// a posting's first number is an index into `hints`.
    pub hint_terms: Vec<TermPostings>,
    /// Lowercased words that name the site or its author, sorted: a question that names them
    /// means every page, so they are not among its content words.
    pub site_words: Vec<String>,
    /// The collections pages belong to (guides, decisions, …), each with its label and cap.
    pub collections: Vec<Collection>,
    /// For the part of a sharded index fetched so far ([`crate::ShardedIndex`]): which
    /// fragments and term ranges it holds, and what reads missed. `None` for a whole index.
    #[serde(skip)]
    pub sharding: Option<Box<Sharding>>,
}

/// Where a private note's moment lives. The type has no field for prose: only the note's
/// public-safe caption, the public page it belongs to and the place within the private record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutingHint {
    /// The note's title, a public-safe caption.
    pub label: String,
    /// The public page the note belongs to (its `about`).
    pub url: String,
    /// Where the moment lives, e.g. "Meeting minutes, item 4".
    pub locator: String,
}

/// Build settings that queries depend on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IndexSettings {
    /// BM25 parameters used at query time.
    pub bm25: Bm25Params,
    /// Whether terms are stemmed (per page language).
    pub stemming: bool,
    /// Target fragment size in characters.
    pub fragment_chars: u32,
}

impl IndexSettings {
    /// The settings `build-index` uses unless told otherwise.
    pub const STANDARD: IndexSettings = IndexSettings {
        bm25: Bm25Params::DEFAULT,
        stemming: true,
        fragment_chars: crate::chunk::FRAGMENT_CHARS as u32,
    };
}

/// What a sharded index holds so far, beside the manifest's part of [`Index`]. The storage seam
/// (`store.rs`) reads fragments, postings, lengths and vectors through it and notes the shards a
/// read missed.
#[derive(Debug, Default)]
pub struct Sharding {
    /// Every fragment's number of indexed terms (BM25 lengths), [`UNKNOWN`] until a postings
    /// shard that names the fragment, or its text shard, is in.
    pub(crate) lengths: Vec<u32>,
    /// The ids of [`Index::fragments`] (the fetched ones), ascending.
    pub(crate) fragment_ids: Vec<u32>,
    /// Each page's first fragment (pages hold consecutive fragments, in page order), so
    /// ranking knows a candidate's page before its text is fetched.
    pub(crate) page_starts: Vec<u32>,
    /// Each postings shard's first term, ascending.
    pub(crate) postings_first: Vec<String>,
    /// Each text shard's first fragment, ascending.
    pub(crate) text_first: Vec<u32>,
    /// The vector layer, when the index has vectors.
    pub(crate) vectors: Option<Box<ShardVectors>>,
    /// Which shards are in (postings shards, then text shards, then vector lists).
    pub(crate) loaded: Vec<bool>,
    /// Which shards a read needed and did not find (in the same order as `loaded`).
    /// Atomic so that reads, which take `&Index`, can note them, and the index stays `Sync`.
    pub(crate) missed: Vec<AtomicBool>,
}

/// Bits per dimension of a vector list's residual codes ([`CodeList`]): the one knob of their
/// precision (1 to 8; a code may run on into the next byte), chosen on the eval sets' dev halves
/// (`eval --cross --sharded-same-knobs` against the whole index, knobs held): 8 is the only
/// setting that lost no recall@5 on any of them; 1, 2 and 4 bits each lost one or two questions
/// on some dev half (3 to 9 points of recall@5), as the codes reorder the vector list the
/// fusion reads, and so did 6 (one Express question, −4.3 points; its lists are 20% smaller,
/// 111 KB a question over the joined 4,504 fragments instead of 139, 7 bits 130 KB and 5 bits
/// 95 KB; `eval --example shard_bytes`).
pub const CODE_BITS: usize = 8;
const _: () = assert!(CODE_BITS >= 1 && CODE_BITS <= 8);

/// One IVF list as a sharded index stores it: each member's residual from the list's centroid,
/// quantized per dimension to [`CODE_BITS`] bits on a uniform grid of `2^CODE_BITS` levels
/// symmetric about the centroid (level `k` is `(k − (2^CODE_BITS − 1) / 2) × step`), with one
/// step (`scales`) per member fitted to that member's residual (least squares), so a code row
/// is [`code_bytes`] bytes, `CODE_BITS`/8 of an int8 row. A member is scored against the
/// question's full-precision vector (`ann`'s `CodeList::score`): the centroid's cosine plus Σ query ×
/// dequantized residual, exactly the member's cosine when its residual lies on its grid. The
/// meaning gate still reads the exact int8 vectors, from the text shards.
///
/// With 1 bit this is the sign code (step/2 = mean |residual|, an eighth of an int8 row); with 8
/// the code is as large as an int8 row and as exact (see [`CODE_BITS`] for why 8).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CodeList {
    /// Fragment ids, one per code.
    pub ids: Vec<u32>,
    /// One step per member: the spacing of its residual's levels.
    pub scales: Vec<f32>,
    /// The members' codes, row by row: dimension `j`'s level in bits `j × CODE_BITS ..` (low
    /// bits first within a byte).
    pub codes: Vec<u8>,
}

/// Bytes per code of `dims` dimensions.
pub fn code_bytes(dims: usize) -> usize {
    dims.saturating_mul(CODE_BITS).div_ceil(8)
}

/// A length or row not fetched yet.
pub(crate) const UNKNOWN: u32 = u32::MAX;

/// The vector layer of a sharded index: IVF centroids from the manifest, the lists' residual codes
/// fetched so far (what vector search ranks), and the int8 rows that came beside fragments in
/// text shards (what the meaning gate reads).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ShardVectors {
    /// One centroid per list, in the space of the fragment vectors.
    pub(crate) centroids: VectorIndex,
    /// Each list's members and codes, empty until its shard is in.
    pub(crate) lists: Vec<CodeList>,
    /// Each fragment's row in `rows`, [`UNKNOWN`] until its text shard brings it.
    pub(crate) row_of: Vec<u32>,
    /// The fetched int8 rows, in the order they came.
    pub(crate) rows: VectorIndex,
}

impl Clone for Sharding {
    fn clone(&self) -> Sharding {
        Sharding {
            lengths: self.lengths.clone(),
            fragment_ids: self.fragment_ids.clone(),
            page_starts: self.page_starts.clone(),
            postings_first: self.postings_first.clone(),
            text_first: self.text_first.clone(),
            vectors: self.vectors.clone(),
            loaded: self.loaded.clone(),
            missed: self
                .missed
                .iter()
                .map(|m| AtomicBool::new(m.load(Ordering::Relaxed)))
                .collect(),
        }
    }
}

/// Equal when they hold the same shards; what reads missed is not content.
impl PartialEq for Sharding {
    fn eq(&self, other: &Sharding) -> bool {
        self.lengths == other.lengths
            && self.fragment_ids == other.fragment_ids
            && self.page_starts == other.page_starts
            && self.postings_first == other.postings_first
            && self.text_first == other.text_first
            && self.vectors == other.vectors
            && self.loaded == other.loaded
    }
}

/// BM25 parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Length normalisation.
    pub b: f32,
}

impl Bm25Params {
    /// The textbook defaults (k1 1.2, b 0.75).
    pub const DEFAULT: Bm25Params = Bm25Params { k1: 1.2, b: 0.75 };
}

/// Fragment vectors: one int8 row (with its scale) per fragment, for the model with `model_checksum`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct VectorIndex {
    /// Checksum of the query model whose space these vectors are in.
    pub model_checksum: u32,
    /// Dimensions per vector.
    pub dims: u32,
    /// One scale per fragment.
    pub scales: Vec<f32>,
    /// `fragments × dims` int8 values, row by row.
    pub data: Vec<i8>,
}

impl VectorIndex {
    /// Checks that the vectors hold exactly `n_fragments` rows.
    pub(crate) fn validate(&self, n_fragments: usize) -> Result<(), DecodeError> {
        let dims = self.dims as usize;
        if dims == 0
            || self.scales.len() != n_fragments
            || Some(self.data.len()) != n_fragments.checked_mul(dims)
        {
            return Err(DecodeError::Invalid(
                "vector count does not match the fragments",
            ));
        }
        if self.scales.iter().any(|s| !s.is_finite()) {
            return Err(DecodeError::Invalid("a vector scale is not finite"));
        }
        Ok(())
    }
}

/// One public page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// Path relative to the corpus root.
    pub path: String,
    /// Page URL on the site.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Page language.
    pub lang: Lang,
    /// Number of fragments the page was cut into.
    pub n_fragments: u32,
    /// The page's curated theme words (frontmatter `themes`), shown with the page.
    pub themes: Vec<String>,
    /// What kind of page it is: release notes and listings are quoted only for questions
    /// about versions or changes.
    pub kind: PageKind,
    /// Index into [`Index::collections`] of the collection the page belongs to, if any.
    pub collection: Option<u32>,
}

/// One quotable fragment of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fragment {
    /// Index into [`Index::docs`].
    pub doc: u32,
    /// Headings from the outermost to the fragment's own.
    pub heading_path: Vec<String>,
    /// The heading's anchor slug (empty for the top of the page).
    pub anchor: String,
    /// Zero-based position among the page's fragments.
    pub position: u32,
    /// The quotable text.
    pub text: String,
    /// Quotable units as `(start, end)` byte offsets into `text`.
    pub sentences: Vec<(u32, u32)>,
    /// Table body rows as `(row unit, header unit)` indices into `sentences`, the header first.
    pub table_rows: Vec<(u32, u32)>,
    /// Indices into `sentences` of the units that are code (a code block's pieces), ascending:
    /// code shows how, it does not say what something is.
    pub code: Vec<u32>,
    /// Number of indexed terms (the BM25 document length).
    pub n_terms: u32,
}

/// The postings of one stemmed term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermPostings {
    /// The stemmed term.
    pub term: String,
    /// `(fragment, term frequency)`, sorted by fragment, each fragment once.
    pub postings: Vec<(u32, u32)>,
}

/// Why index bytes could not be read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DecodeError {
    /// Fewer bytes than the header needs.
    TooShort {
        /// Bytes given.
        len: usize,
    },
    /// The bytes do not start with [`MAGIC`]: this is not an onrecord index.
    BadMagic,
    /// The file was written by another format version.
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The data is shorter than the file announces: the file was cut off.
    Truncated {
        /// Data bytes the file announces (an index's header, a query model's counts).
        expected: u64,
        /// Data bytes present.
        found: u64,
    },
    /// Bytes follow the data.
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The checksum does not match: the file is corrupt.
    ChecksumMismatch {
        /// Checksum in the header.
        expected: u32,
        /// Checksum of the bytes.
        found: u32,
    },
    /// The payload is not a valid postcard encoding of [`Index`].
    Malformed(String),
    /// The payload decoded but is inconsistent (e.g. a posting names a missing fragment).
    Invalid(&'static str),
    /// A sentence (or table row) range is empty or only whitespace: a quote of it would be "".
    EmptySentence {
        /// The fragment (its id in the whole index).
        fragment: u32,
        /// The sentence, by position in the fragment.
        sentence: u32,
    },
    /// A sentence range starts before the previous one ends: out of order or overlapping.
    SentencesOutOfOrder {
        /// The fragment (its id in the whole index).
        fragment: u32,
        /// The first sentence out of order, by position in the fragment.
        sentence: u32,
    },
    /// A sentence range ends before it starts, past the fragment's text, or inside a character.
    SentenceOutsideText {
        /// The fragment (its id in the whole index).
        fragment: u32,
        /// The sentence, by position in the fragment.
        sentence: u32,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f, "index", HEADER_LEN)
    }
}

impl DecodeError {
    /// The message for a file of kind `file` ("index", "query model") whose fixed part is
    /// `header_len` bytes: one set of sentences for both file formats.
    pub(crate) fn describe(
        &self,
        f: &mut fmt::Formatter<'_>,
        file: &str,
        header_len: usize,
    ) -> fmt::Result {
        match self {
            DecodeError::TooShort { len } => {
                write!(
                    f,
                    "{file} is {len} bytes, shorter than its {header_len}-byte header"
                )
            }
            DecodeError::BadMagic => write!(f, "not an onrecord {file} (bad magic bytes)"),
            DecodeError::UnsupportedVersion { found, supported } => write!(
                f,
                "{file} format version {found} is not supported (this build reads version {supported}); rebuild the {file}"
            ),
            DecodeError::Truncated { expected, found } => {
                write!(
                    f,
                    "{file} is truncated: its data has {found} of {expected} bytes"
                )
            }
            DecodeError::TrailingBytes { extra } => {
                write!(f, "{file} has {extra} unexpected bytes after its data")
            }
            DecodeError::ChecksumMismatch { expected, found } => write!(
                f,
                "{file} is corrupt: checksum {found:08x} does not match {expected:08x}"
            ),
            DecodeError::Malformed(msg) => write!(f, "{file} payload is malformed: {msg}"),
            DecodeError::Invalid(what) => write!(f, "{file} is inconsistent: {what}"),
            DecodeError::EmptySentence { fragment, sentence } => write!(
                f,
                "{file} is inconsistent: sentence {sentence} of fragment {fragment} is empty"
            ),
            DecodeError::SentencesOutOfOrder { fragment, sentence } => write!(
                f,
                "{file} is inconsistent: sentence {sentence} of fragment {fragment} starts before the one before it ends"
            ),
            DecodeError::SentenceOutsideText { fragment, sentence } => write!(
                f,
                "{file} is inconsistent: sentence {sentence} of fragment {fragment} is outside its text"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why an index could not be written.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EncodeError {
    /// Postcard could not serialise the payload.
    Serialize(String),
    /// The parts given to the writer do not fit together (e.g. vector lists that do not
    /// cover every fragment once).
    Inconsistent(&'static str),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Serialize(msg) => write!(f, "cannot serialise index: {msg}"),
            EncodeError::Inconsistent(what) => write!(f, "cannot write index: {what}"),
        }
    }
}

impl std::error::Error for EncodeError {}

impl Index {
    /// Writes the header and payload. The same index always gives the same bytes.
    pub fn to_bytes(&self, corpus_hash: [u8; 32]) -> Result<Vec<u8>, EncodeError> {
        frame(&MAGIC, FORMAT_VERSION, corpus_hash, self)
    }

    /// Reads an index, checking header, length and checksum before decoding and the payload's
    /// consistency after. Never panics, whatever the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, DecodeError> {
        let (mut index, corpus_hash, _): (Index, _, _) = unframe(bytes, &MAGIC, FORMAT_VERSION)?;
        index.corpus_hash = corpus_hash;
        index.validate()?;
        Ok(index)
    }

    /// Checks every cross-reference the reader relies on, so queries can index without panics.
    fn validate(&self) -> Result<(), DecodeError> {
        let n_frags = self.fragments.len();
        self.validate_shared(n_frags)?;
        for (id, frag) in (0u32..).zip(&self.fragments) {
            frag.validate(id, self.docs.len())?;
        }
        validate_terms(&self.terms, n_frags)
    }

    /// The checks of everything but fragments and postings, for an index of `n_frags`
    /// fragments: what a whole index and a sharded index's manifest both hold.
    pub(crate) fn validate_shared(&self, n_frags: usize) -> Result<(), DecodeError> {
        let n_collections = self.collections.len();
        if self
            .docs
            .iter()
            .any(|d| d.collection.is_some_and(|c| c as usize >= n_collections))
        {
            return Err(DecodeError::Invalid("a page names a missing collection"));
        }
        if u32::try_from(n_frags).is_err() {
            return Err(DecodeError::Invalid("too many fragments"));
        }
        if !(self.avg_fragment_terms.is_finite() && self.avg_fragment_terms >= 0.0) {
            return Err(DecodeError::Invalid(
                "average fragment length is not a finite number",
            ));
        }
        if !(self.settings.bm25.k1.is_finite() && self.settings.bm25.b.is_finite()) {
            return Err(DecodeError::Invalid("BM25 parameters are not finite"));
        }
        for pair in self.hint_terms.windows(2) {
            if pair[0].term >= pair[1].term {
                return Err(DecodeError::Invalid("hint terms are not sorted and unique"));
            }
        }
        let n_hints = self.hints.len();
        if self
            .hint_terms
            .iter()
            .flat_map(|t| &t.postings)
            .any(|&(h, _)| h as usize >= n_hints)
        {
            return Err(DecodeError::Invalid("a hint posting names a missing hint"));
        }
        if self.site_words.windows(2).any(|w| w[0] >= w[1]) {
            return Err(DecodeError::Invalid("site words are not sorted and unique"));
        }
        if let Some(vectors) = &self.vectors {
            vectors.validate(n_frags)?;
        }
        Ok(())
    }
}

/// Checks that terms are sorted and unique and each term's postings name fragments below
/// `n_frags`, sorted by fragment (lookups binary-search them).
pub(crate) fn validate_terms(terms: &[TermPostings], n_frags: usize) -> Result<(), DecodeError> {
    for pair in terms.windows(2) {
        if pair[0].term >= pair[1].term {
            return Err(DecodeError::Invalid("terms are not sorted and unique"));
        }
    }
    for term in terms {
        if term
            .postings
            .iter()
            .any(|&(frag, _)| frag as usize >= n_frags)
        {
            return Err(DecodeError::Invalid("a posting names a missing fragment"));
        }
        if term.postings.windows(2).any(|p| p[0].0 >= p[1].0) {
            return Err(DecodeError::Invalid(
                "postings are not sorted by fragment and unique",
            ));
        }
    }
    Ok(())
}

impl Fragment {
    /// Whether unit `i` is code.
    pub(crate) fn is_code(&self, i: usize) -> bool {
        self.code.binary_search(&(i as u32)).is_ok()
    }

    /// The text of sentence (or table row) `i`, if there is one.
    pub(crate) fn sentence(&self, i: usize) -> Option<&str> {
        let &(start, end) = self.sentences.get(i)?;
        self.text.get(start as usize..end as usize)
    }

    /// Checks what quoting relies on: the page exists, sentence ranges lie in order inside the
    /// text and are not empty, table rows name units that exist. `id` names the fragment in
    /// errors.
    pub(crate) fn validate(&self, id: u32, n_docs: usize) -> Result<(), DecodeError> {
        if self.doc as usize >= n_docs {
            return Err(DecodeError::Invalid("a fragment names a missing document"));
        }
        // A quote runs from one sentence's start to a later one's end, so the ranges must
        // be in order and apart, not only each inside the text; an empty one quotes "".
        let mut last_end = 0;
        for (sentence, &(start, end)) in (0u32..).zip(&self.sentences) {
            let Some(quoted) = self.text.get(start as usize..end as usize) else {
                // Also `start > end`: `get` refuses a reversed range.
                return Err(DecodeError::SentenceOutsideText {
                    fragment: id,
                    sentence,
                });
            };
            // Builders trim every unit, so a blank one is as empty as a zero-length one.
            if quoted.trim().is_empty() {
                return Err(DecodeError::EmptySentence {
                    fragment: id,
                    sentence,
                });
            }
            if start < last_end {
                return Err(DecodeError::SentencesOutOfOrder {
                    fragment: id,
                    sentence,
                });
            }
            last_end = end;
        }
        let n_units = self.sentences.len();
        if self
            .table_rows
            .iter()
            .any(|&(row, header)| header >= row || row as usize >= n_units)
        {
            return Err(DecodeError::Invalid(
                "a table row names a missing unit or a header after it",
            ));
        }
        // `is_code` binary-searches the list.
        if self.code.windows(2).any(|w| w[0] >= w[1])
            || self.code.last().is_some_and(|&u| u as usize >= n_units)
        {
            return Err(DecodeError::Invalid(
                "code units are out of order or name a missing unit",
            ));
        }
        Ok(())
    }
}

/// Writes `magic`, `version`, the corpus hash, the payload's length and a CRC-32, then the
/// postcard payload: the header every file of the format has (the index at [`FORMAT_VERSION`],
/// and the manifest and shards of a sharded index at `shard::SHARD_FORMAT_VERSION`).
pub(crate) fn frame<T: Serialize>(
    magic: &[u8; 8],
    version: u32,
    corpus_hash: [u8; 32],
    value: &T,
) -> Result<Vec<u8>, EncodeError> {
    let payload =
        postcard::to_allocvec(value).map_err(|e| EncodeError::Serialize(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&corpus_hash);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let checksum = checksum(&out, &payload);
    out.extend_from_slice(&checksum.to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Reads what [`frame`] wrote: checks magic, version (`version` only), length and checksum,
/// then decodes. Returns the value, the corpus hash and the checksum. Never panics, whatever
/// the bytes.
pub(crate) fn unframe<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    magic: &[u8; 8],
    version: u32,
) -> Result<(T, [u8; 32], u32), DecodeError> {
    let header = bytes
        .get(..HEADER_LEN)
        .ok_or(DecodeError::TooShort { len: bytes.len() })?;
    if header[0..8] != *magic {
        return Err(DecodeError::BadMagic);
    }
    let found = u32::from_le_bytes(array(&header[8..12]));
    if found != version {
        return Err(DecodeError::UnsupportedVersion {
            found,
            supported: version,
        });
    }
    let corpus_hash: [u8; 32] = array(&header[12..44]);
    let expected_len = u64::from_le_bytes(array(&header[44..52]));
    let payload = &bytes[HEADER_LEN..];
    let found_len = payload.len() as u64;
    if found_len < expected_len {
        return Err(DecodeError::Truncated {
            expected: expected_len,
            found: found_len,
        });
    }
    if found_len > expected_len {
        return Err(DecodeError::TrailingBytes {
            extra: found_len - expected_len,
        });
    }
    let expected_sum = u32::from_le_bytes(array(&header[52..56]));
    let found_sum = checksum(&header[..52], payload);
    if expected_sum != found_sum {
        return Err(DecodeError::ChecksumMismatch {
            expected: expected_sum,
            found: found_sum,
        });
    }
    let (value, rest): (T, &[u8]) =
        postcard::take_from_bytes(payload).map_err(|e| DecodeError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(DecodeError::Malformed(format!(
            "{} bytes left after the payload",
            rest.len()
        )));
    }
    Ok((value, corpus_hash, expected_sum))
}

fn checksum(header: &[u8], payload: &[u8]) -> u32 {
    let mut crc = crate::crc::Crc32::new();
    crc.update(header);
    crc.update(payload);
    crc.finalize()
}

/// Copies a slice of known length into an array; the callers slice exactly `N` bytes.
pub(crate) fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(bytes);
    out
}
