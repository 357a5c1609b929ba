//! Real, messy docs (the Express docs in ../shared): MDX imports and components, Liquid tags and
//! raw HTML blocks must never reach the text that is indexed and quoted.

use std::fs;
use std::path::{Path, PathBuf};

use build_index::{Options, build, parse_page};
use onrecord_core::BlockKind;

fn shared(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpora")
        .join(rel);
    assert!(
        path.is_dir(),
        "{} is missing: the shared corpora must sit beside the checkout",
        path.display()
    );
    path
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md" || e == "mdx") {
            out.push(path);
        }
    }
}

const TEMPLATE_SYNTAX: &[&str] = &[
    "{%",
    "%}",
    "{{",
    "}}",
    "{/*",
    "<Alert",
    "</Alert",
    "<ReadMore",
    "<PackageManagerCommand",
    "<div",
    "</div",
    "<td",
    "<table",
    "markdown=\"1\"",
    "from '@components",
];

fn assert_clean_prose(root: &Path) -> usize {
    let mut paths = Vec::new();
    files(root, &mut paths);
    let mut blocks = 0;
    for path in &paths {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let doc = parse_page(&rel, &fs::read(path).unwrap(), &Options::standard()).unwrap();
        for block in doc
            .sections
            .iter()
            .flat_map(|s| &s.blocks)
            .filter(|b| b.kind != BlockKind::Code)
        {
            blocks += 1;
            for syntax in TEMPLATE_SYNTAX {
                assert!(
                    !block.text.contains(syntax),
                    "{rel}: {syntax:?} reached the text: {:?}",
                    block.text
                );
            }
            assert!(
                !block.text.starts_with("import "),
                "{rel}: an import line reached the text: {:?}",
                block.text
            );
        }
    }
    blocks
}

#[test]
fn astro_mdx_pages_yield_clean_prose() {
    assert!(assert_clean_prose(&shared("express/astro-5x/src/content")) > 500);
}

#[test]
fn jekyll_pages_yield_clean_prose() {
    assert!(assert_clean_prose(&shared("express/jekyll-md/en")) > 500);
}

#[test]
fn text_inside_components_and_html_tables_is_kept() {
    let root = shared("express/astro-5x/src/content/docs/en/5x");
    let built = build(&root, &Options::standard()).unwrap();
    let all: String = built
        .index
        .fragments
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    // Inside <Alert> on guide/routing.mdx and inside an HTML table cell on guide/behind-proxies.mdx.
    assert!(all.contains("Query strings are not part of the route path."));
    assert!(all.contains("If true, the client's IP address is understood as the left-most entry"));
}

#[test]
fn every_shared_corpus_builds() {
    for rel in [
        "express/astro-5x/src/content",
        "express/jekyll-md/en",
        "rust-reference",
        "rustc-dev-guide",
    ] {
        let built =
            build(&shared(rel), &Options::standard()).unwrap_or_else(|e| panic!("{rel}: {e:#}"));
        assert!(built.index.fragments.len() > 50, "{rel}");
    }
}
