//! The shipped configuration (decline models, quote-shape weight and fusion knobs), as `eval --cross
//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this
//! file is written by it). The cross-corpus table in `eval/results/cross-corpus.md` shows
//! what the same procedure gives on each corpus when that corpus is left out of the fit.

use super::config::{AnswerConfig, DeclineModel};
use crate::fusion::Fusion;

/// Fit with vectors (the query model loaded).
pub(crate) const HYBRID: DeclineModel = DeclineModel {
    bias: -2.7305367,
    weights: [
        1.1439334,   // coverage
        0.48478374,  // key_coverage
        0.7669642,   // in_quote
        -0.10315821, // key_support
        1.4553946,   // meaning
        -4.279514,   // salient_missing
        -1.0279437,  // compound_missing
        -0.8928613,  // asks_quantity
        0.41227973,  // quantity_shown
        1.6890038,   // bigram_share
        0.0,         // reader
    ],
    threshold: 0.515,
    high: 0.79999995,
    medium: 0.515,
    reference: [
        0.75271606,  // coverage
        0.854833,    // key_coverage
        0.6515629,   // in_quote
        0.7952942,   // key_support
        0.5090819,   // meaning
        0.021053921, // salient_missing
        0.017094018, // compound_missing
        0.23076923,  // asks_quantity
        0.14529915,  // quantity_shown
        0.3346964,   // bigram_share
        0.0,         // reader
    ],
};

/// Fit without vectors (lexical answers, before the query model arrives).
pub(crate) const LEXICAL: DeclineModel = DeclineModel {
    bias: -1.8751833,
    weights: [
        0.6695372,   // coverage
        0.6695372,   // key_coverage
        0.37419343,  // in_quote
        0.6468574,   // key_support
        0.0,         // meaning
        -3.6673887,  // salient_missing
        -1.0014224,  // compound_missing
        -0.73346055, // asks_quantity
        0.37076318,  // quantity_shown
        1.6291097,   // bigram_share
        0.0,         // reader
    ],
    threshold: 0.62,
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
        0.0,         // reader
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

impl Fusion {
    /// The fusion knobs the shipped retrieval uses (`FUSION` above).
    pub const SHIPPED: Fusion = FUSION;
}

impl AnswerConfig {
    /// The settings the widget ships with: the models and knobs above, fit on the dev halves of
    /// every question set by `eval --cross eval/corpora.json` (see `eval/results/cross-corpus.md`).
    pub const DEFAULT: AnswerConfig = AnswerConfig {
        hybrid: HYBRID,
        lexical: LEXICAL,
        shape_weight: SHAPE_WEIGHT,
        hint_floor: 0.5,
        top_k: 5,
        fusion: FUSION,
    };
}
