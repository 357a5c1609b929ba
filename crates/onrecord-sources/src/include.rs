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
//! Paths resolve against the including file's folder. An include may read a regular file
//! inside the include root once links are resolved (the corpus root, unless the site owner
//! names another: docs often include `../CHANGES.md`), nothing further out, no absolute path,
//! never a FIFO, socket or device (issue 43), and never a private note. A file that cannot be
//! included becomes a warning naming the page and line (at most [`MAX_SAME_WARNINGS`] of one
//! kind per page, then a count), and nothing is put in its place: nothing is quoted that the
//! site does not show. Nesting stops at [`MAX_DEPTH`], a page's included bytes at [`MAX_BYTES`].

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::files::{self, FileError, MAX_FILE_BYTES};

/// mdBook's own limit on nested includes.
pub(crate) const MAX_DEPTH: usize = 10;
/// At most this many included bytes per page (all includes together).
pub(crate) const MAX_BYTES: usize = 8_000_000;
/// Warnings of one kind a page lists before it counts the rest: 200,000 includes of a missing
/// file are five lines and a count, not 23 MB of log.
pub(crate) const MAX_SAME_WARNINGS: usize = 5;

/// What includes may read, and which files they must never read.
pub(crate) struct Scope<'a> {
    /// The corpus root (canonical); warnings name files relative to it.
    pub(crate) root: PathBuf,
    /// The folder includes must stay inside (canonical): the include root.
    pub(crate) fence: PathBuf,
    /// Whether a file (path relative to the root when inside it, and bytes) is private.
    pub(crate) is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
}

impl<'a> Scope<'a> {
    /// The scope of a corpus at `root` whose includes may read inside `include_root` (the root
    /// itself when `None`).
    pub(crate) fn new(
        root: &Path,
        include_root: Option<&Path>,
        is_private: &'a dyn Fn(Option<&str>, &[u8]) -> bool,
    ) -> Scope<'a> {
        let canonical = |dir: &Path| fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let root = canonical(root);
        let fence = include_root.map_or_else(|| root.clone(), canonical);
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
        unlisted: BTreeMap::new(),
        files: Vec::new(),
        bytes: 0,
    };
    let file = scope.root.join(rel);
    let text = state.expand(&file, text, first_line, 0);
    let mut warnings = state.warnings;
    for (kind, (_, more)) in state.unlisted.iter().filter(|(_, (_, more))| *more > 0) {
        warnings.push(format!(
            "{rel}: {more} more include{} not rendered ({kind}), not listed",
            if *more == 1 { "" } else { "s" }
        ));
    }
    Expanded {
        text,
        warnings,
        files: state.files,
    }
}

struct State<'s, 'a> {
    scope: &'s Scope<'a>,
    warnings: Vec<String>,
    /// Per kind of warning: how many were listed, and how many more were only counted.
    unlisted: BTreeMap<&'static str, (usize, usize)>,
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
                    "no such anchor",
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
        let refuse = |state: &mut Self, kind: &'static str, why: &str| {
            state.warn(file, line_no, whole, kind, why);
            None
        };
        if path.is_empty() {
            return refuse(self, "no file named", "no file named");
        }
        if depth >= MAX_DEPTH {
            return refuse(
                self,
                "nested too deep",
                &format!("includes nest deeper than {MAX_DEPTH} (an include cycle?)"),
            );
        }
        if Path::new(path).is_absolute() || path.starts_with(['/', '\\']) {
            return refuse(self, "absolute path", "absolute paths are not included");
        }
        // The page's budget, or the cap on one file when more than that is left.
        let left = MAX_BYTES.saturating_sub(self.bytes) as u64;
        let cap = left.min(MAX_FILE_BYTES);
        let read = files::read_within(&resolve_dir(file).join(path), &self.scope.fence, cap);
        let (target, bytes) = match read {
            Ok(read) => read,
            Err(FileError::Outside { fence, .. }) => {
                return refuse(
                    self,
                    "outside the include root",
                    &format!(
                        "{path} is outside {}, the folder includes may read (--include-root DIR names another)",
                        fence.display()
                    ),
                );
            }
            Err(FileError::TooLarge { .. }) if cap < MAX_FILE_BYTES => {
                return refuse(
                    self,
                    "too large",
                    &format!("{path} would take the page's includes over {MAX_BYTES} bytes"),
                );
            }
            Err(e @ (FileError::NotRegular { .. } | FileError::TooLarge { .. })) => {
                return refuse(self, "not a readable file", &format!("{path} {e}"));
            }
            Err(e) => return refuse(self, "cannot read", &format!("cannot read {path} ({e})")),
        };
        let rel = target
            .strip_prefix(&self.scope.root)
            .ok()
            .map(|r| r.to_string_lossy().replace('\\', "/"));
        if (self.scope.is_private)(rel.as_deref(), &bytes) {
            return refuse(self, "private note", &format!("{path} is a private note"));
        }
        let Ok(text) = String::from_utf8(bytes.clone()) else {
            return refuse(self, "not UTF-8", &format!("{path} is not UTF-8 text"));
        };
        self.bytes += bytes.len();
        self.files.push((self.name(&target), bytes));
        Some(text)
    }

    /// Records a warning, or only counts it past [`MAX_SAME_WARNINGS`] of its kind.
    fn warn(&mut self, file: &Path, line_no: usize, whole: &str, kind: &'static str, why: &str) {
        let (listed, more) = self.unlisted.entry(kind).or_default();
        if *listed >= MAX_SAME_WARNINGS {
            *more += 1;
            return;
        }
        *listed += 1;
        let name = self.name(file);
        self.warnings.push(format!(
            "{name}:{line_no}: {whole}: {why}; nothing included"
        ));
    }

    /// A file's name for people: relative to the root (`../…` when it lies in the include root
    /// above it), or as given.
    fn name(&self, file: &Path) -> String {
        let canonical = fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        if let Ok(rel) = canonical.strip_prefix(&self.scope.root) {
            return rel.to_string_lossy().replace('\\', "/");
        }
        if let (Ok(rel), Ok(up)) = (
            canonical.strip_prefix(&self.scope.fence),
            self.scope.root.strip_prefix(&self.scope.fence),
        ) {
            let ups = "../".repeat(up.components().count());
            return format!("{ups}{}", rel.to_string_lossy().replace('\\', "/"));
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
        let scope = Scope::new(&root, None, &private);
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

        // The include root names the folder above, where the change log is.
        let scope = Scope::new(&root, Some(&dir.path().join("corpora")), &never_private);
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
        let scope = Scope::new(&root, None, &never_private);
        let out = expand(&scope, "x.md", "{{#include a.md}}\n", 1);
        assert_eq!(out.text, format!("{}\n", "A ".repeat(MAX_DEPTH)));
        assert_eq!(out.warnings.len(), 1);
        assert!(
            out.warnings[0].starts_with("a.md:1: {{#include a.md}}: includes nest deeper than 10")
        );
    }

    /// Issue 43: the fence is the corpus root unless an include root is named, so a corpus at
    /// `/docs` cannot read `/etc` through `../`.
    #[test]
    fn includes_stay_inside_the_corpus_root_unless_an_include_root_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("docs");
        write(dir.path(), "app-secret.conf", "CANARY_SECRET_include\n");
        write(&root, "page.md", "");
        let scope = Scope::new(&root, None, &never_private);
        let out = expand(&scope, "page.md", "{{#include ../app-secret.conf}}\n", 1);
        assert!(!out.text.contains("CANARY"), "{}", out.text);
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert!(
            out.warnings[0].contains("../app-secret.conf is outside "),
            "{:?}",
            out.warnings
        );
        let scope = Scope::new(&root, Some(dir.path()), &never_private);
        let out = expand(&scope, "page.md", "{{#include ../app-secret.conf}}\n", 1);
        assert!(out.text.contains("CANARY_SECRET_include"), "{}", out.text);
    }

    /// Issue 43: a link inside the root whose target is outside is refused like the target.
    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_include_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("docs");
        write(dir.path(), "secret.txt", "CANARY_SECRET_link\n");
        write(&root, "page.md", "");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("notes.md")).unwrap();
        let scope = Scope::new(&root, None, &never_private);
        let out = expand(&scope, "page.md", "{{#include notes.md}}\n", 1);
        assert!(!out.text.contains("CANARY"), "{}", out.text);
        assert!(out.warnings[0].contains("is outside"), "{:?}", out.warnings);
    }

    /// Issue 43: a FIFO, a device and a folder are never opened (a FIFO would block the build),
    /// even with the widest include root.
    #[cfg(target_os = "linux")]
    #[test]
    fn fifos_and_devices_are_never_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("docs");
        write(&root, "page.md", "");
        let fifo = root.join("pipe.md");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.md")).unwrap();
        let scope = Scope::new(&root, Some(Path::new("/")), &never_private);
        let page = "{{#include pipe.md}}\n{{#include zero.md}}\n{{#include ../docs}}\n";
        let out = expand(&scope, "page.md", page, 1);
        assert_eq!(out.text, "\n\n\n");
        let warnings = out.warnings.join("\n");
        assert!(
            warnings.contains("pipe.md is a FIFO, which the build never opens"),
            "{warnings}"
        );
        assert!(
            warnings.contains("zero.md is a character device, which the build never opens"),
            "{warnings}"
        );
        assert!(warnings.contains("../docs is a folder"), "{warnings}");
    }

    /// Issue 43: 200,000 includes of a missing file are five warnings and a count.
    #[test]
    fn repeated_failing_includes_are_counted_not_listed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("docs");
        write(&root, "page.md", "");
        let page = "{{#include missing.md}}\n".repeat(200_000);
        let scope = Scope::new(&root, None, &never_private);
        let out = expand(&scope, "page.md", &page, 1);
        assert_eq!(
            out.warnings.len(),
            MAX_SAME_WARNINGS + 1,
            "{:?}",
            &out.warnings[..8]
        );
        assert_eq!(
            out.warnings[MAX_SAME_WARNINGS],
            "page.md: 199995 more includes not rendered (cannot read), not listed"
        );
    }
}
