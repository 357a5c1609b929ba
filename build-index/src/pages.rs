//! One page read as the build reads it: the markdown reader set up from the build's options,
//! a file's text, and the helpers that read a single page outside a build.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use onrecord_core::{Read, Reader, SourceDoc};
use onrecord_sources::{HtmlReader, MarkdownReader, is_html};

use crate::Options;
use crate::privacy::{self, private_prefix};
use crate::report::WarningLog;
use crate::selection::{any_body_marker, list_files, read_file};

/// A markdown page as the build reads it: the document and what could not be rendered.
pub struct ParsedPage {
    pub doc: SourceDoc,
    pub warnings: Vec<String>,
}

/// Parses one markdown page of the corpus at `root` as the build does: frontmatter, includes,
/// generator syntax, markdown.
pub fn parse_page(root: &Path, rel: &str, bytes: &[u8], options: &Options) -> Result<ParsedPage> {
    let private_prefix = private_prefix(options);
    let is_private =
        |rel: Option<&str>, bytes: &[u8]| privacy::is_private(&private_prefix, rel, bytes);
    let reader = markdown_reader(root, options, &is_private);
    match reader.read(rel, &utf8(rel, bytes)?)? {
        Read::Page(page) => Ok(ParsedPage {
            doc: page.doc,
            warnings: page.warnings,
        }),
        _ => bail!("{rel}: the markdown reader skipped the page"),
    }
}

/// The text a page shows as the build reads it (title, headings and blocks, one per line), or
/// `None` when the page asks not to be indexed. For checking that quoted evidence is on a page.
pub fn page_text(root: &Path, rel: &str, options: &Options) -> Result<Option<String>> {
    let fence = fs::canonicalize(root)
        .with_context(|| format!("cannot read the corpus at {}", root.display()))?;
    let mut warnings = WarningLog::default();
    let Some(bytes) = read_file(root, &fence, rel, &mut warnings)? else {
        bail!("{}", warnings.finish().join("; "));
    };
    let text = utf8(rel, &bytes)?;
    let private_prefix = private_prefix(options);
    let is_private =
        |rel: Option<&str>, bytes: &[u8]| privacy::is_private(&private_prefix, rel, bytes);
    let read = if is_html(rel) {
        let reader = HtmlReader {
            default_lang: options.default_lang,
            body_marked: any_body_marker(root, &fence, &list_files(root)?.files)?,
        };
        reader.read(rel, &text)?
    } else {
        markdown_reader(root, options, &is_private).read(rel, &text)?
    };
    let Read::Page(page) = read else {
        return Ok(None);
    };
    let mut out = vec![page.doc.title.clone()];
    for section in &page.doc.sections {
        out.extend(section.heading_path.last().cloned());
        out.extend(section.blocks.iter().map(|b| b.text.clone()));
    }
    Ok(Some(out.join("\n")))
}

/// A file's text, or an error naming the file and the line of the first bad byte.
pub(crate) fn utf8(rel: &str, bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!("{rel}:{line}: invalid UTF-8 (byte {valid})")
    })
}

/// The markdown reader of the corpus at `root`, its includes fenced to the include root.
pub(crate) fn markdown_reader<'a>(
    root: &Path,
    options: &Options,
    is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
) -> MarkdownReader<'a> {
    let reader = MarkdownReader::new(root, options.default_lang, is_private);
    match &options.include_root {
        Some(dir) => reader.include_root(dir),
        None => reader,
    }
}
