//! What a cold question downloads from a sharded index with vectors (issue 11's budgets).
//!
//! `cargo run --release -p eval --example shard_bytes`, from the repository root.
//!
//! Builds express, rust-reference and rustc-dev-guide (`../shared/corpora`) with vectors as the
//! harness does (shipped teacher; the embedding cache in `target/embed-cache` keeps rebuilds
//! from re-embedding) and joins them into one index of about 5,000 fragments; then copies that
//! index up to about 100,000 fragments (pages, fragments and postings copied under new page
//! paths, vectors copied with N(0, 0.01²) noise per dimension, as `ann.rs` does). Each is
//! written as `build-index` writes it (`build_index::to_shards`: standard shard sizes, √n IVF
//! lists) and every file gzip-compressed as on disk (`onrecord_files::gzip`). Every question
//! of the three sets is asked from a cold start (a fresh manifest, `ShardedIndex::complete`);
//! a question's bytes are the manifest's plus every shard it fetched. The query model is the
//! first corpus's (the joined vectors are all in the teacher's space).
//!
//! Not counted: the wasm module and loader (about 120 KB) and the lazily loaded query model.
//!
//! `-- --postings BYTES --text BYTES` sets the shard targets (default `ShardSizes::STANDARD`);
//! `--joined` measures the joined index only.

#[allow(dead_code, unreachable_pub)]
#[path = "../src/questions.rs"]
mod questions;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Context, Result};
use build_index::{Embedder, Input, ModelFiles, Options, build_with, corpus_input};
use onrecord_core::{
    AnswerConfig, Index, PROBES, QueryModel, ShardSizes, ShardedIndex, TermPostings, VectorIndex,
    ask,
};

const CORPORA: [(&str, &str); 3] = [
    (
        "../shared/corpora/express/astro-5x/src/content/docs/en/5x",
        "eval/questions/express.json",
    ),
    (
        "../shared/corpora/rust-reference",
        "eval/questions/rust-reference.json",
    ),
    (
        "../shared/corpora/rustc-dev-guide",
        "eval/questions/rustc-dev-guide.json",
    ),
];
const REPLICATED: usize = 100_000;
const NOISE: f32 = 0.01;

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let args: Vec<String> = std::env::args().collect();
    let arg = |flag: &str| -> Option<usize> {
        let at = args.iter().position(|a| a == flag)?;
        args.get(at + 1)?.parse().ok()
    };
    let sizes = ShardSizes {
        postings: arg("--postings").unwrap_or(ShardSizes::STANDARD.postings),
        text: arg("--text").unwrap_or(ShardSizes::STANDARD.text),
        threshold: 0,
    };
    let joined_only = args.iter().any(|a| a == "--joined");
    let embedder = Embedder::load(&ModelFiles {
        teacher: root.join("target/models/all-minilm-l6-v2"),
        model_dir: root.join("build-index/model"),
    })
    .context("run scripts/setup.sh: the shipped teacher and query model are needed")?;
    let options = Options::standard();
    let mut parts = Vec::new();
    let mut asked = Vec::new();
    let mut model = None;
    for (corpus, questions_file) in CORPORA {
        let corpus = root.join(corpus);
        eprintln!("building {} ...", corpus.display());
        let built = build_with(&corpus, &options, Some(&embedder))?;
        let mut questions = questions::load(&root.join(questions_file))?;
        if corpus_input(&corpus, &options)? == Input::Html {
            questions::on_built_site(&mut questions);
        }
        asked.extend(questions.into_iter().map(|q| q.question));
        if model.is_none() {
            let bytes = built.query_model.as_deref().context("no query model")?;
            model = Some(QueryModel::from_bytes(bytes).map_err(|e| anyhow::anyhow!("{e}"))?);
        }
        parts.push(built.index);
    }
    let model = model.context("no corpus")?;
    let mut joined = join(&parts.iter().collect::<Vec<_>>(), &mut |_, v| v.to_vec());
    if let Some(v) = joined.vectors.as_mut() {
        v.model_checksum = model.checksum();
    }
    let copies = if joined_only {
        1
    } else {
        REPLICATED.div_ceil(joined.fragments.len())
    };
    let mut noise = noise();
    let replicated = join(&vec![&joined; copies], &mut |copy, row| {
        row.iter()
            .map(|x| x + if copy > 0 { NOISE * noise() } else { 0.0 })
            .collect()
    });
    println!(
        "Cold questions over a sharded index with vectors ({} questions of express, rust-reference \
         and rustc-dev-guide; IVF probes: {} to {}, margin {}; shard targets {} B postings, {} B text). \
         Bytes: the manifest and every shard a question fetched, as written (gzip) and \
         uncompressed; median / p95. Not counted: wasm + loader (~120 KB), query model (lazy).\n",
        asked.len(),
        PROBES.min,
        PROBES.max,
        PROBES.margin,
        sizes.postings,
        sizes.text
    );
    println!(
        "| index | fragments | pages | shards p / t / v / r | manifest gz (raw) | page records, raw (in text shards) | shards per question | gz bytes per question | raw bytes per question | of which postings, gz | text, gz | vector lists, gz | vector rows, gz | same answer as the whole index |"
    );
    println!("|---|---:|---:|---|---:|---:|---|---|---|---|---|---|---|---:|");
    measure("joined", &joined, &model, &asked, sizes)?;
    if !joined_only {
        measure("replicated", &replicated, &model, &asked, sizes)?;
    }
    Ok(())
}

fn measure(
    name: &str,
    index: &Index,
    model: &QueryModel,
    asked: &[String],
    sizes: ShardSizes,
) -> Result<()> {
    eprintln!("sharding {name} ({} fragments) ...", index.fragments.len());
    let files = build_index::to_shards(index, sizes)?;
    let gz: HashMap<&str, (usize, usize)> = files
        .shards
        .iter()
        .map(|(n, b)| (n.as_str(), (onrecord_files::gzip(b).len(), b.len())))
        .collect();
    let manifest_gz = onrecord_files::gzip(&files.manifest).len();
    let count = |kind: &str| {
        files
            .shards
            .iter()
            .filter(|(n, _)| n.starts_with(kind))
            .count()
    };
    let config = AnswerConfig::DEFAULT;
    let (mut shards, mut gz_bytes, mut raw_bytes) = (vec![], vec![], vec![]);
    // Gzip bytes of each kind of shard a question fetched: postings, text, vectors.
    let mut kinds: [Vec<usize>; 4] = Default::default();
    let mut same = 0;
    for question in asked {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest)?;
        let mut fetched: Vec<String> = Vec::new();
        let answer = sharded.complete(
            |i| ask(i, Some(model), question, &config),
            |name| {
                fetched.push(name.to_owned());
                let (_, bytes) = files.shards.iter().find(|(n, _)| n == name)?;
                Some(bytes.clone())
            },
        )?;
        same += usize::from(answer == ask(index, Some(model), question, &config));
        let size =
            |f: &String, which: fn(&(usize, usize)) -> usize| gz.get(f.as_str()).map_or(0, which);
        shards.push(fetched.len());
        gz_bytes.push(manifest_gz + fetched.iter().map(|f| size(f, |s| s.0)).sum::<usize>());
        raw_bytes
            .push(files.manifest.len() + fetched.iter().map(|f| size(f, |s| s.1)).sum::<usize>());
        for (kind, prefix) in kinds.iter_mut().zip(["p-", "t-", "v-", "r-"]) {
            kind.push(
                fetched
                    .iter()
                    .filter(|f| f.starts_with(prefix))
                    .map(|f| size(f, |s| s.0))
                    .sum(),
            );
        }
    }
    let docs_raw = postcard_len(&index.docs);
    println!(
        "| {name} | {} | {} | {} / {} / {} / {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} |",
        index.fragments.len(),
        index.docs.len(),
        count("p-"),
        count("t-"),
        count("v-"),
        count("r-"),
        manifest_gz,
        files.manifest.len(),
        docs_raw,
        stats(&mut shards),
        stats(&mut gz_bytes),
        stats(&mut raw_bytes),
        stats(&mut kinds[0]),
        stats(&mut kinds[1]),
        stats(&mut kinds[2]),
        stats(&mut kinds[3]),
        same,
        asked.len()
    );
    Ok(())
}

/// Bytes of `value` as postcard writes it (the manifest's encoding).
fn postcard_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(0, |v| v.len())
}

fn stats(v: &mut [usize]) -> String {
    v.sort_unstable();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    format!("{} / {}", at(0.5), at(0.95))
}

/// Joins indexes into one, in order: pages, fragments and postings renumbered, vectors passed
/// through `vector(copy, dequantised row)` (`copy`: the part's position).
fn join(parts: &[&Index], vector: &mut dyn FnMut(usize, &[f32]) -> Vec<f32>) -> Index {
    let mut out = parts[0].clone();
    out.docs.clear();
    out.fragments.clear();
    out.collections.clear();
    out.hints.clear();
    out.hint_terms.clear();
    let mut vectors = out
        .vectors
        .as_ref()
        .map(|v| VectorIndex::new(v.model_checksum, v.dims));
    let mut terms: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut site_words = Vec::new();
    for (copy, part) in parts.iter().enumerate() {
        let (doc0, frag0) = (out.docs.len() as u32, out.fragments.len() as u32);
        let collection0 = out.collections.len() as u32;
        for d in &part.docs {
            let mut d = d.clone();
            if parts.len() > 1 && copy > 0 {
                d.path = format!("copy{copy}/{}", d.path);
                d.url = format!("/copy{copy}{}", d.url);
            }
            d.collection = d.collection.map(|c| c + collection0);
            out.docs.push(d);
        }
        for f in &part.fragments {
            let mut f = f.clone();
            f.doc += doc0;
            out.fragments.push(f);
        }
        for t in &part.terms {
            terms
                .entry(t.term.clone())
                .or_default()
                .extend(t.postings.iter().map(|&(f, tf)| (f + frag0, tf)));
        }
        out.collections.extend(part.collections.iter().cloned());
        site_words.extend(part.site_words.iter().cloned());
        if let (Some(out_v), Some(v)) = (vectors.as_mut(), part.vectors.as_ref()) {
            for (row, scale) in v.data.chunks_exact(v.dims as usize).zip(&v.scales) {
                let x: Vec<f32> = row.iter().map(|&r| f32::from(r) * scale).collect();
                out_v.push(&vector(copy, &x));
            }
        }
    }
    out.terms = terms
        .into_iter()
        .map(|(term, postings)| TermPostings { term, postings })
        .collect();
    site_words.sort();
    site_words.dedup();
    out.site_words = site_words;
    let total: u64 = out.fragments.iter().map(|f| u64::from(f.n_terms)).sum();
    out.avg_fragment_terms = total as f32 / out.fragments.len().max(1) as f32;
    out.vectors = vectors;
    out
}

/// Roughly normal noise of unit variance (a sum of four uniforms), from a fixed seed.
fn noise() -> impl FnMut() -> f32 {
    let mut state = 0x5EED_u64;
    move || {
        (0..4)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .sum::<f32>()
            * 3f32.sqrt()
    }
}
