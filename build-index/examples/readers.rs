//! Markdown input against the generator's HTML of the same pages: pages, fragments, build time
//! (median of runs, alternating) and how much of the text agrees.
//!
//! `cargo run --release -p build-index --example readers -- [--runs N] MARKDOWN_DIR HTML_DIR ...`
//! (pairs of folders; `scripts/sites.sh` builds the HTML).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use build_index::{Build, Options, build};
use onrecord_core::{Lang, Reader};
use onrecord_sources::{HtmlReader, MarkdownReader, is_html, is_markdown};

fn normalize(s: &str) -> String {
    // Typography folded back to what authors type (mdBook and Sphinx render it), as the eval
    // harness compares evidence.
    let folded = onrecord_core::fold_typography(s);
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Milliseconds the reader alone takes over every page of `dir` (files already in memory).
fn read_all(dir: &Path) -> f64 {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(dir).ok()?.to_string_lossy().into_owned();
            (is_html(&rel) || is_markdown(&rel))
                .then(|| Some((rel, std::fs::read_to_string(p).ok()?)))?
        })
        .collect();
    let never = |_: Option<&str>, _: &[u8]| false;
    let markdown = MarkdownReader::new(dir, Lang::English, &never);
    let html = HtmlReader {
        default_lang: Lang::English,
        body_marked: false,
    };
    let t = Instant::now();
    for (rel, text) in &files {
        let reader: &dyn Reader = if is_html(rel) { &html } else { &markdown };
        let _ = reader.read(rel, text);
    }
    t.elapsed().as_secs_f64() * 1000.0
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Share of `a`'s fragments whose whole text is in `b`'s text, and of `a`'s sentences.
fn agreement(a: &Build, b: &Build) -> (f64, f64) {
    let b_text: String = b
        .index
        .fragments
        .iter()
        .map(|f| normalize(&f.text))
        .collect::<Vec<_>>()
        .join("\n");
    let b_sentences: BTreeSet<String> = b
        .index
        .fragments
        .iter()
        .flat_map(|f| {
            f.sentences
                .iter()
                .map(|r| normalize(&f.text[r.0 as usize..r.1 as usize]))
        })
        .collect();
    let frags = &a.index.fragments;
    let whole = frags
        .iter()
        .filter(|f| b_text.contains(&normalize(&f.text)))
        .count();
    let (mut found, mut total) = (0, 0);
    for f in frags {
        for r in &f.sentences {
            total += 1;
            let s = normalize(&f.text[r.0 as usize..r.1 as usize]);
            if b_sentences.contains(&s) || b_text.contains(&s) {
                found += 1;
            } else if std::env::var_os("SHOW_MISSING").is_some() {
                let doc = &a.index.docs[f.doc as usize].path;
                eprintln!("missing ({doc}): {s}");
            }
        }
    }
    (
        whole as f64 / frags.len().max(1) as f64,
        found as f64 / total.max(1) as f64,
    )
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5;
    if args.first().map(String::as_str) == Some("--runs") {
        runs = args[1].parse().expect("--runs N");
        args.drain(..2);
    }
    assert!(
        args.len() % 2 == 0 && !args.is_empty(),
        "pairs of MARKDOWN_DIR HTML_DIR"
    );
    let options = Options::standard();
    println!(
        "| corpus | input | pages | fragments | build, median of {runs} (ms) | reading pages alone (ms) | fragments found in the other build | sentences found |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for pair in args.chunks(2) {
        let (md_dir, html_dir) = (Path::new(&pair[0]), Path::new(&pair[1]));
        let (mut md_ms, mut html_ms) = (Vec::new(), Vec::new());
        let (mut md_read, mut html_read) = (Vec::new(), Vec::new());
        let (mut md, mut html) = (None, None);
        for _ in 0..runs {
            let t = Instant::now();
            md = Some(build(md_dir, &options).expect("markdown build"));
            md_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            html = Some(build(html_dir, &options).expect("HTML build"));
            html_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            md_read.push(read_all(md_dir));
            html_read.push(read_all(html_dir));
        }
        let (md, html) = (md.expect("ran"), html.expect("ran"));
        let (md_in_html, md_sentences) = agreement(&md, &html);
        let (html_in_md, html_sentences) = agreement(&html, &md);
        let name = md_dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        for (input, b, ms, read, whole, sentences) in [
            ("markdown", &md, &md_ms, &md_read, md_in_html, md_sentences),
            (
                "HTML",
                &html,
                &html_ms,
                &html_read,
                html_in_md,
                html_sentences,
            ),
        ] {
            println!(
                "| {name} | {input} | {} | {} | {:.0} | {:.0} | {:.1}% | {:.1}% |",
                b.report.pages_indexed,
                b.report.fragments,
                median(ms.clone()),
                median(read.clone()),
                whole * 100.0,
                sentences * 100.0
            );
        }
    }
}
