//! Approximate vector search measured against brute force (issue 11's vector layer).
//!
//! `cargo run --release -p eval --example ann [-- --markdown OUT]`, from the repository root.
//!
//! Builds every corpus of `eval/corpora.json` as the harness does (shipped teacher and query
//! model; the embedding cache in `target/embed-cache` keeps rebuilds from re-embedding), then
//! for each method and setting reports:
//! - agreement with brute force: the share of brute force's vector top 5 / top 10 that the
//!   approximate top 5 / top 10 holds, over every question with a vector;
//! - the shipped hybrid pipeline's recall@5 and MRR with the approximate vector list in place
//!   of brute force (the vectors of fragments the method never scores are set to the opposite
//!   of the question, so `search_vectors` ranks them last: what it returns is then the
//!   approximate search's list, unless fewer than 50 fragments were scored, counted as "short");
//! - the raw bytes a question fetches for its vectors (centroids + probed lists with ids), mean
//!   and p95.
//!
//! Then all corpora's vectors are replicated with small noise to 100,000 fragments and the same
//! agreement, bytes and a native timing median per question are measured there (queries: every
//! question of every set).
//!
//! Sign codes with rescoring (one sign bit a dimension, ranked by Hamming distance, the best
//! rescored exactly) were measured here too until 2026-12-05; their rows stay in
//! `eval/results/ann.md` and `eval/notes/2026-12-05-sign-codes-removed.md` says why they went.

// An example: `pub` in the shared harness modules marks what they share, not an API.
#![allow(unreachable_pub)]

#[allow(dead_code)]
#[path = "../src/engine.rs"]
mod engine;
#[allow(dead_code)]
#[path = "../src/metrics.rs"]
mod metrics;
#[allow(dead_code)]
#[path = "../src/questions.rs"]
mod questions;
#[allow(dead_code)]
#[path = "../src/visitor.rs"]
mod visitor;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use build_index::ivf::{Ivf, list_count, train};
use build_index::{Embedder, Input, ModelFiles, Options, build_with, corpus_input};
use onrecord_core::ann::{Rows, exact_search, nearest_lists, search_lists};
use onrecord_core::{Index, QueryModel, SHIPPED, VectorIndex, model_fits, retrieve_with};
use serde::Deserialize;

/// What fusion takes from the vector list (`retrieve.rs` CANDIDATES).
const FUSION_DEPTH: usize = 50;
const SEED: u64 = 11;
const PROBES: &[usize] = &[1, 2, 4, 8, 16, 32];
const REPLICATED: usize = 100_000;
/// Per-dimension noise of a replicated vector (unit vectors of 128 dimensions: the copy keeps
/// a cosine of about 0.99 with its original).
const NOISE: f32 = 0.01;

#[derive(Deserialize)]
struct Registry {
    corpora: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    corpus: PathBuf,
    questions: PathBuf,
}

#[derive(Clone, Copy, PartialEq)]
enum Method {
    Brute,
    Ivf { probes: usize },
}

impl Method {
    fn name(self, lists: usize) -> String {
        match self {
            Method::Brute => "brute force".into(),
            Method::Ivf { probes } => format!("IVF {lists} lists, {probes} probed"),
        }
    }

    fn all() -> Vec<Method> {
        let mut all = vec![Method::Brute];
        all.extend(PROBES.iter().map(|&probes| Method::Ivf { probes }));
        all
    }
}

/// One corpus's vectors in the shapes each method reads.
struct Layer {
    vectors: VectorIndex,
    ivf: Ivf,
}

impl Layer {
    fn new(vectors: VectorIndex) -> Layer {
        let ivf = train(&vectors, list_count(vectors.scales.len()), SEED);
        Layer { vectors, ivf }
    }

    fn dims(&self) -> usize {
        self.vectors.dims as usize
    }

    /// The approximate top `k`, the fragments scored exactly, and the bytes fetched.
    fn search(&self, method: Method, query: &[f32], k: usize) -> (Vec<u32>, Vec<u32>, usize) {
        let dims = self.dims();
        let row_bytes = dims + 4;
        match method {
            Method::Brute => {
                let hits = exact_search(rows(&self.vectors), query, k);
                let all = (0..self.vectors.scales.len() as u32).collect();
                (ids(&hits), all, self.vectors.scales.len() * row_bytes)
            }
            Method::Ivf { probes } => {
                let probed: Vec<_> = nearest_lists(self.ivf.centroid_rows(), query, probes)
                    .into_iter()
                    .filter_map(|l| self.ivf.lists.get(l as usize))
                    .collect();
                let hits = search_lists(&probed, dims, query, k);
                let scored: Vec<u32> = probed.iter().flat_map(|l| l.ids.clone()).collect();
                // Centroids (int8 + scale) and each member's id, scale and row.
                let bytes = self.ivf.lists.len() * row_bytes + scored.len() * (row_bytes + 4);
                (ids(&hits), scored, bytes)
            }
        }
    }
}

fn rows(v: &VectorIndex) -> Rows<'_> {
    Rows {
        dims: v.dims as usize,
        scales: &v.scales,
        data: &v.data,
    }
}

fn ids(hits: &[onrecord_core::Hit]) -> Vec<u32> {
    hits.iter().map(|h| h.fragment).collect()
}

/// Share of `exact` found in `approx`.
fn overlap(approx: &[u32], exact: &[u32]) -> f64 {
    if exact.is_empty() {
        return 1.0;
    }
    exact.iter().filter(|f| approx.contains(f)).count() as f64 / exact.len() as f64
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(((s.len() as f64 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or(0.0)
}

#[derive(Default)]
struct Tally {
    agree5: Vec<f64>,
    agree10: Vec<f64>,
    bytes: Vec<f64>,
    short: usize,
    recall5: f64,
    mrr: f64,
}

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let markdown_out = std::env::args()
        .skip_while(|a| a != "--markdown")
        .nth(1)
        .map(PathBuf::from);
    let registry: Registry = serde_json::from_str(
        &std::fs::read_to_string(root.join("eval/corpora.json"))
            .context("cannot read eval/corpora.json")?,
    )?;
    let embedder = Embedder::load(&ModelFiles {
        teacher: root.join("target/models/all-minilm-l6-v2"),
        model_dir: root.join("build-index/model"),
    })
    .context("run scripts/setup.sh: the shipped teacher and query model are needed")?;
    let options = Options::standard();
    let methods = Method::all();
    let mut md = String::new();
    writeln!(
        md,
        "Brute force vs approximate vector search (seed {SEED}, lists = round(sqrt(n))). \
         agree@k: share of brute force's vector top k in the approximate top k. \
         R@5 / MRR: the shipped hybrid pipeline (retrieval depth 10). \
         bytes: raw vector bytes one question fetches (mean / p95). \
         short: questions where fewer than {FUSION_DEPTH} fragments were scored.\n"
    )?;
    writeln!(
        md,
        "| corpus | fragments | method | agree@5 | agree@10 | R@5 | ΔR@5 (pts) | MRR | ΔMRR | bytes mean | bytes p95 | short |"
    )?;
    writeln!(
        md,
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )?;
    let mut pooled: Vec<VectorIndex> = Vec::new();
    let mut pooled_queries: Vec<Vec<f32>> = Vec::new();
    for entry in &registry.corpora {
        let corpus = root.join(&entry.corpus);
        eprintln!("building {} ...", entry.name);
        let built = build_with(&corpus, &options, Some(&embedder))?;
        let mut questions = questions::load(&root.join(&entry.questions))?;
        if corpus_input(&corpus, &options)? == Input::Html {
            questions::on_built_site(&mut questions);
        }
        let model = built
            .query_model
            .as_deref()
            .map(QueryModel::from_bytes)
            .transpose()
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .context("the build made no query model")?;
        let index = &built.index;
        anyhow::ensure!(model_fits(index, &model), "query model does not fit");
        let vectors = index.vectors.clone().context("the build made no vectors")?;
        let n = vectors.scales.len();
        let layer = Layer::new(vectors.clone());
        let mut work: Index = index.clone();
        let selected: Vec<&questions::Question> = questions.iter().collect();
        let mut brute = (0.0, 0.0);
        for &method in &methods {
            let mut tally = Tally::default();
            let mut rankings: HashMap<String, Vec<u32>> = HashMap::new();
            for q in &selected {
                let Some(qv) = model.embed(&q.question) else {
                    continue;
                };
                let exact = layer.search(Method::Brute, &qv, 10).0;
                let (approx, scored, bytes) = layer.search(method, &qv, 10);
                tally.agree5.push(overlap(
                    &approx[..approx.len().min(5)],
                    &exact[..exact.len().min(5)],
                ));
                tally.agree10.push(overlap(&approx, &exact));
                tally.bytes.push(bytes as f64);
                tally.short += usize::from(scored.len() < FUSION_DEPTH.min(n));
                if method == Method::Brute {
                    pooled_queries.push(qv.clone());
                }
                // The fragments the method never scores rank last in `search_vectors`.
                let v = work.vectors.as_mut().context("vectors")?;
                v.data.copy_from_slice(&vectors.data);
                v.scales.copy_from_slice(&vectors.scales);
                if method != Method::Brute {
                    let mut scored_mask = vec![false; n];
                    scored.iter().for_each(|&f| scored_mask[f as usize] = true);
                    let mut away = VectorIndex::new(0, vectors.dims);
                    away.push(&qv.iter().map(|x| -x).collect::<Vec<f32>>());
                    let dims = vectors.dims as usize;
                    for (f, _) in scored_mask.iter().enumerate().filter(|(_, s)| !**s) {
                        v.data[f * dims..(f + 1) * dims].copy_from_slice(&away.data);
                        v.scales[f] = away.scales[0];
                    }
                }
                let ranking =
                    retrieve_with(&work, Some(&model), &q.question, metrics::DEPTH, SHIPPED);
                rankings.insert(q.question.clone(), ids(&ranking));
            }
            let retrieval = metrics::retrieval(index, &selected, &|question: &str| {
                rankings.get(question).cloned().unwrap_or_else(|| {
                    ids(&retrieve_with(
                        index,
                        Some(&model),
                        question,
                        metrics::DEPTH,
                        SHIPPED,
                    ))
                })
            });
            tally.recall5 = retrieval.recall_5;
            tally.mrr = retrieval.mrr;
            if method == Method::Brute {
                brute = (tally.recall5, tally.mrr);
            }
            writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:+.1} | {:.3} | {:+.3} | {:.0} | {:.0} | {} |",
                entry.name,
                n,
                method.name(layer.ivf.lists.len()),
                mean(&tally.agree5),
                mean(&tally.agree10),
                tally.recall5,
                (tally.recall5 - brute.0) * 100.0,
                tally.mrr,
                tally.mrr - brute.1,
                mean(&tally.bytes),
                quantile(&tally.bytes, 0.95),
                tally.short,
            )?;
        }
        pooled.push(vectors);
    }
    let together: usize = pooled.iter().map(|v| v.scales.len()).sum();
    for size in [together, REPLICATED] {
        replicated(&mut md, &pooled, &pooled_queries, &methods, size)?;
    }
    print!("{md}");
    if let Some(path) = markdown_out {
        std::fs::write(&path, &md).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// The pooled vectors (copied with noise up to `size` fragments, when that is more): agreement,
/// bytes and the median time of one question's vector search, native, single thread.
fn replicated(
    md: &mut String,
    pooled: &[VectorIndex],
    queries: &[Vec<f32>],
    methods: &[Method],
    size: usize,
) -> Result<()> {
    let first = pooled.first().context("no corpus")?;
    let dims = first.dims as usize;
    let mut big = VectorIndex::new(first.model_checksum, first.dims);
    let originals: Vec<(&[i8], f32)> = pooled
        .iter()
        .flat_map(|v| v.data.chunks_exact(dims).zip(v.scales.iter().copied()))
        .collect();
    let mut state = 0x5EED_u64;
    let mut noise = || {
        // Sum of four uniforms: roughly normal, unit variance.
        (0..4)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .sum::<f32>()
            * 3f32.sqrt()
    };
    for i in 0..size {
        let (row, scale) = originals[i % originals.len()];
        let copy = i >= originals.len();
        let v: Vec<f32> = row
            .iter()
            .map(|&x| f32::from(x) * scale + if copy { NOISE * noise() } else { 0.0 })
            .collect();
        big.push(&v);
    }
    eprintln!("training IVF on {size} pooled vectors ...");
    let started = Instant::now();
    let layer = Layer::new(big);
    let train_secs = started.elapsed().as_secs_f64();
    writeln!(
        md,
        "\nPooled: the {} fragment vectors of all corpora in one index, copied with N(0, {NOISE}²) \
         noise per dimension up to {size} fragments; queries: the {} questions with a vector; IVF \
         training (k-means, {} lists) took {train_secs:.1} s. Time: median of one question's \
         vector search (native, one thread, {} repetitions of every query).\n",
        originals.len(),
        queries.len(),
        layer.ivf.lists.len(),
        REPS
    )?;
    writeln!(
        md,
        "| method | agree@5 | agree@10 | bytes mean | bytes p95 | median µs | brute / method |"
    )?;
    writeln!(md, "|---|---:|---:|---:|---:|---:|---:|")?;
    let mut brute_us = 0.0;
    for &method in methods {
        let mut tally = Tally::default();
        let mut times = Vec::new();
        for qv in queries {
            let exact = layer.search(Method::Brute, qv, 10).0;
            let (approx, _, bytes) = layer.search(method, qv, 10);
            tally
                .agree5
                .push(overlap(&approx[..approx.len().min(5)], &exact[..5]));
            tally.agree10.push(overlap(&approx, &exact));
            tally.bytes.push(bytes as f64);
            for _ in 0..REPS {
                let t = Instant::now();
                std::hint::black_box(layer.search(method, std::hint::black_box(qv), FUSION_DEPTH));
                times.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        let median = quantile(&times, 0.5);
        if method == Method::Brute {
            brute_us = median;
        }
        writeln!(
            md,
            "| {} | {:.3} | {:.3} | {:.0} | {:.0} | {:.0} | {:.1}× |",
            method.name(layer.ivf.lists.len()),
            mean(&tally.agree5),
            mean(&tally.agree10),
            mean(&tally.bytes),
            quantile(&tally.bytes, 0.95),
            median,
            brute_us / median,
        )?;
    }
    Ok(())
}

/// Timed repetitions of each query per method at 100k.
const REPS: usize = 3;
