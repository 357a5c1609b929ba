//! German words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "aber als am an auch auf aus bei bin bis bitte da das dass dein deine dem den \
        der des dich die du durch ein eine einem einen einer es euch für gegen gibt habe haben \
        hat ich ihm ihn ihnen ihr ihre im in ist kann man mein meine meinem meinen mich mir mit \
        nach nicht noch nur oder ohne sein seine sich sie sind und uns unser unsere unter von \
        vor wann warum was welche welchem welchen welcher welches wem wen wenn wer werden \
        weshalb wie wieso wir wird wo wofür woher wohin womit wozu zu zum zur über",
    framing: "beschreibt denkt doku dokumentation erklärt erwähnt geschrieben handbuch meint \
        sagt schreibt webseite",
    how_before_quantity: "wie",
    quantity_after_how: "lang lange oft teuer viel viele",
    quantity_nouns: "kosten preis",
    which: "welche welcher welches was",
    when: "seit wann",
    how: "wie",
    why: "warum weshalb wieso",
    yes_no_openers: "darf gibt hat ist kann mag muss sind wird",
    other_openers: "wer wo",
    defining_verbs: "bedeutet",
    topic_openers: "was wie wo",
    about: "über",
    fresh: "neue frage|andere frage|anderes thema",
    refinement_openers: "und wie sieht es mit|und wie ist es mit|wie sieht es mit|\
        wie ist es mit|und was ist mit|was ist mit|und|auch|oder",
    followup_why: "warum wieso weshalb weswegen grund erklären erkläre",
    fillers: "und aber denn das dies ist bitte genau eigentlich der mir können nicht",
    opens_question: "wie warum wann wo welche welcher welches wer ist sind kann können muss gibt hat haben wird darf soll",
    prepositions: "für im bei nach mit ohne am an auf zu zum zur aus vom von über unter während",
    articles: "der die das den dem des ein eine einen einem einer",
    determiners: "der die das den dem des ein eine einen einem einer mein meine meinen meinem unser unsere ihr ihre ihren",
    persons: "ich wir man",
    pronouns: "es ihn ihm er ihre ihren ihrem seine seinen seinem dafür dazu davon damit darauf sie",
    demonstratives: "das dies diese dieser dieses",
    refers_back: "es dies diese dieser dieses das sie dann aber jedoch sonst dafür dabei damit \
        beide auch danach deshalb daher trotzdem",
    joiners: "und oder sowie",
    change_words: "geändert neu seit versionen",
    change_notes: "geändert in version|neu in version|veraltet seit version",
    decision_words: "entschieden entscheidung grund warum",
    ..NONE
};
