//! What may be asked (issue 14, item 7): a megabyte of question spent seconds in the tokenizers
//! and control characters reached the model; the core now has one rule for both, which `ask`
//! and the proxy apply, and the widget's question box has the same length limit.

use onrecord_core::{
    AnswerConfig, Decline, Lang, MAX_QUESTION_CHARS, Mode, PlainFile, QuestionError, ask,
    index_documents,
};

fn index() -> onrecord_core::Index {
    let files = [PlainFile {
        name: "plants.md".into(),
        text: "# Plants\n\n## Watering\n\nWater the ferns every Tuesday morning.\n".into(),
    }];
    index_documents(&files, Lang::English).expect("indexes")
}

#[test]
fn a_question_longer_than_the_limit_is_declined_and_says_why() {
    let index = index();
    let question = "When do I water the ferns?";
    let at_limit = format!(
        "{question}{}",
        " ferns".repeat((MAX_QUESTION_CHARS - question.len()) / 6)
    );
    assert!(at_limit.chars().count() <= MAX_QUESTION_CHARS);
    // At the limit the question is weighed like any other (the decline model may still find a
    // question of eighty "ferns" odd); it is not refused.
    let answer = ask(&index, None, &at_limit, &AnswerConfig::DEFAULT);
    assert!(
        !matches!(answer.decline, Some(Decline::BadQuestion(_))),
        "{:?}",
        answer.decline
    );
    for padding in [MAX_QUESTION_CHARS, 1_000_000] {
        let long = format!("{question} {}", "x".repeat(padding));
        let answer = ask(&index, None, &long, &AnswerConfig::DEFAULT);
        assert_eq!(answer.mode, Mode::NotFound);
        assert!(answer.quotes.is_empty() && answer.missing_terms.is_empty());
        assert_eq!(
            answer.decline,
            Some(Decline::BadQuestion(QuestionError::TooLong {
                chars: long.chars().count()
            }))
        );
    }
}

#[test]
fn control_characters_are_declined_and_whitespace_is_not() {
    let index = index();
    for question in [
        "\0\0\0",
        "When do I water\u{1b}[2J the ferns?",
        "ferns\u{7}",
    ] {
        let answer = ask(&index, None, question, &AnswerConfig::DEFAULT);
        assert_eq!(
            answer.decline,
            Some(Decline::BadQuestion(QuestionError::ControlCharacter)),
            "{question:?}"
        );
    }
    let answer = ask(
        &index,
        None,
        "\tWhen do I water\nthe ferns?\r\n",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(answer.mode, Mode::Answer);
}

/// The widget's scripts under `www/` (wherever the question box ends up living).
fn widget_scripts(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("www/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("dist") {
            widget_scripts(&path, out);
        } else if path.extension().is_some_and(|e| e == "js") {
            out.push(std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
}

#[test]
fn the_widget_question_box_has_the_same_limit() {
    let www = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www");
    let mut scripts = Vec::new();
    widget_scripts(&www, &mut scripts);
    let limit = format!("export const MAX_QUESTION_CHARS = {MAX_QUESTION_CHARS};");
    assert!(
        scripts.iter().any(|s| s.contains(&limit)),
        "no script under www/ has {limit}"
    );
    let attr = "maxlength: String(MAX_QUESTION_CHARS)";
    assert!(
        scripts.iter().any(|s| s.contains(attr)),
        "no script under www/ gives the question box {attr}"
    );
}
