//! What may be asked (a question's length and characters: [`crate::ask`] declines anything
//! else, and the proxy refuses it before a model sees it), and the question as the engine
//! reads it: [`Question`], its words tokenized once and handed to every step.

use std::fmt;
use std::ops::Range;

use crate::text::tokens;

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

/// A question read once: its text and its lowercased words with their byte ranges in it, or
/// why it cannot be asked. Every step of an answer (the kind of answer asked, the search
/// terms, the language, the names it writes) reads these words rather than tokenizing the
/// text again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question<'q> {
    text: &'q str,
    words: Vec<String>,
    ranges: Vec<Range<usize>>,
    problem: Option<QuestionError>,
}

impl<'q> Question<'q> {
    /// A visitor's question: [`check_question`]ed (trimmed, bounded), then read. One that
    /// cannot be asked keeps its text as given, has no words and says why
    /// ([`Question::problem`]): the engine declines it, and never tokenizes it.
    ///
    /// ```
    /// use onrecord_core::{Question, QuestionError};
    ///
    /// let q = Question::read("  How do I return a bike? ");
    /// assert_eq!(q.text(), "How do I return a bike?");
    /// assert_eq!(q.words(), ["how", "do", "i", "return", "a", "bike"]);
    /// let bad = Question::read("why\0");
    /// assert_eq!(bad.problem(), Some(QuestionError::ControlCharacter));
    /// assert!(bad.words().is_empty());
    /// ```
    pub fn read(text: &'q str) -> Question<'q> {
        match check_question(text) {
            Ok(text) => Question::new(text),
            Err(why) => Question {
                text,
                words: Vec::new(),
                ranges: Vec::new(),
                problem: Some(why),
            },
        }
    }

    /// `text` read as a question without the visitor's checks: for text the engine or a tool
    /// already holds (a previous question, an eval set's question).
    pub fn new(text: &'q str) -> Question<'q> {
        // Pushed one by one: `unzip` is a kilobyte of generic code in the wasm module.
        let (mut ranges, mut words) = (Vec::new(), Vec::new());
        for (range, word) in tokens(text) {
            ranges.push(range);
            words.push(word);
        }
        Question {
            text,
            words,
            ranges,
            problem: None,
        }
    }

    /// Why it cannot be asked, when [`Question::read`] refused it.
    pub fn problem(&self) -> Option<QuestionError> {
        self.problem
    }

    /// The question as written.
    pub fn text(&self) -> &'q str {
        self.text
    }

    /// Its words, lowercased (`text::tokens`).
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Its words' byte ranges in [`Question::text`], in the order of [`Question::words`].
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }
}
