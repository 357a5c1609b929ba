//! Every per-language word list the engine reads, one file per language, so adding a language
//! is one file here (and its `Lang` variant). Lists of symbols, and words that are no
//! language's, stay where they are used.
//!
//! Most lists are read for every language at once ([`in_any`], [`find_phrase`]): a question's
//! opening words are matched in whichever language it is written. The stopwords, framing
//! words, plural endings and the words that refer back are read for one language ([`words`]).

use serde::{Deserialize, Serialize};

mod de;
mod en;
mod es;
mod fr;
mod it;
mod nl;
mod pt;

/// One language's word lists, lowercased. Each list is one string: words separated by single
/// spaces, or, for the lists of phrases (`fresh`, `refinement_openers`, `introductions`,
/// `change_notes`), phrases separated by `|`. In the wasm module a string is half the bytes of
/// a slice of `&str`. The stopwords and framing words are sorted (byte order), for
/// [`has_sorted`]'s binary search.
pub(crate) struct Words {
    // Text (`text.rs`): read for one language.
    /// Stopwords, sorted ([`has_sorted`]; a unit test keeps them sorted).
    pub stopwords: &'static str,
    /// Words that frame a question about what is written or thought ("think", "docs"), sorted.
    pub framing: &'static str,
    /// Plural endings the light stemmer folds, tried in order (none where Snowball stems).
    pub plural_endings: &'static str,
    // Text: read for every language.
    /// "how" before a quantity word ("how long", "wie oft").
    pub how_before_quantity: &'static str,
    /// Quantity words after "how" ("long", "oft").
    pub quantity_after_how: &'static str,
    /// "how much" before a word for time ("combien de temps", "cuánto tiempo").
    pub how_much_before_time: &'static str,
    /// Words for time after those.
    pub time_words: &'static str,
    /// Words passed over between those two ("combien *de* temps").
    pub skipped_before_time: &'static str,

    // What a question asks for (`answer/kind.rs`): read for every language.
    /// Words that make "what is the …" ask for a number ("price", "Preis").
    pub quantity_nouns: &'static str,
    /// Words that ask "which" or "what".
    pub which: &'static str,
    /// Words that ask for a number on their own ("combien", "hoeveel").
    pub how_much: &'static str,
    /// "When" and "since": they ask for a date or a version.
    pub when: &'static str,
    /// "How", asking for a way.
    pub how: &'static str,
    /// "Why".
    pub why: &'static str,
    /// Auxiliaries that open a yes/no question.
    pub yes_no_openers: &'static str,
    /// Words that open a question of another kind ("where", "who").
    pub other_openers: &'static str,
    /// Verbs that make "what does X …" ask for a definition.
    pub defining_verbs: &'static str,
    /// Verbs that, opening a few keywords, ask how to do something ("generate a secret key").
    pub instruction_verbs: &'static str,
    /// Words that open a question about what the pages say on a subject.
    pub topic_openers: &'static str,
    /// "about": what follows names the subject.
    pub about: &'static str,

    // Follow-ups (`answer/turn.rs`): read for every language.
    /// Opening phrases that start afresh ("new question: …").
    pub fresh: &'static str,
    /// Openers of a refinement, longest first (first match wins).
    pub refinement_openers: &'static str,
    /// Words that ask for a reason ("why", "warum"); a follow-up in German is answered with
    /// "Warum?".
    pub followup_why: &'static str,
    /// Words an explanation request may have besides those.
    pub fillers: &'static str,
    /// Words that open a question of its own.
    pub opens_question: &'static str,
    /// Prepositions.
    pub prepositions: &'static str,
    /// Articles.
    pub articles: &'static str,
    /// Articles and possessives that open a noun phrase.
    pub determiners: &'static str,
    /// Auxiliaries after which "the X verb" ends in the verb.
    pub do_aux: &'static str,
    /// Forms of "be" that do the same.
    pub be_aux: &'static str,
    /// Persons before a verb ("How do *I* install…").
    pub persons: &'static str,
    /// Pronouns that may refer back, always ("it") or when they end a phrase ("that?").
    pub pronouns: &'static str,
    /// Demonstratives.
    pub demonstratives: &'static str,

    // Quotes and evidence (`answer/quote.rs`, `answer/evidence.rs`).
    /// First words of a sentence that points back at the one before it; read for the page's
    /// language, and a language with none reads with English's (with its two lists below).
    pub refers_back: &'static str,
    /// Prepositions that point back with one of `back_pointers` after them ("After that,").
    pub back_prepositions: &'static str,
    /// The pointers after those.
    pub back_pointers: &'static str,
    /// Openings of a sentence that only introduces what follows ("this page "); read for
    /// every language.
    pub introductions: &'static str,
    /// Words that join several asks in one question ("and", "oder"); every language.
    pub joiners: &'static str,

    // Pages and collections (`page.rs`, `collection.rs`): read for every language.
    /// Words of a question about versions, releases or changes.
    pub change_words: &'static str,
    /// Openings of a version note inside a page ("Changed in version").
    pub change_notes: &'static str,
    /// Words of a question about a decision.
    pub decision_words: &'static str,
}

/// A list read for every language at once ([`in_any`], [`find_phrase`]): the field of [`Words`]
/// of the same name.
#[derive(Clone, Copy)]
pub(crate) enum List {
    HowBeforeQuantity,
    QuantityAfterHow,
    HowMuchBeforeTime,
    TimeWords,
    SkippedBeforeTime,
    QuantityNouns,
    Which,
    HowMuch,
    When,
    How,
    Why,
    YesNoOpeners,
    OtherOpeners,
    DefiningVerbs,
    InstructionVerbs,
    TopicOpeners,
    About,
    Fresh,
    RefinementOpeners,
    FollowupWhy,
    Fillers,
    OpensQuestion,
    Prepositions,
    Articles,
    Determiners,
    DoAux,
    BeAux,
    Persons,
    Pronouns,
    Demonstratives,
    Introductions,
    Joiners,
    ChangeWords,
    ChangeNotes,
    DecisionWords,
}

impl Words {
    /// The list `list` of this language.
    fn list(&self, list: List) -> &'static str {
        match list {
            List::HowBeforeQuantity => self.how_before_quantity,
            List::QuantityAfterHow => self.quantity_after_how,
            List::HowMuchBeforeTime => self.how_much_before_time,
            List::TimeWords => self.time_words,
            List::SkippedBeforeTime => self.skipped_before_time,
            List::QuantityNouns => self.quantity_nouns,
            List::Which => self.which,
            List::HowMuch => self.how_much,
            List::When => self.when,
            List::How => self.how,
            List::Why => self.why,
            List::YesNoOpeners => self.yes_no_openers,
            List::OtherOpeners => self.other_openers,
            List::DefiningVerbs => self.defining_verbs,
            List::InstructionVerbs => self.instruction_verbs,
            List::TopicOpeners => self.topic_openers,
            List::About => self.about,
            List::Fresh => self.fresh,
            List::RefinementOpeners => self.refinement_openers,
            List::FollowupWhy => self.followup_why,
            List::Fillers => self.fillers,
            List::OpensQuestion => self.opens_question,
            List::Prepositions => self.prepositions,
            List::Articles => self.articles,
            List::Determiners => self.determiners,
            List::DoAux => self.do_aux,
            List::BeAux => self.be_aux,
            List::Persons => self.persons,
            List::Pronouns => self.pronouns,
            List::Demonstratives => self.demonstratives,
            List::Introductions => self.introductions,
            List::Joiners => self.joiners,
            List::ChangeWords => self.change_words,
            List::ChangeNotes => self.change_notes,
            List::DecisionWords => self.decision_words,
        }
    }
}

/// A document language: it picks the stemmer and the stopword list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Lang {
    /// English (Snowball English stemmer).
    English,
    /// German (Snowball German stemmer).
    German,
    /// French (light stemmer: plural folding).
    French,
    /// Spanish (light stemmer).
    Spanish,
    /// Dutch (light stemmer).
    Dutch,
    /// Italian (light stemmer).
    Italian,
    /// Portuguese (light stemmer).
    Portuguese,
}

impl Lang {
    /// Every supported language, in a stable order.
    pub const ALL: [Lang; 7] = [
        Lang::English,
        Lang::German,
        Lang::French,
        Lang::Spanish,
        Lang::Dutch,
        Lang::Italian,
        Lang::Portuguese,
    ];

    /// Parses a BCP 47 tag such as `en`, `de-AT` or `pt_BR` by its primary language.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        Some(match primary.to_ascii_lowercase().as_str() {
            "en" => Lang::English,
            "de" => Lang::German,
            "fr" => Lang::French,
            "es" => Lang::Spanish,
            "nl" => Lang::Dutch,
            "it" => Lang::Italian,
            "pt" => Lang::Portuguese,
            _ => return None,
        })
    }

    /// The two-letter tag of this language.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::English => "en",
            Lang::German => "de",
            Lang::French => "fr",
            Lang::Spanish => "es",
            Lang::Dutch => "nl",
            Lang::Italian => "it",
            Lang::Portuguese => "pt",
        }
    }
}

/// A language with no words: each file starts from it and fills what it has.
pub(crate) const NONE: Words = Words {
    stopwords: "",
    framing: "",
    plural_endings: "",
    how_before_quantity: "",
    quantity_after_how: "",
    how_much_before_time: "",
    time_words: "",
    skipped_before_time: "",
    quantity_nouns: "",
    which: "",
    how_much: "",
    when: "",
    how: "",
    why: "",
    yes_no_openers: "",
    other_openers: "",
    defining_verbs: "",
    instruction_verbs: "",
    topic_openers: "",
    about: "",
    fresh: "",
    refinement_openers: "",
    followup_why: "",
    fillers: "",
    opens_question: "",
    prepositions: "",
    articles: "",
    determiners: "",
    do_aux: "",
    be_aux: "",
    persons: "",
    pronouns: "",
    demonstratives: "",
    refers_back: "",
    back_prepositions: "",
    back_pointers: "",
    introductions: "",
    joiners: "",
    change_words: "",
    change_notes: "",
    decision_words: "",
};

/// Every language's words, in the order of [`Lang::ALL`].
const ALL: [&Words; 7] = [
    &en::WORDS,
    &de::WORDS,
    &fr::WORDS,
    &es::WORDS,
    &nl::WORDS,
    &it::WORDS,
    &pt::WORDS,
];

/// The word lists of `lang`.
pub(crate) fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::English => &en::WORDS,
        Lang::German => &de::WORDS,
        Lang::French => &fr::WORDS,
        Lang::Spanish => &es::WORDS,
        Lang::Dutch => &nl::WORDS,
        Lang::Italian => &it::WORDS,
        Lang::Portuguese => &pt::WORDS,
    }
}

/// Whether `word` is in the space-separated `list`.
pub(crate) fn has(list: &str, word: &str) -> bool {
    !word.is_empty() && list.split(' ').any(|l| l == word)
}

/// Whether `word` is in the sorted space-separated `list`: a binary search over the string,
/// as fast as one over a sorted slice (the stopwords are looked up for every word indexed).
pub(crate) fn has_sorted(list: &str, word: &str) -> bool {
    let mut rest = list;
    while !rest.is_empty() {
        let bytes = rest.as_bytes();
        let mid = bytes.len() / 2;
        // The word around the middle byte: spaces are ASCII, so both ends are char boundaries.
        let start = bytes[..mid]
            .iter()
            .rposition(|&b| b == b' ')
            .map_or(0, |i| i + 1);
        let end = bytes[mid..]
            .iter()
            .position(|&b| b == b' ')
            .map_or(bytes.len(), |i| mid + i);
        rest = match rest[start..end].cmp(word) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => rest.get(end + 1..).unwrap_or_default(),
            std::cmp::Ordering::Greater => rest.get(..start.saturating_sub(1)).unwrap_or_default(),
        };
    }
    false
}

/// The first of every language's phrases in one `|`-separated list for which `found` gives
/// something, language by language in the order of [`Lang::ALL`] (so a list read first-match
/// keeps its order within each language). Plain loops: iterator adapters over the languages
/// cost the wasm module about a kilobyte.
pub(crate) fn find_phrase<T>(
    list: List,
    mut found: impl FnMut(&'static str) -> Option<T>,
) -> Option<T> {
    for words in ALL {
        for phrase in words.list(list).split('|') {
            if !phrase.is_empty()
                && let Some(t) = found(phrase)
            {
                return Some(t);
            }
        }
    }
    None
}

/// Whether `word` is in the space-separated `list` of any language.
pub(crate) fn in_any(list: List, word: &str) -> bool {
    ALL.iter().any(|w| has(w.list(list), word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every list of every language, by name.
    fn lists(w: &Words) -> Vec<(&'static str, &'static str)> {
        let mut all = vec![
            ("stopwords", w.stopwords),
            ("framing", w.framing),
            ("plural_endings", w.plural_endings),
            ("refers_back", w.refers_back),
            ("back_prepositions", w.back_prepositions),
            ("back_pointers", w.back_pointers),
        ];
        let shared = [
            List::HowBeforeQuantity,
            List::QuantityAfterHow,
            List::HowMuchBeforeTime,
            List::TimeWords,
            List::SkippedBeforeTime,
            List::QuantityNouns,
            List::Which,
            List::HowMuch,
            List::When,
            List::How,
            List::Why,
            List::YesNoOpeners,
            List::OtherOpeners,
            List::DefiningVerbs,
            List::InstructionVerbs,
            List::TopicOpeners,
            List::About,
            List::Fresh,
            List::RefinementOpeners,
            List::FollowupWhy,
            List::Fillers,
            List::OpensQuestion,
            List::Prepositions,
            List::Articles,
            List::Determiners,
            List::DoAux,
            List::BeAux,
            List::Persons,
            List::Pronouns,
            List::Demonstratives,
            List::Introductions,
            List::Joiners,
            List::ChangeWords,
            List::ChangeNotes,
            List::DecisionWords,
        ];
        all.extend(shared.map(|l| ("shared", w.list(l))));
        all
    }

    #[test]
    fn sorted_lists_are_sorted() {
        for lang in Lang::ALL {
            let w = words(lang);
            for list in [w.stopwords, w.framing] {
                let list: Vec<&str> = list.split(' ').collect();
                assert!(list.windows(2).all(|p| p[0] < p[1]), "{lang:?}: {list:?}");
            }
        }
    }

    #[test]
    fn lists_are_single_spaced() {
        for lang in Lang::ALL {
            for (name, list) in lists(words(lang)) {
                // Phrases may hold spaces, and "this page " ends with one.
                let phrases = list.contains('|') || list.contains("  ");
                let words_ok =
                    !list.starts_with(' ') && !list.ends_with(' ') && !list.contains("  ");
                assert!(phrases || words_ok, "{lang:?} {name}: {list:?}");
                assert!(
                    !list.contains("||") && !list.starts_with('|'),
                    "{lang:?} {name}"
                );
            }
        }
    }

    #[test]
    fn the_binary_search_finds_every_word_and_nothing_else() {
        for lang in Lang::ALL {
            let w = words(lang);
            for list in [w.stopwords, w.framing] {
                for word in list.split(' ').filter(|w| !w.is_empty()) {
                    assert!(has_sorted(list, word), "{lang:?}: {word}");
                    for other in [
                        format!("{word}x"),
                        format!("a{word}"),
                        word.chars().skip(1).collect(),
                    ] {
                        let listed = list.split(' ').any(|l| l == other);
                        assert_eq!(has_sorted(list, &other), listed, "{lang:?}: {other}");
                    }
                }
            }
        }
        assert!(!has_sorted("", "a"));
        assert!(!has_sorted("b c", ""));
    }
}
