//! Page kinds told from structure, not names: release notes (many short entries under
//! version headings or citing changes) and listings (indexes, tables of contents, generated
//! command or API lists: many short entries and little prose). Such pages share words with
//! almost any question yet answer almost none, so they are not quoted unless a question asks
//! about versions or changes; they stay retrievable as related sections.

use crate::lang::{self, List};
use crate::question::Question;
use crate::source::{BlockKind, PageKind, SourceDoc};
use crate::text::tokens;

/// A page needs at least this many entries (list items, table rows) to be release notes...
const MIN_ENTRIES: usize = 25;
/// ...of which this share sits under a version heading or cites a change.
const CHANGE_SHARE: f32 = 0.5;
/// A listing has at least this many entries...
const MIN_LISTING_ENTRIES: usize = 40;
/// ...this share of them link-like (links only, or at most `SHORT_WORDS` words)...
const SHORT_SHARE: f32 = 0.75;
const SHORT_WORDS: usize = 6;
/// ...and prose paragraphs (more than `PROSE_WORDS` words) at most this share of all blocks.
const PROSE_SHARE: f32 = 0.1;
const PROSE_WORDS: usize = 12;

/// The kind of `doc`, from its structure alone.
pub fn page_kind(doc: &SourceDoc) -> PageKind {
    let (mut entries, mut changes, mut short, mut prose, mut blocks) = (0usize, 0, 0, 0, 0);
    for section in &doc.sections {
        let versioned = section
            .heading_path
            .iter()
            .any(|h| has_version(without_section_number(h)));
        for block in &section.blocks {
            blocks += 1;
            let lines: Vec<&str> = match block.kind {
                BlockKind::ListItem | BlockKind::LinkEntry => vec![block.text.as_str()],
                // A table's first line is its header, not an entry.
                BlockKind::Table => block.text.lines().skip(1).collect(),
                BlockKind::Paragraph | BlockKind::Quote => {
                    if tokens(&block.text).count() > PROSE_WORDS {
                        prose += 1;
                    }
                    continue;
                }
                _ => continue,
            };
            for line in lines {
                entries += 1;
                changes += usize::from(versioned || cites_change(line));
                short += usize::from(
                    block.kind == BlockKind::LinkEntry || tokens(line).count() <= SHORT_WORDS,
                );
            }
        }
    }
    if entries < MIN_ENTRIES {
        return PageKind::Page;
    }
    let share = |n: usize, of: usize| n as f32 / of.max(1) as f32;
    if share(changes, entries) >= CHANGE_SHARE {
        PageKind::ReleaseNotes
    } else if entries >= MIN_LISTING_ENTRIES
        && share(short, entries) >= SHORT_SHARE
        && share(prose, blocks) <= PROSE_SHARE
    {
        PageKind::Listing
    } else {
        PageKind::Page
    }
}

/// Whether `text` has a version number: digits joined by at least two dots or dashes
/// ("1.2.0", "2024-05-01"), a "v" and a number ("v2", "v0.3"), or a number after the word
/// "version" ("Version 26.10"). One dot alone is too common (prices, sizes) to count.
fn has_version(text: &str) -> bool {
    let mut after_version_word = false;
    for raw in text
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | ':'))
    {
        let word = raw.trim_end_matches(['.', '?', '!']);
        let digits = word.strip_prefix(['v', 'V']).unwrap_or(word);
        let numeric = digits.starts_with(|c: char| c.is_ascii_digit())
            && digits
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            && !digits.contains("..");
        let separators = digits.matches(['.', '-']).count();
        if numeric && (separators >= 2 || digits.len() < word.len() || after_version_word) {
            return true;
        }
        after_version_word = word.eq_ignore_ascii_case("version");
    }
    false
}

/// Whether a list entry cites a change the way release notes do: an issue or pull request
/// number ("#1234", "(#5481)") or a version.
fn cites_change(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'#' && w[1].is_ascii_digit())
        || has_version(without_section_number(line))
}

/// `text` without a leading section number ("16.2.7 Changing Directories", "3.1.2. Usage"):
/// numbered manuals (texinfo, numbered Sphinx) head every section so, and such a number is
/// not a version. A number alone, before a date or before a word for a release stays
/// ("1.2.0", "1.2.0 (2024-05-01)", "2.0.0 Release notes").
fn without_section_number(text: &str) -> &str {
    let trimmed = text.trim_start();
    let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    let (number, rest) = trimmed.split_at(end);
    let is_number = number
        .trim_end_matches('.')
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let title = rest.trim_start();
    let first = title.split_whitespace().next().unwrap_or("").to_lowercase();
    let names_release = matches!(
        first.as_str(),
        "release" | "released" | "unreleased" | "changes" | "changelog"
    );
    if is_number && title.starts_with(char::is_alphabetic) && !names_release {
        title
    } else {
        text
    }
}

/// Whether a question asks about versions, releases or changes, so release notes may answer.
pub fn asks_about_changes(question: &Question) -> bool {
    has_version(question.text())
        || question
            .words()
            .iter()
            .any(|w| lang::in_any(List::ChangeWords, w))
}

/// Whether a sentence is a version note inside a page: Sphinx's "Changed in version 0.10: …",
/// "New in version 2.0." and "Deprecated since version 2.2: …" (and their German forms). Like
/// release notes, such a note answers a question about versions or changes, not about how
/// things are now.
pub(crate) fn is_change_note(sentence: &str) -> bool {
    let start = sentence.trim_start();
    lang::find_phrase(List::ChangeNotes, |o| {
        start
            .get(..o.len())
            .filter(|head| head.eq_ignore_ascii_case(o))
    })
    .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{Block, SourceSection};
    use crate::text::Lang;

    fn doc(sections: Vec<(Vec<&str>, Vec<Block>)>) -> SourceDoc {
        SourceDoc {
            path: "p.md".into(),
            url: "/p/".into(),
            title: "P".into(),
            lang: Lang::English,
            themes: vec![],
            collection: None,
            sections: sections
                .into_iter()
                .map(|(path, blocks)| SourceSection {
                    heading_path: path.into_iter().map(str::to_owned).collect(),
                    anchor: String::new(),
                    blocks,
                })
                .collect(),
        }
    }

    fn item(text: &str) -> Block {
        Block {
            kind: BlockKind::ListItem,
            text: text.into(),
        }
    }

    #[test]
    fn version_notes_are_told_by_their_opening() {
        assert!(is_change_note(
            "Changed in version 0.10: The default port is now picked from SERVER_NAME."
        ));
        assert!(is_change_note("New in version 2.0."));
        assert!(is_change_note(
            "Deprecated since version 2.2: Use the session instead."
        ));
        assert!(is_change_note(
            "Geändert in Version 3.1: Der Standard ist jetzt 5000."
        ));
        assert!(!is_change_note(
            "The port changed in version 0.10 of the server."
        ));
        assert!(!is_change_note("New"));
    }

    #[test]
    fn release_notes_are_many_entries_under_versions_or_citing_changes() {
        let notes = doc((0..6)
            .map(|v| {
                (
                    vec!["Changelog"],
                    (0..6)
                        .map(|i| item(&format!("Fix a crash in the parser ({i}) (#{v}{i}42)")))
                        .collect(),
                )
            })
            .collect());
        assert_eq!(page_kind(&notes), PageKind::ReleaseNotes);
        let versioned = doc(vec![(
            vec!["Version 26.10.1", "Stable style"],
            (0..30).map(|_| item("Keep lines unchanged")).collect(),
        )]);
        assert_eq!(page_kind(&versioned), PageKind::ReleaseNotes);
    }

    #[test]
    fn section_numbers_are_not_versions() {
        // A numbered manual's option list: 30 entries under "16.2.7 Changing Directories".
        let options = doc(vec![(
            vec!["16 Options", "16.2.7 Changing Directories"],
            (0..30)
                .map(|i| {
                    item(&format!(
                        "OPTION_{i}: change to the directory named by the word"
                    ))
                })
                .collect(),
        )]);
        assert_eq!(page_kind(&options), PageKind::Page);
        assert_eq!(without_section_number("3.1.2. Usage notes"), "Usage notes");
        for version in [
            "1.2.0",
            "1.2.0 (2024-05-01)",
            "2.0.0 Release notes",
            "v1.2.3 Fixes",
        ] {
            assert_eq!(without_section_number(version), version);
        }
        assert!(has_version(without_section_number("1.2.0 (2024-05-01)")));
    }

    #[test]
    fn listings_are_many_short_entries_and_little_prose() {
        let table = (0..40)
            .map(|i| format!("kw{i} | [items]"))
            .collect::<Vec<_>>()
            .join("\n");
        let listing = doc(vec![(
            vec!["Keywords"],
            vec![Block {
                kind: BlockKind::Table,
                text: format!("Symbol | Usage\n{table}"),
            }],
        )]);
        assert_eq!(page_kind(&listing), PageKind::Listing);
        // An index whose entries are links, however long each line.
        let index = doc(vec![(
            vec!["R"],
            (0..40)
                .map(|i| Block {
                    kind: BlockKind::LinkEntry,
                    text: format!(
                        "option_{i}: Generic options for transports, Some common configuration settings"
                    ),
                })
                .collect(),
        )]);
        assert_eq!(page_kind(&index), PageKind::Listing);
    }

    #[test]
    fn prose_pages_and_short_lists_stay_pages() {
        let guide = doc(vec![(
            vec!["Returns"],
            (0..40)
                .map(|i| {
                    Block::paragraph(format!(
                        "Paragraph {i} explains in plenty of words how the returns process works for every bike."
                    ))
                })
                .chain((0..30).map(|i| item(&format!("Step {i}: pack the bike"))))
                .collect(),
        )]);
        assert_eq!(page_kind(&guide), PageKind::Page);
        let short = doc(vec![(
            vec!["v1.2"],
            (0..10).map(|_| item("Fix (#12)")).collect(),
        )]);
        assert_eq!(page_kind(&short), PageKind::Page);
    }

    #[test]
    fn questions_about_changes() {
        assert!(asks_about_changes(&Question::new(
            "In which version was --cache-dir added?"
        )));
        assert!(asks_about_changes(&Question::new(
            "Does 26.10.1 support Python 3.15?"
        )));
        assert!(!asks_about_changes(&Question::new(
            "Is the Wren 19.90 a kilo lighter?"
        )));
        assert!(asks_about_changes(&Question::new(
            "What changed in the last release?"
        )));
        assert!(!asks_about_changes(&Question::new(
            "How do I exclude a folder?"
        )));
        assert!(!asks_about_changes(&Question::new(
            "Can I return my bike if I change my mind?"
        )));
    }

    #[test]
    fn versions_are_numbers_with_dots_or_a_v() {
        assert!(has_version("Version 26.10.1"));
        assert!(has_version("v2 API"));
        assert!(has_version("2024-05-01"));
        assert!(has_version("Fixed in version 3"));
        assert!(!has_version("EUR 19.90 per year"));
        assert!(!has_version("Step 2: ship it"));
        assert!(!has_version("x86_64 and value1.5x"));
    }
}
