//! A built HTML site as the corpus (issue 12, "HTML input"): detection, URLs, content selection
//! across the site, opt-outs, generator copies, and private notes kept as a markdown folder
//! beside the site.

use std::fs;
use std::path::Path;

use build_index::{Input, Options, build};
use onrecord_core::{AnswerConfig, Mode, ask};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn fragment_texts(index: &onrecord_core::Index) -> Vec<&str> {
    index.fragments.iter().map(|f| f.text.as_str()).collect()
}

fn assert_in_none(texts: &[&str], words: &[&str]) {
    for word in words {
        assert!(
            texts.iter().all(|t| !t.contains(word)),
            "{word:?} in {texts:?}"
        );
    }
}

fn page(title: &str, main: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title} - Ferry Guide</title></head><body>\
         <nav class=\"sidebar\"><a href=\"/\">Timetable overview and every crossing</a></nav>\
         <header>Ferry Guide: the islands' boats since 1950</header>\
         <main>{main}</main>\
         <footer>Copyright the ferry company, all rights reserved</footer></body></html>"
    )
}

#[test]
fn a_built_site_is_read_as_served() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "index.html",
        &page(
            "Home",
            "<h1>Ferry Guide</h1><p>Boats leave the harbour every hour.</p>",
        ),
    );
    let tickets = page(
        "Tickets",
        "<h1 id=\"tickets\">Tickets</h1><p>Buy tickets at the pier.</p>\
         <section id=\"refunds\"><h2>Refunds</h2><p>Refunds arrive within fourteen days.</p></section>",
    );
    write(root, "guide/tickets.html", &tickets);
    // A generator's copy of a page as its folder's index.
    write(root, "guide/index.html", &tickets);
    write(root, "404.html", &page("Not found", "<p>No such page.</p>"));
    write(
        root,
        "draft.html",
        "<html><head><meta name=\"onrecord\" content=\"noindex\"></head><body><p>Draft.</p></body></html>",
    );
    write(
        root,
        "print.html",
        "<html><body data-onrecord-ignore><p>All pages at once.</p></body></html>",
    );
    write(root, "style.css", "body { color: black }");
    // Private notes stay markdown beside the site; a stray markdown file is not a page.
    write(
        root,
        "private/crew.md",
        "---\ntitle: Crew rota\nabout: /guide/tickets.html\nlocator: Binder 2\nkeywords: [rota, crew]\n---\nThe crew rota is secret.\n",
    );
    write(root, "README.md", "# Notes on this site\n\nNot a page.\n");

    let built = build(root, &Options::standard()).unwrap();
    let report = &built.report;
    assert_eq!(report.input, Input::Html);
    assert_eq!(report.pages_indexed, 2);
    let skipped: Vec<(&str, &str)> = report
        .pages_skipped
        .iter()
        .map(|(p, why)| (p.as_str(), why.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("404.html", "a 404 page"),
            ("draft.html", "<meta name=\"onrecord\" content=\"noindex\">"),
            ("print.html", "data-onrecord-ignore on <body>"),
            ("guide/index.html", "the same content as guide/tickets.html"),
        ]
    );
    assert_eq!(report.private_notes, 1);
    assert_eq!(
        report.warnings,
        ["1 markdown file ignored: this folder is read as a built HTML site"]
    );
    let urls: Vec<(&str, &str)> = built
        .index
        .docs
        .iter()
        .map(|d| (d.url.as_str(), d.title.as_str()))
        .collect();
    assert_eq!(
        urls,
        [("/guide/tickets.html", "Tickets"), ("/", "Ferry Guide")]
    );
    let all = fragment_texts(&built.index);
    assert_in_none(
        &all,
        &[
            "Timetable overview",
            "since 1950",
            "Copyright",
            "Not a page",
        ],
    );

    let answer = ask(
        &built.index,
        None,
        "When do refunds arrive?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::Answer);
    assert_eq!(answer.quotes[0].citation.url, "/guide/tickets.html#refunds");
    let answer = ask(
        &built.index,
        None,
        "Who is on the crew rota?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::RelatedMaterial, "{answer:?}");
    assert_eq!(answer.hints[0].label, "Crew rota");
}

#[test]
fn marked_content_anywhere_limits_every_page_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "a.html",
        "<body><main><p>Menu text.</p><div data-onrecord-body><p>Marked text.</p></div></main></body>",
    );
    write(
        root,
        "b.html",
        "<body><main><p>Unmarked page.</p></main></body>",
    );
    let built = build(root, &Options::standard()).unwrap();
    assert_eq!(built.report.pages_indexed, 1);
    assert_eq!(built.report.pages_skipped[0].0, "b.html");
    let texts: Vec<&str> = built
        .index
        .fragments
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(texts, ["Marked text."]);
}

#[test]
fn a_markdown_folder_with_an_html_file_stays_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", "# A\n\nMarkdown text.\n");
    write(root, "b.md", "# B\n\nMore markdown.\n");
    write(root, "partial.html", "<p>A template partial.</p>");
    let built = build(root, &Options::standard()).unwrap();
    assert_eq!(built.report.input, Input::Markdown);
    assert_eq!(built.report.pages_indexed, 2);
    assert_eq!(
        built.report.warnings,
        ["1 .html file ignored: this folder is read as markdown"]
    );
}

/// An older theme: no `<main>`, `<article>` or landmark roles, so the body is read, and its
/// menu, breadcrumb and footer come with every page.
fn themeless_page(main: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Ferry Guide</title></head><body>\
         <div id=\"top\"><p class=\"menu\">Timetable | Tickets | Harbours | Contact</p>\
         <p>Ferry Guide, version 2.4 &gt; Harbours</p></div>\
         <div id=\"content\">{main}</div>\
         <div id=\"bottom\"><p>Copyright the ferry company. Questions about this site: write to the harbour office.</p></div>\
         </body></html>"
    )
}

#[test]
fn blocks_on_most_pages_of_a_built_site_are_its_chrome() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let shared_note = "<p>Boats do not sail in a storm warning.</p>";
    let pages = [
        (
            "timetable.html",
            format!("<h1>Timetable</h1><p>The first boat leaves at six.</p>{shared_note}"),
        ),
        (
            "tickets.html",
            format!("<h1>Tickets</h1><p>Tickets are sold at the pier.</p>{shared_note}"),
        ),
        (
            "harbours.html",
            "<h1>Harbours</h1><p>Every harbour has a waiting room.</p>".to_owned(),
        ),
        (
            "contact.html",
            "<h1>Contact</h1><p>The harbour office answers letters within a week.</p>".to_owned(),
        ),
        (
            "bikes.html",
            "<h1>Bikes</h1><p>Bikes ride free on every crossing.</p>".to_owned(),
        ),
    ];
    for (rel, main) in &pages {
        write(root, rel, &themeless_page(main));
    }
    let built = build(root, &Options::standard()).unwrap();
    assert_eq!(built.report.pages_indexed, 5);
    let all = fragment_texts(&built.index);
    assert_in_none(&all, &["Timetable | Tickets", "version 2.4", "Copyright"]);
    // Two pages of five sharing a note is content, not chrome; every page keeps its own text.
    assert_eq!(
        all.iter().filter(|f| f.contains("storm warning")).count(),
        2
    );
    for (_, main) in &pages {
        let own = main
            .split("<p>")
            .nth(1)
            .unwrap()
            .split("</p>")
            .next()
            .unwrap();
        assert!(all.iter().any(|f| f.contains(own)), "{own:?} lost: {all:?}");
    }
    assert_eq!(built.report.chrome.len(), 3, "{:?}", built.report.chrome);
    // Each page's <h1> names it (their shared <title> does not): no banner.
    assert!(built.report.banner.is_none());
    assert!(built.index.docs.iter().any(|d| d.title == "Timetable"));
    let report = built.report.to_string();
    assert!(
        report.contains("site chrome       3 blocks on most pages (menus, footers), not indexed"),
        "{report}"
    );

    // Before, every fragment held the footer, which names the harbour office too.
    let answer = ask(
        &built.index,
        None,
        "How soon does the harbour office answer letters?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::Answer, "{answer:?}");
    assert_eq!(answer.quotes[0].citation.url, "/contact.html");

    // Inside a page's marked content a generator put only the page: a note every page
    // repeats there is content ("Requires Python 3.8" may be the answer).
    let marked = tempfile::tempdir().unwrap();
    for (rel, main) in &pages {
        let main = format!("{main}<p>Every crossing requires a ticket.</p>");
        write(marked.path(), rel, &page("Ferry", &main));
    }
    let built = build(marked.path(), &Options::standard()).unwrap();
    assert!(built.report.chrome.is_empty());
    let with_note = built.index.fragments.iter();
    assert_eq!(
        with_note
            .filter(|f| f.text.contains("requires a ticket"))
            .count(),
        5
    );

    // Below four pages nothing is chrome: three pages can share a paragraph on purpose.
    let small = tempfile::tempdir().unwrap();
    for (rel, main) in pages.iter().take(3) {
        write(small.path(), rel, &themeless_page(main));
    }
    let built = build(small.path(), &Options::standard()).unwrap();
    assert!(built.report.chrome.is_empty());
    assert!(
        built
            .index
            .fragments
            .iter()
            .any(|f| f.text.contains("Copyright"))
    );
}

#[test]
fn theme_assets_and_excluded_folders_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "index.html",
        &page("Home", "<h1>Ferry Guide</h1><p>Boats leave every hour.</p>"),
    );
    write(
        root,
        "old/v1/index.html",
        &page(
            "Home",
            "<h1>Ferry Guide 1</h1><p>Boats leave every other hour.</p>",
        ),
    );
    // A Sphinx theme's vendored font ships its own read-me page.
    write(
        root,
        "_static/fonts/serif/ReadMe.html",
        "<html><body><h1>Read Me File for OpenType Fonts</h1>\
         <p>Thank you for licensing these fonts.</p></body></html>",
    );
    let options = Options {
        exclude: vec!["old/".into(), "archive".into()],
        ..Options::standard()
    };
    let built = build(root, &options).unwrap();
    assert_eq!(built.report.pages_indexed, 1, "{}", built.report);
    assert_in_none(&fragment_texts(&built.index), &["other hour", "licensing"]);
    let report = built.report.to_string();
    assert!(
        report.contains("old/v1/index.html: excluded (old/)")
            && report.contains(
                "_static/fonts/serif/ReadMe.html: a theme's asset file (Sphinx's _static/)"
            ),
        "{report}"
    );
    // A rule that matches nothing is a typo the owner hears about.
    assert!(
        built
            .report
            .warnings
            .iter()
            .any(|w| w.starts_with("exclude 'archive' matches no file or folder")),
        "{:?}",
        built.report.warnings
    );
    // A folder's name is matched whole: "old" does not exclude "older.html".
    write(
        root,
        "older.html",
        &page("Older", "<h1>Older boats</h1><p>Kept in the museum.</p>"),
    );
    let built = build(root, &options).unwrap();
    assert_eq!(built.report.pages_indexed, 2, "{}", built.report);
    // Wildcards: a generator's print copies at any depth.
    write(
        root,
        "guide/tickets/print.html",
        &page(
            "Print",
            "<h1>Tickets</h1><p>Printable timetable of every boat.</p>",
        ),
    );
    let options = Options {
        exclude: vec!["old".into(), "**/print.html".into()],
        ..Options::standard()
    };
    let built = build(root, &options).unwrap();
    assert_eq!(built.report.pages_indexed, 2, "{}", built.report);
    assert!(
        built
            .report
            .to_string()
            .contains("guide/tickets/print.html: excluded (**/print.html)"),
        "{}",
        built.report
    );
}

#[test]
fn a_banner_heading_on_most_pages_is_no_pages_title() {
    // A theme without landmarks opens every page with the site's name as its <h1>; the
    // page's own name is in its <title> and an <h2>.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let chapters = ["Timetable", "Tickets", "Harbours", "Contact", "Bikes"];
    for (i, chapter) in chapters.iter().enumerate() {
        write(
            root,
            &format!("ch{i}.html"),
            &format!(
                "<html><head><title>{i}. {chapter}</title></head><body>\
                 <h1 id=\"header\">Ferry Line Mailer</h1>\
                 <h2>Chapter {i} - {chapter}</h2><p>All about {chapter} on the island boats.</p>\
                 </body></html>"
            ),
        );
    }
    // A page with text before its own heading is titled by its <title>.
    write(
        root,
        "about.html",
        "<html><head><title>About the line</title></head><body>\
         <h1 id=\"header\">Ferry Line Mailer</h1><p>Run by islanders since 1921.</p>\
         <h2>History</h2><p>The first boat sailed from the north harbour.</p></body></html>",
    );
    let built = build(root, &Options::standard()).unwrap();
    let titles: Vec<&str> = built.index.docs.iter().map(|d| d.title.as_str()).collect();
    for (i, chapter) in chapters.iter().enumerate() {
        // The page's own heading, cited once: no section repeats it.
        assert!(
            titles.contains(&format!("Chapter {i} - {chapter}").as_str()),
            "{titles:?}"
        );
    }
    assert!(titles.contains(&"About the line"), "{titles:?}");
    assert!(
        built
            .index
            .fragments
            .iter()
            .all(|f| f.heading_path.iter().all(|h| !h.starts_with("Chapter"))),
        "a section still repeats its page's title"
    );
    let report = built.report.to_string();
    assert!(
        report.contains(
            "banner heading    \"Ferry Line Mailer\" opens most pages: 6 titled by their own heading or <title> instead"
        ),
        "{report}"
    );
}
