//! Italian words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "a al all alla alle c che chi ci come con cos cosa da dal dalla dei del dell \
        della delle di dove e gli ha hanno ho i il in io l la le lo ma mi mia mio ne nel nell \
        nella non o per perché posso può quale quali quando quanta quante quanti quanto questa \
        questo se si sono su sul sull sulla tu un una uno vi voi è",
    framing: "descrive dice documentazione menziona pensa scrive spiega",
    plural_endings: "i e o a",
    how_much_before_time: "quanto",
    time_words: "tempo",
    quantity_nouns: "costo durata prezzo",
    which: "quale quali",
    how_much: "quanta quante quanti quanto",
    when: "quando",
    how: "come",
    why: "perché",
    yes_no_openers: "devo posso può è",
    other_openers: "chi dove",
    ..NONE
};
