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
use build_index::{Options, build};

use crate::questions::Split;

const USAGE: &str =
    "usage: eval --corpus DIR --questions FILE [--split dev|test|all] [--json OUT] [--markdown OUT]
            [--private-dir NAME] [--fragment-chars N] [--sizes N,N,...] [--check]
  --check   only check the question file (ids, evidence phrases) and exit";

pub struct Args {
    pub corpus: PathBuf,
    pub questions: PathBuf,
    pub split: Split,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub options: Options,
    pub sizes: Vec<usize>,
    pub check_only: bool,
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
            other => bail!("unexpected argument '{other}'\n\n{USAGE}"),
        }
    }
    let (Some(corpus), Some(questions)) = (corpus, questions) else {
        bail!("--corpus and --questions are required\n\n{USAGE}");
    };
    Ok(Args {
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
    let built = build(&args.corpus, &args.options)?;
    let result = report::evaluate(&args, &questions, &built)?;
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
