//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::{DeclineModel, Reranker};
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -6.0,
    weights: [
        4.0, 4.0, 1.0, 1.0, 0.0, 0.0, 4.0, 0.0, -4.0, -2.0, -1.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0,
        -1.0, -0.5, 0.0, 0.0, 0.0,
    ],
    threshold: 0.5,
    high: 0.9,
    medium: 0.7,
    reference: [
        0.9, 0.9, 0.8, 0.95, 0.0, 0.0, 0.6, 0.65, 0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 0.0, 0.0, 0.5, 0.0,
        0.0, 0.0, 0.0, 0.0,
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -0.48840484,
    weights: [
        5.906714,
        0.93184173,
        -1.7721506,
        -3.0284548,
        0.0,
        0.0,
        0.0,
        0.0,
        -1.4296088,
        -5.1548114,
        -2.2361834,
        -0.41351628,
        0.0,
        0.0,
        0.0,
        0.0,
        -0.3037749,
        0.0,
        -0.51395774,
        0.0,
        0.0,
        0.0,
    ],
    threshold: 0.6,
    high: 0.675,
    medium: 2.0,
    reference: [
        0.75302255,
        0.7178172,
        0.66286975,
        0.82881284,
        0.0,
        0.0,
        0.0,
        0.0,
        0.040871553,
        0.093133,
        0.011904762,
        0.7416667,
        1.0,
        0.0,
        0.0,
        0.0,
        0.1904762,
        0.0,
        0.077380955,
        0.0,
        0.0,
        0.0,
    ],
};

/// How much the shape of a sentence counts when choosing what to quote.
pub(crate) const SHAPE_WEIGHT: f32 = 0.0;

/// The fusion knobs of hybrid + rerank.
pub(crate) const FUSION: Fusion = Fusion {
    vector_weight: 3.0,
    rerank_weight: 2.0,
    rrf_c: 20.0,
};

/// The reranker of the fused candidates (all zero: the fused order).
pub(crate) const RERANKER: Reranker = Reranker {
    weights: [0.0; super::config::N_RANK_FEATURES],
};
