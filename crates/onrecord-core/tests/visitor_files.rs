//! Visitor files (issue 14): pathological shapes index in bounded time, long headings and
//! titles are shortened without losing their words, CR-only files are read line by line, and a
//! file with nothing to search is refused by name.

mod support;

use std::time::{Duration, Instant};

use onrecord_core::{
    AnswerConfig, Index, Lang, MAX_HEADING_CHARS, MAX_TITLE_CHARS, Mode, PlainError, PlainFile,
    ask, index_documents,
};
use support::invariants::check_answer;
use support::shapes::shapes;

fn index_of(text: &str) -> Result<Index, PlainError> {
    let files = [PlainFile {
        name: "notes.md".into(),
        text: text.into(),
    }];
    index_documents(&files, Lang::English)
}

/// The regression guard's bound per 2 MB file. Every shape takes well under a second in a
/// release build (`build-index/benches/visitor_files.rs` has the medians); `cargo test`
/// builds without optimisation, about ten times slower, on a CI machine that may be busy. The
/// quadratic reader this guards against took 40 s to over 300 s for some of these files in a
/// release build.
const BOUND: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(30)
} else {
    Duration::from_secs(3)
};

#[test]
fn two_megabytes_of_any_pathological_shape_index_in_bounded_time() {
    for (name, text) in shapes() {
        assert!(
            text.len() > 1_990_000 && text.len() <= onrecord_core::MAX_FILE_BYTES,
            "{name}"
        );
        let started = Instant::now();
        let res = index_of(&text);
        let took = started.elapsed();
        eprintln!("{name}: {took:?}");
        assert!(took < BOUND, "{name} took {took:?}");
        if let Ok(index) = res {
            check_answer(
                &index,
                &ask(
                    &index,
                    None,
                    "Can bikes be returned within 30 days?",
                    &AnswerConfig::DEFAULT,
                ),
            );
        }
    }
}

// Issue 14, item 4: a huge heading or title was copied and re-read for every fragment.
#[test]
fn long_titles_and_headings_are_shortened_and_their_words_kept() {
    let long = |word: &str| format!("{word} ").repeat(2_000);
    let text = format!(
        "# {}\n\n## {}\n\n{}\n\n### Plain\n\nLast words.\n",
        long("titleword"),
        long("headingword"),
        "Bikes can be returned within 30 days. ".repeat(200)
    );
    let index = index_of(&text).expect("indexes");
    assert!(index.fragments.len() > 5);
    let title = &index.docs[0].title;
    assert!(title.chars().count() <= MAX_TITLE_CHARS, "{}", title.len());
    assert!(
        title.starts_with("titleword titleword") && title.ends_with('…'),
        "{title}"
    );
    for f in &index.fragments {
        for h in &f.heading_path {
            assert!(h.chars().count() <= MAX_HEADING_CHARS, "{}", h.len());
        }
        assert!(f.anchor.chars().count() <= MAX_HEADING_CHARS);
    }
    let nested = index.fragments.last().expect("a fragment");
    assert_eq!(nested.heading_path.len(), 2);
    assert_eq!(nested.heading_path[1], "Plain");
    // Nothing is lost: the whole heading and title are text of their sections.
    let all: String = index.fragments.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(all.matches("headingword").count(), 2_000);
    assert_eq!(all.matches("titleword").count(), 2_000);
    let answer = ask(
        &index,
        None,
        "Can bikes be returned within 30 days?",
        &AnswerConfig::DEFAULT,
    );
    check_answer(&index, &answer);
    assert_eq!(answer.mode, Mode::Answer);
}

// A frontmatter title is held to the same limit, and its words are kept too.
#[test]
fn a_long_frontmatter_title_is_shortened_and_its_words_kept() {
    let title = "titleword ".repeat(2_000);
    let text = format!(
        "---\ntitle: {title}\n---\n\n## Returns\n\nBikes can be returned within 30 days.\n"
    );
    let index = index_of(&text).expect("indexes");
    let shown = &index.docs[0].title;
    assert!(shown.chars().count() <= MAX_TITLE_CHARS, "{}", shown.len());
    assert!(shown.starts_with("titleword titleword") && shown.ends_with('…'));
    let all: String = index.fragments.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(all.matches("titleword").count(), 2_000);
}

// Issue 14, item 7: classic Mac line endings used to make the whole file one heading line.
#[test]
fn cr_only_files_are_read_line_by_line() {
    let text = "# Notes\r## Returns\rBikes can be returned within 30 days.\r\r- helmets\r- locks\r";
    let index = index_of(text).expect("indexes");
    assert_eq!(index.docs[0].title, "Notes");
    assert_eq!(index.fragments.len(), 1);
    assert_eq!(index.fragments[0].heading_path, ["Returns"]);
    assert_eq!(
        index.fragments[0].text,
        "Bikes can be returned within 30 days.\n\nhelmets\nlocks"
    );
    let answer = ask(
        &index,
        None,
        "Can bikes be returned within 30 days?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::Answer);
    // Mixed endings are read the same way.
    let mixed = index_of(
        "# Notes\r\n## Returns\nBikes can be returned within 30 days.\r\r- helmets\r\n- locks",
    )
    .expect("indexes");
    assert_eq!(mixed.fragments[0].text, index.fragments[0].text);
}

// Issue 14, item 7: a file that yields nothing to search is an error that names it, never an
// empty index.
#[test]
fn a_file_with_nothing_to_search_is_refused_by_name() {
    for text in [
        "# Only a title",
        "# Title\r## Heading\r",
        "```\n```",
        "****",
        "[](x)",
    ] {
        let err = index_of(text).expect_err(text);
        assert_eq!(
            err,
            PlainError::NoText {
                name: "notes.md".into()
            },
            "{text:?}"
        );
        assert_eq!(
            err.to_string(),
            "notes.md has no text to search, only headings or markup"
        );
    }
}
