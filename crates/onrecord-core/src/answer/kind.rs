//! What kind of answer a question asks for, and whether a sentence is that kind of answer: a
//! definition for "what is", an instruction for "how do I", a number for "how much", a reason
//! for "why". The quote picker prefers such sentences among those that carry the question.

use crate::text::{asks_how_much, tokens};

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
    /// Anything else.
    Other,
}

impl AskKind {
    /// Every kind, in a stable order (for reports).
    pub const ALL: [AskKind; 6] = [
        AskKind::Definition,
        AskKind::HowTo,
        AskKind::Quantity,
        AskKind::YesNo,
        AskKind::Reason,
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
            AskKind::Other => "other",
        }
    }
}

/// Words that make "what is the …" ask for a number.
const QUANTITY_NOUNS: &[&str] = &[
    "cost", "costs", "default", "duration", "fee", "kosten", "limit", "maximum", "minimum",
    "number", "preis", "price", "size", "version",
];
/// Auxiliaries that open a yes/no question.
const YES_NO_OPENERS: &[&str] = &[
    "are", "can", "could", "darf", "did", "do", "does", "gibt", "has", "hat", "have", "is", "ist",
    "kann", "may", "muss", "must", "should", "sind", "was", "were", "will", "wird", "would",
];
/// Verbs that make "what does X …" ask for a definition.
const DEFINING_VERBS: &[&str] = &[
    "allow",
    "bedeutet",
    "do",
    "does",
    "enable",
    "mean",
    "means",
    "represent",
    "stand",
];

/// The kind of answer `question` asks for, from its opening words (English and German).
pub fn ask_kind(question: &str) -> AskKind {
    let words: Vec<String> = tokens(question).take(8).map(|(_, w)| w).collect();
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let (first, second) = (word(0), word(1));
    match first {
        "why" | "warum" | "wieso" | "weshalb" => AskKind::Reason,
        "how" if second == "come" => AskKind::Reason,
        "how" | "wie" if asks_how_much(first, second) => AskKind::Quantity,
        "how" | "wie" => AskKind::HowTo,
        "when" | "wann" | "since" | "seit" => AskKind::Quantity,
        "which" | "what" | "welche" | "welcher" | "welches" | "was"
            if words.iter().any(|w| QUANTITY_NOUNS.contains(&w.as_str())) =>
        {
            AskKind::Quantity
        }
        "what" | "was" => {
            let defining = matches!(second, "is" | "are" | "ist" | "sind" | "s")
                || words
                    .iter()
                    .skip(2)
                    .any(|w| DEFINING_VERBS.contains(&w.as_str()));
            if defining {
                AskKind::Definition
            } else {
                AskKind::Other
            }
        }
        "define" | "explain" => AskKind::Definition,
        w if YES_NO_OPENERS.contains(&w) => AskKind::YesNo,
        _ => AskKind::Other,
    }
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
        AskKind::Definition => {
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

#[cfg(test)]
mod tests {
    use super::*;

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
            (
                "Can I send back my e-bike if I change my mind?",
                AskKind::YesNo,
            ),
            ("Why is the build slow?", AskKind::Reason),
            ("Wie lange dauert der Versand?", AskKind::Quantity),
            ("Warum ist das so?", AskKind::Reason),
            ("Where are the logs?", AskKind::Other),
        ] {
            assert_eq!(ask_kind(q), kind, "{q}");
        }
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
