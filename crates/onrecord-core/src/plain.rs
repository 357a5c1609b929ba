//! "Your documents": a visitor's own `.md`/`.txt` files, indexed in the browser.
//!
//! `build-index` parses markdown with pulldown-cmark; shipping that to the browser would cost
//! wasm size, so this is a small line-based reader that knows ATX headings (`#`), paragraphs,
//! list items, block quotes and fenced code — enough for notes and READMEs. It takes any
//! string and never panics, and its time is linear in the file's size (a dropped file is
//! indexed in the page, so a slow one would hang the widget). [`index_documents`] checks the
//! files and builds an [`Index`].

use std::collections::BTreeMap;
use std::fmt;

use crate::bm25::IndexBuilder;
use crate::chunk::{
    Block, BlockKind, MAX_HEADING_CHARS, MAX_TITLE_CHARS, SourceDoc, SourceSection, chunk, shorten,
};
use crate::format::{Index, IndexSettings};
use crate::source::{Page, Read, ReadError, Reader};
use crate::text::{Lang, join};

/// At most this many bytes per file (a large book is ~1 MB; more would stall the page).
pub const MAX_FILE_BYTES: usize = 2_000_000;
/// At most this many files at once.
pub const MAX_FILES: usize = 50;

/// One file the visitor dropped: its name and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct PlainFile {
    /// The file name as the visitor's system gave it.
    pub name: String,
    /// The file's text.
    pub text: String,
}

/// Why dropped files could not be indexed. Each variant names the file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PlainError {
    /// No files were given.
    NoFiles,
    /// More files than [`MAX_FILES`].
    TooManyFiles {
        /// How many were given.
        count: usize,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    TooLarge {
        /// The file name.
        name: String,
        /// Its size in bytes.
        bytes: usize,
    },
    /// The file has no text other than whitespace.
    Empty {
        /// The file name.
        name: String,
    },
    /// The file looks binary (NUL bytes or undecodable bytes).
    Binary {
        /// The file name.
        name: String,
    },
    /// The file has headings or markup but no text to search.
    NoText {
        /// The file name.
        name: String,
    },
}

impl fmt::Display for PlainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlainError::NoFiles => f.write_str("no files to index"),
            PlainError::TooManyFiles { count } => {
                write!(f, "{count} files is too many: at most {MAX_FILES} at once")
            }
            PlainError::TooLarge { name, bytes } => write!(
                f,
                "{name} is {bytes} bytes: files of at most {MAX_FILE_BYTES} bytes can be indexed"
            ),
            PlainError::Empty { name } => write!(f, "{name} is empty"),
            PlainError::Binary { name } => {
                write!(f, "{name} is not a text file (it holds binary data)")
            }
            PlainError::NoText { name } => {
                write!(f, "{name} has no text to search, only headings or markup")
            }
        }
    }
}

impl std::error::Error for PlainError {}

/// Checks the files, parses each and builds an index of them. Pages get no URL: they live
/// only in this page's memory, so citations name them but cannot link to them.
pub fn index_documents(files: &[PlainFile], lang: Lang) -> Result<Index, PlainError> {
    if files.is_empty() {
        return Err(PlainError::NoFiles);
    }
    if files.len() > MAX_FILES {
        return Err(PlainError::TooManyFiles { count: files.len() });
    }
    let settings = IndexSettings::STANDARD;
    let mut builder = IndexBuilder::new(lang, settings);
    for file in files {
        check(file)?;
        let doc = parse(&file.name, &file.text, lang);
        let drafts = chunk(&doc, settings.fragment_chars as usize);
        if drafts.is_empty() {
            return Err(PlainError::NoText {
                name: file.name.clone(),
            });
        }
        builder.add(&doc, &drafts);
    }
    Ok(builder.finish())
}

fn check(file: &PlainFile) -> Result<(), PlainError> {
    let name = || file.name.clone();
    if file.text.len() > MAX_FILE_BYTES {
        return Err(PlainError::TooLarge {
            name: name(),
            bytes: file.text.len(),
        });
    }
    // Browsers decode files leniently: binary data shows up as NULs and U+FFFD replacements.
    let suspicious = file
        .text
        .chars()
        .filter(|&c| c == '\0' || c == '\u{FFFD}')
        .count();
    if file.text.contains('\0') || suspicious * 100 > file.text.chars().count() {
        return Err(PlainError::Binary { name: name() });
    }
    if file.text.trim().is_empty() {
        return Err(PlainError::Empty { name: name() });
    }
    Ok(())
}

/// Reads one file into a document. The title is the frontmatter's `title`, else the first `#`
/// heading, else the file name (as in the markdown reader; `onrecord-sources`'
/// `tests/conformance.rs` lists where the two readers may differ).
/// A title or heading longer than [`MAX_TITLE_CHARS`] / [`MAX_HEADING_CHARS`] is shortened, and
/// its whole text starts the section's text, so no word of it is lost.
pub(crate) fn parse(name: &str, text: &str, lang: Lang) -> SourceDoc {
    let (fm_title, text) = frontmatter(text);
    let mut sections = vec![SourceSection {
        heading_path: Vec::new(),
        anchor: String::new(),
        blocks: Vec::new(),
    }];
    let fm_title = fm_title.map(|full| {
        let short = shorten(&full, MAX_TITLE_CHARS).into_owned();
        if short != full {
            push(&mut sections, Block::paragraph(full));
        }
        short
    });
    // Heading levels and texts from the outermost to the current one.
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut title: Option<String> = None;
    let mut paragraph: Vec<&str> = Vec::new();
    let mut fence: Option<(char, usize, Vec<&str>)> = None;
    // Slugs given so far, with how often: a repeated heading gets `-1`, `-2`, as on the site.
    let mut slugs: BTreeMap<String, u32> = BTreeMap::new();

    for line in lines(text) {
        if let Some((ch, len, code)) = &mut fence {
            // A closing fence is only fence characters.
            let closes = line.trim().chars().all(|c| c == *ch);
            if closes && is_fence(line).is_some_and(|(c, n)| c == *ch && n >= *len) {
                let block = Block {
                    kind: BlockKind::Code,
                    text: join(code, "\n").trim_end().to_owned(),
                };
                push(&mut sections, block);
                fence = None;
            } else {
                code.push(line);
            }
            continue;
        }
        let trimmed = line.trim();
        if let Some((ch, len)) = is_fence(line) {
            flush(&mut sections, &mut paragraph);
            fence = Some((ch, len, Vec::new()));
        } else if let Some((level, heading)) = heading(trimmed) {
            flush(&mut sections, &mut paragraph);
            let full = inline(heading);
            // The first level-1 heading before any other is the title, not a section (as in
            // build-index).
            let is_title = level == 1 && title.is_none() && path.is_empty();
            let max = if is_title {
                MAX_TITLE_CHARS
            } else {
                MAX_HEADING_CHARS
            };
            let short = shorten(&full, max).into_owned();
            let shortened = short != full;
            if is_title {
                title = Some(short);
            } else {
                while path.last().is_some_and(|(l, _)| *l >= level) {
                    path.pop();
                }
                sections.push(SourceSection {
                    heading_path: path
                        .iter()
                        .map(|(_, h)| h.clone())
                        .chain([short.clone()])
                        .collect(),
                    anchor: unique(&mut slugs, slug(&short)),
                    blocks: Vec::new(),
                });
                path.push((level, short.clone()));
            }
            if shortened {
                push(&mut sections, Block::paragraph(full));
            }
        } else if trimmed.is_empty() {
            flush(&mut sections, &mut paragraph);
        } else if let Some(item) = list_item(trimmed) {
            flush(&mut sections, &mut paragraph);
            push(
                &mut sections,
                Block {
                    kind: BlockKind::ListItem,
                    text: inline(item),
                },
            );
        } else if let Some(quoted) = trimmed.strip_prefix('>') {
            flush(&mut sections, &mut paragraph);
            push(
                &mut sections,
                Block {
                    kind: BlockKind::Quote,
                    text: inline(quoted),
                },
            );
        } else {
            paragraph.push(trimmed);
        }
    }
    // An unclosed fence runs to the end of the file, as in CommonMark.
    if let Some((_, _, code)) = fence {
        let block = Block {
            kind: BlockKind::Code,
            text: join(&code, "\n").trim_end().to_owned(),
        };
        push(&mut sections, block);
    }
    flush(&mut sections, &mut paragraph);
    sections.retain(|s| !s.blocks.is_empty());

    let file = name.rsplit('/').next().unwrap_or(name);
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    SourceDoc {
        path: name.to_owned(),
        url: String::new(),
        title: fm_title
            .or(title)
            .unwrap_or_else(|| shorten(stem, MAX_TITLE_CHARS).into_owned()),
        lang,
        themes: Vec::new(),
        collection: None,
        sections,
    }
}

/// The lines of `text` without their endings: `\n`, `\r\n` or a lone `\r` (classic Mac
/// files; `str::lines` would see one line).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        let Some(end) = s.find(['\r', '\n']) else {
            rest = None;
            return Some(s);
        };
        let ending = if s.get(end..)?.starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = s.get(end + ending..);
        s.get(..end)
    })
}

/// The anchor slug GitHub-style renderers give a heading, the one definition the readers
/// share: lowercase, spaces to `-`, only alphanumerics, `-` and `_` kept.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A leading YAML frontmatter block (`---` … `---`): its `title` and the text after it.
fn frontmatter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut offset = 0;
    let mut title = None;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        let line = line.trim_end();
        if line == "---" || line == "..." {
            return (title, rest.get(offset..).unwrap_or_default());
        }
        if let Some(value) = line.strip_prefix("title:") {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            title = (!value.is_empty()).then(|| value.to_owned());
        }
    }
    // Never closed: not frontmatter.
    (None, text)
}

/// `slug`, or `slug-N` when it was given N times before. A map, not a list: a file of many
/// headings would otherwise compare each with all before it.
fn unique(slugs: &mut BTreeMap<String, u32>, slug: String) -> String {
    match slugs.get_mut(&slug) {
        Some(count) => {
            *count = count.saturating_add(1);
            format!("{slug}-{}", *count - 1)
        }
        None => {
            slugs.insert(slug.clone(), 1);
            slug
        }
    }
}

fn push(sections: &mut [SourceSection], block: Block) {
    if block.text.trim().is_empty() {
        return;
    }
    if let Some(section) = sections.last_mut() {
        section.blocks.push(block);
    }
}

fn flush(sections: &mut [SourceSection], paragraph: &mut Vec<&str>) {
    if paragraph.is_empty() {
        return;
    }
    // A pipe table: a header row, a delimiter row, then body rows, one line each.
    if paragraph.len() >= 2 && is_delimiter_row(paragraph[1]) {
        let rows: Vec<String> = paragraph
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, row)| table_cells(row).join(crate::source::CELL_SEPARATOR))
            .collect();
        paragraph.clear();
        let block = Block {
            kind: BlockKind::Table,
            text: rows.join("\n"),
        };
        push(sections, block);
        return;
    }
    let text = inline(&join(paragraph, " "));
    paragraph.clear();
    push(sections, Block::paragraph(text));
}

/// A table's delimiter row, `|---|:---:|`.
fn is_delimiter_row(line: &str) -> bool {
    // A pipe is required: `---` under a line is a heading underline, not a table.
    line.contains('|')
        && line.contains('-')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// A table row's cells, as inline text.
fn table_cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').map(|cell| inline(cell.trim())).collect()
}

/// `#`–`######` followed by a space (or nothing): the level and the heading text.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = line.get(level..)?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    // A closing run of `#` is decoration.
    let text = rest.trim().trim_end_matches('#').trim_end();
    (!text.is_empty()).then_some((level, text))
}

/// A fence line: three or more backticks or tildes, possibly indented by up to three spaces.
fn is_fence(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line.trim_start_matches(' ');
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|&c| c == ch).count();
    (len >= 3).then_some((ch, len))
}

/// The text of a list item line (`-`, `*`, `+` or `1.`/`1)` followed by a space).
fn list_item(line: &str) -> Option<&str> {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return Some(rest);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = line.get(digits..)?;
    rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "))
}

/// Inline markup to plain text: `[text](url)` keeps the text; images, emphasis markers and
/// backticks go.
///
/// One pass: a link's label ends at the first `](` and has no `[`, so the search for `](` stops
/// at the next `[`; and once no `)` follows, none will, so later `[` are plain text at once.
fn inline(text: &str) -> String {
    let text = &join(
        &drop_emphasis(&drop_images(text))
            .split_whitespace()
            .collect::<Vec<_>>(),
        " ",
    );
    let mut out = String::with_capacity(text.len());
    let mut rest = text.trim();
    let mut closes = true;
    while let Some(open) = rest.find('[') {
        out.push_str(rest.get(..open).unwrap_or_default());
        let after = rest.get(open + 1..).unwrap_or_default();
        let label_end = after.find('[').unwrap_or(after.len());
        let link = after
            .get(..label_end)
            .and_then(|label| label.find("]("))
            .filter(|_| closes)
            .and_then(|mid| {
                let target = after.get(mid + 2..)?;
                let close = target.find(')');
                closes = close.is_some();
                Some((after.get(..mid)?, target.get(close? + 1..)?))
            });
        match link {
            Some((label, tail)) => {
                out.push_str(label);
                rest = tail;
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    // Most lines have no emphasis or code marks: no need to copy them three more times.
    if out.contains(['*', '_', '`']) {
        out = out.replace("**", "").replace("__", "").replace('`', "");
    }
    out
}

/// Removes images, `![alt](src)`: the markdown reader keeps no image text either.
///
/// One pass: an image that does not close has no `](` or no `)` after it, and neither has any
/// later one, so the rest is plain text at once.
fn drop_images(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("![") {
        let after = rest.get(open + 2..).unwrap_or_default();
        let image_end = after.find("](").and_then(|mid| {
            let close = after.get(mid + 2..)?.find(')')?;
            Some(mid + 2 + close + 1)
        });
        let Some(end) = image_end else {
            break;
        };
        out.push_str(rest.get(..open).unwrap_or_default());
        rest = after.get(end..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// Removes single `*` and `_` emphasis markers outside code spans, where CommonMark would
/// read them as emphasis: at the edge of a word, not inside one (`snake_case`) nor between
/// spaces (`a * b`).
fn drop_emphasis(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        in_code ^= c == '`';
        let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let edge = (!space(next) && !word(prev)) || (!space(prev) && !word(next));
        // `_` inside a word (`snake_case`) is no marker; `*` between spaces (`a * b`) is none.
        let marker = !in_code && (c == '*' || c == '_' && !(word(prev) && word(next))) && edge;
        if !marker {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

/// The light reader: a small line-based markdown reader for a visitor's own notes (the
/// parser above; `onrecord-sources` has the full markdown reader, and a conformance test lists
/// where the two may differ).
#[derive(Debug, Clone, Copy)]
pub struct LightReader {
    /// The language of the notes.
    pub lang: Lang,
}

impl Reader for LightReader {
    fn read(&self, path: &str, text: &str) -> Result<Read, ReadError> {
        Ok(Read::Page(Page::of(parse(path, text, self.lang))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn render(md: &str) -> String {
        let doc = parse("notes.md", md, Lang::English);
        let mut out = format!("title: {}\n", doc.title);
        for s in doc.sections {
            out.push_str(&format!("[{}] #{}\n", s.heading_path.join(" > "), s.anchor));
            for b in s.blocks {
                out.push_str(&format!("  {:?}: {}\n", b.kind, b.text));
            }
        }
        out
    }

    #[test]
    fn headings_paragraphs_lists_quotes_and_code() {
        let md = "Intro *line* one\nline_two.\n\n# Garden notes\n\n## Watering **daily**\n\n- tomatoes\n2. basil, see [the guide](http://x.test/a)\n> shade in July\n\n```sh\n# not a heading\nwater --all\n```\n### Soil ###\nSandy.\n## Pests\n~~~\nopen fence";
        assert_eq!(
            render(md),
            "title: Garden notes\n\
             [] #\n  Paragraph: Intro line one line_two.\n\
             [Watering daily] #watering-daily\n  ListItem: tomatoes\n  ListItem: basil, see the guide\n  Quote: shade in July\n  Code: # not a heading\nwater --all\n\
             [Watering daily > Soil] #soil\n  Paragraph: Sandy.\n\
             [Pests] #pests\n  Code: open fence\n"
        );
    }

    #[test]
    fn title_falls_back_to_the_file_name() {
        let doc = parse(
            "meeting.2024.txt",
            "#hashtag is not a heading\n",
            Lang::English,
        );
        assert_eq!(doc.title, "meeting.2024");
        assert_eq!(doc.sections[0].blocks[0].text, "#hashtag is not a heading");
    }

    #[test]
    fn bad_files_are_named_in_the_error() {
        let file = |name: &str, text: &str| PlainFile {
            name: name.into(),
            text: text.into(),
        };
        let err = |files: &[PlainFile]| index_documents(files, Lang::English).unwrap_err();
        assert_eq!(err(&[]).to_string(), "no files to index");
        assert_eq!(err(&[file("a.md", " \n\t")]).to_string(), "a.md is empty");
        assert_eq!(
            err(&[file("ok.md", "fine"), file("b.md", "PK\0\0")]).to_string(),
            "b.md is not a text file (it holds binary data)"
        );
        assert_eq!(
            err(&[file("c.txt", "\u{FFFD}\u{FFFD}abc")]),
            PlainError::Binary {
                name: "c.txt".into()
            }
        );
        let big = "a".repeat(MAX_FILE_BYTES + 1);
        assert_eq!(
            err(&[file("big.md", &big)]).to_string(),
            "big.md is 2000001 bytes: files of at most 2000000 bytes can be indexed"
        );
        let many: Vec<PlainFile> = (0..=MAX_FILES).map(|i| file(&i.to_string(), "x")).collect();
        assert_eq!(err(&many), PlainError::TooManyFiles { count: 51 });
    }

    #[test]
    fn dropped_files_answer_questions() {
        let files = [PlainFile {
            name: "plants.md".into(),
            text: "# Plants\n\n## Watering\n\nWater the ferns every Tuesday morning.\n".into(),
        }];
        let index = index_documents(&files, Lang::English).unwrap();
        let answer = crate::ask(
            &index,
            None,
            "When do I water the ferns?",
            &crate::AnswerConfig::DEFAULT,
        );
        assert_eq!(answer.mode, crate::Mode::Answer);
        assert_eq!(
            answer.quotes[0].text,
            "Water the ferns every Tuesday morning."
        );
        assert_eq!(answer.quotes[0].citation.url, "#watering");
    }

    /// The inline reader before issue 14: each `[` and `![` searched the rest of the paragraph
    /// for `](` (quadratic). Kept as the oracle the linear one must agree with.
    fn inline_oracle(text: &str) -> String {
        let text = &drop_emphasis(&drop_images_oracle(text))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut out = String::with_capacity(text.len());
        let mut rest = text.trim();
        while let Some(open) = rest.find('[') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let link = after.find("](").and_then(|mid| {
                let target = &after[mid + 2..];
                let close = target.find(')')?;
                Some((&after[..mid], &target[close + 1..]))
            });
            match link {
                Some((label, tail)) if !label.contains('[') => {
                    out.push_str(label);
                    rest = tail;
                }
                _ => {
                    out.push('[');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out.replace("**", "").replace("__", "").replace('`', "")
    }

    fn drop_images_oracle(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find("![") {
            let after = &rest[open + 2..];
            let image_end = after.find("](").and_then(|mid| {
                let close = after[mid + 2..].find(')')?;
                Some(mid + 2 + close + 1)
            });
            out.push_str(&rest[..open]);
            match image_end {
                Some(end) => rest = &after[end..],
                None => {
                    out.push_str("![");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn links_keep_their_labels() {
        assert_eq!(
            inline("see [the guide](http://x.test/a) now"),
            "see the guide now"
        );
        assert_eq!(inline("[a [b](c) d](e)"), "[a b d](e)");
        assert_eq!(inline("[[[x](y)"), "[[x");
        assert_eq!(inline("[a](b [c](d)"), "a");
        assert_eq!(inline("[a](no close [b](c"), "[a](no close [b](c");
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        let got: Vec<&str> = lines("a\nb\r\nc\rd\r\r\ne\n").collect();
        assert_eq!(got, ["a", "b", "c", "d", "", "e", ""]);
        assert_eq!(lines("").collect::<Vec<_>>(), [""]);
    }

    proptest! {
        #[test]
        fn inline_agrees_with_the_quadratic_oracle(
            text in "(\\[|\\]|\\(|\\)|\\]\\(|!\\[|!|[a-z ]{1,3}|\\*\\*|\\*|_|`){0,40}",
        ) {
            prop_assert_eq!(inline(&text), inline_oracle(&text));
        }

        #[test]
        fn any_text_parses_and_chunks(text in "(#{0,7} ?|[-*+>] |1\\. |```|~~~|\\[|\\]\\(|\\)|\n|\r|\r\n|[a-zé .]{0,12}){0,40}") {
            let doc = parse("x.md", &text, Lang::English);
            for section in &doc.sections {
                prop_assert!(!section.blocks.is_empty());
                for block in &section.blocks {
                    prop_assert!(!block.text.trim().is_empty());
                }
            }
            for draft in chunk(&doc, 80) {
                for r in draft.sentences {
                    prop_assert!(draft.text.get(r).is_some());
                }
            }
        }

        #[test]
        fn arbitrary_unicode_never_panics(text in any::<String>(), name in any::<String>()) {
            let files = [PlainFile { name, text }];
            let _ = index_documents(&files, Lang::German);
        }

        #[test]
        fn every_word_of_a_paragraph_is_kept(words in proptest::collection::vec("[a-z]{1,8}", 1..30)) {
            let text = words.join(" ");
            let doc = parse("x.txt", &text, Lang::English);
            prop_assert_eq!(&doc.sections[0].blocks[0].text, &text);
        }
    }
}
