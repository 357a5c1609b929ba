//! `build-index`: an internal tool of this repository, not for users (their command is
//! `onrecord build`). It writes the plain index files a script or test needs at a fixed path —
//! `<out>/index.onr` or `manifest.onr` and its shards, and `query-model.onq` — with no widget
//! and no content-hashed names: the demo page's `www/dist/index.onr`, the e2e fixture sites,
//! the check that `onrecord build` writes what build-index + `scripts/site.mjs` write, and the
//! benchmarks' `--single` layout.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use build_index::{
    EmbedOptions, Embedder, Layout, ModelFiles, Options, build_with, write_atomically, write_layout,
};
use clap::Parser;
use onrecord_core::{FRAGMENT_CHARS, Lang, ShardSizes};

/// Reads the pages under a corpus folder (markdown, or the .html pages a generator built: a
/// folder with more .html pages than markdown pages is read as a built site) and writes
/// <out>/index.onr (or, for a site whose index reaches 512 KB, <out>/manifest.onr and the
/// shards it lists). Internal: site owners use `onrecord build`.
#[derive(Parser)]
#[command(name = "build-index")]
struct Args {
    /// The corpus folder.
    corpus: PathBuf,
    /// The folder to write.
    #[arg(long)]
    out: PathBuf,
    /// Folder of private notes, never indexed.
    #[arg(long, default_value = "private", value_name = "NAME")]
    private_dir: String,
    /// A name of the site or its author, which questions use to mean "these pages" (repeatable).
    #[arg(long, value_name = "NAME")]
    site_name: Vec<String>,
    /// A file or folder of the corpus not to read (repeatable; * and ? match within a name, **
    /// any number of folders: 'v*', '**/print.html').
    #[arg(long, value_name = "PATH")]
    exclude: Vec<String>,
    /// The folder includes may read (default: the corpus folder itself; docs that include
    /// ../CHANGES.md name the folder above).
    #[arg(long, value_name = "DIR")]
    include_root: Option<PathBuf>,
    /// Language of pages without a `lang` field or `<html lang>`.
    #[arg(long, default_value = "en", value_name = "TAG")]
    lang: String,
    /// Fragment size in characters.
    #[arg(long, default_value_t = FRAGMENT_CHARS, value_name = "N")]
    fragment_chars: usize,
    /// The embedding transformer (all-MiniLM-L6-v2 files) for fragment vectors.
    #[arg(long, value_name = "DIR", requires = "model_dir")]
    teacher: Option<PathBuf>,
    /// Folder with query-model.onq and doc-projection.bin (with --teacher); query-model.onq is
    /// written next to the index for the browser (gzip-compressed).
    #[arg(long, value_name = "DIR", requires = "teacher")]
    model_dir: Option<PathBuf>,
    /// Adapt the query model to the site's own headings and first sentences (with --teacher);
    /// the adapted copy is written next to the index.
    #[cfg(feature = "experiments")]
    #[arg(long, requires = "teacher")]
    adapt: bool,
    /// Folder of the embedding cache, so a rebuild embeds only fragments whose text changed
    /// (default: target/embed-cache).
    #[arg(long, value_name = "DIR")]
    embed_cache: Option<PathBuf>,
    /// Keep embeddings in memory only.
    #[arg(long)]
    no_embed_cache: bool,
    /// Write a manifest (manifest.onr) and shards a question fetches on demand, each
    /// gzip-compressed, instead of one index.onr, whatever the size (by default an index of
    /// 512 KB or more is sharded, a smaller one is one file).
    #[arg(long, conflicts_with = "single")]
    shards: bool,
    /// Write one index.onr whatever the size (what the widget fetched whole before it read
    /// shards; for comparisons).
    #[arg(long)]
    single: bool,
}

fn main() -> ExitCode {
    // A subcommand in front of the corpus argument, read before clap sees it: as a clap
    // subcommand it would make the corpus optional for every existing call.
    #[cfg(feature = "experiments")]
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "pack-reader")
    {
        let args = PackReaderArgs::parse_from(std::env::args_os().skip(1));
        return report(pack_reader(args));
    }
    report(run(Args::parse()))
}

fn report(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Packs a trained reader (a cross-encoder's model.safetensors with Hugging Face BERT names and
/// head.weight / head.bias, and its vocab.txt or tokenizer.json) into a reader model file (.ona).
#[cfg(feature = "experiments")]
#[derive(Parser)]
#[command(name = "build-index pack-reader", bin_name = "build-index pack-reader")]
struct PackReaderArgs {
    /// The trainer's model.safetensors.
    #[arg(long, value_name = "FILE")]
    safetensors: PathBuf,
    /// The vocabulary: vocab.txt (one token a line, in id order) or a tokenizer.json.
    #[arg(long, value_name = "FILE")]
    vocab: PathBuf,
    /// The reader model file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Attention heads (the weights' shapes do not say).
    #[arg(long, default_value_t = build_index::PackOptions::BERT_TINY.heads)]
    heads: usize,
    /// LayerNorm epsilon (config.json's layer_norm_eps).
    #[arg(long, default_value_t = build_index::PackOptions::BERT_TINY.layer_norm_eps)]
    layer_norm_eps: f32,
}

#[cfg(feature = "experiments")]
fn pack_reader(args: PackReaderArgs) -> Result<()> {
    let read = |path: &PathBuf| {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
    };
    let vocab = build_index::read_vocab(&read(&args.vocab)?)
        .with_context(|| format!("vocabulary {}", args.vocab.display()))?;
    let options = build_index::PackOptions {
        heads: args.heads,
        layer_norm_eps: args.layer_norm_eps,
    };
    let bytes = build_index::pack_reader_with(&read(&args.safetensors)?, &vocab, options)
        .with_context(|| format!("{}", args.safetensors.display()))?;
    let (dir, name) = match (args.out.parent(), args.out.file_name()) {
        (Some(dir), Some(name)) => (dir, name.to_string_lossy()),
        _ => bail!("--out {} names no file", args.out.display()),
    };
    let dir = if dir.as_os_str().is_empty() {
        std::path::Path::new(".")
    } else {
        dir
    };
    let written = write_atomically(dir, &name, &bytes)?;
    println!(
        "wrote {} ({} bytes, {} vocabulary entries)",
        written.display(),
        bytes.len(),
        vocab.len()
    );
    Ok(())
}

fn run(args: Args) -> Result<()> {
    let mut options = Options::standard();
    options.private_dir = args.private_dir;
    options.site_names = args.site_name;
    options.exclude = args.exclude;
    options.include_root = args.include_root;
    options.default_lang = Lang::from_tag(&args.lang)
        .with_context(|| format!("unsupported --lang '{}'", args.lang))?;
    options.fragment_chars = args.fragment_chars;
    #[cfg(feature = "experiments")]
    if args.adapt {
        options.adapt = Some(build_index::Adapt::STANDARD);
    }
    let mut embed = EmbedOptions::standard();
    if let Some(dir) = args.embed_cache {
        embed.cache_dir = Some(dir);
    }
    if args.no_embed_cache {
        embed.cache_dir = None;
    }
    // One file below the size threshold (a small site's first answer is one fetch), shards above.
    let layout = if args.shards {
        Layout::Sharded
    } else if args.single {
        Layout::Single
    } else {
        Layout::Auto
    };
    let (corpus, out) = (args.corpus, args.out);
    if !corpus.is_dir() {
        bail!(
            "corpus folder {} does not exist or is not a folder",
            corpus.display()
        );
    }
    let embedder = match (args.teacher, args.model_dir) {
        (Some(teacher), Some(model_dir)) => Some(Embedder::load_with(
            &ModelFiles { teacher, model_dir },
            &embed,
        )?),
        _ => None,
    };
    let started = Instant::now();
    let built = build_with(&corpus, &options, embedder.as_ref())?;
    let written = write_layout(&out, &built, layout, ShardSizes::STANDARD)?;
    if let Some(model) = &built.query_model {
        // gzip-compressed, as the index files are (the worker and onrecord_files gunzip it).
        write_atomically(&out, "query-model.onq", &onrecord_files::gzip(model))?;
    }
    let secs = started.elapsed().as_secs_f64();
    print!("{}", built.report);
    // Throughput of reading, indexing and writing; embedding is timed on its own line above.
    let without_embedding = secs
        - built
            .report
            .embedding
            .as_ref()
            .map_or(0.0, |e| e.total_secs);
    let what = match written.as_slice() {
        [index] => index.display().to_string(),
        [manifest, shards @ ..] => format!("{} and {} shards", manifest.display(), shards.len()),
        [] => String::new(),
    };
    println!(
        "wrote {what} in {:.0} ms ({:.1} MB/s of input, embedding aside)",
        secs * 1000.0,
        built.report.input_bytes as f64 / 1e6 / without_embedding.max(1e-9)
    );
    Ok(())
}
