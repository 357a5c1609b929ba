//! Answering: quote the sentences that carry the question, with their citations, or decline
//! and say which gate declined.
//!
//! The first quote comes from whichever of the best-ranked fragments carries most of the
//! question; up to two more come from other pages when the question is compound. The gates
//! (content words, never-mentioned words, coverage floor, support) and the confidence label
//! look only at the evidence. Every decision is deterministic and explained.

use crate::bm25::{QueryTerm, query_terms};
use crate::format::{Fragment, Index, RoutingHint};
use crate::question::{QuestionError, check_question};
use crate::quote::{Pick, Wanted, pick, text_fragment_url, union, weight};
use crate::retrieve::{SHIPPED, in_fragment, query_vector, rank};
use crate::text::tokens;
use crate::vector::{QueryModel, similarity};

/// How many of the best-ranked fragments compete to give the first quote.
const ANSWER_CANDIDATES: usize = 3;
/// At most this many quotes, each from a different page.
const MAX_QUOTES: usize = 3;
/// A further quote must add at least this share of the question's idf weight.
const COMPOUND_GAIN: f32 = 0.2;
/// Support (share of the question's weight around one quote) that makes confidence high.
const HIGH_SUPPORT: f32 = 0.9;
/// Other matching sections listed under an answer.
const MAX_RELATED: usize = 4;

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
    /// For an answer: how strongly the quoted text carries the question (from the evidence
    /// alone); `None` for a decline.
    pub confidence: Option<Confidence>,
    /// For an answer: other matching sections, not quoted (never on a decline).
    pub related: Vec<Section>,
    /// Routing hints to private notes that bear on the question (never their prose).
    pub hints: Vec<RoutingHint>,
    /// Verbatim quotes, each with its citation; empty when declining.
    pub quotes: Vec<Quote>,
    /// Why the question was declined, when it was.
    pub decline: Option<Decline>,
    /// Content words of the question that no page uses.
    pub missing_terms: Vec<String>,
}

/// How strongly the evidence carries the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    /// One quote and its headings carry nearly all of the question's words.
    High,
    /// The quotes carry enough of the question's words, or need more than one page.
    Medium,
    /// Passed on meaning alone: the quoted words differ from the question's.
    Low,
}

impl Confidence {
    /// The label the widget shows.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

/// Another section that matches the question, listed under an answer (not quoted).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Index into [`Index::fragments`].
    pub fragment: u32,
    /// Where it is.
    pub citation: Citation,
}

/// Why a question was declined.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Decline {
    /// The question cannot be asked: too long, or it holds control characters.
    BadQuestion(QuestionError),
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
    /// Byte ranges in `text` of the question's words (for highlighting).
    pub highlights: Vec<(u32, u32)>,
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
    /// `url` with a `#:~:text=` directive for the quote, for browsers that support it.
    pub text_fragment_url: String,
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
    let question = match check_question(question) {
        Ok(question) => question,
        Err(why) => {
            return Answer {
                mode: Mode::NotFound,
                supported: false,
                confidence: None,
                quotes: Vec::new(),
                related: Vec::new(),
                hints: Vec::new(),
                decline: Some(Decline::BadQuestion(why)),
                missing_terms: Vec::new(),
            };
        }
    };
    let terms = query_terms(index, question);
    let missing_terms: Vec<String> = terms
        .iter()
        .filter(|t| !t.in_corpus())
        .map(|t| t.word.clone())
        .collect();
    let hints = bearing_hints(index, &terms, config.hint_floor);
    match evidence(index, model, question, &terms, config) {
        Ok(found) => Answer {
            mode: Mode::Answer,
            supported: !hints.is_empty(),
            confidence: Some(found.confidence),
            quotes: found.quotes,
            related: found.related,
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
            confidence: None,
            quotes: Vec::new(),
            related: Vec::new(),
            hints,
            decline: Some(decline),
            missing_terms,
        },
    }
}

/// What the public pages give for a question that passed every gate.
struct Evidence {
    quotes: Vec<Quote>,
    confidence: Confidence,
    related: Vec<Section>,
}

/// A fragment that competes to be quoted.
struct Candidate<'a> {
    frag: u32,
    fragment: &'a Fragment,
    pick: Pick,
}

/// The quotes from the public pages that answer the question, or which gate declined.
fn evidence(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    terms: &[QueryTerm],
    config: &AnswerConfig,
) -> Result<Evidence, Decline> {
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
    // Embedded once: for ranking and for the meaning gate.
    let query_vector = query_vector(index, model, question);
    let hits = rank(index, query_vector.as_deref(), terms, config.top_k, SHIPPED);
    let share = |covered: &[bool]| share_of(terms, covered);
    let candidates: Vec<Candidate> = hits
        .iter()
        .filter_map(|hit| {
            let fragment = index.fragments.get(hit.fragment as usize)?;
            Some(Candidate {
                frag: hit.fragment,
                fragment,
                pick: pick(index, fragment, terms),
            })
        })
        .collect();
    // Among the first few fragments, quote the one whose quote carries most of the question;
    // the better-ranked one on a tie.
    let mut primary: Option<usize> = None;
    for (i, c) in candidates.iter().enumerate().take(ANSWER_CANDIDATES) {
        if primary
            .and_then(|p| candidates.get(p))
            .is_none_or(|b| share(&c.pick.local) > share(&b.pick.local))
        {
            primary = Some(i);
        }
    }
    let Some(primary) = primary else {
        return Err(Decline::NeverMentioned { terms: missing });
    };
    let chosen = if asks_several(question) {
        compound(&candidates, primary, terms, &share)
    } else {
        vec![primary]
    };
    let picked: Vec<&Candidate> = chosen.iter().filter_map(|&i| candidates.get(i)).collect();
    let none = vec![false; terms.len()];
    let support = share(
        &picked
            .iter()
            .fold(none.clone(), |acc, c| union(&acc, &c.pick.local)),
    );
    let coverage = share(&picked.iter().fold(none, |acc, c| {
        union(&acc, &fragment_terms(index, terms, c.frag))
    }));
    let meaning = query_vector.as_deref().and_then(|q| {
        picked
            .iter()
            .filter_map(|c| similarity(index, c.frag, q))
            .reduce(f32::max)
    });
    let meaning_ok = meaning.is_some_and(|m| m >= config.meaning_floor);
    if coverage < config.coverage_floor && !meaning_ok {
        return Err(Decline::BelowFloor {
            coverage,
            floor: config.coverage_floor,
            meaning,
        });
    }
    if support < config.support_floor && !meaning_ok {
        return Err(Decline::Unsupported {
            coverage: support,
            floor: config.support_floor,
        });
    }
    let confidence = if support < config.support_floor || coverage < config.coverage_floor {
        // Through on meaning alone: the words on the page differ from the question's.
        Confidence::Low
    } else if support >= HIGH_SUPPORT && picked.len() == 1 {
        Confidence::High
    } else {
        Confidence::Medium
    };
    let quotes: Vec<Quote> = picked
        .iter()
        .map(|c| quote(index, c.frag, c.fragment, &c.pick, terms))
        .collect();
    let mut related: Vec<Section> = Vec::new();
    for c in &candidates {
        if chosen
            .iter()
            .any(|&i| candidates.get(i).is_some_and(|p| p.frag == c.frag))
        {
            continue;
        }
        let citation = citation(index, c.fragment, "");
        let seen = related.iter().any(|s| s.citation.url == citation.url)
            || quotes
                .iter()
                .any(|q: &Quote| q.citation.url == citation.url);
        if !seen {
            related.push(Section {
                fragment: c.frag,
                citation,
            });
        }
    }
    related.truncate(MAX_RELATED);
    Ok(Evidence {
        quotes,
        confidence,
        related,
    })
}

/// The primary candidate, then up to two more from other pages, each chosen because its quote
/// adds a good share of the question that the quotes so far leave out: a compound question
/// ("price, delivery fee and weight") is answered from the pages that each carry a part.
fn compound(
    candidates: &[Candidate],
    primary: usize,
    terms: &[QueryTerm],
    share: &dyn Fn(&[bool]) -> f32,
) -> Vec<usize> {
    let mut chosen = vec![primary];
    let mut covered = candidates
        .get(primary)
        .map_or_else(|| vec![false; terms.len()], |c| c.pick.local.clone());
    while chosen.len() < MAX_QUOTES {
        let docs: Vec<u32> = chosen
            .iter()
            .filter_map(|&i| candidates.get(i).map(|c| c.fragment.doc))
            .collect();
        let base = share(&covered);
        let mut best: Option<(usize, f32)> = None;
        for (i, c) in candidates.iter().enumerate() {
            if docs.contains(&c.fragment.doc) {
                continue;
            }
            // The quote itself must carry a missing term, not only its page title.
            let adds_in_quote = c
                .pick
                .in_quote
                .iter()
                .zip(&covered)
                .any(|(q, have)| *q && !*have);
            let gain = share(&union(&covered, &c.pick.local)) - base;
            if adds_in_quote && gain >= COMPOUND_GAIN && best.is_none_or(|(_, g)| gain > g) {
                best = Some((i, gain));
            }
        }
        let Some((i, _)) = best else { break };
        if let Some(c) = candidates.get(i) {
            covered = union(&covered, &c.pick.local);
        }
        chosen.push(i);
    }
    chosen
}

/// Whether the question joins several asks ("price, fee and weight"; "A oder B"): only then
/// may the answer combine pages. Without this, a near-miss borrows its missing word from an
/// unrelated page ("VAT number" from "company number" plus "prices include VAT").
fn asks_several(question: &str) -> bool {
    const JOINERS: &[&str] = &["and", "or", "plus", "und", "oder", "sowie"];
    question.contains([',', ';']) || tokens(question).any(|(_, w)| JOINERS.contains(&w.as_str()))
}

/// Which of the question's terms occur anywhere in the fragment (its indexed words).
fn fragment_terms(index: &Index, terms: &[QueryTerm], frag: u32) -> Vec<bool> {
    terms.iter().map(|t| in_fragment(index, t, frag)).collect()
}

fn quote(index: &Index, frag: u32, fragment: &Fragment, pick: &Pick, terms: &[QueryTerm]) -> Quote {
    let text = fragment
        .text
        .get(pick.start as usize..pick.end as usize)
        .unwrap_or_default()
        .to_owned();
    let lang = index
        .docs
        .get(fragment.doc as usize)
        .map_or(index.default_lang, |d| d.lang);
    let highlights = Wanted::new(index, lang, terms).highlights(&text);
    Quote {
        fragment: frag,
        start: pick.start,
        end: pick.end,
        citation: citation(index, fragment, &text),
        text,
        highlights,
    }
}

/// Share (0..1) of the question's idf weight that `covered` carries. A framing verb ("think",
/// "written") counts only when it is covered: it may help, it is never required.
fn share_of(terms: &[QueryTerm], covered: &[bool]) -> f32 {
    let total: f32 = terms
        .iter()
        .zip(covered)
        .filter(|(t, c)| !t.framing || **c)
        .map(|(t, _)| t.idf)
        .sum();
    if total > 0.0 {
        weight(terms, covered) / total
    } else {
        0.0
    }
}

/// Hints whose public-safe words (label, locator, keywords) cover at least `floor` of the
/// question's idf weight, best first.
fn bearing_hints(index: &Index, terms: &[QueryTerm], floor: f32) -> Vec<RoutingHint> {
    if index.hints.is_empty() {
        return Vec::new();
    }
    let mut covered = vec![vec![false; terms.len()]; index.hints.len()];
    for (i, term) in terms.iter().enumerate() {
        let mut hit: Vec<u32> = term
            .hint_term_ids
            .iter()
            .filter_map(|&id| index.hint_terms.get(id))
            .flat_map(|t| t.postings.iter().map(|&(h, _)| h))
            .collect();
        hit.sort_unstable();
        hit.dedup();
        for h in hit {
            if let Some(c) = covered.get_mut(h as usize).and_then(|c| c.get_mut(i)) {
                *c = true;
            }
        }
    }
    let mut bearing: Vec<(usize, f32)> = covered
        .iter()
        .enumerate()
        .map(|(i, c)| (i, share_of(terms, c)))
        .filter(|&(_, share)| share >= floor)
        .collect();
    bearing.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    bearing
        .into_iter()
        .filter_map(|(i, _)| index.hints.get(i).cloned())
        .collect()
}

/// The citation of `fragment`; its text-fragment link points at `quote` (none when empty).
fn citation(index: &Index, fragment: &Fragment, quote: &str) -> Citation {
    let doc = index.docs.get(fragment.doc as usize);
    let page = doc.map(|d| d.url.as_str()).unwrap_or_default();
    let url = if fragment.anchor.is_empty() {
        page.to_owned()
    } else {
        format!("{page}#{}", fragment.anchor)
    };
    Citation {
        title: doc.map(|d| d.title.clone()).unwrap_or_default(),
        section: fragment.heading_path.join(" › "),
        text_fragment_url: if quote.is_empty() {
            url.clone()
        } else {
            text_fragment_url(&url, quote)
        },
        url,
        fragment_no: fragment.position.saturating_add(1),
        fragment_count: doc.map_or(0, |d| d.n_fragments),
    }
}
