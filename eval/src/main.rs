//! The evaluation harness.
//!
//! `eval --corpus DIR --questions FILE [--split dev|test|all] [--json OUT] [--markdown OUT]
//!       [--private-dir NAME] [--fragment-chars N] [--sizes N,N,...] [--check]`
//!
//! It builds the index exactly as `build-index` does (the same library call), runs the same core
//! code the browser runs, and prints the retrieval, ablation and answering tables for the dev,
//! test and all splits. `--json` writes the machine-readable result for `--split`.

// A binary: `pub` marks what modules share, not an API.
#![allow(unreachable_pub)]

mod metrics;
mod questions;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use build_index::{Options, build_with};

use crate::questions::Split;

const USAGE: &str =
    "usage: eval --corpus DIR --questions FILE [--split dev|test|all] [--json OUT] [--markdown OUT]
            [--private-dir NAME] [--site-name NAME] [--fragment-chars N] [--sizes N,N,...]
            [--check] [--teacher DIR --model-dir DIR] [--reference-teacher DIR]...
            [--coverage-floor X] [--support-floor X] [--meaning-floor X] [--hint-floor X]
  --check        only check the question file (ids, evidence phrases) and exit
  --teacher DIR  with --model-dir: build fragment vectors as build-index does, and query with
                 the model's query-model.onq (otherwise vector methods are not measured)
  --reference-teacher DIR  add reference rows with this full teacher (all-MiniLM-L6-v2, or
                 multilingual-e5-small from scripts/setup-e5.sh) embedding fragments and
                 questions, alone and fused with BM25 (repeatable)";

pub struct Args {
    pub corpus: PathBuf,
    pub questions: PathBuf,
    pub split: Split,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub options: Options,
    pub sizes: Vec<usize>,
    pub check_only: bool,
    pub model: Option<build_index::ModelFiles>,
    /// Full teachers for the ablation's reference rows.
    pub reference_teachers: Vec<PathBuf>,
    /// The answerer's thresholds (the shipped defaults unless overridden, for tuning on dev).
    pub answer: onrecord_core::AnswerConfig,
    /// Write the dev split's answering metrics over a grid of thresholds here (JSON lines).
    pub tune: Option<PathBuf>,
    /// Where to write the fusion grid (dev split, retrieval), when tuning.
    pub tune_fusion: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn parse_args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let mut corpus = None;
    let mut questions = None;
    let mut split = Split::All;
    let mut json = None;
    let mut markdown = None;
    let mut options = Options::standard();
    let mut sizes = Vec::new();
    let mut check_only = false;
    let mut tune = None;
    let mut tune_fusion = None;
    let mut answer = onrecord_core::AnswerConfig::DEFAULT;
    let mut teacher: Option<PathBuf> = None;
    let mut model_dir: Option<PathBuf> = None;
    let mut reference_teachers = Vec::new();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .with_context(|| format!("{name} needs a value\n\n{USAGE}"))
        };
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            "--corpus" => corpus = Some(PathBuf::from(value("--corpus")?)),
            "--questions" => questions = Some(PathBuf::from(value("--questions")?)),
            "--split" => {
                let s = value("--split")?;
                split = Split::parse(&s)
                    .with_context(|| format!("--split must be dev, test or all, not '{s}'"))?;
            }
            "--json" => json = Some(PathBuf::from(value("--json")?)),
            "--markdown" => markdown = Some(PathBuf::from(value("--markdown")?)),
            "--private-dir" => options.private_dir = value("--private-dir")?,
            "--site-name" => options.site_names.push(value("--site-name")?),
            "--fragment-chars" => {
                let n = value("--fragment-chars")?;
                options.fragment_chars = n
                    .parse()
                    .with_context(|| format!("--fragment-chars '{n}' is not a number"))?;
            }
            "--sizes" => {
                let list = value("--sizes")?;
                sizes = list
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse()
                            .with_context(|| format!("--sizes: '{s}' is not a number"))
                    })
                    .collect::<Result<_>>()?;
            }
            "--check" => check_only = true,
            "--tune" => tune = Some(PathBuf::from(value("--tune")?)),
            "--tune-fusion" => tune_fusion = Some(PathBuf::from(value("--tune-fusion")?)),
            "--coverage-floor" => answer.coverage_floor = parse_f32(&value("--coverage-floor")?)?,
            "--support-floor" => answer.support_floor = parse_f32(&value("--support-floor")?)?,
            "--meaning-floor" => answer.meaning_floor = parse_f32(&value("--meaning-floor")?)?,
            "--hint-floor" => answer.hint_floor = parse_f32(&value("--hint-floor")?)?,
            "--teacher" => teacher = Some(PathBuf::from(value("--teacher")?)),
            "--model-dir" => model_dir = Some(PathBuf::from(value("--model-dir")?)),
            "--reference-teacher" => reference_teachers.push(value("--reference-teacher")?.into()),
            other => bail!("unexpected argument '{other}'\n\n{USAGE}"),
        }
    }
    let (Some(corpus), Some(questions)) = (corpus, questions) else {
        bail!("--corpus and --questions are required\n\n{USAGE}");
    };
    let model = match (teacher, model_dir) {
        (Some(teacher), Some(model_dir)) => Some(build_index::ModelFiles { teacher, model_dir }),
        (None, None) => None,
        _ => bail!("--teacher and --model-dir go together"),
    };
    Ok(Args {
        tune,
        tune_fusion,
        answer,
        model,
        reference_teachers,
        corpus,
        questions,
        split,
        json,
        markdown,
        options,
        sizes,
        check_only,
    })
}

fn parse_f32(s: &str) -> Result<f32> {
    s.parse().with_context(|| format!("'{s}' is not a number"))
}

fn run() -> Result<ExitCode> {
    let args = parse_args()?;
    let questions = questions::load(&args.questions)?;
    let problems = questions::check(&questions, &args.corpus);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("{}: {p}", args.questions.display());
        }
        bail!(
            "{} problem(s) in {}",
            problems.len(),
            args.questions.display()
        );
    }
    if args.check_only {
        println!(
            "{}: {} questions, all evidence phrases found",
            args.questions.display(),
            questions.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let embedder = args
        .model
        .as_ref()
        .map(build_index::Embedder::load)
        .transpose()?;
    let built = build_with(&args.corpus, &args.options, embedder.as_ref())?;
    if let Some(path) = &args.tune_fusion {
        let model = query_model(embedder.as_ref())?;
        let dev = questions::select(&questions, Split::Dev);
        let mut lines = String::new();
        for vector_weight in [0.5f32, 0.75, 1.0, 1.5, 2.0, 3.0] {
            for rerank_weight in [0.0f32, 0.5, 1.0, 2.0, 4.0] {
                for rrf_c in [5.0f32, 20.0, 60.0] {
                    let fusion = onrecord_core::Fusion {
                        vector_weight,
                        rerank_weight,
                        rrf_c,
                    };
                    let r = metrics::retrieval(&built.index, &dev, &|q| {
                        onrecord_core::retrieve_fused(
                            &built.index,
                            model.as_ref(),
                            q,
                            metrics::DEPTH,
                            &fusion,
                        )
                        .iter()
                        .map(|h| h.fragment)
                        .collect()
                    });
                    lines.push_str(&serde_json::to_string(&serde_json::json!({
                        "vector_weight": vector_weight, "rerank_weight": rerank_weight,
                        "rrf_c": rrf_c, "mrr": r.mrr, "recall@1": r.recall_1,
                        "recall@5": r.recall_5,
                    }))?);
                    lines.push('\n');
                }
            }
        }
        std::fs::write(path, lines).with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.tune {
        let model = query_model(embedder.as_ref())?;
        let dev = questions::select(&questions, Split::Dev);
        let mut lines = String::new();
        for cf in [0.3f32, 0.4, 0.5, 0.6, 0.7] {
            for sf in [0.3f32, 0.4, 0.5, 0.6, 0.7, 0.8] {
                for mf in [0.4f32, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 2.0] {
                    let config = onrecord_core::AnswerConfig {
                        coverage_floor: cf,
                        support_floor: sf,
                        meaning_floor: mf,
                        ..args.answer
                    };
                    let a = metrics::answering(&built.index, model.as_ref(), &dev, &config);
                    lines.push_str(&serde_json::to_string(&serde_json::json!({
                        "coverage_floor": cf, "support_floor": sf, "meaning_floor": mf,
                        "balanced_accuracy": a.balanced_accuracy,
                        "answerable_correct": a.answerable_correct,
                        "unanswerable_declined": a.unanswerable_declined,
                    }))?);
                    lines.push('\n');
                }
            }
        }
        std::fs::write(path, lines).with_context(|| format!("cannot write {}", path.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let result = report::evaluate(&args, &questions, &built, embedder.as_ref())?;
    print!("{}", result.markdown);
    if let Some(path) = &args.markdown {
        std::fs::write(path, &result.markdown)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&result.json)? + "\n";
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The browser's query model, as the embedder copies it next to the index.
fn query_model(
    embedder: Option<&build_index::Embedder>,
) -> Result<Option<onrecord_core::QueryModel>> {
    embedder
        .map(|e| onrecord_core::QueryModel::from_bytes(&e.query_model_bytes))
        .transpose()
        .map_err(|e| anyhow::anyhow!("query model: {e}"))
}
