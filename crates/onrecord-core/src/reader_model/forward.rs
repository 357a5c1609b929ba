//! The forward pass: BERT's post-LayerNorm encoder over one token sequence, returning the last
//! layer's hidden state at `[CLS]`.
//!
//! Speed matters here (eight passages per question, in wasm): weights are f32 in memory, the
//! dense layers' weights are packed in panels the inner loop reads front to back, every buffer
//! lives in a [`Scratch`] reused from passage to passage, and the last layer computes only the
//! `[CLS]` row, the one the score reads (its keys and values still come from every row).

use super::format::{Int8Rows, Norm, Shape};

/// Outputs one panel of a dense layer holds: per row, two 8-lane or four 4-lane vectors of
/// accumulators, which the compiler keeps in registers.
const TILE: usize = 16;
/// Rows (tokens) that share one pass over a panel's weights. With [`TILE`] 16 that is 8
/// accumulator vectors of 4 lanes, the panel's 4 and a broadcast: within the 16 registers of
/// SSE2 and wasm's SIMD; 4 rows spilled (measured: 10% more instructions).
const ROWS: usize = 2;

/// Word-embedding rows: int8 as stored (a full vocabulary is 30522 rows, four times larger in
/// f32, and a sequence reads only its own rows), or f32 for the unquantized reference.
#[derive(Debug, Clone)]
pub(crate) enum WordRows {
    Int8(Int8Rows),
    F32 { cols: usize, data: Vec<f32> },
}

impl WordRows {
    /// Writes row `id` into `out` (zeros past the end: the tokenizer only makes ids it has).
    fn write(&self, id: usize, out: &mut [f32]) {
        let row = match self {
            WordRows::Int8(rows) => rows.row(id).map(|(scale, values)| {
                for (o, &q) in out.iter_mut().zip(values) {
                    *o = scale * f32::from(q);
                }
            }),
            WordRows::F32 { cols, data } => id
                .checked_mul(*cols)
                .and_then(|start| data.get(start..start.checked_add(*cols)?))
                .map(|row| out.copy_from_slice(row)),
        };
        if row.is_none() {
            out.fill(0.0);
        }
    }
}

/// A dense layer `y = W x + b` with its weights rearranged for [`Linear::apply`].
#[derive(Debug, Clone)]
pub(crate) struct Linear {
    n_in: usize,
    n_out: usize,
    /// For each panel of [`TILE`] outputs, for each input, the panel's weights for that input.
    packed: Vec<f32>,
    /// The outputs past the last whole panel, as rows of `W` (dot products).
    tail: Vec<f32>,
    bias: Vec<f32>,
}

impl Linear {
    /// From `weight` in torch's layout ([out, in], row-major, `n_out × n_in` values) and
    /// `bias` (`n_out` values); the caller has checked both lengths.
    pub(crate) fn new(n_out: usize, n_in: usize, weight: &[f32], bias: Vec<f32>) -> Linear {
        let whole = n_out / TILE * TILE;
        let mut packed = Vec::with_capacity(whole * n_in);
        for o0 in (0..whole).step_by(TILE) {
            for i in 0..n_in {
                packed.extend((o0..o0 + TILE).map(|o| weight[o * n_in + i]));
            }
        }
        Linear {
            n_in,
            n_out,
            packed,
            tail: weight[whole * n_in..n_out * n_in].to_vec(),
            bias,
        }
    }

    /// `y = W x + b` for each row of `x` (`rows × n_in`) into `y` (`rows × n_out`); `xt` is
    /// scratch space.
    fn apply(&self, x: &[f32], y: &mut [f32], xt: &mut Vec<f32>) {
        let rows = x.len() / self.n_in;
        let whole = rows / ROWS * ROWS;
        let (x_main, x_rest) = x.split_at(whole * self.n_in);
        let (y_main, y_rest) = y.split_at_mut(whole * self.n_out);
        let x_blocks = x_main.chunks_exact(ROWS * self.n_in);
        for (x, y) in x_blocks.zip(y_main.chunks_exact_mut(ROWS * self.n_out)) {
            // Interleaved, input by input, so the inner loop reads the block's inputs in order.
            xt.clear();
            for i in 0..self.n_in {
                xt.extend((0..ROWS).map(|k| x[k * self.n_in + i]));
            }
            self.block::<ROWS>(xt, x, y);
        }
        let x_rows = x_rest.chunks_exact(self.n_in);
        for (x, y) in x_rows.zip(y_rest.chunks_exact_mut(self.n_out)) {
            self.block::<1>(x, x, y);
        }
    }

    /// `R` rows at once, their inputs interleaved in `xt` (`xt[i * R + k]` is input `i` of row
    /// `k`; `x` is the same rows one after the other): each weight loaded serves `R` rows. The
    /// fixed-size accumulators and inner loops are what lets the compiler vectorize without
    /// fast-math (each lane is its own sum, so no sum is reordered).
    #[inline(always)]
    fn block<const R: usize>(&self, xt: &[f32], x: &[f32], y: &mut [f32]) {
        let (n_in, n_out) = (self.n_in, self.n_out);
        let panels = self.packed.chunks_exact(TILE * n_in);
        let biases = self.bias.chunks_exact(TILE);
        for (p, (panel, bias)) in panels.zip(biases).enumerate() {
            let mut acc = [[0f32; TILE]; R];
            for a in &mut acc {
                a.copy_from_slice(bias);
            }
            for (xi, w) in xt.chunks_exact(R).zip(panel.chunks_exact(TILE)) {
                let (Ok(xi), Ok(w)) = (<&[f32; R]>::try_from(xi), <&[f32; TILE]>::try_from(w))
                else {
                    continue;
                };
                for (a, &xv) in acc.iter_mut().zip(xi) {
                    for j in 0..TILE {
                        a[j] += xv * w[j];
                    }
                }
            }
            for (k, a) in acc.iter().enumerate() {
                y[k * n_out + p * TILE..][..TILE].copy_from_slice(a);
            }
        }
        let whole = n_out / TILE * TILE;
        for (j, row) in self.tail.chunks_exact(n_in).enumerate() {
            let o = whole + j;
            for k in 0..R {
                y[k * n_out + o] = self.bias[o] + dot(&x[k * n_in..][..n_in], row);
            }
        }
    }
}

/// One encoder layer, in f32.
#[derive(Debug, Clone)]
pub(crate) struct Layer {
    pub(crate) query: Linear,
    pub(crate) key: Linear,
    pub(crate) value: Linear,
    pub(crate) attention_out: Linear,
    pub(crate) attention_norm: Norm,
    pub(crate) ff_in: Linear,
    pub(crate) ff_out: Linear,
    pub(crate) ff_norm: Norm,
}

/// The encoder in memory: what the forward pass reads.
#[derive(Debug, Clone)]
pub(crate) struct Encoder {
    pub(crate) shape: Shape,
    pub(crate) word: WordRows,
    /// `positions × hidden`, f32.
    pub(crate) position: Vec<f32>,
    /// `2 × hidden`, f32.
    pub(crate) token_type: Vec<f32>,
    pub(crate) embedding_norm: Norm,
    pub(crate) layers: Vec<Layer>,
}

/// The forward pass's buffers, sized for the longest sequence seen so far and reused.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Hidden states, `n × hidden`.
    x: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    context: Vec<f32>,
    /// The attention block's output, `n × hidden`.
    attended: Vec<f32>,
    /// The feed-forward block's inner activations, `n × intermediate`.
    inner: Vec<f32>,
    /// One row of attention weights, `n`.
    weights: Vec<f32>,
    /// A block of rows interleaved for [`Linear::apply`].
    interleaved: Vec<f32>,
}

impl Scratch {
    fn size(&mut self, n: usize, shape: &Shape) {
        let (nh, ni) = (n * shape.hidden, n * shape.intermediate);
        for buf in [
            &mut self.x,
            &mut self.q,
            &mut self.k,
            &mut self.v,
            &mut self.context,
            &mut self.attended,
        ] {
            buf.resize(nh, 0.0);
        }
        self.inner.resize(ni, 0.0);
        self.weights.resize(n, 0.0);
    }
}

impl Encoder {
    /// The last layer's hidden state at position 0 for the token `ids`, the first `first_len`
    /// of which are segment 0 and the rest segment 1. `ids` holds 1 to `shape.positions`
    /// tokens (the caller cuts the sequence); an empty one gives zeros.
    pub(crate) fn cls<'s>(&self, ids: &[u32], first_len: usize, s: &'s mut Scratch) -> &'s [f32] {
        let h = self.shape.hidden;
        let n = ids.len().min(self.shape.positions);
        s.size(n.max(1), &self.shape);
        if n == 0 {
            s.x.fill(0.0);
            return &s.x[..h];
        }
        let rows = s.x.chunks_exact_mut(h).zip(self.position.chunks_exact(h));
        for (t, ((row, position), &id)) in rows.zip(ids).enumerate() {
            self.word.write(id as usize, row);
            let segment = usize::from(t >= first_len);
            let token_type = &self.token_type[segment * h..][..h];
            for ((x, p), tt) in row.iter_mut().zip(position).zip(token_type) {
                *x += p + tt;
            }
            layer_norm(row, &self.embedding_norm, self.shape.eps);
        }
        for (l, layer) in self.layers.iter().enumerate() {
            // Nothing after the last layer reads a row other than [CLS].
            let rows = if l + 1 == self.layers.len() { 1 } else { n };
            self.layer(layer, n, rows, s);
        }
        &s.x[..h]
    }

    /// One layer over `n` tokens, computing the new hidden states of the first `rows`.
    fn layer(&self, layer: &Layer, n: usize, rows: usize, s: &mut Scratch) {
        let (h, i) = (self.shape.hidden, self.shape.intermediate);
        let (heads, eps) = (self.shape.heads, self.shape.eps);
        let xt = &mut s.interleaved;
        layer.key.apply(&s.x[..n * h], &mut s.k[..n * h], xt);
        layer.value.apply(&s.x[..n * h], &mut s.v[..n * h], xt);
        layer
            .query
            .apply(&s.x[..rows * h], &mut s.q[..rows * h], xt);
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        for t in 0..rows {
            for head in 0..heads {
                let at = head * d;
                let q = &s.q[t * h + at..][..d];
                for (w, k) in s.weights.iter_mut().zip(s.k.chunks_exact(h)) {
                    *w = dot(q, &k[at..at + d]) * scale;
                }
                softmax(&mut s.weights[..n]);
                let out = &mut s.context[t * h + at..][..d];
                out.fill(0.0);
                for (&w, v) in s.weights.iter().zip(s.v.chunks_exact(h)) {
                    for (o, &v) in out.iter_mut().zip(&v[at..at + d]) {
                        *o += w * v;
                    }
                }
            }
        }
        layer
            .attention_out
            .apply(&s.context[..rows * h], &mut s.attended[..rows * h], xt);
        let residual = s.attended.chunks_exact_mut(h).zip(s.x.chunks_exact(h));
        for (a, x) in residual.take(rows) {
            a.iter_mut().zip(x).for_each(|(a, x)| *a += x);
            layer_norm(a, &layer.attention_norm, eps);
        }
        layer
            .ff_in
            .apply(&s.attended[..rows * h], &mut s.inner[..rows * i], xt);
        s.inner[..rows * i].iter_mut().for_each(|v| *v = gelu(*v));
        layer
            .ff_out
            .apply(&s.inner[..rows * i], &mut s.x[..rows * h], xt);
        let residual = s.x.chunks_exact_mut(h).zip(s.attended.chunks_exact(h));
        for (x, a) in residual.take(rows) {
            x.iter_mut().zip(a).for_each(|(x, a)| *x += a);
            layer_norm(x, &layer.ff_norm, eps);
        }
    }
}

/// Σ aᵢbᵢ in eight independent lanes, which the compiler vectorizes (one running sum would
/// have to be added in order).
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8
        .remainder()
        .iter()
        .zip(b8.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut lanes = [0f32; 8];
    for (a, b) in a8.zip(b8) {
        for j in 0..8 {
            lanes[j] += a[j] * b[j];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// LayerNorm as torch computes it: the biased variance, epsilon inside the square root.
fn layer_norm(x: &mut [f32], norm: &Norm, eps: f32) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, w), b) in x.iter_mut().zip(&norm.weight).zip(&norm.bias) {
        *v = (*v - mean) * inv * w + b;
    }
}

fn softmax(x: &mut [f32]) {
    let max = x.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    // The largest term is exp(0) = 1, so the sum is at least 1.
    x.iter_mut().for_each(|v| *v /= sum);
}

/// BERT's `"gelu"`: the exact form with erf, not the tanh approximation (which is off by up
/// to about 1e-3 and would move scores away from what the model was trained with). The build's
/// embedder uses it too.
#[inline]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf, which std lacks: the rational approximation Eigen and XLA use for f32, within 4e-7 of
/// the exact value (below f32's resolution of the activations it feeds; erf(±4) is 1 in f32).
/// It needs no `exp` and only multiply-adds, so it costs little and vectorizes (libm's scalar
/// erff was 8% of the build's embedding profile).
#[inline]
pub(crate) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    for c in [
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_6e-3,
        -1.609_603_3e-2,
    ] {
        p = p * x2 + c;
    }
    let mut q = -1.456_607_2e-5_f32;
    for c in [
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329_2e-3,
        -1.426_473_9e-2,
    ] {
        q = q * x2 + c;
    }
    x * p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        // erf from tables (Abramowitz & Stegun 7.1), to 10 digits.
        let table: [(f32, f64); 8] = [
            (0.0, 0.0),
            (0.1, 0.112_462_916_0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (1.5, 0.966_105_146_5),
            (2.0, 0.995_322_265_0),
            (3.0, 0.999_977_909_5),
            (5.0, 1.0),
        ];
        for (x, want) in table {
            assert!(
                (f64::from(erf(x)) - want).abs() < 5e-7,
                "erf({x}) = {}",
                erf(x)
            );
            assert!((f64::from(erf(-x)) + want).abs() < 5e-7, "erf(-{x})");
        }
    }

    #[test]
    fn gelu_matches_its_definition() {
        assert_eq!(gelu(0.0), 0.0);
        assert!((gelu(1.0) - 0.841_344_8).abs() < 1e-6);
        assert!((gelu(-1.0) + 0.158_655_2).abs() < 1e-6);
        assert!((gelu(10.0) - 10.0).abs() < 1e-6 && gelu(-10.0).abs() < 1e-6);
    }

    #[test]
    fn linear_matches_the_naive_product_for_every_shape() {
        // Shapes below, at and past a panel and a row block, so the tails run too.
        for (n_out, n_in, rows) in [(1, 1, 1), (16, 3, 4), (19, 5, 6), (33, 17, 9), (8, 8, 3)] {
            let weight: Vec<f32> = (0..n_out * n_in)
                .map(|k| ((k * 37 % 23) as f32 - 11.0) / 7.0)
                .collect();
            let bias: Vec<f32> = (0..n_out).map(|o| o as f32 / 3.0).collect();
            let x: Vec<f32> = (0..rows * n_in)
                .map(|k| ((k * 13 % 17) as f32 - 8.0) / 5.0)
                .collect();
            let linear = Linear::new(n_out, n_in, &weight, bias.clone());
            let mut y = vec![f32::NAN; rows * n_out];
            linear.apply(&x, &mut y, &mut Vec::new());
            for r in 0..rows {
                for o in 0..n_out {
                    let want: f32 = bias[o]
                        + (0..n_in)
                            .map(|i| weight[o * n_in + i] * x[r * n_in + i])
                            .sum::<f32>();
                    let got = y[r * n_out + o];
                    assert!((got - want).abs() < 1e-4, "{n_out}x{n_in} row {r} out {o}");
                }
            }
        }
    }
}
