//! The `build-index` command: `build-index <corpus or site dir> --out <dir>`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use build_index::{
    EmbedOptions, Embedder, Layout, ModelFiles, Options, build_with, write_atomically, write_layout,
};
use onrecord_core::{Lang, ShardSizes};

const USAGE: &str = "usage: build-index <corpus dir> --out <dir> [--private-dir NAME] [--site-name NAME] [--exclude PATH] [--include-root DIR] [--lang TAG] [--fragment-chars N]

Reads the pages under <corpus dir> — markdown, or the .html pages a generator built (a folder
with more .html pages than markdown pages is read as a built site) — and writes <dir>/index.onr
(or, for a site whose index reaches 512 KB, <dir>/manifest.onr and the shards it lists).
  --private-dir NAME    folder of private notes, never indexed (default: private)
  --site-name NAME      a name of the site or its author, which questions use to mean
                        \"these pages\" (repeatable)
  --exclude PATH        a file or folder of the corpus not to read (repeatable; * and ? match
                        within a name, ** any number of folders: 'v*', '**/print.html')
  --include-root DIR    the folder includes may read (default: the corpus folder itself; docs
                        that include ../CHANGES.md name the folder above)
  --lang TAG            language of pages without a `lang` field or `<html lang>` (default: en)
  --fragment-chars N    fragment size in characters (default: 800)
  --teacher DIR         the embedding transformer (all-MiniLM-L6-v2 files) for fragment vectors
  --model-dir DIR       folder with query-model.onq and doc-projection.bin (with --teacher);
                        query-model.onq is written next to the index for the browser
                        (gzip-compressed)
  --adapt               (with the `experiments` feature) adapt the query model to the site's own headings and first sentences
                        (with --teacher); the adapted copy is written next to the index
  --embed-cache DIR     folder of the embedding cache, so a rebuild embeds only fragments whose
                        text changed (default: target/embed-cache)
  --no-embed-cache      keep embeddings in memory only
  --shards              write a manifest (manifest.onr) and shards a question fetches on demand,
                        each gzip-compressed, instead of one index.onr, whatever the size (by
                        default an index of 512 KB or more is sharded, a smaller one is one file)
  --single              write one index.onr whatever the size (what the widget fetched whole
                        before it read shards; for comparisons)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut corpus: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut options = Options::standard();
    let mut teacher: Option<PathBuf> = None;
    let mut model_dir: Option<PathBuf> = None;
    let mut embed = EmbedOptions::standard();
    // One file below the size threshold (a small site's first answer is one fetch), shards above.
    let mut layout = Layout::Auto;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .with_context(|| format!("{name} needs a value\n\n{USAGE}"))
        };
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            "--out" => out = Some(value("--out")?.into()),
            "--teacher" => teacher = Some(value("--teacher")?.into()),
            "--model-dir" => model_dir = Some(value("--model-dir")?.into()),
            "--embed-cache" => embed.cache_dir = Some(value("--embed-cache")?.into()),
            "--no-embed-cache" => embed.cache_dir = None,
            "--shards" => layout = Layout::Sharded,
            "--single" => layout = Layout::Single,
            #[cfg(feature = "experiments")]
            "--adapt" => options.adapt = Some(build_index::Adapt::STANDARD),
            "--private-dir" => options.private_dir = value("--private-dir")?,
            "--site-name" => options.site_names.push(value("--site-name")?),
            "--exclude" => options.exclude.push(value("--exclude")?),
            "--include-root" => options.include_root = Some(value("--include-root")?.into()),
            "--lang" => {
                let tag = value("--lang")?;
                options.default_lang =
                    Lang::from_tag(&tag).with_context(|| format!("unsupported --lang '{tag}'"))?;
            }
            "--fragment-chars" => {
                let n = value("--fragment-chars")?;
                options.fragment_chars = n
                    .parse()
                    .with_context(|| format!("--fragment-chars '{n}' is not a number"))?;
            }
            flag if flag.starts_with('-') => bail!("unknown option '{flag}'\n\n{USAGE}"),
            path if corpus.is_none() => corpus = Some(path.into()),
            extra => bail!("unexpected argument '{extra}'\n\n{USAGE}"),
        }
    }
    let (Some(corpus), Some(out)) = (corpus, out) else {
        bail!("a corpus folder and --out are required\n\n{USAGE}");
    };
    if !corpus.is_dir() {
        bail!(
            "corpus folder {} does not exist or is not a folder",
            corpus.display()
        );
    }
    let embedder = match (teacher, model_dir) {
        (Some(teacher), Some(model_dir)) => Some(Embedder::load_with(
            &ModelFiles { teacher, model_dir },
            &embed,
        )?),
        #[cfg(feature = "experiments")]
        (None, None) if options.adapt.is_some() => bail!("--adapt needs --teacher and --model-dir"),
        (None, None) => None,
        _ => bail!("--teacher and --model-dir go together"),
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
