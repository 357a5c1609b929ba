//! What the visitor sees (../shared/EVAL.md, "What the visitor sees"; issue 41, section 4): one
//! outcome per question from the whole answer view — the answer's quotes and the ranked
//! sections under it or under a decline — not from the quote alone.
//!
//! Pages are compared as the retrieval metrics compare them: a fragment's page is its document's
//! path, an evidence item's page its `file` (on a built site, the page built from it).

use std::fmt::Write as _;

use onrecord_core::{Answer, AskKind, Mode};
use serde::Serialize;
use serde_json::{Value, json};

use crate::questions::{Asks, Kind, Question};

/// How many pages a visitor is taken to look at: the answer's, then the results'.
pub const PAGES_LOOKED_AT: usize = 3;

/// One question's outcome. The four answerable ones are exclusive, in this order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visitor {
    /// Answerable: an answer whose quoted words hold at least half of an evidence phrase's
    /// content words (the quote-hit rule).
    AnswerHit,
    /// Answerable: no answer hit, but an evidence page is among the first
    /// [`PAGES_LOOKED_AT`] pages shown (an answer's quoted pages, then the results').
    ResultsHit,
    /// Answerable: an answer whose quotes miss, and no evidence page among the first pages
    /// shown: a wrong answer and nothing useful beside it.
    AnswerMiss,
    /// Answerable: no answer and no evidence page among the first pages shown.
    NothingUseful,
    /// Unanswerable: declined (results may be shown).
    Declined,
    /// Unanswerable: answered.
    Answered,
}

/// One question's outcome: what was asked, what the engine did and what the visitor saw.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: String,
    pub kind: Kind,
    /// The kind of answer the question asks for.
    pub ask: AskKind,
    /// The kind its writer labelled it with, in a typed set.
    pub asks: Option<Asks>,
    /// An answerable question answered with a quote that holds half an evidence phrase.
    pub quote_hit: bool,
    pub mode: Mode,
    pub correct: bool,
    pub cited: Vec<String>,
    pub hint_labels: Vec<String>,
    pub millis: f64,
    /// What happened, for the failure table: the decline reason or the first quote.
    pub detail: String,
    /// What the visitor sees.
    pub visitor: Visitor,
    /// How many ranked sections are listed under the answer or the decline.
    pub results_shown: usize,
}

/// The distinct pages a visitor sees, in order: an answer's quoted pages, then the pages of
/// the ranked results (each page once, as a results list groups sections by page).
pub fn pages_shown<'a>(answer: &Answer, page_of: &dyn Fn(u32) -> Option<&'a str>) -> Vec<&'a str> {
    let quoted = answer
        .quotes
        .iter()
        .filter(|_| answer.mode == Mode::Answer)
        .map(|quote| quote.fragment);
    let results = answer.results.iter().map(|hit| hit.fragment);
    let mut pages: Vec<&str> = Vec::new();
    for page in quoted.chain(results).filter_map(page_of) {
        if !pages.contains(&page) {
            pages.push(page);
        }
    }
    pages
}

/// The outcome of `q` given whether it was answered, whether a quote held the evidence
/// (`quote_hit`) and the pages shown in order ([`pages_shown`]).
pub fn classify(q: &Question, answered: bool, quote_hit: bool, pages: &[&str]) -> Visitor {
    if !q.answerable() {
        return if answered {
            Visitor::Answered
        } else {
            Visitor::Declined
        };
    }
    let on_evidence_page = pages
        .iter()
        .take(PAGES_LOOKED_AT)
        .any(|page| q.evidence.iter().any(|e| e.file == *page));
    match (answered && quote_hit, on_evidence_page, answered) {
        (true, _, _) => Visitor::AnswerHit,
        (false, true, _) => Visitor::ResultsHit,
        (false, false, true) => Visitor::AnswerMiss,
        (false, false, false) => Visitor::NothingUseful,
    }
}

/// The visitor outcomes of a set of questions (`"visitor"` in the JSON). Rates are fractions of
/// the answerable questions; `answer_hit + results_hit@3 + answer_miss + nothing_useful` is 1.
/// `useful` (an answer hit or an evidence page among the first three shown) is what issue 41's
/// target "nothing useful ≤ 0.10" asks to be ≥ 0.90: there an answer miss counts as nothing
/// useful, so `1 - useful = answer_miss + nothing_useful`.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Rates {
    pub answerable: usize,
    pub unanswerable: usize,
    pub answer_hit: f64,
    pub answer_miss: f64,
    #[serde(rename = "results_hit@3")]
    pub results_hit_3: f64,
    pub nothing_useful: f64,
    pub useful: f64,
    /// Answered unanswerable questions (a count) and their share of the unanswerable ones.
    pub false_answers: usize,
    pub false_answer_rate: f64,
    /// Answers to answerable questions, and the share of them whose quote holds the evidence.
    pub answers: usize,
    pub quote_hit_among_answers: Option<f64>,
    /// Declines (of any question) and how many of them list results.
    pub declines: usize,
    pub declines_with_results: usize,
}

impl Rates {
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Rates {
        let mut res = Rates::default();
        let (mut hit, mut miss, mut results, mut nothing) = (0, 0, 0, 0);
        for o in outcomes {
            match o.visitor {
                Visitor::AnswerHit => hit += 1,
                Visitor::ResultsHit => results += 1,
                Visitor::AnswerMiss => miss += 1,
                Visitor::NothingUseful => nothing += 1,
                Visitor::Declined => {}
                Visitor::Answered => res.false_answers += 1,
            }
            let answerable = !matches!(o.visitor, Visitor::Declined | Visitor::Answered);
            res.answerable += usize::from(answerable);
            res.unanswerable += usize::from(!answerable);
            if o.mode == Mode::Answer {
                res.answers += usize::from(answerable);
            } else {
                res.declines += 1;
                res.declines_with_results += usize::from(o.results_shown > 0);
            }
        }
        let rate = |x: usize, n: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
        res.answer_hit = rate(hit, res.answerable);
        res.answer_miss = rate(miss, res.answerable);
        res.results_hit_3 = rate(results, res.answerable);
        res.nothing_useful = rate(nothing, res.answerable);
        res.useful = rate(hit + results, res.answerable);
        res.false_answer_rate = rate(res.false_answers, res.unanswerable);
        res.quote_hit_among_answers = (res.answers > 0).then(|| rate(hit, res.answers));
        res
    }
}

/// Per `asks` kind of a typed set (`"by_asks"`): the visitor outcomes of the answerable
/// questions of that kind, quote hit among their answers included; `None` when no question
/// carries `asks`.
pub fn by_asks<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Option<Value> {
    let outcomes: Vec<&Outcome> = outcomes.into_iter().collect();
    let mut res = serde_json::Map::new();
    for kind in Asks::ALL {
        let of_kind: Vec<&Outcome> = outcomes
            .iter()
            .copied()
            .filter(|o| o.asks == Some(kind))
            .collect();
        if !of_kind.is_empty() {
            res.insert(kind.name().to_owned(), json!(Rates::of(of_kind)));
        }
    }
    (!res.is_empty()).then_some(Value::Object(res))
}

/// The header of [`row`]'s table.
pub const HEADER: &str = "| | answerable | answer hit | results hit@3 | **useful** | answer miss | nothing useful | answers: quote hit | unanswerable | false answers | declines listing results |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

/// One row of the visitor table.
pub fn row(md: &mut String, name: &str, r: &Rates) {
    let _ = writeln!(
        md,
        "| {name} | {} | {:.3} | {:.3} | **{:.3}** | {:.3} | {:.3} | {} | {} | {} ({:.3}) | {} of {} |",
        r.answerable,
        r.answer_hit,
        r.results_hit_3,
        r.useful,
        r.answer_miss,
        r.nothing_useful,
        r.quote_hit_among_answers
            .map_or("–".to_owned(), |v| format!("{v:.3} of {}", r.answers)),
        r.unanswerable,
        r.false_answers,
        r.false_answer_rate,
        r.declines_with_results,
        r.declines,
    );
}

/// The mean of the folds' rates (counts summed), as a row and as JSON.
pub fn mean_row(md: &mut String, label: &str, rates: &[&Rates]) -> Value {
    let n = rates.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Rates) -> f64| rates.iter().map(|r| f(r)).sum::<f64>() / n;
    let with_answers: Vec<f64> = rates
        .iter()
        .filter_map(|r| r.quote_hit_among_answers)
        .collect();
    let sum = |f: &dyn Fn(&Rates) -> usize| rates.iter().map(|r| f(r)).sum::<usize>();
    let m = Rates {
        answerable: sum(&|r| r.answerable),
        unanswerable: sum(&|r| r.unanswerable),
        answer_hit: mean(&|r| r.answer_hit),
        answer_miss: mean(&|r| r.answer_miss),
        results_hit_3: mean(&|r| r.results_hit_3),
        nothing_useful: mean(&|r| r.nothing_useful),
        useful: mean(&|r| r.useful),
        false_answers: sum(&|r| r.false_answers),
        false_answer_rate: mean(&|r| r.false_answer_rate),
        answers: sum(&|r| r.answers),
        quote_hit_among_answers: (!with_answers.is_empty())
            .then(|| with_answers.iter().sum::<f64>() / with_answers.len() as f64),
        declines: sum(&|r| r.declines),
        declines_with_results: sum(&|r| r.declines_with_results),
    };
    row(md, &format!("**{label}**"), &m);
    json!(m)
}

/// The fold with the fewest useful outcomes (an answer hit or an evidence page among the first
/// three shown); the first on a tie.
pub fn worst(rates: &[&Rates]) -> Option<usize> {
    rates
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.useful.total_cmp(&b.1.useful))
        .map(|(i, _)| i)
}

/// The per-`asks` table of one set (how-to and default apart), when its questions carry `asks`.
pub fn asks_table(md: &mut String, rows: &[(&str, &[Outcome])]) {
    if !rows
        .iter()
        .any(|(_, outcomes)| outcomes.iter().any(|o| o.asks.is_some()))
    {
        return;
    }
    let _ = writeln!(
        md,
        "Per kind asked (`asks`; answerable questions): quote hit among answers (answers), useful (answer hit or an evidence page among the first three shown), nothing useful.\n"
    );
    let _ = writeln!(
        md,
        "| corpus | {} |\n|---|{}",
        Asks::ALL.map(|k| k.name()).join(" | "),
        "---:|".repeat(Asks::ALL.len())
    );
    // With more than one set, a last row pools their questions (a kind has a few per set).
    let mut sets: Vec<(&str, Vec<&Outcome>)> = rows
        .iter()
        .map(|(name, outcomes)| (*name, outcomes.iter().collect()))
        .collect();
    if rows.len() > 1 {
        let pooled = rows.iter().flat_map(|(_, outcomes)| outcomes.iter());
        sets.push(("**all pooled**", pooled.collect()));
    }
    for (name, outcomes) in &sets {
        let cells: Vec<String> = Asks::ALL
            .iter()
            .map(|&kind| {
                let of_kind: Vec<&Outcome> = outcomes
                    .iter()
                    .copied()
                    .filter(|o| o.asks == Some(kind))
                    .collect();
                if of_kind.is_empty() {
                    return "–".to_owned();
                }
                let r = Rates::of(of_kind);
                format!(
                    "n {}: hit {} ({}), useful {:.2}, nothing {:.2}",
                    r.answerable,
                    r.quote_hit_among_answers
                        .map_or("–".to_owned(), |v| format!("{v:.2}")),
                    r.answers,
                    r.useful,
                    r.nothing_useful
                )
            })
            .collect();
        let _ = writeln!(md, "| {name} | {} |", cells.join(" | "));
    }
    md.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::questions::{Evidence, Kind};

    fn question(kind: Kind, files: &[&str]) -> Question {
        Question {
            id: "q".into(),
            kind,
            question: "How long do I have to return a bike?".into(),
            evidence: files
                .iter()
                .map(|f| Evidence {
                    file: (*f).into(),
                    phrase: "you can return it within thirty days".into(),
                })
                .collect(),
            expect_mode: None,
            expect_sources: vec![],
            forbid_sources: vec![],
            asks: Some(Asks::Default),
        }
    }

    #[test]
    fn each_outcome_from_a_hand_made_answer_view() {
        let q = question(Kind::Lookup, &["returns.md"]);
        // An answer whose quote holds the evidence, whatever else is shown.
        assert_eq!(classify(&q, true, true, &[]), Visitor::AnswerHit);
        // An answer that misses, quoting another page, with the evidence page third in the
        // results: the visitor still finds it.
        assert_eq!(
            classify(&q, true, false, &["faq.md", "bikes.md", "returns.md"]),
            Visitor::ResultsHit
        );
        // ... but fourth is too far down.
        assert_eq!(
            classify(
                &q,
                true,
                false,
                &["faq.md", "bikes.md", "a.md", "returns.md"]
            ),
            Visitor::AnswerMiss
        );
        // A decline with the evidence page first among its results.
        assert_eq!(
            classify(&q, false, false, &["returns.md"]),
            Visitor::ResultsHit
        );
        // A quote hit does not count without an answer (a decline has no quotes to read).
        assert_eq!(classify(&q, false, true, &[]), Visitor::NothingUseful);
        assert_eq!(
            classify(&q, false, false, &["faq.md"]),
            Visitor::NothingUseful
        );
        // A multi-doc question: any of its pages will do.
        let multi = question(Kind::MultiDoc, &["a.md", "returns.md"]);
        assert_eq!(
            classify(&multi, false, false, &["x.md", "returns.md"]),
            Visitor::ResultsHit
        );
        // Unanswerable: declined with results shown, or answered.
        let none = question(Kind::Unanswerable, &[]);
        assert_eq!(
            classify(&none, false, false, &["faq.md"]),
            Visitor::Declined
        );
        assert_eq!(classify(&none, true, false, &[]), Visitor::Answered);
    }

    fn outcome(visitor: Visitor, answered: bool, results_shown: usize) -> Outcome {
        Outcome {
            id: "q".into(),
            kind: Kind::Lookup,
            ask: onrecord_core::AskKind::Other,
            asks: Some(Asks::HowTo),
            quote_hit: visitor == Visitor::AnswerHit,
            mode: if answered {
                Mode::Answer
            } else {
                Mode::RelatedMaterial
            },
            correct: visitor == Visitor::AnswerHit,
            cited: vec![],
            hint_labels: vec![],
            millis: 0.0,
            detail: String::new(),
            visitor,
            results_shown,
        }
    }

    #[test]
    fn rates_are_shares_of_the_answerable_and_sum_to_one() {
        let outcomes = [
            outcome(Visitor::AnswerHit, true, 0),
            outcome(Visitor::AnswerHit, true, 2),
            outcome(Visitor::AnswerMiss, true, 0),
            outcome(Visitor::ResultsHit, false, 3),
            outcome(Visitor::NothingUseful, false, 0),
            outcome(Visitor::Declined, false, 4),
            outcome(Visitor::Answered, true, 0),
        ];
        let r = Rates::of(&outcomes);
        assert_eq!((r.answerable, r.unanswerable), (5, 2));
        assert_eq!(r.answer_hit, 0.4);
        assert_eq!(r.results_hit_3, 0.2);
        assert_eq!(r.answer_miss, 0.2);
        assert_eq!(r.nothing_useful, 0.2);
        assert!((r.useful - 0.6).abs() < 1e-12);
        let total = r.answer_hit + r.results_hit_3 + r.answer_miss + r.nothing_useful;
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!((r.false_answers, r.false_answer_rate), (1, 0.5));
        // Three answers to answerable questions, two of them hits.
        assert_eq!(r.answers, 3);
        assert_eq!(r.quote_hit_among_answers, Some(2.0 / 3.0));
        assert_eq!((r.declines, r.declines_with_results), (3, 2));
        let json = json!(r);
        for field in [
            "answer_hit",
            "answer_miss",
            "results_hit@3",
            "nothing_useful",
            "false_answers",
            "false_answer_rate",
        ] {
            assert!(json[field].is_number(), "{field}: {json}");
        }
        let by = by_asks(&outcomes).unwrap();
        assert_eq!(by["how-to"]["answerable"], 5);
        assert!(by.get("default").is_none());
    }
}
