//! The corpus's own settings: `onrecord.yml` at the corpus root. Today it holds the collections:
//! which folders' pages belong to which collection, and each collection's label and cap.
//!
//! ```yaml
//! collections:
//!   decisions:            # guides, decisions, reference, release-notes, or the site's own name
//!     folders: [adr/]     # pages under these folders (a page's `collection:` frontmatter wins)
//!     cap: 1              # at most this many quotes per answer (default 3)
//!     label: Why we chose # instead of the widget's own label
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use anyhow::{Context, Result, bail};
use onrecord_core::Collection;
use onrecord_sources::collection_name;
use onrecord_sources::files::{self, FileError};
use serde::Deserialize;

/// The file's name at the corpus root.
pub const CONFIG_FILE: &str = "onrecord.yml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    collections: BTreeMap<String, Rule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    #[serde(default)]
    folders: Vec<String>,
    label: Option<String>,
    cap: Option<u32>,
}

/// The settings a build uses: declared collections and folder rules.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The declared collections, by name.
    pub(crate) collections: Vec<Collection>,
    /// `(folder prefix ending in '/', collection name)`, longest prefix first.
    folders: Vec<(String, String)>,
    /// The file's bytes, for the corpus hash (empty without a file).
    pub(crate) bytes: Vec<u8>,
}

impl Config {
    /// Reads `root/onrecord.yml`; no file means no settings. Errors name the file and line.
    pub(crate) fn load(root: &Path) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        let fence = fs::canonicalize(root)
            .with_context(|| format!("cannot read the corpus at {}", root.display()))?;
        // Read as the pages are (issue 43): inside the input folder, a regular file, capped.
        let bytes = match files::read_within(&path, &fence, files::MAX_FILE_BYTES) {
            Ok((_, bytes)) => bytes,
            Err(FileError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Config::default());
            }
            Err(e) => bail!("{CONFIG_FILE}: {e}"),
        };
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| anyhow::anyhow!("{CONFIG_FILE}: not UTF-8 text"))?;
        let mut config = parse(text)?;
        config.bytes = bytes;
        Ok(config)
    }

    /// The collection a folder rule gives the page at `rel` (relative to the corpus root).
    pub(crate) fn collection_for(&self, rel: &str) -> Option<&str> {
        self.folders
            .iter()
            .find(|(prefix, _)| rel.starts_with(prefix.as_str()))
            .map(|(_, name)| name.as_str())
    }
}

fn parse(text: &str) -> Result<Config> {
    let file: File = if text.trim().is_empty() {
        File::default()
    } else {
        serde_yaml::from_str(text).map_err(|e| {
            let line = e.location().map_or(1, |l| l.line());
            let mut msg = e.to_string();
            if let Some(at) = msg.find(" at line ") {
                msg.truncate(at);
            }
            anyhow::anyhow!("{CONFIG_FILE}:{line}: {msg}")
        })?
    };
    // Semantic errors point at the line that names the collection.
    let at = |name: &str| {
        text.lines()
            .position(|l| l.trim_start().starts_with(&format!("{name}:")))
            .map_or(1, |i| i + 1)
    };
    let mut config = Config::default();
    for (raw, rule) in file.collections {
        let name = collection_name(&raw).map_err(|why| {
            anyhow::anyhow!("{CONFIG_FILE}:{}: collection '{raw}': {why}", at(&raw))
        })?;
        if rule.cap == Some(0) {
            bail!(
                "{CONFIG_FILE}:{}: collection '{name}': cap must be at least 1",
                at(&raw)
            );
        }
        for folder in rule.folders {
            let prefix = format!("{}/", folder.trim().trim_matches('/'));
            if prefix == "/" {
                bail!(
                    "{CONFIG_FILE}:{}: collection '{name}': a folder must name a folder under the corpus root",
                    at(&raw)
                );
            }
            if let Some((_, other)) = config.folders.iter().find(|(p, _)| *p == prefix) {
                bail!(
                    "{CONFIG_FILE}:{}: folder '{prefix}' is in collection '{other}' and in '{name}'",
                    at(&raw)
                );
            }
            config.folders.push((prefix, name.clone()));
        }
        config.collections.push(Collection {
            label: rule.label.unwrap_or_default().trim().to_owned(),
            cap: rule.cap.unwrap_or(Collection::DEFAULT_CAP),
            name,
        });
    }
    // The most specific folder wins.
    config
        .folders
        .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_map_to_collections_most_specific_first() {
        let err = parse(
            "collections:\n  guides:\n    folders: [docs/, docs/adr/]\n  Decisions:\n    folders: [docs/adr]\n",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "onrecord.yml:2: folder 'docs/adr/' is in collection 'decisions' and in 'guides'"
        );
        let config = parse(
            "collections:\n  guides:\n    folders: [docs]\n  Decisions:\n    folders: [/docs/adr/]\n    cap: 1\n    label: Why\n",
        )
        .unwrap();
        assert_eq!(config.collection_for("docs/adr/0001.md"), Some("decisions"));
        assert_eq!(config.collection_for("docs/guide.md"), Some("guides"));
        assert_eq!(config.collection_for("docsx/guide.md"), None);
        assert_eq!(
            config.collections,
            [
                Collection {
                    name: "decisions".into(),
                    label: "Why".into(),
                    cap: 1
                },
                Collection::named("guides"),
            ]
        );
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        let err = parse("collections:\n  decisions:\n    cap: 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "onrecord.yml:2: collection 'decisions': cap must be at least 1"
        );
        let err = parse("collections:\n  decisions:\n    caps: 1\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("onrecord.yml:3: "), "{err}");
        assert!(err.contains("unknown field `caps`"), "{err}");
        let err = parse("collection: {}\n").unwrap_err().to_string();
        assert!(err.starts_with("onrecord.yml:1: "), "{err}");
        let err = format!(
            "{:#}",
            parse("collections:\n  a b:\n    cap: 1\n").unwrap_err()
        );
        assert!(
            err.starts_with("onrecord.yml:2: collection 'a b': "),
            "{err}"
        );
        assert!(parse("").unwrap().collections.is_empty());
    }
}
