//! `onrecord`: builds a site's ready-to-copy widget folder, checks it, serves it and asks it.
//!
//! An adapter only: the index is built by the `build-index` library, questions are answered by
//! `onrecord-core`, and the widget's files are the ones `scripts/cli-assets.sh` built, carried in
//! the binary, so deploying needs neither Node, Chromium nor a wasm toolchain.

mod ask;
mod config;
mod deploy;
mod gaps;
mod init;
mod messages;
mod progress;
mod serve;
mod teacher;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use build_index::{
    EmbedOptions, Embedder, Layout, ModelFiles, Options, QueryModelFiles, build_reporting,
};
use clap::{Args, CommandFactory, Parser, Subcommand};
use onrecord_core::{FRAGMENT_CHARS, Lang, ShardSizes};

use crate::config::Settings;
use crate::progress::{Mode, Shown};
use crate::teacher::Cached;

/// The query model and its projection, carried in the binary so vectors need no checkout
/// (`build-index/model` builds them; the core's `QueryModel` and build-index's projection
/// reader decode them, as they do the files).
const QUERY_MODEL: &[u8] = include_bytes!("../../../build-index/model/query-model.onq");
const DOC_PROJECTION: &[u8] = include_bytes!("../../../build-index/model/doc-projection.bin");

/// Documentation answers for any static site: quotes with citations, or a decline that says why.
#[derive(Parser)]
#[command(name = "onrecord", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Index a markdown folder or a built site and write the ready-to-copy widget folder.
    // Boxed: its many options make it far larger than the other commands' (clippy).
    Build(Box<BuildArgs>),
    /// Write a commented onrecord.toml here for the pages folder found here (or named).
    Init(InitArgs),
    /// The teacher model that vectors need, in the user's cache folder.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Answer a question from an index, as the widget would (for debugging your pages).
    Ask(AskArgs),
    /// Verify a deploy folder: names, content hashes, checksums, versions, model fit.
    Check(CheckArgs),
    /// Preview a folder on localhost with the cache headers the README recommends.
    Serve(serve::ServeArgs),
    /// Report what visitors could not find, from the records the widget sent to data-report.
    Gaps(gaps::GapsArgs),
}

/// Every option can also be set in onrecord.toml (the current folder's, or --config FILE); a
/// flag overrides the file.
#[derive(Args)]
struct BuildArgs {
    /// The pages: a markdown folder, or the .html a generator built (a folder with more .html
    /// pages than markdown pages is read as a built site). Default: `input` in onrecord.toml.
    input: Option<PathBuf>,
    /// The folder to write (created if missing): copy it to your site. Default: `out` in
    /// onrecord.toml.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The settings file (default: onrecord.toml in the current folder, if there is one).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Match questions by meaning too: fetches the teacher model into the cache on first use
    /// (`onrecord model fetch`). Once it is cached, builds use it without this flag.
    #[arg(long, conflicts_with = "lexical")]
    vectors: bool,
    /// Match questions by their words only, even with the teacher model cached.
    #[arg(long, conflicts_with_all = ["teacher", "model_dir"])]
    lexical: bool,
    /// A teacher folder of your own (all-MiniLM-L6-v2 files), for experiments; with
    /// --model-dir instead of the cached teacher and the carried query model.
    #[arg(long, requires = "model_dir")]
    teacher: Option<PathBuf>,
    /// Folder with query-model.onq and doc-projection.bin (with --teacher).
    #[arg(long, requires = "teacher")]
    model_dir: Option<PathBuf>,
    /// Folder of the embedding cache, so a rebuild embeds only changed fragments (default:
    /// target/embed-cache with --teacher, else embed-cache/ in the onrecord cache folder).
    #[arg(long)]
    embed_cache: Option<PathBuf>,
    /// Keep embeddings in memory only.
    #[arg(long)]
    no_embed_cache: bool,
    /// Folder (inside the input) of private notes, never indexed (default: private).
    #[arg(long)]
    private_dir: Option<String>,
    /// A name of the site or its author, which questions use to mean "these pages" (repeatable).
    #[arg(long)]
    site_name: Vec<String>,
    /// A file or folder of the input not to read, relative to it (repeatable): an archive of
    /// old versions, a vendored theme's pages. `*` and `?` match within a name, `**` any number
    /// of folders: 'v*', '**/print.html'.
    #[arg(long, value_name = "PATH")]
    exclude: Vec<String>,
    /// The folder includes ({{#include}}, MyST's {include}) may read: the input itself unless
    /// named (docs that include ../CHANGES.md name the folder above). Nothing outside is read.
    #[arg(long, value_name = "DIR")]
    include_root: Option<PathBuf>,
    /// Language of pages without a `lang` field or `<html lang>` (default: en).
    #[arg(long)]
    lang: Option<String>,
    #[arg(long, help = format!("Fragment size in characters (default: {FRAGMENT_CHARS})"))]
    fragment_chars: Option<usize>,
    /// Adapt the query model to the site's own headings and first sentences (with vectors);
    /// the folder gets the adapted copy. An experiment: built with the `experiments` feature.
    #[cfg(feature = "experiments")]
    #[arg(long, conflicts_with = "lexical")]
    adapt: bool,
    /// Write the index as a manifest and shards that a question fetches on demand, whatever its
    /// size (by default only a large site's index is sharded; a smaller one stays one file).
    #[arg(long)]
    shards: bool,
    /// Target size of a shard in bytes (default 16384): smaller shards, fewer bytes per question
    /// and more requests.
    #[arg(long)]
    shard_size: Option<usize>,
    /// Print nothing but errors: no progress, no report.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct InitArgs {
    /// The pages folder (default: the built site or markdown folder found here).
    pages: Option<PathBuf>,
    /// Write over an existing onrecord.toml.
    #[arg(long)]
    force: bool,
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Fetch the teacher model into the cache (once; a damaged copy is fetched again), so
    /// builds match by meaning too.
    Fetch,
}

#[derive(Args)]
struct AskArgs {
    /// An index file or manifest, a folder with index.onr or manifest.onr, or a deploy folder.
    index: PathBuf,
    /// The question.
    question: String,
    /// Print the answer as JSON.
    #[arg(long)]
    json: bool,
    /// Ignore the query model next to the index (answer by words only).
    #[arg(long)]
    lexical: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// The folder `onrecord build` wrote (as deployed).
    folder: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(args) => build(&args),
        Command::Init(args) => init::run(args.pages.as_deref(), args.force),
        Command::Model(ModelCommand::Fetch) => teacher::ensure(&Shown::new(Mode::detect(false)))
            .map(|dir| {
                println!("teacher model: {} (verified)", dir.display());
            }),
        Command::Ask(args) => ask::run(&args.index, &args.question, args.json, args.lexical),
        Command::Check(args) => check(&args.folder),
        Command::Serve(args) => serve::run(&args),
        Command::Gaps(args) => gaps::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Why a build has vectors or not: the build report says it either way.
enum Vectors {
    /// With the teacher in this folder and the carried query model.
    Cached(PathBuf),
    /// With `--teacher` and `--model-dir`.
    Given(ModelFiles),
    /// Lexical, and the line that says why.
    Lexical(String),
}

/// Decides whether the build has vectors. Vectors are the default once the teacher is cached:
/// on the left-out corpora (eval/results/cross-corpus.md against cross-corpus-lexical.md)
/// they answer more questions correctly, find more paraphrased ones, and answer no more
/// wrongly. Asked for and not fetchable, the build goes on lexical and says why.
fn vectors(args: &BuildArgs, settings: &Settings, shown: &Shown) -> Result<Vectors> {
    if let (Some(teacher), Some(model_dir)) = (&args.teacher, &args.model_dir) {
        return Ok(Vectors::Given(ModelFiles {
            teacher: teacher.clone(),
            model_dir: model_dir.clone(),
        }));
    }
    let off = if args.lexical {
        Some("--lexical")
    } else if settings.vectors == Some(false) && !args.vectors {
        Some("vectors = false in the settings")
    } else {
        None
    };
    if let Some(why) = off {
        return Ok(Vectors::Lexical(format!(
            "lexical build ({why}): questions are matched by their words only"
        )));
    }
    let asked = args.vectors || settings.vectors == Some(true);
    let cached = match teacher::cached() {
        Ok(cached) => cached,
        // No cache folder (no home folder): a build that did not ask for vectors goes on.
        Err(e) if !asked => {
            return Ok(Vectors::Lexical(format!(
                "lexical build: questions are matched by their words only ({e:#})"
            )));
        }
        Err(e) => return Err(e),
    };
    let fetched = match cached {
        Cached::Ready(dir) => return Ok(Vectors::Cached(dir)),
        Cached::Missing if !asked => {
            return Ok(Vectors::Lexical(
                "lexical build: no teacher model is cached, so questions are matched by their \
                 words only (`onrecord build --vectors` fetches it once, ~84 MB, to match by \
                 meaning too; builds then use it by default)"
                    .to_owned(),
            ));
        }
        Cached::Missing | Cached::Damaged(_) => teacher::ensure(shown),
    };
    match fetched {
        Ok(dir) => Ok(Vectors::Cached(dir)),
        Err(e) => {
            eprintln!("error: cannot fetch the teacher model: {e:#}");
            Ok(Vectors::Lexical(
                "lexical build: the teacher model could not be fetched (the error above), so \
                 this build stays lexical; run it again to retry (a partial download resumes)"
                    .to_owned(),
            ))
        }
    }
}

fn build(args: &BuildArgs) -> Result<()> {
    let settings = Settings::find(args.config.as_deref())?;
    let shown = Shown::new(Mode::detect(args.quiet));
    // A missing input or output is a usage error (exit status 2), as a missing argument was.
    let missing = |given: &str, key: &str| -> ! {
        let file = settings.path.as_ref().map_or(String::new(), |p| {
            format!(" and {} has no `{key}`", p.display())
        });
        Cli::command()
            .error(
                clap::error::ErrorKind::MissingRequiredArgument,
                format!(
                    "no {given} given{file} (onrecord build <pages> --out <dir>, or an \
                     onrecord.toml: onrecord init)"
                ),
            )
            .exit()
    };
    let input = args
        .input
        .clone()
        .or(settings.input.clone())
        .unwrap_or_else(|| missing("<pages> folder", "input"));
    let out = args
        .out
        .clone()
        .or(settings.out.clone())
        .unwrap_or_else(|| missing("--out", "out"));
    if !input.is_dir() {
        bail!("{} does not exist or is not a folder", input.display());
    }
    let lang = match &args.lang {
        Some(tag) => Lang::from_tag(tag).with_context(|| format!("unsupported --lang '{tag}'"))?,
        None => settings.lang.unwrap_or(Lang::English),
    };
    let flags_or =
        |flags: &[String], file: &[String]| if flags.is_empty() { file } else { flags }.to_vec();
    if settings.collections.is_none() && input.join(build_index::CONFIG_FILE).is_file() {
        shown.say(&format!(
            "note: {} is deprecated: collections now go in onrecord.toml ([collections.NAME]; \
             `onrecord init` moves them)",
            input.join(build_index::CONFIG_FILE).display()
        ));
    }
    let options = Options {
        private_dir: args
            .private_dir
            .clone()
            .or(settings.private_dir.clone())
            .unwrap_or_else(|| "private".into()),
        default_lang: lang,
        fragment_chars: args
            .fragment_chars
            .or(settings.fragment_chars)
            .unwrap_or(FRAGMENT_CHARS),
        site_names: flags_or(&args.site_name, &settings.site_names),
        exclude: flags_or(&args.exclude, &settings.exclude),
        include_root: args.include_root.clone().or(settings.include_root.clone()),
        #[cfg(feature = "experiments")]
        adapt: args.adapt.then_some(build_index::Adapt::STANDARD),
        collections: settings.collections.clone(),
        ..Options::standard()
    };
    let vectors = vectors(args, &settings, &shown)?;
    let mut embed = EmbedOptions::standard();
    embed.cache_dir = match (&vectors, &args.embed_cache) {
        _ if args.no_embed_cache => None,
        (_, Some(dir)) => Some(dir.clone()),
        // A checkout's experiments keep their cache in target/, as build-index does.
        (Vectors::Given(_), None) => Some(PathBuf::from(build_index::DEFAULT_CACHE_DIR)),
        (Vectors::Cached(_), None) => Some(teacher::cache_root()?.join("embed-cache")),
        (Vectors::Lexical(_), None) => None,
    };
    let embedder = match &vectors {
        Vectors::Given(files) => Some(Embedder::load_with(files, &embed)?),
        Vectors::Cached(dir) => {
            let carried = QueryModelFiles {
                query_model: QUERY_MODEL,
                projection: DOC_PROJECTION,
                name: "the query model carried by onrecord",
            };
            Some(Embedder::load_parts(dir, &carried, &embed)?)
        }
        Vectors::Lexical(_) => None,
    };
    #[cfg(feature = "experiments")]
    if args.adapt && embedder.is_none() {
        bail!("--adapt adapts the query model, so it needs vectors (--vectors)");
    }
    let started = Instant::now();
    let built = build_reporting(&input, &options, embedder.as_ref(), &shown)?;
    let model = built.query_model.as_deref();
    let layout = if args.shards || settings.shards == Some(true) {
        Layout::Sharded
    } else {
        Layout::Auto
    };
    let sizes = match args.shard_size.or(settings.shard_size) {
        Some(0) => bail!("--shard-size must be at least 1 byte"),
        Some(bytes) => ShardSizes {
            postings: bytes,
            text: bytes,
            ..ShardSizes::STANDARD
        },
        None => ShardSizes::STANDARD,
    };
    let written = if layout.is_sharded(built.bytes.len(), sizes) {
        let files = build_index::to_compressed_shards(&built.index, sizes)?;
        deploy::write_folder(&out, &files.manifest, &files.shards, model, &shown)?
    } else {
        deploy::write_folder(&out, &built.bytes, &[], model, &shown)?
    };
    if args.quiet {
        return Ok(());
    }
    print!("{}", built.report);
    let (shards, files): (Vec<_>, Vec<_>) =
        written.iter().partition(|(name, _)| deploy::is_shard(name));
    for (name, bytes) in files {
        println!("{name:<36} {bytes:>9} bytes");
    }
    if !shards.is_empty() {
        let total: usize = shards.iter().map(|(_, bytes)| bytes).sum();
        println!(
            "{:<36} {total:>9} bytes: a sharded index, whose manifest is the index file; a question fetches only the shards it needs",
            format!("{} shards", shards.len())
        );
    }
    match &vectors {
        Vectors::Lexical(why) => println!("{why}"),
        Vectors::Cached(dir) => println!(
            "vectors: questions are matched by meaning too, with the cached teacher model ({}); \
             the default once it is cached, as it answers more left-out questions correctly \
             (eval/results/cross-corpus.md); --lexical builds without",
            dir.display()
        ),
        Vectors::Given(files) => println!(
            "vectors: with the teacher in {} and the query model in {}",
            files.teacher.display(),
            files.model_dir.display()
        ),
    }
    let folder = out.canonicalize().unwrap_or_else(|_| out.clone());
    let tag = folder
        .file_name()
        .map_or("onrecord".into(), |name| name.to_string_lossy());
    println!(
        "wrote {} in {:.0} ms: copy it to your site and add <script type=\"module\" src=\"/{tag}/onrecord.js\"></script>",
        folder.display(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    Ok(())
}

fn check(dir: &Path) -> Result<()> {
    let folder = deploy::read_folder(dir)?;
    // Every hashed file, referenced or not, must hold what its name says.
    let mut hashed = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot list {}", dir.display()))?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((stem, ext)) = deploy::parse_hashed(&name) else {
            continue;
        };
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        if deploy::hashed(stem, ext, &bytes) != name {
            bail!(
                "{}: content does not match the hash in its name (changed after the build?)",
                entry.path().display()
            );
        }
        hashed += 1;
    }
    for name in &folder.referenced {
        if !dir.join(name).is_file() {
            bail!(
                "{}: missing, though the loader loads it",
                dir.join(name).display()
            );
        }
    }
    let index = deploy::read_index(&folder.index)?;
    println!(
        "{}: {} files referenced, {hashed} content hashes match their names",
        dir.join(deploy::LOADER).display(),
        folder.referenced.len()
    );
    println!(
        "{}: format version {}, checksum ok, {} pages, {} fragments, {}",
        folder.index.display(),
        index.format_version(),
        index.docs.len(),
        index.fragment_count(),
        if index.vector_space().is_some() {
            "with vectors"
        } else {
            "lexical (no vectors)"
        }
    );
    match &folder.model {
        Some(path) => {
            let model = deploy::read_model(path, &index, &folder.index)?;
            println!(
                "{}: checksum ok, {} dimensions, fits the index",
                path.display(),
                model.dims()
            );
        }
        None if index.vector_space().is_some() => bail!(
            "{}: the index has vectors but the loader names no query model",
            folder.index.display()
        ),
        None => {}
    }
    println!("ok");
    Ok(())
}
