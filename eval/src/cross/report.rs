//! The cross-corpus report: the markdown tables (the folds on their test halves and on all
//! their questions, with means, worst folds, confidence labels and what the visitor sees; where
//! answers are lost; the terse and typed sets; each fold's knobs; what ships) and the same
//! figures as JSON.

use std::fmt::Write as _;

use onrecord_core::{AnswerConfig, AskKind, DeclineModel, FEATURE_NAMES};
use serde_json::{Value, json};

use super::Corpus;
use super::fold::{Folds, Lost, Scored, SideSet};
use super::knobs::{Chosen, Knobs};
use crate::metrics::{self, Answering};
use crate::questions::{Kind, Split};
use crate::visitor;

/// The report of a run, as markdown and as JSON: `corpora` as built, the `knobs` the fit
/// chose, the `folds` scored with them and the `shipped` configuration on every test half;
/// `vectors` and `adapted` say how the corpora were built.
pub(super) fn write(
    corpora: &[Corpus],
    knobs: &Knobs,
    folds: &Folds,
    shipped: &[Scored],
    vectors: bool,
    adapted: bool,
) -> (String, Value) {
    let names: Vec<&str> = corpora.iter().map(|c| c.entry.name.as_str()).collect();
    let held: Vec<&str> = corpora
        .iter()
        .filter(|c| c.entry.held_out)
        .map(|c| c.entry.name.as_str())
        .collect();
    let mut md = String::new();
    intro(&mut md, corpora, &held, vectors, adapted);
    let test = test_halves(&mut md, corpora, &names, &folds.test);
    let all = all_questions(&mut md, corpora, &names, &folds.all);
    lost_table(&mut md, &names, &folds.all, &folds.lost);
    let terse = terse_section(&mut md, corpora, &names, &folds.terse);
    let typed = typed_section(&mut md, corpora, &names, &folds.typed);
    knobs_list(&mut md, corpora, &knobs.folds, vectors);
    what_ships(
        &mut md,
        corpora,
        &held,
        &knobs.pooled.config,
        shipped,
        vectors,
    );
    let sections = Sections {
        test,
        all,
        terse,
        typed,
    };
    (md, json(corpora, knobs, folds, shipped, vectors, &sections))
}

/// What the markdown's fold tables add to the JSON.
struct Sections {
    test: Summary,
    all: Summary,
    terse: SideSummary,
    typed: SideSummary,
}

/// The report's figures as JSON: each fold's knobs and scores, the means, what the visitor
/// sees, the worst folds and what ships.
fn json(
    corpora: &[Corpus],
    knobs: &Knobs,
    folds: &Folds,
    shipped: &[Scored],
    vectors: bool,
    sections: &Sections,
) -> Value {
    let names: Vec<&str> = corpora.iter().map(|c| c.entry.name.as_str()).collect();
    let Sections {
        test,
        all,
        terse,
        typed,
    } = sections;
    let fold_json: Vec<Value> = corpora
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "corpus": c.entry.name,
                "knobs": knobs_json(&knobs.folds[i].config, vectors),
                "test": scored_json(&folds.test[i], c.split(Split::Test).len()),
                "all": scored_json(&folds.all[i], c.split(Split::All).len()),
            })
        })
        .collect();
    let side_json = |set: &SideSet, qs: fn(&Corpus) -> usize| -> Vec<Value> {
        set.folds
            .iter()
            .zip(&set.results)
            .map(|(&i, s)| json!({ "corpus": names[i], "all": scored_json(s, qs(&corpora[i])) }))
            .collect()
    };
    let shipped_json: Vec<Value> = corpora
        .iter()
        .zip(shipped)
        .map(|(c, s)| {
            json!({ "corpus": c.entry.name, "test": scored_json(s, c.split(Split::Test).len()) })
        })
        .collect();
    json!({
        "protocol": "leave-one-corpus-out; knobs and the decline model fit on the other corpora's dev halves; left-out corpus scored on its test half and on all questions",
        "vectors": vectors,
        "folds": fold_json,
        "mean_test": test.mean,
        "mean_all": all.mean,
        "terse": side_json(&folds.terse, |c| c.terse.len()),
        "mean_terse": terse.mean,
        "typed": side_json(&folds.typed, |c| c.typed.len()),
        "mean_typed": typed.mean,
        "by_asks_typed_pooled": visitor::by_asks(folds.typed.results.iter().flat_map(|s| &s.answering.outcomes)),
        "visitor": { "test": test.visitor, "all": all.visitor, "terse": terse.visitor,
                     "typed": typed.visitor },
        "worst_fold_test": { "corpus": names[test.worst],
                             "balanced_accuracy": folds.test[test.worst].answering.balanced_accuracy },
        "worst_fold_all": { "corpus": names[all.worst],
                            "balanced_accuracy": folds.all[all.worst].answering.balanced_accuracy },
        "chosen_on_all_dev": knobs_json(&knobs.pooled.config, vectors),
        "shipped_knobs": knobs_json(&AnswerConfig::DEFAULT, vectors),
        "shipped_on_test": shipped_json,
    })
}

/// The title, what the protocol does, the held-out corpora and the corpus table.
fn intro(md: &mut String, corpora: &[Corpus], held: &[&str], vectors: bool, adapted: bool) {
    let _ = writeln!(md, "# Cross-corpus evaluation (leave one corpus out)\n");
    let _ = writeln!(
        md,
        "Each corpus is left out in turn. Every knob — the fusion weights (by mean dev MRR), the quote-shape weight (by mean dev quote hit), the decline model's weights, threshold and confidence cut points (fit on the pooled dev rows) — is chosen on the **dev halves of the other corpora**; the left-out corpus is then scored on its **test half** (which nobody looked at while building the method) and on **all** its questions. Vectors: {}. Rates are fractions; one question moves a rate by 1/n (about 2 points on a test half of 45).\n",
        if adapted {
            "yes (the shipped teacher; the query model adapted to each corpus's own text at build time)"
        } else if vectors {
            "yes (the shipped teacher and query model)"
        } else {
            "no (lexical)"
        }
    );
    for name in held {
        let _ = writeln!(
            md,
            "**{name}** is held out of every fit: no fold's knobs and not the shipped ones are chosen on it, so its fold is the shipped configuration on a site it never saw, and its questions are scored only there.\n"
        );
    }
    let _ = writeln!(
        md,
        "| corpus | pages | fragments | questions |\n|---|---:|---:|---:|"
    );
    for c in corpora {
        let _ = writeln!(
            md,
            "| {} — {} | {} | {} | {} |",
            c.entry.name,
            c.entry.title,
            c.built.index.docs.len(),
            c.built.index.fragments.len(),
            c.questions.len()
        );
    }
}

/// What a fold table's section adds to the JSON: the mean row, the worst fold's position and
/// the visitor table's mean and worst fold.
struct Summary {
    mean: Value,
    worst: usize,
    visitor: Value,
}

/// The folds on their test halves: the fold table with its mean and worst fold, the
/// confidence labels and modes, and what the visitor sees.
fn test_halves(md: &mut String, corpora: &[Corpus], names: &[&str], results: &[Scored]) -> Summary {
    let _ = writeln!(md, "\n## Left-out folds, test halves\n\n{FOLD_HEADER}");
    for (i, s) in results.iter().enumerate() {
        fold_row(md, names[i], corpora[i].split(Split::Test).len(), s);
    }
    let mean = mean_row(md, "mean of folds", results);
    let worst = worst_fold(md, names, results);
    let _ = writeln!(
        md,
        "Confidence labels (precision = answered correctly among the answers with that label) and modes, test halves:\n"
    );
    reliability_table(md, names, results);
    let visitor = visitor_table(md, names, results);
    Summary {
        mean,
        worst,
        visitor,
    }
}

/// The folds on all their questions: the fold table with its mean and worst fold, the
/// confidence labels and modes, what the visitor sees and quote hit per kind of question.
fn all_questions(
    md: &mut String,
    corpora: &[Corpus],
    names: &[&str],
    results: &[Scored],
) -> Summary {
    let _ = writeln!(md, "## Left-out folds, all questions\n\n{FOLD_HEADER}");
    for (i, s) in results.iter().enumerate() {
        fold_row(md, names[i], corpora[i].questions.len(), s);
    }
    let mean = mean_row(md, "mean of folds", results);
    let worst = worst_fold(md, names, results);
    reliability_table(md, names, results);
    let visitor = visitor_table(md, names, results);
    let _ = writeln!(
        md,
        "Quote hit per kind of question (answerable questions, all):\n"
    );
    ask_kind_table(md, names, results);
    Summary {
        mean,
        worst,
        visitor,
    }
}

/// Writes the fold with the lowest balanced accuracy (the first of equals) and returns its
/// position.
fn worst_fold(md: &mut String, names: &[&str], results: &[Scored]) -> usize {
    let worst = results
        .iter()
        .enumerate()
        .min_by(|a, b| {
            a.1.answering
                .balanced_accuracy
                .total_cmp(&b.1.answering.balanced_accuracy)
        })
        .map_or(0, |(i, _)| i);
    let _ = writeln!(
        md,
        "\nWorst fold by balanced accuracy: **{}** ({:.3}).\n",
        names[worst], results[worst].answering.balanced_accuracy
    );
    worst
}

/// Where answerable questions are lost on all questions, with each fold's knobs.
fn lost_table(md: &mut String, names: &[&str], all: &[Scored], lost: &[Lost]) {
    let _ = writeln!(
        md,
        "\nWhere answerable questions are lost (all questions, fold knobs): a relevant fragment retrieved in the top 5 and first; the would-be quote's fragment holds the evidence (what a perfect decline could answer correctly); answered correctly.\n\n| corpus | answerable | relevant in top 5 | relevant first | would-be quote grounded | answered correctly |\n|---|---:|---:|---:|---:|---:|"
    );
    for ((name, s), l) in names.iter().zip(all).zip(lost) {
        let _ = writeln!(
            md,
            "| {name} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            l.answerable,
            s.retrieval.recall_5,
            s.retrieval.recall_1,
            l.grounded,
            s.answering.answerable_correct
        );
    }
}

/// What a further question set's section adds to the JSON: its mean row and its visitor
/// table's mean and worst fold (both null without the set).
#[derive(Default)]
struct SideSummary {
    mean: Value,
    visitor: Value,
}

/// The terse questions of the folds that have them: the fold table, the confidence labels,
/// what the visitor sees and quote hit per kind of question. Ends with a blank line, with or
/// without terse questions.
fn terse_section(
    md: &mut String,
    corpora: &[Corpus],
    names: &[&str],
    set: &SideSet,
) -> SideSummary {
    if set.results.is_empty() {
        md.push('\n');
        return SideSummary::default();
    }
    let (mean, visitor, _) = side_tables(
        md,
        "\n## Terse questions, left-out folds\n\nThe one-to-four-word questions visitors type (\"blackd default port\", \"What is SECRET_KEY?\"), a second question file on the same corpus (`terse` in the registry), in no fit, scored with each fold's knobs:\n\n",
        names,
        set,
        |f| corpora[f].terse.len(),
    );
    SideSummary { mean, visitor }
}

/// The typed questions of the folds that have them: as the terse section, and quote hit per
/// kind of answer asked for.
fn typed_section(
    md: &mut String,
    corpora: &[Corpus],
    names: &[&str],
    set: &SideSet,
) -> SideSummary {
    if set.results.is_empty() {
        return SideSummary::default();
    }
    let (mean, visitor, typed_names) = side_tables(
        md,
        "## Typed questions, left-out folds\n\nShort questions as visitors type them, each labelled with the kind of answer it asks for (`typed` in the registry; `asks`: how-to, default, definition, yes-no, why; the evidence is the words that answer), in no fit, scored with each fold's knobs:\n\n",
        names,
        set,
        |f| corpora[f].typed.len(),
    );
    let rows: Vec<(&str, &[metrics::Outcome])> = typed_names
        .iter()
        .copied()
        .zip(set.results.iter().map(|s| s.answering.outcomes.as_slice()))
        .collect();
    visitor::asks_table(md, &rows);
    SideSummary { mean, visitor }
}

/// What a second question set of the folds reports under `heading`: the fold table (each
/// fold's `count` of questions), its mean, the confidence labels, what the visitor sees and
/// quote hit per kind of question. Returns the mean row, the visitor table and the folds'
/// names.
fn side_tables<'n>(
    md: &mut String,
    heading: &str,
    names: &[&'n str],
    set: &SideSet,
    count: impl Fn(usize) -> usize,
) -> (Value, Value, Vec<&'n str>) {
    let _ = writeln!(md, "{heading}{FOLD_HEADER}");
    for (&i, s) in set.folds.iter().zip(&set.results) {
        fold_row(md, names[i], count(i), s);
    }
    let mean = mean_row(md, "mean of folds", &set.results);
    md.push('\n');
    let side_names: Vec<&str> = set.folds.iter().map(|&i| names[i]).collect();
    reliability_table(md, &side_names, &set.results);
    let visitor = visitor_table(md, &side_names, &set.results);
    let _ = writeln!(
        md,
        "Quote hit per kind of question (the engine's reading of what is asked):\n"
    );
    ask_kind_table(md, &side_names, &set.results);
    md.push('\n');
    (mean, visitor, side_names)
}

/// The knobs each fold chose on the other corpora.
fn knobs_list(md: &mut String, corpora: &[Corpus], chosen: &[Chosen], vectors: bool) {
    let mut knobs_lines = String::new();
    for (c, chosen) in corpora.iter().zip(chosen) {
        let _ = writeln!(
            knobs_lines,
            "- {}: {}",
            c.entry.name,
            knobs_text(&chosen.config, vectors)
        );
    }
    let _ = writeln!(
        md,
        "Knobs chosen for each fold (on the other corpora):\n\n{knobs_lines}"
    );
}

/// What ships: the fit on every dev half (`pooled`) beside `AnswerConfig::DEFAULT`, and the
/// shipped configuration on each corpus's test half.
fn what_ships(
    md: &mut String,
    corpora: &[Corpus],
    held: &[&str],
    pooled: &AnswerConfig,
    shipped: &[Scored],
    vectors: bool,
) {
    let default = AnswerConfig::DEFAULT;
    let same = knobs_json(pooled, vectors) == knobs_json(&default, vectors)
        && (vectors || pooled.lexical == default.lexical);
    let fit_on = if held.is_empty() {
        "all corpora".to_owned()
    } else {
        format!(
            "all corpora but {} (held out of every fit: its fold above is this configuration on a site it never saw)",
            held.join(", ")
        )
    };
    let _ = writeln!(
        md,
        "## What ships\n\nFit on the dev halves of {fit_on}: {}. In the code (`AnswerConfig::DEFAULT`, `crates/onrecord-core/src/answer/shipped.rs`): {}{}.\n",
        knobs_text(pooled, vectors),
        knobs_text(&default, vectors),
        if same {
            " — the same"
        } else {
            " — **they differ: regenerate shipped.rs (`eval --cross eval/corpora.json --write-shipped`) or say why**"
        }
    );
    let _ = writeln!(
        md,
        "The shipped configuration on each corpus's **test** half (its dev half took part in the fit unless held out):\n\n{FOLD_HEADER}"
    );
    for (c, s) in corpora.iter().zip(shipped) {
        fold_row(md, &c.entry.name, c.split(Split::Test).len(), s);
    }
    md.push('\n');
    let names: Vec<&str> = corpora.iter().map(|c| c.entry.name.as_str()).collect();
    reliability_table(md, &names, shipped);
}

fn knobs_json(config: &AnswerConfig, with_vectors: bool) -> Value {
    let model = if with_vectors {
        &config.hybrid
    } else {
        &config.lexical
    };
    json!({
        "vector_weight": config.fusion.vector_weight,
        "rerank_weight": config.fusion.rerank_weight,
        "rrf_c": config.fusion.rrf_c,
        "shape_weight": config.shape_weight,
        "decline": model_json(model),
    })
}

fn model_json(m: &DeclineModel) -> Value {
    let weights: serde_json::Map<String, Value> = FEATURE_NAMES
        .iter()
        .zip(m.weights)
        .map(|(n, w)| ((*n).to_owned(), json!(w)))
        .collect();
    json!({ "bias": m.bias, "weights": weights, "threshold": m.threshold,
            "high": m.high, "medium": m.medium })
}

fn knobs_text(config: &AnswerConfig, with_vectors: bool) -> String {
    let m = if with_vectors {
        &config.hybrid
    } else {
        &config.lexical
    };
    let cut = |c: f32| {
        if c > 1.0 {
            "–".to_owned()
        } else {
            format!("{c:.3}")
        }
    };
    format!(
        "fusion {}/{}/{}, shape {}, decline p<{:.3}, high ≥{}, medium ≥{}",
        config.fusion.vector_weight,
        config.fusion.rerank_weight,
        config.fusion.rrf_c,
        config.shape_weight,
        m.threshold,
        cut(m.high),
        cut(m.medium)
    )
}

fn scored_json(s: &Scored, n: usize) -> Value {
    let by_type: serde_json::Map<String, Value> = s
        .by_type
        .iter()
        .filter(|(_, r)| r.n > 0)
        .map(|(k, r)| {
            (
                k.name().to_owned(),
                json!({ "recall@1": r.recall_1, "recall@5": r.recall_5, "mrr": r.mrr, "n": r.n }),
            )
        })
        .collect();
    let a = &s.answering;
    json!({
        "questions": n,
        "retrieval": {
            "recall@1": s.retrieval.recall_1, "recall@3": s.retrieval.recall_3,
            "recall@5": s.retrieval.recall_5, "mrr": s.retrieval.mrr, "by_type": by_type,
        },
        "answering": {
            "answerable_correct": a.answerable_correct, "answerable_wrong": a.answerable_wrong,
            "quote_hit": a.quote_hit, "unanswerable_declined": a.unanswerable_declined,
            "false_answers": a.false_answers, "balanced_accuracy": a.balanced_accuracy,
        },
        "confidence": a.confidence,
        "modes": a.modes,
        "visitor": a.visitor,
        "by_asks": visitor::by_asks(&a.outcomes),
        "quote_hit_by_kind": quote_hit_by_kind(a),
        "previous_method_balanced_accuracy": s.floors_ba,
    })
}

/// Quote hit among answerable questions, per kind of answer asked for.
fn quote_hit_by_kind(a: &Answering) -> Value {
    let mut res = serde_json::Map::new();
    for kind in AskKind::ALL {
        let of_kind: Vec<&metrics::Outcome> = a
            .outcomes
            .iter()
            .filter(|o| o.kind != Kind::Unanswerable && o.ask == kind)
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        let hits = of_kind.iter().filter(|o| o.quote_hit).count();
        res.insert(
            kind.name().to_owned(),
            json!({ "n": of_kind.len(), "quote_hit": hits as f64 / of_kind.len() as f64 }),
        );
    }
    Value::Object(res)
}

fn paraphrase_r5(s: &Scored) -> Option<f64> {
    s.by_type
        .iter()
        .find(|(k, r)| *k == Kind::Paraphrase && r.n > 0)
        .map(|(_, r)| r.recall_5)
}

const FOLD_HEADER: &str = "| corpus | questions | recall@5 | MRR | paraphrase recall@5 | answered correctly | answered wrongly | quote hit | unanswerable declined (false answers) | balanced accuracy | hand-set floors, balanced accuracy |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

/// One row of the fold tables.
fn fold_row(md: &mut String, name: &str, n: usize, s: &Scored) {
    let a = &s.answering;
    let _ = writeln!(
        md,
        "| {name} | {n} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} ({}) | **{:.3}** | {:.3} |",
        s.retrieval.recall_5,
        s.retrieval.mrr,
        paraphrase_r5(s).map_or("–".into(), |v| format!("{v:.3}")),
        a.answerable_correct,
        a.answerable_wrong,
        a.quote_hit,
        a.unanswerable_declined,
        a.false_answers,
        a.balanced_accuracy,
        s.floors_ba,
    );
}

fn mean_row(md: &mut String, label: &str, results: &[Scored]) -> Value {
    let mean = |f: &dyn Fn(&Scored) -> f64| -> f64 {
        results.iter().map(f).sum::<f64>() / results.len().max(1) as f64
    };
    // Over the folds that have paraphrases (a terse set has none).
    let paraphrased: Vec<f64> = results.iter().filter_map(paraphrase_r5).collect();
    let paraphrase = (!paraphrased.is_empty())
        .then(|| paraphrased.iter().sum::<f64>() / paraphrased.len() as f64);
    let v = json!({
        "recall@5": mean(&|s| s.retrieval.recall_5),
        "mrr": mean(&|s| s.retrieval.mrr),
        "paraphrase_recall@5": paraphrase,
        "answerable_correct": mean(&|s| s.answering.answerable_correct),
        "answerable_wrong": mean(&|s| s.answering.answerable_wrong),
        "quote_hit": mean(&|s| s.answering.quote_hit),
        "unanswerable_declined": mean(&|s| s.answering.unanswerable_declined),
        "balanced_accuracy": mean(&|s| s.answering.balanced_accuracy),
        "previous_method_balanced_accuracy": mean(&|s| s.floors_ba),
    });
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    let _ = writeln!(
        md,
        "| **{label}** | | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} | **{:.3}** | {:.3} |",
        f("recall@5"),
        f("mrr"),
        paraphrase.map_or("–".into(), |v| format!("{v:.3}")),
        f("answerable_correct"),
        f("answerable_wrong"),
        f("quote_hit"),
        f("unanswerable_declined"),
        f("balanced_accuracy"),
        f("previous_method_balanced_accuracy"),
    );
    v
}

/// The reliability and mode tables of the folds.
fn reliability_table(md: &mut String, names: &[&str], results: &[Scored]) {
    let rows: Vec<(&str, &Answering)> = names
        .iter()
        .copied()
        .zip(results.iter().map(|s| &s.answering))
        .collect();
    metrics::reliability_table(md, &rows);
}

/// Quote hit per kind of question (the engine's reading of what is asked), one row per fold.
fn ask_kind_table(md: &mut String, names: &[&str], results: &[Scored]) {
    let _ = writeln!(
        md,
        "| corpus | {} |\n|---|{}",
        AskKind::ALL.map(|k| k.name()).join(" | "),
        "---:|".repeat(AskKind::ALL.len())
    );
    for (name, s) in names.iter().zip(results) {
        let by = quote_hit_by_kind(&s.answering);
        let cells: Vec<String> = AskKind::ALL
            .iter()
            .map(|k| {
                by.get(k.name()).map_or("–".to_owned(), |v| {
                    format!(
                        "{:.2} ({})",
                        v["quote_hit"].as_f64().unwrap_or(0.0),
                        v["n"].as_u64().unwrap_or(0)
                    )
                })
            })
            .collect();
        let _ = writeln!(md, "| {name} | {} |", cells.join(" | "));
    }
}

/// The visitor table of the folds, with their mean and the worst fold (the fewest useful
/// outcomes); returns both as JSON.
fn visitor_table(md: &mut String, names: &[&str], results: &[Scored]) -> Value {
    let _ = writeln!(
        md,
        "What the visitor sees (shares of the answerable questions; useful = answer hit + results hit@3, the first three pages shown being the quoted ones, then the results'):\n\n{}",
        visitor::HEADER
    );
    let rates: Vec<&visitor::Rates> = results.iter().map(|s| &s.answering.visitor).collect();
    for (name, r) in names.iter().zip(&rates) {
        visitor::row(md, name, r);
    }
    let mean = visitor::mean_row(md, "mean of folds", &rates);
    let worst = visitor::worst(&rates).map(|w| {
        let r = rates[w];
        let _ = writeln!(
            md,
            "\nWorst fold by useful: **{}** ({:.3} useful, {:.3} nothing useful, {:.3} answer miss, {} false answers).",
            names[w], r.useful, r.nothing_useful, r.answer_miss, r.false_answers
        );
        json!({ "corpus": names[w], "useful": r.useful, "nothing_useful": r.nothing_useful,
                "answer_miss": r.answer_miss, "false_answers": r.false_answers })
    });
    md.push('\n');
    json!({ "mean": mean, "worst": worst })
}
