//! The folds: every corpus of the registry built, its questions checked, and each corpus left
//! out in turn scored with the knobs its fold chose without it (on its test half, on all its
//! questions, and on its terse and typed sets); then every corpus's test half scored with the
//! shipped configuration.

use std::path::Path;

use anyhow::{Context, Result, bail};
use build_index::{Embedder, Options, build_with};
use onrecord_core::{AnswerConfig, FEATURE_NAMES, Index, QueryModel, ShardSizes, ShardedIndex};
use serde_json::{Value, json};

use super::knobs::{Chosen, rows};
use super::{Corpus, Entry};
use crate::engine::{ask, assess};
use crate::fit::{Floors, floors_accuracy};
use crate::metrics::{self, Answering, Retrieval, is_relevant};
use crate::questions::{self, Kind, Question, Split, select};

/// Builds every corpus of the registry with `options` and `embedder` and checks its question
/// files. With `sharded`, each corpus answers from its index read back through the sharded
/// layout; with `same_knobs`, the read-back index is kept aside for [`answer_from_shards`].
pub(super) fn build_all(
    entries: Vec<Entry>,
    options: &Options,
    embedder: Option<&Embedder>,
    sharded: bool,
    same_knobs: bool,
) -> Result<Vec<Corpus>> {
    entries
        .into_iter()
        .map(|entry| build(entry, options, embedder, sharded, same_knobs))
        .collect()
}

/// One corpus built, with its question files loaded and checked.
fn build(
    entry: Entry,
    options: &Options,
    embedder: Option<&Embedder>,
    sharded: bool,
    same_knobs: bool,
) -> Result<Corpus> {
    let options = &entry.options(options);
    let html = build_index::corpus_input(&entry.corpus, options)? == build_index::Input::Html;
    let load = |path: &Path| load_questions(path, &entry, options, html);
    let questions = load(&entry.questions)?;
    let terse = entry
        .terse
        .as_deref()
        .map(load)
        .transpose()?
        .unwrap_or_default();
    let typed = entry
        .typed
        .as_deref()
        .map(load)
        .transpose()?
        .unwrap_or_default();
    let mut built = build_with(&entry.corpus, options, embedder)
        .with_context(|| format!("cannot build the {} corpus", entry.name))?;
    let mut read_back = None;
    if sharded || same_knobs {
        let index = through_shards(&built.index)
            .with_context(|| format!("cannot shard the {} corpus", entry.name))?;
        if same_knobs {
            read_back = Some(index);
        } else {
            built.index = index;
        }
    }
    eprintln!(
        "cross: {} built ({} fragments)",
        entry.name,
        built.index.fragments.len()
    );
    let model = built
        .query_model
        .as_deref()
        .map(QueryModel::from_bytes)
        .transpose()
        .map_err(|e| anyhow::anyhow!("{}: {e}", entry.name))?;
    #[cfg(feature = "experiments")]
    if let Some(a) = &built.report.adaptation {
        eprintln!(
            "cross: {} query model adapted in {:.1} s ({} pseudo-queries, {} rows, cos {:.3} -> {:.3} float, {:.3} requantised)",
            entry.name,
            a.secs,
            a.pseudo_queries,
            a.rows_changed,
            a.cos_before,
            a.cos_trained,
            a.cos_after
        );
    }
    Ok(Corpus {
        entry,
        questions,
        terse,
        typed,
        built,
        model,
        sharded: read_back,
    })
}

/// A question file of `entry`, checked against its corpus (on a built site, the file's
/// markdown sources are read as the built pages).
fn load_questions(
    path: &Path,
    entry: &Entry,
    options: &Options,
    html: bool,
) -> Result<Vec<Question>> {
    let mut questions = questions::load(path)?;
    if html {
        questions::on_built_site(&mut questions);
    }
    let problems = questions::check(&questions, &entry.corpus, options);
    if let Some(first) = problems.first() {
        bail!(
            "{}: {} problem(s), first: {first}",
            path.display(),
            problems.len()
        );
    }
    Ok(questions)
}

/// The index as a visitor's browser would hold it after fetching every shard: written as a
/// manifest and shards (always sharded, standard shard sizes, vectors in IVF lists) and read
/// back: every text shard is taken, and vector search still reads only the probed lists.
fn through_shards(index: &Index) -> Result<Index> {
    let sizes = ShardSizes {
        threshold: 0,
        ..ShardSizes::STANDARD
    };
    let files = build_index::to_shards(index, sizes)?;
    let mut sharded = ShardedIndex::from_manifest(&files.manifest)?;
    for (name, bytes) in &files.shards {
        sharded.add_shard(name, bytes)?;
    }
    eprintln!(
        "cross: read back from a manifest and {} shards",
        files.shards.len()
    );
    Ok(sharded.into_index())
}

/// With the knobs held: from here on, each corpus answers from its index read back through
/// the sharded layout, scored with the knobs the whole index chose.
pub(super) fn answer_from_shards(corpora: &mut [Corpus]) {
    for c in corpora {
        if let Some(index) = c.sharded.take() {
            c.built.index = index;
        }
    }
}

/// Writes every question's evidence and the shipped answer (JSON lines, shipped knobs) to
/// `path`, for looking at by hand: the long, terse and typed sets (`set`), each with its split.
pub(super) fn dump_rows(corpora: &[Corpus], path: &Path) -> Result<()> {
    let mut lines = String::new();
    for c in corpora {
        let sets = [
            ("long", &c.questions),
            ("terse", &c.terse),
            ("typed", &c.typed),
        ];
        for (set, questions) in sets {
            let dev = select(questions, Split::Dev);
            for q in questions {
                let row = dump_row(c, q, set, dev.iter().any(|d| d.id == q.id));
                lines.push_str(&serde_json::to_string(&row)?);
                lines.push('\n');
            }
        }
    }
    std::fs::write(path, lines).with_context(|| format!("cannot write {}", path.display()))
}

/// One question's line of [`dump_rows`].
fn dump_row(c: &Corpus, q: &Question, set: &str, dev: bool) -> Value {
    let index = &c.built.index;
    let model = c.model.as_ref();
    let config = &AnswerConfig::DEFAULT;
    let a = assess(index, model, &q.question, config);
    let answer = ask(index, model, &q.question, config);
    let grounded = q.answerable()
        && a.quotes
            .iter()
            .any(|quote| is_relevant(index, q, quote.fragment));
    let features: serde_json::Map<String, Value> = FEATURE_NAMES
        .iter()
        .zip(a.features.values)
        .map(|(n, v)| ((*n).to_owned(), json!(v)))
        .collect();
    let quoted: Vec<&str> = a.quotes.iter().map(|quote| quote.text.as_str()).collect();
    json!({
        "corpus": c.entry.name, "set": set, "id": q.id, "type": q.kind.name(),
        "asks": q.asks.map(|k| format!("{k:?}")), "read_as": a.kind.name(), "dev": dev,
        "question": q.question, "grounded": grounded,
        "quote_hit": q.answerable() && metrics::quote_holds_evidence(q, &quoted.join(" ")),
        "answered": answer.decline.is_none(), "mode": format!("{:?}", answer.mode),
        "hard": a.hard_decline.is_some(), "features": features,
        "quotes": quoted,
        "evidence": q.evidence.iter().map(|e| e.phrase.as_str()).collect::<Vec<_>>(),
        "missing_on_page": a.missing_on_page,
        "terms": a.terms.iter().map(|t| (t.word.clone(), t.idf)).collect::<Vec<_>>(),
    })
}

/// Everything measured on one set of questions with one configuration.
pub(super) struct Scored {
    pub(super) retrieval: Retrieval,
    pub(super) by_type: Vec<(Kind, Retrieval)>,
    pub(super) answering: Answering,
    /// Balanced accuracy of the hand-set floors chosen on the same training data.
    pub(super) floors_ba: f64,
}

/// Scores `qs` of `c` with the fold's knobs, and the hand-set floors beside them.
fn score(c: &Corpus, model: Option<&QueryModel>, qs: &[&Question], chosen: &Chosen) -> Scored {
    let index = &c.built.index;
    let config = &chosen.config;
    // What the answerer weighs, in its order: fused, set-aside pages left out, reranked.
    let rank = |q: &str| -> Vec<u32> { assess(index, model, q, config).ranked };
    let by_type = Kind::ALL
        .into_iter()
        .filter(|k| *k != Kind::Unanswerable)
        .map(|k| {
            let of_kind: Vec<&Question> = qs.iter().copied().filter(|q| q.kind == k).collect();
            (k, metrics::retrieval(index, &of_kind, &rank))
        })
        .collect();
    let floor_rows = rows(c, 0, qs, model, config);
    let (floors_ba, _) = floors_accuracy(&chosen.floors, &floor_rows);
    Scored {
        retrieval: metrics::retrieval(index, qs, &rank),
        by_type,
        answering: metrics::answering(index, model, qs, config),
        floors_ba,
    }
}

/// Every left-out corpus scored with its fold's knobs, in the registry's order.
pub(super) struct Folds {
    /// On its test half.
    pub(super) test: Vec<Scored>,
    /// On all its questions.
    pub(super) all: Vec<Scored>,
    /// Where its answerable questions are lost (all questions).
    pub(super) lost: Vec<Lost>,
    /// The terse questions of the folds that have them.
    pub(super) terse: SideSet,
    /// The typed questions of the folds that have them.
    pub(super) typed: SideSet,
}

/// Where a fold's answerable questions are lost, beside its retrieval and answering scores.
pub(super) struct Lost {
    /// The answerable questions (at least 1).
    pub(super) answerable: f64,
    /// The share of them whose would-be quote's fragment holds the evidence.
    pub(super) grounded: f64,
}

/// A further question set on some folds' corpora, in no fit: which folds, and their scores.
#[derive(Default)]
pub(super) struct SideSet {
    pub(super) folds: Vec<usize>,
    pub(super) results: Vec<Scored>,
}

impl SideSet {
    fn push(&mut self, fold: usize, c: &Corpus, qs: &[Question], chosen: &Chosen) {
        if !qs.is_empty() {
            let qs: Vec<&Question> = qs.iter().collect();
            self.folds.push(fold);
            self.results.push(score(c, c.model.as_ref(), &qs, chosen));
        }
    }
}

/// Scores each corpus left out with `chosen[its position]`.
pub(super) fn score_folds(corpora: &[Corpus], chosen: &[Chosen]) -> Folds {
    let mut folds = Folds {
        test: Vec::new(),
        all: Vec::new(),
        lost: Vec::new(),
        terse: SideSet::default(),
        typed: SideSet::default(),
    };
    for (left, (c, chosen)) in corpora.iter().zip(chosen).enumerate() {
        let test = c.split(Split::Test);
        let every = c.split(Split::All);
        folds.test.push(score(c, c.model.as_ref(), &test, chosen));
        folds.all.push(score(c, c.model.as_ref(), &every, chosen));
        let fold_rows = rows(c, 0, &every, c.model.as_ref(), &chosen.config);
        let answerable = fold_rows.iter().filter(|r| r.answerable).count().max(1) as f64;
        let grounded = fold_rows.iter().filter(|r| r.grounded).count() as f64;
        folds.lost.push(Lost {
            answerable,
            grounded: grounded / answerable,
        });
        folds.terse.push(left, c, &c.terse, chosen);
        folds.typed.push(left, c, &c.typed, chosen);
    }
    folds
}

/// The shipped configuration on every corpus's test half (the hand-set floors of the pooled
/// fit beside it).
pub(super) fn score_shipped(corpora: &[Corpus], floors: Floors) -> Vec<Scored> {
    let shipped = Chosen {
        config: AnswerConfig::DEFAULT,
        floors,
    };
    corpora
        .iter()
        .map(|c| score(c, c.model.as_ref(), &c.split(Split::Test), &shipped))
        .collect()
}
