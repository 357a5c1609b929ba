//! Runs every metric on every split and renders the markdown tables and the JSON result.

use std::collections::HashMap;
use std::fmt::Write as _;

use anyhow::Result;
use build_index::{Build, EmbedOptions, Embedder, Options, build, build_with, note_hint};
use onrecord_core::{
    AnswerConfig, Index, Method, Mode, QueryModel, SHIPPED, query_terms, reciprocal_rank,
    retrieve_with, search, search_vectors,
};
use serde_json::{Value, json};

use crate::Args;
use crate::engine::{ask, assess};
use crate::followups::{self, Pair};
use crate::metrics::{self, DEPTH, Retrieval};
use crate::questions::{Kind, Question, Split, select};
use crate::typos;
use crate::visitor::{self, Visitor};

pub struct Evaluation {
    pub markdown: String,
    pub json: Value,
}

/// A retrieval method of the ablation: a name, the index it needs and how it ranks.
struct Row<'a> {
    name: &'static str,
    index: &'a Index,
    method: Method,
}

/// Everything one split's evaluation needs.
struct Setup<'a> {
    built: &'a Build,
    /// Hint label of each private note, by path, to check routing expectations.
    private_labels: std::collections::BTreeMap<String, String>,
    answer: AnswerConfig,
    model: Option<&'a QueryModel>,
    /// The build-time transformer, to measure what full question embeddings would give (a
    /// reference the browser cannot ship: the teacher is 90 MB).
    teacher: Option<&'a Embedder>,
    rows: Vec<Row<'a>>,
    /// Fragment size, index, index bytes and the query model its vectors were made for.
    sizes: &'a [(usize, Index, usize, Option<QueryModel>)],
    /// The follow-up pairs and their file, when given.
    followups: Option<(&'a std::path::Path, &'a [Pair])>,
    /// `--reference-teacher`: full teachers on both sides.
    references: Vec<Reference<'a>>,
    /// `--typos SEED`: also score a typo copy made with this seed.
    typos: Option<u64>,
}

/// A full teacher on both sides (no static table, no projection): an index whose fragment
/// vectors it made, and its vector of every question.
struct Reference<'a> {
    name: &'a str,
    index: &'a Index,
    questions: &'a HashMap<String, Vec<f32>>,
}

impl Setup<'_> {
    fn rank(&self, index: &Index, method: Method, question: &str) -> Vec<u32> {
        retrieve_with(index, self.model, question, DEPTH, method)
            .iter()
            .map(|h| h.fragment)
            .collect()
    }

    fn shipped(&self, index: &Index, question: &str) -> Vec<u32> {
        self.rank(index, SHIPPED, question)
    }
}

pub fn evaluate(
    args: &Args,
    questions: &[Question],
    pairs: &[Pair],
    built: &Build,
    embedder: Option<&Embedder>,
) -> Result<Evaluation> {
    let unstemmed = build(
        &args.corpus,
        &Options {
            stemming: false,
            ..args.options.clone()
        },
    )?;
    let model = built
        .query_model
        .as_deref()
        .map(QueryModel::from_bytes)
        .transpose()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut rows = vec![
        Row {
            name: "BM25",
            index: &unstemmed.index,
            method: Method::Bm25,
        },
        Row {
            name: "BM25 + stemming",
            index: &built.index,
            method: Method::Bm25,
        },
        Row {
            name: "BM25 + stemming + rerank",
            index: &built.index,
            method: Method::Bm25Rerank,
        },
    ];
    if model.is_some() {
        rows.push(Row {
            name: "vectors only",
            index: &built.index,
            method: Method::Vectors,
        });
        rows.push(Row {
            name: "hybrid (RRF)",
            index: &built.index,
            method: Method::Hybrid,
        });
        rows.push(Row {
            name: "hybrid + rerank",
            index: &built.index,
            method: Method::HybridRerank,
        });
    }
    let mut sizes = Vec::new();
    for &chars in &args.sizes {
        let b = build_with(
            &args.corpus,
            &Options {
                fragment_chars: chars,
                ..args.options.clone()
            },
            embedder,
        )?;
        let m = b
            .query_model
            .as_deref()
            .map(QueryModel::from_bytes)
            .transpose()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        sizes.push((chars, b.index, b.bytes.len(), m));
    }
    // Each --reference-teacher embeds the fragments (through the embedding cache) and every
    // question once.
    let mut reference_builds = Vec::new();
    for dir in &args.reference_teachers {
        let teacher = Embedder::full_teacher(dir, &EmbedOptions::standard())?;
        let built = build_with(&args.corpus, &args.options, Some(&teacher))?;
        let texts: Vec<String> = questions.iter().map(|q| q.question.clone()).collect();
        let vectors = teacher.embed(&texts)?;
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let questions: HashMap<String, Vec<f32>> = texts.into_iter().zip(vectors).collect();
        reference_builds.push((name, built, questions));
    }
    let references = reference_builds
        .iter()
        .map(|(name, built, questions)| Reference {
            name,
            index: &built.index,
            questions,
        })
        .collect();
    let mut private_labels = std::collections::BTreeMap::new();
    let private_prefix = format!("{}/", args.options.private_dir.trim_matches('/'));
    for source in questions.iter().flat_map(|q| &q.expect_sources) {
        let hint = std::fs::read(args.corpus.join(source))
            .ok()
            .and_then(|b| note_hint(&b, &args.options));
        if let (true, Some(hint)) = (source.starts_with(&private_prefix), hint) {
            private_labels.insert(source.clone(), hint.label);
        }
    }
    let setup = Setup {
        built,
        private_labels,
        answer: args.answer,
        model: model.as_ref(),
        teacher: embedder,
        rows,
        sizes: &sizes,
        followups: args.followups.as_deref().map(|path| (path, pairs)),
        references,
        typos: args.typos,
    };

    let mut md = String::new();
    let _ = writeln!(md, "# Evaluation: `{}`\n", args.questions.display());
    let _ = writeln!(
        md,
        "Corpus `{}`: {} pages, {} fragments, index {} bytes (fragment size {} chars, private folder `{}`, vectors: {}). Shipped retrieval: {:?}.\n",
        args.corpus.display(),
        built.index.docs.len(),
        built.index.fragments.len(),
        built.bytes.len(),
        args.options.fragment_chars,
        args.options.private_dir,
        if model.is_some() { "yes" } else { "no" },
        SHIPPED,
    );
    let _ = writeln!(
        md,
        "Rates are fractions of the questions in the split; with n questions one question is worth 1/n, so small differences are noise.\n"
    );
    let mut selected_json = Value::Null;
    for split in [Split::Test, Split::Dev, Split::All] {
        let qs = select(questions, split);
        let (section, json) = evaluate_split(split, &qs, &setup);
        md.push_str(&section);
        if split == args.split {
            selected_json = json;
        }
    }
    Ok(Evaluation {
        markdown: md,
        json: selected_json,
    })
}

fn evaluate_split(split: Split, qs: &[&Question], setup: &Setup<'_>) -> (String, Value) {
    let built = setup.built;
    let index = &built.index;
    let n_ans = qs.iter().filter(|q| q.answerable()).count();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## Split: {} ({} questions: {} answerable, {} unanswerable)\n",
        split.name(),
        qs.len(),
        n_ans,
        qs.len() - n_ans
    );

    let _ = writeln!(md, "### Retrieval ablation (answerable questions)\n");
    let _ = writeln!(
        md,
        "| method | n | recall@1 | recall@3 | recall@5 | MRR | multi-doc all pages @5 | context chars @3 | @5 |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut ablation = Vec::new();
    for m in &setup.rows {
        let r = metrics::retrieval(m.index, qs, &|q| setup.rank(m.index, m.method, q));
        row(&mut md, m.name, &r);
        ablation.push(json!({ "method": m.name, "result": r }));
    }
    if let Some(teacher) = setup.teacher {
        let teacher_hits = |q: &str| {
            teacher
                .embed(&[q.to_owned()])
                .ok()
                .and_then(|v| v.into_iter().next())
                .map(|v| search_vectors(index, &v, 50))
                .unwrap_or_default()
        };
        let ids = |hits: Vec<onrecord_core::Hit>| -> Vec<u32> {
            hits.iter().map(|h| h.fragment).take(DEPTH).collect()
        };
        type Ranker<'r> = &'r dyn Fn(&str) -> Vec<u32>;
        let references: [(&str, Ranker); 2] = [
            ("reference: teacher question vectors", &|q| {
                ids(teacher_hits(q))
            }),
            ("reference: hybrid with teacher vectors", &|q| {
                let lexical = search(
                    index,
                    &query_terms(index, &onrecord_core::Question::new(q)),
                    50,
                );
                ids(reciprocal_rank(&[lexical, teacher_hits(q)]))
            }),
        ];
        for (name, rank) in references {
            let r = metrics::retrieval(index, qs, rank);
            row(&mut md, name, &r);
            ablation.push(json!({ "method": name, "result": r }));
        }
    }
    for reference in &setup.references {
        let index = reference.index;
        let vector_hits = |q: &str| {
            reference
                .questions
                .get(q)
                .map(|v| search_vectors(index, v, 50))
                .unwrap_or_default()
        };
        let ids = |hits: Vec<onrecord_core::Hit>| -> Vec<u32> {
            hits.iter().map(|h| h.fragment).take(DEPTH).collect()
        };
        let name = reference.name;
        let vectors_only = format!("reference: {name} on both sides, vectors only");
        let hybrid = format!("reference: {name} on both sides, hybrid (RRF with BM25)");
        for (row_name, fused) in [(vectors_only, false), (hybrid, true)] {
            let r = metrics::retrieval(index, qs, &|q| {
                if fused {
                    let lexical = search(
                        index,
                        &query_terms(index, &onrecord_core::Question::new(q)),
                        50,
                    );
                    ids(reciprocal_rank(&[lexical, vector_hits(q)]))
                } else {
                    ids(vector_hits(q))
                }
            });
            row(&mut md, &row_name, &r);
            ablation.push(json!({ "method": row_name, "result": r }));
        }
    }
    let shipped_retrieval = metrics::retrieval(index, qs, &|q| setup.shipped(index, q));
    row(&mut md, "shipped pipeline", &shipped_retrieval);
    if setup.model.is_none() {
        let _ = writeln!(
            md,
            "| vectors only, hybrid (RRF), hybrid + rerank | – | not measured: no --teacher/--model-dir | | | | | | |"
        );
    }
    md.push('\n');

    if !setup.sizes.is_empty() {
        let _ = writeln!(md, "### Fragment size (shipped pipeline)\n");
        let _ = writeln!(
            md,
            "| fragment chars | index bytes | fragments | recall@1 | recall@5 | MRR | context chars @3 | @5 |"
        );
        let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (chars, idx, bytes, m) in setup.sizes {
            let r = metrics::retrieval(idx, qs, &|q| {
                retrieve_with(idx, m.as_ref(), q, DEPTH, SHIPPED)
                    .iter()
                    .map(|h| h.fragment)
                    .collect()
            });
            let _ = writeln!(
                md,
                "| {chars} | {bytes} | {} | {:.3} | {:.3} | {:.3} | {:.0} | {:.0} |",
                idx.fragments.len(),
                r.recall_1,
                r.recall_5,
                r.mrr,
                r.context_chars_at_3,
                r.context_chars_at_5
            );
        }
        md.push('\n');
    }

    let _ = writeln!(md, "### Retrieval by type (shipped pipeline)\n");
    let _ = writeln!(md, "| type | n | recall@1 | recall@5 | MRR |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    let mut by_type = serde_json::Map::new();
    for kind in Kind::ALL.into_iter().filter(|k| *k != Kind::Unanswerable) {
        let of_kind: Vec<&Question> = qs.iter().copied().filter(|q| q.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        let r = metrics::retrieval(index, &of_kind, &|q| setup.shipped(index, q));
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {:.3} | {:.3} |",
            kind.name(),
            r.n,
            r.recall_1,
            r.recall_5,
            r.mrr
        );
        by_type.insert(
            kind.name().into(),
            json!({ "recall@1": r.recall_1, "recall@5": r.recall_5, "mrr": r.mrr, "n": r.n }),
        );
    }
    md.push('\n');

    let answering = metrics::answering(index, setup.model, qs, &setup.answer);
    let latencies: Vec<f64> = answering.outcomes.iter().map(|o| o.millis).collect();
    let (p50, p95) = metrics::percentiles(&latencies);
    let _ = writeln!(md, "### Answering (all questions)\n");
    let _ = writeln!(
        md,
        "| answerable correct | answerable wrong | quote hit | unanswerable declined | false answers | balanced accuracy | latency p50 ms | p95 ms |"
    );
    let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    let _ = writeln!(
        md,
        "| {:.3} | {:.3} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} |\n",
        answering.answerable_correct,
        answering.answerable_wrong,
        answering.quote_hit,
        answering.unanswerable_declined,
        answering.false_answers,
        answering.balanced_accuracy,
        p50,
        p95
    );

    let _ = writeln!(
        md,
        "### What the visitor sees\n\nOne outcome per question from the whole answer view (../shared/EVAL.md): answer hit (the quote holds the evidence), results hit@3 (no answer hit, but an evidence page among the first three pages shown: the quoted pages, then the results'), answer miss (a quote that misses and no evidence page among them), nothing useful (no answer, no evidence page among them). Rates are shares of the answerable questions; useful = answer hit + results hit@3.\n\n{}",
        visitor::HEADER
    );
    visitor::row(&mut md, split.name(), &answering.visitor);
    md.push('\n');
    visitor::asks_table(&mut md, &[(split.name(), answering.outcomes.as_slice())]);
    let _ = writeln!(
        md,
        "Confidence labels (precision = answered correctly among the answers with that label) and modes:\n"
    );
    metrics::reliability_table(&mut md, &[(split.name(), &answering)]);
    let typos = setup
        .typos
        .map(|seed| typo_copy(&mut md, seed, qs, setup, &shipped_retrieval));

    let _ = writeln!(md, "### Failures\n");
    list(
        &mut md,
        "no relevant fragment in the top 5",
        &shipped_retrieval.misses_at_5,
    );
    list(
        &mut md,
        "evidence phrase in no fragment (lost in extraction or chunking)",
        &shipped_retrieval.evidence_not_in_any_fragment,
    );
    let missed: Vec<String> = answering
        .outcomes
        .iter()
        .filter(|o| o.kind != Kind::Unanswerable && !o.correct)
        .map(|o| o.id.clone())
        .collect();
    list(&mut md, "answerable, not answered correctly", &missed);
    let false_answers: Vec<String> = answering
        .outcomes
        .iter()
        .filter(|o| o.kind == Kind::Unanswerable && !o.correct)
        .map(|o| o.id.clone())
        .collect();
    list(&mut md, "unanswerable, answered anyway", &false_answers);
    // What the visitor target counts against: the results shown, in brackets, tell a question
    // with no list from one whose list missed the evidence's page.
    let nothing: Vec<String> = answering
        .outcomes
        .iter()
        .filter(|o| matches!(o.visitor, Visitor::NothingUseful | Visitor::AnswerMiss))
        .map(|o| format!("{} ({} results)", o.id, o.results_shown))
        .collect();
    list(&mut md, "answerable, nothing useful shown", &nothing);
    md.push('\n');
    let failed: Vec<&metrics::Outcome> = answering.outcomes.iter().filter(|o| !o.correct).collect();
    if !failed.is_empty() {
        let _ = writeln!(
            md,
            "| id | type | mode | cited | decline reason or first quote | what it would quote (page: text) |\n|---|---|---|---|---|---|"
        );
        for o in failed {
            let clean = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            // For a decline: the quote the evidence pointed at, to tell a retrieval miss from
            // a decline of the right passage.
            let would = qs
                .iter()
                .find(|q| q.id == o.id)
                .filter(|_| o.mode != Mode::Answer)
                .map(|q| assess(index, setup.model, &q.question, &setup.answer))
                .and_then(|a| {
                    a.quotes.first().map(|quote| {
                        let page = index
                            .fragments
                            .get(quote.fragment as usize)
                            .and_then(|f| index.docs.get(f.doc as usize))
                            .map_or("", |d| d.path.as_str());
                        format!(
                            "{page}: {}",
                            quote.text.chars().take(100).collect::<String>()
                        )
                    })
                })
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                o.id,
                o.kind.name(),
                mode_name(o.mode),
                o.cited.join(", "),
                clean(&o.detail),
                clean(&would)
            );
        }
        md.push('\n');
    }

    let expectations = expectations(setup, qs, &answering);
    if let Some((section, _)) = &expectations {
        md.push_str(section);
    }

    let followups = setup.followups.map(|(file, pairs)| {
        let selected = followups::select(pairs, split);
        let (section, json) =
            followups::evaluate(index, setup.model, &setup.answer, &selected, file);
        md.push_str(&section);
        json
    });

    let json = json!({
        "questions": qs.len(),
        "split": split.name(),
        "retrieval": {
            "recall@1": shipped_retrieval.recall_1,
            "recall@3": shipped_retrieval.recall_3,
            "recall@5": shipped_retrieval.recall_5,
            "mrr": shipped_retrieval.mrr,
            "multi_doc_all_pages@5": shipped_retrieval.multi_doc_all_pages_at_5,
            "context_chars@3": shipped_retrieval.context_chars_at_3,
            "context_chars@5": shipped_retrieval.context_chars_at_5,
            "by_type": by_type,
        },
        "ablation": ablation,
        "answering": {
            "answerable_correct": answering.answerable_correct,
            "answerable_wrong": answering.answerable_wrong,
            "quote_hit": answering.quote_hit,
            "unanswerable_declined": answering.unanswerable_declined,
            "false_answers": answering.false_answers,
            "balanced_accuracy": answering.balanced_accuracy,
        },
        "visitor": answering.visitor,
        "confidence": answering.confidence,
        "modes": answering.modes,
        "by_asks": visitor::by_asks(&answering.outcomes),
        "typos": typos,
        "latency_ms": { "p50": p50, "p95": p95 },
        "index_bytes": built.bytes.len(),
        "expectations": expectations.map(|(_, v)| v),
        "followups": followups,
    });
    (md, json)
}

/// Scores the typo copy of `qs` (`--typos SEED`): recall@5 of the shipped pipeline beside the
/// original's, and how many typos the engine corrected (back to the word, or to another).
fn typo_copy(
    md: &mut String,
    seed: u64,
    qs: &[&Question],
    setup: &Setup<'_>,
    original: &Retrieval,
) -> Value {
    let index = &setup.built.index;
    let (copy, made) = typos::copy(qs, seed);
    let refs: Vec<&Question> = copy.iter().collect();
    let r = metrics::retrieval(index, &refs, &|q| setup.shipped(index, q));
    let ratio = (original.recall_5 > 0.0).then(|| r.recall_5 / original.recall_5);
    let (mut corrected, mut restored) = (0, 0);
    for (q, t) in copy.iter().zip(&made) {
        let Some(t) = t else { continue };
        let answer = ask(index, setup.model, &q.question, &setup.answer);
        let fixed: Vec<&str> = answer
            .corrections
            .iter()
            .filter(|c| c.from.eq_ignore_ascii_case(&t.typed))
            .map(|c| c.to.as_str())
            .collect();
        corrected += usize::from(!fixed.is_empty());
        restored += usize::from(fixed.iter().any(|to| to.eq_ignore_ascii_case(&t.word)));
    }
    let with_typo = made.iter().flatten().count();
    let lost: Vec<String> = refs
        .iter()
        .zip(&made)
        .filter(|(q, _)| r.misses_at_5.contains(&q.id) && !original.misses_at_5.contains(&q.id))
        .map(|(q, t)| match t {
            Some(t) => format!("{} ({} → {})", q.id, t.word, t.typed),
            None => q.id.clone(),
        })
        .collect();
    let _ = writeln!(
        md,
        "### Typo copy (seed {seed})\n\nOne typo per question in a content word of {}+ letters (deleted, neighbouring-key, swapped or inserted letter; the first letter kept); {with_typo} of {} questions have one, the rest have no such word. Shipped pipeline, answerable questions:\n\n| | recall@1 | recall@5 | MRR |\n|---|---:|---:|---:|\n| original | {:.3} | {:.3} | {:.3} |\n| typo copy | {:.3} | {:.3} | {:.3} |\n\nrecall@5 kept: **{}** (target ≥ 0.90). Typos the engine corrected: {corrected} of {with_typo} ({restored} back to the word written).\n",
        typos::MIN_LETTERS,
        qs.len(),
        original.recall_1,
        original.recall_5,
        original.mrr,
        r.recall_1,
        r.recall_5,
        r.mrr,
        ratio.map_or("–".to_owned(), |v| format!("{v:.3}")),
    );
    list(md, "found at 5 as written, not with the typo", &lost);
    md.push('\n');
    json!({
        "seed": seed,
        "recall@5": r.recall_5,
        "original_recall@5": original.recall_5,
        "ratio": ratio,
        "recall@1": r.recall_1,
        "original_recall@1": original.recall_1,
        "questions_with_typo": with_typo,
        "corrected": corrected,
        "restored": restored,
        "lost_at_5": lost,
    })
}

/// Checks `expect_mode`, `expect_sources` and `forbid_sources` where a question states them.
fn expectations(
    setup: &Setup<'_>,
    qs: &[&Question],
    answering: &metrics::Answering,
) -> Option<(String, Value)> {
    let index = &setup.built.index;
    let with: Vec<&&Question> = qs
        .iter()
        .filter(|q| {
            q.expect_mode.is_some() || !q.expect_sources.is_empty() || !q.forbid_sources.is_empty()
        })
        .collect();
    if with.is_empty() {
        return None;
    }
    let mut md = String::from(
        "### Expectations\n\n| id | expected mode | got | expected sources in top 5 | forbidden sources cited | pass |\n|---|---|---|---|---|---|\n",
    );
    let mut passed = 0;
    let mut rows = Vec::new();
    for q in with {
        let Some(outcome) = answering.outcomes.iter().find(|o| o.id == q.id) else {
            continue;
        };
        let got = mode_name(outcome.mode);
        let mode_ok = q.expect_mode.as_deref().is_none_or(|m| m == got);
        let top5: Vec<String> = setup
            .shipped(index, &q.question)
            .into_iter()
            .take(5)
            .filter_map(|f| index.fragments.get(f as usize))
            .filter_map(|f| index.docs.get(f.doc as usize))
            .map(|d| d.path.clone())
            .collect();
        // A public source must be retrieved; a private note must be routed to by its hint.
        let sources_ok = q
            .expect_sources
            .iter()
            .all(|s| match setup.private_labels.get(s) {
                Some(label) => outcome.hint_labels.contains(label),
                None => top5.contains(s),
            });
        let forbidden: Vec<&String> = outcome
            .cited
            .iter()
            .filter(|c| q.forbid_sources.contains(c))
            .collect();
        let pass = mode_ok && sources_ok && forbidden.is_empty();
        passed += usize::from(pass);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            q.id,
            q.expect_mode.as_deref().unwrap_or("–"),
            got,
            if sources_ok { "yes" } else { "no" },
            if forbidden.is_empty() {
                "none".to_owned()
            } else {
                format!("{forbidden:?}")
            },
            if pass { "pass" } else { "FAIL" }
        );
        rows.push(json!({ "id": q.id, "pass": pass, "mode": got }));
    }
    let _ = writeln!(md, "\n{passed} of {} pass.\n", rows.len());
    Some((
        md,
        json!({ "passed": passed, "total": rows.len(), "rows": rows }),
    ))
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Answer => "answer",
        Mode::RelatedMaterial => "related-material",
        _ => "not-found",
    }
}

fn row(md: &mut String, name: &str, r: &Retrieval) {
    let multi = r
        .multi_doc_all_pages_at_5
        .map_or("–".to_owned(), |v| format!("{v:.3}"));
    let _ = writeln!(
        md,
        "| {name} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {multi} | {:.0} | {:.0} |",
        r.n, r.recall_1, r.recall_3, r.recall_5, r.mrr, r.context_chars_at_3, r.context_chars_at_5
    );
}

fn list(md: &mut String, label: &str, ids: &[String]) {
    let shown = if ids.is_empty() {
        "none".to_owned()
    } else {
        ids.join(", ")
    };
    let _ = writeln!(md, "- {label} ({}): {shown}", ids.len());
}
