//! Which files a build reads: the listing of the input folder (regular files inside it
//! only), what the corpus is read as, the site owner's exclude rules, and capped reads.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use onrecord_sources::files::{self, FileError, MAX_FILE_BYTES};
use onrecord_sources::{has_body_marker, is_html, is_markdown};

use crate::Options;
use crate::privacy::private_prefix;
use crate::report::WarningLog;

/// What a corpus folder holds, and so which reader reads its pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Input {
    /// Markdown pages (`.md`, `.mdx`, `.markdown`).
    #[default]
    Markdown,
    /// A built site: `.html` pages.
    Html,
}

impl Input {
    /// The input of a corpus, from its file list: a built site when it has more HTML pages
    /// than markdown pages outside the private folder (private notes stay markdown beside an
    /// HTML site); the other kind is then ignored, with a warning when there is any.
    pub fn detect(files: &[String], private_prefix: &str) -> Input {
        let public = |rel: &&String| !rel.starts_with(private_prefix);
        let markdown = files
            .iter()
            .filter(public)
            .filter(|r| is_markdown(r))
            .count();
        let html = files.iter().filter(|r| is_html(r)).count();
        if html > markdown {
            Input::Html
        } else {
            Input::Markdown
        }
    }

    /// Whether a file is a page of this input.
    pub(crate) fn is_page(self, rel: &str) -> bool {
        match self {
            Input::Markdown => is_markdown(rel),
            Input::Html => is_html(rel),
        }
    }
}

/// What the corpus at `root` is read as (markdown or a built HTML site), as [`crate::build`]
/// decides.
pub fn corpus_input(root: &Path, options: &Options) -> Result<Input> {
    let files = list_files(root)?.files;
    Ok(Input::detect(&files, &private_prefix(options)))
}

/// Why the page at `rel` is not read, when it is not: it is excluded by the site owner, or it
/// is one of a generator's asset files (Sphinx copies a theme's and its fonts' files, read-me
/// pages among them, into `_static/`; nothing there is a page of the docs).
pub(crate) fn not_read(rel: &str, input: Input, exclude: &[String]) -> Option<String> {
    if let Some(rule) = exclude.iter().find(|e| under(rel, e)) {
        return Some(format!("excluded ({rule})"));
    }
    let in_assets = rel
        .split('/')
        .rev()
        .skip(1)
        .any(|folder| folder == "_static");
    (input == Input::Html && in_assets).then(|| "a theme's asset file (Sphinx's _static/)".into())
}

/// Whether the exclude rule `rule` covers `rel`: `rel` is the file it names or lies in the
/// folder it names (with or without its '/'). A rule is a path from the input's root whose
/// segments may hold `*` (any run of characters but '/'), `?` (one such character) or be
/// `**` (any number of folders): `old/v*`, `**/print.html`, `api/**/*.txt`.
pub(crate) fn under(rel: &str, rule: &str) -> bool {
    let rule = rule.trim_start_matches("./").trim_matches('/');
    if rule.is_empty() {
        return false;
    }
    let pattern: Vec<&str> = rule.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = rel.split('/').collect();
    covers(&pattern, &path)
}

/// Whether `pattern` matches `path` or one of its leading folders.
fn covers(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((&"**", rest)) => (0..=path.len()).any(|skip| covers(rest, &path[skip..])),
        Some((segment, rest)) => path
            .split_first()
            .is_some_and(|(name, tail)| segment_matches(segment, name) && covers(rest, tail)),
    }
}

/// Whether one path segment `name` matches `pattern` with `*` and `?` wildcards.
fn segment_matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j) = (0, 0);
    // Where the last `*` was, and where in `name` it was last tried up to.
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            // Let the `*` take one more character and try again.
            star = Some((si, sj + 1));
            i = si + 1;
            j = sj + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The files of a corpus, as the build may read them.
pub(crate) struct Listing {
    /// Paths relative to the root, `/`-separated, sorted.
    pub(crate) files: Vec<String>,
    /// The root, canonical: no file outside it is read.
    pub(crate) fence: PathBuf,
    /// What was skipped, and why.
    pub(crate) warnings: WarningLog,
}

/// Lists the regular files under `root` (issue 43: the build reads only what is inside its
/// input folder). Hidden entries are skipped; so are links whose target lies outside the root
/// (a warning names each), linked folders (what they hold inside the root is listed where it
/// lies), FIFOs, sockets and devices (never opened: a warning names each) and names that are
/// not UTF-8 (a warning). No recursion: folders may nest as deep as the file system allows.
pub(crate) fn list_files(root: &Path) -> Result<Listing> {
    let fence = fs::canonicalize(root)
        .with_context(|| format!("cannot list the corpus at {}", root.display()))?;
    let mut files = Vec::new();
    let mut warnings = WarningLog::default();
    let mut folders = vec![root.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let entries =
            fs::read_dir(&dir).with_context(|| format!("cannot read folder {}", dir.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read folder {}", dir.display()))?;
            let path = entry.path();
            let shown = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                warnings.push(
                    "file names not UTF-8",
                    format!("{shown}: file name is not valid UTF-8; skipped"),
                );
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let mut file_type = entry
                .file_type()
                .with_context(|| format!("{shown}: cannot read its file type"))?;
            if file_type.is_symlink() {
                match files::resolve_within(&path, &fence) {
                    // A broken link holds nothing to read.
                    Err(FileError::Io(_)) => continue,
                    Err(e) => {
                        warnings.push(
                            "links out of the input folder",
                            format!("{shown}: a link that {e}; skipped"),
                        );
                        continue;
                    }
                    Ok(target) => match fs::metadata(&target) {
                        Ok(meta) if meta.is_dir() => continue,
                        Ok(meta) => file_type = meta.file_type(),
                        Err(_) => continue,
                    },
                }
            }
            if file_type.is_dir() {
                folders.push(path);
            } else if file_type.is_file() {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                files.push(rel.join("/"));
            } else {
                warnings.push(
                    "special files",
                    format!(
                        "{shown}: {}, which the build never opens; skipped",
                        files::describe(file_type)
                    ),
                );
            }
        }
    }
    files.sort();
    Ok(Listing {
        files,
        fence,
        warnings,
    })
}

/// The bytes of the listed file `rel`, or `None` with a warning when it is over
/// [`MAX_FILE_BYTES`] or no longer a regular file inside the root. Read errors fail the build,
/// naming the file.
pub(crate) fn read_file(
    root: &Path,
    fence: &Path,
    rel: &str,
    warnings: &mut WarningLog,
) -> Result<Option<Vec<u8>>> {
    match files::read_within(&root.join(rel), fence, MAX_FILE_BYTES) {
        Ok((_, bytes)) => Ok(Some(bytes)),
        Err(FileError::Io(e)) => Err(e).with_context(|| format!("{rel}: cannot read file")),
        Err(e @ FileError::TooLarge { .. }) => {
            warnings.push("files too large", format!("{rel}: {e}; skipped"));
            Ok(None)
        }
        Err(e) => {
            warnings.push("files not read", format!("{rel}: {e}; skipped"));
            Ok(None)
        }
    }
}

/// Whether any HTML page of the site marks its content with `data-onrecord-body` (a page that
/// cannot be read is warned about when the build reads it).
pub(crate) fn any_body_marker(root: &Path, fence: &Path, files: &[String]) -> Result<bool> {
    let mut ignored = WarningLog::default();
    for rel in files.iter().filter(|r| is_html(r)) {
        let Some(bytes) = read_file(root, fence, rel, &mut ignored)? else {
            continue;
        };
        if has_body_marker(&String::from_utf8_lossy(&bytes)) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::under;

    #[test]
    fn exclude_rules_are_paths_from_the_root_with_wildcards() {
        let cases = [
            ("old", "old/v1/index.html", true),
            ("old/", "older.html", false),
            ("./changes.html", "changes.html", true),
            ("changes.html", "news/changes.html", false),
            ("v*", "v1.2/index.html", true),
            ("v*", "guide/v1.html", false),
            ("**/print.html", "print.html", true),
            ("**/print.html", "a/b/print.html", true),
            ("api/**/*.txt", "api/x/y/notes.txt", true),
            ("api/**/*.txt", "api/notes.txt.html", false),
            ("page?.html", "page1.html", true),
            ("page?.html", "page10.html", false),
            ("*draft*", "my-draft-page.html", true),
            ("", "index.html", false),
            ("/", "index.html", false),
        ];
        for (rule, rel, want) in cases {
            assert_eq!(under(rel, rule), want, "{rule} on {rel}");
        }
    }
}
