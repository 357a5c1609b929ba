//! The shipped decline models, quote-shape weight and fusion knobs, as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::DeclineModel;
use crate::retrieve::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.5888953,
    weights: [
        1.0117228,      // coverage
        0.40115264,     // key_coverage
        0.44596738,     // in_quote
        -0.00079407496, // key_support
        1.6197218,      // meaning
        -3.2387578,     // salient_missing
        -0.9154059,     // compound_missing
        -0.8678369,     // asks_quantity
        0.30474785,     // quantity_shown
        1.442362,       // bigram_share
    ],
    threshold: 0.465,
    high: 2.0,
    medium: 0.465,
    reference: [
        0.7539322,   // coverage
        0.8580978,   // key_coverage
        0.6534766,   // in_quote
        0.8052194,   // key_support
        0.48998255,  // meaning
        0.021511657, // salient_missing
        0.012345679, // compound_missing
        0.22222222,  // asks_quantity
        0.14814815,  // quantity_shown
        0.34805793,  // bigram_share
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -2.2052557,
    weights: [
        0.78254205,  // coverage
        0.78254205,  // key_coverage
        0.32142818,  // in_quote
        0.5806688,   // key_support
        0.0,         // meaning
        -2.927773,   // salient_missing
        -0.97728354, // compound_missing
        -0.70812577, // asks_quantity
        0.45559815,  // quantity_shown
        1.6001725,   // bigram_share
    ],
    threshold: 0.48,
    high: 2.0,
    medium: 0.48,
    reference: [
        0.7616204,   // coverage
        0.7616204,   // key_coverage
        0.6653365,   // in_quote
        0.7291569,   // key_support
        0.0,         // meaning
        0.08703829,  // salient_missing
        0.012820513, // compound_missing
        0.24358974,  // asks_quantity
        0.16666667,  // quantity_shown
        0.36061504,  // bigram_share
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
