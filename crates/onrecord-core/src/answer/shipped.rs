//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.5941367,
    weights: [
        1.1421309,   // coverage
        0.44276074,  // key_coverage
        0.6774281,   // in_quote
        -0.15441808, // key_support
        1.2767246,   // meaning
        -3.9984272,  // salient_missing
        -1.0689497,  // compound_missing
        -0.8566934,  // asks_quantity
        0.4193819,   // quantity_shown
        1.730528,    // bigram_share
    ],
    threshold: 0.49499997,
    high: 2.0,
    medium: 0.49499997,
    reference: [
        0.75782335,  // coverage
        0.85329896,  // key_coverage
        0.6578375,   // in_quote
        0.7969309,   // key_support
        0.5073245,   // meaning
        0.020169264, // salient_missing
        0.010204081, // compound_missing
        0.23469388,  // asks_quantity
        0.15306123,  // quantity_shown
        0.3463968,   // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.0750535,
    weights: [
        0.7371135,   // coverage
        0.7371135,   // key_coverage
        0.32629928,  // in_quote
        0.58255655,  // key_support
        0.0,         // meaning
        -3.1969345,  // salient_missing
        -1.0995468,  // compound_missing
        -0.68563414, // asks_quantity
        0.5623916,   // quantity_shown
        1.7090904,   // bigram_share
    ],
    threshold: 0.59999996,
    high: 0.745,
    medium: 0.59999996,
    reference: [
        0.7552906,   // coverage
        0.7552906,   // key_coverage
        0.6596554,   // in_quote
        0.7224483,   // key_support
        0.0,         // meaning
        0.089340754, // salient_missing
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
