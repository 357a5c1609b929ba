//! The source of `crates/onrecord-core/src/answer/shipped.rs`, written from the configuration
//! the fit chose on every corpus's dev half (`eval --cross eval/corpora.json --write-shipped`).

use onrecord_core::{AnswerConfig, DeclineModel, FEATURE_NAMES, N_FEATURES};

/// The source of `answer/shipped.rs` for `config`.
pub(super) fn shipped_rs(config: &AnswerConfig, vectors: bool) -> String {
    let model = |m: &DeclineModel| -> String {
        let list = |v: &[f32; N_FEATURES]| -> String {
            v.iter()
                .zip(FEATURE_NAMES)
                .map(|(x, name)| format!("        {x:?}, // {name}\n"))
                .collect()
        };
        format!(
            "DeclineModel {{\n    bias: {:?},\n    weights: [\n{}    ],\n    threshold: {:?},\n    high: {:?},\n    medium: {:?},\n    reference: [\n{}    ],\n}}",
            m.bias,
            list(&m.weights),
            m.threshold,
            m.high,
            m.medium,
            list(&m.reference)
        )
    };
    format!(
        "//! The shipped configuration (decline models, quote-shape weight and fusion knobs), as `eval --cross\n//! eval/corpora.json --write-shipped` fits them on the dev halves of every question set (this\n//! file is written by it{}). The cross-corpus table in `eval/results/cross-corpus.md` shows\n//! what the same procedure gives on each corpus when that corpus is left out of the fit.\n\nuse super::config::{{AnswerConfig, DeclineModel}};\nuse crate::fusion::Fusion;\n\n/// Fit with vectors (the query model loaded).\npub(crate) const HYBRID: DeclineModel = {};\n\n/// Fit without vectors (lexical answers, before the query model arrives).\npub(crate) const LEXICAL: DeclineModel = {};\n\n/// How much the shape of a sentence counts when choosing what to quote.\npub(crate) const SHAPE_WEIGHT: f32 = {:?};\n\n/// The fusion knobs of hybrid + rerank.\npub(crate) const FUSION: Fusion = Fusion {{\n    vector_weight: {:?},\n    rerank_weight: {:?},\n    rrf_c: {:?},\n}};\n\nimpl Fusion {{\n    /// The fusion knobs the shipped retrieval uses (`FUSION` above).\n    pub const SHIPPED: Fusion = FUSION;\n}}\n\nimpl AnswerConfig {{\n    /// The settings the widget ships with: the models and knobs above, fit on the dev halves of\n    /// every question set by `eval --cross eval/corpora.json` (see `eval/results/cross-corpus.md`).\n    pub const DEFAULT: AnswerConfig = AnswerConfig {{\n        hybrid: HYBRID,\n        lexical: LEXICAL,\n        shape_weight: SHAPE_WEIGHT,\n        hint_floor: 0.5,\n        top_k: 5,\n        fusion: FUSION,\n    }};\n}}\n",
        if vectors {
            ""
        } else {
            "; run without vectors, so HYBRID was not refit"
        },
        model(&config.hybrid),
        model(&config.lexical),
        config.shape_weight,
        config.fusion.vector_weight,
        config.fusion.rerank_weight,
        config.fusion.rrf_c,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator writes the shipped file back from the values it holds (as `cargo fmt`
    /// leaves it: the spaces that align comments aside).
    #[test]
    fn shipped_rs_writes_the_shipped_file() {
        let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            words(&shipped_rs(&AnswerConfig::DEFAULT, true)),
            words(include_str!(
                "../../../crates/onrecord-core/src/answer/shipped.rs"
            ))
        );
    }
}
