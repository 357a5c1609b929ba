//! Quote verification: is a claimed quote really in a fragment, and where.
//!
//! A model (or anyone) that claims to quote a fragment retypes it, so the check forgives
//! typography and nothing else: runs of whitespace count as one space, curly and straight
//! quotation marks are equal, dash forms are equal, and case is ignored. Every other difference,
//! one letter, a homoglyph, another Unicode normal form, fails. What is displayed afterwards is
//! the fragment's own bytes at the returned offsets, never the claimed text.

use core::ops::Range;

/// Finds `claimed` in `fragment` under the normalisation above and returns the byte range of the
/// first match in `fragment`. The range starts and ends on char boundaries and never begins or
/// ends with whitespace. `None` when the claim is empty (after trimming) or not in the fragment.
///
/// ```
/// use onrecord_core::verify_quote;
///
/// let fragment = "Refunds arrive  within 14 days — “no questions asked”.";
/// let range = verify_quote(fragment, "refunds arrive within 14 days - \"no questions asked\"").unwrap();
/// assert_eq!(&fragment[range], "Refunds arrive  within 14 days — “no questions asked”");
/// assert_eq!(verify_quote(fragment, "Refunds arrive within 15 days"), None);
/// ```
pub fn verify_quote(fragment: &str, claimed: &str) -> Option<Range<usize>> {
    let needle: Vec<char> = normalise(claimed).into_iter().map(|(c, _)| c).collect();
    if needle.is_empty() {
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
    let at = (0..=hay.len() - needle.len()).find(|&i| {
        whole(i, i + needle.len() - 1)
            && hay[i..i + needle.len()]
                .iter()
                .zip(&needle)
                .all(|((h, _), n)| h == n)
    })?;
    let start = hay.get(at)?.1.start;
    let end = hay.get(at + needle.len() - 1)?.1.end;
    Some(start..end)
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
        assert_eq!(check(f, "  e-bikes\n ship  "), Some("e‑bikes ship"));
        assert_eq!(check(f, "ship in 5-8 days"), None, "one character off");
        assert_eq!(check(f, "ship in 5–7 days!"), None, "one character more");
        assert_eq!(check(f, "shipin 5–7 days"), None, "a space is not optional");
        assert_eq!(check(f, "ѕhip in 5–7 days"), None, "Cyrillic homoglyph");
        assert_eq!(check(f, ""), None);
        assert_eq!(check(f, " \n\t "), None);
        assert_eq!(check("", "x"), None);
    }

    #[test]
    fn a_match_never_splits_one_character_s_lowercase_expansion() {
        // "İ" lowercases to "i" + U+0307: a claimed "i" is the later plain "i", not half of "İ".
        let f = "İA i";
        assert_eq!(verify_quote(f, "i"), Some(4..5));
        assert_eq!(check("İ", "i"), None);
        assert_eq!(check("xİy", "xi\u{307}y"), Some("xİy"));
    }

    #[test]
    fn unicode_normal_forms_are_not_equal() {
        // "é" precomposed in the fragment, decomposed in the claim.
        assert_eq!(check("Caf\u{e9} hours", "Cafe\u{301} hours"), None);
        assert_eq!(
            check("Caf\u{e9} hours", "CAF\u{c9} HOURS"),
            Some("Caf\u{e9} hours")
        );
    }

    #[test]
    fn lowercase_expansion_maps_back_to_whole_characters() {
        // 'İ' lowercases to two chars: a match covers both or neither, so what is shown
        // always folds to exactly what was claimed.
        let f = "Visit İstanbul today";
        assert_eq!(check(f, "i\u{307}stanbul"), Some("İstanbul"));
        assert_eq!(check(f, "\u{307}stanbul"), None);
    }

    fn fold_all(s: &str) -> String {
        normalise(s).into_iter().map(|(c, _)| c).collect()
    }

    proptest! {
        #[test]
        fn any_match_is_a_char_boundary_slice(fragment in "\\PC{0,60}", claimed in "\\PC{0,12}") {
            if let Some(r) = verify_quote(&fragment, &claimed) {
                prop_assert!(r.start < r.end && r.end <= fragment.len());
                prop_assert!(fragment.is_char_boundary(r.start) && fragment.is_char_boundary(r.end));
                let slice = &fragment[r];
                prop_assert!(!slice.starts_with(char::is_whitespace));
                prop_assert!(!slice.ends_with(char::is_whitespace));
            }
        }

        #[test]
        fn every_substring_verifies(fragment in "[ a-zA-Z0-9’“”—–\\n\\t.,éİß]{1,80}", a in 0usize..80, b in 0usize..80) {
            let bounds: Vec<usize> = fragment.char_indices().map(|(i, _)| i).chain([fragment.len()]).collect();
            let (a, b) = (bounds[a % bounds.len()], bounds[b % bounds.len()]);
            let (a, b) = (a.min(b), a.max(b));
            let sub = &fragment[a..b];
            let found = verify_quote(&fragment, sub);
            if sub.trim().is_empty() {
                prop_assert_eq!(found, None);
            } else {
                let r = found.expect("a substring of the fragment verifies");
                // The first match may sit earlier, but it says the same thing.
                prop_assert_eq!(fold_all(&fragment[r]), fold_all(sub));
            }
        }

        #[test]
        fn retyped_substrings_verify(fragment in "[ a-zA-Z’“”—–]{1,60}", a in 0usize..60, b in 0usize..60) {
            let (a, b) = (a.min(b), a.max(b));
            let chars: Vec<char> = fragment.chars().collect();
            let (a, b) = (a.min(chars.len()), b.min(chars.len()));
            let sub: String = chars[a..b].iter().collect();
            // What a model typing on a plain keyboard would send.
            let retyped: String = sub.chars().map(fold).flat_map(char::to_uppercase).collect();
            let found = verify_quote(&fragment, &retyped);
            prop_assert_eq!(found.is_some(), !sub.trim().is_empty());
        }
    }
}
