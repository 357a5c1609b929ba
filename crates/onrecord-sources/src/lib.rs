//! onrecord-sources: the readers that turn a site's files into the core's [`SourceDoc`],
//! behind the core's one interface, [`onrecord_core::Reader`].
//!
//! - [`MarkdownReader`]: markdown as its generator renders it (frontmatter, mdBook and MyST
//!   includes, generator syntax rendered or dropped; `markdown.rs`, `prose.rs`, `markup.rs`,
//!   `include.rs`).
//! - [`HtmlReader`]: pages a generator built, read as they are served (`html.rs`); once a
//!   site's pages are read, [`drop_site_chrome`] drops what they all repeat (`chrome.rs`).
//!
//! The light reader for visitors' notes stays in the core (`LightReader`), where the wasm size
//! budget keeps it small; `tests/conformance.rs` lists where it may differ from this one.

mod chrome;
pub mod files;
pub mod frontmatter;
mod html;
mod include;
mod markdown;
mod markup;
mod prose;

use std::path::Path;

use onrecord_core::{
    Block, Lang, Page, PageKind, Read, ReadError, Reader, SourceDoc, SourceSection,
};

pub use crate::chrome::{SiteChrome, drop_site_chrome};
pub use crate::html::{BODY_MARKER, HtmlReader, has_body_marker, html_url_for};
pub use onrecord_core::slug;

/// Whether a path names a markdown page.
pub fn is_markdown(rel: &str) -> bool {
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|ext| rel.ends_with(ext))
}

/// Whether a path names an HTML page.
pub fn is_html(rel: &str) -> bool {
    rel.ends_with(".html") || rel.ends_with(".htm")
}

/// Reads markdown pages of the corpus at a root: frontmatter, includes, generator syntax,
/// markdown.
pub struct MarkdownReader<'a> {
    scope: include::Scope<'a>,
    default_lang: Lang,
}

impl<'a> MarkdownReader<'a> {
    /// A reader for the corpus at `root`. Pages without a `lang` field are in `default_lang`;
    /// `is_private` (a path relative to the root when inside it, and the file's bytes) says
    /// which files an include must never bring into a page.
    pub fn new(
        root: &Path,
        default_lang: Lang,
        is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
    ) -> MarkdownReader<'a> {
        MarkdownReader {
            scope: include::Scope::new(root, None, is_private),
            default_lang,
        }
    }

    /// The same reader with includes fenced to `include_root` (canonicalized) instead of the
    /// corpus root: a site whose pages include `../CHANGES.md` names the folder above.
    pub fn include_root(mut self, include_root: &Path) -> MarkdownReader<'a> {
        let root = self.scope.root.clone();
        self.scope = include::Scope::new(&root, Some(include_root), self.scope.is_private);
        self
    }
}

impl Reader for MarkdownReader<'_> {
    fn read(&self, rel: &str, source: &str) -> Result<Read, ReadError> {
        let (fm, body, body_line) = frontmatter::split(rel, source)?;
        let lang = match &fm.lang {
            None => self.default_lang,
            Some(tag) => Lang::from_tag(tag).ok_or_else(|| {
                let supported: Vec<&str> = Lang::ALL.iter().map(|l| l.tag()).collect();
                ReadError {
                    path: rel.to_owned(),
                    line: 0,
                    message: format!(
                        "unsupported lang '{tag}' (supported: {})",
                        supported.join(", ")
                    ),
                }
            })?,
        };
        let expanded = include::expand(&self.scope, rel, &body, body_line);
        // Jekyll runs Liquid only on pages with frontmatter.
        let liquid = body_line > 1;
        let mut parsed = markdown::parse(&prose::clean(&expanded.text, liquid));
        // A page's summary (`summary`, `meaning`) is its lede: the site shows it under the
        // title, and it often says in plain words what the page is about.
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
        let title = fm
            .title
            .clone()
            .or(parsed.h1)
            .unwrap_or_else(|| file_stem(rel).to_owned());
        let url = fm.url.clone().unwrap_or_else(|| url_for(rel));
        let superseded_by = fm.superseded_by.as_deref().map(|t| {
            t.trim_start_matches("./")
                .trim_start_matches('/')
                .to_owned()
        });
        let kind = match fm.kind.as_deref() {
            None => None,
            Some(name) => Some(PageKind::from_name(name).ok_or_else(|| ReadError {
                path: rel.to_owned(),
                line: 0,
                message: format!("unknown kind '{name}' (use page, release-notes or listing)"),
            })?),
        };
        let collection = match fm.collection.as_deref() {
            None => None,
            Some(raw) => Some(collection_name(raw).map_err(|why| ReadError {
                path: rel.to_owned(),
                line: 0,
                message: format!("collection '{raw}': {why}"),
            })?),
        };
        Ok(Read::Page(Page {
            doc: SourceDoc {
                path: rel.to_owned(),
                url,
                title,
                lang,
                themes: fm.themes.to_vec(),
                collection,
                sections: parsed.sections,
            },
            draft: fm.draft,
            superseded_by,
            kind,
            warnings: expanded.warnings,
            included: expanded.files,
            whole_body: false,
            head_title: None,
        }))
    }
}

/// A collection's name as the index stores it: trimmed and lowercased, letters, digits, `-` and
/// `_` only (so a frontmatter `collection: Decisions`, a meta tag and `onrecord.yml`'s
/// `decisions` agree); else why it is not one.
pub fn collection_name(raw: &str) -> Result<String, &'static str> {
    let name = raw.trim().to_lowercase();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return Err("a collection name is letters, digits, '-' and '_' (for example decisions)");
    }
    Ok(name)
}

/// A file's name without its folders and its last extension: the title of a page that has
/// none (the light reader falls back the same way).
pub fn file_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// The URL a static site generator gives a markdown page: `a/b.md` is `/a/b/`, `a/index.md`
/// is `/a/`.
pub fn url_for(rel: &str) -> String {
    let stem = rel
        .strip_suffix(".md")
        .or_else(|| rel.strip_suffix(".mdx"))
        .or_else(|| rel.strip_suffix(".markdown"))
        .unwrap_or(rel);
    // Only a file named `index` is its folder's page: `registry-index.md` is a page of its own.
    let stem = match stem.rsplit_once('/') {
        Some((folder, "index")) => folder,
        None if stem == "index" => "",
        _ => stem,
    };
    if stem.is_empty() {
        "/".to_owned()
    } else {
        format!("/{stem}/")
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
        // Issue 41: "index" ending a file's name is not the folder's index page.
        assert_eq!(
            url_for("reference/registry-index.md"),
            "/reference/registry-index/"
        );
        assert_eq!(url_for("reindex.md"), "/reindex/");
    }

    #[test]
    fn titles_fall_back_to_the_file_stem() {
        assert_eq!(file_stem("guide/x.mdx"), "x");
        assert_eq!(file_stem("meeting.2024.txt"), "meeting.2024");
        assert_eq!(file_stem("README"), "README");
    }

    fn read(source: &str) -> SourceDoc {
        let never = |_: Option<&str>, _: &[u8]| false;
        let reader = MarkdownReader::new(Path::new("."), Lang::English, &never);
        match reader.read("p.md", source).unwrap() {
            Read::Page(page) => page.doc,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_summary_becomes_the_lede_and_a_description_does_not() {
        let page = |fm: &str, body: &str| read(&format!("---\ntitle: T\n{fm}\n---\n{body}"));
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

    #[test]
    fn an_unknown_language_names_the_file() {
        let never = |_: Option<&str>, _: &[u8]| false;
        let reader = MarkdownReader::new(Path::new("."), Lang::English, &never);
        let err = reader
            .read("a/b.md", "---\nlang: xx\n---\nText")
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("a/b.md: unsupported lang 'xx' (supported: en,"),
            "{err}"
        );
    }
}
