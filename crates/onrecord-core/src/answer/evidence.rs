//! The evidence for a question: what retrieval found, what each of the best fragments would
//! quote, and the features the decline model weighs. Nothing here decides.

use super::config::{AnswerConfig, Features};
use super::kind::{AskKind, ask_kind, gives_value_in_words, topic_subject};
use super::quote::{Pick, Preference, Wanted, only_version_notes, pick, union, weight};
use super::results::{self, Correction, SectionHit};
use super::{Decline, Quote, Section, citation};
use crate::bm25::{Hit, QueryTerm, best_first, insert_sorted, query_terms};
use crate::collection::asks_about_decisions;
use crate::format::{Fragment, Index, RoutingHint};
use crate::lang::{self, List};
use crate::page::asks_about_changes;
use crate::question::Question;
use crate::reader_model::ScorePairs;
use crate::retrieve::{SHIPPED, in_fragment, query_vector, rank};
use crate::scope::Scope;
use crate::text::{Analyzer, Lang, foreign_language, is_stopword, join, tokens};
use crate::vector::{QueryModel, similarity};

/// How many of the best-ranked fragments compete to give the first quote.
const ANSWER_CANDIDATES: usize = 3;
/// At most this many quotes, each from a different page.
const MAX_QUOTES: usize = 3;
/// A further quote must add at least this share of the question's idf weight.
const COMPOUND_GAIN: f32 = 0.2;
/// Other matching sections listed under an answer.
const MAX_RELATED: usize = 4;
/// A word of the question that no quoted page has makes an answer partial when it carries at
/// least this share of the question's weight.
const PARTIAL_SHARE: f32 = 0.25;

/// Everything [`super::decide`] needs, gathered for one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// The question's content words.
    pub terms: Vec<QueryTerm>,
    /// The kind of answer it asks for.
    pub kind: AskKind,
    /// Content words no page uses.
    pub missing_terms: Vec<String>,
    /// Private notes that bear on the question.
    pub hints: Vec<RoutingHint>,
    /// The quotes an answer would give (empty when nothing could be quoted).
    pub quotes: Vec<Quote>,
    /// Other matching sections.
    pub related: Vec<Section>,
    /// The evidence features.
    pub features: Features,
    /// A decline that needs no weighing (a question that cannot be asked; no content words; no
    /// word on any page).
    pub hard_decline: Option<Decline>,
    /// Whether the question was embedded (the hybrid decline model applies).
    pub has_vector: bool,
    /// Share of the question's weight in the quoted fragments.
    pub coverage: f32,
    /// Share of the question's weight in the quoted sentences, their headings and page title.
    pub support: f32,
    /// Cosine similarity of the best quoted fragment, with vectors.
    pub meaning: Option<f32>,
    /// The weightiest subject words (and written forms such as "HTTP/3") missing from the
    /// first quote's page.
    pub missing_on_page: Vec<String>,
    /// Words the answer would leave out: on none of the quoted pages.
    pub incomplete: Vec<String>,
    /// The question's written names ("BLACK_CONFIG", "HTTP/3") that the quoted pages never
    /// hold whole: the quotes are about their parts, not about them.
    pub unwritten: Vec<String>,
    /// The quotable fragments in the order the answerer weighed them, best first (set-aside
    /// pages left out): what the eval scores as the shipped retrieval.
    pub ranked: Vec<u32>,
    /// For a question about what the pages say on a subject ([`AskKind::Topic`]): the first
    /// quote's page is about it: it holds every word of the subject and names it.
    pub about_page: bool,
    /// The question asks for a number, and the quote gives none in digits but one in words
    /// or a stated default ("defaults to `/var/spool`"): a decline must not say it gives none.
    pub value_in_words: bool,
    /// The question's words as written where that is not lower case, runs of two or three
    /// capitalised words as one ("Jane Doe", "Wren"): a decline names them so, and names the
    /// whole name rather than the one word of it that is missing.
    pub names: Vec<String>,
    /// The sections to show as results, best first (the quoted ones among them).
    pub results: Vec<SectionHit>,
    /// The question's words read as other words of the site (typos).
    pub corrections: Vec<Correction>,
}

/// A fragment that competes to be quoted.
struct Candidate<'a> {
    frag: u32,
    fragment: &'a Fragment,
    pick: Pick,
    /// The reader model's probability that the quote answers, when one read it.
    read: Option<f32>,
}

/// The fragments retrieval found, sorted for quoting.
struct Found<'a> {
    /// Those that compete to give a quote, best-ranked first.
    candidates: Vec<Candidate<'a>>,
    /// Well-ranked fragments set aside (release notes, decision records, version notes):
    /// listed among related sections, never quoted for this question.
    set_aside: Vec<Candidate<'a>>,
    /// The quotable fragments in rank order (see [`Assessment::ranked`]).
    ranked: Vec<u32>,
}

/// One question as the steps of [`assess`] weigh it: its terms and what each is.
struct Reading<'a> {
    index: &'a Index,
    question: &'a Question<'a>,
    config: &'a AnswerConfig,
    scope: Option<&'a Scope>,
    kind: AskKind,
    terms: Vec<QueryTerm>,
    /// Per term: a common English word ("put", "often"), told by the query model.
    common: Vec<bool>,
    /// Per term: whether it is one of the subject words the key shares weigh.
    key: Vec<bool>,
    /// The question's written names ("BASH_ENV", "HTTP/3"), lowercased (`compounds`).
    written: Vec<String>,
    vector: Option<Vec<f32>>,
    /// It asks about versions or changes: release notes and version notes may be quoted.
    changes: bool,
    /// It asks why, or about a decision: decision records may be quoted.
    why: bool,
}

pub(super) fn assess(
    index: &Index,
    model: Option<&QueryModel>,
    reader: Option<&dyn ScorePairs>,
    asked: &Question,
    config: &AnswerConfig,
    scope: Option<&Scope>,
) -> Assessment {
    // A question that cannot be asked is read as no question, and declined below.
    let blank = Question::new("");
    let bad_question = asked.problem();
    let question = if bad_question.is_some() {
        &blank
    } else {
        asked
    };
    // The quantity word of "how long" or "combien de temps" names nothing the answer must
    // hold: one no page uses is left out, rather than declined as never mentioned. (One the
    // pages use stays: leaving "long" out everywhere lowered balanced accuracy without vectors,
    // 0.632 → 0.621 over the five corpora, as it helps tell near-misses apart.)
    let terms: Vec<QueryTerm> = query_terms(index, question)
        .into_iter()
        .filter(|t| !t.how_much || t.in_corpus())
        .collect();
    // A word no page uses but one close to it does ("compresion") is read as that word for the
    // results shown, when the query model can tell a typo from a word the pages do not use.
    // The answer itself is decided on the question as typed: deciding on the corrected words
    // lost a right answer in the left-out folds and gained nothing measured (eval --cross).
    let mut corrected = terms.clone();
    let corrections = match model.filter(|m| crate::retrieve::model_fits(index, m)) {
        Some(m) => results::correct(index, Some(m), &mut corrected),
        None => Vec::new(),
    };
    let mut res = Assessment {
        hints: bearing_hints(index, &terms, config.hint_floor),
        terms: Vec::new(),
        kind: ask_kind(question),
        missing_terms: terms
            .iter()
            .filter(|t| !t.in_corpus())
            .map(|t| t.word.clone())
            .collect(),
        quotes: Vec::new(),
        related: Vec::new(),
        features: Features::default(),
        hard_decline: None,
        has_vector: false,
        coverage: 0.0,
        support: 0.0,
        meaning: None,
        missing_on_page: Vec::new(),
        incomplete: Vec::new(),
        unwritten: Vec::new(),
        ranked: Vec::new(),
        about_page: false,
        value_in_words: false,
        names: names(question),
        results: Vec::new(),
        corrections,
    };
    if let Some(why) = bad_question {
        res.hard_decline = Some(Decline::BadQuestion(why));
        return res;
    }
    if hard_decline(index, question, &terms, &corrected, config, &mut res) {
        return res;
    }
    let reading = Reading::new(index, model, question, config, scope, res.kind, terms);
    res.has_vector = reading.vector.is_some();
    let hits = reading.rank(&reading.terms);
    let mut found = reading.gather(&hits);
    res.ranked = std::mem::take(&mut found.ranked);
    let Some(primary) = reading.primary(&found.candidates) else {
        res.hard_decline = Some(Decline::BelowFloor {
            coverage: 0.0,
            meaning: None,
        });
        res.terms = reading.terms;
        return res;
    };
    let chosen = if asks_several(question) {
        compound(&found.candidates, primary, &reading.terms, &|c| {
            reading.share(c)
        })
    } else {
        vec![primary]
    };
    // The reader model's score of the first quote as chosen, a decline feature.
    if let Some((r, c)) = reader.zip(chosen.first().and_then(|&i| found.candidates.get_mut(i))) {
        let passage = c
            .fragment
            .text
            .get(c.pick.start as usize..c.pick.end as usize)
            .unwrap_or("");
        c.read = r.answers(question.text(), &[passage]).first().copied();
    }
    let picked: Vec<&Candidate> = chosen
        .iter()
        .filter_map(|&i| found.candidates.get(i))
        .collect();
    reading.weigh(&picked, &mut res);
    res.quotes = picked
        .iter()
        .map(|c| quote(index, c.frag, c.fragment, &c.pick, &reading.terms))
        .collect();
    res.related = related(index, &found, &picked, &res.quotes);
    // The would-be quotes stay listed: on a decline they are what was found (an answer drops them).
    let (terms, hits) = if res.corrections.is_empty() {
        (&reading.terms, hits)
    } else {
        (&corrected, reading.rank(&corrected))
    };
    let ranked: Vec<u32> = hits.iter().map(|h| h.fragment).collect();
    let ranked = quotable_first(index, &ranked, reading.changes, reading.why);
    res.results = results::sections(index, &ranked, terms, &[], None);
    res.terms = reading.terms;
    res
}

/// The declines that need no weighing: a question in another language than the pages', one
/// with no content words, one whose every word no page uses (then the results are those of
/// its corrected words, if any). Whether one applied; it is set on `res`.
fn hard_decline(
    index: &Index,
    question: &Question,
    terms: &[QueryTerm],
    corrected: &[QueryTerm],
    config: &AnswerConfig,
    res: &mut Assessment,
) -> bool {
    // Words of another language that happen to match these pages' words ("starte" is
    // "start") would be quoted for the wrong reasons; the visitor can ask in the pages' own.
    if let Some(lang) = foreign_language(question.words(), &index.langs()) {
        res.hard_decline = Some(Decline::OtherLanguage { lang });
        // Its small words are not words the pages lack.
        res.missing_terms.clear();
        return true;
    }
    if terms.is_empty() {
        res.hard_decline = Some(Decline::NoContentWords);
        return true;
    }
    if res.missing_terms.len() == terms.len() {
        res.hard_decline = Some(Decline::NeverMentioned {
            terms: res.missing_terms.clone(),
        });
        if !res.corrections.is_empty() {
            let ranked: Vec<u32> = crate::bm25::search(index, corrected, config.top_k * 2)
                .iter()
                .map(|h| h.fragment)
                .collect();
            let why = asks_why(question, res.kind);
            let ranked = quotable_first(index, &ranked, asks_about_changes(question), why);
            res.results = results::sections(index, &ranked, corrected, &[], None);
        }
        res.terms = terms.to_vec();
        return true;
    }
    false
}

impl<'a> Reading<'a> {
    fn new(
        index: &'a Index,
        model: Option<&QueryModel>,
        question: &'a Question<'a>,
        config: &'a AnswerConfig,
        scope: Option<&'a Scope>,
        kind: AskKind,
        terms: Vec<QueryTerm>,
    ) -> Reading<'a> {
        // Embedded once: for ranking and for the meaning feature.
        let vector = query_vector(index, model, question);
        // With the query model, common English words ("put", "often", "mind") are told from
        // the words that name the subject; the key shares weigh only the latter.
        let common: Vec<bool> = terms
            .iter()
            .map(|t| {
                model
                    .filter(|_| vector.is_some())
                    .is_some_and(|m| m.is_common_word(&t.word))
            })
            .collect();
        // The share of the question's subject words (all words when every one is common).
        let key: Vec<bool> = if common.iter().all(|&c| c) {
            vec![true; terms.len()]
        } else {
            common.iter().map(|&c| !c).collect()
        };
        Reading {
            index,
            question,
            config,
            scope,
            kind,
            terms,
            common,
            key,
            written: compounds(question.text()),
            vector,
            changes: asks_about_changes(question),
            why: asks_why(question, kind),
        }
    }

    /// Twice the fragments asked for, so that set-aside pages cannot crowd the quotable ones
    /// out.
    fn rank(&self, terms: &[QueryTerm]) -> Vec<Hit> {
        rank(
            self.index,
            self.vector.as_deref(),
            terms,
            self.config.top_k.saturating_mul(2),
            SHIPPED,
            &self.config.fusion,
            self.scope,
        )
    }

    /// Share of the question's weight in `covered`.
    fn share(&self, covered: &[bool]) -> f32 {
        share_of(&self.terms, covered)
    }

    /// Share of the question's subject words' weight in `covered`.
    fn key_share(&self, covered: &[bool]) -> f32 {
        share_among(&self.terms, covered, &self.key)
    }

    /// What to quote from each ranked fragment, for those that may compete.
    fn gather(&self, hits: &[Hit]) -> Found<'a> {
        let (index, config, kind) = (self.index, self.config, self.kind);
        let prefer = Preference {
            kind,
            shape_weight: config.shape_weight,
            changes: self.changes,
        };
        // The question's written names ("BASH_ENV"), which the headings of the entry for what
        // is asked must hold whole: the title "Bash …" and the heading "ENV" are not that
        // entry.
        let written = &self.written;
        let terms = &self.terms;
        let mut found = Found {
            candidates: Vec::new(),
            set_aside: Vec::new(),
            ranked: Vec::new(),
        };
        for (position, hit) in hits.iter().enumerate() {
            let Some(fragment) = index.fragment(hit.fragment) else {
                continue;
            };
            if set_aside(index, fragment, self.changes, self.why) {
                if position < config.top_k {
                    found.set_aside.push(Candidate {
                        frag: hit.fragment,
                        fragment,
                        pick: pick(index, fragment, terms, prefer, false, false),
                        read: None,
                    });
                }
                continue;
            }
            found.ranked.push(hit.fragment);
            let candidates = &found.candidates;
            // Past the first few, only the entry for what is asked competes, while none does: a
            // name's own short entry can rank below the passages that use it ("What is IFS?").
            let first_few = candidates.len() < config.top_k;
            // A definition question's defining sentence competes from further down too, while
            // none of those found says what the thing is: the passages that use a name often
            // outrank the one sentence that defines it.
            let defining = kind == AskKind::Definition && !candidates.iter().any(|c| c.pick.shaped);
            if !first_few && !defining && candidates.iter().any(|c| c.pick.entry) {
                continue;
            }
            let opening = opens_section(index, hit.fragment, fragment);
            let headings = fragment.heading_path.join("\n").to_lowercase();
            let names_whole = written.iter().all(|w| holds_whole(&headings, w));
            if !(first_few || defining || opening && names_whole) {
                continue;
            }
            let pick = pick(index, fragment, terms, prefer, opening, names_whole);
            if first_few || pick.entry || defining && pick.shaped {
                found.candidates.push(Candidate {
                    frag: hit.fragment,
                    fragment,
                    pick,
                    read: None,
                });
            }
        }
        found
    }

    /// The candidate to quote first. Among the first few fragments, the one whose quote carries
    /// most of the question; on a tie, the one whose sentence has the shape asked for (the
    /// sentence that says what a thing is, not one that uses its name, even under a heading
    /// that names it), then the entry for what is asked, then the better-ranked one. The entry
    /// for what is asked competes from further down as well.
    fn primary(&self, candidates: &[Candidate]) -> Option<usize> {
        let kind = self.kind;
        let key = |c: &Candidate| (self.share(&c.pick.local), c.pick.shaped, c.pick.entry);
        let mut primary: Option<usize> = None;
        for (i, c) in candidates.iter().enumerate().filter(|(i, c)| {
            *i < ANSWER_CANDIDATES || c.pick.entry || kind == AskKind::Definition && c.pick.shaped
        }) {
            if primary
                .and_then(|p| candidates.get(p))
                .is_none_or(|b| key(c) > key(b))
            {
                primary = Some(i);
            }
        }
        primary
    }

    /// The evidence the `picked` quotes give: the features the decline model weighs, and what
    /// a decline or a partial answer would name.
    fn weigh(&self, picked: &[&Candidate], res: &mut Assessment) {
        let (index, question, terms, kind) = (self.index, self.question, &self.terms, self.kind);
        let none = vec![false; terms.len()];
        let fold = |f: &dyn Fn(&Candidate) -> Vec<bool>| -> Vec<bool> {
            picked
                .iter()
                .fold(none.clone(), |acc, c| union(&acc, &f(c)))
        };
        let local = fold(&|c| c.pick.local.clone());
        let in_fragments = fold(&|c| fragment_terms(index, terms, c.frag));
        let coverage = self.share(&in_fragments);
        let pages: Vec<(u32, u32)> = picked
            .iter()
            .map(|c| page_range(index, c.frag, c.fragment))
            .collect();
        let on_pages: Vec<bool> = terms
            .iter()
            .map(|t| pages.iter().any(|&(s, e)| in_range(index, t, s, e)))
            .collect();
        let meaning = self.vector.as_deref().and_then(|q| {
            picked
                .iter()
                .filter_map(|c| similarity(index, c.frag, q))
                .reduce(f32::max)
        });
        let first_page = pages.first().copied().unwrap_or((0, 0));
        // The question's weight without framing words: what "share" means for a single word.
        let total: f32 = terms.iter().filter(|t| !t.framing).map(|t| t.idf).sum();
        let weight_of = |t: &QueryTerm| if total > 0.0 { t.idf / total } else { 0.0 };
        let mut absent_first: Vec<&QueryTerm> = terms
            .iter()
            .zip(&self.common)
            .filter(|(t, c)| !t.framing && !**c && !in_range(index, t, first_page.0, first_page.1))
            .map(|(t, _)| t)
            .collect();
        // Heaviest first (an insertion sort: a handful of words, and no sort code in the wasm).
        for i in 1..absent_first.len() {
            let mut j = i;
            while j > 0 && absent_first[j - 1].idf < absent_first[j].idf {
                absent_first.swap(j - 1, j);
                j -= 1;
            }
        }
        let page_texts: Vec<String> = pages.iter().map(|&(s, e)| page_text(index, s, e)).collect();
        let compounds_missing: Vec<String> = self
            .written
            .iter()
            .filter(|c| !page_texts.iter().any(|t| holds_whole(t, c)))
            .cloned()
            .collect();
        let asks_quantity = kind == AskKind::Quantity;
        // The quoted text as a reader sees it: the sentences, their headings and page title.
        let quoted: Vec<&str> = picked
            .iter()
            .filter_map(|c| {
                c.fragment
                    .text
                    .get(c.pick.start as usize..c.pick.end as usize)
            })
            .collect();
        let quantity_shown = asks_quantity
            && quoted
                .iter()
                .any(|q| q.chars().any(|ch| ch.is_ascii_digit()));
        res.value_in_words = asks_quantity
            && !quantity_shown
            && quoted.iter().any(|q| gives_value_in_words(question, q));
        let (context, lang) = picked
            .first()
            .map_or((String::new(), index.default_lang), |c| {
                let doc = index.doc_of(c.fragment);
                (
                    format!(
                        "{}. {}",
                        doc.map_or("", |d| d.title.as_str()),
                        c.fragment.heading_path.join(". ")
                    ),
                    doc.map_or(index.default_lang, |d| d.lang),
                )
            });
        let analyzer = Analyzer::new(lang, index.settings.stemming);
        let subject = (kind == AskKind::Topic)
            .then(|| topic_subject(question))
            .flatten();
        res.about_page = picked.first().zip(subject).is_some_and(|(c, subject)| {
            about_subject(index, c.fragment, terms, &subject, first_page, lang)
        });
        let question_pairs = pairs(question.words(), &analyzer, lang);
        let quote_text = format!("{context}. {}", join(&quoted, " "));
        let quote_words: Vec<String> = tokens(&quote_text).map(|(_, w)| w).collect();
        let quote_pairs = pairs(&quote_words, &analyzer, lang);
        // A question of one word has no pairs: it is found as written where the quote is the
        // entry for it, its heading naming it whole ("What is HISTCONTROL?" under
        // "HISTCONTROL"); the word alone elsewhere counts for nothing (counting it let passing
        // mentions through).
        let bigram_share = if question_pairs.is_empty() {
            f32::from(u8::from(picked.first().is_some_and(|c| c.pick.entry)))
        } else {
            question_pairs
                .iter()
                .filter(|p| quote_pairs.contains(p))
                .count() as f32
                / question_pairs.len() as f32
        };
        // In the order of FEATURE_NAMES.
        res.features = Features {
            values: [
                coverage,
                self.key_share(&in_fragments),
                self.share(&fold(&|c| c.pick.in_quote.clone())),
                self.key_share(&local),
                meaning.unwrap_or(0.0),
                absent_first.first().map_or(0.0, |t| weight_of(t)),
                f32::from(u8::from(!compounds_missing.is_empty())),
                f32::from(u8::from(asks_quantity)),
                f32::from(u8::from(quantity_shown)),
                bigram_share,
                // The reader model's probability that the first quote answers (0 without one).
                picked.first().and_then(|c| c.read).unwrap_or(0.0),
            ],
        };
        res.coverage = coverage;
        res.support = self.share(&local);
        res.meaning = meaning;
        res.missing_on_page = compounds_missing
            .iter()
            .cloned()
            .chain(absent_first.iter().take(3).map(|t| t.word.clone()))
            .collect();
        res.incomplete = compounds_missing
            .iter()
            .cloned()
            .chain(
                terms
                    .iter()
                    .zip(&on_pages)
                    .zip(&self.common)
                    .filter(|((t, on), c)| {
                        !t.framing
                            && !t.contraction
                            && !**on
                            && !**c
                            && (!t.in_corpus() || weight_of(t) >= PARTIAL_SHARE)
                    })
                    .map(|((t, _), _)| t.word.clone()),
            )
            .collect();
        res.unwritten = compounds_missing;
    }
}

/// Other matching sections besides the quoted ones (the candidates, then those set aside),
/// one per page URL, at most [`MAX_RELATED`].
fn related(index: &Index, found: &Found, picked: &[&Candidate], quotes: &[Quote]) -> Vec<Section> {
    let mut related: Vec<Section> = Vec::new();
    for c in found.candidates.iter().chain(&found.set_aside) {
        if picked.iter().any(|p| p.frag == c.frag) {
            continue;
        }
        let citation = citation(index, c.fragment, "");
        let seen = related.iter().any(|s| s.citation.url == citation.url)
            || quotes.iter().any(|q| q.citation.url == citation.url);
        if !seen {
            related.push(Section {
                fragment: c.frag,
                citation,
            });
        }
    }
    related.truncate(MAX_RELATED);
    related
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

/// Adjacent content-word pairs of a text's `words` (lowercased tokens), stemmed ("default
/// line", "line length"): a phrase of the question found as written is stronger evidence than
/// its words scattered.
fn pairs(words: &[String], analyzer: &Analyzer, lang: Lang) -> Vec<(String, String)> {
    let words: Vec<String> = words
        .iter()
        .filter(|w| !is_stopword(w, lang))
        .map(|w| analyzer.term(w).into_owned())
        .collect();
    words
        .windows(2)
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect()
}

/// Whether the page `start..end` (holding `fragment`) is about `subject`, the words after
/// "about" in a topic question: it holds every one of the subject's content words (and every
/// other word of the question is used somewhere), and its title, curated themes, the
/// fragment's headings or the page's opening sentence name at least half of them by weight.
/// What a page is about is what it names itself by, not what it mentions in passing (a song
/// about staying put, an essay whose theme is attention).
fn about_subject(
    index: &Index,
    fragment: &Fragment,
    terms: &[QueryTerm],
    subject: &[String],
    (start, end): (u32, u32),
    lang: Lang,
) -> bool {
    // Who is asked about must be known too ("Person A", unless named as the site's author).
    let known = terms.iter().all(|t| t.framing || t.in_corpus());
    let subject: Vec<QueryTerm> = terms
        .iter()
        .filter(|t| !t.framing && subject.contains(&t.word))
        .cloned()
        .collect();
    if !known || subject.is_empty() || !subject.iter().all(|t| in_range(index, t, start, end)) {
        return false;
    }
    let doc = index.doc_of(fragment);
    let opening = index.fragment(start).and_then(|f| f.sentence(0));
    let wanted = Wanted::new(index, lang, &subject);
    let named = doc
        .map(|d| d.title.as_str())
        .into_iter()
        .chain(
            doc.into_iter()
                .flat_map(|d| d.themes.iter().map(String::as_str)),
        )
        .chain(fragment.heading_path.iter().map(String::as_str))
        .chain(opening)
        .fold(vec![false; subject.len()], |named, text| {
            union(&named, &wanted.covered(text))
        });
    let all = vec![true; subject.len()];
    weight(&subject, &named) >= 0.5 * weight(&subject, &all)
}

/// Whether the question joins several asks ("price, fee and weight"; "A oder B"): only then
/// may the answer combine pages. Without this, a near-miss borrows its missing word from an
/// unrelated page ("VAT number" from "company number" plus "prices include VAT").
fn asks_several(question: &Question) -> bool {
    question.text().contains([',', ';'])
        || question
            .words()
            .iter()
            .any(|w| lang::in_any(List::Joiners, w))
}

/// Whether `frag` is the first fragment of its section (its opening sentences introduce it).
fn opens_section(index: &Index, frag: u32, fragment: &Fragment) -> bool {
    let prev = frag.checked_sub(1).and_then(|p| index.fragment(p));
    prev.is_none_or(|p| p.doc != fragment.doc || p.anchor != fragment.anchor)
}

/// The fragment range `start..end` of the page `frag` belongs to (fragments are stored page
/// by page, in page order).
fn page_range(index: &Index, frag: u32, fragment: &Fragment) -> (u32, u32) {
    let start = frag.saturating_sub(fragment.position);
    let n = index.doc_of(fragment).map_or(1, |d| d.n_fragments);
    (start, start.saturating_add(n))
}

/// Whether any of the term's stems is indexed for a fragment in `start..end`.
fn in_range(index: &Index, term: &QueryTerm, start: u32, end: u32) -> bool {
    term.term_ids.iter().any(|&id| {
        let postings = index.postings(id);
        let at = postings.partition_point(|&(f, _)| f < start);
        postings.get(at).is_some_and(|&(f, _)| f < end)
    })
}

/// A page's title, headings and text, lowercased: where written forms ("HTTP/3") are looked up.
fn page_text(index: &Index, start: u32, end: u32) -> String {
    let mut text = String::new();
    if let Some(doc) = index.fragment(start).and_then(|f| index.doc_of(f)) {
        text.push_str(&doc.title.to_lowercase());
    }
    for f in (start..end.min(index.fragment_count())).filter_map(|i| index.fragment(i)) {
        for part in f.heading_path.iter().chain([&f.text]) {
            text.push('\n');
            text.push_str(&part.to_lowercase());
        }
    }
    text
}

/// Whether `text` holds `written` as a whole, not as the start or end of a longer name:
/// "smtp_accept_max" is not in "smtp_accept_max_per_connection", nor "v2" in "v20"; "2.2" is
/// in "2.2.1" and "--keep" in "--keep-daily", as a dot or hyphen may end a name in prose.
fn holds_whole(text: &str, written: &str) -> bool {
    let continues = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(written).any(|(at, _)| {
        let before = text.get(..at).and_then(|t| t.chars().next_back());
        let after = text
            .get(at + written.len()..)
            .and_then(|t| t.chars().next());
        let edge = |c: Option<char>, inner: Option<char>| !(continues(c) && continues(inner));
        edge(before, written.chars().next()) && edge(after, written.chars().next_back())
    })
}

/// Written forms in the question that tokenizing would split and a page must contain as
/// written to be about them: words with digits or inner `/ . _ + # :` ("HTTP/3", "x86_64",
/// "Cargo.toml", "C++", "1.2.3") and options ("--line-length"), lowercased.
fn compounds(question: &str) -> Vec<String> {
    let mut res: Vec<String> = Vec::new();
    for written in written_compounds(question) {
        let lower = written.to_lowercase();
        if !res.contains(&lower) {
            res.push(lower);
        }
    }
    res
}

/// The written forms [`compounds`] finds, as the question writes them ("UPLOAD_TIMEOUT"), a
/// possessive left off ("SPOOL_DIR's" is "SPOOL_DIR").
fn written_compounds<'a>(question: &'a str) -> Vec<&'a str> {
    let mut res: Vec<&str> = Vec::new();
    // Quotes, brackets and the question's punctuation around a word are not part of it.
    let bare = |w: &'a str| -> &'a str {
        w.trim_matches(|c: char| {
            matches!(
                c,
                '?' | '!'
                    | ','
                    | ';'
                    | '('
                    | ')'
                    | '"'
                    | '\''
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '`'
                    | '['
                    | ']'
            )
        })
        .trim_end_matches(['.', ':'])
    };
    for raw in question.split_whitespace() {
        // A possessive is read as the bare word: "#[global_allocator]'s" as
        // "#[global_allocator]".
        let word = bare(raw);
        let word = ["'s", "\u{2019}s"]
            .iter()
            .find_map(|p| word.strip_suffix(p))
            .map_or(word, bare);
        let inner = word
            .trim_start_matches('-')
            .chars()
            .any(|c| matches!(c, '/' | '.' | '_' | '+' | '#' | ':'));
        let has_alnum = word.chars().any(char::is_alphanumeric);
        let mixed =
            word.chars().any(|c| c.is_ascii_digit()) && word.chars().any(char::is_alphabetic);
        if has_alnum && (inner || mixed || word.starts_with("--")) {
            res.push(word);
        }
    }
    res
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
        .doc_of(fragment)
        .map_or(index.default_lang, |d| d.lang);
    let highlights = Wanted::new(index, lang, terms).highlights(&text);
    let header = pick
        .header
        .and_then(|(s, e)| fragment.text.get(s as usize..e as usize));
    Quote {
        fragment: frag,
        start: pick.start,
        end: pick.end,
        citation: citation(index, fragment, &text),
        header: header.map(str::to_owned),
        text,
        highlights,
    }
}

/// Share (0..1) of the question's idf weight that `covered` carries. A framing verb ("think",
/// "written") counts only when it is covered: it may help, it is never required.
/// Whether `fragment` is set aside for a question: release notes and listings match almost any
/// question and answer almost none, so they are quoted only for questions about versions or
/// changes (`changes`; they stay among related sections), as are the version notes inside a page
/// (`quote::pick`) and a fragment that holds nothing else; decision records only for a question
/// that asks why (`why`).
fn set_aside(index: &Index, fragment: &Fragment, changes: bool, why: bool) -> bool {
    let doc = index.doc_of(fragment);
    let noise = doc.is_some_and(|d| d.kind.is_noise());
    let decision = doc.is_some_and(|d| index.in_decisions(d));
    (noise && !changes) || (decision && !why) || (!changes && only_version_notes(fragment))
}

/// Ranked fragments as results list them: those the answerer may quote first, then those it
/// sets aside for the question ([`set_aside`]), each in rank order.
fn quotable_first(index: &Index, ranked: &[u32], changes: bool, why: bool) -> Vec<u32> {
    let (mut first, mut then) = (Vec::new(), Vec::new());
    for &f in ranked {
        match index.fragment(f) {
            Some(fragment) if set_aside(index, fragment, changes, why) => then.push(f),
            _ => first.push(f),
        }
    }
    first.extend_from_slice(&then);
    first
}

/// Whether a question asks why, or about decisions: then decision records may be quoted.
fn asks_why(question: &Question, kind: AskKind) -> bool {
    kind == AskKind::Reason || asks_about_decisions(question)
}

fn share_of(terms: &[QueryTerm], covered: &[bool]) -> f32 {
    share_among(terms, covered, &[])
}

/// [`share_of`] over the terms `key` marks (every term when `key` is empty).
fn share_among(terms: &[QueryTerm], covered: &[bool], key: &[bool]) -> f32 {
    let (mut got, mut total) = (0.0f32, 0.0f32);
    for (i, (t, &c)) in terms.iter().zip(covered).enumerate() {
        if !key.get(i).copied().unwrap_or(true) {
            continue;
        }
        if !t.framing || c {
            total += t.idf;
        }
        if c {
            got += t.idf;
        }
    }
    if total > 0.0 { got / total } else { 0.0 }
}

/// Hints whose public-safe words (label, locator, keywords) cover at least `floor` of the
/// question's idf weight, best first.
fn bearing_hints(index: &Index, terms: &[QueryTerm], floor: f32) -> Vec<RoutingHint> {
    let hints = index.hints();
    if hints.is_empty() {
        return Vec::new();
    }
    let mut covered = vec![vec![false; terms.len()]; hints.len()];
    for (i, term) in terms.iter().enumerate() {
        let mut hit: Vec<u32> = Vec::new();
        for &id in &term.hint_term_ids {
            for &(h, _) in index.hint_postings(id) {
                insert_sorted(&mut hit, h);
            }
        }
        for h in hit {
            if let Some(c) = covered.get_mut(h as usize).and_then(|c| c.get_mut(i)) {
                *c = true;
            }
        }
    }
    // Ranked as hits are (the hint's number in place of a fragment's): one sort routine.
    let mut bearing: Vec<Hit> = covered
        .iter()
        .enumerate()
        .map(|(i, c)| Hit {
            fragment: i as u32,
            score: share_of(terms, c),
        })
        .filter(|h| h.score >= floor)
        .collect();
    best_first(&mut bearing);
    bearing
        .into_iter()
        .filter_map(|h| hints.get(h.fragment as usize).cloned())
        .collect()
}

/// The question's names, as written, its first word aside (capitalised as the question
/// opens): runs of two or three capitalised words ("What does Jane Doe think?" gives "Jane
/// Doe"), and any other word written otherwise than in lower case ("Wren", "HTTP"). A word in
/// capitals is not part of a run, save one letter ("Person A"), and a longer run is a question
/// in title case, whose words count one by one. Written forms ([`written_compounds`],
/// "UPLOAD_TIMEOUT") come first, so a word of one is named as the whole form.
fn names(asked: &Question) -> Vec<String> {
    type Run = Vec<std::ops::Range<usize>>;
    fn close(question: &str, run: &mut Run, names: &mut Vec<String>) {
        if let (2..=3, Some(first), Some(last)) = (run.len(), run.first(), run.last()) {
            names.extend(question.get(first.start..last.end).map(str::to_owned));
        } else {
            names.extend(
                run.iter()
                    .filter_map(|r| question.get(r.clone()).map(str::to_owned)),
            );
        }
        run.clear();
    }
    // Written forms first: "TIMEOUT" of "UPLOAD_TIMEOUT" is named as the whole form.
    let question = asked.text();
    let mut names: Vec<String> = written_compounds(question)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut run: Run = Vec::new();
    for (i, (range, lower)) in asked.ranges().iter().zip(asked.words()).enumerate() {
        let word = question.get(range.clone()).unwrap_or("");
        if i == 0 || word == lower {
            close(question, &mut run, &mut names);
            continue;
        }
        // Told from the lowercased token, not by char::is_uppercase, whose Unicode tables
        // would add kilobytes to the wasm module.
        let mut pairs = word.chars().zip(lower.chars());
        let capital = pairs.next().is_some_and(|(w, l)| w != l)
            && (word.chars().count() == 1 || pairs.any(|(w, l)| w == l && !w.is_ascii_digit()));
        // Only a space joins two words of one name ("Doe, Jane" is two).
        let joined = run.last().is_some_and(|last| {
            question
                .get(last.end..range.start)
                .is_some_and(|gap| !gap.is_empty() && gap.chars().all(|c| c == ' '))
        });
        if !(capital && joined) {
            close(question, &mut run, &mut names);
        }
        if capital {
            run.push(range.clone());
        } else {
            names.push(word.to_owned());
        }
    }
    close(question, &mut run, &mut names);
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compounds_are_written_forms_tokenizing_would_split() {
        assert_eq!(
            compounds("Does Express support HTTP/3, or x86_64 and C++? See Cargo.toml."),
            ["http/3", "x86_64", "c++", "cargo.toml"]
        );
        assert_eq!(
            compounds("Use --line-length 1.2.3 (v2)"),
            ["--line-length", "1.2.3", "v2"]
        );
        assert!(compounds("Can I send back my e-bike if I change my mind?").is_empty());
        assert!(compounds("What is 42?").is_empty());
        // A possessive is no part of the name; the written form keeps its case for naming.
        assert_eq!(compounds("What is SPOOL_DIR's default?"), ["spool_dir"]);
        assert_eq!(
            compounds("What is #[global_allocator]'s job?"),
            compounds("What is #[global_allocator]?")
        );
        assert_eq!(
            written_compounds("Is UPLOAD_TIMEOUT\u{2019}s unit seconds?"),
            ["UPLOAD_TIMEOUT"]
        );
        assert_eq!(
            names(&Question::new("What is the default UPLOAD_TIMEOUT?"))[0],
            "UPLOAD_TIMEOUT"
        );
    }

    #[test]
    fn a_written_form_is_held_only_as_a_whole_name() {
        let text =
            "smtp_accept_max_per_connection | default: 1000; see v20 and 2.2.1, --keep-daily";
        assert!(!holds_whole(text, "smtp_accept_max"));
        assert!(!holds_whole(text, "v2"));
        assert!(!holds_whole(text, "accept_max"));
        assert!(holds_whole(text, "smtp_accept_max_per_connection"));
        assert!(holds_whole(text, "2.2"));
        assert!(holds_whole(text, "--keep"));
        assert!(holds_whole(
            "the limit is smtp_accept_max.",
            "smtp_accept_max"
        ));
        // A form that ends with a sign is bounded by it.
        assert!(holds_whole("use c++17", "c++"));
        assert!(!holds_whole("objc++", "c++"));
    }
}
