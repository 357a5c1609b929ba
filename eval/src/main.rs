//! The evaluation harness.
//!
//! `eval --corpus DIR --questions FILE [--split dev|test|all] [--json OUT] [--markdown OUT] ...`
//! scores one question set; `eval --cross eval/corpora.json` runs the cross-corpus protocol
//! (leave one corpus out, knobs chosen on the others' dev halves).
//!
//! It builds the index exactly as `build-index` does (the same library call), runs the same core
//! code the browser runs and, with no model flags, the shipped models: the teacher that embeds
//! fragments and the browser's query model. Flags only take things away (`--lexical`) or point
//! at alternatives for experiments.

// A binary: `pub` marks what modules share, not an API.
#![allow(unreachable_pub)]

mod cross;
mod fit;
mod followups;
mod metrics;
mod questions;
mod report;
#[cfg(feature = "experiments")]
mod sweep;
mod typos;
mod visitor;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use build_index::{ModelFiles, Options, build_with};

use crate::questions::Split;

const USAGE: &str =
    "usage: eval --corpus DIR --questions FILE [--split dev|test|all] [--json OUT] [--markdown OUT]
            [--private-dir NAME] [--site-name NAME] [--include-root DIR] [--fragment-chars N] [--sizes N,N,...]
            [--check] [--typos SEED] [--lexical | --teacher DIR --model-dir DIR]
            [--hint-floor X] [--followups FILE] [--adapt | --no-adapt] [--adapt-epochs N] [--adapt-lr X]
            [--adapt-pull X] [--adapt-temperature X] [--adapt-headings-only]
            [--adapt-site-negatives] [--reference-teacher DIR]...
       eval --cross REGISTRY [--json OUT] [--markdown OUT] [--write-shipped] [--sharded | --sharded-same-knobs]
            [--lexical | --teacher DIR --model-dir DIR] [--adapt | --no-adapt] [--adapt-* ...]
  --check        only check the question file (ids, evidence phrases) and exit
  --typos SEED   also score a typo copy of the questions (one typo each, seeded): recall@5
                 of the copy beside the original's
  --followups FILE  also score follow-up pairs (eval/questions/followups-*.json) on the corpus
  --cross FILE   the cross-corpus protocol over the corpora of FILE (eval/corpora.json): each
                 corpus left out in turn, knobs chosen on the dev halves of the others
  --dump-rows FILE  with --cross: every question's evidence features, as JSON lines
  --write-shipped  with --cross: write what the fit on every dev half gives to
                 crates/onrecord-core/src/answer/shipped.rs (what the widget ships)
  --sharded      with --cross: answer from each index written as a manifest and shards and
                 read back (every shard taken), so every read goes through the sharded
                 storage; lexical numbers must equal the whole index's, with vectors they
                 may differ by what IVF and residual codes lose (vector search ranks the
                 residual codes of the lists nearest the question, onrecord_core::PROBES)
  --sharded-same-knobs  as --sharded, but every knob is chosen on the whole indexes and the
                 sharded ones are scored with them: what the storage alone changes
  --lexical      no vectors (the shipped build embeds fragments with the teacher in
                 target/models/all-minilm-l6-v2 and queries with build-index/model)
  --teacher DIR  with --model-dir: another teacher and query model, for experiments
  --adapt        adapt the query model to each corpus's own text at build time (headings and
                 first sentences as pseudo-queries); --no-adapt copies it as is
  --adapt-epochs, --adapt-lr, --adapt-pull, --adapt-temperature, --adapt-headings-only,
  --adapt-site-negatives
                 the adaptation's knobs (each implies --adapt), for choosing them on dev halves
  --reference-teacher DIR  add reference rows with this full teacher (all-MiniLM-L6-v2, or
                 multilingual-e5-small from scripts/setup-e5.sh) embedding fragments and
                 questions, alone and fused with BM25 (repeatable)
  --adapt-sweep  with --cross: score a grid of adaptation knobs on every dev half and name the
                 point each left-out corpus would get (chosen on the others' dev halves)";

/// The repository root (the harness reads the shipped models and the registry from it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The models the shipped build uses: `scripts/setup.sh` fetches the teacher.
fn shipped_models() -> ModelFiles {
    ModelFiles {
        teacher: root().join("target/models/all-minilm-l6-v2"),
        model_dir: root().join("build-index/model"),
    }
}

pub struct Args {
    pub corpus: PathBuf,
    pub questions: PathBuf,
    pub split: Split,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub options: Options,
    pub sizes: Vec<usize>,
    pub check_only: bool,
    pub model: Option<ModelFiles>,
    /// Full teachers for the ablation's reference rows.
    pub reference_teachers: Vec<PathBuf>,
    /// The answerer's thresholds (the shipped defaults unless overridden, for tuning on dev).
    pub answer: onrecord_core::AnswerConfig,
    /// Run the cross-corpus protocol over this registry instead of one question set.
    pub cross: Option<PathBuf>,
    /// With `cross`: write the configuration fit on every dev half to the core's shipped.rs.
    pub write_shipped: bool,
    /// With `cross`: write every question's evidence features here (JSON lines).
    pub dump_rows: Option<PathBuf>,
    /// Follow-up pairs to score on the same corpus.
    pub followups: Option<PathBuf>,
    /// With `cross`: choose the adaptation's knobs on the dev halves instead.
    pub adapt_sweep: bool,
    /// With `cross`: read each index back through the sharded layout.
    pub sharded: bool,
    /// With `cross`: as `sharded`, but with the knobs the whole indexes chose.
    pub sharded_same_knobs: bool,
    /// Also score a typo copy of the questions made with this seed.
    pub typos: Option<u64>,
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
    let mut cross = None;
    let mut lexical = false;
    let mut write_shipped = false;
    let mut dump_rows = None;
    let mut followups = None;
    let mut answer = onrecord_core::AnswerConfig::DEFAULT;
    let mut teacher: Option<PathBuf> = None;
    let mut model_dir: Option<PathBuf> = None;
    #[cfg(feature = "experiments")]
    let mut adapt = options.adapt;
    #[cfg(feature = "experiments")]
    let mut no_adapt = false;
    #[cfg_attr(not(feature = "experiments"), allow(unused_mut))]
    let mut adapt_sweep = false;
    let mut sharded = false;
    let mut sharded_same_knobs = false;
    let mut reference_teachers = Vec::new();
    let mut typos = None;
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
            "--include-root" => options.include_root = Some(value("--include-root")?.into()),
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
            "--typos" => {
                let seed = value("--typos")?;
                typos =
                    Some(seed.parse().with_context(|| {
                        format!("--typos '{seed}' is not a seed (a whole number)")
                    })?);
            }
            "--cross" => cross = Some(PathBuf::from(value("--cross")?)),
            "--lexical" => lexical = true,
            "--sharded" => sharded = true,
            "--sharded-same-knobs" => sharded_same_knobs = true,
            "--write-shipped" => write_shipped = true,
            "--dump-rows" => dump_rows = Some(PathBuf::from(value("--dump-rows")?)),
            "--followups" => followups = Some(PathBuf::from(value("--followups")?)),
            "--hint-floor" => answer.hint_floor = parse_f32(&value("--hint-floor")?)?,
            "--teacher" => teacher = Some(PathBuf::from(value("--teacher")?)),
            "--model-dir" => model_dir = Some(PathBuf::from(value("--model-dir")?)),
            #[cfg(feature = "experiments")]
            "--adapt" => adapt = Some(adapt.unwrap_or(build_index::Adapt::STANDARD)),
            #[cfg(feature = "experiments")]
            "--no-adapt" => no_adapt = true,
            #[cfg(feature = "experiments")]
            "--adapt-epochs" => knob(&mut adapt).epochs = parse_num(&value("--adapt-epochs")?)?,
            #[cfg(feature = "experiments")]
            "--adapt-lr" => knob(&mut adapt).lr = parse_f32(&value("--adapt-lr")?)?,
            #[cfg(feature = "experiments")]
            "--adapt-pull" => knob(&mut adapt).pull = parse_f32(&value("--adapt-pull")?)?,
            #[cfg(feature = "experiments")]
            "--adapt-temperature" => {
                knob(&mut adapt).temperature = parse_f32(&value("--adapt-temperature")?)?;
            }
            #[cfg(feature = "experiments")]
            "--adapt-sweep" => adapt_sweep = true,
            #[cfg(feature = "experiments")]
            "--adapt-headings-only" => knob(&mut adapt).first_sentences = false,
            #[cfg(feature = "experiments")]
            "--adapt-site-negatives" => knob(&mut adapt).site_negatives = true,
            "--reference-teacher" => reference_teachers.push(value("--reference-teacher")?.into()),
            other => bail!("unexpected argument '{other}'\n\n{USAGE}"),
        }
    }
    #[cfg(feature = "experiments")]
    {
        options.adapt = adapt.filter(|_| !no_adapt && !lexical);
    }
    if typos.is_some() && cross.is_some() {
        bail!("--typos scores one question set: give it with --corpus and --questions");
    }
    if write_shipped && (lexical || cross.is_none()) {
        bail!(
            "--write-shipped needs --cross with vectors: what ships answers with and without them"
        );
    }
    let (corpus, questions) = match (corpus, questions, &cross) {
        (Some(corpus), Some(questions), None) => (corpus, questions),
        (None, None, Some(_)) => (PathBuf::new(), PathBuf::new()),
        _ => bail!("give --corpus and --questions, or --cross\n\n{USAGE}"),
    };
    let model = match (teacher, model_dir, lexical) {
        (Some(teacher), Some(model_dir), false) => Some(ModelFiles { teacher, model_dir }),
        (None, None, false) => Some(shipped_models()),
        (None, None, true) => None,
        (_, _, true) => bail!("--lexical takes the vectors away; it cannot go with --teacher"),
        _ => bail!("--teacher and --model-dir go together"),
    };
    Ok(Args {
        typos,
        followups,
        adapt_sweep,
        sharded,
        sharded_same_knobs,
        cross,
        write_shipped,
        dump_rows,
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

/// An --adapt-* knob turns adaptation on with the other knobs standard.
#[cfg(feature = "experiments")]
fn knob(adapt: &mut Option<build_index::Adapt>) -> &mut build_index::Adapt {
    adapt.get_or_insert(build_index::Adapt::STANDARD)
}

#[cfg(feature = "experiments")]
fn parse_num(s: &str) -> Result<usize> {
    s.parse()
        .with_context(|| format!("'{s}' is not a whole number"))
}

fn run() -> Result<ExitCode> {
    let args = parse_args()?;
    if let Some(registry) = &args.cross {
        return cross(&args, registry);
    }
    let mut questions = questions::load(&args.questions)?;
    // On a built site, the question file's markdown sources are read as the pages built from them.
    if build_index::corpus_input(&args.corpus, &args.options)? == build_index::Input::Html {
        questions::on_built_site(&mut questions);
    }
    let problems = questions::check(&questions, &args.corpus, &args.options);
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
    let pairs = match &args.followups {
        Some(path) => {
            let pairs = followups::load(path)?;
            let problems = followups::check(&pairs, &args.corpus, &args.options);
            if !problems.is_empty() {
                for p in &problems {
                    eprintln!("{}: {p}", path.display());
                }
                bail!("{} problem(s) in {}", problems.len(), path.display());
            }
            pairs
        }
        None => Vec::new(),
    };
    if args.check_only {
        println!(
            "{}: {} questions, all evidence phrases found",
            args.questions.display(),
            questions.len()
        );
        if let Some(path) = &args.followups {
            println!(
                "{}: {} follow-up pairs, all evidence phrases found",
                path.display(),
                pairs.len()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let embedder = load_embedder(&args)?;
    let built = build_with(&args.corpus, &args.options, embedder.as_ref())?;
    #[cfg(feature = "experiments")]
    if let Some(a) = &built.report.adaptation {
        eprintln!(
            "query model adapted in {:.1} s ({} pseudo-queries, {} rows, cos {:.3} -> {:.3} float, {:.3} requantised)",
            a.secs, a.pseudo_queries, a.rows_changed, a.cos_before, a.cos_trained, a.cos_after
        );
    }
    let result = report::evaluate(&args, &questions, &pairs, &built, embedder.as_ref())?;

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

/// The teacher and query model (the shipped ones unless `--lexical` or `--teacher`), with a
/// message that says what to do when they are missing.
fn load_embedder(args: &Args) -> Result<Option<build_index::Embedder>> {
    let Some(files) = &args.model else {
        return Ok(None);
    };
    build_index::Embedder::load(files)
        .map(Some)
        .with_context(|| {
            format!(
                "the evaluated configuration has vectors, but its models cannot be loaded (teacher {}, query model in {}): run scripts/setup.sh, or pass --lexical",
                files.teacher.display(),
                files.model_dir.display()
            )
        })
}

fn cross(args: &Args, registry: &Path) -> Result<ExitCode> {
    let entries = cross::load_registry(registry, &root())?;
    let embedder = load_embedder(args)?;
    #[cfg(feature = "experiments")]
    if args.adapt_sweep {
        let md = sweep::run(entries, &args.options, embedder.as_ref())?;
        print!("{md}");
        if let Some(path) = &args.markdown {
            std::fs::write(path, &md)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let result = cross::run(
        entries,
        &args.options,
        embedder.as_ref(),
        args.dump_rows.as_deref(),
        args.sharded,
        args.sharded_same_knobs,
    )?;
    print!("{}", result.markdown);
    if let Some(path) = &args.markdown {
        std::fs::write(path, &result.markdown)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&result.json)? + "\n";
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.write_shipped {
        let path = root().join("crates/onrecord-core/src/answer/shipped.rs");
        std::fs::write(&path, &result.shipped_rs)
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
