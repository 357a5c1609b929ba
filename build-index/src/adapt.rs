//! Site adaptation of the static query table (issue 10 §2): at build time, the rows of the
//! tokens the site uses are nudged so that the site's own question-like lines — headings,
//! title + heading, first sentences — point at their fragments' vectors.
//!
//! The browser embeds a question as the normalised sum of its tokens' rows; fragments carry the
//! teacher's vector projected into the same space. The pseudo-queries come from the site's text
//! only, never from questions. The loss is contrastive: each pseudo-query against the site's
//! other fragments (or only the batch's), its own section's other fragments left out, so
//! headings do not collapse onto one direction; an L2 pull towards the original rows keeps what
//! the table learned on general text.
//!
//! Measured by the cross-corpus protocol (README, `eval/results/cross-corpus-adapt.md`): recall@5
//! and paraphrases gain, rank 1 and balanced accuracy do not, so the build does it only when
//! asked (`--adapt`).
//!
//! Only rows that exist and occur in a pseudo-query change, and they are requantised on the
//! model's own grid, so the file keeps its format and about its gzip size.
//!
//! Single-threaded, seeded and in a fixed order: the same site gives byte-identical models.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::{Result, bail};
use onrecord_core::{Index, QueryModel, encode_query_model_rows, quantize_row};

use crate::random::SplitMix;

/// The adaptation knobs (chosen on the fit corpora's dev halves; see the eval's `--adapt`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adapt {
    /// Passes over the pseudo-queries.
    pub epochs: usize,
    /// Adam's learning rate (rows have norms around 1).
    pub lr: f32,
    /// Weight of the L2 pull back to the original rows.
    pub pull: f32,
    /// Softmax temperature of the contrastive loss.
    pub temperature: f32,
    /// Pseudo-queries per batch (and so in-batch negatives).
    pub batch: usize,
    /// Whether fragments' first sentences are pseudo-queries too (headings always are).
    pub first_sentences: bool,
    /// Negatives: every fragment of the site (`true`; the near misses that decide rank 1) or
    /// the other pseudo-queries' fragments in the batch.
    pub site_negatives: bool,
    /// Seed of the shuffle.
    pub seed: u64,
}

impl Adapt {
    /// The knobs `eval --cross eval/corpora.json --adapt-sweep` picks on every dev half.
    pub const STANDARD: Adapt = Adapt {
        epochs: 4,
        lr: 0.03,
        pull: 0.1,
        temperature: 0.05,
        batch: 256,
        first_sentences: true,
        site_negatives: true,
        seed: 0x0a0a_7ab1e,
    };
}

/// At most this many pseudo-queries (a larger site is subsampled evenly) and, with site
/// negatives, at most this many fragments per batch (drawn afresh for each batch on a larger
/// site): together they bound the time at about a minute whatever the site's size.
pub const MAX_QUERIES: usize = 20_000;
pub const MAX_NEGATIVES: usize = 4096;
/// Tokens of a pseudo-query beyond this are cut (questions are short).
const MAX_QUERY_TOKENS: usize = 32;

/// What an adaptation did, for the build report.
#[derive(Debug, Clone, Default)]
pub struct AdaptStats {
    pub pseudo_queries: usize,
    pub rows_changed: usize,
    /// Mean cosine of a pseudo-query with its fragment: with the original table, the trained
    /// float table and the adapted (requantised) one.
    pub cos_before: f32,
    pub cos_trained: f32,
    pub cos_after: f32,
    pub secs: f64,
    pub model_bytes: usize,
}

/// A site's pseudo-queries: `(text, fragment)`. Each fragment's own heading, its page title +
/// heading and (optionally) its first sentence; a text that stands for more than one section
/// (a heading such as "Examples") is left out, and a section's text maps to its first fragment.
pub fn pseudo_queries(index: &Index, first_sentences: bool) -> Vec<(String, u32)> {
    let mut seen: HashMap<String, Option<(u32, usize)>> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let sections = sections(index);
    for (i, f) in index.fragments.iter().enumerate() {
        let title = index
            .docs
            .get(f.doc as usize)
            .map_or("", |d| d.title.as_str());
        let heading = f.heading_path.last().map_or("", String::as_str);
        let mut texts = vec![heading.to_owned(), format!("{title} {heading}")];
        if first_sentences && let Some(&(start, end)) = f.sentences.first() {
            texts.extend(f.text.get(start as usize..end as usize).map(str::to_owned));
        }
        for text in texts {
            let text = text.trim().to_owned();
            if text.is_empty() {
                continue;
            }
            let key = text.to_lowercase();
            match seen.get_mut(&key) {
                None => {
                    seen.insert(key, Some((i as u32, sections[i])));
                    order.push(text);
                }
                Some(slot) => {
                    if slot.is_some_and(|(_, s)| s != sections[i]) {
                        *slot = None;
                    }
                }
            }
        }
    }
    order
        .into_iter()
        .filter_map(|text| {
            let (frag, _) = seen.get(&text.to_lowercase()).copied().flatten()?;
            Some((text, frag))
        })
        .collect()
}

/// Each fragment's section: fragments of one page under the same headings share one.
fn sections(index: &Index) -> Vec<usize> {
    let mut ids: HashMap<(u32, &[String]), usize> = HashMap::new();
    index
        .fragments
        .iter()
        .map(|f| {
            let n = ids.len();
            *ids.entry((f.doc, f.heading_path.as_slice())).or_insert(n)
        })
        .collect()
}

/// The adapted model file: `base` (the model's bytes) with the rows of the tokens of `index`'s
/// pseudo-queries trained towards `targets` (one unit vector per fragment, in the model's space).
pub fn adapt(
    base: &[u8],
    index: &Index,
    targets: &[Vec<f32>],
    knobs: &Adapt,
) -> Result<(Vec<u8>, AdaptStats)> {
    let started = Instant::now();
    let model = QueryModel::from_bytes(base).map_err(|e| anyhow::anyhow!("query model: {e}"))?;
    let dims = model.dims();
    if targets.len() != index.fragments.len() || targets.iter().any(|t| t.len() != dims) {
        bail!("adaptation needs one {dims}-d vector per fragment");
    }
    let vocab = model.vocab();
    let rows: Vec<(u32, f32, Vec<i8>)> = model
        .rows()
        .map(|(id, scale, values)| (id, scale, values.to_vec()))
        .collect();
    // The model is rewritten from its parts, so they must give back the very same file.
    if encode_query_model_rows(&vocab, dims as u32, &rows) != base {
        bail!("the query model cannot be rewritten byte for byte (a duplicate vocabulary entry?)");
    }
    let grid = grid_of(&rows);
    let row_index: HashMap<u32, usize> =
        rows.iter().enumerate().map(|(r, row)| (row.0, r)).collect();

    // Pseudo-queries as lists of trainable rows; the trainable rows get dense indices.
    let mut queries = pseudo_queries(index, knobs.first_sentences);
    if queries.len() > MAX_QUERIES {
        let step = queries.len() as f64 / MAX_QUERIES as f64;
        queries = (0..MAX_QUERIES)
            .filter_map(|k| queries.get((k as f64 * step) as usize).cloned())
            .collect();
    }
    let sections = sections(index);
    let mut param_of: HashMap<usize, usize> = HashMap::new();
    let mut params_rows: Vec<usize> = Vec::new();
    let mut samples: Vec<(Vec<usize>, usize)> = Vec::new();
    for (text, frag) in &queries {
        let mut tokens = Vec::new();
        for id in model
            .wordpiece()
            .tokenize(text)
            .into_iter()
            .take(MAX_QUERY_TOKENS)
        {
            let Some(&r) = row_index.get(&id) else {
                continue;
            };
            let n = params_rows.len();
            let p = *param_of.entry(r).or_insert(n);
            if p == n {
                params_rows.push(r);
            }
            tokens.push(p);
        }
        if !tokens.is_empty() {
            samples.push((tokens, *frag as usize));
        }
    }
    let dequant = |r: usize| -> Vec<f32> {
        let (_, scale, values) = &rows[r];
        values.iter().map(|&v| scale * f32::from(v)).collect()
    };
    let original: Vec<f32> = params_rows.iter().flat_map(|&r| dequant(r)).collect();
    let mut table = original.clone();
    let cos_before = mean_cos(&samples, &table, targets, dims);
    train(
        &mut table, &original, &samples, targets, &sections, dims, knobs,
    );
    let cos_trained = mean_cos(&samples, &table, targets, dims);

    let mut out_rows = rows;
    for (p, &r) in params_rows.iter().enumerate() {
        let (scale, values) = quantize_row(&table[p * dims..(p + 1) * dims], grid);
        out_rows[r].1 = scale;
        out_rows[r].2 = values;
    }
    let quantised: Vec<f32> = params_rows
        .iter()
        .flat_map(|&r| {
            let (_, scale, values) = &out_rows[r];
            values.iter().map(move |&v| scale * f32::from(v))
        })
        .collect();
    let cos_after = mean_cos(&samples, &quantised, targets, dims);
    let bytes = encode_query_model_rows(&vocab, dims as u32, &out_rows);
    let stats = AdaptStats {
        pseudo_queries: samples.len(),
        rows_changed: params_rows.len(),
        cos_before,
        cos_trained,
        cos_after,
        secs: started.elapsed().as_secs_f64(),
        model_bytes: bytes.len(),
    };
    Ok((bytes, stats))
}

/// The coarsest grid (32, 16, …, 1) every stored value lies on (±127 counts as the top step).
fn grid_of(rows: &[(u32, f32, Vec<i8>)]) -> u8 {
    [32u8, 16, 8, 4, 2]
        .into_iter()
        .find(|&g| {
            rows.iter()
                .flat_map(|(_, _, v)| v)
                .all(|&v| v.unsigned_abs() == 127 || i16::from(v) % i16::from(g) == 0)
        })
        .unwrap_or(1)
}

/// The unit query vector of a pseudo-query (its rows summed), with the sum's norm.
fn query_vector(tokens: &[usize], table: &[f32], dims: usize) -> (Vec<f32>, f32) {
    let mut s = vec![0f32; dims];
    for &p in tokens {
        for (x, &e) in s.iter_mut().zip(&table[p * dims..(p + 1) * dims]) {
            *x += e;
        }
    }
    let norm = s.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    s.iter_mut().for_each(|x| *x /= norm);
    (s, norm)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn mean_cos(
    samples: &[(Vec<usize>, usize)],
    table: &[f32],
    targets: &[Vec<f32>],
    dims: usize,
) -> f32 {
    let sum: f32 = samples
        .iter()
        .map(|(tokens, frag)| dot(&query_vector(tokens, table, dims).0, &targets[*frag]))
        .sum();
    sum / samples.len().max(1) as f32
}

/// Adam on the contrastive loss plus the pull, rows updated only when a batch uses them.
fn train(
    table: &mut [f32],
    original: &[f32],
    samples: &[(Vec<usize>, usize)],
    targets: &[Vec<f32>],
    sections: &[usize],
    dims: usize,
    knobs: &Adapt,
) {
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut m = vec![0f32; table.len()];
    let mut v = vec![0f32; table.len()];
    let mut grad = vec![0f32; table.len()];
    let mut touched = vec![false; table.len() / dims.max(1)];
    let mut rng = SplitMix(knobs.seed);
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut step = 0i32;
    let batch = knobs.batch.max(2);
    for _ in 0..knobs.epochs {
        // Fisher–Yates, seeded: the same seed gives the same order everywhere.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        for chunk in order.chunks(batch) {
            let qs: Vec<(Vec<f32>, f32)> = chunk
                .iter()
                .map(|&i| query_vector(&samples[i].0, table, dims))
                .collect();
            let mut used = Vec::new();
            // The fragments this batch's queries are scored against, with site negatives.
            let candidates: Vec<usize> = if targets.len() <= MAX_NEGATIVES {
                (0..targets.len()).collect()
            } else {
                let mut c: Vec<usize> = chunk.iter().map(|&i| samples[i].1).collect();
                while c.len() < MAX_NEGATIVES {
                    c.push(rng.below(targets.len()));
                }
                c.sort_unstable();
                c.dedup();
                c
            };
            for (a, &i) in chunk.iter().enumerate() {
                let (q, norm) = &qs[a];
                let frag_i = samples[i].1;
                let mut g_q = vec![0f32; dims];
                if knobs.site_negatives {
                    let scored = (candidates.as_slice(), targets, sections);
                    site_gradient(q, frag_i, scored, knobs.temperature, &mut g_q);
                    g_q.iter_mut().for_each(|g| *g /= chunk.len() as f32);
                } else {
                    // Softmax over the batch's fragments; the same section is not a negative.
                    let logits: Vec<f32> = chunk
                        .iter()
                        .map(|&j| {
                            let frag_j = samples[j].1;
                            if j != i && sections[frag_j] == sections[frag_i] {
                                f32::NEG_INFINITY
                            } else {
                                dot(q, &targets[frag_j]) / knobs.temperature
                            }
                        })
                        .collect();
                    let max = logits.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
                    let exps: Vec<f32> = logits.iter().map(|&x| (x - max).exp()).collect();
                    let total: f32 = exps.iter().sum();
                    for (b, &j) in chunk.iter().enumerate() {
                        let coef = (exps[b] / total - if b == a { 1.0 } else { 0.0 })
                            / knobs.temperature
                            / chunk.len() as f32;
                        if coef != 0.0 {
                            for (g, &y) in g_q.iter_mut().zip(&targets[samples[j].1]) {
                                *g += coef * y;
                            }
                        }
                    }
                }
                // Through the normalisation: d q / d s = (I - q qᵀ) / |s|.
                let along = dot(&g_q, q);
                let g_s: Vec<f32> = g_q
                    .iter()
                    .zip(q)
                    .map(|(g, qv)| (g - along * qv) / norm)
                    .collect();
                for &p in &samples[i].0 {
                    if !touched[p] {
                        touched[p] = true;
                        used.push(p);
                    }
                    for (g, &d) in grad[p * dims..(p + 1) * dims].iter_mut().zip(&g_s) {
                        *g += d;
                    }
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - beta1.powi(step), 1.0 - beta2.powi(step));
            used.sort_unstable();
            for p in used {
                touched[p] = false;
                for k in p * dims..(p + 1) * dims {
                    let g = grad[k] + knobs.pull * (table[k] - original[k]);
                    grad[k] = 0.0;
                    m[k] = beta1 * m[k] + (1.0 - beta1) * g;
                    v[k] = beta2 * v[k] + (1.0 - beta2) * g * g;
                    table[k] -= knobs.lr * (m[k] / c1) / ((v[k] / c2).sqrt() + eps);
                }
            }
        }
    }
}

/// The contrastive gradient for one query against the candidate fragments (`(candidates,
/// targets, sections)`; they include the target): softmax over them except the other
/// fragments of the target's own section.
fn site_gradient(
    q: &[f32],
    target: usize,
    (candidates, targets, sections): (&[usize], &[Vec<f32>], &[usize]),
    temperature: f32,
    g_q: &mut [f32],
) {
    let logits: Vec<f32> = candidates
        .iter()
        .map(|&j| {
            if j != target && sections[j] == sections[target] {
                f32::NEG_INFINITY
            } else {
                dot(q, &targets[j]) / temperature
            }
        })
        .collect();
    let max = logits.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    let exps: Vec<f32> = logits.iter().map(|&x| (x - max).exp()).collect();
    let total: f32 = exps.iter().sum();
    for (k, &j) in candidates.iter().enumerate() {
        let y = &targets[j];
        let coef = (exps[k] / total - if j == target { 1.0 } else { 0.0 }) / temperature;
        if coef.abs() > 1e-7 {
            for (g, &v) in g_q.iter_mut().zip(y) {
                *g += coef * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_grid_is_the_coarsest_the_values_lie_on() {
        let row = |v: Vec<i8>| (0u32, 1.0f32, v);
        assert_eq!(grid_of(&[row(vec![0, 32, -64, 127, -127])]), 32);
        assert_eq!(grid_of(&[row(vec![0, 32, -64]), row(vec![16])]), 16);
        assert_eq!(grid_of(&[row(vec![3, 127])]), 1);
    }
}
