//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.5797367,
    weights: [
        1.0448114,    // coverage
        0.45728955,   // key_coverage
        0.3805415,    // in_quote
        -0.031055193, // key_support
        1.5196317,    // meaning
        -3.733593,    // salient_missing
        -1.1116941,   // compound_missing
        -0.8404812,   // asks_quantity
        0.4134262,    // quantity_shown
        1.6965638,    // bigram_share
    ],
    threshold: 0.48499998,
    high: 2.0,
    medium: 0.48499998,
    reference: [
        0.7563784,   // coverage
        0.85366774,  // key_coverage
        0.65413666,  // in_quote
        0.8027333,   // key_support
        0.49974343,  // meaning
        0.019688034, // salient_missing
        0.010204081, // compound_missing
        0.23469388,  // asks_quantity
        0.15306123,  // quantity_shown
        0.34072256,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.1667373,
    weights: [
        0.8029253,   // coverage
        0.8029253,   // key_coverage
        0.28395772,  // in_quote
        0.6496403,   // key_support
        0.0,         // meaning
        -3.1979353,  // salient_missing
        -1.1254009,  // compound_missing
        -0.70199835, // asks_quantity
        0.59133136,  // quantity_shown
        1.6806715,   // bigram_share
    ],
    threshold: 0.515,
    high: 0.755,
    medium: 0.55,
    reference: [
        0.76096517,  // coverage
        0.76096517,  // key_coverage
        0.6630451,   // in_quote
        0.7281871,   // key_support
        0.0,         // meaning
        0.08849555,  // salient_missing
        0.010309278, // compound_missing
        0.24742268,  // asks_quantity
        0.16494845,  // quantity_shown
        0.3445052,   // bigram_share
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
