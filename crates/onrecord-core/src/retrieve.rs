//! Retrieval: BM25, vectors, their fusion by reciprocal rank, a cheap rerank and the per-page cap.
//!
//! The eval compares every [`Method`]; `ask` and the widget use [`SHIPPED`]. Without a query
//! model (not loaded yet, or built for another index) the vector list is empty and the hybrid
//! methods rank from BM25 alone (hybrid + rerank adds its lexical-coverage rerank), so the first
//! lexical answer never waits for the model.

use crate::bm25::{Hit, QueryTerm, best_first, query_terms, search};
use crate::format::Index;
use crate::fusion::Fusion;
use crate::question::Question;
use crate::scope::Scope;
use crate::text::reads_as_english;
use crate::vector::{QueryModel, search_vectors};

/// A retrieval method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// BM25 over the index's (stemmed) terms.
    Bm25,
    /// BM25 reranked by how much of the question each fragment covers.
    Bm25Rerank,
    /// Cosine similarity of the question's static embedding and the fragment vectors.
    Vectors,
    /// Reciprocal rank fusion of BM25 and vectors.
    Hybrid,
    /// [`Method::Hybrid`] reranked by how much of the question each fragment covers.
    HybridRerank,
}

/// The method `ask` and the widget use; chosen on the eval's dev split.
pub const SHIPPED: Method = Method::HybridRerank;

/// How many candidates each list contributes to fusion.
const CANDIDATES: usize = 50;
/// The reciprocal-rank constant (Cormack et al.) for plain fusion.
const RRF_C: f32 = 60.0;
/// Weight of lexical coverage in BM25 + rerank, in units of a first-place vote.
const BM25_RERANK_WEIGHT: f32 = 1.0;
/// At most this many fragments of one page among the first `CAP_WINDOW` results.
const PER_PAGE: usize = 3;
const CAP_WINDOW: usize = 5;

/// Ranks fragments for a question with the shipped method and returns the best `k`.
pub fn retrieve(index: &Index, model: Option<&QueryModel>, question: &str, k: usize) -> Vec<Hit> {
    retrieve_with(index, model, question, k, SHIPPED)
}

/// Ranks fragments for a question with `method`.
pub fn retrieve_with(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    k: usize,
    method: Method,
) -> Vec<Hit> {
    let question = Question::new(question);
    let vector = query_vector(index, model, &question);
    rank(
        index,
        vector.as_deref(),
        &query_terms(index, &question),
        k,
        method,
        &Fusion::SHIPPED,
        None,
    )
}

/// The question's vector, when [`asks_by_meaning`].
pub(crate) fn query_vector(
    index: &Index,
    model: Option<&QueryModel>,
    question: &Question,
) -> Option<Vec<f32>> {
    model
        .filter(|_| asks_by_meaning(index, model, question))
        .and_then(|m| m.embed(question.text()))
}

/// Whether `question` is matched by meaning as well as by its words: `model` fits the index
/// and the question is in English, the language of the teacher the query model was distilled
/// from (a German question is asked by its words alone).
pub fn asks_by_meaning(index: &Index, model: Option<&QueryModel>, question: &Question) -> bool {
    model.is_some_and(|m| model_fits(index, m)) && reads_as_english(question.words())
}

/// Whether `model` embeds questions into the space of this index's vectors.
pub fn model_fits(index: &Index, model: &QueryModel) -> bool {
    index.vector_space() == Some((model.checksum(), model.dims()))
}

/// Ranks with the question's terms and, when there is one, its vector; `fusion` sets the knobs
/// of [`Method::HybridRerank`]. With a scope (a follow-up's "why?"), each list holds only
/// fragments on its pages, ranked over the whole index first.
pub(crate) fn rank(
    index: &Index,
    vector: Option<&[f32]>,
    terms: &[QueryTerm],
    k: usize,
    method: Method,
    fusion: &Fusion,
    scope: Option<&Scope>,
) -> Vec<Hit> {
    let terms = &searched(terms);
    let depth = scope.map_or(CANDIDATES, |_| index.fragment_count() as usize);
    let within = |hits: Vec<Hit>| match scope {
        Some(s) => hits
            .into_iter()
            .filter(|h| s.contains(index, h.fragment))
            .take(CANDIDATES)
            .collect(),
        None => hits,
    };
    let lexical = || within(search(index, terms, depth));
    let semantic = || {
        within(
            vector
                .map(|q| search_vectors(index, q, depth))
                .unwrap_or_default(),
        )
    };
    let ranked = match method {
        Method::Bm25 => lexical(),
        Method::Bm25Rerank => rerank(index, terms, lexical()),
        Method::Vectors => semantic(),
        Method::Hybrid => reciprocal_rank(&[lexical(), semantic()]),
        Method::HybridRerank => fuse(index, terms, &lexical(), &semantic(), fusion),
    };
    cap_per_page(index, ranked, k)
}

/// Hybrid + rerank with explicit [`Fusion`] knobs (the eval's tuning grid uses this).
pub fn retrieve_fused(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    k: usize,
    fusion: &Fusion,
) -> Vec<Hit> {
    let question = Question::new(question);
    let terms = searched(&query_terms(index, &question));
    let lexical = search(index, &terms, CANDIDATES);
    let semantic = query_vector(index, model, &question)
        .map(|q| search_vectors(index, &q, CANDIDATES))
        .unwrap_or_default();
    cap_per_page(index, fuse(index, &terms, &lexical, &semantic, fusion), k)
}

/// The terms retrieval looks for: all but the quantity word of "how long".
fn searched(terms: &[QueryTerm]) -> Vec<QueryTerm> {
    terms.iter().filter(|t| !t.how_much).cloned().collect()
}

/// Weighted reciprocal-rank fusion of the BM25 and vector lists, then the coverage rerank.
fn fuse(
    index: &Index,
    terms: &[QueryTerm],
    lexical: &[Hit],
    semantic: &[Hit],
    fusion: &Fusion,
) -> Vec<Hit> {
    let fused = weighted_reciprocal_rank(
        &[(lexical, 1.0), (semantic, fusion.vector_weight)],
        fusion.rrf_c,
    );
    rerank_with(index, terms, &fused, fusion.rerank_weight, fusion.rrf_c)
}

/// Adds each fragment's lexical coverage of the question to its reciprocal-rank score.
fn rerank(index: &Index, terms: &[QueryTerm], ranked: Vec<Hit>) -> Vec<Hit> {
    rerank_with(index, terms, &ranked, BM25_RERANK_WEIGHT, RRF_C)
}

/// Each place of `ranked` becomes a reciprocal rank 1 / (c + rank), plus `weight` first-place
/// votes times the fragment's lexical coverage; so BM25 and fused lists rerank alike.
fn rerank_with(
    index: &Index,
    terms: &[QueryTerm],
    ranked: &[Hit],
    weight: f32,
    c: f32,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = ranked
        .iter()
        .enumerate()
        .map(|(rank, hit)| Hit {
            fragment: hit.fragment,
            score: 1.0 / (c + rank as f32 + 1.0)
                + weight / (c + 1.0) * coverage(index, terms, hit.fragment),
        })
        .collect();
    best_first(&mut hits);
    hits
}

/// Reciprocal rank fusion: each list votes 1 / (c + rank) for its fragments.
pub fn reciprocal_rank(lists: &[Vec<Hit>]) -> Vec<Hit> {
    let weighted: Vec<(&[Hit], f32)> = lists.iter().map(|l| (l.as_slice(), 1.0)).collect();
    weighted_reciprocal_rank(&weighted, RRF_C)
}

/// Reciprocal rank fusion where each list's votes, weight / (c + rank), carry its weight.
fn weighted_reciprocal_rank(lists: &[(&[Hit], f32)], c: f32) -> Vec<Hit> {
    // The lists are short (at most `CANDIDATES` each): a linear search finds a fragment's place.
    let mut fused: Vec<Hit> = Vec::new();
    for &(list, weight) in lists {
        for (rank, hit) in list.iter().enumerate() {
            let vote = weight / (c + rank as f32 + 1.0);
            match fused.iter_mut().find(|h| h.fragment == hit.fragment) {
                Some(h) => h.score += vote,
                None => fused.push(Hit {
                    fragment: hit.fragment,
                    score: vote,
                }),
            }
        }
    }
    best_first(&mut fused);
    fused
}

/// Share (0..1) of the question's idf weight whose words occur in the fragment.
pub(crate) fn coverage(index: &Index, terms: &[QueryTerm], frag: u32) -> f32 {
    let total: f32 = terms.iter().map(|t| t.idf).sum();
    let covered: f32 = terms
        .iter()
        .filter(|t| in_fragment(index, t, frag))
        .map(|t| t.idf)
        .sum();
    if total > 0.0 { covered / total } else { 0.0 }
}

/// Whether any of the term's stems is indexed for the fragment.
pub(crate) fn in_fragment(index: &Index, term: &QueryTerm, frag: u32) -> bool {
    term.term_ids.iter().any(|&id| {
        index
            .postings(id)
            .binary_search_by_key(&frag, |&(f, _)| f)
            .is_ok()
    })
}

/// Keeps at most `PER_PAGE` fragments of one page in the first `CAP_WINDOW` places; the rest
/// move down, in order. Returns the first `k`.
fn cap_per_page(index: &Index, ranked: Vec<Hit>, k: usize) -> Vec<Hit> {
    let mut head = Vec::new();
    let mut deferred = Vec::new();
    // The page of each hit in `head` (the lists are short: counting is a scan).
    let mut head_docs: Vec<u32> = Vec::new();
    for hit in ranked {
        let doc = index.page_of(hit.fragment).unwrap_or(u32::MAX);
        let count = head_docs.iter().filter(|&&d| d == doc).count();
        if head.len() < CAP_WINDOW && count >= PER_PAGE {
            deferred.push(hit);
        } else {
            head_docs.push(doc);
            head.push(hit);
        }
    }
    let split = head.len().min(CAP_WINDOW);
    let tail = head.split_off(split);
    head.extend(deferred);
    head.extend(tail);
    head.truncate(k);
    head
}
