//! Includes: mdBook's `{{#include}}` family and MyST's ```` ```{include} ```` directive, rendered
//! as their generators render them, so a page reads as it is served.
//!
//! mdBook (its `links` preprocessor) replaces, anywhere in a chapter and before markdown parsing:
//! - `{{#include path}}`, `{{#include path:N}}` (line N), `{{#include path:N:M}}`, `path:N:`,
//!   `path::M` (1-based, inclusive) and `{{#include path:anchor}}` (the lines between
//!   `ANCHOR: anchor` and `ANCHOR_END: anchor`, without any anchor marker lines);
//! - `{{#rustdoc_include …}}`: the same selection (mdBook keeps the rest as hidden `# ` lines,
//!   which the page does not show);
//! - `{{#playground …}}`: the selection in a `rust` code fence; `{{#title …}}` goes.
//!
//! A `\{{#…}}` is mdBook's escape and stays as written, without the backslash.
//! MyST's `{include}` (and `{literalinclude}`, as code) honour `:start-line:`, `:end-line:`,
//! `:start-after:` and `:end-before:`; they are only read outside code fences.
//!
//! Paths resolve against the including file's folder. An include may read anything inside the
//! corpus root's parent folder (docs often include `../CHANGES.md`), nothing further out, no
//! absolute path, and never a private note. A file that cannot be included becomes a warning
//! naming the page and line, and nothing is put in its place: nothing is quoted that the site
//! does not show. Nesting stops at [`MAX_DEPTH`], a page's included bytes at [`MAX_BYTES`].

use std::fs;
use std::path::{Path, PathBuf};

/// mdBook's own limit on nested includes.
pub(crate) const MAX_DEPTH: usize = 10;
/// At most this many included bytes per page (all includes together).
pub(crate) const MAX_BYTES: usize = 8_000_000;

/// What includes may read, and which files they must never read.
pub(crate) struct Scope<'a> {
    /// The corpus root (canonical); warnings name files relative to it.
    pub(crate) root: PathBuf,
    /// The folder includes must stay inside (canonical): the root's parent.
    pub(crate) fence: PathBuf,
    /// Whether a file (path relative to the root when inside it, and bytes) is private.
    pub(crate) is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
}

impl<'a> Scope<'a> {
    /// The scope of a corpus at `root`.
    pub(crate) fn new(
        root: &Path,
        is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
    ) -> Scope<'a> {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let fence = root
            .parent()
            .map_or_else(|| root.clone(), Path::to_path_buf);
        Scope {
            root,
            fence,
            is_private,
        }
    }
}

/// The text of a page with its includes rendered, and the warnings for those that could not be.
pub(crate) struct Expanded {
    pub(crate) text: String,
    pub(crate) warnings: Vec<String>,
    /// The files included, relative to the root where possible (for the corpus hash).
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

/// Renders the includes of `text`, the body of the page `rel` (relative to the root) whose
/// first line is line `first_line` of the file.
pub(crate) fn expand(scope: &Scope<'_>, rel: &str, text: &str, first_line: usize) -> Expanded {
    let mut state = State {
        scope,
        warnings: Vec::new(),
        files: Vec::new(),
        bytes: 0,
    };
    let file = scope.root.join(rel);
    let text = state.expand(&file, text, first_line, 0);
    Expanded {
        text,
        warnings: state.warnings,
        files: state.files,
    }
}

struct State<'s, 'a> {
    scope: &'s Scope<'a>,
    warnings: Vec<String>,
    files: Vec<(String, Vec<u8>)>,
    bytes: usize,
}

/// A MyST include directive being read: its fence, kind, target and options.
struct Directive {
    fence: (char, usize),
    literal: bool,
    target: String,
    options: Vec<(String, String)>,
    line: usize,
}

impl State<'_, '_> {
    fn expand(&mut self, file: &Path, text: &str, first_line: usize, depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        let mut fence: Option<(char, usize)> = None;
        // Fences of the other directives open around this line (`{note}` …), innermost last.
        let mut open_directives: Vec<(char, usize)> = Vec::new();
        let mut directive: Option<Directive> = None;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let line_no = first_line + i;
            let trimmed = line.trim_start();
            if let Some(d) = &mut directive {
                if closes(trimmed, d.fence) {
                    if let Some(d) = directive.take() {
                        out.push_str(&self.myst_include(file, &d, depth));
                    }
                } else if let Some((key, value)) = option(trimmed) {
                    d.options.push((key, value));
                }
                continue;
            }
            if let Some(open) = fence {
                if closes(trimmed, open) {
                    fence = None;
                }
            } else if open_directives
                .last()
                .is_some_and(|open| closes(trimmed, *open))
            {
                open_directives.pop();
            } else if let Some((open, name, arg)) = directive_open(trimmed) {
                if matches!(name, "include" | "literalinclude") {
                    directive = Some(Directive {
                        fence: open,
                        literal: name == "literalinclude",
                        target: arg.to_owned(),
                        options: Vec::new(),
                        line: line_no,
                    });
                    continue;
                }
                open_directives.push(open);
            } else if let Some(open) = fence_open(trimmed) {
                fence = Some(open);
            }
            out.push_str(&self.mdbook_links(file, line, line_no, depth));
        }
        // An unclosed directive runs to the end of the file, like an unclosed fence.
        if let Some(d) = directive {
            out.push_str(&self.myst_include(file, &d, depth));
        }
        out
    }

    /// Replaces mdBook's `{{#…}}` helpers in one line.
    fn mdbook_links(&mut self, file: &Path, line: &str, line_no: usize, depth: usize) -> String {
        if !line.contains("{{#") {
            return line.to_owned();
        }
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(start) = rest.find("{{#") {
            let Some(len) = rest[start..].find("}}") else {
                break;
            };
            let helper = &rest[start + 3..start + len];
            let escaped = rest[..start].ends_with('\\');
            out.push_str(&rest[..start - usize::from(escaped)]);
            let whole = &rest[start..start + len + 2];
            rest = &rest[start + len + 2..];
            let (name, args) = helper
                .split_once(char::is_whitespace)
                .unwrap_or((helper, ""));
            let args = args.trim();
            if escaped || !matches!(name, "include" | "rustdoc_include" | "playground" | "title") {
                out.push_str(whole);
                continue;
            }
            if name == "title" {
                continue;
            }
            let (path, selector) = args.split_once(':').unwrap_or((args, ""));
            // `{{#playground file.rs editable}}`: words after the path are attributes.
            let (path, attrs) = path.split_once(char::is_whitespace).unwrap_or((path, ""));
            let Some(content) = self.read(file, line_no, whole, path.trim(), depth) else {
                continue;
            };
            let Some(selected) = select_mdbook(&content, selector) else {
                self.warn(
                    file,
                    line_no,
                    whole,
                    &format!("no anchor '{selector}' in {path}"),
                );
                continue;
            };
            let target = resolve_dir(file).join(path.trim());
            let selected = self.expand(&target, &selected, 1, depth + 1);
            if name == "playground" {
                let attrs = attrs.split_whitespace().collect::<Vec<_>>().join(",");
                let sep = if attrs.is_empty() { "" } else { "," };
                out.push_str(&format!(
                    "```rust{sep}{attrs}\n{}\n```\n",
                    selected.trim_end()
                ));
            } else {
                out.push_str(&selected);
            }
        }
        out.push_str(rest);
        out
    }

    /// Renders a MyST `{include}`: the selected text as markdown, or in a code fence if literal.
    fn myst_include(&mut self, file: &Path, d: &Directive, depth: usize) -> String {
        let whole = format!("{{include}} {}", d.target);
        let Some(content) = self.read(file, d.line, &whole, &d.target, depth) else {
            return String::new();
        };
        let option = |key: &str| {
            d.options
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let mut text = content.as_str();
        if let Some(marker) = option("start-after") {
            text = text.split_once(marker).map_or("", |(_, after)| after);
        }
        if let Some(marker) = option("end-before") {
            text = text.split_once(marker).map_or(text, |(before, _)| before);
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let index = |key: &str, default: usize| {
            option(key)
                .and_then(|v| v.parse::<isize>().ok())
                .map_or(default, |n| {
                    if n < 0 {
                        lines.len().saturating_sub(n.unsigned_abs())
                    } else {
                        (n as usize).min(lines.len())
                    }
                })
        };
        let (start, end) = (index("start-line", 0), index("end-line", lines.len()));
        let selected: String = lines
            .get(start..end.max(start))
            .unwrap_or_default()
            .concat();
        let literal = d.literal || option("literal").is_some() || option("code").is_some();
        let mut out = if literal {
            format!("```\n{}\n```\n", selected.trim_end())
        } else {
            let target = resolve_dir(file).join(&d.target);
            self.expand(&target, &selected, start + 1, depth + 1)
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }

    /// Reads an included file, or warns (naming the including file and line) and returns `None`.
    fn read(
        &mut self,
        file: &Path,
        line_no: usize,
        whole: &str,
        path: &str,
        depth: usize,
    ) -> Option<String> {
        let refuse = |state: &mut Self, why: &str| {
            state.warn(file, line_no, whole, why);
            None
        };
        if path.is_empty() {
            return refuse(self, "no file named");
        }
        if depth >= MAX_DEPTH {
            return refuse(
                self,
                &format!("includes nest deeper than {MAX_DEPTH} (an include cycle?)"),
            );
        }
        if Path::new(path).is_absolute() || path.starts_with(['/', '\\']) {
            return refuse(self, "absolute paths are not included");
        }
        let target = match fs::canonicalize(resolve_dir(file).join(path)) {
            Ok(t) => t,
            Err(e) => return refuse(self, &format!("cannot read {path} ({e})")),
        };
        if !target.starts_with(&self.scope.fence) {
            return refuse(
                self,
                &format!(
                    "{path} is outside {}, the folder includes may read",
                    self.scope.fence.display()
                ),
            );
        }
        let size = fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
        if self.bytes.saturating_add(size as usize) > MAX_BYTES {
            return refuse(
                self,
                &format!("{path} would take the page's includes over {MAX_BYTES} bytes"),
            );
        }
        let bytes = match fs::read(&target) {
            Ok(b) => b,
            Err(e) => return refuse(self, &format!("cannot read {path} ({e})")),
        };
        let rel = target
            .strip_prefix(&self.scope.root)
            .ok()
            .map(|r| r.to_string_lossy().replace('\\', "/"));
        if (self.scope.is_private)(rel.as_deref(), &bytes) {
            return refuse(self, &format!("{path} is a private note"));
        }
        let Ok(text) = String::from_utf8(bytes.clone()) else {
            return refuse(self, &format!("{path} is not UTF-8 text"));
        };
        self.bytes += bytes.len();
        self.files.push((self.name(&target), bytes));
        Some(text)
    }

    fn warn(&mut self, file: &Path, line_no: usize, whole: &str, why: &str) {
        let name = self.name(file);
        self.warnings.push(format!(
            "{name}:{line_no}: {whole}: {why}; nothing included"
        ));
    }

    /// A file's name for people: relative to the root, or `../…` in the root's parent.
    fn name(&self, file: &Path) -> String {
        let canonical = fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        if let Ok(rel) = canonical.strip_prefix(&self.scope.root) {
            return rel.to_string_lossy().replace('\\', "/");
        }
        if let Ok(rel) = canonical.strip_prefix(&self.scope.fence) {
            return format!("../{}", rel.to_string_lossy().replace('\\', "/"));
        }
        file.display().to_string()
    }
}

fn resolve_dir(file: &Path) -> PathBuf {
    file.parent().map_or_else(PathBuf::new, Path::to_path_buf)
}

/// The lines mdBook's selector picks: `N`, `N:M`, `N:`, `:M`, `` (all) or an anchor name.
/// `None` when an anchor is named but never opened.
pub(crate) fn select_mdbook(content: &str, selector: &str) -> Option<String> {
    let selector = selector.trim();
    let lines: Vec<&str> = content.lines().collect();
    let number = |s: &str| s.trim().parse::<usize>().ok();
    let range = if selector.is_empty() {
        Some((0, lines.len()))
    } else if let Some((a, b)) = selector.split_once(':') {
        match (a.trim(), b.trim()) {
            ("", "") => Some((0, lines.len())),
            ("", b) => number(b).map(|b| (0, b)),
            (a, "") => number(a).map(|a| (a.saturating_sub(1), lines.len())),
            (a, b) => number(a)
                .zip(number(b))
                .map(|(a, b)| (a.saturating_sub(1), b)),
        }
    } else {
        number(selector).map(|n| (n.saturating_sub(1), n))
    };
    if let Some((start, end)) = range {
        let end = end.min(lines.len());
        let start = start.min(end);
        return Some(lines[start..end].join("\n"));
    }
    // An anchor: the lines between its markers, without any marker lines.
    let mut inside = false;
    let mut found = false;
    let mut out = Vec::new();
    for line in &lines {
        if let Some(name) = anchor(line, "ANCHOR_END:") {
            if name == selector {
                inside = false;
            }
        } else if let Some(name) = anchor(line, "ANCHOR:") {
            if name == selector {
                inside = true;
                found = true;
            }
        } else if inside {
            out.push(*line);
        }
    }
    found.then(|| out.join("\n"))
}

/// The anchor name after `marker` on a line (`// ANCHOR: name`), if any.
fn anchor<'l>(line: &'l str, marker: &str) -> Option<&'l str> {
    let at = line.find(marker)?;
    let name = line[at + marker.len()..].trim_start();
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(name.len());
    Some(&name[..end])
}

/// A code fence opening: its character and run length.
fn fence_open(trimmed: &str) -> Option<(char, usize)> {
    let ch = trimmed
        .chars()
        .next()
        .filter(|c| *c == '`' || *c == '~' || *c == ':')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    // A colon fence only counts as a fence when it opens a directive (`:::{note}`).
    if ch == ':' && !trimmed[len..].starts_with('{') {
        return None;
    }
    (len >= 3).then_some((ch, len))
}

fn closes(trimmed: &str, (ch, len): (char, usize)) -> bool {
    let run = trimmed.chars().take_while(|c| *c == ch).count();
    run >= len && trimmed.trim_end().chars().all(|c| c == ch)
}

/// A MyST directive fence: ```` ```{name} argument ```` (or with `~~~` or `:::`).
pub(crate) fn directive_open(trimmed: &str) -> Option<((char, usize), &str, &str)> {
    let open = fence_open(trimmed)?;
    let rest = trimmed[open.1..].strip_prefix('{')?;
    let close = rest.find('}')?;
    let name = &rest[..close];
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    valid.then(|| (open, name, rest[close + 1..].trim()))
}

/// A directive option line, `:key: value`.
fn option(trimmed: &str) -> Option<(String, String)> {
    let rest = trimmed.strip_prefix(':')?;
    let (key, value) = rest.split_once(':')?;
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then(|| (key.to_owned(), value.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_private(_: Option<&str>, _: &[u8]) -> bool {
        false
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn mdbook_selectors_pick_lines_and_anchors() {
        let src = "a\n// ANCHOR: part\nb\n// ANCHOR: inner\nc\n// ANCHOR_END: inner\n// ANCHOR_END: part\nd";
        assert_eq!(select_mdbook(src, "part").unwrap(), "b\nc");
        assert_eq!(select_mdbook(src, "inner").unwrap(), "c");
        assert_eq!(select_mdbook(src, "missing"), None);
        let src = "1\n2\n3\n4";
        assert_eq!(select_mdbook(src, "").unwrap(), src);
        assert_eq!(select_mdbook(src, "2").unwrap(), "2");
        assert_eq!(select_mdbook(src, "2:3").unwrap(), "2\n3");
        assert_eq!(select_mdbook(src, "3:").unwrap(), "3\n4");
        assert_eq!(select_mdbook(src, ":2").unwrap(), "1\n2");
        assert_eq!(select_mdbook(src, "3:99").unwrap(), "3\n4");
    }

    #[test]
    fn includes_render_nest_and_warn_with_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("corpora/book");
        write(
            &root,
            "src/code.rs",
            "fn a() {}\n// ANCHOR: main\nfn main() {}\n// ANCHOR_END: main\n",
        );
        write(&root, "src/part.md", "Part {{#include code.rs:2}} end.\n");
        write(
            &dir.path().join("corpora"),
            "CHANGES.md",
            "# Change log\n\n## 1.0\n\nFirst.\n",
        );
        write(dir.path(), "secret.md", "outside\n");
        let private = |rel: Option<&str>, _: &[u8]| rel == Some("private/n.md");
        write(&root, "private/n.md", "secret body\n");
        let scope = Scope::new(&root, &private);
        let page = "```rust\n{{#rustdoc_include code.rs:main}}\n```\n\
                    {{#include part.md}}\n\
                    \\{{#include code.rs}} is escaped.\n\
                    {{#include missing.rs}}\n\
                    {{#include /etc/passwd}}\n\
                    {{#include ../../../secret.md}}\n\
                    {{#include ../private/n.md}}\n\
                    {{#title Custom}}\n";
        let out = expand(&scope, "src/page.md", page, 3);
        assert_eq!(
            out.text,
            "```rust\nfn main() {}\n```\nPart // ANCHOR: main end.\n\
             {{#include code.rs}} is escaped.\n\n\n\n\n\n"
        );
        let warnings: Vec<&str> = out.warnings.iter().map(String::as_str).collect();
        assert_eq!(warnings.len(), 4, "{warnings:#?}");
        assert!(
            warnings[0]
                .starts_with("src/page.md:8: {{#include missing.rs}}: cannot read missing.rs (")
        );
        assert_eq!(
            warnings[1],
            "src/page.md:9: {{#include /etc/passwd}}: absolute paths are not included; nothing included"
        );
        assert!(warnings[2].starts_with(
            "src/page.md:10: {{#include ../../../secret.md}}: ../../../secret.md is outside "
        ));
        assert_eq!(
            warnings[3],
            "src/page.md:11: {{#include ../private/n.md}}: ../private/n.md is a private note; nothing included"
        );

        let scope = Scope::new(&root, &never_private);
        let myst = "Intro.\n\n```{include} ../../CHANGES.md\n:start-line: 2\n```\n\n````md\n```{include} ../../CHANGES.md\n```\n````\n";
        let out = expand(&scope, "src/changes.md", myst, 1);
        assert_eq!(
            out.text,
            "Intro.\n\n## 1.0\n\nFirst.\n\n````md\n```{include} ../../CHANGES.md\n```\n````\n"
        );
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.files[0].0, "../CHANGES.md");
    }

    #[test]
    fn include_cycles_stop_at_the_depth_limit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("docs");
        write(&root, "a.md", "A {{#include a.md}}\n");
        let scope = Scope::new(&root, &never_private);
        let out = expand(&scope, "x.md", "{{#include a.md}}\n", 1);
        assert_eq!(out.text, format!("{}\n", "A ".repeat(MAX_DEPTH)));
        assert_eq!(out.warnings.len(), 1);
        assert!(
            out.warnings[0].starts_with("a.md:1: {{#include a.md}}: includes nest deeper than 10")
        );
    }
}
