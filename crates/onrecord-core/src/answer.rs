//! Answering: quote the best sentence of the best fragment, with its citation, or decline.
//!
//! This is the walking-skeleton answerer: one quote from the top fragment and one floor on how
//! much of the question that fragment covers. Every decision is deterministic and explained.

use std::collections::BTreeSet;

use crate::bm25::{QueryTerm, query_terms};
use crate::format::{Fragment, Index, RoutingHint};
use crate::retrieve::{SHIPPED, coverage, model_fits, rank};
use crate::text::{Analyzer, tokens};
use crate::vector::{QueryModel, similarity};

/// How many of the best-ranked fragments compete to give the quote.
const ANSWER_CANDIDATES: usize = 3;

/// Knobs of the answerer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerConfig {
    /// The least share (0..1) of the question's idf weight the top fragment must contain...
    pub coverage_floor: f32,
    /// ...unless its vector is at least this similar (cosine) to the question's.
    pub meaning_floor: f32,
    /// The least share of the question's idf weight the quoted sentence, the sentence before
    /// it, its headings and page title must carry (unless the meaning floor is met).
    pub support_floor: f32,
    /// The least share of the question's idf weight a private note's hint must cover to bear
    /// on it.
    pub hint_floor: f32,
    /// How many fragments retrieval ranks.
    pub top_k: usize,
}

impl AnswerConfig {
    /// The settings the widget ships with: chosen on the dev splits of the corpus and Express
    /// question sets by `eval/tune.sh` (coverage 0.3–0.7 tie; 0.5 kept).
    pub const DEFAULT: AnswerConfig = AnswerConfig {
        coverage_floor: 0.5,
        meaning_floor: 0.55,
        support_floor: 0.7,
        hint_floor: 0.5,
        top_k: 5,
    };
}

/// What kind of reply this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// Quotes from the public pages answer the question.
    Answer,
    /// The public pages do not answer, but a private note bears on it: the reply says where
    /// the moment lives (its hints) and quotes nothing.
    RelatedMaterial,
    /// The pages do not cover the question; nothing is cited.
    NotFound,
}

/// The reply to a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Answer, related material or decline.
    pub mode: Mode,
    /// For an answer: whether a private note also bears on it ("supported"), else "partial".
    pub supported: bool,
    /// Routing hints to private notes that bear on the question (never their prose).
    pub hints: Vec<RoutingHint>,
    /// Verbatim quotes, each with its citation; empty when declining.
    pub quotes: Vec<Quote>,
    /// Why the question was declined, when it was.
    pub decline: Option<Decline>,
    /// Content words of the question that no page uses.
    pub missing_terms: Vec<String>,
}

/// Why a question was declined.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Decline {
    /// The question has no content words (empty, punctuation or stopwords only).
    NoContentWords,
    /// None of the question's content words occur in the pages.
    NeverMentioned {
        /// The words, as the question wrote them.
        terms: Vec<String>,
    },
    /// The best sentence and its context carry too little of the question.
    Unsupported {
        /// Share of the question's weight around the quote.
        coverage: f32,
        /// The floor it had to reach.
        floor: f32,
    },
    /// The best passage covers too little of the question, in words and in meaning.
    BelowFloor {
        /// Share of the question's weight the best passage covers.
        coverage: f32,
        /// The floor it had to reach.
        floor: f32,
        /// Cosine similarity of the passage to the question, when vectors were available.
        meaning: Option<f32>,
    },
}

/// A verbatim quote: `text` is exactly `fragment.text[start..end]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// Index into [`Index::fragments`].
    pub fragment: u32,
    /// Byte offset of the quote in the fragment text.
    pub start: u32,
    /// Byte offset of the end of the quote.
    pub end: u32,
    /// The quoted text, sliced from the fragment.
    pub text: String,
    /// Where the quote comes from.
    pub citation: Citation,
}

/// Where a quote comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Citation {
    /// Page title.
    pub title: String,
    /// Heading path joined with " › " (empty for the top of a page).
    pub section: String,
    /// Page URL with the heading anchor.
    pub url: String,
    /// One-based position of the fragment in its page.
    pub fragment_no: u32,
    /// Number of fragments in the page.
    pub fragment_count: u32,
}

/// Answers `question` from `index` (with vectors when `model` fits it): quotes or declines.
/// Never fails.
pub fn ask(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Answer {
    let terms = query_terms(index, question);
    let missing_terms: Vec<String> = terms
        .iter()
        .filter(|t| !t.in_corpus())
        .map(|t| t.word.clone())
        .collect();
    let hints = bearing_hints(index, &terms, config.hint_floor);
    match public_quote(index, model, question, &terms, config) {
        Ok(quote) => Answer {
            mode: Mode::Answer,
            supported: !hints.is_empty(),
            quotes: vec![quote],
            hints,
            decline: None,
            missing_terms,
        },
        Err(decline) => Answer {
            mode: if hints.is_empty() {
                Mode::NotFound
            } else {
                Mode::RelatedMaterial
            },
            supported: false,
            quotes: Vec::new(),
            hints,
            decline: Some(decline),
            missing_terms,
        },
    }
}

/// The quote from the public pages that answers the question, or which gate declined.
fn public_quote(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    terms: &[QueryTerm],
    config: &AnswerConfig,
) -> Result<Quote, Decline> {
    if terms.is_empty() {
        return Err(Decline::NoContentWords);
    }
    let missing: Vec<String> = terms
        .iter()
        .filter(|t| !t.in_corpus())
        .map(|t| t.word.clone())
        .collect();
    if missing.len() == terms.len() {
        return Err(Decline::NeverMentioned { terms: missing });
    }
    let hits = rank(index, model, question, terms, config.top_k, SHIPPED);
    let query_vector = model
        .filter(|m| model_fits(index, m))
        .and_then(|m| m.embed(question));
    // Among the first few fragments, quote the one whose best sentence carries most of the
    // question; the better-ranked one on a tie.
    let mut best: Option<(u32, &Fragment, Pick)> = None;
    for hit in hits.iter().take(ANSWER_CANDIDATES) {
        let Some(fragment) = index.fragments.get(hit.fragment as usize) else {
            continue;
        };
        let pick = best_sentence(index, fragment, terms);
        if best
            .as_ref()
            .is_none_or(|(_, _, b)| pick.local_coverage > b.local_coverage)
        {
            best = Some((hit.fragment, fragment, pick));
        }
    }
    let Some((frag_idx, fragment, pick)) = best else {
        return Err(Decline::NeverMentioned { terms: missing });
    };
    let coverage = coverage(index, terms, frag_idx);
    let meaning = query_vector
        .as_deref()
        .and_then(|q| similarity(index, frag_idx, q));
    let meaning_ok = meaning.is_some_and(|m| m >= config.meaning_floor);
    if coverage < config.coverage_floor && !meaning_ok {
        return Err(Decline::BelowFloor {
            coverage,
            floor: config.coverage_floor,
            meaning,
        });
    }
    if pick.local_coverage < config.support_floor && !meaning_ok {
        return Err(Decline::Unsupported {
            coverage: pick.local_coverage,
            floor: config.support_floor,
        });
    }
    Ok(Quote {
        fragment: frag_idx,
        start: pick.start,
        end: pick.end,
        text: fragment
            .text
            .get(pick.start as usize..pick.end as usize)
            .unwrap_or_default()
            .to_owned(),
        citation: citation(index, fragment),
    })
}

/// Hints whose public-safe words (label, locator, keywords) cover at least `floor` of the
/// question's idf weight, best first.
fn bearing_hints(index: &Index, terms: &[QueryTerm], floor: f32) -> Vec<RoutingHint> {
    let total: f32 = terms.iter().map(|t| t.idf).sum();
    if total <= 0.0 || index.hints.is_empty() {
        return Vec::new();
    }
    let mut covered = vec![0f32; index.hints.len()];
    for term in terms {
        let mut hit: Vec<u32> = term
            .hint_term_ids
            .iter()
            .filter_map(|&id| index.hint_terms.get(id))
            .flat_map(|t| t.postings.iter().map(|&(h, _)| h))
            .collect();
        hit.sort_unstable();
        hit.dedup();
        for h in hit {
            if let Some(c) = covered.get_mut(h as usize) {
                *c += term.idf;
            }
        }
    }
    let mut bearing: Vec<(usize, f32)> = covered
        .into_iter()
        .enumerate()
        .map(|(i, c)| (i, c / total))
        .filter(|&(_, share)| share >= floor)
        .collect();
    bearing.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    bearing
        .into_iter()
        .filter_map(|(i, _)| index.hints.get(i).cloned())
        .collect()
}

/// The chosen sentence and how much of the question its local context carries.
struct Pick {
    start: u32,
    end: u32,
    /// Share of the question's idf weight found in the sentence, the one before it, the
    /// fragment's headings and the page title: what a reader sees around the quote.
    local_coverage: f32,
}

/// The sentence carrying most of the question's idf weight (the first one on a tie).
fn best_sentence(index: &Index, fragment: &Fragment, terms: &[QueryTerm]) -> Pick {
    let doc = index.docs.get(fragment.doc as usize);
    let lang = doc.map_or(index.default_lang, |d| d.lang);
    let analyzer = Analyzer::new(lang, index.settings.stemming);
    let stems = |text: &str| -> BTreeSet<String> {
        tokens(text)
            .map(|(_, w)| analyzer.term(&w).into_owned())
            .collect()
    };
    let wanted: Vec<(String, f32)> = terms
        .iter()
        .map(|t| (analyzer.term(&t.word).into_owned(), t.idf))
        .collect();
    let weight = |set: &BTreeSet<String>| -> f32 {
        wanted
            .iter()
            .filter(|(s, _)| set.contains(s))
            .map(|(_, idf)| idf)
            .sum()
    };
    let per_sentence: Vec<BTreeSet<String>> = fragment
        .sentences
        .iter()
        .map(|&(start, end)| {
            stems(
                fragment
                    .text
                    .get(start as usize..end as usize)
                    .unwrap_or(""),
            )
        })
        .collect();
    let mut best = 0;
    let mut best_score = 0.0;
    for (i, set) in per_sentence.iter().enumerate() {
        let score = weight(set);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    let (start, end) = fragment
        .sentences
        .get(best)
        .copied()
        .unwrap_or((0, fragment.text.len() as u32));
    let title = doc.map_or("", |d| d.title.as_str());
    let mut local = stems(&format!("{title} {}", fragment.heading_path.join(" ")));
    for i in [Some(best), best.checked_sub(1)].into_iter().flatten() {
        if let Some(set) = per_sentence.get(i) {
            local.extend(set.iter().cloned());
        }
    }
    let total: f32 = wanted.iter().map(|(_, idf)| idf).sum();
    let local_coverage = if total > 0.0 {
        weight(&local) / total
    } else {
        0.0
    };
    Pick {
        start,
        end,
        local_coverage,
    }
}

fn citation(index: &Index, fragment: &Fragment) -> Citation {
    let doc = index.docs.get(fragment.doc as usize);
    let url = doc.map(|d| d.url.as_str()).unwrap_or_default();
    Citation {
        title: doc.map(|d| d.title.clone()).unwrap_or_default(),
        section: fragment.heading_path.join(" › "),
        url: if fragment.anchor.is_empty() {
            url.to_owned()
        } else {
            format!("{url}#{}", fragment.anchor)
        },
        fragment_no: fragment.position.saturating_add(1),
        fragment_count: doc.map_or(0, |d| d.n_fragments),
    }
}
