//! End-to-end over the demo corpus in `corpus/`: build, decode, answer, decline.

use std::path::{Path, PathBuf};

use build_index::{Options, build};
use onrecord_core::{Answer, AnswerConfig, Decline, Index, Mode, ask};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

fn demo_index() -> (Index, Vec<u8>) {
    let built = build(&corpus(), &Options::standard()).expect("demo corpus builds");
    (built.index, built.bytes)
}

fn answer(question: &str) -> Answer {
    let (_, bytes) = demo_index();
    let index = Index::from_bytes(&bytes).expect("demo index decodes");
    ask(&index, None, question, &AnswerConfig::DEFAULT)
}

#[test]
fn the_written_index_decodes_to_the_built_one() {
    let (index, bytes) = demo_index();
    assert_eq!(Index::from_bytes(&bytes).unwrap(), index);
}

#[test]
fn builds_are_byte_identical() {
    let (_, a) = demo_index();
    let (_, b) = demo_index();
    assert_eq!(a, b);
}

#[test]
fn answers_with_a_verbatim_quote_and_its_citation() {
    let a = answer("How many days do I have to return a bike?");
    assert_eq!(a.mode, Mode::Answer, "{a:?}");
    let q = &a.quotes[0];
    assert_eq!(q.citation.url, "/shop/returns/#bikes");
    assert_eq!(q.citation.title, "Returns and refunds");
    assert_eq!(q.citation.section, "Time limits › Bikes");
    assert!(q.text.contains("30 days"), "{}", q.text);
    // The quote is the stored fragment's bytes at the stored offsets.
    let (index, _) = demo_index();
    let frag = &index.fragments[q.fragment as usize];
    assert_eq!(&frag.text[q.start as usize..q.end as usize], q.text);
}

#[test]
fn answers_german_pages_in_german() {
    let a = answer("Wann erstatten Sie den Betrag nach einer Rückgabe?");
    assert_eq!(a.mode, Mode::Answer, "{a:?}");
    assert!(
        a.quotes[0].citation.url.starts_with("/de/rueckgabe/"),
        "{a:?}"
    );
}

#[test]
fn declines_an_out_of_corpus_question_and_names_the_missing_words() {
    let a = answer("What is the capital of France?");
    assert_eq!(a.mode, Mode::NotFound);
    assert!(a.quotes.is_empty());
    assert_eq!(
        a.decline,
        Some(Decline::NeverMentioned {
            terms: vec!["capital".into(), "France".into()]
        })
    );
}

#[test]
fn declines_a_near_miss_that_the_pages_do_not_cover() {
    let a = answer("How do I configure Redis caching for larkctl?");
    assert_eq!(a.mode, Mode::NotFound, "{a:?}");
    assert!(a.missing_terms.contains(&"Redis".to_string()));
}

#[test]
fn drafts_are_left_out() {
    let (index, _) = demo_index();
    assert!(index.docs.iter().all(|d| d.path != "news/heron-preview.md"));
    assert_eq!(
        answer("When can I pre-order the Larkspur Heron?").mode,
        Mode::NotFound
    );
}

#[test]
fn a_superseded_page_is_never_cited_its_successor_is() {
    let (index, _) = demo_index();
    assert!(index.docs.iter().all(|d| d.path != "shop/warranty-2023.md"));
    // Which page is cited, not whether the fitted decline answers: quote whenever there is
    // a quote (the eval measures the decline).
    let mut quote_always = AnswerConfig::DEFAULT;
    quote_always.lexical.threshold = 0.0;
    let (_, bytes) = demo_index();
    let index = Index::from_bytes(&bytes).expect("demo index decodes");
    let a = ask(
        &index,
        None,
        "How many years is the frame warranty?",
        &quote_always,
    );
    assert_eq!(a.mode, Mode::Answer, "{a:?}");
    assert!(
        a.quotes[0].citation.url.starts_with("/shop/warranty/"),
        "{a:?}"
    );
    // The page says it in prose ("five years") and in its coverage table ("5 years").
    let text = &a.quotes[0].text;
    assert!(
        text.contains("five years") || text.contains("| 5 years |"),
        "{a:?}"
    );
}

#[test]
fn private_note_bodies_never_reach_the_index() {
    let (index, bytes) = demo_index();
    let private = corpus().join("private");
    let mut checked = 0;
    for entry in std::fs::read_dir(&private).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let body = text.splitn(3, "---").nth(2).unwrap();
        // Every run of six words of a private body must be absent from the index bytes and
        // from every decoded fragment.
        let words: Vec<&str> = body.split_whitespace().collect();
        for window in words.windows(6) {
            let needle = window.join(" ");
            assert!(
                !contains(&bytes, needle.as_bytes()),
                "index bytes contain {needle:?}"
            );
            assert!(
                index.fragments.iter().all(|f| !f.text.contains(&needle)),
                "{needle:?}"
            );
            checked += 1;
        }
    }
    assert!(
        checked > 100,
        "the private notes should have bodies to check"
    );
    // Words that only the private notes use.
    for word in ["Quennell", "Dovecote", "Gullhaven", "Kettleby"] {
        assert!(!contains(&bytes, word.as_bytes()), "{word}");
        assert!(!contains(&bytes, word.to_lowercase().as_bytes()), "{word}");
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn empty_stopword_nonsense_and_very_long_input_get_a_decline_never_an_error() {
    for question in [
        "",
        "   ",
        "?!…",
        "what is it and how is it?",
        "zxqv blorft wibble",
    ] {
        let a = answer(question);
        assert_eq!(a.mode, Mode::NotFound, "{question:?}: {a:?}");
        assert!(a.quotes.is_empty() && a.related.is_empty());
    }
    assert_eq!(answer("what is it?").decline, Some(Decline::NoContentWords));
    // 200 KB of a repeated page word: bounded work, an answer or a decline, no panic.
    let long = "warranty frame battery ".repeat(9_000);
    let a = answer(&long);
    assert!(a.decline.is_some() || !a.quotes.is_empty());
    let junk: String = (0..20_000)
        .map(|i| char::from_u32(0x20 + (i * 7919) % 0x2fff).unwrap_or(' '))
        .collect();
    let a = answer(&junk);
    assert!(a.decline.is_some() || !a.quotes.is_empty());
}
