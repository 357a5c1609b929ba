//! The corpus's collections: which folders' pages belong to which collection, and each
//! collection's label and cap. The CLI's `onrecord.toml` declares them (`[collections.NAME]`,
//! passed in as [`CollectionRule`]s); `onrecord.yml` at the corpus root, the older home, is
//! still read when no rules are passed, with a deprecation note in the report.
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
    collections: BTreeMap<String, CollectionRule>,
}

/// One collection's rule, as `onrecord.toml`'s `[collections.NAME]` or `onrecord.yml` holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionRule {
    /// Pages under these folders (relative to the corpus root) belong to the collection.
    #[serde(default)]
    pub folders: Vec<String>,
    /// Shown instead of the widget's own label.
    pub label: Option<String>,
    /// At most this many quotes per answer.
    pub cap: Option<u32>,
}

/// A collection rule that cannot be used: which collection, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The collection's name as written.
    pub collection: String,
    pub why: String,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "collection '{}': {}", self.collection, self.why)
    }
}

impl std::error::Error for RuleError {}

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

    /// The settings of collection rules passed in (from `onrecord.toml`), in the order given.
    pub(crate) fn from_rules(rules: &[(String, CollectionRule)]) -> Result<Config, RuleError> {
        let mut config = from_rules(rules)?;
        // The rules take part in the corpus hash as the file's bytes do.
        for (name, rule) in rules {
            config
                .bytes
                .extend(format!("{name}\0{rule:?}\0").into_bytes());
        }
        Ok(config)
    }

    /// Whether both declare the same collections and folder rules (where they were read aside).
    pub(crate) fn declares_same(&self, other: &Config) -> bool {
        self.collections == other.collections && self.folders == other.folders
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
    let rules: Vec<(String, CollectionRule)> = file.collections.into_iter().collect();
    // Semantic errors point at the line that names the collection.
    from_rules(&rules).map_err(|e| {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with(&format!("{}:", e.collection)))
            .map_or(1, |i| i + 1);
        anyhow::anyhow!("{CONFIG_FILE}:{line}: {e}")
    })
}

/// Checks collection rules and turns them into folder prefixes, most specific first.
pub fn check_collections(rules: &[(String, CollectionRule)]) -> Result<(), RuleError> {
    from_rules(rules).map(|_| ())
}

fn from_rules(rules: &[(String, CollectionRule)]) -> Result<Config, RuleError> {
    let mut config = Config::default();
    for (raw, rule) in rules {
        let fail = |why: String| RuleError {
            collection: raw.clone(),
            why,
        };
        let name = collection_name(raw).map_err(|why| fail(why.to_string()))?;
        if rule.cap == Some(0) {
            return Err(fail("cap must be at least 1".into()));
        }
        for folder in &rule.folders {
            let prefix = format!("{}/", folder.trim().trim_matches('/'));
            if prefix == "/" {
                return Err(fail(
                    "a folder must name a folder under the corpus root".into(),
                ));
            }
            if let Some((_, other)) = config.folders.iter().find(|(p, _)| *p == prefix) {
                return Err(fail(format!(
                    "folder '{prefix}' is in collection '{other}' too"
                )));
            }
            config.folders.push((prefix, name.clone()));
        }
        config.collections.push(Collection {
            label: rule.label.clone().unwrap_or_default().trim().to_owned(),
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

/// The collection rules of `root/onrecord.yml`, if there is one (for `onrecord init`, which
/// moves them into `onrecord.toml`).
pub fn yml_collections(root: &Path) -> Result<Option<Vec<(String, CollectionRule)>>> {
    let path = root.join(CONFIG_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let config = Config::load(root)?;
    let text = String::from_utf8(config.bytes).unwrap_or_default();
    let file: File = serde_yaml::from_str(&text).unwrap_or_default();
    Ok(Some(file.collections.into_iter().collect()))
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
            "onrecord.yml:2: collection 'guides': folder 'docs/adr/' is in collection 'decisions' too"
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
