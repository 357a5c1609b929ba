//! The build itself: list and select the files, read the pages, drop a built site's chrome,
//! index the pages and, with an embedder, give the fragments vectors.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use onrecord_core::{
    Bm25Params, Index, IndexBuilder, IndexSettings, Page, PageKind, Read, Reader, RoutingHint,
    VectorIndex, chunk, page_kind,
};
use onrecord_sources::{HtmlReader, drop_site_chrome, is_html, is_markdown};
use sha2::{Digest, Sha256};

use crate::config::{CONFIG_FILE, Config};
use crate::pages::{markdown_reader, utf8};
use crate::privacy::{self, Note, declares_private, private_note, private_prefix};
use crate::report::{Report, WarningLog, page_warning_kind};
use crate::selection::{Input, Listing, any_body_marker, list_files, not_read, read_file, under};
use crate::{Build, Embedder, Options, Progress, Silent, Stage};

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
        warnings,
    } = list_files(root)?;

    let private_prefix = private_prefix(options);
    // An include never brings a private note's body into a public page.
    let is_private =
        |rel: Option<&str>, bytes: &[u8]| privacy::is_private(&private_prefix, rel, bytes);
    let config = collection_config(root, options, &mut report)?;
    let input = Input::detect(&files, &private_prefix);
    report.input = input;
    let corpus = Corpus {
        root,
        fence: &fence,
        files: &files,
        input,
        private_prefix: &private_prefix,
        options,
    };
    corpus.warn_about_selection(&mut report);
    let markdown_reader = markdown_reader(root, options, &is_private);
    let html_reader = HtmlReader {
        default_lang: options.default_lang,
        body_marked: input == Input::Html && any_body_marker(root, &fence, &files)?,
    };
    let reader: &dyn Reader = match input {
        Input::Markdown => &markdown_reader,
        Input::Html => &html_reader,
    };
    let mut hasher = corpus_hasher(&config, options);
    let (mut pages, notes) = corpus.read_pages(
        reader,
        &config,
        warnings,
        &mut hasher,
        &mut report,
        progress,
    )?;
    if input == Input::Html {
        let chrome = drop_site_chrome(&mut pages);
        report.pages_skipped.extend(chrome.skipped);
        report.chrome = chrome.blocks;
        report.banner = chrome.banner;
    }
    check_superseded(&pages)?;

    let mut index = index_pages(&pages, notes, &config, options, &mut report);
    let query_model = embedder
        .map(|embedder| {
            let adapt = adaptation(options);
            add_vectors(&mut index, embedder, adapt, &mut report, progress)
        })
        .transpose()?;
    let corpus_hash: [u8; 32] = hasher.finalize().into();
    let bytes = index
        .to_bytes(corpus_hash)
        .context("cannot encode the index")?;
    report_sizes(&index, &bytes, &mut report);
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

/// The corpus's collections: the build's settings' (from `onrecord.toml`) or else the
/// corpus's `onrecord.yml`.
fn collection_config(root: &Path, options: &Options, report: &mut Report) -> Result<Config> {
    let Some(rules) = &options.collections else {
        return Config::load(root);
    };
    let settings = Config::from_rules(rules)?;
    // The same collections in both, as `onrecord init` leaves them, build; different
    // ones would leave it unsaid which holds.
    if root.join(CONFIG_FILE).exists() {
        if !Config::load(root)?.declares_same(&settings) {
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
    Ok(settings)
}

/// The corpus hash so far: the settings that change what is indexed. Each file read is
/// added as it is read.
fn corpus_hasher(config: &Config, options: &Options) -> Sha256 {
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
    hasher
}

/// Adds a file a page is made of to the corpus hash: its name, its length and its bytes.
fn hash_file(hasher: &mut Sha256, name: &str, bytes: &[u8]) {
    hasher.update(name.as_bytes());
    hasher.update([0]);
    hasher.update((bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// Adds a private note's routing hint to the corpus hash (its body never is).
fn hash_hint(hasher: &mut Sha256, hint: &RoutingHint) {
    for field in [&hint.label, &hint.url, &hint.locator] {
        hasher.update(field.as_bytes());
        hasher.update([0]);
    }
}

/// The corpus as this build reads it: where it is, its files, and what they are read as.
struct Corpus<'a> {
    root: &'a Path,
    fence: &'a Path,
    files: &'a [String],
    input: Input,
    private_prefix: &'a str,
    options: &'a Options,
}

impl Corpus<'_> {
    /// Warns about pages of the other kind, which are not read, and about exclude rules that
    /// match nothing.
    fn warn_about_selection(&self, report: &mut Report) {
        let input = self.input;
        let ignored = self
            .files
            .iter()
            .filter(|r| !r.starts_with(self.private_prefix))
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
        for rule in &self.options.exclude {
            if !self.files.iter().any(|rel| under(rel, rule)) {
                report.warnings.push(format!(
                    "exclude '{rule}' matches no file or folder of {} (paths are relative to it)",
                    self.root.display()
                ));
            }
        }
    }

    /// Reads every page and private note, adding each file read to the corpus hash: the
    /// public pages, and the notes' routing hints. What is not read, and why, goes to the
    /// report, with the listing's `warnings` and the readers'.
    fn read_pages(
        &self,
        reader: &dyn Reader,
        config: &Config,
        mut warnings: WarningLog,
        hasher: &mut Sha256,
        report: &mut Report,
        progress: &dyn Progress,
    ) -> Result<(Vec<Page>, Vec<Note>)> {
        let input = self.input;
        let mut pages = Vec::new();
        let mut notes = Vec::new();
        progress.start(Stage::Reading, self.files.len() as u64);
        for rel in self.files {
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
                .then(|| not_read(rel, input, &self.options.exclude))
                .flatten()
            {
                report.pages_skipped.push((rel.clone(), why));
                continue;
            }
            let Some(bytes) = read_file(self.root, self.fence, rel, &mut warnings)? else {
                continue;
            };
            // A private note gives a routing hint built from its public-safe frontmatter
            // fields; its body is dropped here and never reaches the index builder.
            let in_private_dir = rel.starts_with(self.private_prefix);
            if note_candidate && (in_private_dir || declares_private(&bytes)) {
                report.private_notes += 1;
                match private_note(&bytes, self.options) {
                    Some(note) => {
                        hash_hint(hasher, &note.hint);
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
            hash_file(hasher, rel, &bytes);
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
                hash_file(hasher, name, bytes);
            }
            for warning in &page.warnings {
                warnings.push(page_warning_kind(warning), warning.clone());
            }
            pages.push(page);
        }
        progress.finish();
        report.warnings.extend(warnings.finish());
        Ok((pages, notes))
    }
}

/// Fails when a page's `superseded_by` names no public page, a draft, or the page itself.
fn check_superseded(pages: &[Page]) -> Result<()> {
    let by_path: BTreeMap<&str, &Page> = pages.iter().map(|p| (p.doc.path.as_str(), p)).collect();
    for page in pages {
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
    Ok(())
}

/// Indexes the pages (not drafts, not superseded ones) and the notes' routing hints.
fn index_pages(
    pages: &[Page],
    notes: Vec<Note>,
    config: &Config,
    options: &Options,
    report: &mut Report,
) -> Index {
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
    for page in pages {
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
        let (kind, declared) = kind_of(page);
        if kind.is_noise() {
            report
                .set_aside
                .push((page.doc.path.clone(), kind, declared));
        }
        builder.add_page(&page.doc, &drafts, kind);
        report.pages_indexed += 1;
    }
    for note in notes {
        builder.add_hint(note.hint, &note.keywords, note.lang);
    }
    let index = builder.finish();
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
    index
}

/// A page's kind, and whether the site owner declared it: its own (frontmatter, meta tag),
/// release notes for a page of the release-notes collection, or else told from its structure.
fn kind_of(page: &Page) -> (PageKind, bool) {
    // The release-notes collection declares its pages release notes too.
    let declared_notes = page.doc.collection.as_deref() == Some("release-notes");
    let kind = page
        .kind
        .or(declared_notes.then_some(PageKind::ReleaseNotes))
        .unwrap_or_else(|| page_kind(&page.doc));
    (kind, page.kind.is_some() || declared_notes)
}

/// Site adaptation of the query model: an experiment, so without its feature there is none.
#[cfg(feature = "experiments")]
type Adaptation = crate::Adapt;
#[cfg(not(feature = "experiments"))]
type Adaptation = std::convert::Infallible;

/// The site adaptation `options` ask for, if any.
#[cfg(feature = "experiments")]
fn adaptation(options: &Options) -> Option<&Adaptation> {
    options.adapt.as_ref()
}

/// The site adaptation `options` ask for: none without the `experiments` feature.
#[cfg(not(feature = "experiments"))]
fn adaptation(_: &Options) -> Option<&Adaptation> {
    None
}

/// Embeds the fragments and stores their vectors in the index. Returns the query model they
/// go with: the embedder's, or its copy adapted to the site when `adapt` asks for one.
fn add_vectors(
    index: &mut Index,
    embedder: &Embedder,
    adapt: Option<&Adaptation>,
    report: &mut Report,
    progress: &dyn Progress,
) -> Result<Vec<u8>> {
    let (embedded, stats) =
        embedder.embed_fragments_reporting(&embedding_texts(index), progress)?;
    let (model, checksum) = match adapt {
        #[cfg(feature = "experiments")]
        Some(knobs) => {
            let (bytes, adapted) =
                crate::adapt::adapt(&embedder.query_model_bytes, index, &embedded, knobs)
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
    let mut vectors = VectorIndex::new(checksum, embedder.dims as u32);
    for v in embedded {
        vectors.push(&v);
    }
    index.vectors = Some(vectors);
    report.warnings.extend(stats.warnings.iter().cloned());
    report.embedding = Some(stats);
    Ok(model)
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

/// The index's size in the report: in all, and each part as serialized.
fn report_sizes(index: &Index, bytes: &[u8], report: &mut Report) {
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
}

fn postcard_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(0, |v| v.len())
}
