//! `onrecord init`: writes a commented `onrecord.toml` in the current folder for the pages it
//! finds there: a built site (a folder of `.html` pages with an `index.html`) is preferred, as
//! its URLs are the ones visitors see; else the folder with the most markdown pages.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use build_index::{CollectionRule, yml_collections};

use crate::config::CONFIG_FILE;

/// A walk looks at no more entries than this per folder, so `init` stays quick beside a large
/// `node_modules`.
const MAX_ENTRIES: usize = 20_000;
/// Folders that hold tools' files, never pages.
const SKIPPED: [&str; 4] = ["node_modules", "target", "vendor", "onrecord"];

/// Writes `onrecord.toml` for `pages` (found here when not given); refuses to overwrite one.
pub(crate) fn run(pages: Option<&Path>, force: bool) -> Result<()> {
    let path = Path::new(CONFIG_FILE);
    if path.exists() && !force {
        bail!("{CONFIG_FILE} already exists here (--force writes a new one over it)");
    }
    let (input, built) = match pages {
        Some(dir) if !dir.is_dir() => bail!("{} is not a folder", dir.display()),
        Some(dir) => {
            let counts = count_pages(dir);
            (dir.to_owned(), counts.html > counts.markdown)
        }
        None => find_pages(Path::new("."))?,
    };
    let yml = yml_collections(&input)?;
    let text = settings_text(&input, built, yml.as_deref());
    fs::write(path, text).with_context(|| format!("cannot write {CONFIG_FILE}"))?;
    println!(
        "wrote {CONFIG_FILE} for {} ({}); edit it, then run: onrecord build",
        input.display(),
        if built { "a built site" } else { "markdown" }
    );
    if yml.is_some() {
        println!(
            "moved the collections of {} into it: delete that file",
            input.join(build_index::CONFIG_FILE).display()
        );
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    markdown: usize,
    html: usize,
    /// Whether the folder itself holds an `index.html` (a site's front page).
    front_page: bool,
}

/// The folder of pages under `root`: returns it and whether it is a built site.
fn find_pages(root: &Path) -> Result<(PathBuf, bool)> {
    let mut folders: Vec<(PathBuf, Counts)> = Vec::new();
    let entries = fs::read_dir(root).context("cannot list the current folder")?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
            let path = PathBuf::from(&name);
            let counts = count_pages(&path);
            folders.push((path, counts));
        }
    }
    folders.sort_by(|a, b| a.0.cmp(&b.0));
    let site = folders
        .iter()
        .filter(|(_, c)| c.front_page && c.html > 0)
        .max_by_key(|(_, c)| c.html);
    if let Some((path, _)) = site {
        return Ok((path.clone(), true));
    }
    let markdown = folders
        .iter()
        .filter(|(_, c)| c.markdown > 0)
        .max_by_key(|(_, c)| c.markdown);
    if let Some((path, _)) = markdown {
        return Ok((path.clone(), false));
    }
    let here = count_pages(root);
    if here.markdown + here.html > 0 {
        return Ok((PathBuf::from("."), here.html > here.markdown));
    }
    bail!("found no folder of markdown or .html pages here; name it: onrecord init <pages folder>")
}

/// Counts the pages under `dir`, following no links and looking at a bounded number of entries.
fn count_pages(dir: &Path) -> Counts {
    let mut counts = Counts {
        front_page: dir.join("index.html").is_file(),
        ..Counts::default()
    };
    let mut stack = vec![dir.to_owned()];
    let mut seen = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return counts;
            }
            let name = entry.file_name().to_string_lossy().to_lowercase();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                stack.push(entry.path());
            } else if kind.is_file() {
                if name.ends_with(".html") || name.ends_with(".htm") {
                    counts.html += 1;
                } else if [".md", ".mdx", ".markdown"]
                    .iter()
                    .any(|e| name.ends_with(e))
                {
                    counts.markdown += 1;
                }
            }
        }
    }
    counts
}

/// The file's text: every key, the ones in use set, the others commented out with their
/// defaults, each with a line saying what it does.
fn settings_text(input: &Path, built: bool, yml: Option<&[(String, CollectionRule)]>) -> String {
    let input = input.to_string_lossy().replace('\\', "/");
    // A built site gets the widget inside it, so it is copied with the pages; markdown's
    // generator output is elsewhere, so the folder goes beside this file to be copied there.
    let out = if built {
        format!("{}/onrecord", input.trim_end_matches('/'))
    } else {
        "onrecord".to_owned()
    };
    let kind = if built {
        "a built site (.html pages)"
    } else {
        "markdown pages"
    };
    let mut text = format!(
        r#"# onrecord's settings: what `onrecord build` reads (docs/reading-your-site.md says more).
# Paths are relative to this file. A flag given to `onrecord build` overrides its key here.

# The pages: {kind}.
input = "{input}"
# The folder to write: copy it with your site and add
# <script type="module" src="/onrecord/onrecord.js"></script> to your pages.
out = "{out}"

# Language of pages without a `lang` field or `<html lang>`: en or de.
# lang = "en"

# Files or folders of the input not to read (`*`, `?` within a name, `**` any folders).
# exclude = ["v1/**", "**/print.html"]

# The folder (inside the input) of private notes, never indexed.
# private-dir = "private"

# Names of the site or its author, which questions use to mean "these pages".
# site-names = ["Acme"]

# The folder includes may read (default: the input itself).
# include-root = "."

# Match questions by meaning too: the first build fetches the teacher model (~84 MB) into the
# cache once. Once it is cached, builds use it unless this says false.
# vectors = true

# Write the index as a manifest and shards whatever its size (a large site's always is), and
# their target size in bytes.
# shards = true
# shard-size = 16384

# Fragment size in characters.
# fragment-chars = 800
"#
    );
    match yml {
        Some(rules) if !rules.is_empty() => {
            text.push_str("\n# Collections (moved here from onrecord.yml).\n");
            for (name, rule) in rules {
                text.push_str(&format!("[collections.{}]\n", toml_key(name)));
                let folders: Vec<String> = rule.folders.iter().map(|f| toml_str(f)).collect();
                text.push_str(&format!("folders = [{}]\n", folders.join(", ")));
                if let Some(label) = &rule.label {
                    text.push_str(&format!("label = {}\n", toml_str(label)));
                }
                if let Some(cap) = rule.cap {
                    text.push_str(&format!("cap = {cap}\n"));
                }
            }
        }
        _ => text.push_str(
            "\n# Collections: which folders' pages belong together, with a label and a cap on quotes.\n\
             # [collections.decisions]\n\
             # folders = [\"adr/\"]\n\
             # label = \"Why we chose\"\n\
             # cap = 1\n",
        ),
    }
    text
}

/// A TOML basic string (JSON's escapes are TOML's).
fn toml_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// A bare key when it can be one, else a quoted one.
fn toml_key(s: &str) -> String {
    let bare = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if bare { s.to_owned() } else { toml_str(s) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written file parses as settings, with the input and output it names.
    #[test]
    fn the_written_file_is_valid_settings() {
        let rules = vec![(
            "decisions".to_owned(),
            CollectionRule {
                folders: vec!["adr/".into()],
                label: Some("Why \"we\" chose".into()),
                cap: Some(1),
            },
        )];
        for (built, yml) in [(true, None), (false, Some(rules.as_slice()))] {
            let text = settings_text(Path::new("public"), built, yml);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(CONFIG_FILE);
            fs::write(&path, &text).unwrap();
            let settings = crate::config::Settings::find(Some(&path)).unwrap();
            assert_eq!(settings.input, Some(dir.path().join("public")));
            let out = if built { "public/onrecord" } else { "onrecord" };
            assert_eq!(settings.out, Some(dir.path().join(out)));
            assert_eq!(settings.collections.as_deref(), yml, "{text}");
        }
    }
}
