//! The reader model: a small BERT cross-encoder (BERT-tiny: 2 layers, hidden 128, 2 heads)
//! that scores how well a passage answers a question, inference only.
//!
//! A pair is read as `[CLS] question [SEP] passage [SEP]`, segment 0 up to the first `[SEP]`
//! and segment 1 after it, with the core's BERT uncased WordPiece ([`WordPiece`]); the
//! question keeps its first [`MAX_QUESTION_TOKENS`] tokens and the passage what fits in
//! [`MAX_PAIR_TOKENS`]. The score is a logit, `head · h_CLS + bias`, on the last layer's hidden
//! state at `[CLS]` (no pooler). The network is Hugging Face's `BertModel`: post-LayerNorm,
//! exact erf GELU, absolute positions.
//!
//! The file (`.ona`, little-endian; an int8 matrix of `r × c` is `r` f32 scales, then `r × c`
//! int8 values row-major, a value being its row's scale × the int8; dense weights are
//! `[out, in]` as in torch):
//!
//! | field | |
//! |---|---|
//! | magic `ONRREADR`, u32 version 1, u32 data length (bytes up to the checksum) | header |
//! | u32 layers, u32 hidden, u32 heads, u32 intermediate, u32 positions, f32 LayerNorm epsilon | config |
//! | u32 vocab_len, vocab_len × (u8 length, UTF-8 bytes) | vocabulary in id order, with `[PAD]` `[UNK]` `[CLS]` `[SEP]` |
//! | int8 matrix vocab_len × hidden | word embeddings |
//! | int8 matrix positions × hidden | position embeddings (the first `positions`, at most [`STORED_POSITIONS`]) |
//! | int8 matrix 2 × hidden | token-type embeddings |
//! | 2 × hidden f32 | embedding LayerNorm weight, bias |
//! | per layer: query, key, value, attention output (each: int8 matrix hidden × hidden, hidden f32 bias); attention LayerNorm (2 × hidden f32); intermediate (int8 matrix intermediate × hidden, intermediate f32 bias); output (int8 matrix hidden × intermediate, hidden f32 bias); output LayerNorm (2 × hidden f32) | encoder layers |
//! | hidden f32, f32 | score head weight, bias |
//! | u32 CRC-32 of everything before | checksum |
//!
//! The vocabulary may be a pruned subset of BERT's, renumbered ([`prune_reader_model`]).
//! Decoding checks magic, version, length and checksum first, then the config's bounds, and
//! every count against the bytes left before allocating for it; it never panics.

mod format;
mod forward;
mod weights;

use std::fmt;

use crate::format::DecodeError;
use crate::wordpiece::WordPiece;

use self::format::{HEADER_LEN, ReaderFile};
pub use self::forward::gelu;
use self::forward::{Encoder, Layer, Linear, Scratch, WordRows, dot};
pub use self::weights::{
    ReaderConfig, ReaderTensor, ReaderWeights, ReaderWeightsError, encode_reader_model,
    prune_reader_model,
};

/// The reader-model file version this build reads.
pub const READER_VERSION: u32 = 1;
/// Position embeddings a file keeps: more than [`MAX_PAIR_TOKENS`] needs, and a fifth of
/// BERT's 512 rows.
pub const STORED_POSITIONS: usize = 160;
/// Question tokens a pair keeps (after tokenizing, before `[CLS]` and `[SEP]`).
pub const MAX_QUESTION_TOKENS: usize = 32;
/// The longest pair, special tokens included: a passage is cut to fit.
pub const MAX_PAIR_TOKENS: usize = 128;

/// The reader: scores (question, passage) pairs.
#[derive(Debug, Clone)]
pub struct ReaderModel {
    encoder: Encoder,
    wordpiece: WordPiece,
    cls: u32,
    sep: u32,
    head_weight: Vec<f32>,
    head_bias: f32,
    vocab_len: usize,
    checksum: u32,
}

impl ReaderModel {
    /// Reads a reader model file, checking magic, version, length, checksum and every count.
    /// Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<ReaderModel, ReaderModelError> {
        let (file, checksum) = ReaderFile::decode(bytes).map_err(ReaderModelError)?;
        let h = file.shape.hidden;
        let (i, vocab_len) = (file.shape.intermediate, file.vocab.len());
        let dense = |d: &format::StoredDense, n_out, n_in| {
            Linear::new(n_out, n_in, &d.weight.dequantize(), d.bias.clone())
        };
        let layers = file
            .layers
            .iter()
            .map(|l| Layer {
                query: dense(&l.query, h, h),
                key: dense(&l.key, h, h),
                value: dense(&l.value, h, h),
                attention_out: dense(&l.attention_out, h, h),
                attention_norm: l.attention_norm.clone(),
                ff_in: dense(&l.ff_in, i, h),
                ff_out: dense(&l.ff_out, h, i),
                ff_norm: l.ff_norm.clone(),
            })
            .collect();
        let wordpiece = WordPiece::new(&file.vocab);
        let encoder = Encoder {
            shape: file.shape,
            position: file.position.dequantize(),
            token_type: file.token_type.dequantize(),
            word: WordRows::Int8(file.word),
            embedding_norm: file.embedding_norm,
            layers,
        };
        ReaderModel::new(
            encoder,
            wordpiece,
            (file.head_weight, file.head_bias),
            vocab_len,
            checksum,
        )
        .ok_or(ReaderModelError(DecodeError::Invalid(
            "vocabulary lacks [CLS] or [SEP]",
        )))
    }

    /// The same network as [`encode_reader_model`] would write, without quantization: the
    /// reference that parity checks compare the file's model with. Its checksum is 0.
    pub fn unquantized(weights: &ReaderWeights) -> Result<ReaderModel, ReaderWeightsError> {
        let (encoder, head_weight, head_bias) = weights::unquantized(weights)?;
        let wordpiece = WordPiece::new(&weights.vocab);
        let vocab_len = weights.vocab.len();
        ReaderModel::new(encoder, wordpiece, (head_weight, head_bias), vocab_len, 0).ok_or(
            ReaderWeightsError::MissingSpecialToken {
                token: "[CLS] or [SEP]",
            },
        )
    }

    fn new(
        encoder: Encoder,
        wordpiece: WordPiece,
        (head_weight, head_bias): (Vec<f32>, f32),
        vocab_len: usize,
        checksum: u32,
    ) -> Option<ReaderModel> {
        Some(ReaderModel {
            cls: wordpiece.id("[CLS]")?,
            sep: wordpiece.id("[SEP]")?,
            encoder,
            wordpiece,
            head_weight,
            head_bias,
            vocab_len,
            checksum,
        })
    }

    /// The file's checksum (0 for an [`unquantized`](ReaderModel::unquantized) model).
    pub fn checksum(&self) -> u32 {
        self.checksum
    }

    /// Entries in the model's vocabulary.
    pub fn vocab_len(&self) -> usize {
        self.vocab_len
    }

    /// The tokenizer of the model's vocabulary.
    pub fn wordpiece(&self) -> &WordPiece {
        &self.wordpiece
    }

    /// One score (a logit: higher means the passage answers the question better) per passage,
    /// in order. An empty question or passage is still scored; nothing here panics.
    pub fn score(&self, question: &str, passages: &[&str]) -> Vec<f32> {
        let question = self.wordpiece.tokenize(question);
        let mut scratch = Scratch::default();
        let mut ids = Vec::with_capacity(MAX_PAIR_TOKENS);
        passages
            .iter()
            .map(|passage| {
                let first_len = self.pair(&question, passage, &mut ids);
                let cls = self.encoder.cls(&ids, first_len, &mut scratch);
                dot(&self.head_weight, cls) + self.head_bias
            })
            .collect()
    }

    /// The token ids of a pair as [`score`](ReaderModel::score) reads it, and how many of them
    /// are segment 0 (`[CLS]`, the question, the first `[SEP]`). For parity checks.
    #[doc(hidden)]
    pub fn pair_ids(&self, question: &str, passage: &str) -> (Vec<u32>, usize) {
        let mut ids = Vec::new();
        let first_len = self.pair(&self.wordpiece.tokenize(question), passage, &mut ids);
        (ids, first_len)
    }

    /// The last layer's hidden state at `[CLS]` for a pair: what the head reads. For parity
    /// checks.
    #[doc(hidden)]
    pub fn cls_hidden(&self, question: &str, passage: &str) -> Vec<f32> {
        let (ids, first_len) = self.pair_ids(question, passage);
        self.encoder
            .cls(&ids, first_len, &mut Scratch::default())
            .to_vec()
    }

    /// Writes `[CLS] question [SEP] passage [SEP]` into `ids`, cut as the module doc says;
    /// returns the length of segment 0.
    fn pair(&self, question: &[u32], passage: &str, ids: &mut Vec<u32>) -> usize {
        // Positions are at least 3 (checked when read), so `max - 3` cannot wrap.
        let max = MAX_PAIR_TOKENS.min(self.encoder.shape.positions);
        let q_len = question.len().min(MAX_QUESTION_TOKENS).min(max - 3);
        ids.clear();
        ids.push(self.cls);
        ids.extend_from_slice(&question[..q_len]);
        ids.push(self.sep);
        let first_len = ids.len();
        let room = max - 3 - q_len;
        ids.extend(self.wordpiece.tokenize(passage).into_iter().take(room));
        ids.push(self.sep);
        first_len
    }
}

/// Why reader-model bytes could not be read: the same kinds of failure as an index's
/// ([`DecodeError`]), with messages that name the reader model.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderModelError(DecodeError);

impl ReaderModelError {
    /// What went wrong.
    pub fn kind(&self) -> &DecodeError {
        &self.0
    }
}

impl fmt::Display for ReaderModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.describe(f, "reader model", HEADER_LEN)
    }
}

impl std::error::Error for ReaderModelError {}

/// What the evidence step asks of a reader: for a question, the probability that each passage
/// answers it. (A probability rather than the model's logit, so that the engine, which runs
/// without a reader in the widget, carries no exponential.)
pub trait ScorePairs {
    /// One probability per passage, in order.
    fn answers(&self, question: &str, passages: &[&str]) -> Vec<f32>;
}

impl ScorePairs for ReaderModel {
    fn answers(&self, question: &str, passages: &[&str]) -> Vec<f32> {
        self.score(question, passages)
            .into_iter()
            .map(|logit| 1.0 / (1.0 + (-logit).exp()))
            .collect()
    }
}
