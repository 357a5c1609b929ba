//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.4806342,
    weights: [
        1.0390011,    // coverage
        0.44853267,   // key_coverage
        0.31034,      // in_quote
        -0.016719833, // key_support
        1.3852282,    // meaning
        -3.5549903,   // salient_missing
        -0.9112749,   // compound_missing
        -0.7259619,   // asks_quantity
        0.25812832,   // quantity_shown
        1.532659,     // bigram_share
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
    bias: -2.213462,
    weights: [
        0.80320644,  // coverage
        0.80320644,  // key_coverage
        0.26093853,  // in_quote
        0.60652673,  // key_support
        0.0,         // meaning
        -2.8613698,  // salient_missing
        -0.9864766,  // compound_missing
        -0.58871007, // asks_quantity
        0.4423926,   // quantity_shown
        1.563377,    // bigram_share
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
