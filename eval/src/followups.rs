//! Follow-up pairs (`eval/questions/followups-*.json`, described in
//! `eval/questions/followups.notes.md`): a first question is answered, its turn context echoed
//! with the follow-up, and the harness checks how the follow-up was read (per kind), whether
//! a new subject kept anything of the old one, whether a broken context changed a standalone
//! answer, and how the resolved turns were answered.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use onrecord_core::{
    AnswerConfig, FollowUp, Index, Mode, QueryModel, TurnContext, ask, ask_turn, query_terms,
};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::questions::{Evidence, Kind, Question, Split, fnv1a};

/// One follow-up pair.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    pub id: String,
    pub kind: PairKind,
    pub first: String,
    pub followup: String,
    /// The question the follow-up should be executed as (any of them, when several).
    #[serde(default)]
    pub resolved: Option<OneOrMany>,
    /// For an explanation: the pages it must be scoped to.
    #[serde(default)]
    pub scope: Vec<String>,
    /// For a malformed pair: how the context is broken.
    #[serde(default)]
    pub context: Option<Broken>,
    /// What answers the resolved follow-up; `[]`: it must be declined; absent: not scored.
    #[serde(default)]
    pub evidence: Option<Vec<Evidence>>,
    /// For people; read by nothing.
    #[serde(default, rename = "notes")]
    pub _notes: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn all(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairKind {
    Refinement,
    Explanation,
    NewSubject,
    Pronoun,
    Malformed,
}

impl PairKind {
    const ALL: [PairKind; 5] = [
        PairKind::Refinement,
        PairKind::Explanation,
        PairKind::NewSubject,
        PairKind::Pronoun,
        PairKind::Malformed,
    ];

    fn name(self) -> &'static str {
        match self {
            PairKind::Refinement => "refinement",
            PairKind::Explanation => "explanation",
            PairKind::NewSubject => "new-subject",
            PairKind::Pronoun => "pronoun",
            PairKind::Malformed => "malformed",
        }
    }
}

/// How a malformed pair breaks the context the first answer returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Broken {
    /// Another index format version.
    WrongVersion,
    /// Made for another index (a stale context after a rebuild).
    OtherIndex,
    /// A question and a fragment list beyond the limits.
    Oversized,
    /// Fields of the wrong JSON types.
    WrongTypes,
    /// Not a JSON object at all.
    NotAnObject,
    /// Fragment ids this index does not have.
    UnknownIds,
}

pub fn load(path: &Path) -> Result<Vec<Pair>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a valid follow-up file", path.display()))
}

/// Every problem with a follow-up file, as readable lines; empty when the file is sound.
pub fn check(pairs: &[Pair], corpus: &Path, options: &build_index::Options) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ids = BTreeSet::new();
    for p in pairs {
        if !ids.insert(p.id.as_str()) {
            problems.push(format!("{}: duplicate id", p.id));
        }
        if p.first.trim().is_empty() || p.followup.trim().is_empty() {
            problems.push(format!("{}: empty question", p.id));
        }
        let (needs_scope, needs_resolved) = match p.kind {
            PairKind::Explanation => (true, false),
            _ => (false, true),
        };
        if needs_scope && p.scope.is_empty() {
            problems.push(format!("{}: explanation without scope", p.id));
        }
        if needs_resolved && p.resolved.is_none() {
            problems.push(format!("{}: {} without resolved", p.id, p.kind.name()));
        }
        if (p.kind == PairKind::Malformed) != p.context.is_some() {
            problems.push(format!(
                "{}: context is for malformed pairs, and they need one",
                p.id
            ));
        }
        for page in &p.scope {
            if !corpus.join(page).is_file() {
                problems.push(format!("{}: scope page {page} does not exist", p.id));
            }
        }
    }
    // Evidence phrases are checked as in question files.
    let as_questions: Vec<Question> = pairs
        .iter()
        .filter_map(|p| {
            let evidence = p.evidence.clone()?;
            Some(as_question(p, evidence))
        })
        .collect();
    problems.extend(
        crate::questions::check(&as_questions, corpus, options)
            .into_iter()
            .filter(|m| !m.contains("question without evidence")),
    );
    problems
}

fn as_question(p: &Pair, evidence: Vec<Evidence>) -> Question {
    Question {
        id: p.id.clone(),
        kind: if evidence.is_empty() {
            Kind::Unanswerable
        } else {
            Kind::Lookup
        },
        question: p.followup.clone(),
        evidence,
        expect_mode: None,
        expect_sources: Vec::new(),
        forbid_sources: Vec::new(),
        asks: None,
    }
}

/// The pairs of `split`, stratified by kind as question files are.
pub fn select(pairs: &[Pair], split: Split) -> Vec<&Pair> {
    if split == Split::All {
        return pairs.iter().collect();
    }
    let mut res = Vec::new();
    for kind in PairKind::ALL {
        let mut of_kind: Vec<&Pair> = pairs.iter().filter(|p| p.kind == kind).collect();
        of_kind.sort_by_key(|p| (fnv1a(&p.id), p.id.clone()));
        res.extend(
            of_kind
                .into_iter()
                .enumerate()
                .filter(|(i, _)| (i % 2 == 0) == (split == Split::Dev))
                .map(|(_, p)| p),
        );
    }
    res.sort_by(|a, b| a.id.cmp(&b.id));
    res
}

/// A question's content words, by the index terms they stem to (or as written when no page
/// uses them): how an executed question is compared with the expected one.
fn content(index: &Index, text: &str) -> BTreeSet<String> {
    query_terms(index, &onrecord_core::Question::new(text))
        .into_iter()
        .map(|t| {
            if t.term_ids.is_empty() {
                format!("word:{}", t.word)
            } else {
                format!("{:?}", t.term_ids)
            }
        })
        .collect()
}

/// The context as the browser would send it after the first answer, broken as `broken` says.
/// Wrong JSON types and non-objects are dropped by the adapter before the core sees them (as
/// `crates/onrecord-wasm` does), so they arrive as no context.
fn broken_context(index: &Index, context: &TurnContext, broken: Broken) -> Option<TurnContext> {
    let mut c = context.clone();
    match broken {
        Broken::WrongVersion => c.version = c.version.wrapping_add(1),
        Broken::OtherIndex => {
            c.index = if c.index == "0123456789abcdef" {
                "fedcba9876543210".into()
            } else {
                "0123456789abcdef".into()
            }
        }
        Broken::Oversized => {
            c.question = c
                .question
                .repeat(onrecord_core::MAX_CONTEXT_QUESTION / c.question.len().max(1) + 1);
            c.fragments = (0..1000).collect();
        }
        Broken::WrongTypes | Broken::NotAnObject => return None,
        Broken::UnknownIds => {
            let n = index.fragments.len() as u32;
            c.fragments = vec![n, n.saturating_add(7), u32::MAX];
        }
    }
    Some(c)
}

struct Outcome<'p> {
    pair: &'p Pair,
    read_as: String,
    read_kind: FollowUp,
    resolved: bool,
    leak: bool,
    /// Answered as the evidence says (an answer quoting it, or a decline for `[]`).
    answered: Option<bool>,
    /// For malformed pairs: the answer differs from the standalone one.
    changed: bool,
}

/// Scores the pairs of `split`; returns the markdown section and the JSON `followups` object.
pub fn evaluate(
    index: &Index,
    model: Option<&QueryModel>,
    config: &AnswerConfig,
    pairs: &[&Pair],
    file: &Path,
) -> (String, Value) {
    let mut outcomes = Vec::new();
    for &pair in pairs {
        let first = ask_turn(index, model, &pair.first, None, config);
        let context = match pair.context {
            Some(broken) => broken_context(index, &first.context, broken),
            None => Some(first.context.clone()),
        };
        let reply = ask_turn(index, model, &pair.followup, context.as_ref(), config);
        let read = content(index, &reply.turn.question);
        let scope_pages: BTreeSet<&str> = reply
            .turn
            .scope
            .iter()
            .flat_map(|s| &s.docs)
            .filter_map(|&d| index.docs.get(d as usize).map(|d| d.path.as_str()))
            .collect();
        let resolved = match pair.kind {
            PairKind::Explanation => {
                reply.turn.kind == FollowUp::Explanation
                    && pair.scope.iter().all(|p| scope_pages.contains(p.as_str()))
            }
            _ => {
                reply.turn.scope.is_none()
                    && pair.resolved.as_ref().is_some_and(|r| {
                        r.all()
                            .iter()
                            .any(|expected| content(index, expected) == read)
                    })
            }
        };
        let leak = pair.kind == PairKind::NewSubject && {
            let own = content(index, &pair.followup);
            let before = content(index, &first.turn.question);
            reply.turn.scope.is_some()
                || read.iter().any(|w| before.contains(w) && !own.contains(w))
        };
        let answered = pair
            .evidence
            .as_ref()
            .filter(|_| pair.kind != PairKind::Malformed)
            .map(|evidence| {
                let q = as_question(pair, evidence.clone());
                if q.answerable() {
                    reply.answer.mode == Mode::Answer
                        && reply
                            .answer
                            .quotes
                            .iter()
                            .any(|quote| crate::metrics::is_relevant(index, &q, quote.fragment))
                } else {
                    reply.answer.mode != Mode::Answer
                }
            });
        let changed = pair.kind == PairKind::Malformed
            && reply.answer != ask(index, model, &pair.followup, config);
        outcomes.push(Outcome {
            pair,
            read_as: reply.turn.question,
            read_kind: reply.turn.kind,
            resolved,
            leak,
            answered,
            changed,
        });
    }
    let rate = |x: usize, n: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    let mut md = String::new();
    let _ = writeln!(md, "### Follow-ups (`{}`)\n", file.display());
    let _ = writeln!(
        md,
        "Each pair: the first question is answered, its turn context is echoed with the follow-up. Resolved: the follow-up was executed as the expected question (same content words) or, for an explanation, scoped to the expected pages.\n"
    );
    let _ = writeln!(md, "| kind | n | resolved |\n|---|---:|---:|");
    let mut by_kind = serde_json::Map::new();
    for kind in PairKind::ALL {
        let of: Vec<&Outcome> = outcomes.iter().filter(|o| o.pair.kind == kind).collect();
        if of.is_empty() {
            continue;
        }
        let r = rate(of.iter().filter(|o| o.resolved).count(), of.len());
        let _ = writeln!(md, "| {} | {} | {r:.3} |", kind.name(), of.len());
        by_kind.insert(kind.name().into(), json!({ "n": of.len(), "resolved": r }));
    }
    let resolved = rate(
        outcomes.iter().filter(|o| o.resolved).count(),
        outcomes.len(),
    );
    let _ = writeln!(md, "| all | {} | {resolved:.3} |\n", outcomes.len());
    let leaks = outcomes.iter().filter(|o| o.leak).count();
    let changed = outcomes.iter().filter(|o| o.changed).count();
    let scored = |answerable: bool| -> (usize, usize) {
        let of: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.answered.is_some())
            .filter(|o| {
                o.pair
                    .evidence
                    .as_ref()
                    .is_some_and(|e| e.is_empty() != answerable)
            })
            .collect();
        (
            of.iter().filter(|o| o.answered == Some(true)).count(),
            of.len(),
        )
    };
    let (correct, n_ans) = scored(true);
    let (declined, n_un) = scored(false);
    let _ = writeln!(
        md,
        "Subject leaks on new-subject turns: {leaks}. Malformed contexts that changed the standalone answer: {changed}. Answering on the resolved turns: {correct} of {n_ans} answerable follow-ups answered correctly ({:.3}), {declined} of {n_un} unanswerable ones declined.\n",
        rate(correct, n_ans)
    );
    let failed: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| !o.resolved || o.leak || o.changed || o.answered == Some(false))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            md,
            "| id | kind | follow-up | read as | expected | resolved | answered |\n|---|---|---|---|---|---|---|"
        );
        for o in failed {
            let clean = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            let expected = match o.pair.kind {
                PairKind::Explanation => format!("scope: {}", o.pair.scope.join(", ")),
                _ => o
                    .pair
                    .resolved
                    .as_ref()
                    .map_or(String::new(), |r| r.all().join(" / ")),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} ({}) | {} | {} | {} |",
                o.pair.id,
                o.pair.kind.name(),
                clean(&o.pair.followup),
                clean(&o.read_as),
                o.read_kind.name(),
                clean(&expected),
                if o.resolved {
                    "yes"
                } else if o.leak {
                    "LEAK"
                } else {
                    "no"
                },
                match o.answered {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "–",
                }
            );
        }
        md.push('\n');
    }
    let json = json!({
        "pairs": outcomes.len(),
        "resolved": resolved,
        "subject_leaks": leaks,
        "by_kind": by_kind,
        "malformed_changed": changed,
        "answering": {
            "answerable_correct": rate(correct, n_ans),
            "answerable": n_ans,
            "unanswerable_declined": rate(declined, n_un),
            "unanswerable": n_un,
        },
    });
    (md, json)
}
