//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.7066655,
    weights: [
        1.1937094,   // coverage
        0.49469066,  // key_coverage
        0.702517,    // in_quote
        -0.12232592, // key_support
        1.3275629,   // meaning
        -4.4131503,  // salient_missing
        -1.0063425,  // compound_missing
        -0.86757356, // asks_quantity
        0.4030834,   // quantity_shown
        1.7927471,   // bigram_share
    ],
    threshold: 0.52,
    high: 0.79999995,
    medium: 0.52,
    reference: [
        0.757377,    // coverage
        0.8570155,   // key_coverage
        0.65777653,  // in_quote
        0.79834497,  // key_support
        0.5092289,   // meaning
        0.020147566, // salient_missing
        0.01724138,  // compound_missing
        0.23275863,  // asks_quantity
        0.14655173,  // quantity_shown
        0.34136987,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.1490757,
    weights: [
        0.76728976,  // coverage
        0.76728976,  // key_coverage
        0.25819215,  // in_quote
        0.65205693,  // key_support
        0.0,         // meaning
        -3.2035785,  // salient_missing
        -1.0023708,  // compound_missing
        -0.65653306, // asks_quantity
        0.49128935,  // quantity_shown
        1.7271804,   // bigram_share
    ],
    threshold: 0.60499996,
    high: 2.0,
    medium: 0.60499996,
    reference: [
        0.750367,   // coverage
        0.750367,   // key_coverage
        0.65521574, // in_quote
        0.7201855,  // key_support
        0.0,        // meaning
        0.08974616, // salient_missing
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
