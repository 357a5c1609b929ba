//! A BERT-style transformer encoder (absolute positions, post-LayerNorm, erf GELU) that turns one
//! token sequence into its mean-pooled last hidden state, on the CPU.
//!
//! It replaces candle's `BertModel` for build-time embedding, which spent two thirds of its time
//! outside the matrix products (thread barriers between small ops, fresh allocations, a scalar
//! erf). Here one text runs on one thread with reused buffers and without padding, the matrix
//! products go to faer (which picks the widest SIMD the CPU has), and the caller runs one text
//! per core. A text's vector depends on that text alone, never on what else is being embedded,
//! so a cached vector equals a freshly computed one bit for bit.

use anyhow::{Context, Result, bail, ensure};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use onrecord_core::gelu;
use safetensors::{Dtype, SafeTensors};

/// The shape of the network, from the model's `config.json` (Hugging Face BERT or XLM-RoBERTa).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shape {
    pub(crate) hidden: usize,
    pub(crate) layers: usize,
    pub(crate) heads: usize,
    pub(crate) intermediate: usize,
    pub(crate) eps: f32,
    /// How many tokens (special tokens included) one pass can take.
    pub(crate) positions: usize,
    /// The position-embedding row of the first token: 0 for BERT; XLM-RoBERTa numbers positions
    /// from its padding id + 1.
    pub(crate) position_offset: usize,
}

impl Shape {
    pub(crate) fn from_config(json: &[u8]) -> Result<Shape> {
        let config: serde_json::Value =
            serde_json::from_slice(json).context("config.json is not JSON")?;
        let int = |key: &str| -> Result<usize> {
            config
                .get(key)
                .and_then(serde_json::Value::as_u64)
                .and_then(|v| usize::try_from(v).ok())
                .with_context(|| format!("config.json has no integer '{key}'"))
        };
        let act = config.get("hidden_act").and_then(|v| v.as_str());
        ensure!(
            act == Some("gelu"),
            "config.json: hidden_act {act:?} is not supported (only the erf GELU, \"gelu\")"
        );
        let position_offset = match config.get("model_type").and_then(|v| v.as_str()) {
            Some("bert") | None => 0,
            Some("xlm-roberta") => int("pad_token_id")? + 1,
            Some(other) => bail!("config.json: model_type '{other}' is not supported"),
        };
        let shape = Shape {
            hidden: int("hidden_size")?,
            layers: int("num_hidden_layers")?,
            heads: int("num_attention_heads")?,
            intermediate: int("intermediate_size")?,
            eps: config
                .get("layer_norm_eps")
                .and_then(serde_json::Value::as_f64)
                .context("config.json has no 'layer_norm_eps'")? as f32,
            positions: int("max_position_embeddings")?
                .checked_sub(position_offset)
                .context("config.json: fewer positions than the position offset")?,
            position_offset,
        };
        ensure!(
            shape.heads > 0 && shape.hidden % shape.heads == 0,
            "config.json: hidden_size {} is not a multiple of num_attention_heads {}",
            shape.hidden,
            shape.heads
        );
        Ok(shape)
    }
}

/// The weights of one transformer, kept as read (row-major, `[out, in]` for linear layers).
pub(crate) struct Encoder {
    pub(crate) shape: Shape,
    pub(crate) word: WordTable,
    /// `[positions + position_offset, hidden]`.
    pub(crate) position: Vec<f32>,
    /// Row 0 of the token-type table: every token is of type 0.
    pub(crate) token_type: Vec<f32>,
    pub(crate) embed_norm: Norm,
    pub(crate) layers: Vec<Layer>,
}

/// The token embeddings: f32 rows, or 4-bit blocks dequantised row by row when a token is
/// looked up (multilingual-e5's 250,037 rows would take 384 MB as f32).
pub(crate) enum WordTable {
    F32(Vec<f32>),
    #[cfg(feature = "experiments")]
    Q4 {
        blocks: Vec<u8>,
        rows: usize,
    },
}

pub(crate) struct Norm {
    pub(crate) weight: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

pub(crate) struct Linear {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    /// `[outputs, inputs]`, row-major, as PyTorch stores it.
    pub(crate) weight: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

pub(crate) struct Layer {
    /// Query, key and value stacked into one `[3 × hidden, hidden]` product.
    pub(crate) qkv: Linear,
    pub(crate) attention_out: Linear,
    pub(crate) attention_norm: Norm,
    pub(crate) ff_in: Linear,
    pub(crate) ff_out: Linear,
    pub(crate) ff_norm: Norm,
}

impl Linear {
    /// Query, key and value as one product.
    pub(crate) fn stacked(q: Linear, k: Linear, v: Linear) -> Linear {
        Linear {
            inputs: q.inputs,
            outputs: q.outputs + k.outputs + v.outputs,
            weight: [q.weight, k.weight, v.weight].concat(),
            bias: [q.bias, k.bias, v.bias].concat(),
        }
    }
}

impl WordTable {
    fn rows(&self, hidden: usize) -> usize {
        match self {
            WordTable::F32(rows) => rows.len() / hidden.max(1),
            #[cfg(feature = "experiments")]
            WordTable::Q4 { rows, .. } => *rows,
        }
    }

    /// Adds row `id` to `out`.
    #[inline(always)]
    fn add_row(&self, id: usize, out: &mut [f32]) {
        let h = out.len();
        match self {
            WordTable::F32(rows) => {
                for (o, w) in out.iter_mut().zip(&rows[id * h..(id + 1) * h]) {
                    *o += w;
                }
            }
            #[cfg(feature = "experiments")]
            WordTable::Q4 { blocks, .. } => {
                let row_bytes = h / Q4_VALUES * Q4_BYTES;
                let row = &blocks[id * row_bytes..(id + 1) * row_bytes];
                for (block, o) in row
                    .chunks_exact(Q4_BYTES)
                    .zip(out.chunks_exact_mut(Q4_VALUES))
                {
                    for (j, v) in q4_block(block).into_iter().enumerate() {
                        o[j] += v;
                    }
                }
            }
        }
    }
}

/// Values per 4-bit block, and its bytes: an f16 scale and 16 bytes of two 4-bit values each.
#[cfg(feature = "experiments")]
pub(crate) const Q4_VALUES: usize = 32;
#[cfg(feature = "experiments")]
pub(crate) const Q4_BYTES: usize = 18;

/// The 32 values of a Q4_0 block (ggml's layout): byte j holds value j in its low nibble and
/// value j + 16 in its high nibble, each `(nibble - 8) × scale`.
#[cfg(feature = "experiments")]
#[inline(always)]
pub(crate) fn q4_block(block: &[u8]) -> [f32; Q4_VALUES] {
    let scale = half::f16::from_bits(u16::from_le_bytes([block[0], block[1]])).to_f32();
    let mut out = [0f32; Q4_VALUES];
    for (j, byte) in block[2..Q4_BYTES].iter().enumerate() {
        out[j] = (i32::from(byte & 0x0F) - 8) as f32 * scale;
        out[j + 16] = (i32::from(byte >> 4) - 8) as f32 * scale;
    }
    out
}

/// Buffers one thread reuses from text to text.
#[derive(Default)]
pub(crate) struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    attention: Attention,
    tmp: Vec<f32>,
    ff: Vec<f32>,
}

#[derive(Default)]
struct Attention {
    scores: Vec<f32>,
    head: Vec<f32>,
    context: Vec<f32>,
}

impl Encoder {
    /// Reads the weights from a safetensors file with Hugging Face names (`embeddings.…`,
    /// `encoder.layer.N.…`, optionally under a `bert.` or `roberta.` prefix).
    pub(crate) fn load(shape: Shape, safetensors: &[u8]) -> Result<Encoder> {
        let tensors = SafeTensors::deserialize(safetensors).context("not a safetensors file")?;
        let prefix = ["", "bert.", "roberta.", "model."]
            .into_iter()
            .find(|p| {
                tensors
                    .tensor(&format!("{p}embeddings.word_embeddings.weight"))
                    .is_ok()
            })
            .context("no embeddings.word_embeddings.weight tensor")?;
        let get = |name: &str, dims: &[usize]| -> Result<Vec<f32>> {
            let name = format!("{prefix}{name}");
            let view = tensors
                .tensor(&name)
                .with_context(|| format!("no tensor {name}"))?;
            ensure!(
                view.dtype() == Dtype::F32,
                "tensor {name} is {:?}, not F32",
                view.dtype()
            );
            ensure!(
                view.shape() == dims,
                "tensor {name} has shape {:?}, expected {dims:?}",
                view.shape()
            );
            Ok(view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        };
        let h = shape.hidden;
        let vocab = tensors
            .tensor(&format!("{prefix}embeddings.word_embeddings.weight"))?
            .shape()
            .first()
            .copied()
            .unwrap_or(0);
        let norm = |name: &str| -> Result<Norm> {
            Ok(Norm {
                weight: get(&format!("{name}.weight"), &[h])?,
                bias: get(&format!("{name}.bias"), &[h])?,
            })
        };
        let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear> {
            Ok(Linear {
                inputs,
                outputs,
                weight: get(&format!("{name}.weight"), &[outputs, inputs])?,
                bias: get(&format!("{name}.bias"), &[outputs])?,
            })
        };
        let mut layers = Vec::new();
        for i in 0..shape.layers {
            let l = format!("encoder.layer.{i}");
            let (q, k, v) = (
                linear(&format!("{l}.attention.self.query"), h, h)?,
                linear(&format!("{l}.attention.self.key"), h, h)?,
                linear(&format!("{l}.attention.self.value"), h, h)?,
            );
            layers.push(Layer {
                qkv: Linear::stacked(q, k, v),
                attention_out: linear(&format!("{l}.attention.output.dense"), h, h)?,
                attention_norm: norm(&format!("{l}.attention.output.LayerNorm"))?,
                ff_in: linear(&format!("{l}.intermediate.dense"), h, shape.intermediate)?,
                ff_out: linear(&format!("{l}.output.dense"), shape.intermediate, h)?,
                ff_norm: norm(&format!("{l}.output.LayerNorm"))?,
            });
        }
        let type_rows = tensors
            .tensor(&format!("{prefix}embeddings.token_type_embeddings.weight"))
            .map(|t| t.shape().first().copied().unwrap_or(0))
            .unwrap_or(0);
        let token_type = get("embeddings.token_type_embeddings.weight", &[type_rows, h])?;
        Ok(Encoder {
            word: WordTable::F32(get("embeddings.word_embeddings.weight", &[vocab, h])?),
            position: get(
                "embeddings.position_embeddings.weight",
                &[shape.positions + shape.position_offset, h],
            )?,
            token_type: token_type
                .get(..h)
                .context("empty token-type table")?
                .to_vec(),
            embed_norm: norm("embeddings.LayerNorm")?,
            layers,
            shape,
        })
    }

    pub(crate) fn shape(&self) -> &Shape {
        &self.shape
    }

    pub(crate) fn vocab_size(&self) -> usize {
        self.word.rows(self.shape.hidden)
    }

    /// The mean of the last hidden states of `ids` (special tokens included), not normalised.
    pub(crate) fn mean_pooled(&self, ids: &[u32], s: &mut Scratch) -> Result<Vec<f32>> {
        // pulp compiles `forward` (and the element-wise loops inlined into it) for the widest
        // SIMD this CPU has and picks that copy at run time; without it they would be SSE2 only.
        pulp::Arch::new().dispatch(Forward {
            encoder: self,
            ids,
            scratch: s,
        })
    }

    #[inline(always)]
    fn forward(&self, ids: &[u32], s: &mut Scratch) -> Result<Vec<f32>> {
        let Shape {
            hidden: h,
            eps,
            position_offset,
            positions,
            ..
        } = self.shape;
        let t = ids.len();
        ensure!(
            (1..=positions).contains(&t),
            "{t} tokens: the encoder takes 1 to {positions}"
        );
        let vocab = self.vocab_size();
        s.x.clear();
        for (pos, &id) in ids.iter().enumerate() {
            let id = id as usize;
            ensure!(id < vocab, "token id {id} is outside the vocabulary");
            let row = position_offset + pos;
            let start = s.x.len();
            s.x.extend(
                self.position[row * h..(row + 1) * h]
                    .iter()
                    .zip(&self.token_type)
                    .map(|(p, k)| p + k),
            );
            self.word.add_row(id, &mut s.x[start..]);
        }
        layer_norm(&mut s.x, None, &self.embed_norm, eps);
        for layer in &self.layers {
            linear(&s.x, t, &layer.qkv, &mut s.qkv);
            self.attention(t, &s.qkv, &mut s.attention);
            linear(&s.attention.context, t, &layer.attention_out, &mut s.tmp);
            layer_norm(&mut s.x, Some(&s.tmp), &layer.attention_norm, eps);
            linear(&s.x, t, &layer.ff_in, &mut s.ff);
            for v in s.ff.iter_mut() {
                *v = gelu(*v);
            }
            linear(&s.ff, t, &layer.ff_out, &mut s.tmp);
            layer_norm(&mut s.x, Some(&s.tmp), &layer.ff_norm, eps);
        }
        let mut mean = vec![0f32; h];
        for row in s.x.chunks_exact(h) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        for m in mean.iter_mut() {
            *m /= t as f32;
        }
        Ok(mean)
    }

    /// Multi-head self-attention over all `t` tokens (there is no padding to mask).
    #[inline(always)]
    fn attention(&self, t: usize, qkv: &[f32], s: &mut Attention) {
        let h = self.shape.hidden;
        let d = h / self.shape.heads;
        let scale = 1.0 / (d as f32).sqrt();
        s.scores.resize(t * t, 0.0);
        s.head.resize(t * d, 0.0);
        s.context.resize(t * h, 0.0);
        for head in 0..self.shape.heads {
            let view = |offset: usize| {
                MatRef::from_row_major_slice_with_stride(&qkv[offset + head * d..], t, d, 3 * h)
            };
            let (q, k, v) = (view(0), view(h), view(2 * h));
            matmul(
                MatMut::from_row_major_slice_mut(&mut s.scores, t, t),
                Accum::Replace,
                q,
                k.transpose(),
                scale,
                Par::Seq,
            );
            for row in s.scores.chunks_exact_mut(t) {
                softmax(row);
            }
            // Into a contiguous buffer, then copied: faer 0.23.2 writes past the end of a
            // strided destination when t < 33 (found by this encoder's tests).
            matmul(
                MatMut::from_row_major_slice_mut(&mut s.head, t, d),
                Accum::Replace,
                MatRef::from_row_major_slice(&s.scores, t, t),
                v,
                1.0,
                Par::Seq,
            );
            for (row, out) in s.head.chunks_exact(d).zip(s.context.chunks_exact_mut(h)) {
                out[head * d..(head + 1) * d].copy_from_slice(row);
            }
        }
    }
}

struct Forward<'a> {
    encoder: &'a Encoder,
    ids: &'a [u32],
    scratch: &'a mut Scratch,
}

impl pulp::WithSimd for Forward<'_> {
    type Output = Result<Vec<f32>>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        self.encoder.forward(self.ids, self.scratch)
    }
}

/// `out[rows, outputs] = input[rows, inputs] · weightᵀ + bias`.
fn linear(input: &[f32], rows: usize, layer: &Linear, out: &mut Vec<f32>) {
    out.clear();
    for _ in 0..rows {
        out.extend_from_slice(&layer.bias);
    }
    matmul(
        MatMut::from_row_major_slice_mut(out, rows, layer.outputs),
        Accum::Add,
        MatRef::from_row_major_slice(input, rows, layer.inputs),
        MatRef::from_row_major_slice(&layer.weight, layer.outputs, layer.inputs).transpose(),
        1.0,
        Par::Seq,
    );
}

/// `x = LayerNorm(x + residual)` row by row.
#[inline(always)]
fn layer_norm(x: &mut [f32], residual: Option<&[f32]>, norm: &Norm, eps: f32) {
    let h = norm.weight.len();
    if let Some(residual) = residual {
        for (a, b) in x.iter_mut().zip(residual) {
            *a += b;
        }
    }
    for row in x.chunks_exact_mut(h) {
        let mean = sum(row) / h as f32;
        for v in row.iter_mut() {
            *v -= mean;
        }
        let var = sum_of_squares(row) / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = *v * inv * w + b;
        }
    }
}

// The element-wise loops below are plain `for` loops with partial results kept side by side in
// `LANES` lanes: iterator adapters (`for_each`, `fold`) were not inlined into the SIMD copy, and a
// single running f32 sum cannot be reordered into vector lanes by the compiler.

const LANES: usize = 16;

#[inline(always)]
fn softmax(row: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l = l.max(*v);
        }
    }
    let mut max = f32::NEG_INFINITY;
    for v in lanes.iter().chain(chunks.remainder()) {
        max = max.max(*v);
    }
    for v in row.iter_mut() {
        *v = exp(*v - max);
    }
    let inv = 1.0 / sum(row);
    for v in row.iter_mut() {
        *v *= inv;
    }
}

#[inline(always)]
fn sum(values: &[f32]) -> f32 {
    let mut lanes = [0f32; LANES];
    let mut chunks = values.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l += v;
        }
    }
    let mut total = 0.0;
    for v in lanes.iter().chain(chunks.remainder()) {
        total += v;
    }
    total
}

#[inline(always)]
fn sum_of_squares(values: &[f32]) -> f32 {
    let mut lanes = [0f32; LANES];
    let mut chunks = values.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(chunk) {
            *l += v * v;
        }
    }
    let mut total = 0.0;
    for l in lanes {
        total += l;
    }
    for v in chunks.remainder() {
        total += v * v;
    }
    total
}

/// e^x for x ≤ 0 (softmax arguments), within 2 ulp of libm: Cephes' expf polynomial with the
/// power of two made from bits. Unlike libm's scalar call (a quarter of the encoder's time on
/// the attention scores) this vectorises.
#[inline(always)]
fn exp(x: f32) -> f32 {
    // Below this e^x is subnormal; the softmax loses nothing by rounding it to 2^-126 scale.
    let x = x.max(-87.0);
    // Adding 1.5 × 2^23 rounds x·log2(e) to an integer n and leaves n in the low mantissa bits.
    let shifted = x * std::f32::consts::LOG2_E + 12_582_912.0;
    let n = shifted - 12_582_912.0;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let mut p = 1.987_569_1e-4_f32;
    for c in [
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        0.166_666_65,
        0.5,
    ] {
        p = p * r + c;
    }
    let two_to_n = f32::from_bits(
        shifted
            .to_bits()
            .wrapping_sub(0x4B40_0000)
            .wrapping_add(127)
            << 23,
    );
    (p * r * r + r + 1.0) * two_to_n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gelu_matches_libm() {
        let mut worst = 0f64;
        for i in -6000..=6000 {
            let x = i as f32 / 1000.0;
            let want =
                0.5 * f64::from(x) * (1.0 + libm::erf(f64::from(x) / std::f64::consts::SQRT_2));
            worst = worst.max((f64::from(gelu(x)) - want).abs());
        }
        assert!(worst < 2e-6, "largest gelu error {worst}");
    }

    #[test]
    fn exp_matches_libm() {
        let mut worst = 0f64;
        for i in 0..=87_000 {
            let x = -(i as f32) / 1000.0;
            let (got, want) = (f64::from(exp(x)), libm::exp(f64::from(x)));
            worst = worst.max((got - want).abs() / want);
        }
        assert!(worst < 3e-7, "largest relative exp error {worst}");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(-1000.0) >= 0.0 && exp(-1000.0) < 1e-37);
    }

    #[test]
    fn lane_sums_equal_plain_sums() {
        for n in [0, 1, 15, 16, 17, 100, 384] {
            let values: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let plain: f32 = values.iter().sum();
            let squares: f32 = values.iter().map(|v| v * v).sum();
            assert!((sum(&values) - plain).abs() < 1e-4, "{n}");
            assert!((sum_of_squares(&values) - squares).abs() < 1e-4, "{n}");
        }
    }

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let mut row = [1.0f32, 3.0, -2.0, 3.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] == row[3] && row[1] > row[0] && row[0] > row[2]);
    }
}
