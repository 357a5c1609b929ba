//! `onrecord.toml`: what `onrecord build`'s flags say, in one file beside the site, so a CI
//! build does not repeat them. Flags given on the command line override it. Paths in it are
//! relative to the file's folder. Every mistake names the file, the line and the key.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use build_index::{CollectionRule, check_collections};
use onrecord_core::Lang;
use serde::Deserialize;
use toml::Spanned;

/// The file's name, looked for in the current folder.
pub(crate) const CONFIG_FILE: &str = "onrecord.toml";

/// The settings as written; every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    input: Option<PathBuf>,
    out: Option<PathBuf>,
    lang: Option<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<String>,
    private_dir: Option<String>,
    #[serde(default)]
    site_names: Vec<String>,
    include_root: Option<PathBuf>,
    fragment_chars: Option<Spanned<usize>>,
    vectors: Option<bool>,
    shards: Option<bool>,
    shard_size: Option<Spanned<usize>>,
    collections: Option<BTreeMap<Spanned<String>, CollectionRule>>,
}

/// The settings of an `onrecord.toml`, checked, with paths made relative to the working folder.
#[derive(Debug, Default)]
pub(crate) struct Settings {
    /// The file they came from (`None`: there is none).
    pub(crate) path: Option<PathBuf>,
    pub(crate) input: Option<PathBuf>,
    pub(crate) out: Option<PathBuf>,
    pub(crate) lang: Option<Lang>,
    pub(crate) exclude: Vec<String>,
    pub(crate) private_dir: Option<String>,
    pub(crate) site_names: Vec<String>,
    pub(crate) include_root: Option<PathBuf>,
    pub(crate) fragment_chars: Option<usize>,
    pub(crate) vectors: Option<bool>,
    pub(crate) shards: Option<bool>,
    pub(crate) shard_size: Option<usize>,
    pub(crate) collections: Option<Vec<(String, CollectionRule)>>,
}

impl Settings {
    /// Reads `--config FILE` when given (it must exist), else `onrecord.toml` in the current
    /// folder if there is one.
    pub(crate) fn find(explicit: Option<&Path>) -> Result<Settings> {
        let path = match explicit {
            Some(path) => path.to_owned(),
            None if Path::new(CONFIG_FILE).is_file() => PathBuf::from(CONFIG_FILE),
            None => return Ok(Settings::default()),
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read the settings file {}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new("")).to_owned();
        let mut settings = parse(&text, &path.display().to_string(), &base)?;
        settings.path = Some(path);
        Ok(settings)
    }
}

/// Parses the file's text; `name` is how errors call it, `base` the folder its paths start from.
fn parse(text: &str, name: &str, base: &Path) -> Result<Settings> {
    let at = |span: Range<usize>| -> String {
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        format!("{name}:{line}")
    };
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(String::from(name), &at);
        // The line's own text names the key the message is about.
        let code = e
            .span()
            .map(|span| line_text(text, span.start))
            .filter(|code| !code.is_empty())
            .map_or(String::new(), |code| format!(" `{code}`:"));
        anyhow::anyhow!("{line}:{code} {}", e.message().trim_end())
    })?;
    let lang = match file.lang {
        Some(tag) => Some(Lang::from_tag(tag.get_ref()).with_context(|| {
            format!(
                "{}: lang: unsupported language '{}'",
                at(tag.span()),
                tag.get_ref()
            )
        })?),
        None => None,
    };
    for (key, value) in [
        ("fragment-chars", &file.fragment_chars),
        ("shard-size", &file.shard_size),
    ] {
        if let Some(value) = value.as_ref().filter(|v| *v.get_ref() == 0) {
            bail!("{}: {key}: must be at least 1", at(value.span()));
        }
    }
    let collections = match file.collections {
        Some(table) => {
            let spans: Vec<Range<usize>> = table.keys().map(Spanned::span).collect();
            let rules: Vec<(String, CollectionRule)> = table
                .into_iter()
                .map(|(name, rule)| (name.into_inner(), rule))
                .collect();
            check_collections(&rules).map_err(|e| {
                let i = rules.iter().position(|(n, _)| *n == e.collection);
                let place = i.map_or(String::from(name), |i| at(spans[i].clone()));
                anyhow::anyhow!("{place}: collections.{}: {}", e.collection, e.why)
            })?;
            Some(rules)
        }
        None => None,
    };
    let path = |p: Option<PathBuf>| p.map(|p| base.join(p));
    Ok(Settings {
        path: None,
        input: path(file.input),
        out: path(file.out),
        lang,
        exclude: file.exclude,
        private_dir: file.private_dir,
        site_names: file.site_names,
        include_root: path(file.include_root),
        fragment_chars: file.fragment_chars.map(Spanned::into_inner),
        vectors: file.vectors,
        shards: file.shards,
        shard_size: file.shard_size.map(Spanned::into_inner),
        collections,
    })
}

/// The text of the line that holds byte `at`, trimmed.
fn line_text(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[start..end].trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_err(text: &str, expected: &str) {
        let err = format!(
            "{:#}",
            parse(text, "onrecord.toml", Path::new("")).unwrap_err()
        );
        assert_eq!(err, expected);
    }

    #[test]
    fn every_key_is_read_and_paths_start_at_the_file() {
        let settings = parse(
            "input = 'public'\nout = 'public/onrecord'\nlang = 'de'\nexclude = ['v1/**']\n\
             private-dir = 'notes'\nsite-names = ['Acme']\ninclude-root = '.'\nfragment-chars = 600\n\
             vectors = true\nshards = true\nshard-size = 8192\n\
             [collections.decisions]\nfolders = ['adr/']\ncap = 1\nlabel = 'Why'\n",
            "onrecord.toml",
            Path::new("site"),
        )
        .unwrap();
        assert_eq!(settings.input, Some(PathBuf::from("site/public")));
        assert_eq!(settings.out, Some(PathBuf::from("site/public/onrecord")));
        assert_eq!(settings.include_root, Some(PathBuf::from("site/.")));
        assert_eq!(settings.lang, Some(Lang::German));
        assert_eq!(settings.exclude, ["v1/**"]);
        assert_eq!(settings.private_dir.as_deref(), Some("notes"));
        assert_eq!(settings.site_names, ["Acme"]);
        assert_eq!(
            (settings.fragment_chars, settings.shard_size),
            (Some(600), Some(8192))
        );
        assert_eq!(
            (settings.vectors, settings.shards),
            (Some(true), Some(true))
        );
        assert_eq!(
            settings.collections,
            Some(vec![(
                "decisions".to_owned(),
                CollectionRule {
                    folders: vec!["adr/".into()],
                    label: Some("Why".into()),
                    cap: Some(1),
                }
            )])
        );
        assert!(
            parse("", "onrecord.toml", Path::new(""))
                .unwrap()
                .input
                .is_none()
        );
    }

    #[test]
    fn mistakes_name_the_line_and_the_key() {
        check_err(
            "input = 'docs'\nimput = 'x'\n",
            "onrecord.toml:2: `imput = 'x'`: unknown field `imput`, expected one of `input`, `out`, `lang`, `exclude`, `private-dir`, `site-names`, `include-root`, `fragment-chars`, `vectors`, `shards`, `shard-size`, `collections`",
        );
        check_err(
            "input = 'docs'\nvectors = 'yes'\n",
            "onrecord.toml:2: `vectors = 'yes'`: invalid type: string \"yes\", expected a boolean",
        );
        check_err(
            "\nlang = 'xx'\n",
            "onrecord.toml:2: lang: unsupported language 'xx'",
        );
        check_err(
            "shard-size = 0\n",
            "onrecord.toml:1: shard-size: must be at least 1",
        );
        check_err(
            "[collections.decisions]\nfolders = ['adr']\n[collections.guides]\nfolders = ['adr/']\n",
            "onrecord.toml:3: collections.guides: folder 'adr/' is in collection 'decisions' too",
        );
        check_err(
            "[collections.decisions]\ncaps = 1\n",
            "onrecord.toml:2: `caps = 1`: unknown field `caps`, expected one of `folders`, `label`, `cap`",
        );
        check_err(
            "input = \n",
            "onrecord.toml:1: `input =`: string values must be quoted, expected literal string",
        );
    }
}
