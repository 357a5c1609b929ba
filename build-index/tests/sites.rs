//! Built sites from real generators (issue 12, "HTML input"): mdBook over the rust-reference and
//! the rustc-dev-guide, Sphinx + MyST over the Black docs, as `scripts/sites.sh` builds them
//! into target/sites (opt-in: `cargo test -p build-index --features sites --test sites`, which
//! `scripts/sites.sh` runs last).
//!
//! Asserted: sidebars, menus and other page chrome never become fragment text; every anchor a
//! fragment cites is an id on its page; no generator syntax reaches the text; the pages a site
//! serves are the pages indexed.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use build_index::{Build, Input, Options, build};
use scraper::{ElementRef, Html, Node, Selector};

use support::{compiled, leaks};

fn site(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/sites")
        .join(name);
    assert!(
        path.join("index.html").is_file(),
        "{} is missing: run scripts/sites.sh",
        path.display()
    );
    path
}

/// The generators' own content element: the test knows each generator's layout, independently
/// of how the reader selects content.
const SITES: &[(&str, &str)] = &[
    ("rust-reference", "main"),
    ("rustc-dev-guide", "main"),
    ("black", "article[role=main]"),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text runs of a page outside its content element (sidebar, menus, header, footer), of at
/// least three words, that do not also occur inside the content.
fn chrome_texts(html: &Html, content: &Selector) -> Vec<String> {
    let Some(main) = html.select(content).next() else {
        return Vec::new();
    };
    let inside = collapse(&main.text().collect::<String>());
    let body = html
        .select(&Selector::parse("body").unwrap())
        .next()
        .unwrap();
    let mut out = Vec::new();
    for node in body.descendants() {
        let Node::Text(t) = node.value() else {
            continue;
        };
        let in_content = node.ancestors().any(|a| a.id() == main.id());
        let in_code = node.ancestors().any(|a| {
            ElementRef::wrap(a).is_some_and(|e| matches!(e.value().name(), "script" | "style"))
        });
        let text = collapse(t);
        if !in_content && !in_code && text.split(' ').count() >= 3 && !inside.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// Each site built once for all the tests.
fn built(name: &str) -> (PathBuf, &'static Build) {
    static BUILT: OnceLock<Vec<(&'static str, Build)>> = OnceLock::new();
    let all = BUILT.get_or_init(|| {
        SITES
            .iter()
            .map(|&(name, _)| {
                let built = build(&site(name), &Options::standard())
                    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
                assert_eq!(built.report.input, Input::Html, "{name}");
                (name, built)
            })
            .collect()
    });
    let built = all.iter().find(|(n, _)| *n == name).map(|(_, b)| b);
    (site(name), built.unwrap())
}

#[test]
fn sidebars_and_menus_never_become_fragment_text() {
    for &(name, content) in SITES {
        let (root, built) = built(name);
        let content = Selector::parse(content).unwrap();
        let mut chrome_checked = 0;
        for (doc_idx, doc) in built.index.docs.iter().enumerate() {
            let html = Html::parse_document(&fs::read_to_string(root.join(&doc.path)).unwrap());
            let fragments: Vec<&str> = built
                .index
                .fragments
                .iter()
                .filter(|f| f.doc as usize == doc_idx)
                .map(|f| f.text.as_str())
                .collect();
            for chrome in chrome_texts(&html, &content) {
                chrome_checked += 1;
                for f in &fragments {
                    assert!(
                        !collapse(f).contains(&chrome),
                        "{name}/{}: page chrome {chrome:?} in a fragment",
                        doc.path
                    );
                }
            }
        }
        assert!(
            chrome_checked > 100,
            "{name}: only {chrome_checked} chrome texts"
        );
    }
}

#[test]
fn mdbook_sidebar_page_and_copies_are_not_indexed() {
    for name in ["rust-reference", "rustc-dev-guide"] {
        let (root, built) = built(name);
        let skipped: BTreeSet<&str> = built
            .report
            .pages_skipped
            .iter()
            .map(|(p, _)| p.as_str())
            .collect();
        // toc.html is the sidebar (robots noindex), print.html the whole book on one page, and
        // index.html a copy of the first chapter.
        assert_eq!(
            skipped,
            BTreeSet::from(["404.html", "index.html", "print.html", "toc.html"]),
            "{name}"
        );
        let pages = walk_html(&root);
        assert_eq!(built.report.pages_indexed, pages - 4, "{name}");
        // The sidebar's chapter list, three entries in a row, is in no fragment.
        let toc = Html::parse_document(&fs::read_to_string(root.join("toc.html")).unwrap());
        let entries: Vec<String> = toc
            .select(&Selector::parse("ol.chapter li a").unwrap())
            .map(|a| collapse(&a.text().collect::<String>()))
            .collect();
        assert!(
            entries.len() > 100,
            "{name}: {} sidebar entries",
            entries.len()
        );
        let all: String = built
            .index
            .fragments
            .iter()
            .map(|f| collapse(&f.text))
            .collect::<Vec<_>>()
            .join("\n");
        for run in entries.windows(3) {
            let run = run.join(" ");
            assert!(
                !all.contains(&run),
                "{name}: sidebar entries {run:?} in a fragment"
            );
        }
    }
}

fn walk_html(dir: &Path) -> usize {
    let mut n = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            n += walk_html(&path);
        } else if path.extension().is_some_and(|e| e == "html") {
            n += 1;
        }
    }
    n
}

#[test]
fn every_cited_anchor_is_an_id_on_its_page() {
    for &(name, _) in SITES {
        let (root, built) = built(name);
        let mut checked = 0;
        for (doc_idx, doc) in built.index.docs.iter().enumerate() {
            let html = fs::read_to_string(root.join(&doc.path)).unwrap();
            for f in built
                .index
                .fragments
                .iter()
                .filter(|f| f.doc as usize == doc_idx)
            {
                if f.anchor.is_empty() {
                    continue;
                }
                checked += 1;
                assert!(
                    html.contains(&format!("id=\"{}\"", f.anchor)),
                    "{name}/{}: #{} is no id on the page",
                    doc.path,
                    f.anchor
                );
            }
            assert!(doc.url.starts_with('/'), "{}", doc.url);
        }
        assert!(checked > 500, "{name}: {checked} anchors");
    }
}

#[test]
fn no_generator_syntax_reaches_built_text() {
    let patterns = compiled();
    for &(name, _) in SITES {
        let (_, built) = built(name);
        for f in &built.index.fragments {
            let doc = &built.index.docs[f.doc as usize];
            // Code is not told apart in fragments: only the patterns for all text apply to
            // them; headings and titles get every pattern.
            let found = leaks(&patterns, &f.text, true);
            assert!(found.is_empty(), "{name}/{}: {found:?}", doc.path);
            for heading in f.heading_path.iter().chain([&doc.title]) {
                let found = leaks(&patterns, heading, false);
                assert!(
                    found.is_empty(),
                    "{name}/{}: {found:?} in {heading:?}",
                    doc.path
                );
            }
        }
    }
}

#[test]
fn mdbook_leftovers_of_mdbook_spec_are_rendered_not_quoted() {
    let (_, built) = built("rust-reference");
    let page = |path: &str| -> String {
        let doc = built
            .index
            .docs
            .iter()
            .position(|d| d.path == path)
            .unwrap();
        built
            .index
            .fragments
            .iter()
            .filter(|f| f.doc as usize == doc)
            .map(|f| collapse(&f.text))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = page("unsafe-keyword.html");
    assert!(
        text.contains("Edition 2024: Prior to edition 2024, extern blocks were allowed without being qualified as unsafe."),
        "{text}"
    );
    assert!(!text.contains("r[unsafe"), "{text}");
    // mdBook itself renders GitHub's five alert kinds; the label leads the paragraph as well.
    assert!(page("abi.html").contains("Note: rustc lints against any use following the first"));
}
