//! YAML frontmatter: split it from the body and parse the fields onrecord reads.

use onrecord_core::ReadError;
use serde::Deserialize;

/// The frontmatter fields onrecord reads; any others are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FrontMatter {
    pub title: Option<String>,
    pub description: Option<String>,
    pub summary: Option<String>,
    /// What a work means, in its author's words (the answer-engine archive format).
    pub meaning: Option<String>,
    pub themes: OneOrMany,
    pub keywords: OneOrMany,
    pub lang: Option<String>,
    pub draft: bool,
    pub superseded_by: Option<String>,
    /// The site owner's page kind: `release-notes` or `listing` sets a page aside from quoted
    /// answers (except for questions about versions or changes); `page` keeps it in.
    pub kind: Option<String>,
    /// The collection the page belongs to (`guides`, `decisions`, … or the site's own name);
    /// wins over the folder rules of `onrecord.yml`.
    pub collection: Option<String>,
    pub url: Option<String>,
    pub about: Option<String>,
    pub locator: Option<String>,
    /// Any value but an explicit `false` makes the page private.
    pub private: Option<serde_yaml::Value>,
}

impl FrontMatter {
    /// The page's one-line summary, from `summary` or `meaning`. Not `description`: it is
    /// often SEO text the page does not show, and as a lede it lowered answers on the Express
    /// dev split (correct 0.522 to 0.435).
    pub fn summary(&self) -> Option<&str> {
        [&self.summary, &self.meaning]
            .into_iter()
            .find_map(|f| f.as_deref())
    }

    /// Whether the page declares itself private. A value that is not a plain `false` counts as
    /// private: when in doubt, nothing is published.
    pub fn is_private(&self) -> bool {
        self.private
            .as_ref()
            .is_some_and(|v| v.as_bool() != Some(false))
    }
}

/// A list of words, written either as a YAML list or as one string.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// Splits `source` into parsed frontmatter and the body, with the body's first line number.
///
/// `path` only names the file in errors, which carry the 1-based line of the problem.
pub fn split(path: &str, source: &str) -> Result<(FrontMatter, String, usize), ReadError> {
    let mut lines = source.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Ok((FrontMatter::default(), source.to_owned(), 1));
    }
    let mut yaml = String::new();
    let mut consumed = first.len();
    for (i, line) in lines.enumerate() {
        consumed += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            let body_line = i + 3;
            let fm = parse(path, &yaml)?;
            return Ok((fm, source[consumed..].to_owned(), body_line));
        }
        yaml.push_str(line);
    }
    Err(ReadError {
        path: path.to_owned(),
        line: 1,
        message: "frontmatter opened with '---' is never closed by a '---' line".to_owned(),
    })
}

fn parse(path: &str, yaml: &str) -> Result<FrontMatter, ReadError> {
    if yaml.trim().is_empty() {
        return Ok(FrontMatter::default());
    }
    serde_yaml::from_str(yaml).map_err(|e| {
        // YAML lines count from the line after the opening '---'; serde_yaml's own
        // "at line N column M" suffix counts from the YAML start, so it is dropped.
        let line = e.location().map_or(2, |l| l.line() + 1);
        let mut msg = e.to_string();
        if let Some(at) = msg.find(" at line ") {
            msg.truncate(at);
        }
        ReadError {
            path: path.to_owned(),
            line,
            message: format!("broken frontmatter: {msg}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_and_returns_the_body_with_its_line() {
        let (fm, body, line) = split(
            "a.md",
            "---\ntitle: T\nthemes: [x, y]\ndraft: true\nextra: 1\n---\n# H\n",
        )
        .unwrap();
        assert_eq!(fm.title.as_deref(), Some("T"));
        assert_eq!(fm.themes.to_vec(), ["x", "y"]);
        assert!(fm.draft);
        assert_eq!(body, "# H\n");
        assert_eq!(line, 7);
    }

    #[test]
    fn no_frontmatter_is_fine() {
        let (fm, body, line) = split("a.md", "# H\ntext\n").unwrap();
        assert!(fm.title.is_none());
        assert_eq!((body.as_str(), line), ("# H\ntext\n", 1));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let err = split("dir/a.md", "---\ntitle: T\nthemes: [x\ndraft: true\n---\n").unwrap_err();
        assert!(err.to_string().starts_with("dir/a.md:"), "{err}");
        assert!(err.to_string().contains("broken frontmatter"), "{err}");
        let err = split("a.md", "---\ntitle: T\n\nbody\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "a.md:1: frontmatter opened with '---' is never closed by a '---' line"
        );
        let err = split("a.md", "---\ntitle: T\ndraft: maybe\n---\n").unwrap_err();
        assert!(err.to_string().starts_with("a.md:3:"), "{err}");
    }
}
