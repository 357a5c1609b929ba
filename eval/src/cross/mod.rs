//! The cross-corpus protocol (../shared/EVAL.md): each corpus of the registry is left out in
//! turn; every knob is chosen, and the decline model fit, on the dev halves of the other
//! corpora only; then the left-out corpus is scored on its test half (which nobody looked at
//! while building the method) and on all its questions. The mean and the worst fold estimate
//! what a site nobody tuned on gets. Separately, the shipped configuration (chosen the same
//! way on every corpus's dev half) is scored on each test half.
//!
//! `run` builds the corpora and scores the folds (`fold.rs`), chooses every fold's knobs
//! (`knobs.rs`), writes the report (`report.rs`) and the source of the shipped configuration
//! (`shipped.rs`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use build_index::{Build, Embedder, Options};
use onrecord_core::{Index, QueryModel};
use serde::Deserialize;
use serde_json::Value;

use crate::questions::{Question, Split, select};

mod fold;
mod knobs;
mod report;
mod shipped;

/// The site adaptation's sweep chooses its knobs the same way.
#[cfg(feature = "experiments")]
pub use knobs::choose;

/// One question set of the registry (`eval/corpora.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub name: String,
    pub title: String,
    /// Corpus folder, relative to the repository root.
    pub corpus: PathBuf,
    /// Question file, relative to the repository root.
    pub questions: PathBuf,
    /// Held out of every fit: no fold's knobs and not the shipped ones are chosen on it, so
    /// its own fold is the shipped configuration on a site it never saw.
    #[serde(default)]
    pub held_out: bool,
    /// A second question file of terse questions on the same corpus ("blackd default port"),
    /// never in any fit: scored with each fold's knobs beside the main set.
    #[serde(default)]
    pub terse: Option<PathBuf>,
    /// Short questions as visitors type them, each labelled with the kind of answer it asks
    /// for (`asks`): in no fit, scored with each fold's knobs like the terse file.
    #[serde(default)]
    pub typed: Option<PathBuf>,
    /// The folder the corpus's includes may read, relative to the repository root (absent:
    /// the corpus folder itself; the Black docs include ../CHANGES.md).
    #[serde(default)]
    pub include_root: Option<PathBuf>,
}

impl Entry {
    /// The build settings for this corpus: `options` with its include root.
    pub fn options(&self, options: &Options) -> Options {
        Options {
            include_root: self.include_root.clone(),
            ..options.clone()
        }
    }
}

#[derive(Debug, Deserialize)]
struct Registry {
    corpora: Vec<Entry>,
}

/// Reads the registry; paths in it are relative to `root`.
pub fn load_registry(path: &Path, root: &Path) -> Result<Vec<Entry>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let registry: Registry = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a corpus registry", path.display()))?;
    if in_fit(&registry.corpora).len() < 2 {
        bail!(
            "{}: leaving one corpus out needs at least two corpora that are not held out",
            path.display()
        );
    }
    Ok(registry
        .corpora
        .into_iter()
        .map(|e| Entry {
            corpus: root.join(&e.corpus),
            questions: root.join(&e.questions),
            terse: e.terse.as_ref().map(|t| root.join(t)),
            typed: e.typed.as_ref().map(|t| root.join(t)),
            include_root: e.include_root.as_ref().map(|d| root.join(d)),
            ..e
        })
        .collect())
}

/// The positions of the registry's corpora that knobs are chosen on: all but the held-out.
pub fn in_fit<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Vec<usize> {
    entries
        .into_iter()
        .enumerate()
        .filter(|(_, e)| !e.held_out)
        .map(|(c, _)| c)
        .collect()
}

/// A corpus with its index and its checked questions.
struct Corpus {
    entry: Entry,
    questions: Vec<Question>,
    /// The entry's terse questions (empty without a terse file).
    terse: Vec<Question>,
    /// The entry's typed questions (empty without a typed file).
    typed: Vec<Question>,
    built: Build,
    /// The query model the corpus's vectors were made for (adapted to it when asked).
    model: Option<QueryModel>,
    /// With the knobs held: the index read back through the sharded layout, scored with the
    /// knobs the whole index chose.
    sharded: Option<Index>,
}

impl Corpus {
    fn split(&self, split: Split) -> Vec<&Question> {
        select(&self.questions, split)
    }
}

/// What a run of the protocol returns: the report, the JSON and, when asked, the body of
/// `crates/onrecord-core/src/answer/shipped.rs` fit on every corpus's dev half.
pub struct CrossResult {
    pub markdown: String,
    pub json: Value,
    pub shipped_rs: String,
}

/// Runs the protocol over the registry's corpora, built with `options` and `embedder`; with
/// `dump`, also writes every question's evidence (JSON lines, shipped knobs) there, for
/// looking at the features by hand.
pub fn run(
    entries: Vec<Entry>,
    options: &Options,
    embedder: Option<&Embedder>,
    dump: Option<&Path>,
    sharded: bool,
    same_knobs: bool,
) -> Result<CrossResult> {
    let vectors = embedder.is_some();
    let mut corpora = fold::build_all(entries, options, embedder, sharded, same_knobs)?;
    if let Some(path) = dump {
        fold::dump_rows(&corpora, path)?;
    }
    // Every fold's knobs and the pooled fit, chosen before any scoring: with the knobs held,
    // the sharded indexes are scored with what the whole indexes chose.
    let knobs = knobs::choose_knobs(&corpora, vectors);
    if same_knobs {
        fold::answer_from_shards(&mut corpora);
    }
    let folds = fold::score_folds(&corpora, &knobs.folds);
    let shipped = fold::score_shipped(&corpora, knobs.pooled.floors);
    let (markdown, json) = report::write(
        &corpora,
        &knobs,
        &folds,
        &shipped,
        vectors,
        adapted(options),
    );
    Ok(CrossResult {
        markdown,
        json,
        shipped_rs: shipped::shipped_rs(&knobs.pooled.config, vectors),
    })
}

/// Whether the build adapts the query model to each corpus (an experiment).
fn adapted(options: &Options) -> bool {
    #[cfg(feature = "experiments")]
    return options.adapt.is_some();
    #[cfg(not(feature = "experiments"))]
    {
        let _ = options;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(entries: &str) -> Result<Vec<Entry>> {
        let dir = std::env::temp_dir().join(format!("onrecord-registry-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.json", entries.len()));
        std::fs::write(&path, format!(r#"{{"corpora": [{entries}]}}"#))?;
        load_registry(&path, Path::new("/repo"))
    }

    const A: &str = r#"{"name": "a", "title": "A", "corpus": "a", "questions": "a.json"}"#;
    const B: &str = r#"{"name": "b", "title": "B", "corpus": "b", "questions": "b.json"}"#;
    const HELD: &str =
        r#"{"name": "h", "title": "H", "corpus": "h", "questions": "h.json", "held_out": true}"#;

    #[test]
    fn a_held_out_corpus_is_marked_and_two_others_are_needed_for_a_fit() {
        let entries = registry(&format!("{A}, {B}, {HELD}")).unwrap();
        let held: Vec<bool> = entries.iter().map(|e| e.held_out).collect();
        assert_eq!(held, [false, false, true]);
        assert_eq!(entries[2].corpus, Path::new("/repo/h"));
        let err = registry(&format!("{A}, {HELD}")).unwrap_err().to_string();
        assert!(
            err.contains("at least two corpora that are not held out"),
            "{err}"
        );
    }
}
