//! Spanish words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "a al como con cual cuales cuando cuanto cuál cuáles cuándo cuánta cuántas \
        cuánto cuántos cómo de debo del donde dónde el ella en es esa ese eso esta este esto \
        está hay la las le les lo los me mi mis no nos o para pero por porqué puede puedo que \
        quien quién qué se si son su sus te tengo tu tú un una unas uno unos usted y yo él",
    framing: "describe dice dicen documentación escribe explica menciona piensa",
    plural_endings: "es s",
    how_much_before_time: "cuánto cuanto",
    time_words: "tiempo",
    quantity_nouns: "coste duración precio",
    which: "cual cuál cuáles qué",
    how_much: "cuanta cuantas cuanto cuantos cuánta cuántas cuánto cuántos",
    when: "cuando cuándo",
    how: "como cómo",
    why: "porqué",
    yes_no_openers: "debo hay puedo puede",
    other_openers: "donde dónde quien quién",
    ..NONE
};
