//! French words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "a ai au aux avec avez avons c ce ces cet cette combien comment d dans de des \
        dois doit donc du elle elles en es est et eux il ils j je l la le les leur leurs lui m \
        ma mais me mes moi mon n ne nos notre nous on ont ou où par pas peut peux pour pourquoi \
        puis qu quand que quel quelle quelles quels qui quoi s sa se ses si son sont sur t ta \
        te tes toi ton tu un une vos votre vous y à êtes",
    framing: "disent dit documentation décrit explique mentionne pense écrit",
    plural_endings: "aux s x",
    how_much_before_time: "combien",
    time_words: "temps",
    skipped_before_time: "de",
    quantity_nouns: "coût durée prix",
    which: "quel quelle quelles quels",
    how_much: "combien",
    when: "quand",
    how: "comment",
    why: "pourquoi",
    yes_no_openers: "dois est peut peux puis pouvez",
    other_openers: "où qui",
    ..NONE
};
