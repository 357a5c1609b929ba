//! The include resolver (issue 43): any page text, its `{{#include …}}` and MyST `{include}`
//! lines pointing anywhere, read in a fixed corpus folder that holds a FIFO, a link to a
//! device and a link to a secret outside it. No panic, no hang (the FIFO and the device are
//! never opened), the secret is never read into a page, and warnings stay bounded.
#![no_main]

use std::fs;
use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use onrecord_core::{Lang, Read, Reader};
use onrecord_sources::MarkdownReader;

const SECRET: &str = "FUZZ_CANARY_SECRET";

/// `<tmp>/onrecord-fuzz-include-<pid>/docs` with pages, a FIFO and links out; the secret in
/// the folder above.
static ROOT: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("onrecord-fuzz-include-{}", std::process::id()));
    let docs = dir.join("docs");
    fs::create_dir_all(docs.join("sub")).expect("scratch folder");
    fs::write(dir.join("secret.md"), format!("{SECRET}\n")).expect("secret");
    fs::write(
        docs.join("a.md"),
        "Alpha {{#include sub/b.md}}\n// ANCHOR: x\nInside x.\n// ANCHOR_END: x\n",
    )
    .expect("page");
    fs::write(docs.join("sub/b.md"), "Beta {{#include ../a.md}}\n").expect("page");
    let _ = std::process::Command::new("mkfifo")
        .arg(docs.join("pipe.md"))
        .status();
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink("/dev/zero", docs.join("zero.md"));
        let _ = std::os::unix::fs::symlink(dir.join("secret.md"), docs.join("link.md"));
    }
    docs
});

fn never_private(_: Option<&str>, _: &[u8]) -> bool {
    false
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Point at the planted files often: bytes 0x01..0x06 stand for their names.
    let text = text
        .replace('\u{1}', "{{#include ")
        .replace('\u{2}', "}}\n")
        .replace('\u{3}', "pipe.md")
        .replace('\u{4}', "zero.md")
        .replace('\u{5}', "link.md")
        .replace('\u{6}', "../secret.md");
    let reader = MarkdownReader::new(&ROOT, Lang::English, &never_private);
    let Ok(Read::Page(page)) = reader.read("page.md", &text) else {
        return;
    };
    let included: String = page
        .doc
        .sections
        .iter()
        .flat_map(|s| &s.blocks)
        .map(|b| b.text.as_str())
        .collect();
    assert!(
        !included.contains(SECRET) || text.contains(SECRET),
        "the secret outside the corpus was included"
    );
    assert!(
        page.included
            .iter()
            .all(|(_, bytes)| bytes.len() <= 8_000_000)
    );
    // At most five warnings of each kind (about a dozen kinds), and a count line for each.
    assert!(
        page.warnings.len() <= 200,
        "{} warnings",
        page.warnings.len()
    );
});
