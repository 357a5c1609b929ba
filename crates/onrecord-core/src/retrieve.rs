//! The shipped retrieval pipeline: what `ask`, the widget and the eval's "shipped" row use.

use crate::bm25::{Hit, QueryTerm, query_terms, search};
use crate::format::Index;

/// Ranks fragments for a question and returns the best `k`.
pub fn retrieve(index: &Index, question: &str, k: usize) -> Vec<Hit> {
    rank(index, &query_terms(index, question), k)
}

/// [`retrieve`] for a question already analysed into terms.
pub(crate) fn rank(index: &Index, terms: &[QueryTerm], k: usize) -> Vec<Hit> {
    search(index, terms, k)
}
