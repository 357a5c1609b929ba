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
mod engine;
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
use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::questions::Split;

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
    /// With `cross`: write every question's evidence features and shipped answer here (JSON lines).
    pub dump_rows: Option<PathBuf>,
    /// The reader model (`--reader`).
    pub reader: Option<PathBuf>,
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

/// Scores one question set on one corpus with the engine the browser runs, or runs the
/// cross-corpus protocol over a registry of corpora.
///
/// With no model flags it uses the shipped models: the teacher in
/// target/models/all-minilm-l6-v2 embeds fragments and build-index/model queries.
#[derive(Parser)]
#[command(
    name = "eval",
    override_usage = "eval --corpus <DIR> --questions <FILE> [OPTIONS]\n       \
                      eval --cross <REGISTRY> [OPTIONS]",
    // A flag given twice keeps its last value, as the hand-written parser did; the repeatable
    // ones (--site-name, --reference-teacher) collect every value.
    args_override_self = true
)]
struct Cli {
    /// The corpus folder (markdown, or the .html pages a generator built).
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "cross",
        conflicts_with = "cross"
    )]
    corpus: Option<PathBuf>,
    /// The question file (eval/questions/*.json).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "cross",
        conflicts_with = "cross"
    )]
    questions: Option<PathBuf>,
    /// The questions scored.
    #[arg(
        long,
        default_value = "all",
        value_parser = PossibleValuesParser::new(["dev", "test", "all"]).try_map(split)
    )]
    split: Split,
    /// Also write the report's numbers as JSON here.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Also write the markdown report (printed on stdout) here.
    #[arg(long, value_name = "OUT")]
    markdown: Option<PathBuf>,
    /// Folder of private notes, never indexed (default: private).
    #[arg(long, value_name = "NAME")]
    private_dir: Option<String>,
    /// A name of the site or its author, which questions use to mean "these pages"
    /// (repeatable).
    #[arg(long, value_name = "NAME")]
    site_name: Vec<String>,
    /// The folder includes may read (default: the corpus folder itself).
    #[arg(long, value_name = "DIR")]
    include_root: Option<PathBuf>,
    /// Fragment size in characters (default: the shipped one).
    #[arg(long, value_name = "N")]
    fragment_chars: Option<usize>,
    /// Also score retrieval at these fragment sizes.
    #[arg(long, value_name = "N,N,...", value_parser = sizes)]
    sizes: Option<Sizes>,
    /// Only check the question file (ids, evidence phrases) and exit.
    #[arg(long)]
    check: bool,
    /// Also score a typo copy of the questions (one typo each, seeded): recall@5 of the copy
    /// beside the original's. It scores one question set, so not with --cross.
    #[arg(long, value_name = "SEED", value_parser = seed, conflicts_with = "cross")]
    typos: Option<u64>,
    /// Also score follow-up pairs (eval/questions/followups-*.json) on the corpus.
    #[arg(long, value_name = "FILE")]
    followups: Option<PathBuf>,
    /// The least share of the question's idf weight a private note's hint must cover to bear
    /// on it (default: the shipped one).
    #[arg(long, value_name = "X")]
    hint_floor: Option<f32>,

    /// The cross-corpus protocol over the corpora of this registry (eval/corpora.json): each
    /// corpus left out in turn, knobs chosen on the dev halves of the others.
    #[arg(long, value_name = "REGISTRY", help_heading = CROSS)]
    cross: Option<PathBuf>,
    /// Write what the fit on every dev half gives to crates/onrecord-core/src/answer/shipped.rs
    /// (what the widget ships). It needs vectors: what ships answers with and without them.
    // Not `requires = "cross"` alone: clap lets a required argument be missing when something
    // that conflicts with it (--corpus) is present.
    #[arg(
        long,
        requires = "cross",
        conflicts_with_all = ["lexical", "corpus", "questions"],
        help_heading = CROSS
    )]
    write_shipped: bool,
    /// Every question's evidence features and shipped answer, long, terse and typed sets, as JSON lines.
    #[arg(long, value_name = "FILE", help_heading = CROSS)]
    dump_rows: Option<PathBuf>,
    /// Answer from each index written as a manifest and shards and read back (every shard
    /// taken), so every read goes through the sharded storage; lexical numbers must equal the
    /// whole index's, with vectors they may differ by what IVF and residual codes lose (vector
    /// search ranks the residual codes of the lists nearest the question,
    /// onrecord_core::PROBES).
    #[arg(long, help_heading = CROSS)]
    sharded: bool,
    /// As --sharded, but every knob is chosen on the whole indexes and the sharded ones are
    /// scored with them: what the storage alone changes.
    #[arg(long, help_heading = CROSS)]
    sharded_same_knobs: bool,
    /// Score a grid of adaptation knobs on every dev half and name the point each left-out
    /// corpus would get (chosen on the others' dev halves).
    #[cfg(feature = "experiments")]
    #[arg(long, help_heading = CROSS)]
    adapt_sweep: bool,

    /// No vectors (the shipped build embeds fragments with the teacher in
    /// target/models/all-minilm-l6-v2 and queries with build-index/model).
    #[arg(long, conflicts_with_all = ["teacher", "model_dir"], help_heading = MODELS)]
    lexical: bool,
    /// With --model-dir: another teacher and query model, for experiments.
    #[arg(long, value_name = "DIR", requires = "model_dir", help_heading = MODELS)]
    teacher: Option<PathBuf>,
    /// The query model's folder that goes with --teacher.
    #[arg(long, value_name = "DIR", requires = "teacher", help_heading = MODELS)]
    model_dir: Option<PathBuf>,
    /// Add reference rows with this full teacher (all-MiniLM-L6-v2, or multilingual-e5-small
    /// from scripts/setup-e5.sh) embedding fragments and questions, alone and fused with BM25
    /// (repeatable).
    #[arg(long, value_name = "DIR", help_heading = MODELS)]
    reference_teacher: Vec<PathBuf>,
    /// Read each question with its candidate quotes through this reader model (a `.ona`
    /// file; an experiment, not shipped): it picks the quote and is a decline feature.
    #[arg(long, value_name = "FILE", help_heading = MODELS)]
    reader: Option<PathBuf>,

    /// Adapt the query model to each corpus's own text at build time (headings and first
    /// sentences as pseudo-queries).
    #[cfg(feature = "experiments")]
    #[arg(long, help_heading = ADAPT)]
    adapt: bool,
    /// Copy the query model as is, whatever the other --adapt flags say.
    #[cfg(feature = "experiments")]
    #[arg(long, help_heading = ADAPT)]
    no_adapt: bool,
    /// Passes over the pseudo-queries (implies --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, value_name = "N", help_heading = ADAPT)]
    adapt_epochs: Option<usize>,
    /// Adam's learning rate (implies --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, value_name = "X", help_heading = ADAPT)]
    adapt_lr: Option<f32>,
    /// Weight of the pull back to the original rows (implies --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, value_name = "X", help_heading = ADAPT)]
    adapt_pull: Option<f32>,
    /// Softmax temperature of the contrastive loss (implies --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, value_name = "X", help_heading = ADAPT)]
    adapt_temperature: Option<f32>,
    /// Headings only as pseudo-queries, not first sentences (implies --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, help_heading = ADAPT)]
    adapt_headings_only: bool,
    /// Every fragment of the site as negatives, as the standard knobs have it (implies
    /// --adapt).
    #[cfg(feature = "experiments")]
    #[arg(long, help_heading = ADAPT)]
    adapt_site_negatives: bool,
}

const CROSS: &str = "With --cross";
const MODELS: &str = "Models";
#[cfg(feature = "experiments")]
const ADAPT: &str = "Site adaptation (the experiments feature)";

/// The fragment sizes of `--sizes`: one value, so a second `--sizes` replaces the first.
#[derive(Clone)]
struct Sizes(Vec<usize>);

fn split(s: String) -> Result<Split, String> {
    Split::parse(&s).ok_or_else(|| "must be dev, test or all".to_string())
}

fn sizes(list: &str) -> Result<Sizes, String> {
    list.split(',')
        .map(|s| {
            s.trim()
                .parse()
                .map_err(|e| format!("'{s}' is not a number: {e}"))
        })
        .collect::<Result<_, _>>()
        .map(Sizes)
}

fn seed(s: &str) -> Result<u64, String> {
    s.parse()
        .map_err(|e| format!("not a seed (a whole number): {e}"))
}

impl Cli {
    /// What the harness runs: the shipped build options, thresholds and models with what was
    /// given. Clap has already refused the combinations that make no sense.
    fn into_args(self) -> Args {
        let mut options = Options::standard();
        if let Some(dir) = self.private_dir {
            options.private_dir = dir;
        }
        options.site_names.extend(self.site_name);
        if let Some(dir) = self.include_root {
            options.include_root = Some(dir);
        }
        if let Some(n) = self.fragment_chars {
            options.fragment_chars = n;
        }
        #[cfg(feature = "experiments")]
        {
            let mut adapt = options.adapt;
            // An --adapt-* knob turns adaptation on with the other knobs standard.
            let knob = self.adapt_epochs.is_some()
                || self.adapt_lr.is_some()
                || self.adapt_pull.is_some()
                || self.adapt_temperature.is_some()
                || self.adapt_headings_only
                || self.adapt_site_negatives;
            if self.adapt || knob {
                let a = adapt.get_or_insert(build_index::Adapt::STANDARD);
                if let Some(n) = self.adapt_epochs {
                    a.epochs = n;
                }
                if let Some(x) = self.adapt_lr {
                    a.lr = x;
                }
                if let Some(x) = self.adapt_pull {
                    a.pull = x;
                }
                if let Some(x) = self.adapt_temperature {
                    a.temperature = x;
                }
                if self.adapt_headings_only {
                    a.first_sentences = false;
                }
                if self.adapt_site_negatives {
                    a.site_negatives = true;
                }
            }
            options.adapt = adapt.filter(|_| !self.no_adapt && !self.lexical);
        }
        let mut answer = onrecord_core::AnswerConfig::DEFAULT;
        if let Some(x) = self.hint_floor {
            answer.hint_floor = x;
        }
        // Clap lets --teacher and --model-dir come only together, and neither with --lexical.
        let model = match (self.teacher, self.model_dir) {
            _ if self.lexical => None,
            (Some(teacher), Some(model_dir)) => Some(ModelFiles { teacher, model_dir }),
            _ => Some(shipped_models()),
        };
        Args {
            corpus: self.corpus.unwrap_or_default(),
            questions: self.questions.unwrap_or_default(),
            split: self.split,
            json: self.json,
            markdown: self.markdown,
            options,
            sizes: self.sizes.map_or_else(Vec::new, |s| s.0),
            check_only: self.check,
            model,
            reference_teachers: self.reference_teacher,
            reader: self.reader,
            answer,
            cross: self.cross,
            write_shipped: self.write_shipped,
            dump_rows: self.dump_rows,
            followups: self.followups,
            #[cfg(feature = "experiments")]
            adapt_sweep: self.adapt_sweep,
            #[cfg(not(feature = "experiments"))]
            adapt_sweep: false,
            sharded: self.sharded,
            sharded_same_knobs: self.sharded_same_knobs,
            typos: self.typos,
        }
    }
}

fn run() -> Result<ExitCode> {
    let args = Cli::parse().into_args();
    if let Some(path) = &args.reader {
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the reader model {}", path.display()))?;
        let reader = onrecord_core::ReaderModel::from_bytes(&bytes)
            .with_context(|| format!("cannot use the reader model {}", path.display()))?;
        engine::use_reader(reader);
    }
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    fn parse(args: &str) -> Result<Args, String> {
        Cli::try_parse_from(std::iter::once("eval").chain(args.split_whitespace()))
            .map(Cli::into_args)
            .map_err(|e| e.to_string())
    }

    fn ok(args: &str) -> Args {
        parse(args).unwrap_or_else(|e| panic!("{args}: {e}"))
    }

    #[test]
    fn the_arguments_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn what_makes_no_sense_is_refused() {
        for args in [
            "",
            "--corpus c",
            "--questions q",
            "--corpus c --questions q --cross r",
            "--corpus c --cross r",
            "--cross r --typos 7",
            "--corpus c --questions q --write-shipped",
            "--write-shipped",
            "--cross r --write-shipped --lexical",
            "--corpus c --questions q --teacher t",
            "--corpus c --questions q --model-dir m",
            "--corpus c --questions q --lexical --teacher t --model-dir m",
            "--corpus c --questions q --lexical --model-dir m",
            "--corpus c --questions q --split train",
            "--corpus c --questions q --sizes 400,x",
            "--corpus c --questions q --typos seven",
            "--corpus c --questions q --fragment-chars many",
            "--corpus c --questions q --unknown",
            "--corpus c --questions q extra",
            "--corpus",
        ] {
            assert!(parse(args).is_err(), "{args}");
        }
        #[cfg(not(feature = "experiments"))]
        assert!(parse("--corpus c --questions q --adapt").is_err());
    }

    #[test]
    fn nothing_given_is_the_shipped_configuration() {
        let args = ok("--corpus c --questions q");
        let standard = Options::standard();
        assert_eq!(
            (args.corpus, args.questions),
            (PathBuf::from("c"), PathBuf::from("q"))
        );
        assert_eq!(args.split, Split::All);
        assert_eq!(args.options.private_dir, standard.private_dir);
        assert_eq!(args.options.fragment_chars, standard.fragment_chars);
        assert!(args.options.site_names.is_empty() && args.options.include_root.is_none());
        assert_eq!(
            args.answer.hint_floor,
            onrecord_core::AnswerConfig::DEFAULT.hint_floor
        );
        let model = args.model.expect("the shipped models");
        assert_eq!(model.teacher, shipped_models().teacher);
        assert_eq!(model.model_dir, shipped_models().model_dir);
        assert!(args.sizes.is_empty() && args.reference_teachers.is_empty());
        assert!(!args.check_only && !args.write_shipped && !args.adapt_sweep);
        assert!(!args.sharded && !args.sharded_same_knobs);
        assert!(args.typos.is_none() && args.followups.is_none() && args.cross.is_none());
        #[cfg(feature = "experiments")]
        assert_eq!(args.options.adapt, None);
    }

    #[test]
    fn the_last_value_wins_and_repeatable_flags_collect() {
        let args = ok(
            "--corpus a --corpus c --questions q --split dev --split test \
             --sizes 400,800 --sizes 1200 --site-name A --site-name B --check --check \
             --reference-teacher t1 --reference-teacher t2 --typos 3 --typos 7 \
             --private-dir notebook --include-root .. --fragment-chars 600 --hint-floor 0.5 \
             --json j --markdown m --followups f --lexical --lexical",
        );
        assert_eq!(args.corpus, PathBuf::from("c"));
        assert_eq!(args.split, Split::Test);
        assert_eq!(args.sizes, [1200]);
        assert_eq!(args.options.site_names, ["A", "B"]);
        assert_eq!(
            args.reference_teachers,
            [PathBuf::from("t1"), PathBuf::from("t2")]
        );
        assert_eq!(args.typos, Some(7));
        assert!(args.check_only && args.model.is_none());
        assert_eq!(args.options.private_dir, "notebook");
        assert_eq!(args.options.include_root, Some(PathBuf::from("..")));
        assert_eq!(args.options.fragment_chars, 600);
        assert_eq!(args.answer.hint_floor, 0.5);
        assert_eq!(args.json, Some(PathBuf::from("j")));
        assert_eq!(args.markdown, Some(PathBuf::from("m")));
        assert_eq!(args.followups, Some(PathBuf::from("f")));
        assert_eq!(sizes(" 400, 800 ").map(|s| s.0), Ok(vec![400, 800]));
    }

    #[test]
    fn the_cross_protocol_takes_its_own_flags() {
        let args = ok(
            "--cross r --write-shipped --sharded --sharded-same-knobs --dump-rows d \
             --teacher t --model-dir m",
        );
        assert_eq!(args.cross, Some(PathBuf::from("r")));
        assert_eq!(
            (args.corpus, args.questions),
            (PathBuf::new(), PathBuf::new())
        );
        assert!(args.write_shipped && args.sharded && args.sharded_same_knobs);
        assert_eq!(args.dump_rows, Some(PathBuf::from("d")));
        let model = args.model.expect("the given models");
        assert_eq!(
            (model.teacher, model.model_dir),
            (PathBuf::from("t"), PathBuf::from("m"))
        );
        assert!(ok("--cross r --lexical").model.is_none());
    }

    #[cfg(feature = "experiments")]
    #[test]
    fn an_adapt_knob_turns_adaptation_on_and_no_adapt_or_lexical_off() {
        use build_index::Adapt;
        let adapt = |args: &str| ok(&format!("--cross r {args}")).options.adapt;
        assert_eq!(adapt("--adapt"), Some(Adapt::STANDARD));
        assert_eq!(
            adapt("--adapt-epochs 2 --adapt-lr 0.5 --adapt"),
            Some(Adapt {
                epochs: 2,
                lr: 0.5,
                ..Adapt::STANDARD
            })
        );
        assert_eq!(
            adapt("--adapt-pull 0.2 --adapt-temperature 0.1 --adapt-headings-only"),
            Some(Adapt {
                pull: 0.2,
                temperature: 0.1,
                first_sentences: false,
                ..Adapt::STANDARD
            })
        );
        assert_eq!(adapt("--adapt-site-negatives"), Some(Adapt::STANDARD));
        assert_eq!(adapt("--no-adapt --adapt-epochs 2"), None);
        assert_eq!(adapt("--adapt --lexical"), None);
        assert!(ok("--cross r --adapt-sweep").adapt_sweep);
    }
}
