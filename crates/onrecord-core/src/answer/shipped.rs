//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.5328176,
    weights: [
        1.0614382,   // coverage
        0.447584,    // key_coverage
        0.40872836,  // in_quote
        0.025360769, // key_support
        1.3600229,   // meaning
        -3.2875872,  // salient_missing
        -0.9319625,  // compound_missing
        -0.7360088,  // asks_quantity
        0.2542287,   // quantity_shown
        1.4073406,   // bigram_share
    ],
    threshold: 0.48,
    high: 2.0,
    medium: 0.48,
    reference: [
        0.751773,     // coverage
        0.8598545,    // key_coverage
        0.65200996,   // in_quote
        0.8075807,    // key_support
        0.48488483,   // meaning
        0.021255668,  // salient_missing
        0.0121951215, // compound_missing
        0.25609756,   // asks_quantity
        0.15853658,   // quantity_shown
        0.3468621,    // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.2217782,
    weights: [
        0.8056558,   // coverage
        0.8056558,   // key_coverage
        0.26197588,  // in_quote
        0.61023384,  // key_support
        0.0,         // meaning
        -2.8625958,  // salient_missing
        -0.9846105,  // compound_missing
        -0.58626086, // asks_quantity
        0.44352236,  // quantity_shown
        1.5560014,   // bigram_share
    ],
    threshold: 0.53499997,
    high: 0.77,
    medium: 0.53499997,
    reference: [
        0.75959253,  // coverage
        0.75959253,  // key_coverage
        0.6640098,   // in_quote
        0.72752005,  // key_support
        0.0,         // meaning
        0.088759,    // salient_missing
        0.012658228, // compound_missing
        0.278481,    // asks_quantity
        0.17721519,  // quantity_shown
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
