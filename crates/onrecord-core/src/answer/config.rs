//! The answerer's knobs, in one place: retrieval fusion, how many fragments compete, the
//! decline model (a logistic model over the evidence features, fit by the eval harness on the
//! dev halves of the question sets) and the confidence cut points on its probability.

use crate::fusion::Fusion;

/// How many evidence features the decline model weighs.
pub const N_FEATURES: usize = 11;

/// The evidence features, by position in [`Features::values`]; names for reports (the decline
/// reasons in `answer/mod.rs` refer to them by position: keep both in step).
pub const FEATURE_NAMES: [&str; N_FEATURES] = [
    "coverage",
    "key_coverage",
    "in_quote",
    "key_support",
    "meaning",
    "salient_missing",
    "compound_missing",
    "asks_quantity",
    "quantity_shown",
    "bigram_share",
    "reader",
];

/// What the evidence for one question looks like, each value a number from 0 to about 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Features {
    /// The values, in the order of [`FEATURE_NAMES`].
    pub values: [f32; N_FEATURES],
}

/// A logistic model over [`Features`]: the probability that quoting is right.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeclineModel {
    /// Intercept.
    pub bias: f32,
    /// One weight per feature.
    pub weights: [f32; N_FEATURES],
    /// Below this probability the question is declined.
    pub threshold: f32,
    /// At or above this probability the confidence is high (above 1: never).
    pub high: f32,
    /// At or above this probability the confidence is medium (above 1: never).
    pub medium: f32,
    /// The features of a typical right answer: a decline names the feature that falls
    /// furthest below it, weighted.
    pub reference: [f32; N_FEATURES],
}

impl DeclineModel {
    /// The log-odds that quoting is right, given the evidence.
    pub fn score(&self, features: &Features) -> f32 {
        self.bias
            + self
                .weights
                .iter()
                .zip(&features.values)
                .map(|(w, x)| w * x)
                .sum::<f32>()
    }

    /// The probability that quoting is right, given the evidence.
    pub fn probability(&self, features: &Features) -> f32 {
        1.0 / (1.0 + (-self.score(features)).exp())
    }

    /// Whether a probability `p` reaches `cut` (compared in log-odds, so the browser needs no
    /// exponential: the answer depends only on which side of the cut points a score falls).
    pub fn reaches(&self, features: &Features, cut: f32) -> bool {
        if cut <= 0.0 {
            return true;
        }
        if cut >= 1.0 {
            return false;
        }
        self.score(features) >= (cut / (1.0 - cut)).ln()
    }

    /// Each feature's push on the decision relative to a typical right answer (negative:
    /// towards declining).
    pub fn contributions(&self, features: &Features) -> [f32; N_FEATURES] {
        let mut res = [0.0; N_FEATURES];
        for (i, r) in res.iter_mut().enumerate() {
            *r = self.weights[i] * (features.values[i] - self.reference[i]);
        }
        res
    }
}

/// Knobs of the answerer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerConfig {
    /// The decline model used when the question has a vector (the query model is loaded).
    pub hybrid: DeclineModel,
    /// The decline model used for lexical answers (before the query model arrives).
    pub lexical: DeclineModel,
    /// How much a sentence of the shape the question asks for (a number for "how much", …)
    /// counts, in shares of the question's weight, when choosing what to quote.
    pub shape_weight: f32,
    /// The least share of the question's idf weight a private note's hint must cover to bear
    /// on it.
    pub hint_floor: f32,
    /// How many fragments retrieval ranks.
    pub top_k: usize,
    /// The knobs of the shipped retrieval (hybrid + rerank).
    pub fusion: Fusion,
}
