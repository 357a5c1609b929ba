//! Bounded, fixed-seed property runs over the core's four hostile-input entry points, the same
//! ones `fuzz/` fuzzes without a bound (issue 14): the index decoder with `ask` on what decodes,
//! the query-model decoder, `verify_quote`, and the visitor-file reader. Fixed seeds make every
//! run the same; the case counts keep this file to seconds in a debug build.

mod support;

use onrecord_core::{HEADER_LEN, Index, Lang, PlainFile, QueryModel, index_documents};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use support::fixture::{QUESTIONS, ask_everything, fixture, model_bytes, with_header};
use support::invariants::check_verified;

fn fixed(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A byte-level edit.
#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Copies a run of the input over another place (postcard lengths and strings move).
    Splice(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Set(a, b)),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..6)).prop_map(|(a, b)| Edit::Insert(a, b)),
        1 => (any::<usize>(), 1usize..8).prop_map(|(a, n)| Edit::Delete(a, n)),
        1 => (any::<usize>(), any::<usize>(), 1usize..12).prop_map(|(a, b, n)| Edit::Splice(a, b, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for e in edits {
        if bytes.is_empty() {
            return;
        }
        let at = |i: usize| i % bytes.len();
        match e {
            Edit::Set(i, b) => {
                let i = at(*i);
                bytes[i] = *b;
            }
            Edit::Insert(i, new) => {
                let i = at(*i);
                bytes.splice(i..i, new.iter().copied());
            }
            Edit::Delete(i, n) => {
                let i = at(*i);
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Splice(from, to, n) => {
                let (from, to) = (at(*from), at(*to));
                let run: Vec<u8> = bytes[from..(from + n).min(bytes.len())].to_vec();
                let end = (to + run.len()).min(bytes.len());
                bytes.splice(to..end, run);
            }
        }
    }
}

/// A change to a decoded index: what a crafted file can say while its checksum holds.
#[derive(Debug, Clone)]
enum Mutation {
    SwapSentences(usize, usize, usize),
    ReverseSentences(usize),
    SetSentence(usize, usize, u32, u32),
    ShiftSentences(usize, u32),
    CutText(usize, usize),
    SetPosting(usize, usize, u32, u32),
    ReversePostings(usize),
    SetFragmentDoc(usize, u32),
    SetPosition(usize, u32),
    DropDoc,
    SetHintPosting(usize, u32),
    SetVector(usize, i8),
    SetScale(usize, f32),
    SetAverage(f32),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let u = any::<usize>;
    prop_oneof![
        3 => (u(), u(), u()).prop_map(|(f, a, b)| Mutation::SwapSentences(f, a, b)),
        2 => u().prop_map(Mutation::ReverseSentences),
        2 => (u(), u(), 0u32..120, 0u32..120).prop_map(|(f, i, s, e)| Mutation::SetSentence(f, i, s, e)),
        1 => (u(), 0u32..40).prop_map(|(f, d)| Mutation::ShiftSentences(f, d)),
        1 => (u(), u()).prop_map(|(f, n)| Mutation::CutText(f, n)),
        1 => (u(), u(), 0u32..12, any::<u32>()).prop_map(|(t, i, f, tf)| Mutation::SetPosting(t, i, f, tf)),
        1 => u().prop_map(Mutation::ReversePostings),
        1 => (u(), 0u32..5).prop_map(|(f, d)| Mutation::SetFragmentDoc(f, d)),
        1 => (u(), any::<u32>()).prop_map(|(f, p)| Mutation::SetPosition(f, p)),
        1 => Just(Mutation::DropDoc),
        1 => (u(), 0u32..3).prop_map(|(t, h)| Mutation::SetHintPosting(t, h)),
        1 => (u(), any::<i8>()).prop_map(|(i, v)| Mutation::SetVector(i, v)),
        1 => (u(), any::<f32>()).prop_map(|(i, s)| Mutation::SetScale(i, s)),
        1 => any::<f32>().prop_map(Mutation::SetAverage),
    ]
}

fn mutate(index: &mut Index, m: &Mutation) {
    let n_frags = index.fragments.len().max(1);
    let frag = |i: &usize| i % n_frags;
    match m {
        Mutation::SwapSentences(f, a, b) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                let n = fr.sentences.len().max(1);
                if fr.sentences.len() > 1 {
                    fr.sentences.swap(a % n, b % n);
                }
            }
        }
        Mutation::ReverseSentences(f) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                fr.sentences.reverse();
            }
        }
        Mutation::SetSentence(f, i, s, e) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                let n = fr.sentences.len().max(1);
                if let Some(r) = fr.sentences.get_mut(i % n) {
                    *r = (*s, *e);
                }
            }
        }
        Mutation::ShiftSentences(f, d) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                for r in &mut fr.sentences {
                    r.0 = r.0.saturating_add(*d);
                }
            }
        }
        Mutation::CutText(f, n) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                let keep = n % (fr.text.len() + 1);
                let keep = (0..=keep)
                    .rev()
                    .find(|&k| fr.text.is_char_boundary(k))
                    .unwrap_or(0);
                fr.text.truncate(keep);
            }
        }
        Mutation::SetPosting(t, i, f, tf) => {
            let n = index.terms.len().max(1);
            if let Some(term) = index.terms.get_mut(t % n) {
                let m = term.postings.len().max(1);
                if let Some(p) = term.postings.get_mut(i % m) {
                    *p = (*f, *tf);
                }
            }
        }
        Mutation::ReversePostings(t) => {
            let n = index.terms.len().max(1);
            if let Some(term) = index.terms.get_mut(t % n) {
                term.postings.reverse();
            }
        }
        Mutation::SetFragmentDoc(f, d) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                fr.doc = *d;
            }
        }
        Mutation::SetPosition(f, p) => {
            if let Some(fr) = index.fragments.get_mut(frag(f)) {
                fr.position = *p;
            }
        }
        Mutation::DropDoc => {
            index.docs.pop();
        }
        Mutation::SetHintPosting(t, h) => {
            let n = index.hint_terms.len().max(1);
            if let Some(p) = index
                .hint_terms
                .get_mut(t % n)
                .and_then(|t| t.postings.first_mut())
            {
                p.0 = *h;
            }
        }
        Mutation::SetVector(i, v) => {
            if let Some(vectors) = &mut index.vectors {
                let n = vectors.data.len().max(1);
                if let Some(x) = vectors.data.get_mut(i % n) {
                    *x = *v;
                }
            }
        }
        Mutation::SetScale(i, s) => {
            if let Some(vectors) = &mut index.vectors {
                let n = vectors.scales.len().max(1);
                if let Some(x) = vectors.scales.get_mut(i % n) {
                    *x = *s;
                }
            }
        }
        Mutation::SetAverage(a) => index.avg_fragment_terms = *a,
    }
}

/// Markdown debris: the syntax the visitor-file reader knows, broken up and mixed with words.
fn visitor_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("# "),
        Just("## "),
        Just("####### "),
        Just("#"),
        Just("["),
        Just("]"),
        Just("]("),
        Just(")"),
        Just("```"),
        Just("~~~"),
        Just("> "),
        Just("- "),
        Just("* "),
        Just("1. "),
        Just("**"),
        Just("__"),
        Just("`"),
        Just("\n"),
        Just("\r"),
        Just("\r\n"),
        Just("\n\n"),
        Just(" "),
        Just("\t"),
        Just(". "),
        Just("Bikes can be returned within 30 days"),
        Just("refund"),
        Just("It costs EUR 95"),
        Just("é"),
        Just("🚲"),
        Just("\u{FFFD}"),
        Just("İ"),
        Just("ß"),
    ];
    proptest::collection::vec(piece, 0..300).prop_map(|p| p.concat())
}

/// A fragment of words and typography, and a claim cut from it (maybe mangled).
fn fragment_and_claim() -> impl Strategy<Value = (String, String)> {
    let word = prop_oneof![
        Just("Refunds"),
        Just("arrive"),
        Just("within"),
        Just("14"),
        Just("140"),
        Just("1.5"),
        Just("30-60"),
        Just("can't"),
        Just("e‑bikes"),
        Just("“no”"),
        Just("İstanbul"),
        Just("ß"),
        Just("—"),
        Just("days."),
        Just("EUR"),
        Just("150"),
        Just("10:30"),
        Just("24/7"),
    ];
    let sep = prop_oneof![Just(" "), Just("  "), Just("\n"), Just(", "), Just("")];
    (
        proptest::collection::vec((word, sep), 1..16),
        any::<usize>(),
        any::<usize>(),
        0u8..6,
        any::<usize>(),
    )
        .prop_map(|(parts, a, b, how, at)| {
            let fragment: String = parts.iter().flat_map(|(w, s)| [*w, *s]).collect();
            let bounds: Vec<usize> = fragment
                .char_indices()
                .map(|(i, _)| i)
                .chain([fragment.len()])
                .collect();
            let (a, b) = (bounds[a % bounds.len()], bounds[b % bounds.len()]);
            let sub = &fragment[a.min(b)..a.max(b)];
            let claim = match how {
                0 => sub.to_uppercase(),
                1 => sub.replace('‑', "-").replace(['“', '”'], "\""),
                2 => {
                    let mut c: Vec<char> = sub.chars().collect();
                    if !c.is_empty() {
                        let i = at % c.len();
                        c.remove(i);
                    }
                    c.into_iter().collect()
                }
                3 => format!("x{sub}"),
                _ => sub.to_string(),
            };
            (fragment, claim)
        })
}

proptest! {
    #![proptest_config(fixed(300, 14_001))]
    #[test]
    fn index_bytes_edited_behind_a_valid_header_decode_or_fail_cleanly(
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let bytes = fixture().to_bytes([0; 32]).expect("encodes");
        let mut payload = bytes[HEADER_LEN..].to_vec();
        apply(&mut payload, &edits);
        if let Ok(index) = Index::from_bytes(&with_header(&payload)) {
            ask_everything(&index, None);
        }
    }
}

proptest! {
    #![proptest_config(fixed(400, 14_006))]
    // Issue 14, item 6: `ask` on decoded-but-tampered indexes keeps every answer invariant.
    #[test]
    fn ask_on_tampered_indexes_that_decode_keeps_the_answer_invariants(
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut index = fixture();
        for m in &mutations {
            mutate(&mut index, m);
        }
        let Ok(bytes) = index.to_bytes([0; 32]) else { return Ok(()) };
        if let Ok(decoded) = Index::from_bytes(&bytes) {
            let model = QueryModel::from_bytes(&model_bytes()).expect("decodes");
            ask_everything(&decoded, None);
            ask_everything(&decoded, Some(&model));
        }
    }
}

proptest! {
    #![proptest_config(fixed(300, 14_002))]
    #[test]
    fn query_model_bytes_edited_with_a_valid_checksum_decode_or_fail_cleanly(
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let bytes = model_bytes();
        let mut body = bytes[..bytes.len() - 4].to_vec();
        apply(&mut body, &edits);
        let crc = crc32fast::hash(&body);
        body.extend_from_slice(&crc.to_le_bytes());
        match QueryModel::from_bytes(&body) {
            Ok(model) => {
                for question in QUESTIONS {
                    if let Some(v) = model.embed(question) {
                        prop_assert_eq!(v.len(), model.dims());
                        prop_assert!(v.iter().all(|x| x.is_finite()));
                    }
                }
                ask_everything(&fixture(), Some(&model));
            }
            Err(e) => prop_assert!(e.to_string().contains("query model"), "{}", e),
        }
    }
}

proptest! {
    #![proptest_config(fixed(3000, 14_003))]
    #[test]
    fn verified_quotes_are_whole_words_of_the_fragment((fragment, claim) in fragment_and_claim()) {
        check_verified(&fragment, &claim);
    }
}

proptest! {
    #![proptest_config(fixed(200, 14_004))]
    #[test]
    fn visitor_files_of_markdown_debris_index_or_fail_by_name(text in visitor_text()) {
        let files = [PlainFile { name: "notes.md".into(), text }];
        match index_documents(&files, Lang::English) {
            Ok(index) => {
                // What the reader builds passes the decoder's own checks.
                let bytes = index.to_bytes([0; 32]).expect("encodes");
                prop_assert!(Index::from_bytes(&bytes).is_ok());
                prop_assert!(!index.fragments.is_empty());
                ask_everything(&index, None);
            }
            Err(e) => prop_assert!(e.to_string().contains("notes.md"), "{}", e),
        }
    }
}
