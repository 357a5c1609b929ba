//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.7065077,
    weights: [
        1.1964331,   // coverage
        0.49398518,  // key_coverage
        0.7037517,   // in_quote
        -0.12329154, // key_support
        1.3256828,   // meaning
        -4.42165,    // salient_missing
        -1.006085,   // compound_missing
        -0.8674965,  // asks_quantity
        0.40299192,  // quantity_shown
        1.7914237,   // bigram_share
    ],
    threshold: 0.52,
    high: 0.79999995,
    medium: 0.52,
    reference: [
        0.7575672,   // coverage
        0.85710573,  // key_coverage
        0.65784585,  // in_quote
        0.79842645,  // key_support
        0.5092289,   // meaning
        0.020100137, // salient_missing
        0.01724138,  // compound_missing
        0.23275863,  // asks_quantity
        0.14655173,  // quantity_shown
        0.34136987,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.1538367,
    weights: [
        0.7698539,  // coverage
        0.7698539,  // key_coverage
        0.25710082, // in_quote
        0.654873,   // key_support
        0.0,        // meaning
        -3.1989024, // salient_missing
        -1.0072353, // compound_missing
        -0.655769,  // asks_quantity
        0.49087706, // quantity_shown
        1.722476,   // bigram_share
    ],
    threshold: 0.60499996,
    high: 2.0,
    medium: 0.60499996,
    reference: [
        0.75051355, // coverage
        0.75051355, // key_coverage
        0.6552409,  // in_quote
        0.7202977,  // key_support
        0.0,        // meaning
        0.0897769,  // salient_missing
        0.01754386, // compound_missing
        0.24561404, // asks_quantity
        0.15789473, // quantity_shown
        0.3325864,  // bigram_share
    ],
};

/// How much the shape of a sentence counts when choosing what to quote.
pub(crate) const SHAPE_WEIGHT: f32 = 0.0;

/// The fusion knobs of hybrid + rerank.
pub(crate) const FUSION: Fusion = Fusion {
    vector_weight: 1.5,
    rerank_weight: 2.0,
    rrf_c: 20.0,
};
