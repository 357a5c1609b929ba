//! The harness on the committed question sets: every file checks, and a run writes the
//! EVAL.md JSON fields. The full tables come from `eval/run.sh`, not from `cargo test`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shared corpora sit beside the checkout (../shared), as in CI.
fn shared(rel: &str) -> PathBuf {
    let path = root().join("../shared/corpora").join(rel);
    assert!(
        path.is_dir(),
        "{} is missing: the shared corpora must sit beside the checkout",
        path.display()
    );
    path
}

/// A fresh folder under the system temp dir, removed when the value drops (pass or fail).
fn scratch(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(prefix).tempdir().unwrap()
}

fn eval(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_eval"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(corpus: &Path, questions: &str) {
    check_with(corpus, questions, &[]);
}

/// `check` with more arguments (a registry entry's `--include-root`).
fn check_with(corpus: &Path, questions: &str, more: &[&str]) {
    let mut args = vec![
        "--corpus",
        corpus.to_str().unwrap(),
        "--questions",
        questions,
        "--check",
    ];
    args.extend(more);
    let (ok, stdout, stderr) = eval(&args);
    assert!(ok, "{questions}: {stderr}");
    assert!(stdout.contains("all evidence phrases found"), "{stdout}");
}

#[test]
fn the_demo_question_set_checks() {
    check(&root().join("corpus"), "eval/questions/corpus.json");
}

/// Every set of the cross-corpus protocol (`eval/corpora.json`; the Black, Flask and BorgBackup
/// docs are fetched by scripts/setup.sh), terse and typed sets included, so a reader change that
/// loses an evidence phrase is caught.
#[test]
fn the_cross_corpus_question_sets_check() {
    let registry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("eval/corpora.json")).unwrap())
            .unwrap();
    let corpora = registry["corpora"].as_array().unwrap();
    assert!(corpora.len() >= 7, "{registry}");
    for c in corpora {
        let corpus = root().join(c["corpus"].as_str().unwrap());
        let include = c["include_root"].as_str().map(|d| root().join(d));
        let more: Vec<&str> = include
            .iter()
            .flat_map(|d| ["--include-root", d.to_str().unwrap()])
            .collect();
        check_with(&corpus, c["questions"].as_str().unwrap(), &more);
        if let Some(terse) = c["terse"].as_str() {
            check_with(&corpus, terse, &more);
        }
        if let Some(typed) = c["typed"].as_str() {
            check_with(&corpus, typed, &more);
            typed_kinds(typed);
        }
    }
    assert!(corpora.iter().filter(|c| c["terse"].is_string()).count() >= 4);
    // Every corpus has a typed set (issue 41).
    assert!(corpora.iter().all(|c| c["typed"].is_string()), "{registry}");
}

/// A typed set labels every answerable question with the kind of answer it asks for, from the
/// five the report breaks down, and none of the unanswerable ones.
fn typed_kinds(typed: &str) {
    let questions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(typed)).unwrap()).unwrap();
    for q in questions.as_array().unwrap() {
        let asks = q["asks"].as_str();
        if q["type"] == "unanswerable" {
            assert_eq!(asks, None, "{typed}: {q}");
        } else {
            assert!(
                matches!(
                    asks,
                    Some("how-to" | "default" | "definition" | "yes-no" | "why")
                ),
                "{typed}: {q}"
            );
        }
    }
}

#[test]
fn the_express_question_set_checks() {
    check(
        &shared("express/astro-5x/src/content/docs/en/5x"),
        "eval/questions/express.json",
    );
}

#[test]
fn the_follow_up_sets_check() {
    for (corpus, questions, followups) in [
        (
            root().join("corpus"),
            "eval/questions/corpus.json",
            "eval/questions/followups-corpus.json",
        ),
        (
            shared("express/astro-5x/src/content/docs/en/5x"),
            "eval/questions/express.json",
            "eval/questions/followups-express.json",
        ),
    ] {
        let (ok, stdout, stderr) = eval(&[
            "--corpus",
            corpus.to_str().unwrap(),
            "--questions",
            questions,
            "--followups",
            followups,
            "--check",
        ]);
        assert!(ok, "{followups}: {stderr}");
        assert!(
            stdout.contains("follow-up pairs, all evidence phrases found"),
            "{stdout}"
        );
    }
    check(
        &root().join("corpus"),
        "eval/questions/corpus-decisions.json",
    );
}

#[test]
fn a_broken_follow_up_file_is_refused_with_reasons() {
    let dir = scratch("onrecord-eval-f-");
    let file = dir.path().join("f.json");
    std::fs::write(
        &file,
        r#"[{"id":"a","kind":"explanation","first":"q?","followup":"why?"},
            {"id":"a","kind":"malformed","first":"q?","followup":"and?","resolved":"and?"},
            {"id":"b","kind":"refinement","first":"q?","followup":"and?","resolved":"q?","evidence":[{"file":"faq.md","phrase":"these six words are not there"}]}]"#,
    )
    .unwrap();
    let (ok, _, stderr) = eval(&[
        "--corpus",
        "corpus",
        "--questions",
        "eval/questions/corpus.json",
        "--followups",
        file.to_str().unwrap(),
        "--check",
    ]);
    assert!(!ok);
    for problem in [
        "a: explanation without scope",
        "a: duplicate id",
        "a: context is for malformed pairs, and they need one",
        "b: phrase not found in faq.md",
    ] {
        assert!(stderr.contains(problem), "{problem}: {stderr}");
    }
}

#[test]
fn the_person_a_question_set_checks() {
    check(
        &shared("person-a/example-content"),
        "eval/questions/person-a.json",
    );
}

#[test]
fn a_broken_question_file_is_refused_with_reasons() {
    let dir = scratch("onrecord-eval-");
    let file = dir.path().join("q.json");
    std::fs::write(
        &file,
        r#"[{"id":"a","type":"lookup","question":"q?","evidence":[{"file":"faq.md","phrase":"these six words are not there"}]},
            {"id":"a","type":"unanswerable","question":"q?","evidence":[]}]"#,
    )
    .unwrap();
    let (ok, _, stderr) = eval(&[
        "--corpus",
        "corpus",
        "--questions",
        file.to_str().unwrap(),
        "--check",
    ]);
    assert!(!ok);
    assert!(stderr.contains("a: phrase not found in faq.md"), "{stderr}");
    assert!(stderr.contains("a: duplicate id"), "{stderr}");
}

#[test]
fn a_run_writes_the_protocol_json() {
    let dir = scratch("onrecord-eval-");
    let out = dir.path().join("out.json");
    let (ok, stdout, stderr) = eval(&[
        "--corpus",
        "corpus",
        "--questions",
        "eval/questions/corpus.json",
        "--split",
        "test",
        "--json",
        out.to_str().unwrap(),
        "--followups",
        "eval/questions/followups-corpus.json",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("### Retrieval ablation"), "{stdout}");
    assert!(stdout.contains("### Follow-ups"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["split"], "test");
    for field in ["recall@1", "recall@3", "recall@5", "mrr"] {
        let v = json["retrieval"][field].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{field} = {v}");
    }
    for field in [
        "answerable_correct",
        "answerable_wrong",
        "quote_hit",
        "unanswerable_declined",
        "balanced_accuracy",
    ] {
        let v = json["answering"][field].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&v), "{field} = {v}");
    }
    assert!(json["index_bytes"].as_u64().unwrap() > 0);
    visitor_fields(&json);
    for label in ["high", "medium", "low"] {
        assert!(json["confidence"][label]["n"].as_u64().is_some(), "{json}");
    }
    let modes = &json["modes"];
    let replies: u64 = ["supported", "partial", "related-material", "not-found"]
        .iter()
        .map(|m| modes[m].as_u64().unwrap())
        .sum();
    assert_eq!(replies, json["questions"].as_u64().unwrap(), "{modes}");
    let followups = &json["followups"];
    let resolved = followups["resolved"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&resolved), "{followups}");
    assert!(followups["subject_leaks"].as_u64().is_some(), "{followups}");
    for kind in [
        "refinement",
        "explanation",
        "new-subject",
        "pronoun",
        "malformed",
    ] {
        assert!(
            followups["by_kind"][kind]["n"].as_u64().unwrap() > 0,
            "{kind}: {followups}"
        );
    }
    assert!(
        json["latency_ms"]["p95"].as_f64().unwrap() >= json["latency_ms"]["p50"].as_f64().unwrap()
    );
}

/// A built HTML site is a corpus: the question file names markdown sources (`guide/refunds.md`),
/// the evidence is looked for on the built page (`guide/refunds.html`) as the build reads it
/// (typographic quotes folded), and text outside the page's content (its menu) is no evidence.
#[test]
fn a_built_site_answers_the_questions_written_for_its_markdown() {
    let tmp = scratch("onrecord-eval-site-");
    let dir = tmp.path();
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("guide")).unwrap();
    std::fs::write(
        site.join("guide/refunds.html"),
        "<html lang=\"en\"><body><nav>Every page of the shop guide, listed in order here</nav><main>\
         <h1 id=\"refunds\">Refunds</h1><section id=\"timing\"><h2>Timing</h2>\
         <p>Refunds arrive within fourteen days, and we don\u{2019}t charge for return postage.</p>\
         </section></main></body></html>",
    )
    .unwrap();
    std::fs::write(
        site.join("index.html"),
        "<html><body><main><h1>Shop</h1><p>Welcome to the shop pages.</p></main></body></html>",
    )
    .unwrap();
    let questions = dir.join("q.json");
    std::fs::write(
        &questions,
        r#"[{"id":"r1","type":"lookup","question":"When do refunds arrive?",
             "evidence":[{"file":"guide/refunds.md","phrase":"Refunds arrive within fourteen days, and we don't charge"}]},
            {"id":"u1","type":"unanswerable","question":"Do you ship to the moon?","evidence":[]}]"#,
    )
    .unwrap();
    let site_arg = site.to_str().unwrap();
    let (ok, stdout, stderr) = eval(&[
        "--corpus",
        site_arg,
        "--questions",
        questions.to_str().unwrap(),
        "--check",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("all evidence phrases found"), "{stdout}");
    let json = dir.join("out.json");
    let (ok, _, stderr) = eval(&[
        "--corpus",
        site_arg,
        "--questions",
        questions.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(json["retrieval"]["recall@1"].as_f64(), Some(1.0), "{json}");
    assert_eq!(
        json["answering"]["answerable_correct"].as_f64(),
        Some(1.0),
        "{json}"
    );

    // A phrase only the menu carries is not on the page.
    std::fs::write(
        &questions,
        r#"[{"id":"n1","type":"lookup","question":"What is listed?",
             "evidence":[{"file":"guide/refunds.md","phrase":"Every page of the shop guide, listed in order"}]}]"#,
    )
    .unwrap();
    let (ok, _, stderr) = eval(&[
        "--corpus",
        site_arg,
        "--questions",
        questions.to_str().unwrap(),
        "--check",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("n1: phrase not found in guide/refunds.html"),
        "{stderr}"
    );
}

/// The `"visitor"` object: the four answerable outcomes are shares that sum to 1, `useful` is
/// the first two, false answers a count beside its rate.
fn visitor_fields(json: &serde_json::Value) {
    let v = &json["visitor"];
    let share = |field: &str| {
        let x = v[field]
            .as_f64()
            .unwrap_or_else(|| panic!("visitor.{field}: {v}"));
        assert!((0.0..=1.0).contains(&x), "{field} = {x}");
        x
    };
    let outcomes: f64 = [
        "answer_hit",
        "answer_miss",
        "results_hit@3",
        "nothing_useful",
    ]
    .iter()
    .map(|f| share(f))
    .sum();
    assert!((outcomes - 1.0).abs() < 1e-9, "{v}");
    assert!((share("useful") - share("answer_hit") - share("results_hit@3")).abs() < 1e-9);
    share("false_answer_rate");
    assert!(v["false_answers"].as_u64().is_some(), "{v}");
}

/// A typed question set on a tiny site, with a typo copy: the visitor outcomes, the per-`asks`
/// breakdown and the typo copy's recall beside the original's.
#[test]
fn a_typed_set_reports_each_kind_and_a_typo_copy() {
    let tmp = scratch("onrecord-eval-typed-");
    let dir = tmp.path();
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("returns.md"),
        "# Returns\n\n## Sending a bike back\n\nEmail the returns desk with your order number and we send a prepaid collection label within two working days.\n\n## Refund timing\n\nRefunds arrive within fourteen days of the collection, on the card you paid with.\n",
    )
    .unwrap();
    std::fs::write(
        site.join("warranty.md"),
        "# Warranty\n\nEvery frame carries a warranty of ten years against cracks and broken welds, registered or not.\n\n## Batteries\n\nBatteries are covered for two years or eight hundred charging cycles, whichever comes first.\n",
    )
    .unwrap();
    let questions = dir.join("typed.json");
    std::fs::write(
        &questions,
        r#"[{"id":"h1","type":"lookup","asks":"how-to","question":"send bike back returns",
             "evidence":[{"file":"returns.md","phrase":"Email the returns desk with your order number"}]},
            {"id":"d1","type":"lookup","asks":"default","question":"battery warranty charging cycles",
             "evidence":[{"file":"warranty.md","phrase":"Batteries are covered for two years or eight hundred charging cycles"}]},
            {"id":"d2","type":"lookup","asks":"default","question":"refund timing fourteen days",
             "evidence":[{"file":"returns.md","phrase":"Refunds arrive within fourteen days of the collection"}]},
            {"id":"u1","type":"unanswerable","question":"ship bikes to Canada","evidence":[]}]"#,
    )
    .unwrap();
    let out = dir.join("out.json");
    let (ok, stdout, stderr) = eval(&[
        "--corpus",
        site.to_str().unwrap(),
        "--questions",
        questions.to_str().unwrap(),
        "--lexical",
        "--typos",
        "7",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("### What the visitor sees"), "{stdout}");
    assert!(stdout.contains("### Typo copy (seed 7)"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    visitor_fields(&json);
    assert_eq!(json["visitor"]["answerable"], 3, "{json}");
    assert_eq!(json["visitor"]["unanswerable"], 1, "{json}");
    let by_asks = &json["by_asks"];
    assert_eq!(by_asks["how-to"]["answerable"], 1, "{by_asks}");
    assert_eq!(by_asks["default"]["answerable"], 2, "{by_asks}");
    assert!(by_asks.get("why").is_none(), "{by_asks}");
    let typos = &json["typos"];
    assert_eq!(typos["seed"], 7, "{typos}");
    assert_eq!(typos["questions_with_typo"], 4, "{typos}");
    let (typo, original) = (
        typos["recall@5"].as_f64().unwrap(),
        typos["original_recall@5"].as_f64().unwrap(),
    );
    assert_eq!(original, json["retrieval"]["recall@5"].as_f64().unwrap());
    assert!(original > 0.0, "{json}");
    let ratio = typos["ratio"].as_f64().unwrap();
    assert!((ratio - typo / original).abs() < 1e-9, "{typos}");

    // The same seed makes the same copy.
    let again = dir.join("again.json");
    let (ok, _, stderr) = eval(&[
        "--corpus",
        site.to_str().unwrap(),
        "--questions",
        questions.to_str().unwrap(),
        "--lexical",
        "--typos",
        "7",
        "--json",
        again.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(again["typos"], json["typos"]);
}
