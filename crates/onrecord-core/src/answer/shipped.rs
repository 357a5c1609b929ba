//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.7068622,
    weights: [
        1.1939545,   // coverage
        0.49466684,  // key_coverage
        0.7027496,   // in_quote
        -0.12237288, // key_support
        1.3274989,   // meaning
        -4.412726,   // salient_missing
        -1.0063497,  // compound_missing
        -0.86757433, // asks_quantity
        0.40308684,  // quantity_shown
        1.7925963,   // bigram_share
    ],
    threshold: 0.52,
    high: 0.79999995,
    medium: 0.52,
    reference: [
        0.75739175, // coverage
        0.85701585, // key_coverage
        0.6577898,  // in_quote
        0.7983449,  // key_support
        0.5092289,  // meaning
        0.02015023, // salient_missing
        0.01724138, // compound_missing
        0.23275863, // asks_quantity
        0.14655173, // quantity_shown
        0.34136987, // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.1510997,
    weights: [
        0.7690272,  // coverage
        0.7690272,  // key_coverage
        0.2575953,  // in_quote
        0.65384763, // key_support
        0.0,        // meaning
        -3.2044241, // salient_missing
        -1.0072883, // compound_missing
        -0.6562604, // asks_quantity
        0.49129102, // quantity_shown
        1.7222345,  // bigram_share
    ],
    threshold: 0.60499996,
    high: 2.0,
    medium: 0.60499996,
    reference: [
        0.75038236,  // coverage
        0.75038236,  // key_coverage
        0.6552296,   // in_quote
        0.72019863,  // key_support
        0.0,         // meaning
        0.089747936, // salient_missing
        0.01754386,  // compound_missing
        0.24561404,  // asks_quantity
        0.15789473,  // quantity_shown
        0.3325864,   // bigram_share
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
