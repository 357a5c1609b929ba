//! build-index: reads a markdown corpus from disk and builds an onrecord index through the core.
//!
//! Everything that touches the filesystem lives here; every decision about text lives in
//! `onrecord-core`. The eval harness calls [`build`] so that it indexes exactly as this CLI does.

mod embed;
mod frontmatter;
mod markdown;
mod prose;
mod scale;

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use onrecord_core::{
    Block, Bm25Params, Index, IndexBuilder, IndexSettings, Lang, RoutingHint, SourceDoc,
    SourceSection, VectorIndex, chunk,
};
use sha2::{Digest, Sha256};

pub use crate::embed::{
    CandleBert, DEFAULT_CACHE_DIR, E5_FILE, EmbedOptions, EmbedStats, Embedder, MAX_TOKENS,
    ModelFiles, Teacher,
};
pub use crate::markdown::slug;
pub use crate::scale::{BENCH_QUESTIONS, replicated_index};

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
}

impl Options {
    /// The settings the demo and the README use.
    pub fn standard() -> Options {
        Options {
            private_dir: "private".into(),
            default_lang: Lang::English,
            fragment_chars: 800,
            stemming: true,
            site_names: Vec::new(),
        }
    }
}

/// A finished build: the index, its bytes and what happened.
pub struct Build {
    pub index: Index,
    pub bytes: Vec<u8>,
    pub report: Report,
}

/// What a build did, for people.
#[derive(Debug, Default)]
pub struct Report {
    pub pages_indexed: usize,
    pub drafts_skipped: Vec<String>,
    pub superseded: Vec<(String, String)>,
    pub private_notes: usize,
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
}

/// One markdown page read from disk.
struct Page {
    path: String,
    doc: SourceDoc,
    draft: bool,
    superseded_by: Option<String>,
}

/// Builds the index for the corpus at `root`, without vectors. Fails, naming the file and
/// line, on bad input.
pub fn build(root: &Path, options: &Options) -> Result<Build> {
    build_with(root, options, None)
}

/// Builds the index, with fragment vectors when an embedder is given.
pub fn build_with(root: &Path, options: &Options, embedder: Option<&Embedder>) -> Result<Build> {
    let mut report = Report::default();
    let mut files = Vec::new();
    walk(root, root, &mut files)
        .with_context(|| format!("cannot list the corpus at {}", root.display()))?;
    files.sort();

    let private_prefix = format!("{}/", options.private_dir.trim_matches('/'));
    let mut hasher = Sha256::new();
    hasher.update(b"onrecord-corpus-v1\0");
    hasher.update(format!(
        "{}\0{}\0{}\0{}\0",
        options.default_lang.tag(),
        options.fragment_chars,
        options.stemming,
        options.site_names.join("\u{1f}")
    ));
    let mut pages = Vec::new();
    let mut notes = Vec::new();
    for rel in &files {
        if !is_markdown(rel) {
            report.other_files += 1;
            continue;
        }
        let bytes = fs::read(root.join(rel)).with_context(|| format!("{rel}: cannot read file"))?;
        // A private note gives a routing hint built from its public-safe frontmatter fields;
        // its body is dropped here and never reaches the index builder.
        let in_private_dir = rel.starts_with(&private_prefix);
        if in_private_dir || declares_private(&bytes) {
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
        report.input_bytes += bytes.len() as u64;
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        pages.push(read_page(rel, &bytes, options)?);
    }

    let by_path: BTreeMap<&str, &Page> = pages.iter().map(|p| (p.path.as_str(), p)).collect();
    for page in &pages {
        if let Some(target) = &page.superseded_by {
            match by_path.get(target.as_str()) {
                None => bail!(
                    "{}: superseded_by names '{target}', which is not a public page of the corpus",
                    page.path
                ),
                Some(t) if t.draft => bail!(
                    "{}: superseded_by names '{target}', which is a draft",
                    page.path
                ),
                Some(_) if target == &page.path => {
                    bail!("{}: superseded_by names the page itself", page.path)
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
    for page in &pages {
        if page.draft {
            report.drafts_skipped.push(page.path.clone());
            continue;
        }
        // A superseded page stays out of answers: its successor is what gets cited.
        if let Some(target) = &page.superseded_by {
            report.superseded.push((page.path.clone(), target.clone()));
            continue;
        }
        let drafts = chunk(&page.doc, options.fragment_chars);
        builder.add(&page.doc, &drafts);
        report.pages_indexed += 1;
    }
    for note in notes {
        builder.add_hint(note.hint, &note.keywords, note.lang);
    }
    let mut index = builder.finish();
    if let Some(embedder) = embedder {
        let (embedded, stats) = embedder.embed_fragments(&embedding_texts(&index))?;
        let mut vectors = VectorIndex::new(embedder.query_model_checksum, embedder.dims as u32);
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

/// Parses one page as the build does: frontmatter, template and markup cleaning, markdown.
pub fn parse_page(rel: &str, bytes: &[u8], options: &Options) -> Result<SourceDoc> {
    read_page(rel, bytes, options).map(|page| page.doc)
}

fn read_page(rel: &str, bytes: &[u8], options: &Options) -> Result<Page> {
    let source = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!("{rel}:{line}: invalid UTF-8 (byte {})", e.valid_up_to())
    })?;
    let (fm, body, _) = frontmatter::split(rel, source)?;
    let lang = match &fm.lang {
        None => options.default_lang,
        Some(tag) => Lang::from_tag(tag).with_context(|| {
            let supported: Vec<&str> = Lang::ALL.iter().map(|l| l.tag()).collect();
            format!(
                "{rel}: unsupported lang '{tag}' (supported: {})",
                supported.join(", ")
            )
        })?,
    };
    let mut parsed = markdown::parse(&prose::clean(&body));
    // A page's summary (`description`, `summary`, `meaning`) is its lede: the site shows it
    // under the title, and it often says in plain words what the page is about.
    if let Some(summary) = fm.summary().filter(|s| !s.trim().is_empty()) {
        let lede = Block::paragraph(summary.trim());
        match parsed.sections.first_mut() {
            Some(top) if top.heading_path.is_empty() => top.blocks.insert(0, lede),
            _ => parsed.sections.insert(
                0,
                SourceSection {
                    heading_path: Vec::new(),
                    anchor: String::new(),
                    blocks: vec![lede],
                },
            ),
        }
    }
    let title = fm.title.clone().or(parsed.h1).unwrap_or_else(|| {
        rel.rsplit('/')
            .next()
            .unwrap_or(rel)
            .trim_end_matches(".md")
            .to_owned()
    });
    let url = fm.url.clone().unwrap_or_else(|| url_for(rel));
    let superseded_by = fm.superseded_by.as_deref().map(|t| {
        t.trim_start_matches("./")
            .trim_start_matches('/')
            .to_owned()
    });
    Ok(Page {
        path: rel.to_owned(),
        doc: SourceDoc {
            path: rel.to_owned(),
            url,
            title,
            lang,
            themes: fm.themes.to_vec(),
            sections: parsed.sections,
        },
        draft: fm.draft,
        superseded_by,
    })
}

/// The URL a static site generator gives a page: `a/b.md` is `/a/b/`, `a/index.md` is `/a/`.
pub fn url_for(rel: &str) -> String {
    let stem = rel
        .strip_suffix(".md")
        .or_else(|| rel.strip_suffix(".mdx"))
        .or_else(|| rel.strip_suffix(".markdown"))
        .unwrap_or(rel);
    let stem = stem
        .strip_suffix("index")
        .unwrap_or(stem)
        .trim_end_matches('/');
    if stem.is_empty() {
        "/".to_owned()
    } else {
        format!("/{stem}/")
    }
}

fn is_markdown(rel: &str) -> bool {
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|ext| rel.ends_with(ext))
}

/// Collects file paths under `dir` relative to `root`, with `/` separators, skipping hidden
/// entries and symlinked folders.
pub(crate) fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for entry in
        fs::read_dir(dir).with_context(|| format!("cannot read folder {}", dir.display()))?
    {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            bail!("{}: file name is not valid UTF-8", entry.path().display());
        };
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type()?;
        let path = entry.path();
        if file_type.is_dir() {
            walk(root, &path, out)?;
        } else if file_type.is_file() || (file_type.is_symlink() && path.is_file()) {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(rel.join("/"));
        }
    }
    Ok(())
}

fn postcard_len<T: serde::Serialize>(value: &T) -> usize {
    postcard::to_allocvec(value).map_or(0, |v| v.len())
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pages indexed     {}", self.pages_indexed)?;
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
                "other files       {} (not markdown, ignored)",
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
        Ok(())
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
    use super::*;

    #[test]
    fn urls_follow_the_file_layout() {
        assert_eq!(url_for("index.md"), "/");
        assert_eq!(url_for("shop/index.md"), "/shop/");
        assert_eq!(url_for("shop/returns.md"), "/shop/returns/");
        assert_eq!(url_for("guide/x.mdx"), "/guide/x/");
    }

    #[test]
    fn a_summary_becomes_the_lede_and_a_description_does_not() {
        let page = |fm: &str, body: &str| {
            let source = format!("---\ntitle: T\n{fm}\n---\n{body}");
            parse_page("p.md", source.as_bytes(), &Options::standard()).unwrap()
        };
        let texts = |doc: &SourceDoc| -> Vec<(Vec<String>, String)> {
            doc.sections
                .iter()
                .flat_map(|s| {
                    s.blocks
                        .iter()
                        .map(|b| (s.heading_path.clone(), b.text.clone()))
                })
                .collect()
        };
        let doc = page(
            "meaning: \"On staying put.\"",
            "Verse one.\n\n## Notes\n\nMore.",
        );
        assert_eq!(
            texts(&doc)[..2],
            [
                (vec![], "On staying put.".to_owned()),
                (vec![], "Verse one.".to_owned())
            ]
        );
        let doc = page("summary: Short.", "## First\n\nText.");
        assert_eq!(doc.sections[0].heading_path, Vec::<String>::new());
        assert_eq!(texts(&doc)[0].1, "Short.");
        let doc = page("description: SEO words.", "Body.");
        assert_eq!(texts(&doc), [(vec![], "Body.".to_owned())]);
    }
}
