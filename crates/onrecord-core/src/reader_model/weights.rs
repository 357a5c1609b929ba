//! The writer's side: a trained reader's f32 tensors under their Hugging Face names, checked,
//! quantized and encoded ([`encode_reader_model`]); the same tensors unquantized, for checks
//! ([`super::ReaderModel::unquantized`]); and a file cut down to a site's vocabulary
//! ([`prune_reader_model`]).

use std::collections::BTreeMap;
use std::fmt;

use super::format::{
    Int8Rows, Norm, ReaderFile, SPECIALS, Shape, StoredDense, StoredLayer, TOKEN_TYPES,
};
use super::forward::{Encoder, Layer, Linear, WordRows};
use super::{ReaderModelError, STORED_POSITIONS};

/// The network's shape, as the trainer's `config.json` states it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReaderConfig {
    /// Encoder layers (`num_hidden_layers`).
    pub layers: usize,
    /// Hidden size (`hidden_size`).
    pub hidden: usize,
    /// Attention heads (`num_attention_heads`).
    pub heads: usize,
    /// Feed-forward inner size (`intermediate_size`).
    pub intermediate: usize,
    /// Position-embedding rows in the weights (`max_position_embeddings`); the file keeps the
    /// first [`STORED_POSITIONS`].
    pub max_positions: usize,
    /// LayerNorm epsilon (`layer_norm_eps`).
    pub layer_norm_eps: f32,
}

impl ReaderConfig {
    /// BERT-tiny (google/bert_uncased_L-2_H-128_A-2), the reader's architecture.
    pub const BERT_TINY: ReaderConfig = ReaderConfig {
        layers: 2,
        hidden: 128,
        heads: 2,
        intermediate: 512,
        max_positions: 512,
        layer_norm_eps: 1e-12,
    };
}

/// One f32 tensor, row-major, with its shape (a torch `Linear` weight is `[out, in]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderTensor {
    /// The dimensions, outermost first.
    pub shape: Vec<usize>,
    /// The values, `shape.iter().product()` of them.
    pub data: Vec<f32>,
}

/// A trained reader as its trainer saved it: the config, the WordPiece vocabulary in id order
/// (`vocab.txt`) and the tensors by name.
///
/// The names are Hugging Face `BertModel`'s under `bert.`, plus the score head:
/// `bert.embeddings.{word_embeddings,position_embeddings,token_type_embeddings}.weight`,
/// `bert.embeddings.LayerNorm.{weight,bias}`, for each layer `i`
/// `bert.encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}`,
/// `bert.encoder.layer.{i}.attention.output.dense.{weight,bias}`,
/// `bert.encoder.layer.{i}.attention.output.LayerNorm.{weight,bias}`,
/// `bert.encoder.layer.{i}.intermediate.dense.{weight,bias}`,
/// `bert.encoder.layer.{i}.output.dense.{weight,bias}`,
/// `bert.encoder.layer.{i}.output.LayerNorm.{weight,bias}`, and `head.weight` `[1, hidden]`,
/// `head.bias` `[1]`. Other tensors are ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderWeights {
    /// The network's shape.
    pub config: ReaderConfig,
    /// The vocabulary in token-id order; it holds `[PAD]`, `[UNK]`, `[CLS]` and `[SEP]`.
    pub vocab: Vec<String>,
    /// The tensors by name.
    pub tensors: BTreeMap<String, ReaderTensor>,
}

/// Why reader weights could not be written as a reader model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReaderWeightsError {
    /// A tensor the network needs is not among the weights.
    MissingTensor {
        /// Its name.
        name: String,
    },
    /// A tensor has another shape than the config implies.
    WrongShape {
        /// Its name.
        name: String,
        /// The shape the config implies.
        expected: Vec<usize>,
        /// The tensor's shape.
        found: Vec<usize>,
    },
    /// A tensor holds another number of values than its shape says.
    WrongLength {
        /// Its name.
        name: String,
        /// Values its shape implies.
        expected: usize,
        /// Values it holds.
        found: usize,
    },
    /// A tensor holds a NaN or an infinity.
    NotFinite {
        /// Its name.
        name: String,
    },
    /// The vocabulary lacks a special token.
    MissingSpecialToken {
        /// The token.
        token: &'static str,
    },
    /// A vocabulary entry is longer than the 255 bytes the file gives a token.
    TokenTooLong {
        /// Its id.
        id: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// The config is not one the reader runs.
    InvalidConfig(&'static str),
}

impl fmt::Display for ReaderWeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReaderWeightsError::MissingTensor { name } => {
                write!(f, "reader weights have no tensor {name}")
            }
            ReaderWeightsError::WrongShape {
                name,
                expected,
                found,
            } => write!(
                f,
                "reader tensor {name} has shape {found:?}, the config implies {expected:?}"
            ),
            ReaderWeightsError::WrongLength {
                name,
                expected,
                found,
            } => write!(
                f,
                "reader tensor {name} holds {found} values, its shape says {expected}"
            ),
            ReaderWeightsError::NotFinite { name } => {
                write!(f, "reader tensor {name} holds a NaN or an infinity")
            }
            ReaderWeightsError::MissingSpecialToken { token } => {
                write!(f, "reader vocabulary has no {token}")
            }
            ReaderWeightsError::TokenTooLong { id, len } => write!(
                f,
                "reader vocabulary entry {id} is {len} bytes, longer than 255"
            ),
            ReaderWeightsError::InvalidConfig(what) => {
                write!(f, "reader config is not supported: {what}")
            }
        }
    }
}

impl std::error::Error for ReaderWeightsError {}

/// Quantizes and encodes `weights` as a reader model file (`.ona`): dense weights and
/// embeddings to int8 with one f32 scale per row, the first [`STORED_POSITIONS`] positions,
/// everything else f32.
pub fn encode_reader_model(weights: &ReaderWeights) -> Result<Vec<u8>, ReaderWeightsError> {
    Ok(quantized(&Parts::read(weights)?).encode())
}

/// A reader model file keeping only the vocabulary entries `keep` accepts (and the specials),
/// renumbered in their old order, with their word-embedding rows. Every other byte of the
/// model is kept as it was, so a text whose tokens are all kept scores exactly as before.
///
/// It works on the file, not on a loaded [`super::ReaderModel`]: the loaded model holds
/// dequantized weights, and quantizing them again could move a value by a step.
pub fn prune_reader_model(
    bytes: &[u8],
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<u8>, ReaderModelError> {
    let (mut file, _) = ReaderFile::decode(bytes).map_err(ReaderModelError)?;
    let mut vocab = Vec::new();
    let mut word = Int8Rows {
        cols: file.word.cols,
        scales: Vec::new(),
        data: Vec::new(),
    };
    for (id, token) in file.vocab.iter().enumerate() {
        if !(SPECIALS.contains(&token.as_str()) || keep(token)) {
            continue;
        }
        if let Some((scale, values)) = file.word.row(id) {
            vocab.push(token.clone());
            word.scales.push(scale);
            word.data.extend_from_slice(values);
        }
    }
    file.vocab = vocab;
    file.word = word;
    Ok(file.encode())
}

/// The f32 network, unquantized, as an encoder and its head.
pub(super) fn unquantized(
    weights: &ReaderWeights,
) -> Result<(Encoder, Vec<f32>, f32), ReaderWeightsError> {
    let parts = Parts::read(weights)?;
    let h = parts.shape.hidden;
    let linear = |d: &DenseParts<'_>, n_out, n_in| Linear::new(n_out, n_in, d.0, d.1.to_vec());
    let norm = |n: &NormParts<'_>| Norm {
        weight: n.0.to_vec(),
        bias: n.1.to_vec(),
    };
    let (i, layers) = (parts.shape.intermediate, &parts.layers);
    let encoder = Encoder {
        shape: parts.shape,
        word: WordRows::F32 {
            cols: h,
            data: parts.word.to_vec(),
        },
        position: parts.position.to_vec(),
        token_type: parts.token_type.to_vec(),
        embedding_norm: norm(&parts.embedding_norm),
        layers: layers
            .iter()
            .map(|l| Layer {
                query: linear(&l.query, h, h),
                key: linear(&l.key, h, h),
                value: linear(&l.value, h, h),
                attention_out: linear(&l.attention_out, h, h),
                attention_norm: norm(&l.attention_norm),
                ff_in: linear(&l.ff_in, i, h),
                ff_out: linear(&l.ff_out, h, i),
                ff_norm: norm(&l.ff_norm),
            })
            .collect(),
    };
    Ok((encoder, parts.head_weight.to_vec(), parts.head_bias))
}

fn quantized(parts: &Parts<'_>) -> ReaderFile {
    let h = parts.shape.hidden;
    let dense = |d: &DenseParts<'_>, n_in| StoredDense {
        weight: Int8Rows::quantize(d.0, n_in),
        bias: d.1.to_vec(),
    };
    let norm = |n: &NormParts<'_>| Norm {
        weight: n.0.to_vec(),
        bias: n.1.to_vec(),
    };
    ReaderFile {
        shape: parts.shape,
        vocab: parts.vocab.to_vec(),
        word: Int8Rows::quantize(parts.word, h),
        position: Int8Rows::quantize(parts.position, h),
        token_type: Int8Rows::quantize(parts.token_type, h),
        embedding_norm: norm(&parts.embedding_norm),
        layers: parts
            .layers
            .iter()
            .map(|l| StoredLayer {
                query: dense(&l.query, h),
                key: dense(&l.key, h),
                value: dense(&l.value, h),
                attention_out: dense(&l.attention_out, h),
                attention_norm: norm(&l.attention_norm),
                ff_in: dense(&l.ff_in, h),
                ff_out: dense(&l.ff_out, parts.shape.intermediate),
                ff_norm: norm(&l.ff_norm),
            })
            .collect(),
        head_weight: parts.head_weight.to_vec(),
        head_bias: parts.head_bias,
    }
}

/// A dense layer's weight (`[out, in]`) and bias.
type DenseParts<'a> = (&'a [f32], &'a [f32]);
/// A LayerNorm's weight and bias.
type NormParts<'a> = (&'a [f32], &'a [f32]);

struct LayerParts<'a> {
    query: DenseParts<'a>,
    key: DenseParts<'a>,
    value: DenseParts<'a>,
    attention_out: DenseParts<'a>,
    attention_norm: NormParts<'a>,
    ff_in: DenseParts<'a>,
    ff_out: DenseParts<'a>,
    ff_norm: NormParts<'a>,
}

/// The weights' tensors, checked against the config and cut to what the file stores: one walk
/// over the names for both the quantized file and the unquantized reference.
struct Parts<'a> {
    shape: Shape,
    vocab: &'a [String],
    word: &'a [f32],
    /// The first `shape.positions` rows.
    position: &'a [f32],
    token_type: &'a [f32],
    embedding_norm: NormParts<'a>,
    layers: Vec<LayerParts<'a>>,
    head_weight: &'a [f32],
    head_bias: f32,
}

impl<'a> Parts<'a> {
    fn read(weights: &'a ReaderWeights) -> Result<Parts<'a>, ReaderWeightsError> {
        let c = &weights.config;
        let shape = Shape {
            layers: c.layers,
            hidden: c.hidden,
            heads: c.heads,
            intermediate: c.intermediate,
            positions: c.max_positions.min(STORED_POSITIONS),
            eps: c.layer_norm_eps,
        };
        shape.check().map_err(ReaderWeightsError::InvalidConfig)?;
        for token in SPECIALS {
            if !weights.vocab.iter().any(|t| t == token) {
                return Err(ReaderWeightsError::MissingSpecialToken { token });
            }
        }
        if let Some((id, t)) = weights
            .vocab
            .iter()
            .enumerate()
            .find(|(_, t)| t.len() > 255)
        {
            return Err(ReaderWeightsError::TokenTooLong { id, len: t.len() });
        }
        let get = |name: &str, shape: &[usize]| tensor(weights, name, shape);
        let (h, i) = (c.hidden, c.intermediate);
        let dense = |name: &str, n_out: usize, n_in: usize| -> Result<DenseParts<'a>, _> {
            Ok((
                get(&format!("{name}.weight"), &[n_out, n_in])?,
                get(&format!("{name}.bias"), &[n_out])?,
            ))
        };
        let norm = |name: &str| -> Result<NormParts<'a>, _> {
            Ok((
                get(&format!("{name}.weight"), &[h])?,
                get(&format!("{name}.bias"), &[h])?,
            ))
        };
        let e = "bert.embeddings";
        let position = get(
            &format!("{e}.position_embeddings.weight"),
            &[c.max_positions, h],
        )?;
        let mut layers = Vec::with_capacity(c.layers);
        for l in 0..c.layers {
            let p = format!("bert.encoder.layer.{l}");
            layers.push(LayerParts {
                query: dense(&format!("{p}.attention.self.query"), h, h)?,
                key: dense(&format!("{p}.attention.self.key"), h, h)?,
                value: dense(&format!("{p}.attention.self.value"), h, h)?,
                attention_out: dense(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
                ff_in: dense(&format!("{p}.intermediate.dense"), i, h)?,
                ff_out: dense(&format!("{p}.output.dense"), h, i)?,
                ff_norm: norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let (head_weight, head_bias) = dense("head", 1, h)?;
        Ok(Parts {
            shape,
            vocab: &weights.vocab,
            word: get(
                &format!("{e}.word_embeddings.weight"),
                &[weights.vocab.len(), h],
            )?,
            position: &position[..shape.positions * h],
            token_type: get(
                &format!("{e}.token_type_embeddings.weight"),
                &[TOKEN_TYPES, h],
            )?,
            embedding_norm: norm(&format!("{e}.LayerNorm"))?,
            layers,
            head_weight,
            head_bias: head_bias.first().copied().unwrap_or(0.0),
        })
    }
}

/// Tensor `name`, checked to have `shape`, as many values as that, and only finite ones.
fn tensor<'a>(
    weights: &'a ReaderWeights,
    name: &str,
    shape: &[usize],
) -> Result<&'a [f32], ReaderWeightsError> {
    let t = weights
        .tensors
        .get(name)
        .ok_or_else(|| ReaderWeightsError::MissingTensor { name: name.into() })?;
    if t.shape != shape {
        return Err(ReaderWeightsError::WrongShape {
            name: name.into(),
            expected: shape.to_vec(),
            found: t.shape.clone(),
        });
    }
    // Checked: a product past usize can hold no tensor, and must not wrap into a small one.
    let expected = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .unwrap_or(usize::MAX);
    if t.data.len() != expected {
        return Err(ReaderWeightsError::WrongLength {
            name: name.into(),
            expected,
            found: t.data.len(),
        });
    }
    if t.data.iter().any(|v| !v.is_finite()) {
        return Err(ReaderWeightsError::NotFinite { name: name.into() });
    }
    Ok(&t.data)
}
