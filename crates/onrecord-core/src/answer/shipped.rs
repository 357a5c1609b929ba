//! The shipped decline and order models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::{DeclineModel, OrderModel};
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.6780267,
    weights: [
        1.0101386,   // coverage
        0.45265317,  // key_coverage
        0.56618315,  // in_quote
        0.047366917, // key_support
        1.6991742,   // meaning
        -4.321887,   // salient_missing
        -1.00025,    // compound_missing
        -0.9924899,  // asks_quantity
        0.42082784,  // quantity_shown
        1.747669,    // bigram_share
    ],
    threshold: 0.51,
    high: 0.805,
    medium: 0.51,
    reference: [
        0.73748344,  // coverage
        0.8432892,   // key_coverage
        0.64160883,  // in_quote
        0.7933675,   // key_support
        0.5085941,   // meaning
        0.022757022, // salient_missing
        0.016666668, // compound_missing
        0.21666667,  // asks_quantity
        0.14166667,  // quantity_shown
        0.33236468,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -1.8658,
    weights: [
        0.6655376,  // coverage
        0.6655376,  // key_coverage
        0.3721946,  // in_quote
        0.64339894, // key_support
        0.0,        // meaning
        -3.6932771, // salient_missing
        -0.9998139, // compound_missing
        -0.75217,   // asks_quantity
        0.44697806, // quantity_shown
        1.6286222,  // bigram_share
    ],
    threshold: 0.615,
    high: 0.775,
    medium: 0.62,
    reference: [
        0.740391,    // coverage
        0.740391,    // key_coverage
        0.6453034,   // in_quote
        0.70884,     // key_support
        0.0,         // meaning
        0.090053394, // salient_missing
        0.016666668, // compound_missing
        0.23333333,  // asks_quantity
        0.15,        // quantity_shown
        0.32675952,  // bigram_share
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

/// How the quotable fragments are ordered, with vectors.
pub(crate) const HYBRID_ORDER: OrderModel = OrderModel {
    weights: [
        1.2950699, // fused_place
        2.5783086, // fused_score
        5.489478,  // pairs_as_written
        4.954734,  // in_sentences
        4.915499,  // in_headings
    ],
};

/// How they are ordered for lexical answers.
pub(crate) const LEXICAL_ORDER: OrderModel = OrderModel::FUSED;
