//! Issue 15, "clean text from real markup": generator syntax is rendered or dropped, never
//! quoted. Every page of every shared corpus and of the Black docs is read as the build reads
//! it, and no fragment text, heading or title may match a pattern of `support::SYNTAX`.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use build_index::{Options, build, parse_page};
use onrecord_core::BlockKind;

use support::{compiled, corpora, leaks, markdown_files};

#[test]
fn every_pattern_matches_its_example() {
    for (syntax, re) in compiled() {
        assert!(
            re.is_match(syntax.example),
            "{}: {} does not match its example {:?}",
            syntax.generator,
            syntax.pattern,
            syntax.example
        );
    }
}

/// The patterns find the syntax the raw sources actually use (so the clean test below cannot
/// pass by looking for the wrong thing): matching lines per generator, at least as many as
/// counted with grep when this test was written.
#[test]
fn the_patterns_find_the_syntax_in_the_raw_sources() {
    let expected: &[(&str, &str, usize)] = &[
        ("rust-reference", "mdBook-spec", 2900),
        ("rust-reference", "GitHub/mdBook-spec admonition", 330),
        ("rustc-dev-guide", "mdBook", 2),
        ("express/jekyll-md/en", "Liquid tag", 65),
        ("express/jekyll-md/en", "Liquid expression", 50),
        ("express/jekyll-md/en", "kramdown attributes", 2),
        ("express/jekyll-md/en", "raw HTML", 200),
        ("express/astro-5x/src/content", "raw HTML", 150),
        ("rustc-dev-guide", "raw HTML", 150),
        ("express/astro-5x/src/content", "MDX import/export", 20),
        ("express/astro-5x/src/content", "MDX component", 20),
        ("black-26.10.1/docs", "MyST directive", 30),
        ("black-26.10.1/docs", "MyST role", 20),
        ("black-26.10.1/docs", "MyST target", 25),
        ("black-26.10.1/docs", "MyST directive option", 5),
        ("black-26.10.1/docs", "rST directive", 4),
    ];
    let patterns = compiled();
    let mut found: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for (name, root, _) in corpora() {
        for rel in markdown_files(&root) {
            let text = fs::read_to_string(root.join(&rel)).unwrap();
            for line in text.lines() {
                for (syntax, re) in &patterns {
                    if re.is_match(line) {
                        *found.entry((name.clone(), syntax.generator)).or_default() += 1;
                    }
                }
            }
        }
    }
    for &(corpus, generator, at_least) in expected {
        let n = found
            .get(&(corpus.to_owned(), generator))
            .copied()
            .unwrap_or(0);
        assert!(
            n >= at_least,
            "{corpus}: {generator} matches {n} raw lines, expected at least {at_least}"
        );
    }
}

#[test]
fn no_fragment_heading_or_title_of_any_corpus_holds_generator_syntax() {
    let patterns = compiled();
    let mut problems = Vec::new();
    let (mut pages, mut blocks, mut fragments) = (0, 0, 0);
    for (name, root, private_dir) in corpora() {
        // The Black docs include ../CHANGES.md, ../AUTHORS.md and ../LICENSE.
        let options = Options {
            private_dir: private_dir.to_owned(),
            include_root: name
                .starts_with("black")
                .then(|| root.parent().map(Path::to_path_buf))
                .flatten(),
            ..Options::standard()
        };
        for rel in markdown_files(&root) {
            let bytes = fs::read(root.join(&rel)).unwrap();
            let page = parse_page(&root, &rel, &bytes, &options)
                .unwrap_or_else(|e| panic!("{name}/{rel}: {e:#}"));
            pages += 1;
            let doc = &page.doc;
            let mut check = |what: &str, text: &str, code: bool| {
                for leak in leaks(&patterns, text, code) {
                    problems.push(format!("{name}/{rel}: {what}: {leak} in {text:?}"));
                }
            };
            check("title", &doc.title, false);
            for section in &doc.sections {
                for heading in &section.heading_path {
                    check("heading", heading, false);
                }
                for block in &section.blocks {
                    blocks += 1;
                    // Fragments are blocks packed and cut; code may show syntax as an example.
                    check("block", &block.text, block.kind == BlockKind::Code);
                }
            }
        }
        // What the index stores: fragment texts and the chunker's headings.
        let built = build(&root, &options).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        for f in &built.index.fragments {
            fragments += 1;
            let doc = &built.index.docs[f.doc as usize];
            for leak in leaks(&patterns, &f.text, true) {
                problems.push(format!("{name}/{}: fragment: {leak}", doc.path));
            }
            for heading in &f.heading_path {
                for leak in leaks(&patterns, heading, false) {
                    problems.push(format!("{name}/{}: fragment heading: {leak}", doc.path));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} leaks, first ones:\n{}",
        problems.len(),
        problems[..problems.len().min(30)].join("\n")
    );
    assert!(
        pages > 400 && blocks > 15_000 && fragments > 5_000,
        "{pages} pages, {blocks} blocks, {fragments} fragments"
    );
}

#[test]
fn black_change_log_renders_the_changelog_it_includes() {
    let root = support::black_docs();
    // The pages include ../CHANGES.md, ../AUTHORS.md and ../LICENSE: the sdist's folder is the
    // include root, as in eval/corpora.json.
    let options = Options {
        include_root: root.parent().map(Path::to_path_buf),
        ..Options::standard()
    };
    let read = |rel: &str| {
        let page = parse_page(&root, rel, &fs::read(root.join(rel)).unwrap(), &options).unwrap();
        assert!(page.warnings.is_empty(), "{rel}: {:?}", page.warnings);
        page.doc
    };
    let text = |doc: &onrecord_core::SourceDoc| {
        doc.sections
            .iter()
            .flat_map(|s| &s.blocks)
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let changes = fs::read_to_string(root.join("../CHANGES.md")).unwrap();
    let log = read("change_log.md");
    assert_eq!(log.title, "Change Log");
    assert!(log.sections.len() > 100, "{} sections", log.sections.len());
    // The first release's heading in CHANGES.md is a section of the page.
    let first_release = changes.lines().find_map(|l| l.strip_prefix("## ")).unwrap();
    assert!(
        log.sections
            .iter()
            .any(|s| s.heading_path.first().map(String::as_str) == Some(first_release))
    );
    assert!(text(&read("license.md")).contains("Permission is hereby granted, free of charge"));
    assert!(text(&read("authors.md")).contains("Łukasz Langa"));
    // The note on the index page keeps its text with a label, and its role renders.
    let index = text(&read("index.md"));
    assert!(
        index.contains("Note: Black is licensed under the MIT license."),
        "{index}"
    );
}

#[test]
fn rust_reference_admonitions_keep_their_text_with_a_label() {
    let root = support::shared("rust-reference");
    let page = parse_page(
        &root,
        "unsafe-keyword.md",
        &fs::read(root.join("unsafe-keyword.md")).unwrap(),
        &Options::standard(),
    )
    .unwrap();
    let texts: Vec<&str> = page
        .doc
        .sections
        .iter()
        .flat_map(|s| &s.blocks)
        .map(|b| b.text.as_str())
        .collect();
    assert!(
        texts.contains(
            &"Edition 2024: Prior to edition 2024, extern blocks were allowed without being qualified as unsafe."
        ),
        "{texts:#?}"
    );
}

#[test]
fn a_missing_include_is_a_warning_naming_file_and_line() {
    let root = support::shared("rustc-dev-guide");
    let rel = "rustc-driver/getting-diagnostics.md";
    let page = parse_page(
        &root,
        rel,
        &fs::read(root.join(rel)).unwrap(),
        &Options::standard(),
    )
    .unwrap();
    assert_eq!(page.warnings.len(), 1, "{:?}", page.warnings);
    assert!(
        page.warnings[0].starts_with(
            "rustc-driver/getting-diagnostics.md:13: {{#include ../../examples/rustc-interface-getting-diagnostics.rs}}: cannot read"
        ),
        "{}",
        page.warnings[0]
    );
    let built = build(&root, &Options::standard()).unwrap();
    assert_eq!(
        built.report.warnings.len(),
        2,
        "{:?}",
        built.report.warnings
    );
}
