//! Dutch words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "aan al bij dan dat de die dit door een en er het hoe hoelang hoeveel ik in is \
        je jij kan kun kunnen maar met mijn moet naar niet nog of om ons onze op over te tot u \
        uw van voor waar waarom wanneer wat welk welke wie wij worden wordt ze zij zijn",
    framing: "beschrijft denkt documentatie handleiding noemt schrijft vermeldt zegt",
    plural_endings: "en s",
    how_before_quantity: "hoe",
    quantity_after_how: "groot laat lang oud snel vaak veel ver zwaar",
    quantity_nouns: "duur prijs",
    which: "wat welk welke",
    how_much: "hoelang hoeveel",
    when: "wanneer",
    how: "hoe",
    why: "waarom",
    yes_no_openers: "heb heeft is kan kun mag moet zijn",
    other_openers: "waar",
    ..NONE
};
