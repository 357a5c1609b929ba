//! Sentence segmentation of prose into byte ranges.

use std::ops::Range;

/// Words after which a full stop does not end a sentence (lowercased, without the dot).
const ABBREVIATIONS: &[&str] = &[
    "approx", "bzw", "ca", "cf", "dr", "e.g", "eg", "etc", "ggf", "i.e", "ie", "incl", "inkl",
    "max", "min", "mr", "mrs", "ms", "no", "nr", "prof", "st", "usw", "vgl", "vs", "z.b",
];

/// Splits prose into sentences, returned as trimmed, non-empty byte ranges into `text`.
///
/// A sentence ends at `.`, `!` or `?` (plus closing quotes or brackets) followed by whitespace,
/// unless the word before the dot is a known abbreviation or a single letter (an initial).
/// A line break followed by a blank line always ends a sentence.
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut res = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let end_here = match b {
            b'.' | b'!' | b'?' => {
                let mut j = i + 1;
                while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')' | b']') {
                    j += 1;
                }
                let followed_by_space = j >= bytes.len() || bytes[j].is_ascii_whitespace();
                if followed_by_space
                    && !(b == b'.' && is_abbreviation(text.get(start..i).unwrap_or("")))
                {
                    Some(j)
                } else {
                    None
                }
            }
            b'\n' if bytes.get(i + 1) == Some(&b'\n') => Some(i),
            _ => None,
        };
        if let Some(end) = end_here {
            push_trimmed(text, start..end, &mut res);
            start = end;
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    push_trimmed(text, start..text.len(), &mut res);
    res
}

fn is_abbreviation(before_dot: &str) -> bool {
    let word = before_dot
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let lower = word.to_lowercase();
    let single_letter = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
    single_letter || ABBREVIATIONS.binary_search(&lower.as_str()).is_ok()
}

fn push_trimmed(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let Some(slice) = text.get(range.clone()) else {
        return;
    };
    let lead = slice.len() - slice.trim_start().len();
    let trail = slice.len() - slice.trim_end().len();
    if lead + trail < slice.len() {
        out.push(range.start + lead..range.end - trail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(text: &str, expected: &[&str]) {
        let got: Vec<&str> = sentences(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn splits_on_terminal_punctuation() {
        check(
            "Refunds take 14 days. Is that long? No!  Fine.",
            &["Refunds take 14 days.", "Is that long?", "No!", "Fine."],
        );
    }

    #[test]
    fn keeps_abbreviations_decimals_and_initials() {
        check(
            "Bring tools, e.g. a pump. It costs 3.50 EUR. Ask J. Smith (approx. 2 min.) now.",
            &[
                "Bring tools, e.g. a pump.",
                "It costs 3.50 EUR.",
                "Ask J. Smith (approx. 2 min.) now.",
            ],
        );
        check(
            "Siehe z.B. Seite 3. Danke.",
            &["Siehe z.B. Seite 3.", "Danke."],
        );
    }

    #[test]
    fn closing_quotes_stay_with_their_sentence() {
        check(
            "He said \"stop.\" Then left.",
            &["He said \"stop.\"", "Then left."],
        );
    }

    #[test]
    fn abbreviation_list_is_sorted() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
    }

    proptest! {
        #[test]
        fn ranges_are_ordered_trimmed_char_aligned_slices(text in "\\PC{0,200}") {
            let ranges = sentences(&text);
            let mut last_end = 0;
            for r in ranges {
                prop_assert!(r.start >= last_end && r.start < r.end);
                let slice = text.get(r.clone());
                prop_assert!(slice.is_some());
                let slice = slice.unwrap_or_default();
                prop_assert_eq!(slice.trim(), slice);
                last_end = r.end;
            }
        }
    }
}
