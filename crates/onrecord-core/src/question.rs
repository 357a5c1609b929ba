//! What may be asked: a question's length and characters. [`crate::ask`] declines anything
//! else, and the proxy refuses it before a model sees it.

use std::fmt;

/// The longest question, in characters. The widget's question box has the same `maxlength`;
/// a megabyte of text is no question, and tokenizing it would hold the engine for seconds.
pub const MAX_QUESTION_CHARS: usize = 500;

/// Why a question cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum QuestionError {
    /// Longer than [`MAX_QUESTION_CHARS`].
    TooLong {
        /// Its length in characters (after trimming).
        chars: usize,
    },
    /// It holds a control character (NUL, escape, …) other than tabs and line breaks.
    ControlCharacter,
}

impl fmt::Display for QuestionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuestionError::TooLong { chars } => write!(
                f,
                "the question has {chars} characters; at most {MAX_QUESTION_CHARS} are allowed"
            ),
            QuestionError::ControlCharacter => f.write_str("the question holds control characters"),
        }
    }
}

impl std::error::Error for QuestionError {}

/// The question without surrounding whitespace, when it can be asked: at most
/// [`MAX_QUESTION_CHARS`] characters and no control characters other than whitespace.
///
/// ```
/// use onrecord_core::{check_question, QuestionError, MAX_QUESTION_CHARS};
///
/// assert_eq!(check_question("  When do refunds arrive?\n"), Ok("When do refunds arrive?"));
/// assert_eq!(check_question("\0\0\0"), Err(QuestionError::ControlCharacter));
/// let long = "why ".repeat(MAX_QUESTION_CHARS);
/// assert!(matches!(check_question(&long), Err(QuestionError::TooLong { .. })));
/// ```
pub fn check_question(question: &str) -> Result<&str, QuestionError> {
    let question = question.trim();
    let mut chars = 0;
    for c in question.chars() {
        if c.is_control() && !c.is_whitespace() {
            return Err(QuestionError::ControlCharacter);
        }
        chars += 1;
    }
    if chars > MAX_QUESTION_CHARS {
        return Err(QuestionError::TooLong { chars });
    }
    Ok(question)
}
