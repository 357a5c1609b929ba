//! English words (see `lang/mod.rs` for what each list is for).

use super::{NONE, Words};

pub(crate) const WORDS: Words = Words {
    stopwords: "a about after all also am an and any are as at be been before but by can could \
        did do does doing for from get had has have how i if in instead into is it its many me \
        much my of on or our rather should so than that the their them then there these they \
        this to us was we were what when where whether which who whom why will with would you \
        your",
    framing: "believe believes describe describes docs documentation explain explains feel \
        feels handbook mention mentioned mentions said say says talk talks tell tells think \
        thinks thought website wiki write writes writing written wrote",
    how_before_quantity: "how",
    quantity_after_how: "big far fast heavy high large long many much often old small soon wide",
    quantity_nouns: "cost costs default duration fee limit maximum minimum number price size \
        version",
    which: "what which",
    when: "since when",
    how: "how",
    why: "why",
    yes_no_openers: "are can could did do does has have is may must should was were will would",
    other_openers: "where who whom whose",
    defining_verbs: "allow do does enable mean means represent stand",
    instruction_verbs: "add allow avoid build call cancel change check clean clear compile \
        configure connect convert copy create debug declare define delete deploy disable \
        download edit enable encrypt exclude export extend find fix force generate get hide \
        ignore implement import include install limit load make migrate mount move open override \
        pass prevent protect publish read redirect register reload remove rename replace reset \
        restore restrict run save send serve set show skip start stop turn uninstall update \
        upgrade upload use validate verify write",
    topic_openers: "how what where which",
    about: "about",
    fresh: "new question|another question|different question|new topic|unrelated",
    refinement_openers: "and what about|and how about|what about|how about|and|also|or",
    followup_why: "why come reason explain",
    fillers: "and but so then is was that this it the exactly please can could you me what s not how",
    opens_question: "what how why when where which who does do did is are can could will would should may must has have was were",
    prepositions: "for in on at to with without during from by under over after before",
    articles: "the a an",
    determiners: "the a an my our your",
    do_aux: "do does did can could will would should may might must",
    be_aux: "is are was were",
    persons: "i we you",
    pronouns: "it its they them their",
    demonstratives: "this that these those one",
    refers_back: "it its this that these those they their them such there here however but also \
        otherwise then so both each either therefore thus instead afterwards",
    back_prepositions: "after before besides despite for from in like unlike with without \
        beyond because at by on under until of",
    back_pointers: "that this these those",
    introductions: "this page |this section |this chapter |this document |this guide |\
        this article |this tutorial |in this section|in this chapter|in this guide|\
        in this document|here's the basics|here’s the basics|here is the basics|\
        here are the basics|description:|you want ",
    joiners: "and or plus",
    change_words: "added changed changelog changes deprecated new release released releases \
        removed since upgrade upgrading version versions",
    change_notes: "added in version|changed in version|deprecated in version|\
        deprecated since version|new in version|removed in version",
    decision_words: "chose choose chosen decide decided decision decisions reason reasons \
        reconsider why",
    ..NONE
};
