//! Markdown to sections of plain-text blocks, the shape the core chunks.
//!
//! Only prose reaches the index: raw HTML and images are dropped, inline code keeps its text,
//! tables become one line per row with cells joined by " | ", code blocks keep their lines.

use std::collections::BTreeMap;

use onrecord_core::{Block, BlockKind, SourceSection, slug};
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// A parsed page body: its first `#` heading (if any) and its sections.
pub(crate) struct Parsed {
    pub(crate) h1: Option<String>,
    pub(crate) sections: Vec<SourceSection>,
}

pub(crate) fn parse(body: &str) -> Parsed {
    let mut p = Builder::default();
    // Heading attributes: `## Title {#id}` (kramdown, mdBook) gives the heading its id.
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_HEADING_ATTRIBUTES;
    for event in Parser::new_ext(body, options) {
        p.event(event);
    }
    p.finish()
}

#[derive(Default)]
struct Builder {
    h1: Option<String>,
    sections: Vec<SourceSection>,
    /// Open headings as (level, text), outermost first.
    stack: Vec<(u8, String)>,
    slugs: BTreeMap<String, usize>,
    heading: Option<(u8, String)>,
    /// The id the heading names itself (`{#id}`), if any.
    heading_id: Option<String>,
    /// Text of the block being read.
    buf: String,
    in_code: bool,
    /// Whether the code block being read is Rust, whose `# ` lines the page hides.
    rust_code: bool,
    in_table_cell: bool,
    cells: Vec<String>,
    rows: Vec<String>,
    item_depth: usize,
    quote_depth: usize,
    image_depth: usize,
    html_depth: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) | Event::Code(t) if self.image_depth == 0 && self.html_depth == 0 => {
                self.text(&t);
            }
            Event::SoftBreak | Event::HardBreak => self.text(" "),
            // A line break written as HTML separates words as a break does.
            Event::InlineHtml(html) if is_line_break(&html) => self.text(" "),
            // Raw HTML, math and footnote markers are not prose.
            _ => {}
        }
    }

    fn text(&mut self, t: &str) {
        if let Some((_, heading)) = &mut self.heading {
            heading.push_str(t);
        } else {
            self.buf.push_str(t);
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, id, .. } => {
                self.flush(BlockKind::Paragraph);
                self.heading_id = id.map(|id| id.into_string());
                self.heading = Some((heading_level(level), String::new()));
            }
            Tag::Item => {
                // A nested list starts inside an item: the outer item's text is its own block.
                self.flush(BlockKind::ListItem);
                self.item_depth += 1;
            }
            Tag::BlockQuote(_) => self.quote_depth += 1,
            Tag::CodeBlock(kind) => {
                self.flush(self.prose_kind());
                self.in_code = true;
                self.rust_code = matches!(&kind, CodeBlockKind::Fenced(info)
                    if info.split([',', ' ']).next() == Some("rust"));
            }
            Tag::TableCell => self.in_table_cell = true,
            Tag::Image { .. } => self.image_depth += 1,
            Tag::HtmlBlock => self.html_depth += 1,
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                if let Some((level, text)) = self.heading.take() {
                    self.open_section(level, text.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
            TagEnd::Paragraph => {
                if self.item_depth > 0 {
                    self.buf.push(' ');
                } else {
                    self.flush(self.prose_kind());
                }
            }
            TagEnd::Item => {
                self.flush(BlockKind::ListItem);
                self.item_depth = self.item_depth.saturating_sub(1);
            }
            TagEnd::BlockQuote(_) => self.quote_depth = self.quote_depth.saturating_sub(1),
            TagEnd::CodeBlock => {
                self.in_code = false;
                let code = std::mem::take(&mut self.buf);
                let code = if self.rust_code {
                    shown_rust(&code)
                } else {
                    code
                };
                self.push_block(BlockKind::Code, code.trim_end().to_owned());
            }
            TagEnd::TableCell => {
                self.in_table_cell = false;
                let cell = collapse(&std::mem::take(&mut self.buf));
                self.cells.push(cell);
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                let row = std::mem::take(&mut self.cells).join(onrecord_core::CELL_SEPARATOR);
                self.rows.push(row);
            }
            TagEnd::Table => {
                let table = std::mem::take(&mut self.rows).join("\n");
                self.push_block(BlockKind::Table, table);
            }
            TagEnd::Image => self.image_depth = self.image_depth.saturating_sub(1),
            TagEnd::HtmlBlock => self.html_depth = self.html_depth.saturating_sub(1),
            _ => {}
        }
    }

    fn prose_kind(&self) -> BlockKind {
        if self.item_depth > 0 {
            BlockKind::ListItem
        } else if self.quote_depth > 0 {
            BlockKind::Quote
        } else {
            BlockKind::Paragraph
        }
    }

    /// Ends the prose block being read, if any.
    fn flush(&mut self, kind: BlockKind) {
        if self.in_code || self.in_table_cell {
            return;
        }
        let text = collapse(&std::mem::take(&mut self.buf));
        self.push_block(kind, text);
    }

    fn push_block(&mut self, kind: BlockKind, text: String) {
        if text.trim().is_empty() {
            return;
        }
        if self.sections.is_empty() {
            self.sections.push(SourceSection {
                heading_path: Vec::new(),
                anchor: String::new(),
                blocks: Vec::new(),
            });
        }
        if let Some(section) = self.sections.last_mut() {
            section.blocks.push(Block { kind, text });
        }
    }

    fn open_section(&mut self, level: u8, text: String) {
        let id = self.heading_id.take();
        // The first level-1 heading before any content is the page title, not a section.
        if level == 1 && self.h1.is_none() && self.stack.is_empty() {
            self.h1 = Some(text);
            return;
        }
        while self.stack.last().is_some_and(|(l, _)| *l >= level) {
            self.stack.pop();
        }
        let slug = slug(&text);
        let count = self.slugs.entry(slug.clone()).or_insert(0);
        let anchor = if let Some(id) = id {
            id
        } else if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        };
        *count += 1;
        self.stack.push((level, text));
        self.sections.push(SourceSection {
            heading_path: self.stack.iter().map(|(_, t)| t.clone()).collect(),
            anchor,
            blocks: Vec::new(),
        });
    }

    fn finish(mut self) -> Parsed {
        self.flush(BlockKind::Paragraph);
        self.sections.retain(|s| !s.blocks.is_empty());
        Parsed {
            h1: self.h1,
            sections: self.sections,
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The lines of a Rust example that rustdoc and mdBook show: `# ` lines are hidden setup code,
/// and `##` at the start of a line stands for `#`.
fn shown_rust(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if trimmed.trim_end() == "#" || trimmed.starts_with("# ") {
            continue;
        }
        match trimmed.strip_prefix("##") {
            Some(rest) => {
                out.push_str(indent);
                out.push('#');
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out
}

fn is_line_break(html: &str) -> bool {
    let tag: String = html.chars().filter(|c| !c.is_whitespace()).collect();
    matches!(tag.to_ascii_lowercase().as_str(), "<br>" | "<br/>")
}

/// Collapses runs of whitespace into single spaces and trims.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(md: &str) -> String {
        let parsed = parse(md);
        let mut out = format!("h1: {:?}\n", parsed.h1);
        for s in parsed.sections {
            out.push_str(&format!("[{}] #{}\n", s.heading_path.join(" > "), s.anchor));
            for b in s.blocks {
                out.push_str(&format!("  {:?}: {}\n", b.kind, b.text));
            }
        }
        out
    }

    #[test]
    fn headings_lists_tables_and_code_become_blocks() {
        let md = "# Title\n\nIntro *text* with `code`.\n\n## Prices & fees\n\n- one\n- two\n  - nested\n\n\
                  | Plan | Price |\n|---|---|\n| Lite | EUR 9 |\n\n### Setup\n\n```sh\nlarkctl login\n\nlarkctl ls\n```\n\n\
                  > Quoted words.\n\n<div class=\"x\">raw html</div>\n\n![alt text](a.png)\n\n## Prices & fees\n\nAgain.\n";
        let expected = "h1: Some(\"Title\")\n\
            [] #\n  Paragraph: Intro text with code.\n\
            [Prices & fees] #prices--fees\n  ListItem: one\n  ListItem: two\n  ListItem: nested\n  Table: Plan | Price\nLite | EUR 9\n\
            [Prices & fees > Setup] #setup\n  Code: larkctl login\n\nlarkctl ls\n  Quote: Quoted words.\n\
            [Prices & fees] #prices--fees-1\n  Paragraph: Again.\n";
        assert_eq!(render(md), expected);
    }

    #[test]
    fn rust_examples_show_what_the_page_shows() {
        let md = "```rust,ignore\n# fn main() {\nlet x = 1;\n##[derive(Debug)]\n#\n# }\n```\n\n```sh\n# a shell comment\n```\n";
        assert_eq!(
            render(md),
            "h1: None\n[] #\n  Code: let x = 1;\n#[derive(Debug)]\n  Code: # a shell comment\n"
        );
    }

    #[test]
    fn loose_list_items_keep_their_paragraphs_together() {
        let md = "- First para.\n\n  Second para.\n\n- Next item.\n";
        assert_eq!(
            render(md),
            "h1: None\n[] #\n  ListItem: First para. Second para.\n  ListItem: Next item.\n"
        );
    }
}
