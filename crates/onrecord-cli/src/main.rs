//! `onrecord`: builds a site's ready-to-copy widget folder, checks it, serves it and asks it.
//!
//! An adapter only: the index is built by the `build-index` library, questions are answered by
//! `onrecord-core`, and the widget's files are the ones `scripts/cli-assets.sh` built, carried in
//! the binary, so deploying needs neither Node, Chromium nor a wasm toolchain.

mod ask;
mod deploy;
mod gaps;
mod serve;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use build_index::{Adapt, EmbedOptions, Embedder, Layout, ModelFiles, Options, build_with};
use clap::{Args, Parser, Subcommand};
use onrecord_core::{Lang, ShardSizes};

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
    /// Answer a question from an index, as the widget would (for debugging your pages).
    Ask(AskArgs),
    /// Verify a deploy folder: names, content hashes, checksums, versions, model fit.
    Check(CheckArgs),
    /// Preview a folder on localhost with the cache headers the README recommends.
    Serve(serve::ServeArgs),
    /// Report what visitors could not find, from the records the widget sent to data-report.
    Gaps(gaps::GapsArgs),
}

#[derive(Args)]
struct BuildArgs {
    /// The pages: a markdown folder, or the .html a generator built (a folder with more .html
    /// pages than markdown pages is read as a built site).
    input: PathBuf,
    /// The folder to write (created if missing): copy it to your site.
    #[arg(long)]
    out: PathBuf,
    /// The embedding transformer's folder (all-MiniLM-L6-v2 files); with --model-dir, the
    /// index gets vectors and the folder a query model. Without both the build is lexical.
    #[arg(long, requires = "model_dir")]
    teacher: Option<PathBuf>,
    /// Folder with query-model.onq and doc-projection.bin (with --teacher).
    #[arg(long, requires = "teacher")]
    model_dir: Option<PathBuf>,
    /// Folder of the embedding cache, so a rebuild embeds only changed fragments.
    #[arg(long, default_value = "target/embed-cache")]
    embed_cache: PathBuf,
    /// Keep embeddings in memory only.
    #[arg(long)]
    no_embed_cache: bool,
    /// Folder (inside the input) of private notes, never indexed.
    #[arg(long, default_value = "private")]
    private_dir: String,
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
    /// Language of pages without a `lang` field or `<html lang>`.
    #[arg(long, default_value = "en")]
    lang: String,
    /// Fragment size in characters.
    #[arg(long, default_value_t = 800)]
    fragment_chars: usize,
    /// Adapt the query model to the site's own headings and first sentences (with --teacher);
    /// the folder gets the adapted copy.
    #[arg(long, requires = "teacher")]
    adapt: bool,
    /// Write the index as a manifest and shards that a question fetches on demand, whatever its
    /// size (by default only a large site's index is sharded; a smaller one stays one file).
    #[arg(long)]
    shards: bool,
    /// Target size of a shard in bytes (default 16384): smaller shards, fewer bytes per question
    /// and more requests.
    #[arg(long)]
    shard_size: Option<usize>,
}

#[derive(Args)]
struct AskArgs {
    /// An index file or manifest, a folder with index.onr or manifest.onr (as build-index
    /// writes), or a deploy folder.
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

fn build(args: &BuildArgs) -> Result<()> {
    if !args.input.is_dir() {
        bail!("{} does not exist or is not a folder", args.input.display());
    }
    let options = Options {
        private_dir: args.private_dir.clone(),
        default_lang: Lang::from_tag(&args.lang)
            .with_context(|| format!("unsupported --lang '{}'", args.lang))?,
        fragment_chars: args.fragment_chars,
        site_names: args.site_name.clone(),
        exclude: args.exclude.clone(),
        include_root: args.include_root.clone(),
        adapt: args.adapt.then_some(Adapt::STANDARD),
        ..Options::standard()
    };
    let embedder = match (&args.teacher, &args.model_dir) {
        (Some(teacher), Some(model_dir)) => {
            let mut embed = EmbedOptions::standard();
            embed.cache_dir = (!args.no_embed_cache).then(|| args.embed_cache.clone());
            let files = ModelFiles {
                teacher: teacher.clone(),
                model_dir: model_dir.clone(),
            };
            Some(Embedder::load_with(&files, &embed)?)
        }
        _ => None,
    };
    let started = Instant::now();
    let built = build_with(&args.input, &options, embedder.as_ref())?;
    let model = built.query_model.as_deref();
    let layout = if args.shards {
        Layout::Sharded
    } else {
        Layout::Auto
    };
    let sizes = match args.shard_size {
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
        deploy::write_folder(&args.out, &files.manifest, &files.shards, model)?
    } else {
        deploy::write_folder(&args.out, &built.bytes, &[], model)?
    };
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
    if embedder.is_none() {
        println!(
            "lexical build: no teacher model was given, so questions are matched by their words only \
             (add --teacher DIR --model-dir DIR to match by meaning too)"
        );
    }
    let folder = args.out.canonicalize().unwrap_or_else(|_| args.out.clone());
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
