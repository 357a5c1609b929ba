//! The fit of a fold: every knob chosen on the dev halves of the corpora it trains on. The
//! fusion weights by mean dev MRR, then the quote-shape weight by mean dev quote hit, then the
//! decline models (with and without vectors) fit on the pooled dev rows, and the hand-set
//! floors they replaced chosen on the same rows for comparison.

use onrecord_core::{AnswerConfig, Assessment, Fusion, QueryModel, retrieve_fused};

use crate::engine::assess;

use super::{Corpus, in_fit};
use crate::fit::{self, Floors, Row};
use crate::metrics::{self, DEPTH, content_word_share, is_relevant};
use crate::questions::{Question, Split};

/// Scores per corpus per grid point, as (primary, secondary).
type ScoreMatrix = Vec<Vec<(f64, f64)>>;

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
/// tie-break) pair. Each corpus is scored on a thread of its own.
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
pub(super) fn rows(
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

/// The fold's configuration and how it was reached.
pub(super) struct Chosen {
    pub(super) config: AnswerConfig,
    pub(super) floors: Floors,
}

/// What the fit chose: every fold's configuration (fold `i` leaves corpus `i` out) and the
/// pooled one, fit on every corpus in the fit (what ships).
pub(super) struct Knobs {
    pub(super) folds: Vec<Chosen>,
    pub(super) pooled: Chosen,
}

/// Every fold's knobs and the pooled fit, chosen before any fold is scored.
pub(super) fn choose_knobs(corpora: &[Corpus], vectors: bool) -> Knobs {
    let n = corpora.len();
    let all = in_fit(corpora.iter().map(|c| &c.entry));
    // Fold `l` trains on the corpora in the fit but `l`; the last, the pooled fit, on all.
    let trains: Vec<Vec<usize>> = (0..n)
        .map(|l| all.iter().copied().filter(|&c| c != l).collect())
        .chain([all.clone()])
        .collect();
    let fusions = fusion_grid();
    let fusion_scores = fusion_scores(corpora, &fusions);
    let shape_scores = shape_scores(corpora, &fusions, &fusion_scores, &trains);
    let choose_fold = |fold: usize| -> Chosen {
        let train = &trains[fold];
        let fusion = fusions[choose(&fusion_scores, train)];
        let shape_weight = SHAPE_GRID[choose(&shape_scores[fold], train)];
        fit_decline(corpora, train, base(fusion, shape_weight), vectors)
    };
    Knobs {
        folds: (0..n).map(choose_fold).collect(),
        pooled: choose_fold(n),
    }
}

/// Stage 1: every corpus's (dev MRR, dev recall@5) at every point of the fusion grid.
fn fusion_scores(corpora: &[Corpus], fusions: &[Fusion]) -> ScoreMatrix {
    score_matrix(corpora, fusions, &|c, f| {
        let dev = c.split(Split::Dev);
        let r = metrics::retrieval(&c.built.index, &dev, &|q| {
            retrieve_fused(&c.built.index, c.model.as_ref(), q, DEPTH, f)
                .iter()
                .map(|h| h.fragment)
                .collect()
        });
        (r.mrr, r.recall_5)
    })
}

/// The configuration before the decline fit: candidates keep the fused order until the
/// reranker is fit.
fn base(fusion: Fusion, shape_weight: f32) -> AnswerConfig {
    AnswerConfig {
        fusion,
        shape_weight,
        ..AnswerConfig::DEFAULT
    }
}

/// Stage 2: for each training set in `trains`, every corpus's dev quote hit at every shape
/// weight, with the fusion that training set chose (scored once per fusion chosen).
fn shape_scores(
    corpora: &[Corpus],
    fusions: &[Fusion],
    fusion_scores: &ScoreMatrix,
    trains: &[Vec<usize>],
) -> Vec<ScoreMatrix> {
    let mut memo: Vec<(usize, ScoreMatrix)> = Vec::new();
    let mut res = Vec::new();
    for train in trains {
        let f = choose(fusion_scores, train);
        if !memo.iter().any(|(k, _)| *k == f) {
            let m = score_matrix(corpora, &SHAPE_GRID, &|c, &w| {
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
}

/// Stage 3: the decline model fit on the `train` corpora's dev rows, for both the hybrid and
/// the lexical answerer (the shipped configuration needs both), over `config`'s fusion and
/// shape weight; and the hand-set floors on the same rows, for comparison.
fn fit_decline(corpora: &[Corpus], train: &[usize], config: AnswerConfig, vectors: bool) -> Chosen {
    let fit_rows = |with_vectors: bool| -> Vec<Row> {
        std::thread::scope(|s| {
            let handles: Vec<_> = train
                .iter()
                .map(|&c| {
                    let corpus = &corpora[c];
                    let m = corpus.model.as_ref().filter(|_| with_vectors);
                    s.spawn(move || decided_rows(corpus, c, &corpus.split(Split::Dev), m, &config))
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
    let floors = fit::best_floors(&hybrid_rows);
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
}
