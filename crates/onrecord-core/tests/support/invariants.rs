//! What every answer and every verified quote must satisfy, whatever the index, question or
//! claim. Shared by the tests, the bounded property runs (`tests/bounded_fuzz.rs`) and the fuzz
//! targets (`fuzz/`): each panics, saying what broke.

use onrecord_core::{Answer, Index, MIN_QUOTE_WORDS, Mode, verify_quote};

/// Every quote is its fragment's bytes at its offsets (start before end), highlights lie inside
/// it, and a decline cites nothing.
pub fn check_answer(index: &Index, answer: &Answer) {
    match answer.mode {
        Mode::Answer => {
            assert!(answer.decline.is_none(), "an answer with a decline");
            assert!(!answer.quotes.is_empty(), "an answer without a quote");
        }
        _ => {
            assert!(answer.decline.is_some(), "a decline without a reason");
            assert!(answer.quotes.is_empty(), "a decline cites nothing");
            assert!(answer.related.is_empty(), "a decline lists nothing");
        }
    }
    for q in &answer.quotes {
        let fragment = index
            .fragments
            .get(q.fragment as usize)
            .expect("a quote names a stored fragment");
        assert!(
            q.start <= q.end,
            "a quote runs backwards: {}..{}",
            q.start,
            q.end
        );
        assert_eq!(
            fragment.text.get(q.start as usize..q.end as usize),
            Some(q.text.as_str()),
            "a quote is not its fragment's bytes at its offsets"
        );
        for &(s, e) in &q.highlights {
            assert!(
                s < e && q.text.get(s as usize..e as usize).is_some(),
                "a highlight {s}..{e} outside its quote of {} bytes",
                q.text.len()
            );
        }
    }
    for s in &answer.related {
        assert!((s.fragment as usize) < index.fragments.len());
    }
}

/// A verified quote is a char-aligned slice of the fragment without surrounding whitespace,
/// of whole words (no letter or digit on both sides of either end), with enough words.
pub fn check_verified(fragment: &str, claimed: &str) {
    let Some(r) = verify_quote(fragment, claimed) else {
        return;
    };
    let slice = fragment.get(r.clone()).expect("a char-aligned slice");
    assert!(!slice.is_empty());
    assert_eq!(
        slice.trim(),
        slice,
        "a quote begins or ends with whitespace"
    );
    let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let (before, after) = (
        fragment[..r.start].chars().next_back(),
        fragment[r.end..].chars().next(),
    );
    assert!(
        !(alnum(before) && alnum(slice.chars().next())),
        "a quote starts inside a word: {slice:?} in {fragment:?}"
    );
    assert!(
        !(alnum(slice.chars().next_back()) && alnum(after)),
        "a quote ends inside a word: {slice:?} in {fragment:?}"
    );
    let words = slice
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    assert!(words >= MIN_QUOTE_WORDS, "{words} words: {slice:?}");
}
