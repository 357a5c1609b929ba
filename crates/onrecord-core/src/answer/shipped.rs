//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.4891276,
    weights: [
        1.0155916,    // coverage
        0.43436617,   // key_coverage
        0.29840556,   // in_quote
        -0.026166935, // key_support
        1.490756,     // meaning
        -3.5545454,   // salient_missing
        -0.90829134,  // compound_missing
        -0.71540797,  // asks_quantity
        0.17090689,   // quantity_shown
        1.5510392,    // bigram_share
    ],
    threshold: 0.48999998,
    high: 2.0,
    medium: 0.48999998,
    reference: [
        0.7559251,   // coverage
        0.86486363,  // key_coverage
        0.6584966,   // in_quote
        0.80919045,  // key_support
        0.48692128,  // meaning
        0.018764338, // salient_missing
        0.012345679, // compound_missing
        0.25925925,  // asks_quantity
        0.14814815,  // quantity_shown
        0.35114434,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.2327406,
    weights: [
        0.80971235,  // coverage
        0.80971235,  // key_coverage
        0.22901975,  // in_quote
        0.5896465,   // key_support
        0.0,         // meaning
        -2.724062,   // salient_missing
        -0.98506814, // compound_missing
        -0.58129144, // asks_quantity
        0.3103804,   // quantity_shown
        1.6368397,   // bigram_share
    ],
    threshold: 0.465,
    high: 0.77,
    medium: 0.465,
    reference: [
        0.7641683,   // coverage
        0.7641683,   // key_coverage
        0.67362064,  // in_quote
        0.73145944,  // key_support
        0.0,         // meaning
        0.08918411,  // salient_missing
        0.012658228, // compound_missing
        0.278481,    // asks_quantity
        0.16455697,  // quantity_shown
        0.3603656,   // bigram_share
    ],
};

/// How much the shape of a sentence counts when choosing what to quote.
pub(crate) const SHAPE_WEIGHT: f32 = 0.0;

/// The fusion knobs of hybrid + rerank.
pub(crate) const FUSION: Fusion = Fusion {
    vector_weight: 3.0,
    rerank_weight: 4.0,
    rrf_c: 5.0,
};
