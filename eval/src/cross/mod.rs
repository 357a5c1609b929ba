//! The cross-corpus protocol (../shared/EVAL.md): each corpus of the registry is left out in
//! turn; every knob is chosen, and the decline model fit, on the dev halves of the other
//! corpora only; then the left-out corpus is scored on its test half (which nobody looked at
//! while building the method) and on all its questions. The mean and the worst fold estimate
//! what a site nobody tuned on gets. Separately, the shipped configuration (chosen the same
//! way on every corpus's dev half) is scored on each test half.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use build_index::{Build, Embedder, Options, build_with};
use onrecord_core::{
    AnswerConfig, AskKind, Assessment, DeclineModel, FEATURE_NAMES, Fusion, Index, QueryModel,
    ShardSizes, ShardedIndex, assess, retrieve_fused,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::fit::{self, Row};
use crate::metrics::{self, Answering, DEPTH, Retrieval, content_word_share, is_relevant};
use crate::questions::{self, Kind, Question, Split, select};
use crate::visitor;

mod shipped;

/// Scores per corpus per grid point, as (primary, secondary).
type ScoreMatrix = Vec<Vec<(f64, f64)>>;

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

/// The fusion grid (vector weight × rerank weight × RRF constant), in a fixed order: ties go to
/// the earlier point.
fn fusion_grid() -> Vec<Fusion> {
    let mut grid = Vec::new();
    for vector_weight in [0.5f32, 0.75, 1.0, 1.5, 2.0, 3.0] {
        for rerank_weight in [0.0f32, 0.5, 1.0, 2.0, 4.0] {
            for rrf_c in [5.0f32, 20.0, 60.0] {
                grid.push(Fusion {
                    vector_weight,
                    rerank_weight,
                    rrf_c,
                });
            }
        }
    }
    grid
}

/// How much the shape of a sentence may count when choosing what to quote; 0 first (a tie
/// keeps the plain word count).
const SHAPE_GRID: [f32; 5] = [0.0, 0.1, 0.25, 0.5, 1.0];

/// Scores of every candidate on every corpus: `scores[corpus][candidate]`, each a (primary,
/// tie-break) pair. Corpora are scored on two threads.
fn score_matrix<K: Sync>(
    corpora: &[Corpus],
    candidates: &[K],
    score: &(dyn Fn(&Corpus, &K) -> (f64, f64) + Sync),
) -> Vec<Vec<(f64, f64)>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = corpora
            .iter()
            .map(|c| s.spawn(move || candidates.iter().map(|k| score(c, k)).collect()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// The candidate with the best mean score over the `train` corpora (primary, then tie-break;
/// the earlier candidate on a full tie).
pub fn choose(scores: &[Vec<(f64, f64)>], train: &[usize]) -> usize {
    let n = scores.first().map_or(0, Vec::len);
    let mean = |k: usize| -> (f64, f64) {
        let (mut a, mut b) = (0.0, 0.0);
        for &c in train {
            let (x, y) = scores[c][k];
            a += x;
            b += y;
        }
        let m = train.len().max(1) as f64;
        (a / m, b / m)
    };
    let mut best = 0;
    for k in 1..n {
        let (a, b) = mean(k);
        let (ba, bb) = mean(best);
        if a > ba + 1e-9 || ((a - ba).abs() <= 1e-9 && b > bb + 1e-9) {
            best = k;
        }
    }
    best
}

/// The evidence rows of `qs`, as the decline model's fit sees them.
fn rows(
    c: &Corpus,
    corpus: usize,
    qs: &[&Question],
    model: Option<&QueryModel>,
    config: &AnswerConfig,
) -> Vec<Row> {
    rows_where(c, corpus, qs, model, config, |_| true)
}

/// The rows a decline model is fit on: with a query model, only the questions it reads (a
/// question it gives no vector, such as a German one, is decided by the lexical model).
fn decided_rows(
    c: &Corpus,
    corpus: usize,
    qs: &[&Question],
    model: Option<&QueryModel>,
    config: &AnswerConfig,
) -> Vec<Row> {
    rows_where(c, corpus, qs, model, config, |a| {
        model.is_none() || a.has_vector
    })
}

/// The rows of the questions whose evidence `keep` accepts.
fn rows_where(
    c: &Corpus,
    corpus: usize,
    qs: &[&Question],
    model: Option<&QueryModel>,
    config: &AnswerConfig,
    keep: impl Fn(&Assessment) -> bool,
) -> Vec<Row> {
    qs.iter()
        .filter_map(|q| {
            let a = assess(&c.built.index, model, &q.question, config);
            keep(&a).then(|| row(c, corpus, q, &a))
        })
        .collect()
}

/// One question's row: its evidence and whether quoting would be right.
fn row(c: &Corpus, corpus: usize, q: &Question, a: &Assessment) -> Row {
    let grounded = q.answerable()
        && a.quotes
            .iter()
            .any(|quote| is_relevant(&c.built.index, q, quote.fragment));
    Row {
        corpus,
        answerable: q.answerable(),
        grounded,
        hard_declined: a.hard_decline.is_some(),
        x: a.features.values,
        floors: [a.coverage, a.support, a.meaning.unwrap_or(0.0)],
    }
}

/// Share of the answerable questions whose would-be first quote holds at least half of an
/// evidence phrase's content words (quote hit, before any decline).
fn would_hit(
    c: &Corpus,
    qs: &[&Question],
    model: Option<&QueryModel>,
    config: &AnswerConfig,
) -> f64 {
    let answerable: Vec<&&Question> = qs.iter().filter(|q| q.answerable()).collect();
    let hits = answerable
        .iter()
        .filter(|q| {
            let a = assess(&c.built.index, model, &q.question, config);
            a.quotes.first().is_some_and(|quote| {
                q.evidence
                    .iter()
                    .any(|e| content_word_share(&quote.text, &e.phrase) >= 0.5)
            })
        })
        .count();
    hits as f64 / answerable.len().max(1) as f64
}

/// The hand-set floors the decline model replaced: answer when the meaning floor is met, or
/// when both the coverage and the support floors are.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Floors {
    coverage: f32,
    support: f32,
    meaning: f32,
}

fn floors_grid() -> Vec<Floors> {
    let mut grid = Vec::new();
    for coverage in [0.3f32, 0.4, 0.5, 0.6, 0.7] {
        for support in [0.3f32, 0.4, 0.5, 0.6, 0.7, 0.8] {
            for meaning in [0.4f32, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 2.0] {
                grid.push(Floors {
                    coverage,
                    support,
                    meaning,
                });
            }
        }
    }
    grid
}

impl Floors {
    fn answers(&self, r: &Row) -> bool {
        let [coverage, support, meaning] = r.floors;
        !r.hard_declined
            && (meaning >= self.meaning || (coverage >= self.coverage && support >= self.support))
    }
}

/// (Mean balanced accuracy, mean declined rate) of the floors on `rows`.
fn floors_accuracy(floors: &Floors, rows: &[Row]) -> (f64, f64) {
    let answered: Vec<f32> = rows
        .iter()
        .map(|r| f32::from(u8::from(floors.answers(r))))
        .collect();
    fit::balanced_accuracy(rows, &answered, 0.5)
}

/// The fold's configuration and how it was reached.
struct Chosen {
    config: AnswerConfig,
    floors: Floors,
}

/// Everything measured on one set of questions with one configuration.
struct Scored {
    retrieval: Retrieval,
    by_type: Vec<(Kind, Retrieval)>,
    answering: Answering,
    /// Balanced accuracy of the hand-set floors chosen on the same training data.
    floors_ba: f64,
}

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

fn knobs_json(config: &AnswerConfig, with_vectors: bool) -> Value {
    let model = if with_vectors {
        &config.hybrid
    } else {
        &config.lexical
    };
    json!({
        "vector_weight": config.fusion.vector_weight,
        "rerank_weight": config.fusion.rerank_weight,
        "rrf_c": config.fusion.rrf_c,
        "shape_weight": config.shape_weight,
        "decline": model_json(model),
    })
}

fn model_json(m: &DeclineModel) -> Value {
    let weights: serde_json::Map<String, Value> = FEATURE_NAMES
        .iter()
        .zip(m.weights)
        .map(|(n, w)| ((*n).to_owned(), json!(w)))
        .collect();
    json!({ "bias": m.bias, "weights": weights, "threshold": m.threshold,
            "high": m.high, "medium": m.medium })
}

fn knobs_text(config: &AnswerConfig, with_vectors: bool) -> String {
    let m = if with_vectors {
        &config.hybrid
    } else {
        &config.lexical
    };
    let cut = |c: f32| {
        if c > 1.0 {
            "–".to_owned()
        } else {
            format!("{c:.3}")
        }
    };
    format!(
        "fusion {}/{}/{}, shape {}, decline p<{:.3}, high ≥{}, medium ≥{}",
        config.fusion.vector_weight,
        config.fusion.rerank_weight,
        config.fusion.rrf_c,
        config.shape_weight,
        m.threshold,
        cut(m.high),
        cut(m.medium)
    )
}

fn scored_json(s: &Scored, n: usize) -> Value {
    let by_type: serde_json::Map<String, Value> = s
        .by_type
        .iter()
        .filter(|(_, r)| r.n > 0)
        .map(|(k, r)| {
            (
                k.name().to_owned(),
                json!({ "recall@1": r.recall_1, "recall@5": r.recall_5, "mrr": r.mrr, "n": r.n }),
            )
        })
        .collect();
    let a = &s.answering;
    json!({
        "questions": n,
        "retrieval": {
            "recall@1": s.retrieval.recall_1, "recall@3": s.retrieval.recall_3,
            "recall@5": s.retrieval.recall_5, "mrr": s.retrieval.mrr, "by_type": by_type,
        },
        "answering": {
            "answerable_correct": a.answerable_correct, "answerable_wrong": a.answerable_wrong,
            "quote_hit": a.quote_hit, "unanswerable_declined": a.unanswerable_declined,
            "false_answers": a.false_answers, "balanced_accuracy": a.balanced_accuracy,
        },
        "confidence": a.confidence,
        "modes": a.modes,
        "visitor": a.visitor,
        "by_asks": visitor::by_asks(&a.outcomes),
        "quote_hit_by_kind": quote_hit_by_kind(a),
        "previous_method_balanced_accuracy": s.floors_ba,
    })
}

/// Quote hit among answerable questions, per kind of answer asked for.
fn quote_hit_by_kind(a: &Answering) -> Value {
    let mut res = serde_json::Map::new();
    for kind in AskKind::ALL {
        let of_kind: Vec<&metrics::Outcome> = a
            .outcomes
            .iter()
            .filter(|o| o.kind != Kind::Unanswerable && o.ask == kind)
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        let hits = of_kind.iter().filter(|o| o.quote_hit).count();
        res.insert(
            kind.name().to_owned(),
            json!({ "n": of_kind.len(), "quote_hit": hits as f64 / of_kind.len() as f64 }),
        );
    }
    Value::Object(res)
}

fn paraphrase_r5(s: &Scored) -> Option<f64> {
    s.by_type
        .iter()
        .find(|(k, r)| *k == Kind::Paraphrase && r.n > 0)
        .map(|(_, r)| r.recall_5)
}

const FOLD_HEADER: &str = "| corpus | questions | recall@5 | MRR | paraphrase recall@5 | answered correctly | answered wrongly | quote hit | unanswerable declined (false answers) | balanced accuracy | hand-set floors, balanced accuracy |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

/// One row of the fold tables.
fn fold_row(md: &mut String, name: &str, n: usize, s: &Scored) {
    let a = &s.answering;
    let _ = writeln!(
        md,
        "| {name} | {n} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} ({}) | **{:.3}** | {:.3} |",
        s.retrieval.recall_5,
        s.retrieval.mrr,
        paraphrase_r5(s).map_or("–".into(), |v| format!("{v:.3}")),
        a.answerable_correct,
        a.answerable_wrong,
        a.quote_hit,
        a.unanswerable_declined,
        a.false_answers,
        a.balanced_accuracy,
        s.floors_ba,
    );
}

fn mean_row(md: &mut String, label: &str, results: &[Scored]) -> Value {
    let mean = |f: &dyn Fn(&Scored) -> f64| -> f64 {
        results.iter().map(f).sum::<f64>() / results.len().max(1) as f64
    };
    // Over the folds that have paraphrases (a terse set has none).
    let paraphrased: Vec<f64> = results.iter().filter_map(paraphrase_r5).collect();
    let paraphrase = (!paraphrased.is_empty())
        .then(|| paraphrased.iter().sum::<f64>() / paraphrased.len() as f64);
    let v = json!({
        "recall@5": mean(&|s| s.retrieval.recall_5),
        "mrr": mean(&|s| s.retrieval.mrr),
        "paraphrase_recall@5": paraphrase,
        "answerable_correct": mean(&|s| s.answering.answerable_correct),
        "answerable_wrong": mean(&|s| s.answering.answerable_wrong),
        "quote_hit": mean(&|s| s.answering.quote_hit),
        "unanswerable_declined": mean(&|s| s.answering.unanswerable_declined),
        "balanced_accuracy": mean(&|s| s.answering.balanced_accuracy),
        "previous_method_balanced_accuracy": mean(&|s| s.floors_ba),
    });
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    let _ = writeln!(
        md,
        "| **{label}** | | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} | **{:.3}** | {:.3} |",
        f("recall@5"),
        f("mrr"),
        paraphrase.map_or("–".into(), |v| format!("{v:.3}")),
        f("answerable_correct"),
        f("answerable_wrong"),
        f("quote_hit"),
        f("unanswerable_declined"),
        f("balanced_accuracy"),
        f("previous_method_balanced_accuracy"),
    );
    v
}

/// The reliability and mode tables of the folds.
fn reliability_table(md: &mut String, names: &[&str], results: &[Scored]) {
    let rows: Vec<(&str, &Answering)> = names
        .iter()
        .copied()
        .zip(results.iter().map(|s| &s.answering))
        .collect();
    metrics::reliability_table(md, &rows);
}

/// Quote hit per kind of question (the engine's reading of what is asked), one row per fold.
fn ask_kind_table(md: &mut String, names: &[&str], results: &[Scored]) {
    let _ = writeln!(
        md,
        "| corpus | {} |\n|---|{}",
        AskKind::ALL.map(|k| k.name()).join(" | "),
        "---:|".repeat(AskKind::ALL.len())
    );
    for (name, s) in names.iter().zip(results) {
        let by = quote_hit_by_kind(&s.answering);
        let cells: Vec<String> = AskKind::ALL
            .iter()
            .map(|k| {
                by.get(k.name()).map_or("–".to_owned(), |v| {
                    format!(
                        "{:.2} ({})",
                        v["quote_hit"].as_f64().unwrap_or(0.0),
                        v["n"].as_u64().unwrap_or(0)
                    )
                })
            })
            .collect();
        let _ = writeln!(md, "| {name} | {} |", cells.join(" | "));
    }
}

/// The visitor table of the folds, with their mean and the worst fold (the fewest useful
/// outcomes); returns both as JSON.
fn visitor_table(md: &mut String, names: &[&str], results: &[Scored]) -> Value {
    let _ = writeln!(
        md,
        "What the visitor sees (shares of the answerable questions; useful = answer hit + results hit@3, the first three pages shown being the quoted ones, then the results'):\n\n{}",
        visitor::HEADER
    );
    let rates: Vec<&visitor::Rates> = results.iter().map(|s| &s.answering.visitor).collect();
    for (name, r) in names.iter().zip(&rates) {
        visitor::row(md, name, r);
    }
    let mean = visitor::mean_row(md, "mean of folds", &rates);
    let worst = visitor::worst(&rates).map(|w| {
        let r = rates[w];
        let _ = writeln!(
            md,
            "\nWorst fold by useful: **{}** ({:.3} useful, {:.3} nothing useful, {:.3} answer miss, {} false answers).",
            names[w], r.useful, r.nothing_useful, r.answer_miss, r.false_answers
        );
        json!({ "corpus": names[w], "useful": r.useful, "nothing_useful": r.nothing_useful,
                "answer_miss": r.answer_miss, "false_answers": r.false_answers })
    });
    md.push('\n');
    json!({ "mean": mean, "worst": worst })
}

/// What a run of the protocol returns: the report, the JSON and, when asked, the body of
/// `crates/onrecord-core/src/answer/shipped.rs` fit on every corpus's dev half.
pub struct CrossResult {
    pub markdown: String,
    pub json: Value,
    pub shipped_rs: String,
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
    let mut corpora = Vec::new();
    for entry in entries {
        let options = &entry.options(options);
        let html = build_index::corpus_input(&entry.corpus, options)? == build_index::Input::Html;
        let load = |path: &Path| -> Result<Vec<Question>> {
            let mut questions = questions::load(path)?;
            // On a built site, the question file's markdown sources are read as the built pages.
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
        };
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
        corpora.push(Corpus {
            entry,
            questions,
            terse,
            typed,
            built,
            model,
            sharded: read_back,
        });
    }
    let n = corpora.len();
    let all = in_fit(corpora.iter().map(|c| &c.entry));
    let held: Vec<String> = corpora
        .iter()
        .filter(|c| c.entry.held_out)
        .map(|c| c.entry.name.clone())
        .collect();
    let vectors = embedder.is_some();
    if let Some(path) = dump {
        let mut lines = String::new();
        for c in &corpora {
            for q in &c.questions {
                let a = assess(
                    &c.built.index,
                    c.model.as_ref(),
                    &q.question,
                    &AnswerConfig::DEFAULT,
                );
                let grounded = q.answerable()
                    && a.quotes
                        .iter()
                        .any(|quote| is_relevant(&c.built.index, q, quote.fragment));
                let features: serde_json::Map<String, Value> = FEATURE_NAMES
                    .iter()
                    .zip(a.features.values)
                    .map(|(n, v)| ((*n).to_owned(), json!(v)))
                    .collect();
                lines.push_str(&serde_json::to_string(&json!({
                    "corpus": c.entry.name, "id": q.id, "type": q.kind.name(),
                    "dev": select(&c.questions, Split::Dev).iter().any(|d| d.id == q.id),
                    "question": q.question, "grounded": grounded,
                    "hard": a.hard_decline.is_some(), "features": features,
                    "quote": a.quotes.first().map(|q| q.text.chars().take(160).collect::<String>()),
                    "missing_on_page": a.missing_on_page, "terms": a.terms.iter().map(|t| (t.word.clone(), t.idf)).collect::<Vec<_>>(),
                }))?);
                lines.push('\n');
            }
        }
        std::fs::write(path, lines).with_context(|| format!("cannot write {}", path.display()))?;
    }

    // Stage 1: fusion knobs by dev MRR (recall@5 breaks ties).
    let fusions = fusion_grid();
    let fusion_scores = score_matrix(&corpora, &fusions, &|c, f| {
        let dev = c.split(Split::Dev);
        let r = metrics::retrieval(&c.built.index, &dev, &|q| {
            retrieve_fused(&c.built.index, c.model.as_ref(), q, DEPTH, f)
                .iter()
                .map(|h| h.fragment)
                .collect()
        });
        (r.mrr, r.recall_5)
    });
    // Before the reranker is fit, candidates keep the fused order.
    let base = |fusion: Fusion, shape_weight: f32| AnswerConfig {
        fusion,
        shape_weight,
        ..AnswerConfig::DEFAULT
    };
    // Stage 2: the quote-shape weight by dev quote hit, with the fold's fusion.
    let shape_scores: Vec<ScoreMatrix> = {
        let mut memo: Vec<(usize, ScoreMatrix)> = Vec::new();
        let mut res = Vec::new();
        for train in (0..n)
            .map(|l| all.iter().copied().filter(|&c| c != l).collect::<Vec<_>>())
            .chain([all.clone()])
        {
            let f = choose(&fusion_scores, &train);
            if !memo.iter().any(|(k, _)| *k == f) {
                let m = score_matrix(&corpora, &SHAPE_GRID, &|c, &w| {
                    (
                        would_hit(
                            c,
                            &c.split(Split::Dev),
                            c.model.as_ref(),
                            &base(fusions[f], w),
                        ),
                        0.0,
                    )
                });
                memo.push((f, m));
            }
            res.push(
                memo.iter()
                    .find(|(k, _)| *k == f)
                    .map(|(_, m)| m.clone())
                    .unwrap_or_default(),
            );
        }
        res
    };
    // Stage 3: the decline model fit on the training corpora's dev rows (for both the hybrid
    // and the lexical answerer: the shipped configuration needs both).
    let choose_config = |fold: usize, train: &[usize]| -> Chosen {
        let fusion = fusions[choose(&fusion_scores, train)];
        let shape_weight = SHAPE_GRID[choose(&shape_scores[fold], train)];
        let config = base(fusion, shape_weight);
        let fit_rows = |with_vectors: bool| -> Vec<Row> {
            std::thread::scope(|s| {
                let handles: Vec<_> = train
                    .iter()
                    .map(|&c| {
                        let corpus = &corpora[c];
                        let m = corpus.model.as_ref().filter(|_| with_vectors);
                        s.spawn(move || {
                            decided_rows(corpus, c, &corpus.split(Split::Dev), m, &config)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            })
        };
        let hybrid_rows = fit_rows(true);
        let lexical_rows = if vectors {
            fit_rows(false)
        } else {
            hybrid_rows.clone()
        };
        let hybrid = fit::decline_model(&hybrid_rows);
        let lexical = fit::decline_model(&lexical_rows);
        // The hand-set floors, for comparison, on the same rows.
        let grid = floors_grid();
        let floors = grid
            .iter()
            .copied()
            .map(|f| (floors_accuracy(&f, &hybrid_rows), f))
            // The first of the best: max_by would keep the last.
            .fold(
                None::<((f64, f64), Floors)>,
                |best, (score, f)| match best {
                    Some((b, _)) if b >= score => best,
                    _ => Some((score, f)),
                },
            )
            .map(|(_, f)| f)
            .unwrap_or(Floors {
                coverage: 0.5,
                support: 0.7,
                meaning: 0.55,
            });
        Chosen {
            config: AnswerConfig {
                hybrid: if vectors {
                    hybrid
                } else {
                    AnswerConfig::DEFAULT.hybrid
                },
                lexical,
                ..config
            },
            floors,
        }
    };

    // Every fold's knobs and the pooled fit, chosen before any scoring: with the knobs held,
    // the sharded indexes are scored with what the whole indexes chose.
    let chosen: Vec<Chosen> = (0..n)
        .map(|left| {
            let train: Vec<usize> = all.iter().copied().filter(|&c| c != left).collect();
            choose_config(left, &train)
        })
        .collect();
    let pooled = choose_config(n, &all);
    if same_knobs {
        for c in &mut corpora {
            if let Some(index) = c.sharded.take() {
                c.built.index = index;
            }
        }
    }

    let mut md = String::new();
    let _ = writeln!(md, "# Cross-corpus evaluation (leave one corpus out)\n");
    let _ = writeln!(
        md,
        "Each corpus is left out in turn. Every knob — the fusion weights (by mean dev MRR), the quote-shape weight (by mean dev quote hit), the decline model's weights, threshold and confidence cut points (fit on the pooled dev rows) — is chosen on the **dev halves of the other corpora**; the left-out corpus is then scored on its **test half** (which nobody looked at while building the method) and on **all** its questions. Vectors: {}. Rates are fractions; one question moves a rate by 1/n (about 2 points on a test half of 45).\n",
        if adapted(options) {
            "yes (the shipped teacher; the query model adapted to each corpus's own text at build time)"
        } else if vectors {
            "yes (the shipped teacher and query model)"
        } else {
            "no (lexical)"
        }
    );
    for name in &held {
        let _ = writeln!(
            md,
            "**{name}** is held out of every fit: no fold's knobs and not the shipped ones are chosen on it, so its fold is the shipped configuration on a site it never saw, and its questions are scored only there.\n"
        );
    }
    let _ = writeln!(
        md,
        "| corpus | pages | fragments | questions |\n|---|---:|---:|---:|"
    );
    for c in &corpora {
        let _ = writeln!(
            md,
            "| {} — {} | {} | {} | {} |",
            c.entry.name,
            c.entry.title,
            c.built.index.docs.len(),
            c.built.index.fragments.len(),
            c.questions.len()
        );
    }
    let mut folds = Vec::new();
    let mut test_results = Vec::new();
    let mut all_results = Vec::new();
    let mut knobs_lines = String::new();
    let mut lost_lines = Vec::new();
    // Which folds have terse questions, and their scores.
    let mut terse_folds: Vec<usize> = Vec::new();
    let mut terse_results: Vec<Scored> = Vec::new();
    let mut typed_folds: Vec<usize> = Vec::new();
    let mut typed_results: Vec<Scored> = Vec::new();
    for (left, c) in corpora.iter().enumerate() {
        let chosen = &chosen[left];
        let test = c.split(Split::Test);
        let every = c.split(Split::All);
        let s_test = score(c, c.model.as_ref(), &test, chosen);
        let s_all = score(c, c.model.as_ref(), &every, chosen);
        let _ = writeln!(
            knobs_lines,
            "- {}: {}",
            c.entry.name,
            knobs_text(&chosen.config, vectors)
        );
        let fold_rows = rows(c, 0, &every, c.model.as_ref(), &chosen.config);
        let answerable = fold_rows.iter().filter(|r| r.answerable).count().max(1) as f64;
        let grounded = fold_rows.iter().filter(|r| r.grounded).count() as f64;
        lost_lines.push(format!(
            "{} | {:.3} | {:.3} | {:.3} | {:.3}",
            answerable,
            s_all.retrieval.recall_5,
            s_all.retrieval.recall_1,
            grounded / answerable,
            s_all.answering.answerable_correct
        ));
        folds.push(json!({
            "corpus": c.entry.name,
            "knobs": knobs_json(&chosen.config, vectors),
            "test": scored_json(&s_test, test.len()),
            "all": scored_json(&s_all, every.len()),
        }));
        test_results.push(s_test);
        all_results.push(s_all);
        if !c.terse.is_empty() {
            let terse: Vec<&Question> = c.terse.iter().collect();
            terse_folds.push(left);
            terse_results.push(score(c, c.model.as_ref(), &terse, chosen));
        }
        if !c.typed.is_empty() {
            let typed: Vec<&Question> = c.typed.iter().collect();
            typed_folds.push(left);
            typed_results.push(score(c, c.model.as_ref(), &typed, chosen));
        }
    }
    let names: Vec<&str> = corpora.iter().map(|c| c.entry.name.as_str()).collect();
    let worst = |results: &[Scored]| {
        results
            .iter()
            .enumerate()
            .min_by(|a, b| {
                a.1.answering
                    .balanced_accuracy
                    .total_cmp(&b.1.answering.balanced_accuracy)
            })
            .map_or(0, |(i, _)| i)
    };
    let _ = writeln!(md, "\n## Left-out folds, test halves\n\n{FOLD_HEADER}");
    for (i, s) in test_results.iter().enumerate() {
        fold_row(&mut md, names[i], corpora[i].split(Split::Test).len(), s);
    }
    let mean_test = mean_row(&mut md, "mean of folds", &test_results);
    let w_test = worst(&test_results);
    let _ = writeln!(
        md,
        "\nWorst fold by balanced accuracy: **{}** ({:.3}).\n",
        names[w_test], test_results[w_test].answering.balanced_accuracy
    );
    let _ = writeln!(
        md,
        "Confidence labels (precision = answered correctly among the answers with that label) and modes, test halves:\n"
    );
    reliability_table(&mut md, &names, &test_results);
    let visitor_test = visitor_table(&mut md, &names, &test_results);
    let _ = writeln!(md, "## Left-out folds, all questions\n\n{FOLD_HEADER}");
    for (i, s) in all_results.iter().enumerate() {
        fold_row(&mut md, names[i], corpora[i].questions.len(), s);
    }
    let mean_all = mean_row(&mut md, "mean of folds", &all_results);
    let w_all = worst(&all_results);
    let _ = writeln!(
        md,
        "\nWorst fold by balanced accuracy: **{}** ({:.3}).\n",
        names[w_all], all_results[w_all].answering.balanced_accuracy
    );
    reliability_table(&mut md, &names, &all_results);
    let visitor_all = visitor_table(&mut md, &names, &all_results);
    let _ = writeln!(
        md,
        "Quote hit per kind of question (answerable questions, all):\n"
    );
    ask_kind_table(&mut md, &names, &all_results);
    let _ = writeln!(
        md,
        "\nWhere answerable questions are lost (all questions, fold knobs): a relevant fragment retrieved in the top 5 and first; the would-be quote's fragment holds the evidence (what a perfect decline could answer correctly); answered correctly.\n\n| corpus | answerable | relevant in top 5 | relevant first | would-be quote grounded | answered correctly |\n|---|---:|---:|---:|---:|---:|"
    );
    for (i, line) in lost_lines.iter().enumerate() {
        let _ = writeln!(md, "| {} | {line} |", names[i]);
    }
    // Each branch ends with a blank line (the reliability table's own, or this one).
    let (mean_terse, visitor_terse) = if terse_results.is_empty() {
        md.push('\n');
        (Value::Null, Value::Null)
    } else {
        let _ = writeln!(
            md,
            "\n## Terse questions, left-out folds\n\nThe one-to-four-word questions visitors type (\"blackd default port\", \"What is SECRET_KEY?\"), a second question file on the same corpus (`terse` in the registry), in no fit, scored with each fold's knobs:\n\n{FOLD_HEADER}"
        );
        for (&i, s) in terse_folds.iter().zip(&terse_results) {
            fold_row(&mut md, names[i], corpora[i].terse.len(), s);
        }
        let mean = mean_row(&mut md, "mean of folds", &terse_results);
        md.push('\n');
        let terse_names: Vec<&str> = terse_folds.iter().map(|&i| names[i]).collect();
        reliability_table(&mut md, &terse_names, &terse_results);
        let v = visitor_table(&mut md, &terse_names, &terse_results);
        let _ = writeln!(
            md,
            "Quote hit per kind of question (the engine's reading of what is asked):\n"
        );
        ask_kind_table(&mut md, &terse_names, &terse_results);
        md.push('\n');
        (mean, v)
    };
    let (mean_typed, visitor_typed) = if typed_results.is_empty() {
        (Value::Null, Value::Null)
    } else {
        let _ = writeln!(
            md,
            "## Typed questions, left-out folds\n\nShort questions as visitors type them, each labelled with the kind of answer it asks for (`typed` in the registry; `asks`: how-to, default, definition, yes-no, why; the evidence is the words that answer), in no fit, scored with each fold's knobs:\n\n{FOLD_HEADER}"
        );
        for (&i, s) in typed_folds.iter().zip(&typed_results) {
            fold_row(&mut md, names[i], corpora[i].typed.len(), s);
        }
        let mean = mean_row(&mut md, "mean of folds", &typed_results);
        md.push('\n');
        let typed_names: Vec<&str> = typed_folds.iter().map(|&i| names[i]).collect();
        reliability_table(&mut md, &typed_names, &typed_results);
        let v = visitor_table(&mut md, &typed_names, &typed_results);
        let _ = writeln!(
            md,
            "Quote hit per kind of question (the engine's reading of what is asked):\n"
        );
        ask_kind_table(&mut md, &typed_names, &typed_results);
        md.push('\n');
        let rows: Vec<(&str, &[metrics::Outcome])> = typed_names
            .iter()
            .copied()
            .zip(
                typed_results
                    .iter()
                    .map(|s| s.answering.outcomes.as_slice()),
            )
            .collect();
        visitor::asks_table(&mut md, &rows);
        (mean, v)
    };
    let _ = writeln!(
        md,
        "Knobs chosen for each fold (on the other corpora):\n\n{knobs_lines}"
    );

    // What ships: the same procedure on every corpus's dev half.
    let shipped = AnswerConfig::DEFAULT;
    let same = knobs_json(&pooled.config, vectors) == knobs_json(&shipped, vectors)
        && (vectors || pooled.config.lexical == shipped.lexical);
    let fit_on = if held.is_empty() {
        "all corpora".to_owned()
    } else {
        format!(
            "all corpora but {} (held out of every fit: its fold above is this configuration on a site it never saw)",
            held.join(", ")
        )
    };
    let _ = writeln!(
        md,
        "## What ships\n\nFit on the dev halves of {fit_on}: {}. In the code (`AnswerConfig::DEFAULT`, `crates/onrecord-core/src/answer/shipped.rs`): {}{}.\n",
        knobs_text(&pooled.config, vectors),
        knobs_text(&shipped, vectors),
        if same {
            " — the same"
        } else {
            " — **they differ: regenerate shipped.rs (`eval --cross eval/corpora.json --write-shipped`) or say why**"
        }
    );
    let shipped_chosen = Chosen {
        config: shipped,
        floors: pooled.floors,
    };
    let _ = writeln!(
        md,
        "The shipped configuration on each corpus's **test** half (its dev half took part in the fit unless held out):\n\n{FOLD_HEADER}"
    );
    let mut shipped_json = Vec::new();
    let mut shipped_results = Vec::new();
    for c in &corpora {
        let qs = c.split(Split::Test);
        let s = score(c, c.model.as_ref(), &qs, &shipped_chosen);
        fold_row(&mut md, &c.entry.name, qs.len(), &s);
        shipped_json.push(json!({ "corpus": c.entry.name, "test": scored_json(&s, qs.len()) }));
        shipped_results.push(s);
    }
    md.push('\n');
    reliability_table(&mut md, &names, &shipped_results);
    let json = json!({
        "protocol": "leave-one-corpus-out; knobs and the decline model fit on the other corpora's dev halves; left-out corpus scored on its test half and on all questions",
        "vectors": vectors,
        "folds": folds,
        "mean_test": mean_test,
        "mean_all": mean_all,
        "terse": terse_folds.iter().zip(&terse_results).map(|(&i, s)| json!({
            "corpus": names[i], "all": scored_json(s, corpora[i].terse.len()) })).collect::<Vec<_>>(),
        "mean_terse": mean_terse,
        "typed": typed_folds.iter().zip(&typed_results).map(|(&i, s)| json!({
            "corpus": names[i], "all": scored_json(s, corpora[i].typed.len()) })).collect::<Vec<_>>(),
        "mean_typed": mean_typed,
        "by_asks_typed_pooled": visitor::by_asks(typed_results.iter().flat_map(|s| &s.answering.outcomes)),
        "visitor": { "test": visitor_test, "all": visitor_all, "terse": visitor_terse,
                     "typed": visitor_typed },
        "worst_fold_test": { "corpus": names[w_test],
                             "balanced_accuracy": test_results[w_test].answering.balanced_accuracy },
        "worst_fold_all": { "corpus": names[w_all],
                            "balanced_accuracy": all_results[w_all].answering.balanced_accuracy },
        "chosen_on_all_dev": knobs_json(&pooled.config, vectors),
        "shipped_knobs": knobs_json(&shipped, vectors),
        "shipped_on_test": shipped_json,
    });
    Ok(CrossResult {
        markdown: md,
        json,
        shipped_rs: shipped::shipped_rs(&pooled.config, vectors),
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
