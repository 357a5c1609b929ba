//! "Explore further": the sections next to the ones an answer quotes. The widget turns them
//! into suggested next questions with fixed templates (no model); the visitor still chooses
//! to ask.

use super::{Answer, Section, citation};
use crate::format::Index;

/// At most this many sections to explore.
const MAX_EXPLORE: usize = 3;

/// The sections after and before each quoted one on its page, in the order of the quotes,
/// leaving out sections the answer already quotes or lists; none for a decline.
pub fn explore(index: &Index, answer: &Answer) -> Vec<Section> {
    let mut res: Vec<Section> = Vec::new();
    for quote in &answer.quotes {
        let Some(fragment) = index.fragment(quote.fragment) else {
            continue;
        };
        let first = quote.fragment.saturating_sub(fragment.position);
        let end = first.saturating_add(index.doc_of(fragment).map_or(0, |d| d.n_fragments));
        let other = |i: &u32| {
            index
                .fragment(*i)
                .is_some_and(|g| g.anchor != fragment.anchor)
        };
        let next = (quote.fragment..end).find(other);
        let previous = (first..quote.fragment).rev().find(other);
        for frag in [next, previous].into_iter().flatten() {
            let Some(g) = index.fragment(frag) else {
                continue;
            };
            let citation = citation(index, g, "");
            let url = citation.url.as_str();
            let known = answer.quotes.iter().any(|q| q.citation.url == url)
                || answer.related.iter().any(|s| s.citation.url == url)
                || res.iter().any(|s| s.citation.url == url);
            if !known && res.len() < MAX_EXPLORE {
                res.push(Section {
                    fragment: frag,
                    citation,
                });
            }
        }
    }
    res
}
