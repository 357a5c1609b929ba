//! Vectors: the query-side static embedding model, the fragment vectors in the index, and
//! brute-force cosine search over int8 vectors.
//!
//! Documents are embedded at build time by the full transformer (in `build-index`) and projected
//! into the model's space; in the browser only the question is embedded, by summing the static
//! rows of its WordPiece tokens ([`QueryModel::embed`]). The model file layout (little-endian):
//!
//! | field | |
//! |---|---|
//! | magic `ONRQMODL`, u32 version 1, u32 dims, u32 vocab_len, u32 n_rows | header |
//! | vocab_len × (u8 length, UTF-8 bytes) | WordPiece vocabulary in id order |
//! | n_rows × (u32 token id, f32 scale, dims × i8) | rows sorted by token id |
//! | u32 CRC-32 of everything before | checksum |

use std::fmt;

use crate::bm25::{Hit, best_k};
use crate::format::{DecodeError, Index, VectorIndex, array};
use crate::wordpiece::WordPiece;

const MODEL_MAGIC: [u8; 8] = *b"ONRQMODL";
/// The query-model file version this build reads.
pub const MODEL_VERSION: u32 = 1;
const NO_ROW: u32 = u32::MAX;
/// Magic, version, dims, vocabulary length, rows and the checksum: the least a model file has.
const MODEL_HEADER_LEN: usize = 28;
/// How many of the vocabulary's most frequent whole words count as common English. BERT's
/// vocabulary lists whole words roughly by frequency from "the" on; a question word among the
/// first few thousand ("mind", "often", "put") is likely phrasing, one outside them ("redis",
/// "nginx") likely the subject.
const COMMON_WORDS: u32 = 5000;
/// Endings stripped to find an inflected word's base in the vocabulary.
const ENDINGS: &[&str] = &["ing", "ed", "es", "s", "ly", "d"];

/// The static query embedder.
#[derive(Debug, Clone)]
pub struct QueryModel {
    dims: usize,
    wordpiece: WordPiece,
    /// Row index per token id, or `NO_ROW`.
    row_of: Vec<u32>,
    scales: Vec<f32>,
    data: Vec<i8>,
    checksum: u32,
    /// Token ids below this are common English words (see [`COMMON_WORDS`]).
    common_below: u32,
}

impl QueryModel {
    /// Reads a model file, checking magic, version, checksum and every length. Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<QueryModel, QueryModelError> {
        QueryModel::decode(bytes).map_err(QueryModelError)
    }

    fn decode(bytes: &[u8]) -> Result<QueryModel, DecodeError> {
        let mut r = Reader { bytes, pos: 0 };
        if bytes.len() < MODEL_HEADER_LEN {
            return Err(DecodeError::TooShort { len: bytes.len() });
        }
        if r.take(8)? != MODEL_MAGIC {
            return Err(DecodeError::BadMagic);
        }
        let version = r.u32()?;
        if version != MODEL_VERSION {
            return Err(DecodeError::UnsupportedVersion {
                found: version,
                supported: MODEL_VERSION,
            });
        }
        let body_len = bytes.len() - 4;
        let expected = u32::from_le_bytes(array(&bytes[body_len..]));
        let found = crate::crc::crc32(&bytes[..body_len]);
        if expected != found {
            return Err(DecodeError::ChecksumMismatch { expected, found });
        }
        let dims = r.u32()? as usize;
        let vocab_len = r.u32()? as usize;
        let n_rows = r.u32()? as usize;
        if dims == 0 || dims > 4096 {
            return Err(DecodeError::Invalid("model dimensions out of range"));
        }
        // Each vocabulary entry takes at least one byte and each row 8 + dims bytes, so these
        // bounds keep allocations proportional to the input.
        if vocab_len > body_len || n_rows.saturating_mul(8 + dims) > body_len {
            return Err(DecodeError::Invalid("model counts exceed the file size"));
        }
        let mut vocab = Vec::with_capacity(vocab_len);
        for _ in 0..vocab_len {
            let len = r.take(1)?[0] as usize;
            let token = std::str::from_utf8(r.take(len)?)
                .map_err(|_| DecodeError::Invalid("model vocabulary is not UTF-8"))?;
            vocab.push(token.to_owned());
        }
        let mut row_of = vec![NO_ROW; vocab_len];
        let mut scales = Vec::with_capacity(n_rows);
        let mut data = Vec::with_capacity(n_rows * dims);
        let mut last_id = None;
        for row in 0..n_rows {
            let id = r.u32()?;
            if last_id.is_some_and(|last| id <= last) {
                return Err(DecodeError::Invalid(
                    "model rows are not sorted by token id",
                ));
            }
            last_id = Some(id);
            let slot = row_of
                .get_mut(id as usize)
                .ok_or(DecodeError::Invalid("model row names a missing token"))?;
            *slot = row as u32;
            let scale = f32::from_le_bytes(array(r.take(4)?));
            if !scale.is_finite() {
                return Err(DecodeError::Invalid("model row scale is not finite"));
            }
            scales.push(scale);
            data.extend(r.take(dims)?.iter().map(|&b| b as i8));
        }
        if r.pos != body_len {
            return Err(DecodeError::TrailingBytes {
                extra: (body_len - r.pos) as u64,
            });
        }
        let wordpiece = WordPiece::new(&vocab);
        let common_below = wordpiece
            .id("the")
            .map_or(0, |first| first.saturating_add(COMMON_WORDS));
        Ok(QueryModel {
            dims,
            common_below,
            wordpiece,
            row_of,
            scales,
            data,
            checksum: expected,
        })
    }

    /// The model's dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The model's checksum: an index built for this model records it.
    pub fn checksum(&self) -> u32 {
        self.checksum
    }

    /// The tokenizer of the model's vocabulary.
    pub fn wordpiece(&self) -> &WordPiece {
        &self.wordpiece
    }

    /// The vocabulary in token-id order (for writing a changed copy of the model).
    pub fn vocab(&self) -> Vec<String> {
        self.wordpiece.vocab(self.row_of.len())
    }

    /// The stored rows as `(token id, scale, values)`, in token-id order.
    pub fn rows(&self) -> impl Iterator<Item = (u32, f32, &[i8])> {
        self.row_of
            .iter()
            .enumerate()
            .filter(|(_, row)| **row != NO_ROW)
            .filter_map(|(id, &row)| {
                let start = row as usize * self.dims;
                let values = self.data.get(start..start + self.dims)?;
                Some((id as u32, *self.scales.get(row as usize)?, values))
            })
    }

    /// Whether `word` (lowercased) or its base form is one of the most frequent English words
    /// of the vocabulary: such words phrase a question more often than they name its subject.
    pub fn is_common_word(&self, word: &str) -> bool {
        let common = |w: &str| {
            self.wordpiece
                .id(w)
                .is_some_and(|id| id < self.common_below)
        };
        common(word)
            || ENDINGS.iter().any(|end| {
                word.strip_suffix(end).is_some_and(|base| {
                    base.len() >= 3 && (common(base) || common(&format!("{base}e")))
                })
            })
    }

    /// The unit-length embedding of `text`, or `None` when no token of it has a row.
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0f32; self.dims];
        let mut hit = false;
        for id in self.wordpiece.tokenize(text) {
            let Some(&row) = self.row_of.get(id as usize) else {
                continue;
            };
            if row == NO_ROW {
                continue;
            }
            let start = row as usize * self.dims;
            let (Some(values), Some(&scale)) = (
                self.data.get(start..start + self.dims),
                self.scales.get(row as usize),
            ) else {
                continue;
            };
            for (s, &v) in sum.iter_mut().zip(values) {
                *s += scale * f32::from(v);
            }
            hit = true;
        }
        normalize(&mut sum).then_some(sum).filter(|_| hit)
    }
}

/// Why query-model bytes could not be read: the same kinds of failure as an index's
/// ([`DecodeError`]), with messages that name the query model.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryModelError(DecodeError);

impl QueryModelError {
    /// What went wrong.
    pub fn kind(&self) -> &DecodeError {
        &self.0
    }
}

impl fmt::Display for QueryModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.describe(f, "query model", MODEL_HEADER_LEN)
    }
}

impl std::error::Error for QueryModelError {}

impl VectorIndex {
    /// An empty index for vectors of `dims` dimensions.
    pub fn new(model_checksum: u32, dims: u32) -> VectorIndex {
        VectorIndex {
            model_checksum,
            dims,
            scales: Vec::new(),
            data: Vec::new(),
        }
    }

    /// Appends one vector (normalised, then quantised to int8 with one scale).
    pub fn push(&mut self, vector: &[f32]) {
        let mut v: Vec<f32> = vector.iter().copied().take(self.dims as usize).collect();
        v.resize(self.dims as usize, 0.0);
        normalize(&mut v);
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        self.scales.push(scale);
        self.data.extend(
            v.iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8),
        );
    }
}

/// The `k` fragments whose vectors are most similar (cosine) to `query`: exactly for a whole
/// index; for a sharded one, among the probed lists' members as their residual codes estimate it.
pub fn search_vectors(index: &Index, query: &[f32], k: usize) -> Vec<Hit> {
    if index
        .vector_space()
        .is_none_or(|(_, dims)| dims == 0 || query.len() != dims)
    {
        return Vec::new();
    }
    let score = |frag: u32| {
        let (row, scale) = index.vector(frag)?;
        Some(Hit {
            fragment: frag,
            score: dot(row, query) * scale,
        })
    };
    // A sharded index scores the members of the lists nearest the question (IVF) by code, a
    // whole index every fragment exactly.
    let hits: Vec<Hit> = match index.vector_candidates(query) {
        Some(hits) => hits,
        None => (0..index.fragment_count()).map_while(score).collect(),
    };
    let k = k.min(hits.len());
    if k == 0 {
        return Vec::new();
    }
    // The same routine as every other ranking: no selection code in the wasm module.
    best_k(hits, k)
}

/// Cosine similarity of fragment `frag`'s vector and the unit vector `query`.
pub(crate) fn similarity(index: &Index, frag: u32, query: &[f32]) -> Option<f32> {
    let (row, scale) = index.vector(frag)?;
    (query.len() == row.len()).then(|| dot(row, query) * scale)
}

/// Σ row·query: a row's cosine with a unit query before its scale (shared with `ann.rs`).
pub(crate) fn dot(row: &[i8], query: &[f32]) -> f32 {
    row.iter().zip(query).map(|(&v, q)| f32::from(v) * q).sum()
}

/// Scales `v` to unit length; false when it is all zeros.
fn normalize(v: &mut [f32]) -> bool {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
        true
    } else {
        false
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len().saturating_sub(4));
        let Some(end) = end else {
            // Both counted without the trailing checksum, as the index counts its payload.
            return Err(DecodeError::Truncated {
                expected: self.pos.saturating_add(n) as u64,
                found: self.bytes.len().saturating_sub(4) as u64,
            });
        };
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(array(self.take(4)?)))
    }
}

/// Writes a model file in the layout above (used by tests and tools; the shipped model is made
/// by `build-index/model/build.sh`).
pub fn encode_query_model(vocab: &[String], dims: u32, rows: &[(u32, Vec<f32>)]) -> Vec<u8> {
    let rows: Vec<(u32, f32, Vec<i8>)> = rows
        .iter()
        .map(|(id, v)| {
            let (scale, q) = quantize_row(v, 1);
            (*id, scale, q)
        })
        .collect();
    encode_query_model_rows(vocab, dims, &rows)
}

/// Quantises one row as the model files store it: scale = max |v| / 127 and each value rounded
/// to a multiple of `grid` (1 = plain int8; the shipped table uses 32, which gzip packs into
/// about 3 bits a value), clipped to ±127.
pub fn quantize_row(v: &[f32], grid: u8) -> (f32, Vec<i8>) {
    let grid = f32::from(grid.max(1));
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let q = v
        .iter()
        .map(|x| ((x / scale / grid).round() * grid).clamp(-127.0, 127.0) as i8)
        .collect();
    (scale, q)
}

/// Writes a model file from rows already quantised (`(token id, scale, values)`, ascending
/// token ids, `dims` values each).
pub fn encode_query_model_rows(
    vocab: &[String],
    dims: u32,
    rows: &[(u32, f32, Vec<i8>)],
) -> Vec<u8> {
    let mut out = MODEL_MAGIC.to_vec();
    for n in [MODEL_VERSION, dims, vocab.len() as u32, rows.len() as u32] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    for token in vocab {
        let bytes = token.as_bytes();
        let len = bytes.len().min(255);
        out.push(len as u8);
        out.extend_from_slice(&bytes[..len]);
    }
    for (id, scale, values) in rows {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&scale.to_le_bytes());
        out.extend(values.iter().map(|&v| v as u8));
    }
    let crc = crate::crc::crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn toy() -> Vec<u8> {
        let vocab: Vec<String> = ["[UNK]", "bike", "return", "refund"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        encode_query_model(
            &vocab,
            3,
            &[
                (1, vec![1.0, 0.0, 0.0]),
                (2, vec![0.0, 1.0, 0.0]),
                (3, vec![0.0, 0.9, 0.1]),
            ],
        )
    }

    #[test]
    fn embeds_by_summing_token_rows() {
        let model = QueryModel::from_bytes(&toy()).unwrap();
        let v = model.embed("Return bike").unwrap();
        let s = std::f32::consts::FRAC_1_SQRT_2;
        assert!(
            (v[0] - s).abs() < 0.01 && (v[1] - s).abs() < 0.01 && v[2].abs() < 0.01,
            "{v:?}"
        );
        assert_eq!(model.embed("nothing known"), None);
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        let bytes = toy();
        for len in 0..bytes.len() {
            assert!(QueryModel::from_bytes(&bytes[..len]).is_err(), "{len}");
        }
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            assert!(QueryModel::from_bytes(&b).is_err(), "bit {i}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = QueryModel::from_bytes(&bytes);
            // With a valid magic, version and checksum, the body is parsed: still no panic.
            let mut head = MODEL_MAGIC.to_vec();
            head.extend_from_slice(&MODEL_VERSION.to_le_bytes());
            head.append(&mut bytes);
            let crc = crc32fast::hash(&head);
            head.extend_from_slice(&crc.to_le_bytes());
            let _ = QueryModel::from_bytes(&head);
        }
    }
}
