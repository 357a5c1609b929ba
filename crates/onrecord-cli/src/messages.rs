//! Every sentence the CLI prints about an answer, in one place: the decline's reason as the
//! widget says it (the widget's own sentences live in `www/onrecord/messages.js`, the one
//! JavaScript place; this module is the one Rust place), and the labels of `onrecord ask`.

use onrecord_core::{Decline, QuestionError};

/// What the question was matched by: words only, or words and meaning (the query model).
pub(crate) fn matched_by(vectors: bool) -> &'static str {
    if vectors {
        "words and meaning"
    } else {
        "words only"
    }
}

/// Before a private note's routing hint.
pub(crate) const PRIVATE_NOTE: &str = "a private note bears on it";
/// Before the question's words that no page uses.
pub(crate) const WORDS_NO_PAGE_USES: &str = "words no page uses";
/// Before the typo corrections the question was read with.
pub(crate) const READ_AS: &str = "read as";

/// The heading of the results: never an answer, so a decline's results say so.
pub(crate) fn results_heading(declined: bool) -> &'static str {
    if declined {
        "results (not an answer; these sections may help):\n"
    } else {
        "results:\n"
    }
}

/// The decline's gate (the widget's names) and its reason in words.
pub(crate) fn decline(decline: &Decline) -> (&'static str, String) {
    let quoted = |terms: &[String]| {
        terms
            .iter()
            .map(|t| format!("‘{t}’"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let percent = |share: f32| (share.clamp(0.0, 1.0) * 100.0).round() as u32;
    // As the widget says it (messages.js `gateOf`): with every word of the question covered,
    // the decline model weighed the evidence as a whole, so no percentage explains it.
    let weak = "the closest passage uses the question's words but does not answer it clearly enough to be quoted";
    match decline {
        Decline::NoContentWords => (
            "no-content-words",
            "the question has no content words".into(),
        ),
        Decline::NeverMentioned { terms } => (
            "never-mentioned",
            format!("no page mentions {}", quoted(terms)),
        ),
        Decline::Missing { terms } => (
            "missing",
            format!("the closest passage does not mention {}", quoted(terms)),
        ),
        Decline::Unsupported { coverage } if percent(*coverage) >= 100 => {
            ("unsupported", weak.into())
        }
        Decline::BelowFloor { coverage, .. } if percent(*coverage) >= 100 => {
            ("below-floor", weak.into())
        }
        Decline::Unsupported { coverage } => (
            "unsupported",
            format!(
                "the best sentence carries only {}% of the question",
                percent(*coverage)
            ),
        ),
        Decline::NoAmount => (
            "no-amount",
            "the question asks for a number and the closest sentence gives none".into(),
        ),
        Decline::BelowFloor { coverage, meaning } => (
            "below-floor",
            match meaning {
                Some(cos) => format!(
                    "the best passage covers {}% of the question's words, meaning similarity {cos:.2}",
                    percent(*coverage)
                ),
                None => format!(
                    "the best passage covers only {}% of the question's words",
                    percent(*coverage)
                ),
            },
        ),
        Decline::OtherLanguage { lang } => (
            "other-language",
            format!(
                "the question reads as language '{}', and no page is in it",
                lang.tag()
            ),
        ),
        Decline::BadQuestion(why @ QuestionError::TooLong { .. }) => ("too-long", why.to_string()),
        Decline::BadQuestion(why) => ("control-characters", why.to_string()),
        _ => ("other", "declined".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A percentage explains a decline only when some of the question was not covered.
    #[test]
    fn a_fully_covered_decline_is_not_explained_by_a_percentage() {
        let (gate, full) = decline(&Decline::Unsupported { coverage: 1.0 });
        assert_eq!(gate, "unsupported");
        assert!(
            !full.contains('%') && full.contains("clearly enough"),
            "{full}"
        );
        let (gate, full) = decline(&Decline::BelowFloor {
            coverage: 1.0,
            meaning: Some(0.4),
        });
        assert_eq!(gate, "below-floor");
        assert!(!full.contains('%'), "{full}");
        let (_, part) = decline(&Decline::Unsupported { coverage: 0.4 });
        assert!(part.contains("only 40%"), "{part}");
    }

    /// A question that cannot be asked is declined saying why, with the widget's gates.
    #[test]
    fn a_question_that_cannot_be_asked_says_why() {
        let (gate, why) = decline(&Decline::BadQuestion(QuestionError::TooLong { chars: 800 }));
        assert_eq!(gate, "too-long");
        assert!(
            why.contains("800 characters") && why.contains("500"),
            "{why}"
        );
        let (gate, why) = decline(&Decline::BadQuestion(QuestionError::ControlCharacter));
        assert_eq!(gate, "control-characters");
        assert!(why.contains("control characters"), "{why}");
    }
}
