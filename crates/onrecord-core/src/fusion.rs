//! The knobs of hybrid + rerank's fusion. The shipped values are fit by the eval and live in
//! the generated `answer/shipped.rs` ([`Fusion::SHIPPED`]).

/// The knobs of hybrid + rerank: how the BM25 and vector lists are fused and how much the
/// rerank's lexical coverage counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// Weight of the vector list's votes (BM25's are 1).
    pub vector_weight: f32,
    /// Weight of lexical coverage in the rerank, in units of a first-place vote.
    pub rerank_weight: f32,
    /// The reciprocal-rank constant: smaller trusts the top of each list more.
    pub rrf_c: f32,
}
