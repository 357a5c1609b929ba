//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.5942392,
    weights: [
        1.1421854,   // coverage
        0.4427691,   // key_coverage
        0.677573,    // in_quote
        -0.15437582, // key_support
        1.276672,    // meaning
        -3.998162,   // salient_missing
        -1.06897,    // compound_missing
        -0.85667074, // asks_quantity
        0.41936198,  // quantity_shown
        1.730406,    // bigram_share
    ],
    threshold: 0.49499997,
    high: 2.0,
    medium: 0.49499997,
    reference: [
        0.7578234,   // coverage
        0.8533005,   // key_coverage
        0.6578377,   // in_quote
        0.7969318,   // key_support
        0.5073245,   // meaning
        0.020168882, // salient_missing
        0.010204081, // compound_missing
        0.23469388,  // asks_quantity
        0.15306123,  // quantity_shown
        0.3463968,   // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.07513,
    weights: [
        0.73714,     // coverage
        0.73714,     // key_coverage
        0.32636508,  // in_quote
        0.58261716,  // key_support
        0.0,         // meaning
        -3.1968637,  // salient_missing
        -1.0995725,  // compound_missing
        -0.68561053, // asks_quantity
        0.56236213,  // quantity_shown
        1.7089758,   // bigram_share
    ],
    threshold: 0.59999996,
    high: 0.745,
    medium: 0.59999996,
    reference: [
        0.7552911,   // coverage
        0.7552911,   // key_coverage
        0.6596549,   // in_quote
        0.7224485,   // key_support
        0.0,         // meaning
        0.0893395,   // salient_missing
        0.010309278, // compound_missing
        0.24742268,  // asks_quantity
        0.16494845,  // quantity_shown
        0.34364605,  // bigram_share
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
