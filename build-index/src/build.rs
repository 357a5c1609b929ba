//! The build itself: list and select the files, read the pages, drop a built site's chrome,
//! index the pages and, with an embedder, give the fragments vectors.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use onrecord_core::{
    Bm25Params, Index, IndexBuilder, IndexSettings, Page, PageKind, Read, Reader, VectorIndex,
    chunk, page_kind,
};
use onrecord_sources::{HtmlReader, drop_site_chrome, is_html, is_markdown};
use sha2::{Digest, Sha256};

use crate::config::{self, CONFIG_FILE};
use crate::pages::{markdown_reader, utf8};
use crate::privacy::{declares_private, private_note};
use crate::report::{Report, page_warning_kind};
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
                    crate::adapt::adapt(&embedder.query_model_bytes, &index, &embedded, knobs)
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

fn postcard_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(0, |v| v.len())
}
