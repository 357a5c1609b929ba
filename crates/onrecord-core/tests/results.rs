//! Results (issue 41): the sections a visitor is shown under an answer or a decline and while
//! typing; typos read as the site's nearest words. "Question → sections, or none".

use onrecord_core::{
    AnswerConfig, Block, Decline, Index, IndexBuilder, IndexSettings, Lang, MAX_PER_PAGE, Mode,
    SourceDoc, SourceSection, ask, search_sections,
};
use proptest::prelude::*;

mod support;
use support::toy_model::{toy_model, with_toy_vectors};

fn section(heading: &str, text: &str) -> SourceSection {
    SourceSection {
        heading_path: vec![heading.into()],
        anchor: heading.to_lowercase().replace(' ', "-"),
        blocks: vec![Block::paragraph(text)],
    }
}

fn page(path: &str, title: &str, sections: Vec<SourceSection>) -> SourceDoc {
    SourceDoc {
        path: path.into(),
        url: format!("/{}/", path.trim_end_matches(".md")),
        title: title.into(),
        lang: Lang::English,
        themes: vec![],
        collection: None,
        sections,
    }
}

fn site() -> Index {
    let docs = [
        page(
            "server.md",
            "Server",
            vec![
                section(
                    "Compression",
                    "Responses are compressed with gzip when the client accepts it. \
                     Compression can be switched off per route.",
                ),
                section("Timeouts", "Idle connections are closed after 75 seconds."),
                section(
                    "Logging",
                    "Every request is logged with its status and duration.",
                ),
                section(
                    "Ports",
                    "The server listens on port 8080 unless PORT is set.",
                ),
            ],
        ),
        page(
            "deploy.md",
            "Deploying",
            vec![section(
                "Behind a proxy",
                "Put the server behind a reverse proxy that terminates TLS and forwards \
                 compressed responses unchanged.",
            )],
        ),
        page(
            "faq.md",
            "FAQ",
            vec![section(
                "Licence",
                "The project is free software under the MIT licence. The cache is ready \
                 when the first request catches up. You can rely on it.",
            )],
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &onrecord_core::chunk(doc, 800));
    }
    Index::from_bytes(&builder.finish().to_bytes([2; 32]).unwrap()).unwrap()
}

#[test]
fn typing_finds_sections_by_the_prefix_of_the_last_word() {
    let index = site();
    let found = search_sections(&index, None, "how is compr");
    assert!(!found.results.is_empty());
    assert_eq!(found.results[0].citation.url, "/server/#compression");
    let first = &found.results[0];
    for &(s, e) in &first.highlights {
        let word = &first.excerpt[s as usize..e as usize];
        assert!(word.to_lowercase().starts_with("compr"), "{word}");
    }
    assert!(!first.highlights.is_empty() || first.excerpt.contains("ompress"));
    // A finished word is not a prefix: "compr " names no word of the site.
    assert!(search_sections(&index, None, "compr ").results.is_empty());
}

#[test]
fn an_empty_or_one_letter_box_finds_nothing() {
    let index = site();
    for query in ["", " ", "c", "é", "\u{0}"] {
        let found = search_sections(&index, None, query);
        assert!(
            found.results.is_empty() && found.corrections.is_empty(),
            "{query:?}"
        );
    }
}

#[test]
fn a_typo_is_read_as_the_nearest_site_word_and_said() {
    let index = site();
    let found = search_sections(&index, None, "compresion settings");
    assert_eq!(found.results[0].citation.url, "/server/#compression");
    assert_eq!(found.corrections.len(), 1);
    assert_eq!(found.corrections[0].from, "compresion");
    assert!(found.corrections[0].to.starts_with("compress"));
    let found = search_sections(&index, None, "kubernetes");
    assert!(found.results.is_empty() && found.corrections.is_empty());
    // Close stems are not close words: "redis" is one edit from "readi" (the stem of "ready"),
    // "caching" from "catch"; neither is a typo of what a page writes.
    let found = search_sections(&index, None, "configure redis caching");
    assert!(found.corrections.is_empty(), "{:?}", found.corrections);
    // An answer without the query model reads the question as typed: nothing tells a typo
    // from a word the pages do not use.
    let answer = ask(&index, None, "compresion settings", &AnswerConfig::DEFAULT);
    assert!(answer.corrections.is_empty());
    // With it, a word its vocabulary holds whole is a word ("reply"), a typo is not.
    let model = toy_model(&["[UNK]", "reply", "compression"]);
    let found = search_sections(&index, Some(&model), "reply compresion");
    assert_eq!(found.corrections.len(), 1, "{:?}", found.corrections);
    assert_eq!(found.corrections[0].from, "compresion");
}

#[test]
fn a_decline_lists_the_sections_found_unless_the_pages_never_use_the_subject() {
    let index = site();
    // Never mentioned: no list.
    let answer = ask(
        &index,
        None,
        "How do I deploy to kubernetes?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::NotFound);
    match &answer.decline {
        Some(Decline::NeverMentioned { terms } | Decline::Missing { terms }) => {
            assert_eq!(terms, &["kubernetes"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(answer.results.is_empty());
    // A config that declines everything weighed, so only the list is left to look at.
    let mut declines = AnswerConfig::DEFAULT;
    declines.lexical.threshold = 1.1;
    let lists_timeouts = |question: &str| {
        let answer = ask(&index, None, question, &declines);
        assert_eq!(answer.mode, Mode::NotFound, "{question}");
        assert!(
            answer
                .results
                .iter()
                .any(|r| r.citation.url == "/server/#timeouts"),
            "{answer:?}"
        );
    };
    // A word no page uses that carries little of the question leaves the list.
    lists_timeouts("idle connections closed after seconds on my raspberry");
    // Unused words count as words, not by rarity: three casual ones beside four the pages
    // use still leave the list (a word no page uses is the rarest of all, and weighed so it
    // would hide it).
    lists_timeouts("idle connections closed after seconds when my flaky wifi drops");
    // Words the pages use, not answered by them: declined, with the sections that match.
    let answer = ask(&index, None, "compression of logged requests", &declines);
    assert_eq!(answer.mode, Mode::NotFound);
    assert!(!answer.results.is_empty());
    assert!(
        answer
            .results
            .iter()
            .any(|r| r.citation.url == "/server/#compression")
    );
}

#[test]
fn results_under_an_answer_never_repeat_its_quote() {
    let index = site();
    let mut config = AnswerConfig::DEFAULT;
    config.lexical.threshold = 0.0;
    let answer = ask(&index, None, "When are idle connections closed?", &config);
    assert_eq!(answer.mode, Mode::Answer);
    for r in &answer.results {
        assert!(answer.quotes.iter().all(|q| q.fragment != r.fragment));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(41), ..ProptestConfig::default() })]

    /// Whatever is typed: excerpts are verbatim slices of their fragments, highlights lie inside
    /// them on char boundaries, at most three sections of a page, each section once.
    #[test]
    fn results_are_verbatim_and_grouped(query in "[a-zA-Z é?]{0,40}") {
        let index = site();
        let found = search_sections(&index, None, &query);
        let mut urls: Vec<&str> = Vec::new();
        for r in &found.results {
            let fragment = index.fragment(r.fragment).unwrap();
            prop_assert!(fragment.text.contains(&r.excerpt));
            for &(s, e) in &r.highlights {
                prop_assert!(s < e && r.excerpt.get(s as usize..e as usize).is_some());
            }
            prop_assert!(!urls.contains(&r.citation.url.as_str()));
            urls.push(&r.citation.url);
        }
        for r in &found.results {
            let page = r.citation.title.as_str();
            prop_assert!(found.results.iter().filter(|o| o.citation.title == page).count() <= MAX_PER_PAGE);
        }
    }
}

/// With the query model, a mistyped question is decided as typed (a word no page uses), and
/// the results shown are for the word the pages write, with the correction named.
#[test]
fn a_typo_gets_results_for_the_site_word_and_the_decision_as_typed() {
    let mut index = site();
    let model = toy_model(&["[UNK]", "reply", "compression", "idle"]);
    with_toy_vectors(&mut index, &model);
    let answer = ask(&index, Some(&model), "compresion", &AnswerConfig::DEFAULT);
    assert!(matches!(
        answer.decline,
        Some(Decline::NeverMentioned { .. })
    ));
    assert_eq!(answer.corrections.len(), 1);
    assert_eq!(answer.results[0].citation.url, "/server/#compression");
    let without = ask(&index, None, "compresion", &AnswerConfig::DEFAULT);
    assert!(without.results.is_empty() && without.corrections.is_empty());
}

/// Release notes match almost any question and answer almost none: the answerer sets them
/// aside, and the results list them after the pages it would quote, even where they rank
/// higher.
#[test]
fn set_aside_pages_are_listed_after_the_quotable_ones() {
    let notes = SourceDoc {
        sections: vec![SourceSection {
            heading_path: vec!["Version 2.4.0".into()],
            anchor: "version-2-4-0".into(),
            blocks: (0..30)
                .map(|i| Block {
                    kind: onrecord_core::BlockKind::ListItem,
                    text: format!("Compression of cached responses fixed for gzip ({i})."),
                })
                .collect(),
        }],
        ..page("changes.md", "Changes", vec![])
    };
    let guide = page(
        "cache.md",
        "Cache",
        vec![section(
            "Storage",
            "Compression of cached responses is on; they are kept on disk for an hour.",
        )],
    );
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in [&notes, &guide] {
        let kind = onrecord_core::page_kind(doc);
        builder.add_page(doc, &onrecord_core::chunk(doc, 800), kind);
    }
    let mut index = Index::from_bytes(&builder.finish().to_bytes([3; 32]).unwrap()).unwrap();
    let mut declines = AnswerConfig::DEFAULT;
    declines.lexical.threshold = 1.1;
    declines.hybrid.threshold = 1.1;
    let guide_first = |answer: &onrecord_core::Answer| {
        let urls: Vec<&str> = answer
            .results
            .iter()
            .map(|r| r.citation.url.as_str())
            .collect();
        let at = |prefix: &str| urls.iter().position(|u| u.starts_with(prefix));
        assert!(at("/changes/").is_some(), "{urls:?}");
        assert!(at("/cache/") < at("/changes/"), "{urls:?}");
    };
    guide_first(&ask(
        &index,
        None,
        "compression of cached responses",
        &declines,
    ));
    // A typo's results, for the word the pages write, in the same order: with words the
    // pages use beside it, and alone.
    let model = toy_model(&["[UNK]", "compression", "cached", "responses"]);
    with_toy_vectors(&mut index, &model);
    for typed in ["compresion of cached responses", "compresion"] {
        let answer = ask(&index, Some(&model), typed, &declines);
        assert_eq!(answer.corrections.len(), 1, "{typed}: {answer:?}");
        guide_first(&answer);
    }
}

/// A result's excerpt is the unit with most of the question's words; on a tie, the one that
/// holds two of them side by side as the question does: "Zone 4 | …" for "delivery zone 4
/// price", not the first row, whose "4" is in "2–4 working days".
#[test]
fn an_excerpt_prefers_the_row_that_holds_the_question_s_words_together() {
    let mut fees = section("Delivery zones", "");
    fees.blocks = vec![Block {
        kind: onrecord_core::BlockKind::Table,
        text: "Zone | Area | Fee | Delivery time\n\
               Zone 1 | Within 15 km | Free | 2–4 working days\n\
               Zone 2 | The region | EUR 49 | 3–5 working days\n\
               Zone 4 | Selected EU countries | EUR 229 | 8–14 working days"
            .into(),
    }];
    let docs = [page("shipping.md", "Shipping", vec![fees])];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &onrecord_core::chunk(doc, 800));
    }
    let index = Index::from_bytes(&builder.finish().to_bytes([3; 32]).unwrap()).unwrap();
    let found = search_sections(&index, None, "delivery zone 4 price");
    assert!(
        found.results[0].excerpt.starts_with("Zone 4 |"),
        "{:?}",
        found.results[0].excerpt
    );
}
