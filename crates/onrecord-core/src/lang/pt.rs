//! Portuguese words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "a ao aos as com como da das de devo do dos e ela ele em eu há isso isto mas me \
        meu minha na nas no nos não o onde os ou para pela pelo pode por porque posso quais \
        qual quando quanta quantas quanto quantos que quem se seu sua são tem um uma você à é",
    framing: "descreve diz documentação escreve explica menciona pensa",
    plural_endings: "es s",
    how_much_before_time: "quanto",
    time_words: "tempo",
    quantity_nouns: "custo preço",
    which: "qual quais",
    how_much: "quanta quantas quanto quantos",
    when: "quando",
    how: "como",
    why: "porque",
    yes_no_openers: "devo pode posso tem é há",
    other_openers: "onde quem",
    ..NONE
};
