//! The reader model: every input (markdown, built HTML, a visitor's notes) becomes a
//! [`SourceDoc`] through one interface, [`Reader`], before the core chunks and indexes it.
//!
//! A reader renders what the site shows and nothing else: the title, the language, headings with
//! the anchor ids the site gives them, and blocks of plain text (paragraphs, list items, quotes,
//! code, tables). Readers live where their dependencies may: the light reader (`LightReader`,
//! for "your documents") next to its parser in `plain.rs`, since it must stay small for the wasm budget; the markdown and
//! HTML readers in `onrecord-sources`, which may read files.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::text::Lang;

/// A document as a reader hands it to the core.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceDoc {
    /// Path relative to the corpus root, with `/` separators.
    pub path: String,
    /// The page URL on the site, e.g. `/shop/returns/`.
    pub url: String,
    /// The page title.
    pub title: String,
    /// The language of the page.
    pub lang: Lang,
    /// Curated topic words from frontmatter.
    pub themes: Vec<String>,
    /// The collection the page belongs to, as its reader found it (frontmatter `collection:`,
    /// an HTML meta tag) or a folder rule assigned it: `guides`, `decisions`, … or the site's
    /// own name.
    pub collection: Option<String>,
    /// Sections in document order.
    pub sections: Vec<SourceSection>,
}

/// The content under one heading.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceSection {
    /// Headings from the outermost to this one; empty for text before the first heading.
    pub heading_path: Vec<String>,
    /// The slug the site renders for this heading (empty for the top of the page).
    pub anchor: String,
    /// Blocks in order.
    pub blocks: Vec<Block>,
}

/// One block of text as it will be quoted.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// What kind of block this is; it decides how the block is cut.
    pub kind: BlockKind,
    /// The block's plain text (no markup).
    pub text: String,
}

impl Block {
    /// A prose paragraph.
    pub fn paragraph(text: impl Into<String>) -> Block {
        Block {
            kind: BlockKind::Paragraph,
            text: text.into(),
        }
    }
}

/// The kinds of block the chunker distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BlockKind {
    /// Prose.
    Paragraph,
    /// One list item (prose).
    ListItem,
    /// A list item or definition that is nothing but links: a line of an index or a table of
    /// contents. Cut and quoted as a list item; the page-kind rule counts it as a link.
    LinkEntry,
    /// A block quote paragraph (prose).
    Quote,
    /// A code block: cut on lines, one quotable unit per piece.
    Code,
    /// A table rendered as one line per row, cells joined by [`CELL_SEPARATOR`], the first
    /// line its header row: each row is a quotable unit, quoted with its header.
    Table,
}

/// What joins a table row's cells in its one line of text, in every reader.
pub const CELL_SEPARATOR: &str = " | ";

/// A page as a reader hands it to the build.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The document.
    pub doc: SourceDoc,
    /// A draft: read, but kept out of the index.
    pub draft: bool,
    /// The path (relative to the corpus root) of the page that replaces this one, if any.
    pub superseded_by: Option<String>,
    /// The page kind the site owner declared (frontmatter `kind:`, `<meta name="onrecord-kind">`);
    /// without one, the build tells it from the page's structure.
    pub kind: Option<PageKind>,
    /// What could not be rendered, each naming the file and line.
    pub warnings: Vec<String>,
    /// Other files the page is made of (includes), by name, with their bytes: they belong in
    /// the corpus hash.
    pub included: Vec<(String, Vec<u8>)>,
    /// Read from the whole of an HTML `<body>`, as nothing marked the content (`<main>`,
    /// `<article>`, a landmark role): the site's menus and footers may have come with it.
    pub whole_body: bool,
    /// An HTML page's `<title>`: when the title the reader chose (the first `<h1>`) turns out
    /// to be the site's banner, the same on most pages, the build titles the page by it unless
    /// one heading holds everything on the page.
    pub head_title: Option<String>,
}

impl Page {
    /// A page that is just its document.
    pub fn of(doc: SourceDoc) -> Page {
        Page {
            doc,
            draft: false,
            superseded_by: None,
            kind: None,
            warnings: Vec::new(),
            included: Vec::new(),
            whole_body: false,
            head_title: None,
        }
    }
}

/// What a reader made of a source file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
// A `Read` is returned once per file and unpacked at once, never stored in bulk: boxing the
// page would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Read {
    /// A page to index.
    Page(Page),
    /// The file asks not to be indexed (`noindex`, an ignore marker); the reason says which.
    Skipped {
        /// Why, for the build report.
        reason: String,
    },
}

/// A source file a reader cannot read: bad encoding, broken frontmatter, an unknown language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file, relative to the corpus root.
    pub path: String,
    /// The 1-based line of the problem (0 when it is the whole file).
    pub line: usize,
    /// What is wrong, without the file name.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path, self.message)
        } else {
            write!(f, "{}:{}: {}", self.path, self.line, self.message)
        }
    }
}

impl std::error::Error for ReadError {}

/// Turns one source file into a page.
pub trait Reader {
    /// Reads the file at `path` (relative to the corpus root, `/`-separated) whose contents are
    /// `text`. Bad input is an error naming the file (and line); a reader never panics.
    fn read(&self, path: &str, text: &str) -> Result<Read, ReadError>;
}

/// What kind of page a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum PageKind {
    /// Prose that explains: guides, reference, FAQ.
    Page,
    /// Release notes or a changelog.
    ReleaseNotes,
    /// An index, table of contents or generated list.
    Listing,
}

impl PageKind {
    /// Parses a site owner's marking (frontmatter `kind:`), e.g. `release-notes`.
    pub fn from_name(name: &str) -> Option<PageKind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "page" | "guide" | "reference" => Some(PageKind::Page),
            "release-notes" | "release notes" | "changelog" | "changes" | "news" => {
                Some(PageKind::ReleaseNotes)
            }
            "listing" | "index" | "list" => Some(PageKind::Listing),
            _ => None,
        }
    }

    /// Whether this kind is quoted only for questions about versions or changes.
    pub fn is_noise(self) -> bool {
        self != PageKind::Page
    }
}
