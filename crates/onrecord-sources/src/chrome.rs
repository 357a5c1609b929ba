//! What a built site repeats across its pages, found and dropped once all are read: a
//! generator's copies of a page, the menus and footers a theme without landmarks puts on
//! every page, and a banner `<h1>` that would title every page.

use std::collections::{BTreeMap, BTreeSet};

use onrecord_core::{Page, SourceSection};
use sha2::{Digest, Sha256};

/// What [`drop_site_chrome`] dropped, for the build's report.
#[derive(Debug, Default)]
pub struct SiteChrome {
    /// Pages dropped as copies of another, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Blocks of the site's chrome (menus, footers on most pages), dropped from every page.
    pub blocks: Vec<String>,
    /// The banner heading (the first `<h1>` of most pages, so no page's title) and how many
    /// pages were titled by their own top heading or their `<title>` instead.
    pub banner: Option<(String, usize)>,
}

/// Drops, from the pages the HTML reader read from one site, what the site repeats: copies of
/// a page, then the blocks most whole-body pages share, then a banner title (each step below).
pub fn drop_site_chrome(pages: &mut Vec<Page>) -> SiteChrome {
    let skipped = drop_duplicates(pages);
    let blocks = drop_chrome_blocks(pages);
    let banner = retitle_banner_pages(pages);
    SiteChrome {
        skipped,
        blocks,
        banner,
    }
}

/// Keeps one of each set of built pages with the same content: generators copy a page to its
/// folder's `index.html` (mdBook's front page is its first chapter). The copy that is not an
/// `index.html` is kept, so the page keeps the URL its own links use. Returns the pages
/// dropped, with the reason.
fn drop_duplicates(pages: &mut Vec<Page>) -> Vec<(String, String)> {
    // A digest of the content (the title, then each section's heading path and blocks), so
    // that a large site's text is not held twice while its copies are found.
    let key = |page: &Page| -> [u8; 32] {
        let mut hash = Sha256::new();
        hash.update(page.doc.title.as_bytes());
        for s in &page.doc.sections {
            hash.update([1]);
            hash.update(s.heading_path.join("\u{1f}").as_bytes());
            for b in &s.blocks {
                hash.update([2]);
                hash.update(b.text.as_bytes());
            }
        }
        hash.finalize().into()
    };
    let is_index = |page: &Page| page.doc.path.rsplit('/').next() == Some("index.html");
    let mut skipped = Vec::new();
    let mut first: BTreeMap<[u8; 32], usize> = BTreeMap::new();
    let mut dropped = vec![false; pages.len()];
    for i in 0..pages.len() {
        let key = key(&pages[i]);
        let Some(&kept) = first.get(&key) else {
            first.insert(key, i);
            continue;
        };
        let (keep, drop) = if is_index(&pages[kept]) && !is_index(&pages[i]) {
            first.insert(key, i);
            (i, kept)
        } else {
            (kept, i)
        };
        dropped[drop] = true;
        skipped.push((
            pages[drop].doc.path.clone(),
            format!("the same content as {}", pages[keep].doc.path),
        ));
    }
    let mut i = 0;
    pages.retain(|_| {
        i += 1;
        !dropped[i - 1]
    });
    skipped
}

/// A block on at least this many pages, and on at least half of them, is the site's chrome.
const MIN_CHROME_PAGES: usize = 4;

/// Drops the blocks that most pages read from their whole `<body>` share word for word: on a
/// theme without `<main>`, `<article>` or landmark roles, the site's menus, breadcrumbs,
/// language pickers and footers come with every page, and they match any question and answer
/// none. A block on half such pages or more (and on at least `MIN_CHROME_PAGES`) is chrome; a
/// section left without blocks goes with it. Content a few pages repeat (a shared note) stays,
/// and so does anything inside a page's marked content, where a generator put only the page.
/// Returns the blocks dropped.
fn drop_chrome_blocks(pages: &mut [Page]) -> Vec<String> {
    let whole = pages.iter().filter(|p| p.whole_body).count();
    if whole < MIN_CHROME_PAGES {
        return Vec::new();
    }
    let mut on_pages: BTreeMap<&str, usize> = BTreeMap::new();
    for page in pages.iter().filter(|p| p.whole_body) {
        let mut seen = BTreeSet::new();
        for block in page.doc.sections.iter().flat_map(|s| &s.blocks) {
            if seen.insert(block.text.as_str()) {
                *on_pages.entry(block.text.as_str()).or_default() += 1;
            }
        }
    }
    let chrome: BTreeSet<String> = on_pages
        .into_iter()
        .filter(|&(_, n)| n >= MIN_CHROME_PAGES && 2 * n >= whole)
        .map(|(text, _)| text.to_owned())
        .collect();
    for page in pages.iter_mut().filter(|p| p.whole_body) {
        page.doc.sections.retain_mut(|section| {
            let had_blocks = !section.blocks.is_empty();
            section.blocks.retain(|b| !chrome.contains(&b.text));
            !had_blocks || !section.blocks.is_empty()
        });
    }
    chrome.into_iter().collect()
}

/// Retitles pages whose title, as the reader chose it, is the site's banner: a theme without
/// landmarks that opens every page with `<h1>Exim Internet Mailer</h1>` would otherwise cite
/// every page under that name. A title on half the whole-body pages or more (and on at least
/// `MIN_CHROME_PAGES`) is a banner. The page's own top heading takes its place when everything
/// on the page sits under it ("Chapter 54 - Exim utilities", then cited once, not again as a
/// section), else its `<title>`; a page with neither, or whose `<title>` is the banner too,
/// keeps it. Returns the banner and how many pages were retitled, when any was.
fn retitle_banner_pages(pages: &mut [Page]) -> Option<(String, usize)> {
    let whole = pages.iter().filter(|p| p.whole_body).count();
    let mut titled: BTreeMap<&str, usize> = BTreeMap::new();
    for page in pages.iter().filter(|p| p.whole_body) {
        *titled.entry(page.doc.title.as_str()).or_default() += 1;
    }
    let banner = titled
        .into_iter()
        .filter(|&(_, n)| n >= MIN_CHROME_PAGES && 2 * n >= whole)
        .max_by_key(|&(_, n)| n)
        .map(|(title, _)| title.to_owned())?;
    let mut retitled = 0;
    for page in pages
        .iter_mut()
        .filter(|p| p.whole_body && p.doc.title == banner)
    {
        if let Some(top) = common_top_heading(&page.doc.sections) {
            for section in &mut page.doc.sections {
                if !section.heading_path.is_empty() {
                    section.heading_path.remove(0);
                }
            }
            page.doc.title = top;
            retitled += 1;
        } else if let Some(head) = page.head_title.as_ref().filter(|h| **h != banner) {
            page.doc.title = head.clone();
            retitled += 1;
        }
    }
    (retitled > 0).then_some((banner, retitled))
}

/// The heading every section of a page sits under, when nothing comes before it.
fn common_top_heading(sections: &[SourceSection]) -> Option<String> {
    let mut top: Option<&String> = None;
    for section in sections {
        match section.heading_path.first() {
            None if section.blocks.is_empty() => {}
            None => return None,
            Some(first) if top.is_some_and(|t| t != first) => return None,
            Some(first) => top = Some(first),
        }
    }
    top.cloned()
}
