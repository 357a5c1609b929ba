//! Real, messy docs (the Express docs in ../shared): text inside MDX components and HTML
//! tables is kept, and every shared corpus builds. That no generator syntax reaches indexed
//! text is `markup.rs`'s test, over every page.

mod support;

use build_index::{Options, build};
use support::shared;

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
