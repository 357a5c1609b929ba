//! The HTML reader on deep and misnested pages (issue 43): the input is a piece of tag soup
//! repeated up to 50,000 times around a sentence, then a closing piece as often. Reading never
//! panics, and its time stays linear (run with `-timeout=10`: 100,000 nested `<div>` once took
//! over 120 s).
#![no_main]

use libfuzzer_sys::fuzz_target;
use onrecord_core::{Lang, Read, Reader};
use onrecord_sources::HtmlReader;

fuzz_target!(|data: &[u8]| {
    // [count: 2 bytes] open-piece 0xFF close-piece 0xFF rest of the page.
    let (count, data) = match data {
        [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])) % 50_001, rest),
        _ => (0, data),
    };
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\u{fffd}');
    let open = parts.next().unwrap_or_default();
    let close = parts.next().unwrap_or_default();
    let rest = parts.next().unwrap_or_default();
    let page = format!(
        "<html><body>{}<p>The sentence at the bottom.</p>{}{rest}</body></html>",
        open.repeat(count),
        close.repeat(count)
    );
    let reader = HtmlReader {
        default_lang: Lang::English,
        body_marked: false,
    };
    match reader.read("page.html", &page) {
        Ok(Read::Page(page)) => assert!(!page.doc.title.is_empty()),
        Ok(_) => {}
        Err(e) => assert!(e.to_string().contains("page.html"), "{e}"),
    }
});
