//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -6.0,
    weights: [
        4.0,  // coverage
        4.0,  // support
        1.0,  // in_quote
        1.0,  // page_coverage
        4.0,  // meaning
        0.0,  // top_meaning
        -4.0, // missing_share
        -2.0, // salient_missing
        -1.0, // compound_missing
        0.0,  // n_terms
        0.5,  // lexical_agreement
        0.5,  // vector_agreement
        0.0,  // shape
        -1.0, // noise_page
        -0.5, // rank
    ],
    threshold: 0.5,
    high: 0.9,
    medium: 0.7,
    reference: [
        0.9,  // coverage
        0.9,  // support
        0.8,  // in_quote
        0.95, // page_coverage
        0.6,  // meaning
        0.65, // top_meaning
        0.0,  // missing_share
        0.0,  // salient_missing
        0.0,  // compound_missing
        0.5,  // n_terms
        1.0,  // lexical_agreement
        1.0,  // vector_agreement
        0.5,  // shape
        0.0,  // noise_page
        0.0,  // rank
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -0.48840484,
    weights: [
        5.906714,    // coverage
        0.93184173,  // support
        -1.7721506,  // in_quote
        -3.0284548,  // page_coverage
        0.0,         // meaning
        0.0,         // top_meaning
        -1.4296088,  // missing_share
        -5.1548114,  // salient_missing
        -2.2361834,  // compound_missing
        -0.41351628, // n_terms
        0.0,         // lexical_agreement
        0.0,         // vector_agreement
        -0.3037749,  // shape
        0.0,         // noise_page
        -0.51395774, // rank
    ],
    threshold: 0.6,
    high: 0.675,
    medium: 2.0,
    reference: [
        0.75302255,  // coverage
        0.7178172,   // support
        0.66286975,  // in_quote
        0.82881284,  // page_coverage
        0.0,         // meaning
        0.0,         // top_meaning
        0.040871553, // missing_share
        0.093133,    // salient_missing
        0.011904762, // compound_missing
        0.7416667,   // n_terms
        1.0,         // lexical_agreement
        0.0,         // vector_agreement
        0.1904762,   // shape
        0.0,         // noise_page
        0.077380955, // rank
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
