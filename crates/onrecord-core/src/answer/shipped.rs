//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.0383496,
    weights: [
        0.89154965,  // coverage
        0.4695887,   // key_coverage
        0.16000238,  // in_quote
        -0.11280829, // key_support
        1.0089799,   // meaning
        -4.6222935,  // salient_missing
        -0.884755,   // compound_missing
        -0.91002667, // asks_quantity
        0.44496274,  // quantity_shown
        1.8155558,   // bigram_share
    ],
    threshold: 0.47,
    high: 2.0,
    medium: 0.545,
    reference: [
        0.7223493,   // coverage
        0.8266255,   // key_coverage
        0.6221873,   // in_quote
        0.7680415,   // key_support
        0.51098406,  // meaning
        0.025792684, // salient_missing
        0.030075189, // compound_missing
        0.23308271,  // asks_quantity
        0.15789473,  // quantity_shown
        0.31704724,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.2473617,
    weights: [
        0.800402,    // coverage
        0.800402,    // key_coverage
        0.30842882,  // in_quote
        0.611545,    // key_support
        0.0,         // meaning
        -3.227805,   // salient_missing
        -0.99097025, // compound_missing
        -0.66535234, // asks_quantity
        0.46827978,  // quantity_shown
        1.8079386,   // bigram_share
    ],
    threshold: 0.515,
    high: 2.0,
    medium: 0.61,
    reference: [
        0.75679964,  // coverage
        0.75679964,  // key_coverage
        0.65848196,  // in_quote
        0.72195655,  // key_support
        0.0,         // meaning
        0.087451726, // salient_missing
        0.015748031, // compound_missing
        0.25984251,  // asks_quantity
        0.17322835,  // quantity_shown
        0.3302813,   // bigram_share
    ],
};

/// How much the shape of a sentence counts when choosing what to quote.
pub(crate) const SHAPE_WEIGHT: f32 = 0.0;

/// The fusion knobs of hybrid + rerank.
pub(crate) const FUSION: Fusion = Fusion {
    vector_weight: 2.0,
    rerank_weight: 2.0,
    rrf_c: 5.0,
};
