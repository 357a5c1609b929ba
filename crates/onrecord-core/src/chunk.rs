//! Chunking: a parsed document becomes fragments of at most `max_chars` characters.
//!
//! Fragments never cross a section (heading) boundary. Blocks are packed whole when they fit;
//! a block too long for one fragment is cut between sentences (prose) or lines (code, tables).

use std::borrow::Cow;
use std::ops::Range;

use crate::sentence::sentences;
pub(crate) use crate::source::{Block, BlockKind, SourceDoc, SourceSection};

/// Longest page title kept, in characters: the title is indexed and shown with every fragment of
/// its page, so a huge one would be copied and re-read for each.
pub const MAX_TITLE_CHARS: usize = 200;
/// Longest heading kept, in characters: a heading is indexed and shown with every fragment of
/// its section (and of the sections under it).
pub const MAX_HEADING_CHARS: usize = 200;

/// `text` cut to at most `max` characters, at the last space before the limit when there is
/// one, and ending in "…" when it was cut.
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    // No more bytes than the limit means no more characters either.
    if text.len() <= max || text.char_indices().nth(max).is_none() {
        return Cow::Borrowed(text);
    }
    // One character is left for the ellipsis.
    let end = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let head = text.get(..end).unwrap_or("");
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > head.len() / 2 => head.get(..space).unwrap_or(head),
        _ => head,
    };
    let mut short = head.trim_end().to_owned();
    short.push('…');
    Cow::Owned(short)
}

/// A fragment before indexing: its section, text and sentence ranges within the text.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentDraft {
    /// Index into [`SourceDoc::sections`].
    pub section: usize,
    /// The quotable text.
    pub text: String,
    /// Quotable units (sentences, code pieces, table rows) as byte ranges into `text`.
    pub sentences: Vec<Range<usize>>,
    /// Table body rows as `(row unit, header unit)` indices into `sentences`.
    pub table_rows: Vec<(usize, usize)>,
    /// Indices into `sentences` of the units that are code, ascending.
    pub code: Vec<usize>,
}

/// The standard fragment size in characters: what a build uses unless told otherwise (the
/// build library's `Options::standard`, the CLI's default, the harness).
pub const FRAGMENT_CHARS: usize = 800;

/// Cuts `doc` into fragments of at most `max_chars` characters (at least 80).
pub fn chunk(doc: &SourceDoc, max_chars: usize) -> Vec<FragmentDraft> {
    let max_chars = max_chars.max(80);
    let is_item = |k: BlockKind| matches!(k, BlockKind::ListItem | BlockKind::LinkEntry);
    let mut res = Vec::new();
    for (section_idx, section) in doc.sections.iter().enumerate() {
        let mut current: Option<FragmentDraft> = None;
        let mut prev_kind = None;
        for block in &section.blocks {
            // Consecutive list items stay on adjacent lines; other blocks are paragraphs apart.
            let list_run = is_item(block.kind) && prev_kind.is_some_and(is_item);
            prev_kind = Some(block.kind);
            for piece in pieces(block, max_chars) {
                let separator = if list_run { "\n" } else { "\n\n" };
                if let Some(frag) = &current {
                    let total = char_len(&frag.text) + separator.len() + char_len(&piece.text);
                    if total > max_chars {
                        res.extend(current.take());
                    }
                }
                let frag = current.get_or_insert_with(|| FragmentDraft {
                    section: section_idx,
                    text: String::new(),
                    sentences: Vec::new(),
                    table_rows: Vec::new(),
                    code: Vec::new(),
                });
                if !frag.text.is_empty() {
                    frag.text.push_str(separator);
                }
                let offset = frag.text.len();
                let first_unit = frag.sentences.len();
                frag.text.push_str(&piece.text);
                frag.table_rows.extend(
                    piece
                        .rows
                        .iter()
                        .map(|&(row, header)| (row + first_unit, header + first_unit)),
                );
                if block.kind == BlockKind::Code {
                    frag.code.extend(first_unit..first_unit + piece.units.len());
                }
                frag.sentences.extend(
                    piece
                        .units
                        .into_iter()
                        .map(|r| r.start + offset..r.end + offset),
                );
            }
        }
        res.extend(current);
    }
    res
}

/// A piece of a block that fits in a fragment, with its quotable units.
struct Piece {
    text: String,
    units: Vec<Range<usize>>,
    /// Table body rows as `(row unit, header unit)` indices into `units`.
    rows: Vec<(usize, usize)>,
}

fn pieces(block: &Block, max_chars: usize) -> Vec<Piece> {
    let text = block.text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    if block.kind == BlockKind::Table {
        return table_pieces(text, max_chars);
    }
    let units: Vec<Range<usize>> = match block.kind {
        BlockKind::Paragraph | BlockKind::ListItem | BlockKind::LinkEntry | BlockKind::Quote => {
            sentences(text)
                .into_iter()
                .flat_map(|r| split_long(text, r, max_chars))
                .collect()
        }
        BlockKind::Table => line_ranges(text)
            .flat_map(|r| split_long(text, r, max_chars))
            .collect(),
        // Code is quoted in whole pieces: pack its lines, each piece one unit.
        BlockKind::Code => {
            let lines: Vec<Range<usize>> = line_ranges(text)
                .flat_map(|r| split_long(text, r, max_chars))
                .collect();
            pack(text, &lines, max_chars)
                .into_iter()
                .map(|(span, _)| span)
                .collect()
        }
    };
    let keep_units = block.kind != BlockKind::Code;
    pack(text, &units, max_chars)
        .into_iter()
        .map(|(span, of_units)| {
            let piece_units = if keep_units {
                units
                    .get(of_units)
                    .unwrap_or_default()
                    .iter()
                    .map(|u| u.start - span.start..u.end - span.start)
                    .collect()
            } else {
                std::iter::once(0..span.end - span.start).collect()
            };
            Piece {
                text: text.get(span).unwrap_or_default().to_owned(),
                units: piece_units,
                rows: Vec::new(),
            }
        })
        .collect()
}

/// A table cut on rows. Every piece starts with the header row (repeated on the pieces after
/// the first, as a reader sees it above the rows), so each row is quoted with its header.
fn table_pieces(text: &str, max_chars: usize) -> Vec<Piece> {
    let lines: Vec<Range<usize>> = line_ranges(text)
        .flat_map(|r| split_long(text, r, max_chars))
        .collect();
    let Some((header, rows)) = lines.split_first() else {
        return Vec::new();
    };
    let header_text = text.get(header.clone()).unwrap_or_default();
    if rows.is_empty() {
        return vec![Piece {
            text: header_text.to_owned(),
            units: std::iter::once(0..header_text.len()).collect(),
            rows: Vec::new(),
        }];
    }
    let mut res: Vec<Piece> = Vec::new();
    for row in rows {
        let row_text = text.get(row.clone()).unwrap_or_default();
        let fits = res
            .last()
            .is_some_and(|p| char_len(&p.text) + 1 + char_len(row_text) <= max_chars);
        if !fits {
            res.push(Piece {
                text: header_text.to_owned(),
                units: std::iter::once(0..header_text.len()).collect(),
                rows: Vec::new(),
            });
        }
        if let Some(piece) = res.last_mut() {
            piece.text.push('\n');
            let start = piece.text.len();
            piece.text.push_str(row_text);
            piece.rows.push((piece.units.len(), 0));
            piece.units.push(start..piece.text.len());
        }
    }
    res
}

/// Greedily joins consecutive unit ranges into spans of at most `max_chars` characters; each
/// span comes with the range of `units` it holds.
fn pack(text: &str, units: &[Range<usize>], max_chars: usize) -> Vec<(Range<usize>, Range<usize>)> {
    let mut res: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        match res.last_mut() {
            Some((span, of_units))
                if char_len(text.get(span.start..unit.end).unwrap_or("")) <= max_chars =>
            {
                span.end = unit.end;
                of_units.end = i + 1;
            }
            _ => res.push((unit.clone(), i..i + 1)),
        }
    }
    res
}

/// Non-empty, trimmed line ranges of `text`.
fn line_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut offset = 0;
    text.split('\n').filter_map(move |line| {
        let start = offset;
        offset += line.len() + 1;
        let trimmed = line.trim_end();
        (!trimmed.trim_start().is_empty()).then(|| start..start + trimmed.len())
    })
}

/// Cuts a range longer than `max_chars` characters at whitespace (or anywhere, if it has none).
fn split_long(text: &str, range: Range<usize>, max_chars: usize) -> Vec<Range<usize>> {
    let mut res = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let rest = text.get(start..range.end).unwrap_or("");
        // Counting only up to the limit keeps a long line linear, not quadratic.
        let Some((hard_end, _)) = rest.char_indices().nth(max_chars) else {
            res.push(start..range.end);
            break;
        };
        let cut = rest
            .get(..hard_end)
            .unwrap_or(rest)
            .rfind(char::is_whitespace)
            .filter(|&i| i > 0)
            .unwrap_or(hard_end);
        res.push(start..start + cut);
        start += cut;
        let skipped = text.get(start..range.end).unwrap_or("");
        start += skipped.len() - skipped.trim_start().len();
    }
    res
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Lang;
    use proptest::prelude::*;

    fn doc(blocks: Vec<Block>) -> SourceDoc {
        SourceDoc {
            path: "a.md".into(),
            url: "/a/".into(),
            title: "A".into(),
            lang: Lang::English,
            themes: vec![],
            collection: None,
            sections: vec![SourceSection {
                heading_path: vec!["S".into()],
                anchor: "s".into(),
                blocks,
            }],
        }
    }

    #[test]
    fn small_blocks_pack_into_one_fragment() {
        let d = doc(vec![
            Block::paragraph("One. Two."),
            Block {
                kind: BlockKind::ListItem,
                text: "Item one".into(),
            },
            Block {
                kind: BlockKind::ListItem,
                text: "Item two".into(),
            },
        ]);
        let frags = chunk(&d, 800);
        assert_eq!(frags.len(), 1);
        assert_eq!(frags[0].text, "One. Two.\n\nItem one\nItem two");
        let units: Vec<&str> = frags[0]
            .sentences
            .iter()
            .map(|r| &frags[0].text[r.clone()])
            .collect();
        assert_eq!(units, ["One.", "Two.", "Item one", "Item two"]);
    }

    #[test]
    fn long_paragraphs_are_cut_between_sentences() {
        let sentence = "This sentence has exactly fifty characters in it. ";
        let d = doc(vec![Block::paragraph(sentence.repeat(5))]);
        let frags = chunk(&d, 120);
        assert_eq!(frags.len(), 3);
        assert!(frags.iter().all(|f| f.text.chars().count() <= 120));
    }

    #[test]
    fn code_is_cut_on_lines_and_quoted_whole() {
        let code = (0..30)
            .map(|i| format!("larkctl fleet show --bike {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let d = doc(vec![Block {
            kind: BlockKind::Code,
            text: code,
        }]);
        let frags = chunk(&d, 200);
        assert!(frags.len() > 1);
        for f in &frags {
            assert_eq!(f.sentences, vec![0..f.text.len()]);
            assert_eq!(f.code, vec![0], "the piece is marked as code");
            assert!(f.text.lines().all(|l| l.starts_with("larkctl")));
        }
    }

    #[test]
    fn table_rows_are_units_quoted_with_their_header_on_every_piece() {
        let rows = (0..12)
            .map(|i| format!("Plan {i} | EUR {i}9 | 12 months"))
            .collect::<Vec<_>>()
            .join("\n");
        let d = doc(vec![
            Block::paragraph("Prices."),
            Block {
                kind: BlockKind::Table,
                text: format!("Plan | Price | Term\n{rows}"),
            },
        ]);
        let frags = chunk(&d, 160);
        assert!(frags.len() > 1);
        let mut seen = 0;
        for f in &frags {
            for &(row, header) in &f.table_rows {
                assert_eq!(&f.text[f.sentences[header].clone()], "Plan | Price | Term");
                assert!(f.text[f.sentences[row].clone()].starts_with("Plan "));
                assert!(header < row);
                seen += 1;
            }
        }
        assert_eq!(seen, 12, "every row once");
        assert!(
            frags
                .iter()
                .any(|f| f.text.contains("Plan | Price | Term\nPlan 0 | EUR 09"))
        );
    }

    #[test]
    fn shorten_cuts_at_a_space_and_marks_the_cut() {
        assert_eq!(shorten("Short heading", 200), "Short heading");
        assert!(matches!(shorten("Short heading", 200), Cow::Borrowed(_)));
        assert_eq!(shorten("one two three four", 12), "one two…");
        assert_eq!(shorten("onetwothreefour", 8), "onetwot…");
        assert_eq!(shorten("ééééé", 4), "ééé…");
        assert!(shorten(&"x ".repeat(1_000_000), 200).chars().count() <= 200);
    }

    /// `split_long` before issue 14, which counted the rest of a long line once per cut
    /// (quadratic): the oracle of the linear one.
    fn split_long_oracle(text: &str, range: Range<usize>, max_chars: usize) -> Vec<Range<usize>> {
        let mut res = Vec::new();
        let mut start = range.start;
        while start < range.end {
            let rest = &text[start..range.end];
            if char_len(rest) <= max_chars {
                res.push(start..range.end);
                break;
            }
            let hard_end = rest
                .char_indices()
                .nth(max_chars)
                .map_or(rest.len(), |(i, _)| i);
            let cut = rest[..hard_end]
                .rfind(char::is_whitespace)
                .filter(|&i| i > 0)
                .unwrap_or(hard_end);
            res.push(start..start + cut);
            start += cut;
            let skipped = &text[start..range.end];
            start += skipped.len() - skipped.trim_start().len();
        }
        res
    }

    proptest! {
        #[test]
        fn split_long_agrees_with_the_quadratic_oracle(text in "[a-z é\\n]{0,400}", max in 1usize..60) {
            prop_assert_eq!(split_long(&text, 0..text.len(), max), split_long_oracle(&text, 0..text.len(), max));
        }

        #[test]
        fn each_piece_holds_exactly_the_units_inside_it(para in "[A-Za-z .!?é]{0,600}", max in 80usize..200) {
            let block = Block::paragraph(para);
            let text = block.text.trim();
            let units: Vec<Range<usize>> = sentences(text)
                .into_iter()
                .flat_map(|r| split_long(text, r, max))
                .collect();
            let spans = pack(text, &units, max);
            let got = pieces(&block, max);
            prop_assert_eq!(spans.len(), got.len());
            for ((span, _), piece) in spans.iter().zip(got) {
                let expected: Vec<Range<usize>> = units
                    .iter()
                    .filter(|u| u.start >= span.start && u.end <= span.end)
                    .map(|u| u.start - span.start..u.end - span.start)
                    .collect();
                prop_assert_eq!(piece.units, expected);
            }
        }

        #[test]
        fn fragments_respect_the_size_and_units_are_exact_slices(
            paras in proptest::collection::vec("\\PC{0,300}", 0..6),
            max in 80usize..400,
        ) {
            let d = doc(paras.into_iter().map(Block::paragraph).collect());
            for f in chunk(&d, max) {
                prop_assert!(f.text.chars().count() <= max);
                for r in &f.sentences {
                    prop_assert!(f.text.get(r.clone()).is_some());
                }
            }
        }
    }
}
