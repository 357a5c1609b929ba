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
    /// In a typed set: what kind of answer the question asks for, as its writer labelled it.
    #[serde(default)]
    pub asks: Option<Asks>,
}

/// The kind of answer a typed question asks for (the `asks` field of a typed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Asks {
    HowTo,
    Default,
    Definition,
    YesNo,
    Why,
}

impl Asks {
    pub const ALL: [Asks; 5] = [
        Asks::HowTo,
        Asks::Default,
        Asks::Definition,
        Asks::YesNo,
        Asks::Why,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Asks::HowTo => "how-to",
            Asks::Default => "default",
            Asks::Definition => "definition",
            Asks::YesNo => "yes-no",
            Asks::Why => "why",
        }
    }
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

/// Whitespace collapsed to single spaces, lowercased, typography folded back to what authors
/// type (`onrecord_core::fold_typography`): how phrases and fragments are compared.
pub fn normalize(s: &str) -> String {
    let folded = onrecord_core::fold_typography(s);
    folded
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The page a generator builds from a markdown source, by the rule mdBook and Sphinx share:
/// `types/never.md` is served as `types/never.html`, and mdBook serves a folder's
/// `README.md` as its `index.html`. Question files name markdown sources; on a built site
/// their evidence is looked for on these pages.
pub fn built_page(source: &str) -> String {
    let Some(stem) = [".md", ".mdx", ".markdown"]
        .iter()
        .find_map(|ext| source.strip_suffix(ext))
    else {
        return source.to_owned();
    };
    match stem.strip_suffix("README") {
        Some(folder) if folder.is_empty() || folder.ends_with('/') => format!("{folder}index.html"),
        _ => format!("{stem}.html"),
    }
}

/// Points every file a question names (evidence, expected and forbidden sources) at the page
/// built from it.
pub fn on_built_site(questions: &mut [Question]) {
    for q in questions {
        for e in &mut q.evidence {
            e.file = built_page(&e.file);
        }
        for file in q.expect_sources.iter_mut().chain(&mut q.forbid_sources) {
            *file = built_page(file);
        }
    }
}

/// Every problem with a question file, as readable lines; empty when the file is sound.
/// A phrase must be in its file as written, or in the text the build reads from it (includes
/// rendered; for a built page, the only text there is).
pub fn check(questions: &[Question], corpus: &Path, options: &build_index::Options) -> Vec<String> {
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
            let phrase = normalize(&e.phrase);
            let raw = fs::read_to_string(corpus.join(&e.file));
            if let Err(err) = &raw {
                problems.push(format!(
                    "{}: cannot read evidence file {}: {err}",
                    q.id, e.file
                ));
                continue;
            }
            let as_written = !e.file.ends_with(".html")
                && raw.is_ok_and(|text| normalize(&text).contains(&phrase));
            let as_read = || {
                build_index::page_text(corpus, &e.file, options)
                    .ok()
                    .flatten()
                    .is_some_and(|text| normalize(&text).contains(&phrase))
            };
            if !as_written && !as_read() {
                problems.push(format!(
                    "{}: phrase not found in {}: {:?}",
                    q.id, e.file, e.phrase
                ));
            }
        }
    }
    problems
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
            asks: None,
        }
    }

    #[test]
    fn built_pages_and_typography() {
        assert_eq!(built_page("types/never.md"), "types/never.html");
        assert_eq!(built_page("change_log.md"), "change_log.html");
        assert_eq!(built_page("README.md"), "index.html");
        assert_eq!(built_page("guide/README.md"), "guide/index.html");
        assert_eq!(built_page("guide/NOT-README.md"), "guide/NOT-README.html");
        assert_eq!(built_page("a/page.html"), "a/page.html");
        assert_eq!(
            normalize("You\u{2019}re \u{201c}it\u{201d} \u{2013}fast \u{2026}"),
            "you're \"it\" --fast ..."
        );
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
