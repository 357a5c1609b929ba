//! build-index: reads a corpus from disk — a markdown folder or a built HTML site — and builds
//! an onrecord index through the core.
//!
//! The readers (`onrecord-sources`) turn files into `SourceDoc`s; every decision about text
//! after that lives in `onrecord-core`. The eval harness calls [`build`] so that it indexes
//! exactly as this CLI does.

#[cfg(feature = "experiments")]
mod adapt;
mod config;
mod embed;
pub mod ivf;
mod progress;
mod random;
mod scale;

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use onrecord_core::{
    Bm25Params, Index, IndexBuilder, IndexSettings, Lang, Page, PageKind, Read, Reader,
    RoutingHint, ShardSizes, ShardedFiles, SourceDoc, VectorIndex, VectorLists, chunk, page_kind,
};
use onrecord_sources::files::{self, FileError, MAX_FILE_BYTES};
use onrecord_sources::{
    HtmlReader, MarkdownReader, drop_site_chrome, frontmatter, has_body_marker, is_html,
    is_markdown,
};
use sha2::{Digest, Sha256};

#[cfg(feature = "experiments")]
pub use crate::adapt::{Adapt, AdaptStats, MAX_NEGATIVES, MAX_QUERIES, adapt, pseudo_queries};
pub use crate::config::{
    CONFIG_FILE, CollectionRule, RuleError, check_collections, yml_collections,
};
#[cfg(feature = "experiments")]
pub use crate::embed::CandleBert;
pub use crate::embed::{
    DEFAULT_CACHE_DIR, E5_FILE, EmbedOptions, EmbedStats, Embedder, MAX_TOKENS, ModelFiles,
    QueryModelFiles, Teacher,
};
pub use crate::progress::{Progress, Silent, Stage};
pub use crate::random::SplitMix;
pub use crate::scale::{BENCH_QUESTIONS, replicated_index};
pub use onrecord_sources::{html_url_for, slug, url_for};

/// Build settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Folder (relative to the corpus root) whose notes are private: never indexed.
    pub private_dir: String,
    /// Language of pages without a `lang` frontmatter field.
    pub default_lang: Lang,
    /// Fragment size in characters.
    pub fragment_chars: usize,
    /// Whether index terms are stemmed (the eval turns it off for its ablation).
    pub stemming: bool,
    /// Names of the site or its author, which questions use to mean "these pages".
    pub site_names: Vec<String>,
    /// With vectors: adapt the query model to the site's own text (`None`: copy it as is; an
    /// experiment, built with the `experiments` feature only).
    #[cfg(feature = "experiments")]
    pub adapt: Option<Adapt>,
    /// Files or folders (relative to the corpus root, `/`-separated, with `*`, `?` and `**`
    /// wildcards) that are not read: a vendored theme's pages, an archive of old versions.
    pub exclude: Vec<String>,
    /// The folder includes may read (`None`: the corpus root itself). Docs that include
    /// `../CHANGES.md` name the folder above; nothing outside it is ever read.
    pub include_root: Option<PathBuf>,
    /// The collections, by name (from `onrecord.toml`); `None` reads the corpus's
    /// `onrecord.yml`, if any. Both at once is an error: one place says what a collection is.
    pub collections: Option<Vec<(String, CollectionRule)>>,
}

impl Options {
    /// The settings the demo and the README use.
    pub fn standard() -> Options {
        Options {
            private_dir: "private".into(),
            default_lang: Lang::English,
            fragment_chars: onrecord_core::FRAGMENT_CHARS,
            stemming: true,
            site_names: Vec::new(),
            #[cfg(feature = "experiments")]
            adapt: None,
            exclude: Vec::new(),
            include_root: None,
            collections: None,
        }
    }
}

/// A finished build: the index, its bytes and what happened.
pub struct Build {
    pub index: Index,
    pub bytes: Vec<u8>,
    /// The query model the vectors were made for (with vectors): the given one, or its copy
    /// adapted to this site. It goes next to the index.
    pub query_model: Option<Vec<u8>>,
    pub report: Report,
}

/// What a build did, for people.
#[derive(Debug, Default)]
pub struct Report {
    pub pages_indexed: usize,
    pub drafts_skipped: Vec<String>,
    pub superseded: Vec<(String, String)>,
    pub private_notes: usize,
    /// What the corpus was read as.
    pub input: Input,
    /// Pages that asked not to be indexed, with the reason.
    pub pages_skipped: Vec<(String, String)>,
    pub warnings: Vec<String>,
    pub other_files: usize,
    pub fragments: usize,
    pub terms: usize,
    pub input_bytes: u64,
    pub index_bytes: usize,
    /// Serialized size of each part of the payload.
    pub bytes_by_part: Vec<(&'static str, usize)>,
    /// What embedding the fragments did (when built with vectors).
    pub embedding: Option<EmbedStats>,
    /// What adapting the query model to the site did (when asked for).
    #[cfg(feature = "experiments")]
    pub adaptation: Option<AdaptStats>,
    /// Pages set aside from quoted answers (release notes, listings), with their kind and
    /// whether the site owner declared it.
    pub set_aside: Vec<(String, PageKind, bool)>,
    /// Collections with the number of indexed pages in each.
    pub collections: Vec<(String, usize)>,
    /// Blocks of a built site's chrome (menus, footers on most pages), not indexed.
    pub chrome: Vec<String>,
    /// A built site's banner heading (the first `<h1>` of most pages, so no page's title) and
    /// how many pages were titled by their own top heading or their `<title>` instead.
    pub banner: Option<(String, usize)>,
}

/// What a corpus folder holds, and so which reader reads its pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Input {
    /// Markdown pages (`.md`, `.mdx`, `.markdown`).
    #[default]
    Markdown,
    /// A built site: `.html` pages.
    Html,
}

impl Input {
    /// The input of a corpus, from its file list: a built site when it has more HTML pages
    /// than markdown pages outside the private folder (private notes stay markdown beside an
    /// HTML site); the other kind is then ignored, with a warning when there is any.
    pub fn detect(files: &[String], private_prefix: &str) -> Input {
        let public = |rel: &&String| !rel.starts_with(private_prefix);
        let markdown = files
            .iter()
            .filter(public)
            .filter(|r| is_markdown(r))
            .count();
        let html = files.iter().filter(|r| is_html(r)).count();
        if html > markdown {
            Input::Html
        } else {
            Input::Markdown
        }
    }

    /// Whether a file is a page of this input.
    fn is_page(self, rel: &str) -> bool {
        match self {
            Input::Markdown => is_markdown(rel),
            Input::Html => is_html(rel),
        }
    }
}

/// A markdown page as the build reads it: the document and what could not be rendered.
pub struct ParsedPage {
    pub doc: SourceDoc,
    pub warnings: Vec<String>,
}

/// Builds the index for the corpus at `root`, without vectors. Fails, naming the file and
/// line, on bad input.
pub fn build(root: &Path, options: &Options) -> Result<Build> {
    build_with(root, options, None)
}

/// Builds the index, with fragment vectors when an embedder is given.
pub fn build_with(root: &Path, options: &Options, embedder: Option<&Embedder>) -> Result<Build> {
    build_reporting(root, options, embedder, &Silent)
}

/// [`build_with`], telling `progress` how reading and embedding go.
pub fn build_reporting(
    root: &Path,
    options: &Options,
    embedder: Option<&Embedder>,
    progress: &dyn Progress,
) -> Result<Build> {
    let mut report = Report::default();
    let Listing {
        files,
        fence,
        mut warnings,
    } = list_files(root)?;

    let private_prefix = format!("{}/", options.private_dir.trim_matches('/'));
    // An include never brings a private note's body into a public page.
    let is_private = |rel: Option<&str>, bytes: &[u8]| {
        rel.is_some_and(|r| r.starts_with(&private_prefix)) || declares_private(bytes)
    };
    let config = match &options.collections {
        None => config::Config::load(root)?,
        Some(rules) => {
            let settings = config::Config::from_rules(rules)?;
            // The same collections in both, as `onrecord init` leaves them, build; different
            // ones would leave it unsaid which holds.
            if root.join(CONFIG_FILE).exists() {
                if !config::Config::load(root)?.declares_same(&settings) {
                    bail!(
                        "{}: collections are declared here and in the build's settings \
                         (onrecord.toml), differently; keep one (onrecord.yml is the older place)",
                        root.join(CONFIG_FILE).display()
                    );
                }
                report.warnings.push(format!(
                    "{} repeats the collections of the build's settings (onrecord.toml): delete it",
                    root.join(CONFIG_FILE).display()
                ));
            }
            settings
        }
    };
    let input = Input::detect(&files, &private_prefix);
    report.input = input;
    let ignored = files
        .iter()
        .filter(|r| !r.starts_with(&private_prefix))
        .filter(|r| (is_markdown(r) || is_html(r)) && !input.is_page(r))
        .count();
    if ignored > 0 {
        report.warnings.push(format!(
            "{ignored} {} file{} ignored: this folder is read as {}",
            match input {
                Input::Html => "markdown",
                Input::Markdown => ".html",
            },
            if ignored == 1 { "" } else { "s" },
            match input {
                Input::Html => "a built HTML site",
                Input::Markdown => "markdown",
            }
        ));
    }
    for rule in &options.exclude {
        if !files.iter().any(|rel| under(rel, rule)) {
            report.warnings.push(format!(
                "exclude '{rule}' matches no file or folder of {} (paths are relative to it)",
                root.display()
            ));
        }
    }
    let markdown_reader = markdown_reader(root, options, &is_private);
    let html_reader = HtmlReader {
        default_lang: options.default_lang,
        body_marked: input == Input::Html && any_body_marker(root, &fence, &files)?,
    };
    let reader: &dyn Reader = match input {
        Input::Markdown => &markdown_reader,
        Input::Html => &html_reader,
    };
    let mut hasher = Sha256::new();
    hasher.update(b"onrecord-corpus-v1\0");
    hasher.update((config.bytes.len() as u64).to_le_bytes());
    hasher.update(&config.bytes);
    hasher.update(format!(
        "{}\0{}\0{}\0{}\0",
        options.default_lang.tag(),
        options.fragment_chars,
        options.stemming,
        options.site_names.join("\u{1f}")
    ));
    let mut pages = Vec::new();
    let mut notes = Vec::new();
    progress.start(Stage::Reading, files.len() as u64);
    for rel in &files {
        progress.advance(1);
        // Private notes are markdown, beside a markdown folder or an HTML site.
        let note_candidate = is_markdown(rel);
        if !input.is_page(rel) && !note_candidate {
            report.other_files += usize::from(rel != CONFIG_FILE);
            continue;
        }
        // A page that is not to be read is not opened.
        if let Some(why) = input
            .is_page(rel)
            .then(|| not_read(rel, input, &options.exclude))
            .flatten()
        {
            report.pages_skipped.push((rel.clone(), why));
            continue;
        }
        let Some(bytes) = read_file(root, &fence, rel, &mut warnings)? else {
            continue;
        };
        // A private note gives a routing hint built from its public-safe frontmatter fields;
        // its body is dropped here and never reaches the index builder.
        let in_private_dir = rel.starts_with(&private_prefix);
        if note_candidate && (in_private_dir || declares_private(&bytes)) {
            report.private_notes += 1;
            match private_note(&bytes, options) {
                Some(note) => {
                    for field in [&note.hint.label, &note.hint.url, &note.hint.locator] {
                        hasher.update(field.as_bytes());
                        hasher.update([0]);
                    }
                    notes.push(note);
                }
                None => report.warnings.push(format!(
                    "{rel}: private note without readable frontmatter: not indexed, no routing hint"
                )),
            }
            continue;
        }
        if !input.is_page(rel) {
            report.other_files += 1;
            continue;
        }
        // mdBook's table of contents is the book's menu, not a page of it.
        if input == Input::Markdown && rel == "SUMMARY.md" {
            let why = "mdBook's table of contents (the book's menu)";
            report.pages_skipped.push((rel.clone(), why.to_owned()));
            continue;
        }
        report.input_bytes += bytes.len() as u64;
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        let mut page = match reader.read(rel, &utf8(rel, &bytes)?)? {
            Read::Page(page) => page,
            Read::Skipped { reason } => {
                report.pages_skipped.push((rel.clone(), reason));
                continue;
            }
            _ => continue,
        };
        // A page's own collection (frontmatter, meta tag) wins over the folder rules.
        if page.doc.collection.is_none() {
            page.doc.collection = config.collection_for(rel).map(str::to_owned);
        }
        for (name, bytes) in &page.included {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        for warning in &page.warnings {
            warnings.push(page_warning_kind(warning), warning.clone());
        }
        pages.push(page);
    }
    progress.finish();
    report.warnings.extend(warnings.finish());
    if input == Input::Html {
        let chrome = drop_site_chrome(&mut pages);
        report.pages_skipped.extend(chrome.skipped);
        report.chrome = chrome.blocks;
        report.banner = chrome.banner;
    }

    let by_path: BTreeMap<&str, &Page> = pages.iter().map(|p| (p.doc.path.as_str(), p)).collect();
    for page in &pages {
        if let Some(target) = &page.superseded_by {
            match by_path.get(target.as_str()) {
                None => bail!(
                    "{}: superseded_by names '{target}', which is not a public page of the corpus",
                    page.doc.path
                ),
                Some(t) if t.draft => bail!(
                    "{}: superseded_by names '{target}', which is a draft",
                    page.doc.path
                ),
                Some(_) if target == &page.doc.path => {
                    bail!("{}: superseded_by names the page itself", page.doc.path)
                }
                Some(_) => {}
            }
        }
    }

    let settings = IndexSettings {
        bm25: Bm25Params::DEFAULT,
        stemming: options.stemming,
        fragment_chars: u32::try_from(options.fragment_chars).unwrap_or(u32::MAX),
    };
    let mut builder = IndexBuilder::new(options.default_lang, settings);
    builder.name_site(&options.site_names);
    for collection in &config.collections {
        builder.declare_collection(collection.clone());
    }
    for page in &pages {
        if page.draft {
            report.drafts_skipped.push(page.doc.path.clone());
            continue;
        }
        // A superseded page stays out of answers: its successor is what gets cited.
        if let Some(target) = &page.superseded_by {
            report
                .superseded
                .push((page.doc.path.clone(), target.clone()));
            continue;
        }
        let drafts = chunk(&page.doc, options.fragment_chars);
        // The release-notes collection declares its pages release notes too.
        let declared_notes = page.doc.collection.as_deref() == Some("release-notes");
        let kind = page
            .kind
            .or(declared_notes.then_some(PageKind::ReleaseNotes))
            .unwrap_or_else(|| page_kind(&page.doc));
        if kind.is_noise() {
            report.set_aside.push((
                page.doc.path.clone(),
                kind,
                page.kind.is_some() || declared_notes,
            ));
        }
        builder.add_page(&page.doc, &drafts, kind);
        report.pages_indexed += 1;
    }
    for note in notes {
        builder.add_hint(note.hint, &note.keywords, note.lang);
    }
    let mut index = builder.finish();
    report.collections = index
        .collections
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let pages = index
                .docs
                .iter()
                .filter(|d| d.collection == Some(i as u32))
                .count();
            (c.name.clone(), pages)
        })
        .collect();
    let mut query_model = None;
    if let Some(embedder) = embedder {
        let (embedded, stats) =
            embedder.embed_fragments_reporting(&embedding_texts(&index), progress)?;
        #[cfg(feature = "experiments")]
        let adapt = &options.adapt;
        #[cfg(not(feature = "experiments"))]
        let adapt: &Option<std::convert::Infallible> = &None;
        let (model, checksum) = match adapt {
            #[cfg(feature = "experiments")]
            Some(knobs) => {
                let (bytes, adapted) =
                    adapt::adapt(&embedder.query_model_bytes, &index, &embedded, knobs)
                        .context("cannot adapt the query model to the site")?;
                report.adaptation = Some(adapted);
                let checksum = onrecord_core::QueryModel::from_bytes(&bytes)
                    .map_err(|e| anyhow::anyhow!("adapted query model: {e}"))?
                    .checksum();
                (bytes, checksum)
            }
            #[cfg(not(feature = "experiments"))]
            Some(never) => match *never {},
            None => (
                embedder.query_model_bytes.clone(),
                embedder.query_model_checksum,
            ),
        };
        query_model = Some(model);
        let mut vectors = VectorIndex::new(checksum, embedder.dims as u32);
        for v in embedded {
            vectors.push(&v);
        }
        index.vectors = Some(vectors);
        report.warnings.extend(stats.warnings.iter().cloned());
        report.embedding = Some(stats);
    }
    let corpus_hash: [u8; 32] = hasher.finalize().into();
    let bytes = index
        .to_bytes(corpus_hash)
        .context("cannot encode the index")?;
    report.fragments = index.fragments.len();
    report.terms = index.terms.len();
    report.index_bytes = bytes.len();
    report.bytes_by_part = vec![
        ("documents", postcard_len(&index.docs)),
        (
            "fragments (text, headings, sentences)",
            postcard_len(&index.fragments),
        ),
        ("postings", postcard_len(&index.terms)),
        ("vectors", postcard_len(&index.vectors)),
    ];
    Ok(Build {
        index: Index {
            corpus_hash,
            ..index
        },
        bytes,
        query_model,
        report,
    })
}

/// The text the teacher embeds for each fragment: "title. headings. text".
pub fn embedding_texts(index: &Index) -> Vec<String> {
    index
        .fragments
        .iter()
        .map(|f| {
            let title = index
                .docs
                .get(f.doc as usize)
                .map_or("", |d| d.title.as_str());
            format!("{title}. {}. {}", f.heading_path.join(". "), f.text)
        })
        .collect()
}

/// Writes `bytes` to `out_dir/index.onr` through a temporary file, so a failed or interrupted
/// write never leaves a half-finished index under the final name.
pub fn write_index(out_dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    write_atomically(out_dir, "index.onr", bytes)
}

/// How the index is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One file below `ShardSizes::threshold`, a manifest and shards above it.
    Auto,
    /// One file, `index.onr`, whatever its size.
    Single,
    /// A manifest and shards, whatever the size.
    Sharded,
}

impl Layout {
    /// Whether an index of `bytes` bytes (as one file) is written as a manifest and shards.
    pub fn is_sharded(self, bytes: usize, sizes: ShardSizes) -> bool {
        match self {
            Layout::Auto => bytes >= sizes.threshold,
            Layout::Single => false,
            Layout::Sharded => true,
        }
    }
}

/// Writes a built index into `out_dir`: `index.onr`, or (sharded) `manifest.onr` and its shards
/// beside it, each gzip-compressed (`onrecord_files` reads either). Returns the paths written, the index or manifest first. A small site stays one
/// file (`Layout::Auto` below `sizes.threshold`), so its first answer is one fetch.
pub fn write_layout(
    out_dir: &Path,
    built: &Build,
    layout: Layout,
    sizes: ShardSizes,
) -> Result<Vec<PathBuf>> {
    if !layout.is_sharded(built.bytes.len(), sizes) {
        return Ok(vec![write_index(out_dir, &built.bytes)?]);
    }
    let files = to_compressed_shards(&built.index, sizes)?;
    let mut written = Vec::with_capacity(files.shards.len() + 1);
    // Shards first: a manifest on disk never names a shard that is not there yet.
    for (name, bytes) in &files.shards {
        written.push(write_atomically(out_dir, name, bytes)?);
    }
    written.insert(
        0,
        write_atomically(out_dir, onrecord_files::MANIFEST_NAME, &files.manifest)?,
    );
    Ok(written)
}

/// The seed of IVF training, so the same vectors always give the same lists.
const IVF_SEED: u64 = 11;

/// The index as a manifest and shards, its vectors (if any) in about √n IVF lists trained
/// here (`ivf.rs`), so a question fetches the few lists nearest its vector.
pub fn to_shards(index: &Index, sizes: ShardSizes) -> Result<ShardedFiles> {
    let lists = index.vectors.as_ref().map(|v| {
        let ivf = ivf::train(v, ivf::list_count(v.scales.len()), IVF_SEED);
        VectorLists {
            centroids: ivf.centroids,
            members: ivf.lists.into_iter().map(|l| l.ids).collect(),
        }
    });
    index
        .to_shards_with(index.corpus_hash, sizes, lists.as_ref())
        .context("cannot encode the sharded index")
}

/// [`to_shards`] with every file gzip-compressed, as they are deployed: what a visitor downloads
/// does not depend on the host compressing it (`onrecord_files` and the widget's worker read
/// either). Names stay those of the uncompressed files.
pub fn to_compressed_shards(index: &Index, sizes: ShardSizes) -> Result<ShardedFiles> {
    let files = to_shards(index, sizes)?;
    Ok(ShardedFiles {
        manifest: onrecord_files::gzip(&files.manifest),
        shards: files
            .shards
            .iter()
            .map(|(name, bytes)| (name.clone(), onrecord_files::gzip(bytes)))
            .collect(),
    })
}

/// Writes `out_dir/name` through a temporary file and a rename.
pub fn write_atomically(out_dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    fs::create_dir_all(out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let final_path = out_dir.join(name);
    let tmp_path = out_dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = fs::write(&tmp_path, bytes)
        .and_then(|()| fs::File::open(&tmp_path)?.sync_all())
        .and_then(|()| fs::rename(&tmp_path, &final_path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(e).with_context(|| format!("cannot write {}", final_path.display()));
    }
    Ok(final_path)
}

/// A private note as the index may know it: its routing hint and routing keywords.
struct Note {
    hint: RoutingHint,
    keywords: Vec<String>,
    lang: Lang,
}

/// The routing hint a private note file gives (from its frontmatter only).
pub fn note_hint(bytes: &[u8], options: &Options) -> Option<RoutingHint> {
    private_note(bytes, options).map(|note| note.hint)
}

/// Whether a file's frontmatter declares it private; unreadable frontmatter counts as private
/// only if it mentions `private:` at all (then the build will not publish it).
fn declares_private(bytes: &[u8]) -> bool {
    let Ok(source) = std::str::from_utf8(bytes) else {
        return false;
    };
    match frontmatter::split("", source) {
        Ok((fm, _, _)) => fm.is_private(),
        Err(_) => source
            .lines()
            .take_while(|l| !l.is_empty())
            .any(|l| l.trim_start().starts_with("private:")),
    }
}

/// The routing hint of a private note, from its frontmatter only. `None` when the frontmatter
/// cannot be read (the note is then skipped; its path is named, its content never).
fn private_note(bytes: &[u8], options: &Options) -> Option<Note> {
    let source = std::str::from_utf8(bytes).ok()?;
    let (fm, _body, _) = frontmatter::split("", source).ok()?;
    Some(Note {
        hint: RoutingHint {
            label: fm
                .title
                .clone()
                .unwrap_or_else(|| "Private note".to_owned()),
            url: fm.about.clone().unwrap_or_default(),
            locator: fm.locator.clone().unwrap_or_default(),
        },
        keywords: fm.keywords.to_vec(),
        lang: fm
            .lang
            .as_deref()
            .and_then(Lang::from_tag)
            .unwrap_or(options.default_lang),
    })
}

/// Parses one markdown page of the corpus at `root` as the build does: frontmatter, includes,
/// generator syntax, markdown.
pub fn parse_page(root: &Path, rel: &str, bytes: &[u8], options: &Options) -> Result<ParsedPage> {
    let private_prefix = format!("{}/", options.private_dir.trim_matches('/'));
    let is_private = |rel: Option<&str>, bytes: &[u8]| {
        rel.is_some_and(|r| r.starts_with(&private_prefix)) || declares_private(bytes)
    };
    let reader = markdown_reader(root, options, &is_private);
    match reader.read(rel, &utf8(rel, bytes)?)? {
        Read::Page(page) => Ok(ParsedPage {
            doc: page.doc,
            warnings: page.warnings,
        }),
        _ => bail!("{rel}: the markdown reader skipped the page"),
    }
}

/// Why the page at `rel` is not read, when it is not: it is excluded by the site owner, or it
/// is one of a generator's asset files (Sphinx copies a theme's and its fonts' files, read-me
/// pages among them, into `_static/`; nothing there is a page of the docs).
fn not_read(rel: &str, input: Input, exclude: &[String]) -> Option<String> {
    if let Some(rule) = exclude.iter().find(|e| under(rel, e)) {
        return Some(format!("excluded ({rule})"));
    }
    let in_assets = rel
        .split('/')
        .rev()
        .skip(1)
        .any(|folder| folder == "_static");
    (input == Input::Html && in_assets).then(|| "a theme's asset file (Sphinx's _static/)".into())
}

/// Whether the exclude rule `rule` covers `rel`: `rel` is the file it names or lies in the
/// folder it names (with or without its '/'). A rule is a path from the input's root whose
/// segments may hold `*` (any run of characters but '/'), `?` (one such character) or be
/// `**` (any number of folders): `old/v*`, `**/print.html`, `api/**/*.txt`.
fn under(rel: &str, rule: &str) -> bool {
    let rule = rule.trim_start_matches("./").trim_matches('/');
    if rule.is_empty() {
        return false;
    }
    let pattern: Vec<&str> = rule.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = rel.split('/').collect();
    covers(&pattern, &path)
}

/// Whether `pattern` matches `path` or one of its leading folders.
fn covers(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((&"**", rest)) => (0..=path.len()).any(|skip| covers(rest, &path[skip..])),
        Some((segment, rest)) => path
            .split_first()
            .is_some_and(|(name, tail)| segment_matches(segment, name) && covers(rest, tail)),
    }
}

/// Whether one path segment `name` matches `pattern` with `*` and `?` wildcards.
fn segment_matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j) = (0, 0);
    // Where the last `*` was, and where in `name` it was last tried up to.
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            // Let the `*` take one more character and try again.
            star = Some((si, sj + 1));
            i = si + 1;
            j = sj + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// What the corpus at `root` is read as (markdown or a built HTML site), as [`build`] decides.
pub fn corpus_input(root: &Path, options: &Options) -> Result<Input> {
    let files = list_files(root)?.files;
    let private_prefix = format!("{}/", options.private_dir.trim_matches('/'));
    Ok(Input::detect(&files, &private_prefix))
}

/// The text a page shows as the build reads it (title, headings and blocks, one per line), or
/// `None` when the page asks not to be indexed. For checking that quoted evidence is on a page.
pub fn page_text(root: &Path, rel: &str, options: &Options) -> Result<Option<String>> {
    let fence = fs::canonicalize(root)
        .with_context(|| format!("cannot read the corpus at {}", root.display()))?;
    let mut warnings = WarningLog::default();
    let Some(bytes) = read_file(root, &fence, rel, &mut warnings)? else {
        bail!("{}", warnings.finish().join("; "));
    };
    let text = utf8(rel, &bytes)?;
    let private_prefix = format!("{}/", options.private_dir.trim_matches('/'));
    let is_private = |rel: Option<&str>, bytes: &[u8]| {
        rel.is_some_and(|r| r.starts_with(&private_prefix)) || declares_private(bytes)
    };
    let read = if is_html(rel) {
        let reader = HtmlReader {
            default_lang: options.default_lang,
            body_marked: any_body_marker(root, &fence, &list_files(root)?.files)?,
        };
        reader.read(rel, &text)?
    } else {
        markdown_reader(root, options, &is_private).read(rel, &text)?
    };
    let Read::Page(page) = read else {
        return Ok(None);
    };
    let mut out = vec![page.doc.title.clone()];
    for section in &page.doc.sections {
        out.extend(section.heading_path.last().cloned());
        out.extend(section.blocks.iter().map(|b| b.text.clone()));
    }
    Ok(Some(out.join("\n")))
}

/// A file's text, or an error naming the file and the line of the first bad byte.
fn utf8(rel: &str, bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!("{rel}:{line}: invalid UTF-8 (byte {valid})")
    })
}

/// Whether any HTML page of the site marks its content with `data-onrecord-body` (a page that
/// cannot be read is warned about when the build reads it).
fn any_body_marker(root: &Path, fence: &Path, files: &[String]) -> Result<bool> {
    let mut ignored = WarningLog::default();
    for rel in files.iter().filter(|r| is_html(r)) {
        let Some(bytes) = read_file(root, fence, rel, &mut ignored)? else {
            continue;
        };
        if has_body_marker(&String::from_utf8_lossy(&bytes)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The markdown reader of the corpus at `root`, its includes fenced to the include root.
fn markdown_reader<'a>(
    root: &Path,
    options: &Options,
    is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
) -> MarkdownReader<'a> {
    let reader = MarkdownReader::new(root, options.default_lang, is_private);
    match &options.include_root {
        Some(dir) => reader.include_root(dir),
        None => reader,
    }
}

/// Warnings of one kind the build lists before it counts the rest.
pub const MAX_SAME_WARNINGS: usize = 5;

/// Warnings, at most [`MAX_SAME_WARNINGS`] of each kind, and a count of the rest.
#[derive(Default)]
struct WarningLog {
    lines: Vec<String>,
    /// Per kind: how many were listed, and how many more were only counted.
    counts: BTreeMap<String, (usize, usize)>,
}

impl WarningLog {
    fn push(&mut self, kind: &str, line: String) {
        let (listed, more) = self.counts.entry(kind.to_owned()).or_default();
        if *listed < MAX_SAME_WARNINGS {
            *listed += 1;
            self.lines.push(line);
        } else {
            *more += 1;
        }
    }

    /// The listed warnings, then one line per kind with the count of those not listed.
    fn finish(self) -> Vec<String> {
        let mut lines = self.lines;
        for (kind, (_, more)) in self.counts.into_iter().filter(|(_, (_, more))| *more > 0) {
            lines.push(format!("{more} more like the above: {kind}"));
        }
        lines
    }
}

/// The kind of a reader's warning, for [`WarningLog`]: an include not rendered (the include
/// module's warnings end so, and its count of those it did not list), generator syntax
/// dropped, an unsupported `<html lang>`, or else the warning itself (so only its exact repeats
/// are counted).
fn page_warning_kind(warning: &str) -> &str {
    if warning.ends_with("; nothing included") {
        "includes not rendered"
    } else if warning.ends_with(", not listed") {
        "pages with more includes not rendered"
    } else if warning.ends_with("; dropped") {
        "generator syntax dropped"
    } else if warning.contains("is not a supported language; read as") {
        "unsupported languages"
    } else {
        warning
    }
}

/// The files of a corpus, as the build may read them.
pub(crate) struct Listing {
    /// Paths relative to the root, `/`-separated, sorted.
    pub(crate) files: Vec<String>,
    /// The root, canonical: no file outside it is read.
    pub(crate) fence: PathBuf,
    /// What was skipped, and why.
    warnings: WarningLog,
}

/// Lists the regular files under `root` (issue 43: the build reads only what is inside its
/// input folder). Hidden entries are skipped; so are links whose target lies outside the root
/// (a warning names each), linked folders (what they hold inside the root is listed where it
/// lies), FIFOs, sockets and devices (never opened: a warning names each) and names that are
/// not UTF-8 (a warning). No recursion: folders may nest as deep as the file system allows.
pub(crate) fn list_files(root: &Path) -> Result<Listing> {
    let fence = fs::canonicalize(root)
        .with_context(|| format!("cannot list the corpus at {}", root.display()))?;
    let mut files = Vec::new();
    let mut warnings = WarningLog::default();
    let mut folders = vec![root.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let entries =
            fs::read_dir(&dir).with_context(|| format!("cannot read folder {}", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read folder {}", dir.display()))?;
            let path = entry.path();
            let shown = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                warnings.push(
                    "file names not UTF-8",
                    format!("{shown}: file name is not valid UTF-8; skipped"),
                );
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let mut file_type = entry
                .file_type()
                .with_context(|| format!("{shown}: cannot read its file type"))?;
            if file_type.is_symlink() {
                match files::resolve_within(&path, &fence) {
                    // A broken link holds nothing to read.
                    Err(FileError::Io(_)) => continue,
                    Err(e) => {
                        warnings.push(
                            "links out of the input folder",
                            format!("{shown}: a link that {e}; skipped"),
                        );
                        continue;
                    }
                    Ok(target) => match fs::metadata(&target) {
                        Ok(meta) if meta.is_dir() => continue,
                        Ok(meta) => file_type = meta.file_type(),
                        Err(_) => continue,
                    },
                }
            }
            if file_type.is_dir() {
                folders.push(path);
            } else if file_type.is_file() {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                files.push(rel.join("/"));
            } else {
                warnings.push(
                    "special files",
                    format!(
                        "{shown}: {}, which the build never opens; skipped",
                        files::describe(file_type)
                    ),
                );
            }
        }
    }
    files.sort();
    Ok(Listing {
        files,
        fence,
        warnings,
    })
}

/// The bytes of the listed file `rel`, or `None` with a warning when it is over
/// [`MAX_FILE_BYTES`] or no longer a regular file inside the root. Read errors fail the build,
/// naming the file.
fn read_file(
    root: &Path,
    fence: &Path,
    rel: &str,
    warnings: &mut WarningLog,
) -> Result<Option<Vec<u8>>> {
    match files::read_within(&root.join(rel), fence, MAX_FILE_BYTES) {
        Ok((_, bytes)) => Ok(Some(bytes)),
        Err(FileError::Io(e)) => Err(e).with_context(|| format!("{rel}: cannot read file")),
        Err(e @ FileError::TooLarge { .. }) => {
            warnings.push("files too large", format!("{rel}: {e}; skipped"));
            Ok(None)
        }
        Err(e) => {
            warnings.push("files not read", format!("{rel}: {e}; skipped"));
            Ok(None)
        }
    }
}

fn postcard_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(0, |v| v.len())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = match self.input {
            Input::Markdown => "markdown",
            Input::Html => "HTML (a built site)",
        };
        writeln!(f, "input             {input}")?;
        writeln!(f, "pages indexed     {}", self.pages_indexed)?;
        // A generator's redirect pages can number in the hundreds: the first few say what
        // kind of page was skipped, the count says how many.
        let skipped: Vec<String> = self
            .pages_skipped
            .iter()
            .take(MAX_LISTED)
            .map(|(page, why)| format!("{page}: {why}"))
            .collect();
        if !skipped.is_empty() {
            writeln!(
                f,
                "pages skipped     {}{}",
                self.pages_skipped.len(),
                list_first(&skipped, self.pages_skipped.len())
            )?;
        }
        if !self.chrome.is_empty() {
            let shown: Vec<String> = self
                .chrome
                .iter()
                .take(3)
                .map(|text| format!("\"{}\"", onrecord_core::shorten(text, 40)))
                .collect();
            writeln!(
                f,
                "site chrome       {} blocks on most pages (menus, footers), not indexed{}",
                self.chrome.len(),
                list_first(&shown, self.chrome.len())
            )?;
        }
        if let Some((banner, pages)) = &self.banner {
            writeln!(
                f,
                "banner heading    \"{}\" opens most pages: {pages} titled by their own heading or <title> instead",
                onrecord_core::shorten(banner, 40)
            )?;
        }
        writeln!(
            f,
            "drafts skipped    {}{}",
            self.drafts_skipped.len(),
            list(&self.drafts_skipped)
        )?;
        let superseded: Vec<String> = self
            .superseded
            .iter()
            .map(|(a, b)| format!("{a} -> {b}"))
            .collect();
        writeln!(
            f,
            "superseded        {}{}",
            superseded.len(),
            list(&superseded)
        )?;
        let set_aside: Vec<String> = self
            .set_aside
            .iter()
            .map(|(path, kind, declared)| {
                let kind = match kind {
                    PageKind::ReleaseNotes => "release notes",
                    PageKind::Listing => "listing",
                    _ => "page",
                };
                let how = if *declared {
                    "declared"
                } else {
                    "from its structure"
                };
                format!("{path} ({kind}, {how})")
            })
            .collect();
        writeln!(
            f,
            "set aside         {} (quoted only for questions about versions or changes){}",
            set_aside.len(),
            list(&set_aside)
        )?;
        let collections: Vec<String> = self
            .collections
            .iter()
            .map(|(name, pages)| format!("{name}: {pages}"))
            .collect();
        writeln!(
            f,
            "collections       {}{}",
            collections.len(),
            list(&collections)
        )?;
        writeln!(
            f,
            "private notes     {} (routing hints only; bodies never indexed)",
            self.private_notes
        )?;
        for warning in &self.warnings {
            writeln!(f, "warning: {warning}")?;
        }
        if self.other_files > 0 {
            writeln!(
                f,
                "other files       {} (not pages, ignored)",
                self.other_files
            )?;
        }
        writeln!(f, "fragments         {}", self.fragments)?;
        writeln!(f, "terms             {}", self.terms)?;
        writeln!(f, "input             {} bytes", self.input_bytes)?;
        writeln!(f, "index             {} bytes", self.index_bytes)?;
        let per_fragment = |bytes: u64| bytes as f64 / self.fragments.max(1) as f64;
        for (part, bytes) in &self.bytes_by_part {
            let bytes = *bytes as u64;
            let each = per_fragment(bytes);
            writeln!(f, "  {part:<38} {bytes:>9} bytes  {each:>7.1} per fragment")?;
        }
        match &self.embedding {
            Some(e) => {
                writeln!(
                    f,
                    "embedding         {} fragments in {:.1} s ({:.1} fragments/s): {} from the cache, {} embedded",
                    e.fragments,
                    e.total_secs,
                    e.fragments as f64 / e.total_secs.max(1e-9),
                    e.cache_hits,
                    e.embedded,
                )?;
                if e.embedded > 0 {
                    writeln!(
                        f,
                        "  teacher                                {:.1} fragments/s on {} threads",
                        e.embedded as f64 / e.teacher_secs.max(1e-9),
                        e.threads
                    )?;
                }
                match &e.cache_dir {
                    Some(dir) => writeln!(
                        f,
                        "  cache                                  {}",
                        dir.display()
                    )?,
                    None => writeln!(
                        f,
                        "  cache                                  none (in memory only)"
                    )?,
                }
            }
            None => writeln!(
                f,
                "embedding         none (no --teacher/--model-dir): lexical retrieval only"
            )?,
        }
        #[cfg(feature = "experiments")]
        if let Some(a) = &self.adaptation {
            writeln!(
                f,
                "query model       adapted to the site in {:.1} s ({:.2} s per 1k fragments): {} pseudo-queries, {} rows changed, {} bytes; pseudo-query cos {:.3} -> {:.3} (float {:.3})",
                a.secs,
                a.secs * 1000.0 / self.fragments.max(1) as f64,
                a.pseudo_queries,
                a.rows_changed,
                a.model_bytes,
                a.cos_before,
                a.cos_after,
                a.cos_trained,
            )?;
        }
        Ok(())
    }
}

/// Skipped pages the build report names before it says "and N more".
const MAX_LISTED: usize = 10;

/// The first few of `total` items, and how many more there are.
fn list_first(shown: &[String], total: usize) -> String {
    match total.saturating_sub(shown.len()) {
        0 => list(shown),
        more => format!("{} and {more} more", list(shown)),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!(" ({})", items.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::under;

    #[test]
    fn exclude_rules_are_paths_from_the_root_with_wildcards() {
        let cases = [
            ("old", "old/v1/index.html", true),
            ("old/", "older.html", false),
            ("./changes.html", "changes.html", true),
            ("changes.html", "news/changes.html", false),
            ("v*", "v1.2/index.html", true),
            ("v*", "guide/v1.html", false),
            ("**/print.html", "print.html", true),
            ("**/print.html", "a/b/print.html", true),
            ("api/**/*.txt", "api/x/y/notes.txt", true),
            ("api/**/*.txt", "api/notes.txt.html", false),
            ("page?.html", "page1.html", true),
            ("page?.html", "page10.html", false),
            ("*draft*", "my-draft-page.html", true),
            ("", "index.html", false),
            ("/", "index.html", false),
        ];
        for (rule, rel, want) in cases {
            assert_eq!(under(rel, rule), want, "{rule} on {rel}");
        }
    }
}
