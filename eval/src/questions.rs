//! Question files (the schema in ../shared/EVAL.md), their checker and the dev/test split.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// One question. Unknown fields are allowed (question files may carry notes of their own).
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub question: String,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// The mode the answer must have (`answer`, `related-material`, `not-found`), if stated.
    #[serde(default)]
    pub expect_mode: Option<String>,
    /// Files retrieval must surface in its top 5 (relative to the corpus root).
    #[serde(default)]
    pub expect_sources: Vec<String>,
    /// Files that must not be cited.
    #[serde(default)]
    pub forbid_sources: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Lookup,
    Paraphrase,
    MultiDoc,
    Unanswerable,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::Lookup,
        Kind::Paraphrase,
        Kind::MultiDoc,
        Kind::Unanswerable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Lookup => "lookup",
            Kind::Paraphrase => "paraphrase",
            Kind::MultiDoc => "multi-doc",
            Kind::Unanswerable => "unanswerable",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Evidence {
    pub file: String,
    pub phrase: String,
}

impl Question {
    pub fn answerable(&self) -> bool {
        self.kind != Kind::Unanswerable
    }
}

pub fn load(path: &Path) -> Result<Vec<Question>> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a valid question file", path.display()))
}

/// Whitespace collapsed to single spaces, lowercased: how phrases and fragments are compared.
pub fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Every problem with a question file, as readable lines; empty when the file is sound.
pub fn check(questions: &[Question], corpus: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ids = BTreeSet::new();
    for q in questions {
        if !ids.insert(q.id.as_str()) {
            problems.push(format!("{}: duplicate id", q.id));
        }
        if q.question.trim().is_empty() {
            problems.push(format!("{}: empty question", q.id));
        }
        match (q.answerable(), q.evidence.is_empty()) {
            (true, true) => problems.push(format!(
                "{}: {} question without evidence",
                q.id,
                q.kind.name()
            )),
            (false, false) => {
                problems.push(format!("{}: unanswerable question with evidence", q.id))
            }
            _ => {}
        }
        if q.kind == Kind::MultiDoc {
            let files: BTreeSet<&str> = q.evidence.iter().map(|e| e.file.as_str()).collect();
            if files.len() < 2 {
                problems.push(format!(
                    "{}: multi-doc question with evidence from one file",
                    q.id
                ));
            }
        }
        for e in &q.evidence {
            let words = e.phrase.split_whitespace().count();
            if !(6..=20).contains(&words) {
                problems.push(format!(
                    "{}: phrase has {words} words (6-20 expected): {:?}",
                    q.id, e.phrase
                ));
            }
            match read_expanded(&corpus.join(&e.file), 0) {
                Err(err) => problems.push(format!(
                    "{}: cannot read evidence file {}: {err}",
                    q.id, e.file
                )),
                Ok(text) if !normalize(&text).contains(&normalize(&e.phrase)) => {
                    problems.push(format!(
                        "{}: phrase not found in {}: {:?}",
                        q.id, e.file, e.phrase
                    ));
                }
                Ok(_) => {}
            }
        }
    }
    problems
}

/// A page's source with its include directives replaced by the included files (MyST
/// ```` ```{include} path ```` blocks and mdBook `{{#include path}}` lines, relative to the
/// page), as the site shows it: evidence may quote an included file under the page's name.
fn read_expanded(path: &Path, depth: usize) -> std::io::Result<String> {
    let text = fs::read_to_string(path)?;
    if depth > 3 {
        return Ok(text);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        let myst = trimmed.strip_prefix("```{include}").map(str::trim);
        let mdbook = trimmed
            .strip_prefix("{{#include ")
            .or_else(|| trimmed.strip_prefix("{{#rustdoc_include "))
            .and_then(|rest| rest.split(['}', ':']).next())
            .map(str::trim);
        match (myst, mdbook) {
            (Some(target), _) => {
                // The directive's options and closing fence are not page text.
                for rest in lines.by_ref() {
                    if rest.trim_start().starts_with("```") {
                        break;
                    }
                }
                out.push_str(&read_expanded(&dir.join(target), depth + 1).unwrap_or_default());
            }
            (None, Some(target)) => {
                out.push_str(&read_expanded(&dir.join(target), depth + 1).unwrap_or_default());
            }
            (None, None) => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Dev,
    Test,
    All,
}

impl Split {
    pub fn parse(s: &str) -> Option<Split> {
        match s {
            "dev" => Some(Split::Dev),
            "test" => Some(Split::Test),
            "all" => Some(Split::All),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test => "test",
            Split::All => "all",
        }
    }
}

/// The questions of `split`: within each type, questions ordered by a hash of their id go
/// alternately to dev and test, so both halves keep the type mix and the split never changes
/// when unrelated questions are added.
pub fn select(questions: &[Question], split: Split) -> Vec<&Question> {
    if split == Split::All {
        return questions.iter().collect();
    }
    let mut res = Vec::new();
    for kind in Kind::ALL {
        let mut of_kind: Vec<&Question> = questions.iter().filter(|q| q.kind == kind).collect();
        of_kind.sort_by_key(|q| (fnv1a(&q.id), q.id.clone()));
        let want_dev = split == Split::Dev;
        res.extend(
            of_kind
                .into_iter()
                .enumerate()
                .filter(|(i, _)| (i % 2 == 0) == want_dev)
                .map(|(_, q)| q),
        );
    }
    res.sort_by(|a, b| a.id.cmp(&b.id));
    res
}

pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, kind: Kind) -> Question {
        Question {
            id: id.into(),
            kind,
            question: "?".into(),
            evidence: vec![],
            expect_mode: None,
            expect_sources: vec![],
            forbid_sources: vec![],
        }
    }

    #[test]
    fn split_halves_are_disjoint_stratified_and_stable() {
        let qs: Vec<Question> = (0..40)
            .map(|i| {
                q(
                    &format!("q{i:02}"),
                    if i % 4 == 0 {
                        Kind::Unanswerable
                    } else {
                        Kind::Lookup
                    },
                )
            })
            .collect();
        let dev: Vec<&str> = select(&qs, Split::Dev)
            .iter()
            .map(|q| q.id.as_str())
            .collect();
        let test: Vec<&str> = select(&qs, Split::Test)
            .iter()
            .map(|q| q.id.as_str())
            .collect();
        assert_eq!(dev.len() + test.len(), 40);
        assert!(dev.iter().all(|id| !test.contains(id)));
        let unanswerable_in_dev = select(&qs, Split::Dev)
            .iter()
            .filter(|q| !q.answerable())
            .count();
        assert_eq!(unanswerable_in_dev, 5);
        assert_eq!(
            dev,
            select(&qs, Split::Dev)
                .iter()
                .map(|q| q.id.as_str())
                .collect::<Vec<_>>()
        );
    }
}
