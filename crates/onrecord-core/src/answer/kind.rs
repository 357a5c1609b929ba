//! What kind of answer a question asks for, and whether a sentence is that kind of answer: a
//! definition for "what is", an instruction for "how do I", a number for "how much", a reason
//! for "why". The quote picker prefers such sentences among those that carry the question.

use crate::lang::{List, in_any};
use crate::question::Question;
use crate::text::{Lang, asks_how_much, is_framing, is_stopword, tokens};

/// The kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AskKind {
    /// "What is X?", "What does X allow?": a definition or the section's opening.
    Definition,
    /// "How do I X?": an instruction, or a code block an instruction introduces.
    HowTo,
    /// "How much / how many / how long / which version / when?": a number.
    Quantity,
    /// "Does / can / is …?": a statement that says yes or no.
    YesNo,
    /// "Why …?": a reason.
    Reason,
    /// "What does she think about fame?", "What is Harbor Lights about?": what the pages say
    /// on a subject, answered by a page about it.
    Topic,
    /// Anything else.
    Other,
}

impl AskKind {
    /// Every kind, in a stable order (for reports).
    pub const ALL: [AskKind; 7] = [
        AskKind::Definition,
        AskKind::HowTo,
        AskKind::Quantity,
        AskKind::YesNo,
        AskKind::Reason,
        AskKind::Topic,
        AskKind::Other,
    ];

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            AskKind::Definition => "definition",
            AskKind::HowTo => "how-to",
            AskKind::Quantity => "quantity",
            AskKind::YesNo => "yes-no",
            AskKind::Reason => "reason",
            AskKind::Topic => "topic",
            AskKind::Other => "other",
        }
    }
}

/// At most this many words are read as keywords: a short question that opens with no word
/// of a kind (`lang::Words::other_openers` and the lists above it) is typed as a search box's
/// keywords ("blackd default port"), and with a word such as "default" or "limit" in it, it asks
/// for a number. (A long one is a statement, "My build uses the default profile and …".)
const KEYWORDS_MAX: usize = 6;

/// The kind of answer `question` asks for, from its opening words (in any of the languages
/// [`Lang`] names).
pub fn ask_kind(question: &Question) -> AskKind {
    if topic_subject(question).is_some() {
        return AskKind::Topic;
    }
    let all = question.words();
    let words = all.get(..8).unwrap_or(all);
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let (first, second) = (word(0), word(1));
    match first {
        w if in_any(List::Why, w) => AskKind::Reason,
        "how" if second == "come" => AskKind::Reason,
        // "¿Por qué…?", "Por que…?" (Spanish, Portuguese).
        "por" if matches!(second, "qué" | "que") => AskKind::Reason,
        w if in_any(List::How, w) && asks_how_much(first, second) => AskKind::Quantity,
        w if in_any(List::HowMuch, w) || in_any(List::When, w) => AskKind::Quantity,
        w if in_any(List::How, w) => AskKind::HowTo,
        w if in_any(List::Which, w) && words.iter().any(|w| in_any(List::QuantityNouns, w)) => {
            AskKind::Quantity
        }
        "what" | "was" | "wat" | "qué" => {
            let defining = matches!(
                second,
                "is" | "are" | "ist" | "sind" | "s" | "zijn" | "es" | "son" | "betekent"
            ) || words.iter().skip(2).any(|w| in_any(List::DefiningVerbs, w));
            if defining {
                AskKind::Definition
            } else {
                AskKind::Other
            }
        }
        // "Qu'est-ce qu'un…" (not "Qu'est-ce que je dois faire…"), "Cos'è…", "O que é…".
        "qu" if second == "est" && matches!(word(4), "un" | "une" | "le" | "la" | "l" | "les") => {
            AskKind::Definition
        }
        "cos" | "cosa" if second == "è" => AskKind::Definition,
        "o" if second == "que" && word(2) == "é" => AskKind::Definition,
        "define" | "explain" => AskKind::Definition,
        w if in_any(List::YesNoOpeners, w) => AskKind::YesNo,
        w if !in_any(List::OtherOpeners, w)
            && all.len() <= KEYWORDS_MAX
            && words.iter().any(|w| in_any(List::QuantityNouns, w)) =>
        {
            AskKind::Quantity
        }
        // "generate a secret key": other keywords that open with a verb ask how, unless the
        // verb is a piece of a written name ("debug_depth setting").
        w if in_any(List::InstructionVerbs, w)
            && all.len() >= 2
            && all.len() <= KEYWORDS_MAX
            && question.ranges().first().is_some_and(|r| {
                matches!(question.text().as_bytes().get(r.end), None | Some(b' '))
            }) =>
        {
            AskKind::HowTo
        }
        _ => AskKind::Other,
    }
}

/// The subject of a question about what the pages say on it, lowercased words: after "about"
/// when a verb of saying or thinking comes before it ("What does Person A *think* about routine
/// and craft?" → routine, and, craft), or every word when "about" ends the question ("What is
/// the song Harbor Lights about?"). `None` for any other question ("How do I tell the compiler
/// about it?" names no subject: "tell" frames it, but "it" is no word of one).
pub(crate) fn topic_subject(question: &Question) -> Option<Vec<String>> {
    let words = question.words();
    if !words.first().is_some_and(|w| in_any(List::TopicOpeners, w)) {
        return None;
    }
    let about = words.iter().position(|w| in_any(List::About, w))?;
    let framed = words[..about]
        .iter()
        .any(|w| is_framing(w, Lang::English) || is_framing(w, Lang::German));
    let subject: Vec<String> = if about + 1 == words.len() {
        words[1..about].to_vec()
    } else if framed {
        words[about + 1..].to_vec()
    } else {
        return None;
    };
    let content = |w: &String| !is_stopword(w, Lang::English) && !is_stopword(w, Lang::German);
    subject.iter().any(content).then_some(subject)
}

/// How well one quotable unit has the shape of the answer `kind` asks for (0 or 1).
/// `opening`: the unit opens its section. `introduces_code`: it ends with ':' and code follows.
pub(crate) fn shape_matches(
    kind: AskKind,
    unit: &str,
    opening: bool,
    introduces_code: bool,
) -> bool {
    let lower = unit.to_lowercase();
    let has = |cues: &[&str]| cues.iter().any(|c| lower.contains(c));
    match kind {
        AskKind::Definition | AskKind::Topic => {
            opening
                || has(&[
                    " is a ",
                    " is an ",
                    " is the ",
                    " are ",
                    " means ",
                    " refers to ",
                    " allows ",
                    " lets ",
                    " ist ein",
                    " sind ",
                    " bedeutet ",
                ])
        }
        AskKind::HowTo => {
            introduces_code
                || tokens(unit)
                    .next()
                    .is_some_and(|(_, w)| INSTRUCTION_OPENERS.contains(&w.as_str()))
                || has(&[
                    " run ", " use ", " set ", " add ", " pass ", " call ", "you can ",
                ])
        }
        AskKind::Quantity => unit.chars().any(|c| c.is_ascii_digit()),
        AskKind::Reason => has(&[
            "because",
            " since ",
            "so that",
            "in order to",
            " to avoid",
            " to prevent",
            "reason",
            " weil ",
            " damit ",
            " da ",
        ]),
        AskKind::YesNo | AskKind::Other => false,
    }
}

/// Words that open an instruction ("Run …", "To install …, use …").
const INSTRUCTION_OPENERS: &[&str] = &[
    "add",
    "call",
    "configure",
    "create",
    "enable",
    "install",
    "pass",
    "put",
    "run",
    "set",
    "specify",
    "to",
    "use",
];

/// Numbers written as words ("ten days", "twice a year").
const NUMBER_WORDS: &[&str] = &[
    "dozen", "eight", "eleven", "fifty", "five", "forty", "four", "hundred", "million", "nine",
    "once", "one", "seven", "six", "sixty", "ten", "thirty", "thousand", "three", "twelve",
    "twenty", "twice", "two",
];
/// How a sentence states a default value that need not be a number ("defaults to
/// /var/spool/relay", "the default is `auto`"); "by default" names no value.
const DEFAULT_CUES: &[&str] = &[
    "(default",
    "default is",
    "default value is",
    "default:",
    "defaults to",
];

/// Whether `unit` gives, without a digit, what a question asking for a number may want: a
/// number in words, or (when `question` asks for a default) a stated default. Such a unit
/// is not declined as "giving no number" (the gates still weigh it as one without digits).
pub(crate) fn gives_value_in_words(question: &Question, unit: &str) -> bool {
    let asks_default = question
        .words()
        .iter()
        .any(|w| w == "default" || w == "defaults");
    let lower = unit.to_lowercase();
    tokens(unit).any(|(_, w)| NUMBER_WORDS.contains(&w.as_str()))
        || asks_default && DEFAULT_CUES.iter().any(|c| lower.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_can_be_given_in_words() {
        let q = &Question::new("What is the default spool directory?");
        assert!(gives_value_in_words(
            q,
            "It defaults to `/var/spool/relay`."
        ));
        assert!(!gives_value_in_words(q, "Jobs are spooled by default."));
        assert!(!gives_value_in_words(
            &Question::new("Where do jobs wait?"),
            "It defaults to `/var/spool/relay`."
        ));
        assert!(gives_value_in_words(
            &Question::new("How often is it retried?"),
            "Twice a day."
        ));
        assert!(!gives_value_in_words(
            &Question::new("How often is it retried?"),
            "Now and then."
        ));
    }

    #[test]
    fn kinds_come_from_the_opening_words() {
        for (q, kind) in [
            ("What is a const generic?", AskKind::Definition),
            ("What does the unsafe keyword allow?", AskKind::Definition),
            ("How do I serve static files with Express?", AskKind::HowTo),
            (
                "How much does the Care Plus plan cost per year?",
                AskKind::Quantity,
            ),
            ("What is the maximum line length?", AskKind::Quantity),
            ("When does my refund arrive?", AskKind::Quantity),
            ("Does Express support HTTP/3?", AskKind::YesNo),
            ("Combien coûte un entretien ?", AskKind::Quantity),
            ("Quel est le prix du Wren ?", AskKind::Quantity),
            ("Hoe lang duurt de levering?", AskKind::Quantity),
            ("Hoe retourneer ik een fiets?", AskKind::HowTo),
            ("¿Cómo devuelvo una bicicleta?", AskKind::HowTo),
            ("¿Por qué se cobra una tasa?", AskKind::Reason),
            ("Pourquoi le vélo est-il si lourd ?", AskKind::Reason),
            ("Quand arrive mon remboursement ?", AskKind::Quantity),
            ("Est-ce que l'atelier répare les freins ?", AskKind::YesNo),
            ("Posso restituire una bici?", AskKind::YesNo),
            ("Qu'est-ce qu'un entretien annuel ?", AskKind::Definition),
            (
                "Qu'est-ce que je dois faire si mon vélo est volé ?",
                AskKind::Other,
            ),
            ("Wat is Larkspur Care?", AskKind::Definition),
            (
                "Can I send back my e-bike if I change my mind?",
                AskKind::YesNo,
            ),
            ("Why is the build slow?", AskKind::Reason),
            ("Wie lange dauert der Versand?", AskKind::Quantity),
            ("Warum ist das so?", AskKind::Reason),
            ("Where are the logs?", AskKind::Other),
            (
                "What does Person A think about routine and craft?",
                AskKind::Topic,
            ),
            ("What is the song Harbor Lights about?", AskKind::Topic),
            ("Was schreibt sie über Ruhm?", AskKind::Topic),
            ("How do I tell the compiler about it?", AskKind::HowTo),
            ("What is known about it?", AskKind::Definition),
            ("blackd default port", AskKind::Quantity),
            ("DEBUG_DEPTH default?", AskKind::Quantity),
            ("Upload size limit?", AskKind::Quantity),
            ("Where is the default config?", AskKind::Other),
            ("trust proxy setting", AskKind::Other),
            ("generate a secret key", AskKind::HowTo),
            ("Export a backup as tar", AskKind::HowTo),
            ("limit upload size", AskKind::Quantity),
            ("add", AskKind::Other),
            ("debug_depth setting", AskKind::Other),
            (
                "My build uses the default profile and takes an hour",
                AskKind::Other,
            ),
        ] {
            assert_eq!(ask_kind(&Question::new(q)), kind, "{q}");
        }
    }

    #[test]
    fn a_topic_question_names_its_subject() {
        let subject = |q: &str| topic_subject(&Question::new(q)).unwrap_or_default();
        assert_eq!(
            subject("Where does Person A write about attention?"),
            ["attention"]
        );
        assert_eq!(
            subject("What is the song Harbor Lights about?"),
            ["is", "the", "song", "harbor", "lights"]
        );
        assert!(topic_subject(&Question::new("What do people say about it?")).is_none());
        assert!(
            topic_subject(&Question::new(
                "It has been about three weeks, what do I say?"
            ))
            .is_none()
        );
        assert!(topic_subject(&Question::new("What about the defaults?")).is_none());
    }

    #[test]
    fn shapes_follow_the_kind() {
        assert!(shape_matches(
            AskKind::Quantity,
            "It costs EUR 19 a year.",
            false,
            false
        ));
        assert!(!shape_matches(
            AskKind::Quantity,
            "It costs little.",
            false,
            false
        ));
        assert!(shape_matches(
            AskKind::Definition,
            "A const generic is a parameter.",
            false,
            false
        ));
        assert!(shape_matches(AskKind::Definition, "Anything.", true, false));
        assert!(shape_matches(
            AskKind::HowTo,
            "Run the command:",
            false,
            true
        ));
        assert!(shape_matches(
            AskKind::HowTo,
            "Use express.static to serve files.",
            false,
            false
        ));
        assert!(!shape_matches(AskKind::YesNo, "Yes.", true, true));
    }
}
