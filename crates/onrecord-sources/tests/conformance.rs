//! The markdown reader and the light reader agree (issue 12, "one reader model"): the same files
//! through both give the same `SourceDoc` (title, headings with their anchors, blocks), except
//! for the differences listed in [`ALLOWED`] — the light reader must stay small for the wasm
//! budget. Each allowed difference comes with a file that shows it, and the test checks that the
//! readers still differ there: when the light reader learns the construct, the entry moves to
//! [`AGREE`].

use std::fs;
use std::path::{Path, PathBuf};

use onrecord_core::{Lang, LightReader, Read, Reader, SourceDoc};
use onrecord_sources::MarkdownReader;

/// What both readers say about a file: its title, then each section and its blocks.
fn outline(reader: &dyn Reader, path: &str, text: &str) -> Vec<String> {
    let doc: SourceDoc = match reader.read(path, text).unwrap() {
        Read::Page(page) => page.doc,
        other => panic!("{path}: {other:?}"),
    };
    let mut out = vec![format!("title: {}", doc.title)];
    for s in &doc.sections {
        out.push(format!("[{}] #{}", s.heading_path.join(" > "), s.anchor));
        for b in &s.blocks {
            out.push(format!("  {:?}: {}", b.kind, b.text));
        }
    }
    out
}

/// The outlines of `text` read as `path` by the markdown reader and by the light reader.
fn both(root: &Path, path: &str, text: &str) -> (Vec<String>, Vec<String>) {
    let never = |_: Option<&str>, _: &[u8]| false;
    let markdown = MarkdownReader::new(root, Lang::English, &never);
    let light = LightReader {
        lang: Lang::English,
    };
    (outline(&markdown, path, text), outline(&light, path, text))
}

/// Files on which the readers agree exactly, one per difference the issue found (each was a
/// difference before this test).
const AGREE: &[(&str, &str, &str)] = &[
    (
        "repeated-heading anchors",
        "notes.md",
        "# T\n\n## Setup\n\nOne.\n\n## Setup\n\nTwo.\n\n## Setup\n\nThree.\n",
    ),
    (
        "tables",
        "notes.md",
        "| Plan | Price |\n|:-----|------:|\n| Lite | EUR 9 |\n| Pro | EUR 19 |\n\nAfter.\n",
    ),
    (
        "frontmatter",
        "notes.md",
        "---\ntitle: \"Garden notes\"\ntags: [a, b]\n---\n# Heading one\n\nText.\n",
    ),
    (
        "images",
        "notes.md",
        "See ![a diagram](d.png) the diagram.\n\n![only an image](x.svg)\n",
    ),
    (
        "title fallback",
        "trips/2024.summer.md",
        "No heading here.\n",
    ),
    (
        "code fences",
        "notes.md",
        "```sh\nls\n``` not a close\n\n```\n\nmore\n\n~~~\n````\n\nAfter.\n",
    ),
    (
        "emphasis",
        "notes.md",
        "An *important* and _quiet_ note on snake_case and 2*3 and a * b.\n",
    ),
];

/// Where the light reader may differ: the construct, why it is left out, and a file that
/// shows it.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "frontmatter fields other than the title (the summary lede, lang, draft)",
        "Notes are not published sites; only the title is read.",
        "---\ntitle: T\nsummary: A short lede.\n---\nBody.\n",
    ),
    (
        "setext headings",
        "Rare in notes; ATX headings only.",
        "Title\n=====\n\nText.\n",
    ),
    (
        "indented code blocks",
        "Fenced code only.",
        "Text.\n\n    indented code\n",
    ),
    (
        "lazy continuation lines of list items",
        "Each list line is an item; a continuation becomes a paragraph.",
        "- an item\n  that goes on\n- next\n",
    ),
    (
        "a block quote over several lines",
        "Each quoted line is a quote block of its own.",
        "> one line\n> and another\n",
    ),
    (
        "reference links and their definitions",
        "Inline links only.",
        "See [the guide][g].\n\n[g]: https://example.org/guide\n",
    ),
    (
        "backslash escapes, HTML entities and autolinks",
        "Kept as written.",
        "A \\*literal\\* star &amp; <https://example.org>.\n",
    ),
    (
        "raw HTML and generator syntax (MDX, Liquid, mdBook, MyST, admonition markers)",
        "The cleaners of markdown.rs/prose.rs/markup.rs are too large for the wasm budget.",
        "r[intro]\n> [!NOTE]\n> Mind the gap.\n\n<div class=\"x\">Box</div>\n",
    ),
    (
        "hidden lines of Rust examples",
        "mdBook and rustdoc hide `# ` lines; notes rarely have them.",
        "```rust\n# fn main() {\nlet x = 1;\n# }\n```\n",
    ),
    (
        "heading attributes",
        "`## Title {#id}` keeps its braces.",
        "## Title {#custom}\n\nText.\n",
    ),
];

#[test]
fn the_issues_six_differences_and_emphasis_agree() {
    for (what, path, text) in AGREE {
        let (markdown, light) = both(Path::new("."), path, text);
        assert_eq!(markdown, light, "{what}: {text:?}");
    }
}

#[test]
fn every_allowed_difference_is_real() {
    for (what, _why, text) in ALLOWED {
        let (markdown, light) = both(Path::new("."), "notes.md", text);
        assert_ne!(
            markdown, light,
            "{what}: the readers now agree on {text:?}; move it to AGREE"
        );
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// The demo corpus (every page and private note) reads the same through both readers.
#[test]
fn the_demo_corpus_reads_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.len() >= 20, "{} files", files.len());
    for file in files {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy();
        let text = fs::read_to_string(&file).unwrap();
        let (markdown, light) = both(&root, &rel, &text);
        assert_eq!(markdown, light, "{rel}");
    }
}
