//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.48129,
    weights: [
        1.039329,    // coverage
        0.44911513,  // key_coverage
        0.30879885,  // in_quote
        -0.01614505, // key_support
        1.3858354,   // meaning
        -3.5541654,  // salient_missing
        -0.9111456,  // compound_missing
        -0.7261279,  // asks_quantity
        0.257535,    // quantity_shown
        1.5332053,   // bigram_share
    ],
    threshold: 0.48499998,
    high: 2.0,
    medium: 0.48499998,
    reference: [
        0.75146294,  // coverage
        0.86087894,  // key_coverage
        0.64913195,  // in_quote
        0.80520576,  // key_support
        0.48635978,  // meaning
        0.018764338, // salient_missing
        0.012345679, // compound_missing
        0.25925925,  // asks_quantity
        0.16049382,  // quantity_shown
        0.35114434,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.2276714,
    weights: [
        0.8072278,  // coverage
        0.8072278,  // key_coverage
        0.26152083, // in_quote
        0.60915685, // key_support
        0.0,        // meaning
        -2.8198323, // salient_missing
        -0.9864739, // compound_missing
        -0.5894771, // asks_quantity
        0.43566862, // quantity_shown
        1.5671854,  // bigram_share
    ],
    threshold: 0.53499997,
    high: 0.77,
    medium: 0.53499997,
    reference: [
        0.7595932,   // coverage
        0.7595932,   // key_coverage
        0.66401887,  // in_quote
        0.7275261,   // key_support
        0.0,         // meaning
        0.08875747,  // salient_missing
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
