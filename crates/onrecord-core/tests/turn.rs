//! Follow-ups through `ask_turn`: a malformed context never changes a standalone answer
//! (property test), and evidence inherited from the previous turn never raises confidence.

use onrecord_core::{
    AnswerConfig, Block, Confidence, Decline, FORMAT_VERSION, FollowUp, Index, IndexBuilder,
    IndexSettings, Lang, MAX_CONTEXT_FRAGMENTS, MAX_CONTEXT_QUESTION, MAX_QUESTION_CHARS,
    SourceDoc, SourceSection, TurnContext, ask, ask_turn, chunk,
};
use proptest::prelude::*;

fn doc(path: &str, sections: &[(&str, &str)]) -> SourceDoc {
    SourceDoc {
        path: format!("{path}.md"),
        url: format!("/{path}/"),
        title: path.into(),
        lang: Lang::English,
        themes: vec![],
        collection: None,
        sections: sections
            .iter()
            .map(|(heading, text)| SourceSection {
                heading_path: vec![(*heading).to_owned()],
                anchor: heading.to_lowercase(),
                blocks: vec![Block::paragraph(*text)],
            })
            .collect(),
    }
}

fn index() -> Index {
    let docs = [
        doc(
            "returns",
            &[
                (
                    "Bikes",
                    "You can return a bike within 30 days of delivery: the return window for bikes is 30 days long.",
                ),
                (
                    "Parts",
                    "Unused parts can be returned within 60 days: the return window for parts is 60 days long.",
                ),
            ],
        ),
        doc(
            "delivery",
            &[
                (
                    "Fees",
                    "Delivery to zone 2 costs EUR 95. Delivery within zone 1 is free.",
                ),
                ("Times", "A delivery takes two to four working days."),
            ],
        ),
        doc(
            "care",
            &[(
                "Plans",
                "Care Plus costs EUR 19 a month and includes one full service per year.",
            )],
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for d in &docs {
        builder.add(d, &chunk(d, 800));
    }
    Index::from_bytes(&builder.finish().to_bytes([3; 32]).unwrap()).unwrap()
}

const WORDS: &[&str] = &[
    "how", "long", "return", "bike", "parts", "delivery", "zone", "costs", "why", "it", "and",
    "for", "what", "about", "Care", "Plus", "the", "?", "warum", "und", "days", "free",
];

/// Ways a context can be wrong, each of which must leave the question standalone.
fn malformed(index: &Index, kind: u8, question: String, fragments: Vec<u32>) -> TurnContext {
    let good = TurnContext::new(index, &question, fragments);
    match kind % 5 {
        0 => TurnContext {
            version: FORMAT_VERSION + 1 + u32::from(kind),
            ..good
        },
        1 => TurnContext {
            index: format!("{kind:016x}"),
            ..good
        },
        2 => TurnContext {
            question: question.repeat(MAX_CONTEXT_QUESTION + 1),
            ..good
        },
        3 => TurnContext {
            fragments: vec![0; MAX_CONTEXT_FRAGMENTS + 1 + usize::from(kind)],
            ..good
        },
        _ => TurnContext {
            question: " ".repeat(usize::from(kind)),
            ..good
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn a_malformed_context_never_changes_a_standalone_answer(
        question in proptest::collection::vec(proptest::sample::select(WORDS), 0..8),
        previous in proptest::collection::vec(proptest::sample::select(WORDS), 1..8),
        fragments in proptest::collection::vec(0u32..20, 0..4),
        kind in any::<u8>(),
    ) {
        let index = index();
        let question = question.join(" ");
        let context = malformed(&index, kind, previous.join(" "), fragments);
        let config = AnswerConfig::DEFAULT;
        let reply = ask_turn(&index, None, &question, Some(&context), &config);
        prop_assert_eq!(reply.turn.kind, FollowUp::Standalone);
        prop_assert_eq!(&reply.turn.question, &question);
        prop_assert_eq!(reply.answer, ask(&index, None, &question, &config));
    }
}

#[test]
fn the_reply_carries_the_context_of_this_turn() {
    let index = index();
    let config = AnswerConfig::DEFAULT;
    let first = ask_turn(
        &index,
        None,
        "How long do I have to return a bike?",
        None,
        &config,
    );
    assert_eq!(first.turn.kind, FollowUp::Standalone);
    // The quoted fragments, then the other matching sections listed under the answer.
    let used: Vec<u32> = (first.answer.quotes.iter().map(|q| q.fragment))
        .chain(first.answer.related.iter().map(|s| s.fragment))
        .collect();
    assert!(!first.answer.quotes.is_empty(), "{:?}", first.answer);
    assert_eq!(first.context.fragments, used);
    assert_eq!(
        first.context.question,
        "How long do I have to return a bike?"
    );
    assert_eq!(first.context.version, FORMAT_VERSION);
    let next = ask_turn(
        &index,
        None,
        "And for parts?",
        Some(&first.context),
        &config,
    );
    assert_eq!(next.turn.kind, FollowUp::Refinement);
    assert_eq!(next.context.question, next.turn.question);
}

/// A decline quotes nothing, but its context carries the fragments it weighed: "why?" after
/// it is an explanation scoped to their pages (it was read as a new question before).
#[test]
fn why_after_a_decline_looks_where_the_question_led() {
    let index = index();
    let config = AnswerConfig::DEFAULT;
    let first = ask_turn(
        &index,
        None,
        "Is delivery to zone 2 free on Sundays?",
        None,
        &config,
    );
    assert!(first.answer.quotes.is_empty(), "{:?}", first.answer);
    assert!(!first.context.fragments.is_empty(), "{:?}", first.context);
    let why = ask_turn(&index, None, "Why not?", Some(&first.context), &config);
    assert_eq!(why.turn.kind, FollowUp::Explanation);
    let delivery = index.docs.iter().position(|d| d.path == "delivery.md");
    let scope = why.turn.scope.expect("an explanation has a scope");
    assert!(
        delivery.is_some_and(|d| scope.docs.contains(&(d as u32))),
        "{scope:?}"
    );
}

/// A question that cannot be asked is not read as a follow-up: it stands alone and is declined
/// as asked, as `ask` declines it.
#[test]
fn a_question_that_cannot_be_asked_is_not_a_follow_up() {
    let index = index();
    let config = AnswerConfig::DEFAULT;
    let first = ask_turn(
        &index,
        None,
        "How long do I have to return a bike?",
        None,
        &config,
    );
    for question in [
        format!("And for parts?{}", " and".repeat(MAX_QUESTION_CHARS)),
        "And for parts?\u{7}".to_owned(),
    ] {
        let reply = ask_turn(&index, None, &question, Some(&first.context), &config);
        assert_eq!(reply.turn.kind, FollowUp::Standalone, "{question:?}");
        assert_eq!(reply.answer, ask(&index, None, &question, &config));
        assert!(
            matches!(reply.answer.decline, Some(Decline::BadQuestion(_))),
            "{:?}",
            reply.answer
        );
    }
}

/// The previous turn's words find the return window with confidence; "What about it?" has no
/// words of its own that find anything, so the follow-up's confidence is capped at low.
#[test]
fn inherited_evidence_never_raises_confidence() {
    let index = index();
    let config = AnswerConfig::DEFAULT;
    let first = ask_turn(
        &index,
        None,
        "What is the return window for bikes?",
        None,
        &config,
    );
    let reply = ask_turn(
        &index,
        None,
        "What about it?",
        Some(&first.context),
        &config,
    );
    assert_eq!(reply.turn.kind, FollowUp::Pronoun);
    assert_eq!(reply.turn.question, "What about the return window?");
    let inherited = ask(&index, None, &reply.turn.question, &config);
    assert!(
        matches!(
            inherited.confidence,
            Some(Confidence::High | Confidence::Medium)
        ),
        "{inherited:?}"
    );
    assert_eq!(
        ask(&index, None, "What about it?", &config).confidence,
        None
    );
    assert_eq!(reply.answer.quotes, inherited.quotes);
    assert_eq!(reply.answer.confidence, Some(Confidence::Low));
}

/// Two decision records each carry half of a compound question: with the collection's cap
/// at 1 the answer quotes one of them, with 3 both; every quote names its collection.
#[test]
fn an_answer_takes_at_most_cap_quotes_from_a_collection() {
    let build = |cap: u32| {
        let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
        builder.declare_collection(onrecord_core::Collection {
            name: "decisions".into(),
            label: "Why we chose".into(),
            cap,
        });
        for (path, text) in [
            (
                "fee",
                "There is a booking fee because booked slots went unused.",
            ),
            (
                "deadline",
                "The cancellation deadline is 24 hours because mechanics plan the day ahead.",
            ),
        ] {
            let d = SourceDoc {
                collection: Some("decisions".into()),
                ..doc(path, &[("Why", text)])
            };
            builder.add(&d, &chunk(&d, 800));
        }
        Index::from_bytes(&builder.finish().to_bytes([5; 32]).unwrap()).unwrap()
    };
    let question = "Why is there a booking fee, and why is the cancellation deadline 24 hours?";
    // Whatever the decline model makes of it: the cap is what is tested.
    let config = AnswerConfig {
        lexical: onrecord_core::DeclineModel {
            threshold: 0.0,
            ..AnswerConfig::DEFAULT.lexical
        },
        ..AnswerConfig::DEFAULT
    };
    let both = ask(&build(3), None, question, &config);
    assert_eq!(both.quotes.len(), 2, "{both:?}");
    let capped = ask(&build(1), None, question, &config);
    assert_eq!(capped.quotes.len(), 1, "{capped:?}");
    assert_eq!(capped.quotes[0].text, both.quotes[0].text);
    let collection = capped.quotes[0].citation.collection.as_ref().unwrap();
    assert_eq!(
        (collection.name.as_str(), collection.label.as_str()),
        ("decisions", "Why we chose")
    );
}

/// Decision records answer "why", never a question of fact: their history would mislead. Here
/// the record carries more of the question's words than the guide does.
#[test]
fn decision_records_are_quoted_only_for_why_questions() {
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    let decision = SourceDoc {
        collection: Some("decisions".into()),
        ..doc(
            "warranty-decision",
            &[(
                "Context",
                "Until 2024 the frame warranty was three years long, because frames were new.",
            )],
        )
    };
    let guide = doc(
        "warranty",
        &[("Frames", "Frames are covered for five years.")],
    );
    for d in [&decision, &guide] {
        builder.add(d, &chunk(d, 800));
    }
    let index = Index::from_bytes(&builder.finish().to_bytes([6; 32]).unwrap()).unwrap();
    let config = AnswerConfig::DEFAULT;
    let fact = ask(&index, None, "How long is the frame warranty?", &config);
    assert!(
        fact.quotes
            .iter()
            .all(|q| q.citation.title != "warranty-decision"),
        "{fact:?}"
    );
    let why = ask(
        &index,
        None,
        "Why was the frame warranty three years long?",
        &config,
    );
    assert_eq!(
        why.quotes.first().map(|q| q.citation.title.as_str()),
        Some("warranty-decision"),
        "{why:?}"
    );
}
