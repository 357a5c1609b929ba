//! Text analysis: languages, tokens, stemming and stopwords.

use std::borrow::Cow;

pub use crate::lang::Lang;
use crate::lang::{List, has_sorted, in_any, words};

/// A stemmer for one language: Snowball for English and German; for the other languages a
/// light one that folds plurals (and Italian's final vowels). The Snowball stemmers of the
/// other five languages cost 9 KB of the gzipped wasm (measured), more than the whole budget
/// had left, and the build and the browser must stem alike.
pub enum Stemmer {
    /// Snowball (rust-stemmers).
    Snowball(rust_stemmers::Stemmer),
    /// Plural folding for `Lang`.
    Light(Lang),
}

impl Stemmer {
    /// Creates the stemmer for `lang`.
    pub fn new(lang: Lang) -> Stemmer {
        use rust_stemmers::Algorithm as A;
        match lang {
            Lang::English => Stemmer::Snowball(rust_stemmers::Stemmer::create(A::English)),
            Lang::German => Stemmer::Snowball(rust_stemmers::Stemmer::create(A::German)),
            other => Stemmer::Light(other),
        }
    }

    /// Stems one lowercased word.
    pub fn stem<'a>(&self, word: &'a str) -> Cow<'a, str> {
        match self {
            Stemmer::Snowball(s) => s.stem(word),
            Stemmer::Light(lang) => Cow::Borrowed(light_stem(word, *lang)),
        }
    }
}

/// Folds the plural endings of French, Spanish, Portuguese, Italian and Dutch (and Italian's
/// singular/plural vowels): "retours" → "retour", "envíos" → "envío", "prezzi" → "prezz",
/// "fietsen" → "fiets". Words of four letters or fewer are left alone.
fn light_stem(word: &str, lang: Lang) -> &str {
    let endings = words(lang).plural_endings;
    if word.chars().count() <= 4 {
        return word;
    }
    endings
        .split_ascii_whitespace()
        .find_map(|end| word.strip_suffix(end))
        .unwrap_or(word)
}

/// Turns a word into its index term: lowercased already, stemmed when the index stems.
pub struct Analyzer {
    stemmer: Option<Stemmer>,
}

impl Analyzer {
    /// The analyzer for `lang`; `stemming: false` keeps words as they are.
    pub fn new(lang: Lang, stemming: bool) -> Analyzer {
        Analyzer {
            stemmer: stemming.then(|| Stemmer::new(lang)),
        }
    }

    /// The index term for one lowercased word.
    pub fn term<'a>(&self, word: &'a str) -> Cow<'a, str> {
        match &self.stemmer {
            Some(s) => s.stem(word),
            None => Cow::Borrowed(word),
        }
    }
}

/// Tokens longer than this are noise (hashes, base64) and are skipped.
const MAX_TOKEN_BYTES: usize = 48;

/// Splits text into lowercased word tokens with their byte ranges in `text`.
///
/// A token is a run of alphanumeric characters; everything else separates.
pub fn tokens(text: &str) -> impl Iterator<Item = (std::ops::Range<usize>, String)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        loop {
            let (start, _) = chars.by_ref().find(|(_, c)| c.is_alphanumeric())?;
            let mut end = text.len();
            while let Some(&(i, c)) = chars.peek() {
                if !c.is_alphanumeric() {
                    end = i;
                    break;
                }
                chars.next();
            }
            let word = text.get(start..end).unwrap_or("");
            if word.len() <= MAX_TOKEN_BYTES {
                return Some((start..end, word.to_lowercase()));
            }
        }
    })
}

/// Clitics an English contraction writes after an apostrophe ("SPOOL_DIR's", "we've", "I'm").
const CLITICS: &[&str] = &["d", "ll", "m", "re", "s", "t", "ve"];

/// Whether the token at `range` of `text` is part of an English contraction, not a word of
/// its own: the clitic after an apostrophe ("SPOOL_DIR*'s*", "we*'ve*") or the auxiliary
/// before "n't" ("*doesn*'t", "*won*'t"). A decline never names one (the visitor wrote no
/// word "s"); the question is still matched with them, which measured better than without.
pub(crate) fn in_contraction(text: &str, range: &std::ops::Range<usize>) -> bool {
    let apostrophe = |c: char| c == '\'' || c == '\u{2019}';
    let word = text.get(range.clone()).unwrap_or("").to_lowercase();
    let mut before = text.get(..range.start).unwrap_or("").chars().rev();
    let clitic = before.next().is_some_and(apostrophe)
        && before.next().is_some_and(char::is_alphanumeric)
        && CLITICS.contains(&word.as_str());
    let mut after = text.get(range.end..).unwrap_or("").chars();
    let negated = word.ends_with('n')
        && after.next().is_some_and(apostrophe)
        && after.next().is_some_and(|c| c == 't' || c == 'T')
        && !after.next().is_some_and(char::is_alphanumeric);
    clitic || negated
}

/// Whether `word` (lowercased) is a stopword in `lang`.
pub fn is_stopword(word: &str, lang: Lang) -> bool {
    has_sorted(words(lang).stopwords, word)
}

/// Whether `word` (lowercased), following `previous`, is the quantity word of "how long",
/// "wie oft", "cuánto tiempo", …. French puts "de" between them: callers pass the word before
/// it ([`skips_as_previous`]).
pub(crate) fn asks_how_much(previous: &str, word: &str) -> bool {
    (in_any(List::HowBeforeQuantity, previous) && in_any(List::QuantityAfterHow, word))
        || (in_any(List::HowMuchBeforeTime, previous) && in_any(List::TimeWords, word))
}

/// Whether `word` is passed over when remembering the word before the next one ("combien *de*
/// temps").
pub(crate) fn skips_as_previous(word: &str) -> bool {
    in_any(List::SkippedBeforeTime, word)
}

/// Whether `word` (lowercased) frames a question about what is written or thought rather than
/// naming its subject, in `lang`: a verb ("What does she *think* about…", "Where is it
/// *written*…") or a word for the pages themselves ("What do the *docs* say about…"), which a
/// site rarely uses of itself.
pub(crate) fn is_framing(word: &str, lang: Lang) -> bool {
    has_sorted(words(lang).framing, word)
}

/// Whether a text's `words` (lowercased tokens) read as English rather than another language:
/// against each other language, no more of them are that language's stopwords alone ("wie",
/// "combien", "hoe") than English's alone (a text with neither reads as English; "a" or "in"
/// count for neither side of a language that shares them). The query model was distilled from
/// an English teacher, so another language's question's vector means nothing.
pub(crate) fn reads_as_english(words: &[String]) -> bool {
    Lang::ALL
        .into_iter()
        .filter(|&l| l != Lang::English)
        .all(|other| {
            let (theirs, english) = small_words(words, &[Lang::English], other);
            english >= theirs
        })
}

/// How many of `words` are `other`'s stopwords and none of `ours`', and how many are a
/// stopword of `ours` and not `other`'s: words both share ("a", "in") count for neither.
fn small_words(words: &[String], ours: &[Lang], other: Lang) -> (usize, usize) {
    let (mut theirs, mut own) = (0usize, 0usize);
    for word in words {
        let our_word = ours.iter().any(|&l| is_stopword(word, l));
        let their_word = is_stopword(word, other);
        theirs += usize::from(their_word && !our_word);
        own += usize::from(our_word && !their_word);
    }
    (theirs, own)
}

/// The language a text's `words` are written in when it is none of `site`'s: the other
/// language with the most words that are its stopwords and none of `site`'s, at least two of
/// them and more than the words that are `site`'s stopwords and not its ("Wie starte ich den
/// Server?" on English pages is German: "wie", "ich", "den"). Its small words are then not
/// read as subject words, and a decline can say why nothing matched.
pub(crate) fn foreign_language(words: &[String], site: &[Lang]) -> Option<Lang> {
    let mut best: Option<(usize, Lang)> = None;
    for other in Lang::ALL.into_iter().filter(|l| !site.contains(l)) {
        let (theirs, ours) = small_words(words, site, other);
        if theirs >= 2 && theirs > ours && best.is_none_or(|(n, _)| theirs > n) {
            best = Some((theirs, other));
        }
    }
    best.map(|(_, lang)| lang)
}

/// `parts` with `sep` between them: `[&str]::join` without its generic copy, which the wasm
/// module otherwise carries twice (for `&str` and for `String` parts).
pub(crate) fn join(parts: &[&str], sep: &str) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(part);
    }
    out
}

/// Typography folded back to what authors type: ‘ ’ ‚ → ', “ ” „ → ", – → --, — → ---, … → ...
/// (Sphinx and mdBook render it, markdown does not). How the harness and the reader comparison
/// line up a generator's page with its source; the engine does not use it.
pub fn fold_typography(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let typed: &[char] = match c {
                '\u{2018}' | '\u{2019}' | '\u{201a}' => &['\''],
                '\u{201c}' | '\u{201d}' | '\u{201e}' => &['"'],
                '\u{2013}' => &['-', '-'],
                '\u{2014}' => &['-', '-', '-'],
                '\u{2026}' => &['.', '.', '.'],
                _ => return vec![c],
            };
            typed.to_vec()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_puts_the_separator_between_parts_only() {
        assert_eq!(join(&["a", "b", "c"], ", "), "a, b, c");
        assert_eq!(join(&["a"], "\n"), "a");
        assert_eq!(join(&[], " "), "");
    }

    fn words(text: &str) -> Vec<String> {
        tokens(text).map(|(_, w)| w).collect()
    }

    #[test]
    fn contractions_are_told_from_words() {
        let kept = |text: &str| -> Vec<String> {
            tokens(text)
                .filter(|(r, _)| !in_contraction(text, r))
                .map(|(_, w)| w)
                .collect()
        };
        assert_eq!(
            kept("What is SPOOL_DIR's default? We\u{2019}ve tried, it doesn't start."),
            [
                "what", "is", "spool", "dir", "default", "we", "tried", "it", "start"
            ]
        );
        assert_eq!(kept("I'm sure I WON'T"), ["i", "sure", "i"]);
        // Not contractions: a quoted letter, a French elision, a word that only ends in "n".
        assert_eq!(kept("the 's' key"), ["the", "s", "key"]);
        assert_eq!(
            kept("qu'est-ce que l'index"),
            ["qu", "est", "ce", "que", "l", "index"]
        );
        assert_eq!(kept("run 'tests'"), ["run", "tests"]);
        assert_eq!(kept("Don"), ["don"]);
    }

    #[test]
    fn tokens_are_lowercased_alphanumeric_runs_with_exact_ranges() {
        let text = "Größe: 2×Bikes, don't—e-mail!";
        assert_eq!(
            words(text),
            ["größe", "2", "bikes", "don", "t", "e", "mail"]
        );
        for (range, word) in tokens(text) {
            assert_eq!(text[range].to_lowercase(), word);
        }
    }

    #[test]
    fn overlong_tokens_are_skipped() {
        let long = "x".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(words(&format!("a {long} b")), ["a", "b"]);
    }

    #[test]
    fn a_question_reads_as_english_unless_its_small_words_are_another_languages() {
        for other in [
            "Combien de temps ai-je pour retourner un vélo ?",
            "¿Cuánto tiempo tengo para devolver una bicicleta?",
            "Hoe lang heb ik om een fiets terug te sturen?",
            "Quanto tempo ho per restituire una bici?",
            "Quanto tempo tenho para devolver uma bicicleta?",
        ] {
            assert!(!reads_as_english(&words(other)), "{other}");
        }
        // Words English shares with another language ("is" in Dutch, "o" in Spanish) count for
        // neither.
        for english in [
            "Is O(n) guaranteed?",
            "Is there no way to return a bike?",
            "Can I use the de facto standard over HTTP?",
        ] {
            assert!(reads_as_english(&words(english)), "{english}");
        }
    }

    #[test]
    fn a_question_in_a_language_the_pages_are_not_in_is_told_apart() {
        let en = [Lang::English];
        let cases = [
            ("Wie starte ich den Server?", Some(Lang::German)),
            ("Comment changer le port du serveur ?", Some(Lang::French)),
            ("¿Cómo cambio el puerto del servidor?", Some(Lang::Spanish)),
            (
                "Hoe lang heb ik om een fiets terug te sturen?",
                Some(Lang::Dutch),
            ),
            (
                "Quanto tempo ho per restituire una bici?",
                Some(Lang::Italian),
            ),
            // Question words and pronouns are small words too ("wann", "welche", "mein").
            ("Wann fährt die erste Fähre?", Some(Lang::German)),
            (
                "Welche Optionen gibt es für mein Projekt?",
                Some(Lang::German),
            ),
            ("How do I change the port of the server?", None),
            ("Where is the man page of the wann command?", None),
            ("Can I use the de facto standard over HTTP?", None),
            ("Is O(n) guaranteed?", None),
            // One word is not a language: a name or a loan word.
            ("Where is the Rückgabe page of der Spiegel?", None),
        ];
        for (question, lang) in cases {
            assert_eq!(foreign_language(&words(question), &en), lang, "{question}");
        }
        // A language the pages are in is not foreign.
        let both = [Lang::English, Lang::German];
        assert_eq!(
            foreign_language(&words("Wie starte ich den Server?"), &both),
            None
        );
    }

    #[test]
    fn quantity_words_follow_how_in_each_language() {
        assert!(asks_how_much("how", "long"));
        assert!(asks_how_much("hoe", "lang"));
        assert!(asks_how_much("cuánto", "tiempo"));
        assert!(!asks_how_much("how", "temps"));
        assert!(!asks_how_much("de", "temps"));
        assert!(skips_as_previous("de"));
    }

    #[test]
    fn a_question_reads_as_english_unless_its_small_words_are_german() {
        assert!(reads_as_english(&words(
            "How long do I have to return a bike?"
        )));
        assert!(reads_as_english(&words(
            "Is there an English version of the Rückgabe page?"
        )));
        assert!(reads_as_english(&words("Rückgabe?")));
        assert!(!reads_as_english(&words(
            "Wie lange habe ich Zeit, ein Rad zurückzugeben?"
        )));
        assert!(!reads_as_english(&words(
            "Was kostet die Abholung eines Rades zur Rückgabe?"
        )));
    }

    #[test]
    fn stemming_follows_the_language() {
        assert_eq!(Stemmer::new(Lang::English).stem("refunds"), "refund");
        assert_eq!(Stemmer::new(Lang::German).stem("rückgaben"), "ruckgab");
        assert_eq!(Stemmer::new(Lang::French).stem("retours"), "retour");
        assert_eq!(Stemmer::new(Lang::Spanish).stem("envíos"), "envío");
        assert_eq!(Stemmer::new(Lang::Italian).stem("prezzi"), "prezz");
        assert_eq!(Stemmer::new(Lang::Italian).stem("prezzo"), "prezz");
        assert_eq!(Stemmer::new(Lang::Dutch).stem("fietsen"), "fiets");
        assert_eq!(Stemmer::new(Lang::French).stem("vélo"), "vélo");
        assert_eq!(Lang::from_tag("de-AT"), Some(Lang::German));
        assert_eq!(Lang::from_tag("xx"), None);
    }
}
