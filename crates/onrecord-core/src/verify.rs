//! Quote verification: is a claimed quote really in a fragment, and where.
//!
//! A model (or anyone) that claims to quote a fragment retypes it, so the check forgives
//! typography and nothing else: runs of whitespace count as one space, curly and straight
//! quotation marks are equal, dash forms are equal, and case is ignored. Every other difference,
//! one letter, a homoglyph, another Unicode normal form, fails. A quote must also be whole words:
//! it starts and ends on word boundaries (so "within 6" is not a quote of "within 60 days", nor
//! "EUR 1" of "EUR 150") and has at least [`MIN_QUOTE_WORDS`] words. What is displayed afterwards
//! is the fragment's own bytes at the returned offsets, never the claimed text. The proxy and the
//! browser (`engine.verifyQuote`) both call [`verify_quote`], so they accept the same quotes.

use core::ops::Range;

/// A quote needs this many words: a word or two "verifies" almost anywhere.
pub const MIN_QUOTE_WORDS: usize = 3;

/// Finds `claimed` in `fragment` under the normalisation above and returns the byte range of the
/// first match in `fragment` that starts and ends on word boundaries. The range starts and ends
/// on char boundaries and never begins or ends with whitespace. `None` when the claim has fewer
/// than [`MIN_QUOTE_WORDS`] words or is not in the fragment as whole words.
///
/// A boundary is not between two letters or digits, nor at a joiner (`.` `,` `:` `/` `'` `’`
/// `-` `‐` `‑` `–`) that has a letter or digit on both sides: "1.5", "1,500", "30-60", "10:30",
/// "24/7" and "can't" are each one word. (In scripts written without spaces, a quote therefore
/// starts and ends at punctuation or at the fragment's edges.)
///
/// ```
/// use onrecord_core::verify_quote;
///
/// let fragment = "Refunds arrive  within 14 days — “no questions asked”.";
/// let range = verify_quote(fragment, "refunds arrive within 14 days - \"no questions asked\"").unwrap();
/// assert_eq!(&fragment[range], "Refunds arrive  within 14 days — “no questions asked”");
/// assert_eq!(verify_quote(fragment, "Refunds arrive within 15 days"), None);
/// assert_eq!(verify_quote(fragment, "Refunds arrive within 1"), None, "part of a number");
/// assert_eq!(verify_quote(fragment, "no questions"), None, "too few words");
/// ```
pub fn verify_quote(fragment: &str, claimed: &str) -> Option<Range<usize>> {
    let needle: Vec<char> = normalise(claimed).into_iter().map(|(c, _)| c).collect();
    let words = needle
        .split(|&c| c == ' ')
        .filter(|w| w.iter().any(|c| c.is_alphanumeric()))
        .count();
    if words < MIN_QUOTE_WORDS {
        return None;
    }
    let hay = normalise(fragment);
    if needle.len() > hay.len() {
        return None;
    }
    // Fragments are short (hundreds of characters), so a direct scan is fast enough and
    // obviously correct.
    // A match may not start or end inside the lowercase expansion of one source character
    // ("İ" is "i" + U+0307): its ends must map back to whole characters of the fragment.
    let whole = |i: usize, j: usize| -> bool {
        let starts = i == 0 || hay.get(i - 1).map(|h| &h.1) != hay.get(i).map(|h| &h.1);
        let ends = hay.get(j + 1).map(|h| &h.1) != hay.get(j).map(|h| &h.1);
        starts && ends
    };
    let range = |i: usize| -> Option<Range<usize>> {
        Some(hay.get(i)?.1.start..hay.get(i + needle.len() - 1)?.1.end)
    };
    (0..=hay.len() - needle.len())
        .filter(|&i| {
            whole(i, i + needle.len() - 1)
                && hay[i..i + needle.len()]
                    .iter()
                    .zip(&needle)
                    .all(|((h, _), n)| h == n)
        })
        .filter_map(range)
        .find(|r| !inside_word(fragment, r.start) && !inside_word(fragment, r.end))
}

/// Whether byte position `at` of `text` is inside a word or number: between two letters or
/// digits, or beside a joiner with a letter or digit on both sides.
fn inside_word(text: &str, at: usize) -> bool {
    let mut before = text.get(..at).unwrap_or("").chars().rev();
    let mut after = text.get(at..).unwrap_or("").chars();
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let joiner = |c: Option<char>| {
        c.is_some_and(|c| {
            matches!(
                c,
                '.' | ','
                    | ':'
                    | '/'
                    | '\''
                    | '\u{2019}'
                    | '-'
                    | '\u{2010}'
                    | '\u{2011}'
                    | '\u{2013}'
            )
        })
    };
    let (b, a) = (before.next(), after.next());
    (word(b) && word(a))
        || (word(b) && joiner(a) && word(after.next()))
        || (joiner(b) && word(a) && word(before.next()))
}

/// The normalised characters of `s`, each with the byte range of the source text it came from.
/// Whitespace runs become one space (leading and trailing ones are dropped); a character whose
/// lowercase form has several characters maps each of them to the same source range (and a
/// match must take all of them or none).
fn normalise(s: &str) -> Vec<(char, Range<usize>)> {
    let mut out: Vec<(char, Range<usize>)> = Vec::with_capacity(s.len());
    let mut pending_space: Option<Range<usize>> = None;
    for (i, c) in s.char_indices() {
        let range = i..i + c.len_utf8();
        if c.is_whitespace() {
            pending_space = Some(match pending_space {
                Some(r) => r.start..range.end,
                None => range,
            });
            continue;
        }
        if let Some(space) = pending_space.take() {
            if !out.is_empty() {
                out.push((' ', space));
            }
        }
        for lower in fold(c).to_lowercase() {
            out.push((lower, range.clone()));
        }
    }
    out
}

/// Typographic variants that a retyped quote may legitimately differ in.
fn fold(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' | '\u{00B4}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
        | '\u{00BB}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check<'a>(fragment: &'a str, claimed: &str) -> Option<&'a str> {
        verify_quote(fragment, claimed).map(|r| &fragment[r])
    }

    #[test]
    fn forgives_typography_and_nothing_else() {
        let f = "Our e‑bikes ship in 5–7 days. Call “Support” at  9 am.";
        assert_eq!(
            check(f, "ship in 5-7 days"),
            Some("ship in 5–7 days"),
            "dash forms"
        );
        assert_eq!(
            check(f, "call \"support\" at 9 AM."),
            Some("Call “Support” at  9 am.")
        );
        assert_eq!(check(f, "  our e-bikes\n ship  "), Some("Our e‑bikes ship"));
        assert_eq!(check(f, "ship in 5-8 days"), None, "one character off");
        assert_eq!(check(f, "ship in 5–7 days!"), None, "one character more");
        assert_eq!(check(f, "shipin 5–7 days"), None, "a space is not optional");
        assert_eq!(check(f, "ѕhip in 5–7 days"), None, "Cyrillic homoglyph");
        assert_eq!(check(f, ""), None);
        assert_eq!(check(f, " \n\t "), None);
        assert_eq!(check("", "x y z"), None);
    }

    // Issue 14: a quote that starts or ends inside a word or a number changes what it says.
    #[test]
    fn a_quote_starts_and_ends_on_word_boundaries() {
        let f = "Unused parts and accessories can be returned within 60 days, or EUR 150 is \
                 deducted; 1,500 km of 30-60 km trips at 10:30 on 24/7 roads can't hurt.";
        assert_eq!(
            check(f, "used parts and accessories can be returned within 6"),
            None
        );
        assert_eq!(check(f, "can be returned within 6"), None);
        assert_eq!(
            check(f, "can be returned within 60"),
            Some("can be returned within 60")
        );
        assert_eq!(check(f, "or EUR 1"), None);
        assert_eq!(check(f, "or EUR 150 is"), Some("or EUR 150 is"));
        assert_eq!(check(f, "deducted; 1"), None, "1,500 is one number");
        assert_eq!(check(f, "500 km of"), None);
        assert_eq!(check(f, "km of 30"), None, "30-60 is one range");
        assert_eq!(check(f, "60 km trips"), None);
        assert_eq!(check(f, "trips at 10"), None, "10:30 is one time");
        assert_eq!(
            check(f, "on 24 / 7 roads"),
            None,
            "spaces are not forgiven away"
        );
        assert_eq!(
            check(f, "roads can"),
            None,
            "too few words, and half of can't"
        );
        assert_eq!(check(f, "on 24/7 roads can"), None, "can't is one word");
        assert_eq!(
            check(f, "on 24/7 roads can't hurt."),
            Some("on 24/7 roads can't hurt.")
        );
        assert_eq!(check(f, "nused parts and"), None);
    }

    #[test]
    fn a_later_whole_word_match_is_found_after_a_part_word_one() {
        let f = "Returns within 60 days. Returns within 6 days for helmets.";
        assert_eq!(verify_quote(f, "returns within 6"), Some(24..40));
    }

    #[test]
    fn a_quote_needs_three_words() {
        let f = "Refunds arrive within 14 days.";
        assert_eq!(check(f, "days"), None);
        assert_eq!(check(f, "arrive within"), None);
        assert_eq!(check(f, "arrive — within"), None, "punctuation is no word");
        assert_eq!(check(f, "arrive within 14"), Some("arrive within 14"));
    }

    #[test]
    fn a_match_never_splits_one_character_s_lowercase_expansion() {
        // "İ" lowercases to "i" + U+0307: a claimed "i" is the later plain "i", not half of "İ".
        let f = "one İ two, one i two";
        assert_eq!(verify_quote(f, "one i two"), Some(12..21));
        assert_eq!(check("x İ y", "x i y"), None);
        assert_eq!(check("x xİy y", "x xi\u{307}y y"), Some("x xİy y"));
    }

    #[test]
    fn unicode_normal_forms_are_not_equal() {
        // "é" precomposed in the fragment, decomposed in the claim.
        let f = "Caf\u{e9} hours today";
        assert_eq!(check(f, "Cafe\u{301} hours today"), None);
        assert_eq!(check(f, "CAF\u{c9} HOURS TODAY"), Some(f));
    }

    #[test]
    fn lowercase_expansion_maps_back_to_whole_characters() {
        // 'İ' lowercases to two chars: a match covers both or neither, so what is shown
        // always folds to exactly what was claimed.
        let f = "Visit İstanbul today";
        assert_eq!(check(f, "visit i\u{307}stanbul today"), Some(f));
        assert_eq!(check(f, "visit \u{307}stanbul today"), None);
    }

    fn fold_all(s: &str) -> String {
        normalise(s).into_iter().map(|(c, _)| c).collect()
    }

    /// The bug class of issue 14, as simply as it can be said: a letter or digit on both sides
    /// of either end of the match.
    fn cuts_a_word(fragment: &str, r: &Range<usize>) -> bool {
        let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let before = fragment[..r.start].chars().next_back();
        let first = fragment[r.start..].chars().next();
        let last = fragment[..r.end].chars().next_back();
        let after = fragment[r.end..].chars().next();
        (alnum(before) && alnum(first)) || (alnum(last) && alnum(after))
    }

    /// A fragment of words and separators, and the byte range of each word.
    fn sentence() -> impl Strategy<Value = (String, Vec<Range<usize>>)> {
        let word = "[a-zA-Z0-9éİß][a-zA-Z0-9éİß’]{0,5}";
        let sep = prop_oneof![
            Just(" "),
            Just(", "),
            Just(". "),
            Just(" — "),
            Just("\n\t"),
            Just(" “"),
            Just("” ")
        ];
        proptest::collection::vec((word, sep), 1..14).prop_map(|parts| {
            let mut text = String::new();
            let mut words = Vec::new();
            for (w, s) in parts {
                words.push(text.len()..text.len() + w.len());
                text.push_str(&w);
                text.push_str(s);
            }
            (text, words)
        })
    }

    proptest! {
        #[test]
        fn any_match_is_a_char_boundary_slice_of_whole_words(fragment in "\\PC{0,60}", claimed in "\\PC{0,24}") {
            if let Some(r) = verify_quote(&fragment, &claimed) {
                prop_assert!(r.start < r.end && r.end <= fragment.len());
                prop_assert!(fragment.is_char_boundary(r.start) && fragment.is_char_boundary(r.end));
                prop_assert!(!cuts_a_word(&fragment, &r));
                let slice = &fragment[r];
                prop_assert!(!slice.starts_with(char::is_whitespace));
                prop_assert!(!slice.ends_with(char::is_whitespace));
                prop_assert_eq!(fold_all(slice), fold_all(&claimed));
            }
        }

        #[test]
        fn every_run_of_three_or_more_whole_words_verifies(
            (fragment, words) in sentence(), a in 0usize..14, b in 0usize..14,
        ) {
            let (a, b) = (a % words.len(), b % words.len());
            let (a, b) = (a.min(b), a.max(b));
            let sub = &fragment[words[a].start..words[b].end];
            let found = verify_quote(&fragment, sub);
            if b - a + 1 < MIN_QUOTE_WORDS {
                prop_assert_eq!(found, None);
            } else {
                let r = found.expect("a run of whole words verifies");
                // The first match may sit earlier, but it says the same thing.
                prop_assert_eq!(fold_all(&fragment[r.clone()]), fold_all(sub));
                prop_assert!(!cuts_a_word(&fragment, &r));
            }
        }

        #[test]
        fn a_run_cut_inside_its_first_or_last_word_never_verifies_there(
            (fragment, words) in sentence(), a in 0usize..14, b in 0usize..14, cut_end in any::<bool>(),
        ) {
            let (a, b) = (a % words.len(), b % words.len());
            let (a, b) = (a.min(b), a.max(b));
            let (mut start, mut end) = (words[a].start, words[b].end);
            let word = &fragment[if cut_end { words[b].clone() } else { words[a].clone() }];
            let mut chars = word.chars();
            let (cut, rest) = if cut_end {
                (chars.next_back(), chars.next_back())
            } else {
                (chars.next(), chars.next())
            };
            // Only a letter or digit cut from beside another one leaves a part-word.
            prop_assume!(cut.is_some_and(char::is_alphanumeric) && rest.is_some_and(char::is_alphanumeric));
            let cut_len = cut.map_or(0, char::len_utf8);
            if cut_end {
                end -= cut_len;
            } else {
                start += cut_len;
            }
            // The part-word slice may equal whole words elsewhere; never at its own place.
            if let Some(r) = verify_quote(&fragment, &fragment[start..end]) {
                prop_assert!(r != (start..end));
                prop_assert!(!cuts_a_word(&fragment, &r));
            }
        }

        #[test]
        fn retyped_runs_of_whole_words_verify((fragment, words) in sentence(), a in 0usize..14, b in 0usize..14) {
            let (a, b) = (a % words.len(), b % words.len());
            let (a, b) = (a.min(b), a.max(b));
            let sub = &fragment[words[a].start..words[b].end];
            // What a model typing on a plain keyboard would send.
            let retyped: String = sub.chars().map(fold).flat_map(char::to_uppercase).collect();
            let found = verify_quote(&fragment, &retyped);
            // Uppercasing 'ß' gives "SS" and 'İ' stays dotted: those retypings differ in letters.
            if b - a + 1 >= MIN_QUOTE_WORDS && !sub.contains(['ß', 'İ']) {
                prop_assert!(found.is_some());
            }
        }
    }
}
