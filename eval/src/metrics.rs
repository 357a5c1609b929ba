//! Retrieval and answering metrics, as ../shared/EVAL.md defines them.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Instant;

use onrecord_core::{
    AnswerConfig, Confidence, Index, Mode, QueryModel, ask_kind, is_stopword, tokens,
};
use serde::Serialize;

use crate::engine::ask;
use crate::questions::{Kind, Question, normalize};
// One question's outcome is defined beside what the visitor sees of it (visitor.rs).
use crate::visitor;
pub use crate::visitor::Outcome;

/// How many ranked fragments retrieval metrics look at (MRR is cut here too).
pub const DEPTH: usize = 10;

/// Retrieval over answerable questions for one method.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Retrieval {
    pub n: usize,
    #[serde(rename = "recall@1")]
    pub recall_1: f64,
    #[serde(rename = "recall@3")]
    pub recall_3: f64,
    #[serde(rename = "recall@5")]
    pub recall_5: f64,
    pub mrr: f64,
    /// Multi-doc questions whose every evidence page is in the top 5.
    pub multi_doc_all_pages_at_5: Option<f64>,
    /// Mean characters of fragment text handed over at k = 3 and k = 5.
    pub context_chars_at_3: f64,
    pub context_chars_at_5: f64,
    /// Questions whose evidence phrase is in no fragment at all (lost by chunking or extraction).
    pub evidence_not_in_any_fragment: Vec<String>,
    /// Questions with no relevant fragment in the top 5.
    pub misses_at_5: Vec<String>,
}

/// First rank (0-based) of a relevant fragment in `ranking`, if any.
fn first_relevant(index: &Index, q: &Question, ranking: &[u32]) -> Option<usize> {
    ranking.iter().position(|&f| is_relevant(index, q, f))
}

/// A fragment is relevant if its text contains one of the question's evidence phrases.
pub fn is_relevant(index: &Index, q: &Question, frag: u32) -> bool {
    let Some(f) = index.fragments.get(frag as usize) else {
        return false;
    };
    let text = normalize(&f.text);
    q.evidence
        .iter()
        .any(|e| text.contains(&normalize(&e.phrase)))
}

fn doc_path(index: &Index, frag: u32) -> Option<&str> {
    let f = index.fragments.get(frag as usize)?;
    index.docs.get(f.doc as usize).map(|d| d.path.as_str())
}

/// Scores `rank` (question → ranked fragments) on the answerable questions.
pub fn retrieval(
    index: &Index,
    questions: &[&Question],
    rank: &dyn Fn(&str) -> Vec<u32>,
) -> Retrieval {
    let answerable: Vec<&&Question> = questions.iter().filter(|q| q.answerable()).collect();
    let mut res = Retrieval {
        n: answerable.len(),
        ..Retrieval::default()
    };
    if answerable.is_empty() {
        return res;
    }
    let (mut r1, mut r3, mut r5, mut rr, mut c3, mut c5) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut multi_n, mut multi_ok) = (0, 0);
    for q in &answerable {
        let ranking = rank(&q.question);
        if !(0..index.fragments.len() as u32).any(|f| is_relevant(index, q, f)) {
            res.evidence_not_in_any_fragment.push(q.id.clone());
        }
        match first_relevant(index, q, &ranking) {
            Some(r) => {
                r1 += f64::from(u8::from(r < 1));
                r3 += f64::from(u8::from(r < 3));
                r5 += f64::from(u8::from(r < 5));
                if r >= 5 {
                    res.misses_at_5.push(q.id.clone());
                }
                rr += 1.0 / (r as f64 + 1.0);
            }
            None => res.misses_at_5.push(q.id.clone()),
        }
        let chars = |k: usize| -> f64 {
            ranking
                .iter()
                .take(k)
                .filter_map(|&f| index.fragments.get(f as usize))
                .map(|f| f.text.chars().count() as f64)
                .sum()
        };
        c3 += chars(3);
        c5 += chars(5);
        if q.kind == Kind::MultiDoc {
            multi_n += 1;
            let top: BTreeSet<&str> = ranking
                .iter()
                .take(5)
                .filter_map(|&f| doc_path(index, f))
                .collect();
            if q.evidence.iter().all(|e| top.contains(e.file.as_str())) {
                multi_ok += 1;
            }
        }
    }
    let n = res.n as f64;
    res.recall_1 = r1 / n;
    res.recall_3 = r3 / n;
    res.recall_5 = r5 / n;
    res.mrr = rr / n;
    res.context_chars_at_3 = c3 / n;
    res.context_chars_at_5 = c5 / n;
    res.multi_doc_all_pages_at_5 = (multi_n > 0).then(|| f64::from(multi_ok) / f64::from(multi_n));
    res
}

/// Answering over all questions, with the shipped answerer.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Answering {
    pub answerable_correct: f64,
    pub answerable_wrong: f64,
    pub quote_hit: f64,
    pub unanswerable_declined: f64,
    pub false_answers: usize,
    pub balanced_accuracy: f64,
    /// Per confidence label: how many answers carry it and how many of those are right.
    pub confidence: Reliability,
    /// How many replies have each mode.
    pub modes: Modes,
    /// What the visitor sees: answer hit, results hit@3, answer miss, nothing useful.
    pub visitor: visitor::Rates,
    /// Per question outcome, for the failure lists.
    #[serde(skip)]
    pub outcomes: Vec<Outcome>,
}

/// Per confidence label, the answers carrying it and their precision (answered correctly
/// among them; an answered unanswerable question counts as wrong).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Reliability {
    pub high: Labelled,
    pub medium: Labelled,
    pub low: Labelled,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Labelled {
    pub n: usize,
    pub precision: f64,
    #[serde(skip)]
    right: usize,
}

impl Labelled {
    fn add(&mut self, right: bool) {
        self.n += 1;
        self.right += usize::from(right);
        self.precision = self.right as f64 / self.n as f64;
    }
}

/// How many replies have each mode ("supported" and "partial" are the two kinds of answer).
#[derive(Debug, Default, Clone, Serialize)]
pub struct Modes {
    pub supported: usize,
    pub partial: usize,
    #[serde(rename = "related-material")]
    pub related_material: usize,
    #[serde(rename = "not-found")]
    pub not_found: usize,
}

pub fn answering(
    index: &Index,
    model: Option<&QueryModel>,
    questions: &[&Question],
    config: &AnswerConfig,
) -> Answering {
    let mut res = Answering::default();
    let (mut n_ans, mut n_un) = (0usize, 0usize);
    let (mut correct, mut wrong, mut hits, mut declined) = (0usize, 0usize, 0usize, 0usize);
    for q in questions {
        let started = Instant::now();
        let answer = ask(index, model, &q.question, config);
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        let answered = answer.mode == Mode::Answer;
        let grounded = answer
            .quotes
            .iter()
            .any(|quote| is_relevant(index, q, quote.fragment));
        let hit = answer
            .quotes
            .iter()
            .any(|quote| quote_holds_evidence(q, &quote.text));
        let pages = visitor::pages_shown(&answer, &|f| doc_path(index, f));
        let label = match (answer.mode, &answer.completeness) {
            (Mode::Answer, Some(c)) => c.label(),
            (Mode::RelatedMaterial, _) => "related-material",
            (Mode::Answer, None) => "supported",
            _ => "not-found",
        };
        match label {
            "supported" => res.modes.supported += 1,
            "partial" => res.modes.partial += 1,
            "related-material" => res.modes.related_material += 1,
            _ => res.modes.not_found += 1,
        }
        let right = answered && grounded && q.answerable();
        match answer.confidence {
            Some(Confidence::High) => res.confidence.high.add(right),
            Some(Confidence::Medium) => res.confidence.medium.add(right),
            Some(Confidence::Low) => res.confidence.low.add(right),
            None => {}
        }
        let cited: Vec<String> = answer
            .quotes
            .iter()
            .filter_map(|quote| doc_path(index, quote.fragment))
            .map(str::to_owned)
            .collect();
        let ok = if q.answerable() {
            n_ans += 1;
            let ok = answered && grounded;
            correct += usize::from(ok);
            wrong += usize::from(answered && !grounded);
            hits += usize::from(answered && hit);
            ok
        } else {
            n_un += 1;
            declined += usize::from(!answered);
            !answered
        };
        res.outcomes.push(Outcome {
            id: q.id.clone(),
            kind: q.kind,
            ask: ask_kind(&onrecord_core::Question::new(&q.question)),
            asks: q.asks,
            quote_hit: q.answerable() && answered && hit,
            mode: answer.mode,
            correct: ok,
            cited,
            hint_labels: answer.hints.iter().map(|h| h.label.clone()).collect(),
            detail: match (&answer.decline, answer.quotes.first()) {
                (Some(d), _) => format!("{d:?}"),
                (None, Some(quote)) => quote.text.chars().take(90).collect(),
                (None, None) => String::new(),
            },
            millis,
            visitor: visitor::classify(q, answered, hit, &pages),
            results_shown: answer.results.len(),
        });
    }
    res.visitor = visitor::Rates::of(&res.outcomes);
    let rate = |x: usize, n: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    res.answerable_correct = rate(correct, n_ans);
    res.answerable_wrong = rate(wrong, n_ans);
    res.quote_hit = rate(hits, n_ans);
    res.unanswerable_declined = rate(declined, n_un);
    res.false_answers = n_un - declined;
    res.balanced_accuracy = match (n_ans, n_un) {
        (0, _) => res.unanswerable_declined,
        (_, 0) => res.answerable_correct,
        _ => (res.answerable_correct + res.unanswerable_declined) / 2.0,
    };
    res
}

/// The quote-hit rule: `quote` holds at least half of an evidence phrase's content words.
pub fn quote_holds_evidence(q: &Question, quote: &str) -> bool {
    q.evidence
        .iter()
        .any(|e| content_word_share(quote, &e.phrase) >= 0.5)
}

/// Share of the phrase's content words (non-stopwords, lowercased) that the quote contains.
pub fn content_word_share(quote: &str, phrase: &str) -> f64 {
    let content = |s: &str| -> BTreeSet<String> {
        tokens(s)
            .map(|(_, w)| w)
            .filter(|w| !is_stopword(w, onrecord_core::Lang::English))
            .collect()
    };
    let want = content(phrase);
    if want.is_empty() {
        return 0.0;
    }
    let have = content(quote);
    want.intersection(&have).count() as f64 / want.len() as f64
}

/// The confidence-label and mode table: one row per named set of answers, then the labels
/// pooled over them.
pub fn reliability_table(md: &mut String, rows: &[(&str, &Answering)]) {
    let _ = writeln!(
        md,
        "| corpus | high: n, precision | medium: n, precision | low: n, precision | supported | partial | related-material | not-found |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let cell = |l: &Labelled| {
        if l.n == 0 {
            "0".to_owned()
        } else {
            format!("{}, {:.2}", l.n, l.precision)
        }
    };
    let mut pooled = [(0usize, 0.0f64); 3];
    for (name, a) in rows {
        let c = &a.confidence;
        let m = &a.modes;
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&c.high),
            cell(&c.medium),
            cell(&c.low),
            m.supported,
            m.partial,
            m.related_material,
            m.not_found
        );
        for (slot, l) in pooled.iter_mut().zip([&c.high, &c.medium, &c.low]) {
            slot.0 += l.n;
            slot.1 += l.precision * l.n as f64;
        }
    }
    let p = |(n, right): (usize, f64)| {
        if n == 0 {
            "0".to_owned()
        } else {
            format!("{n}, {:.2}", right / n as f64)
        }
    };
    if rows.len() < 2 {
        md.push('\n');
        return;
    }
    let _ = writeln!(
        md,
        "| **all folds pooled** | {} | {} | {} | | | | |\n",
        p(pooled[0]),
        p(pooled[1]),
        p(pooled[2])
    );
}

/// Median and 95th percentile of `values`.
pub fn percentiles(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.95))
}
