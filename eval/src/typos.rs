//! Typo copies of a question set (issue 41, "Typos"): one typo per question, seeded and
//! deterministic, so a run says how much of recall@5 survives what visitors mistype.
//!
//! The typo goes into one content word (not a stopword) of at least [`MIN_LETTERS`] ASCII
//! letters, chosen at random, as one of four edits: a letter deleted, a letter replaced by a
//! neighbouring key, two adjacent letters swapped, or a neighbouring key's letter inserted. The
//! first letter of the word is kept (people seldom mistype it, and spelling correctors assume
//! it). Each question's generator is seeded with the run's seed and its id, so a question's
//! copy does not depend on which others are in the set.

use build_index::SplitMix;
use onrecord_core::{Lang, is_stopword};

use crate::questions::{Question, fnv1a};

/// The shortest word a typo is made in (the engine corrects words of 5 letters or more).
pub const MIN_LETTERS: usize = 5;

/// One typo made in a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typo {
    /// The question with the typo.
    pub text: String,
    /// The word as the question wrote it.
    pub word: String,
    /// The word as mistyped.
    pub typed: String,
    pub edit: Edit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Deletion,
    Substitution,
    Transposition,
    Insertion,
}

/// Keys beside each letter on a QWERTY keyboard.
fn neighbours(c: char) -> &'static str {
    match c.to_ascii_lowercase() {
        'q' => "wa",
        'w' => "qeas",
        'e' => "wrsd",
        'r' => "etdf",
        't' => "ryfg",
        'y' => "tugh",
        'u' => "yihj",
        'i' => "uojk",
        'o' => "ipkl",
        'p' => "ol",
        'a' => "qwsz",
        's' => "awedxz",
        'd' => "serfcx",
        'f' => "drtgvc",
        'g' => "ftyhbv",
        'h' => "gyujnb",
        'j' => "huikmn",
        'k' => "jiolm",
        'l' => "kop",
        'z' => "asx",
        'x' => "zsdc",
        'c' => "xdfv",
        'v' => "cfgb",
        'b' => "vghn",
        'n' => "bhjm",
        _ => "njk",
    }
}

/// A key beside `c`, in `c`'s case.
fn neighbour(c: char, rng: &mut SplitMix) -> char {
    let keys: Vec<char> = neighbours(c).chars().collect();
    let key = keys[rng.below(keys.len())];
    if c.is_ascii_uppercase() {
        key.to_ascii_uppercase()
    } else {
        key
    }
}

/// The byte spans of the words a typo may go into.
fn candidates(question: &str) -> Vec<(usize, usize)> {
    let mut res = Vec::new();
    let mut start = None;
    for (i, c) in question.char_indices().chain([(question.len(), ' ')]) {
        match (c.is_ascii_alphabetic(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &question[s..i];
                if word.len() >= MIN_LETTERS
                    && !is_stopword(&word.to_ascii_lowercase(), Lang::English)
                {
                    res.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    res
}

/// `word` (ASCII letters, at least [`MIN_LETTERS`]) with one `edit`, the first letter kept.
fn mistype(word: &str, edit: Edit, rng: &mut SplitMix) -> String {
    let mut chars: Vec<char> = word.chars().collect();
    let n = chars.len();
    match edit {
        Edit::Deletion => {
            chars.remove(1 + rng.below(n - 1));
        }
        Edit::Substitution => {
            let i = 1 + rng.below(n - 1);
            chars[i] = neighbour(chars[i], rng);
        }
        Edit::Transposition => {
            // Swapping two equal letters changes nothing: take a pair that differs.
            let pairs: Vec<usize> = (1..n - 1).filter(|&i| chars[i] != chars[i + 1]).collect();
            if pairs.is_empty() {
                return mistype(word, Edit::Deletion, rng);
            }
            let i = pairs[rng.below(pairs.len())];
            chars.swap(i, i + 1);
        }
        Edit::Insertion => {
            // A key beside the letter before it, as a finger slips.
            let i = 1 + rng.below(n);
            let c = neighbour(chars[i - 1], rng);
            chars.insert(i, c);
        }
    }
    chars.into_iter().collect()
}

/// `question` with one typo, made by a generator seeded with `seed` and `id`; `None` when the
/// question has no word to mistype (no content word of [`MIN_LETTERS`] letters).
pub fn typo(question: &str, id: &str, seed: u64) -> Option<Typo> {
    let words = candidates(question);
    if words.is_empty() {
        return None;
    }
    let mut rng = SplitMix(seed ^ fnv1a(id));
    let (start, end) = words[rng.below(words.len())];
    let edit = [
        Edit::Deletion,
        Edit::Substitution,
        Edit::Transposition,
        Edit::Insertion,
    ][rng.below(4)];
    let word = &question[start..end];
    let typed = mistype(word, edit, &mut rng);
    Some(Typo {
        text: format!("{}{typed}{}", &question[..start], &question[end..]),
        word: word.to_owned(),
        typed,
        edit,
    })
}

/// The typo copy of `questions`: each question with one typo (evidence unchanged), and the
/// typo made in each, `None` for a question left as it was (no word to mistype).
pub fn copy(questions: &[&Question], seed: u64) -> (Vec<Question>, Vec<Option<Typo>>) {
    questions
        .iter()
        .map(|q| {
            let t = typo(&q.question, &q.id, seed);
            let mut copy = (*q).clone();
            if let Some(t) = &t {
                copy.question.clone_from(&t.text);
            }
            (copy, t)
        })
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTIONS: [&str; 6] = [
        "How do I password protect a directory?",
        "What is the default value of KeepAliveTimeout?",
        "blackd default port",
        "Can I return a cargo bike after 30 days?",
        "Why does the borrow checker reject this loop?",
        "How long is the warranty on the battery?",
    ];

    #[test]
    fn a_typo_copy_is_deterministic_and_changes_exactly_one_word() {
        let mut edits = Vec::new();
        for seed in [7, 8, 9, 10] {
            for (i, q) in QUESTIONS.iter().enumerate() {
                let id = format!("q{i}");
                let t = typo(q, &id, seed).unwrap();
                assert_eq!(Some(&t), typo(q, &id, seed).as_ref(), "{q}");
                let before: Vec<&str> = q.split_whitespace().collect();
                let after: Vec<&str> = t.text.split_whitespace().collect();
                assert_eq!(before.len(), after.len(), "{q} -> {}", t.text);
                let changed: Vec<(&&str, &&str)> =
                    before.iter().zip(&after).filter(|(a, b)| a != b).collect();
                assert_eq!(changed.len(), 1, "{q} -> {}", t.text);
                assert_ne!(t.word, t.typed);
                assert!(t.word.len() >= MIN_LETTERS, "{t:?}");
                assert!(!is_stopword(&t.word.to_lowercase(), Lang::English), "{t:?}");
                assert_eq!(t.word[..1], t.typed[..1], "the first letter is kept: {t:?}");
                // One edit: lengths differ by at most one letter.
                assert!(t.word.len().abs_diff(t.typed.len()) <= 1, "{t:?}");
                edits.push(t.edit);
            }
        }
        for edit in [
            Edit::Deletion,
            Edit::Substitution,
            Edit::Transposition,
            Edit::Insertion,
        ] {
            assert!(edits.contains(&edit), "{edit:?} never made: {edits:?}");
        }
        // Another seed gives another copy.
        let copies = |seed| -> Vec<String> {
            QUESTIONS
                .iter()
                .map(|q| typo(q, "id", seed).unwrap().text)
                .collect()
        };
        assert_ne!(copies(7), copies(8));
    }

    #[test]
    fn a_question_with_no_long_content_word_is_left_as_it_is() {
        assert_eq!(typo("Is it red?", "q", 7), None);
        assert_eq!(typo("Why not a fix?", "q", 7), None);
    }

    #[test]
    fn each_edit_is_one_keystroke() {
        let mut rng = SplitMix(1);
        for _ in 0..50 {
            let w = mistype("Timeout", Edit::Substitution, &mut rng);
            let diff = w.chars().zip("Timeout".chars()).filter(|(a, b)| a != b);
            assert_eq!(diff.count(), 1, "{w}");
            let w = mistype("Timeout", Edit::Transposition, &mut rng);
            assert_eq!(w.len(), 7);
            let mut sorted: Vec<char> = w.chars().collect();
            sorted.sort_unstable();
            let mut orig: Vec<char> = "Timeout".chars().collect();
            orig.sort_unstable();
            assert_eq!(sorted, orig, "{w}");
            assert_ne!(w, "Timeout");
            assert_eq!(mistype("Timeout", Edit::Deletion, &mut rng).len(), 6);
            assert_eq!(mistype("Timeout", Edit::Insertion, &mut rng).len(), 8);
        }
        assert!(neighbour('T', &mut rng).is_ascii_uppercase());
    }
}
