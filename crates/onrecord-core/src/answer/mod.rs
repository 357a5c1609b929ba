//! Answering: quote the sentences that carry the question, with their citations, or decline
//! and say why.
//!
//! [`assess`] gathers the evidence: retrieval, the quote each of the best fragments would give
//! (the sentence carrying most of the question, preferring the shape the question asks for),
//! further quotes from other pages for compound questions, and the evidence [`Features`].
//! [`ask`] then decides: a logistic [`DeclineModel`] over the features gives the probability
//! that quoting is right; below its threshold the question is declined with the reason that
//! weighed most, above it the confidence label comes from the same probability. Every decision
//! is deterministic and explained.
//!
//! [`ask_turn`] answers a question in a thread: [`resolve`] reads it in the light of the
//! previous turn's [`TurnContext`] first (see `turn.rs`), and the reply carries the context of
//! this turn for the next one.

mod config;
mod evidence;
mod explore;
mod kind;
mod quote;
mod results;
pub(crate) mod shipped;
mod turn;

use crate::bm25::QueryTerm;
use crate::collection::Collection;
use crate::format::{Fragment, Index, RoutingHint};
use crate::question::{Question, QuestionError};
use crate::reader_model::ScorePairs;
use crate::text::tokens;
use crate::vector::QueryModel;

pub use self::config::{AnswerConfig, DeclineModel, FEATURE_NAMES, Features, N_FEATURES};
pub use self::evidence::Assessment;
pub use self::explore::explore;
pub use self::kind::{AskKind, ask_kind};
pub use self::quote::section_url;
pub(crate) use self::quote::text_fragment_url;
pub use self::results::{
    Correction, MAX_PER_PAGE, MAX_RESULTS, Search, SectionHit, search, search_in,
};
pub use self::turn::{
    FollowUp, MAX_CONTEXT_FRAGMENTS, MAX_CONTEXT_QUESTION, Turn, TurnContext, resolve,
};
pub use crate::scope::Scope;

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
    /// For an answer: whether the quotes carry the whole question, or which part is missing.
    pub completeness: Option<Completeness>,
    /// For an answer: how likely it is right, as measured on questions nobody tuned on;
    /// `None` for a decline.
    pub confidence: Option<Confidence>,
    /// For an answer: other matching sections, not quoted (never on a decline).
    pub related: Vec<Section>,
    /// Routing hints to private notes that bear on the question (never their prose).
    pub hints: Vec<RoutingHint>,
    /// Verbatim quotes, each with its citation; empty when declining.
    pub quotes: Vec<Quote>,
    /// Why the question was declined, when it was.
    pub decline: Option<Decline>,
    /// Content words of the question that no page uses; on a decline, as it names them (a
    /// whole name, no framing verb beside a subject word).
    pub missing_terms: Vec<String>,
    /// Sections that match, best first, shown as results under the answer or the decline
    /// (none of them quoted; none when the pages never use the question's subject).
    pub results: Vec<SectionHit>,
    /// The question's words read as the site's nearest words (typos).
    pub corrections: Vec<Correction>,
}

/// Whether an answer's quotes carry the whole question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// Every part of the question is on the quoted pages.
    Supported,
    /// These words of the question are on none of the quoted pages ("nothing here on ‘HTTP/3’").
    Partial {
        /// The missing words, as the question wrote them.
        missing: Vec<String>,
    },
}

impl Completeness {
    /// The mode name the eval and the widget use: "supported" or "partial".
    pub fn label(&self) -> &'static str {
        match self {
            Completeness::Supported => "supported",
            Completeness::Partial { .. } => "partial",
        }
    }
}

/// How likely an answer is right: each label's cut point is chosen on the dev halves so that,
/// on corpora left out of the choice, high is right at least 90% of the time and medium 70%.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    /// Measured right ≥ 90% of the time on corpora nobody tuned on.
    High,
    /// Measured right ≥ 70% of the time.
    Medium,
    /// Passed the decline model, but less often right.
    Low,
}

impl Confidence {
    /// The less confident of the two.
    pub fn weaker(self, other: Confidence) -> Confidence {
        let rank = |c: Confidence| match c {
            Confidence::High => 2,
            Confidence::Medium => 1,
            Confidence::Low => 0,
        };
        if rank(other) < rank(self) {
            other
        } else {
            self
        }
    }

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
    /// None of the question's content words occur in the pages, or (when some do) these
    /// weigh most in the decision.
    NeverMentioned {
        /// The words, as the question wrote them.
        terms: Vec<String>,
    },
    /// The closest passage does not mention these words of the question.
    Missing {
        /// The words, as the question wrote them.
        terms: Vec<String>,
    },
    /// The best sentence and its context carry too little of the question.
    Unsupported {
        /// Share of the question's weight around the quote.
        coverage: f32,
    },
    /// The question asks for a number or amount ("how long", "what does it cost"), and the
    /// closest sentence gives none.
    NoAmount,
    /// The question is written in a language no page is in ("Wie starte ich den Server?" on
    /// English pages).
    OtherLanguage {
        /// The language the question reads as.
        lang: crate::text::Lang,
    },
    /// The best passage covers too little of the question, in words and in meaning.
    BelowFloor {
        /// Share of the question's weight the best passage covers.
        coverage: f32,
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
    /// For a table row: its table's header row, shown above it (sliced from the fragment too).
    pub header: Option<String>,
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
    /// The collection the page belongs to (the quote's label: "How it works", "Why we decided").
    pub collection: Option<Collection>,
}

/// Answers `question` from `index` (with vectors when `model` fits it): quotes or declines.
/// Never fails.
pub fn ask(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Answer {
    ask_with(index, model, None, question, config)
}

/// [`ask`] with a reader model that reads the question and each candidate quote together.
pub fn ask_with(
    index: &Index,
    model: Option<&QueryModel>,
    reader: Option<&dyn ScorePairs>,
    question: &str,
    config: &AnswerConfig,
) -> Answer {
    decide(
        within_caps(index, assess_with(index, model, reader, question, config)),
        config,
    )
}

/// The reply to a question in a thread: the answer, how the question was read, the context
/// the browser echoes with the next question, and up to three sections to explore next.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The answer to the question as it was read.
    pub answer: Answer,
    /// How the question was read ("Read as: …").
    pub turn: Turn,
    /// What the next question's [`ask_turn`] needs: the question as executed and the
    /// fragments it used (quoted or listed; for a decline, those it weighed, never shown).
    pub context: TurnContext,
    /// Neighbouring sections of the quoted ones, for suggested next questions.
    pub explore: Vec<Section>,
}

/// Answers `question` after the turn `context` describes (none: a first question). A missing,
/// stale or malformed context reads the question as standalone; never fails. A follow-up's
/// confidence is at most what the visitor's own words find alone: evidence inherited from
/// the previous turn never raises it.
pub fn ask_turn(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    context: Option<&TurnContext>,
    config: &AnswerConfig,
) -> Reply {
    ask_turn_in(index, model, question, context, None, config)
}

/// [`ask_turn`] within one part of the site ([`Scope::part`]; none: the whole site): nothing
/// outside it is quoted, listed or weighed, as if the site were that part alone.
pub fn ask_turn_in(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    context: Option<&TurnContext>,
    part: Option<&Scope>,
    config: &AnswerConfig,
) -> Reply {
    // The question is read once here; only a follow-up read in the light of the previous turn
    // is a new text, read once more. A question that cannot be asked (too long, control
    // characters) is not read in the light of the previous turn either: it stands alone, and
    // `assess` declines it.
    let asked = Question::read(question);
    let turn = resolve(index, &asked, context.filter(|_| asked.problem().is_none()));
    let reread;
    let executed = if turn.question == asked.text() {
        &asked
    } else {
        reread = Question::read(&turn.question);
        &reread
    };
    // The own-words check goes through this closure too: one call site of the pipeline is 147
    // bytes less of the gzipped wasm than calling `ask` as well (measured). Besides the answer
    // it gives the fragments the turn used: those it quotes and the other matching sections
    // it lists, or for a decline the same it weighed and found wanting (never shown).
    let answer_in = |question: &Question, scope: Option<&Scope>| {
        let assessment = within_caps(
            index,
            evidence::assess(index, model, None, question, config, scope),
        );
        let mut used: Vec<u32> = Vec::new();
        let ids = assessment.quotes.iter().map(|q| q.fragment);
        for f in ids.chain(assessment.related.iter().map(|s| s.fragment)) {
            if !used.contains(&f) && used.len() < MAX_CONTEXT_FRAGMENTS {
                used.push(f);
            }
        }
        (decide(assessment, config), used)
    };
    // "Why?" is looked up first where a site records why (its decisions), then on the pages
    // of the answer it follows up.
    let (mut answer, fragments) = match &turn.scope {
        Some(scope) => {
            let scope = part.map_or_else(|| scope.clone(), |p| scope.and(p));
            let (decisions, pages) = scope.split_decisions(index);
            let first = (!decisions.docs.is_empty()).then(|| answer_in(executed, Some(&decisions)));
            match first {
                Some(a) if a.0.mode == Mode::Answer || pages.docs.is_empty() => a,
                _ => answer_in(executed, Some(&pages)),
            }
        }
        None => answer_in(executed, part),
    };
    if matches!(turn.kind, FollowUp::Refinement | FollowUp::Pronoun)
        && let Some(confidence) = answer.confidence
    {
        let own = answer_in(&asked, part).0.confidence;
        answer.confidence = Some(confidence.weaker(own.unwrap_or(Confidence::Low)));
    }
    // The results of a question no page answers, read with corrected typos, are looked up
    // over the whole site.
    if let Some(part) = part {
        answer.results.retain(|r| part.contains(index, r.fragment));
    }
    Reply {
        context: TurnContext::new(index, &turn.question, fragments),
        explore: explore(index, &answer),
        answer,
        turn,
    }
}

/// Drops quotes beyond their collection's cap (the first quote always stays within it, since
/// a cap is at least 1).
fn within_caps(index: &Index, mut assessment: Assessment) -> Assessment {
    let mut taken: Vec<(u32, u32)> = Vec::new();
    assessment.quotes.retain(|q| {
        let Some(c) = index
            .fragment(q.fragment)
            .and_then(|f| index.doc_of(f))
            .and_then(|d| d.collection)
        else {
            return true;
        };
        let cap = index.collection(c).map_or(u32::MAX, |c| c.cap);
        match taken.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) if *n >= cap => false,
            Some((_, n)) => {
                *n += 1;
                true
            }
            None => {
                taken.push((c, 1));
                cap >= 1
            }
        }
    });
    assessment
}

/// Gathers the evidence for `question` without deciding (the eval fits the decline model on
/// these).
pub fn assess(
    index: &Index,
    model: Option<&QueryModel>,
    question: &str,
    config: &AnswerConfig,
) -> Assessment {
    assess_with(index, model, None, question, config)
}

/// [`assess`] with a reader model (see [`ask_with`]).
pub fn assess_with(
    index: &Index,
    model: Option<&QueryModel>,
    reader: Option<&dyn ScorePairs>,
    question: &str,
    config: &AnswerConfig,
) -> Assessment {
    evidence::assess(
        index,
        model,
        reader,
        &Question::read(question),
        config,
        None,
    )
}

/// Decides on the evidence: quote with a confidence label, or decline with the reason that
/// weighed most.
pub fn decide(assessment: Assessment, config: &AnswerConfig) -> Answer {
    let Assessment {
        terms,
        missing_terms,
        hints,
        quotes,
        related,
        features,
        hard_decline,
        has_vector,
        coverage,
        meaning,
        missing_on_page,
        incomplete,
        unwritten,
        about_page,
        value_in_words,
        names,
        results,
        corrections,
        ..
    } = assessment;
    let model = if has_vector {
        &config.hybrid
    } else {
        &config.lexical
    };
    // A topic question answered by a page about its subject is quoted even when the model,
    // fit on manuals where such questions do not occur, would decline it; labelled Low, as
    // no question set measures its precision.
    let passes = model.reaches(&features, model.threshold);
    let decline = match hard_decline {
        Some(decline) => Some(decline),
        // A name the quoted pages never write is not answered by its parts, however well they
        // match ("BLACK_CONFIG" by a sentence on Black's config).
        None if !unwritten.is_empty() => Some(Decline::Missing { terms: unwritten }),
        None if !(passes || about_page) || quotes.is_empty() => {
            let why = reason(
                model,
                &features,
                &terms,
                &missing_terms,
                &missing_on_page,
                coverage,
                meaning,
            );
            // A passage that gives the value in words ("defaults to /var/spool") does not give
            // "none": it falls short as a whole.
            Some(if why == Decline::NoAmount && value_in_words {
                Decline::BelowFloor { coverage, meaning }
            } else {
                why
            })
        }
        None => None,
    };
    let missing_named = named(&missing_terms, &terms, &names);
    if let Some(decline) = decline {
        let decline = match with_named_words(decline, &terms, &names) {
            // Nothing of the question covered, and words no page uses: those are the reason,
            // not a share of 0% ("Do you ship to Canada?").
            Some(Decline::Unsupported { coverage } | Decline::BelowFloor { coverage, .. })
                if coverage <= 0.0 && !missing_named.is_empty() =>
            {
                Decline::NeverMentioned {
                    terms: missing_named.clone(),
                }
            }
            Some(decline) => decline,
            None => Decline::BelowFloor { coverage, meaning },
        };
        // Pages that never use the question's subject have nothing to list either: the words
        // no page uses are half the question's words or more ("deploy to kubernetes"). Counted,
        // not weighed by rarity: a word no page uses is the rarest of all, so one casual word
        // ("after the wifi dropped …") would outweigh the rest of a long question that the
        // pages do answer. Unless the words were read as the site's (typos): then the results
        // are for those.
        let (unused, all) = terms
            .iter()
            .filter(|t| !t.framing && !t.contraction)
            .fold((0, 0), |(u, a), t| (u + usize::from(!t.in_corpus()), a + 1));
        let never = corrections.is_empty() && 2 * unused >= all;
        return Answer {
            decline: Some(decline),
            mode: if hints.is_empty() {
                Mode::NotFound
            } else {
                Mode::RelatedMaterial
            },
            completeness: None,
            confidence: None,
            quotes: Vec::new(),
            related: Vec::new(),
            hints,
            missing_terms: missing_named,
            results: if never { Vec::new() } else { results },
            corrections,
        };
    }
    let confidence = if !passes {
        Confidence::Low
    } else if model.reaches(&features, model.high) {
        Confidence::High
    } else if model.reaches(&features, model.medium) {
        Confidence::Medium
    } else {
        Confidence::Low
    };
    Answer {
        mode: Mode::Answer,
        completeness: Some(if incomplete.is_empty() {
            Completeness::Supported
        } else {
            Completeness::Partial {
                missing: incomplete,
            }
        }),
        confidence: Some(confidence),
        related,
        hints,
        decline: None,
        missing_terms: missing_named,
        // The answer's own quotes are not listed again.
        results: results
            .into_iter()
            .filter(|r| quotes.iter().all(|q| q.fragment != r.fragment))
            .collect(),
        quotes,
        corrections,
    }
}

/// The named reason for a decline: the feature that pushed hardest towards declining,
/// relative to a typical right answer.
fn reason(
    model: &DeclineModel,
    features: &Features,
    terms: &[QueryTerm],
    missing_terms: &[String],
    missing_on_page: &[String],
    coverage: f32,
    meaning: Option<f32>,
) -> Decline {
    let contributions = model.contributions(features);
    let worst = contributions
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i);
    // Feature positions, as in FEATURE_NAMES (compared by position: the names stay out of
    // the wasm; a test keeps both in step).
    const IN_QUOTE: usize = 2;
    const ASKS_QUANTITY: usize = 7;
    const QUANTITY_SHOWN: usize = 8;
    let no_amount = features.values[ASKS_QUANTITY] > 0.0 && features.values[QUANTITY_SHOWN] == 0.0;
    // Unused words that name the subject: a common word ("mind" in "change my mind") is no
    // reason of its own (`missing_on_page` holds no common words).
    let unknown_subject: Vec<String> = missing_terms
        .iter()
        .filter(|w| missing_on_page.contains(w))
        .cloned()
        .collect();
    match worst {
        // salient_missing, compound_missing
        5 | 6 if !missing_on_page.is_empty() => Decline::Missing {
            terms: missing_on_page.to_vec(),
        },
        // asks_quantity, quantity_shown: a number was asked for and none is quoted
        7 | 8 if no_amount => Decline::NoAmount,
        // in_quote, key_support, quantity_shown, bigram_share: the sentence falls short
        // or the reader model finds it does not answer
        2 | 3 | 8 | 9 | 10 => Decline::Unsupported {
            coverage: features.values[IN_QUOTE],
        },
        _ if terms.is_empty() => Decline::NoContentWords,
        _ if !unknown_subject.is_empty() && coverage < 0.5 => Decline::NeverMentioned {
            terms: unknown_subject,
        },
        _ => Decline::BelowFloor { coverage, meaning },
    }
}

/// The words a decline names, as the question wrote them ([`Assessment::names`]): a word of a
/// name ("Doe") as the whole name ("Jane Doe"), each once, and framing words ("think", "docs")
/// only when nothing else is missing, since they say how the question is put, not what it asks
/// about. Parts of contractions ("s", "doesn") are no words a visitor wrote: never named.
fn named(words: &[String], terms: &[QueryTerm], names: &[String]) -> Vec<String> {
    let term = |w: &String| terms.iter().find(|t| t.word == *w);
    // A lower-case letter alone is a piece of a compound ("e" of "e-bike"), not a word the
    // visitor asked about; "C" as written is.
    let piece =
        |w: &String| w.chars().count() == 1 && !names.iter().any(|n| n.to_lowercase() == *w);
    let words: Vec<&String> = words
        .iter()
        .filter(|w| !term(w).is_some_and(|t| t.contraction) && !piece(w))
        .collect();
    let framing = |w: &&String| term(w).is_some_and(|t| t.framing);
    let subject: Vec<&String> = words.iter().copied().filter(|w| !framing(w)).collect();
    let chosen = if subject.is_empty() { words } else { subject };
    let mut out: Vec<String> = Vec::new();
    for word in chosen {
        let name = names
            .iter()
            .find(|n| n.to_lowercase() == *word || tokens(n).any(|(_, t)| t == *word))
            .unwrap_or(word);
        // Once: "HTTP" is not named again beside "http/3".
        let holds = |named: &String| {
            named.to_lowercase() == *word || tokens(named).any(|(_, t)| t == *word)
        };
        if !out.contains(name) && !out.iter().any(holds) {
            out.push(name.clone());
        }
    }
    out
}

/// `decline` with its words as [`named`] names them.
/// `None` when it was a decline for words and names none (only parts of contractions were
/// missing): the caller then says the passage falls short as a whole.
fn with_named_words(decline: Decline, terms: &[QueryTerm], names: &[String]) -> Option<Decline> {
    let decline = match decline {
        Decline::Missing { terms: words } => Decline::Missing {
            terms: named(&words, terms, names),
        },
        Decline::NeverMentioned { terms: words } => Decline::NeverMentioned {
            terms: named(&words, terms, names),
        },
        other => return Some(other),
    };
    match &decline {
        Decline::Missing { terms } | Decline::NeverMentioned { terms } if terms.is_empty() => None,
        _ => Some(decline),
    }
}

/// The citation of `fragment`; its text-fragment link points at `quote` (none when empty).
fn citation(index: &Index, fragment: &Fragment, quote: &str) -> Citation {
    let doc = index.doc_of(fragment);
    let url = section_url(
        doc.map(|d| d.url.as_str()).unwrap_or_default(),
        &fragment.anchor,
    );
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
        collection: doc
            .and_then(|d| d.collection)
            .and_then(|c| index.collection(c))
            .cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A question that asks for a number, declined because the quote gives none, says so;
    /// the same evidence with a number quoted is not declined for that.
    #[test]
    fn a_number_asked_for_and_not_quoted_is_the_reason() {
        let model = AnswerConfig::DEFAULT.hybrid;
        let mut features = Features {
            values: model.reference,
        };
        features.values[7] = 1.0;
        features.values[8] = 0.0;
        let why = |f: &Features| reason(&model, f, &[], &[], &[], 0.9, Some(0.5));
        assert_eq!(why(&features), Decline::NoAmount);
        features.values[8] = 1.0;
        assert_ne!(why(&features), Decline::NoAmount);
    }

    /// A decline never names the pieces of a contraction ("s" of "SPOOL_DIR's"): with only
    /// those missing it names no word at all, and the caller says the passage falls short.
    #[test]
    fn parts_of_contractions_are_never_named() {
        let term = |word: &str, contraction: bool| QueryTerm {
            word: word.into(),
            term_ids: Vec::new(),
            hint_term_ids: Vec::new(),
            idf: 1.0,
            framing: false,
            how_much: false,
            contraction,
        };
        let terms = [term("spool", false), term("s", true), term("think", false)];
        let names = ["SPOOL_DIR".to_owned()];
        let missing = |words: &[&str]| Decline::Missing {
            terms: words.iter().map(|w| (*w).to_owned()).collect(),
        };
        assert_eq!(
            with_named_words(missing(&["spool", "s"]), &terms, &names),
            Some(missing(&["SPOOL_DIR"]))
        );
        assert_eq!(with_named_words(missing(&["s"]), &terms, &names), None);
        assert_eq!(
            with_named_words(Decline::NoAmount, &terms, &names),
            Some(Decline::NoAmount)
        );
    }

    /// Issue 41: "e" of "e-bike" is not a word the visitor asked about; "C" as written is.
    #[test]
    fn a_letter_alone_is_named_only_as_written() {
        let term = |word: &str| QueryTerm {
            word: word.into(),
            term_ids: Vec::new(),
            hint_term_ids: Vec::new(),
            idf: 1.0,
            framing: false,
            how_much: false,
            contraction: false,
        };
        let terms = [term("e"), term("kubernetes"), term("c")];
        let never = |words: &[&str]| Decline::NeverMentioned {
            terms: words.iter().map(|w| (*w).to_owned()).collect(),
        };
        assert_eq!(
            with_named_words(never(&["e", "kubernetes"]), &terms, &[]),
            Some(never(&["kubernetes"]))
        );
        assert_eq!(
            with_named_words(never(&["c"]), &terms, &["C".to_owned()]),
            Some(never(&["C"]))
        );
    }

    /// `reason` names features by position; this keeps the positions and the names in step.
    #[test]
    fn decline_reasons_refer_to_the_features_they_name() {
        let at = |i: usize| FEATURE_NAMES[i];
        assert_eq!(at(2), "in_quote");
        assert_eq!(at(3), "key_support");
        assert_eq!(at(5), "salient_missing");
        assert_eq!(at(6), "compound_missing");
        assert_eq!(at(7), "asks_quantity");
        assert_eq!(at(8), "quantity_shown");
        assert_eq!(at(9), "bigram_share");
        assert_eq!(at(10), "reader");
    }
}
