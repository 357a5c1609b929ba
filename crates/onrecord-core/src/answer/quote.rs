//! Choosing what to quote from one fragment: the sentence that carries most of the question,
//! a neighbour when that sentence needs context, the question's words inside the quote, and a
//! text-fragment link to it.

use super::kind::{AskKind, shape_matches};
use crate::bm25::QueryTerm;
use crate::format::{Fragment, Index};
use crate::lang::{self, List};
use crate::page::is_change_note;
use crate::text::{Analyzer, Lang, join, tokens};

/// Longest quote (bytes) a neighbour may be added to without a grammatical need for it.
const NEIGHBOUR_MAX_BYTES: usize = 600;

/// Which of the question's terms a piece of text contains (by position in the term list).
pub(crate) type Covered = Vec<bool>;

/// What one fragment can quote for a question.
pub(crate) struct Pick {
    /// Byte range of the quote in the fragment text: whole sentences, contiguous.
    pub(crate) start: u32,
    pub(crate) end: u32,
    /// Terms found in the quoted sentences, the fragment's headings or its page title: what a
    /// reader sees around the quote.
    pub(crate) local: Covered,
    /// Terms found in the quoted sentences themselves.
    pub(crate) in_quote: Covered,
    /// For a table row: the byte range of its header row in the fragment text.
    pub(crate) header: Option<(u32, u32)>,
    /// The fragment opens a section whose title and headings name every word of the
    /// question, its written names whole: the entry for what is asked ("What is BASH_ENV?"
    /// under "BASH_ENV").
    pub(crate) entry: bool,
    /// The chosen sentence has the shape of the answer asked for; for a definition, it says
    /// what one of the question's words is ("A repository is a directory …").
    pub(crate) shaped: bool,
}

/// What the quote picker weighs besides the question's words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Preference {
    /// The kind of answer the question asks for.
    pub(crate) kind: AskKind,
    /// How much a sentence of that shape counts, in shares of the question's weight.
    pub(crate) shape_weight: f32,
    /// The question asks about versions or changes, so a version note may be quoted.
    pub(crate) changes: bool,
}

/// The question's terms stemmed for one page language.
pub(crate) struct Wanted {
    stems: Vec<String>,
    analyzer: Analyzer,
}

impl Wanted {
    pub(crate) fn new(index: &Index, lang: Lang, terms: &[QueryTerm]) -> Wanted {
        let analyzer = Analyzer::new(lang, index.settings.stemming);
        let stems = terms
            .iter()
            .map(|t| analyzer.term(&t.word).into_owned())
            .collect();
        Wanted { stems, analyzer }
    }

    /// Which of the terms `text` holds.
    pub(crate) fn covered(&self, text: &str) -> Covered {
        let mut found = vec![false; self.stems.len()];
        for (_, w) in tokens(text) {
            let stem = self.analyzer.term(&w);
            for (f, s) in found.iter_mut().zip(&self.stems) {
                *f |= *s == stem;
            }
        }
        found
    }

    /// Byte ranges of the words in `text` that are the question's terms. A letter after an
    /// apostrophe ("Black’s", "don't") or hyphened to a word ("e-bike", "X-Forwarded-For") still
    /// counts as a term, but marking it alone reads as noise.
    pub(crate) fn highlights(&self, text: &str) -> Vec<(u32, u32)> {
        tokens(text)
            .filter(|(r, w)| {
                let before = text.get(..r.start).unwrap_or("");
                let after = text.get(r.end..).unwrap_or("");
                let noise = w.len() == 1
                    && (matches!(before.chars().next_back(), Some('\'' | '’' | '-'))
                        || after.as_bytes().first() == Some(&b'-'));
                let stem = self.analyzer.term(w);
                !noise && self.stems.iter().any(|s| *s == stem)
            })
            .map(|(r, _)| (r.start as u32, r.end as u32))
            .collect()
    }
}

/// Sum of the idf weights of the covered terms.
pub(crate) fn weight(terms: &[QueryTerm], covered: &[bool]) -> f32 {
    terms
        .iter()
        .zip(covered)
        .filter(|(_, c)| **c)
        .map(|(t, _)| t.idf)
        // From +0.0: an empty `sum` of floats is -0.0, which reports print as "-0.0".
        .fold(0.0, |a, b| a + b)
}

pub(crate) fn union(a: &[bool], b: &[bool]) -> Covered {
    a.iter().zip(b).map(|(x, y)| *x || *y).collect()
}

/// Picks the quote of `fragment` for the question: its best sentence (the first on a tie; a code
/// unit only when the question asks how) — the one carrying most of the question's weight, plus
/// `prefer.shape_weight` of it when the sentence has the shape the question asks for (a number for
/// "how much", …) — with the sentence before it when the best one opens by referring back ("It",
/// "These") or the one before introduces it (ends with ':'), the sentence after when the best one
/// introduces a list or code, and otherwise the neighbour that adds most of the question's missing
/// terms, if any does. `opening`: the fragment opens its section. `names_whole`: its headings hold
/// the question's written names whole; an opening fragment whose title and headings also name every
/// word of the question is the entry for what is asked.
pub(crate) fn pick(
    index: &Index,
    fragment: &Fragment,
    terms: &[QueryTerm],
    prefer: Preference,
    opening: bool,
    names_whole: bool,
) -> Pick {
    let doc = index.doc_of(fragment);
    let lang = doc.map_or(index.default_lang, |d| d.lang);
    let wanted = Wanted::new(index, lang, terms);
    let sentence = |i: usize| -> &str { fragment.sentence(i).unwrap_or("") };
    // A table row is read with its header row: "EUR 19" answers "price" under "Price".
    let header_of = |i: usize| -> Option<usize> {
        fragment
            .table_rows
            .iter()
            .find(|&&(row, _)| row as usize == i)
            .map(|&(_, header)| header as usize)
    };
    let is_header = |i: usize| fragment.table_rows.iter().any(|&(_, h)| h as usize == i);
    // A version note ("Changed in version 0.10: …") says what changed, not how things are.
    let version_note = |i: usize| !prefer.changes && is_change_note(sentence(i));
    // Code shows how to do something; it does not say what a thing is or how much: a debug
    // log that names the setting asked about is not its definition.
    let quotable = |i: usize| prefer.kind == AskKind::HowTo || !fragment.is_code(i);
    let blank = |i: usize| sentence(i).trim().is_empty();
    let own_covered: Vec<Covered> = (0..fragment.sentences.len())
        .map(|i| wanted.covered(sentence(i)))
        .collect();
    let per_sentence: Vec<Covered> = (0..fragment.sentences.len())
        .map(|i| match header_of(i).and_then(|h| own_covered.get(h)) {
            Some(header) => union(&own_covered[i], header),
            None => own_covered[i].clone(),
        })
        .collect();
    let total: f32 = terms.iter().map(|t| t.idf).sum();
    let n_units = fragment.sentences.len();
    // For a definition, the sentence that says what one of the question's words is: a tie
    // goes to it. The looser cues of the other kinds ("you can", a number) only weigh through
    // the shape weight; as tie-breaks they chose worse sentences on the dev questions.
    let shaped: Vec<bool> = (0..n_units)
        .map(|i| {
            let introduces = i + 1 < n_units && sentence(i).trim_end().ends_with(':');
            shape_matches(prefer.kind, sentence(i), opening && i == 0, introduces)
        })
        .collect();
    let answers_kind =
        |i: usize| prefer.kind == AskKind::Definition && defines(&wanted, sentence(i));
    // The page title, headings and curated themes stand beside the quote on the page.
    let context = wanted.covered(&format!(
        "{} {} {}",
        doc.map_or("", |d| d.title.as_str()),
        fragment.heading_path.join(" "),
        doc.map_or(String::new(), |d| d.themes.join(" "))
    ));
    // In the entry for what is asked, every sentence is about it: the first one, which says
    // what it is, rather than a later one that names it again.
    let entry = opening && names_whole && terms.iter().zip(&context).all(|(t, &c)| c || t.framing);
    let mut best = 0;
    let mut best_score = 0.0;
    for (i, covered) in per_sentence.iter().enumerate() {
        // A header row is context for its rows, not an answer of its own.
        // A blank unit quotes "" (an index built in memory is not validated).
        // A page's introduction with nothing after it in the fragment is never the whole
        // answer: "… and how long a refund takes" names what the page covers.
        let bare_intro = i + 1 == n_units && introduces(sentence(i));
        if is_header(i) || version_note(i) || !quotable(i) || blank(i) || bare_intro {
            continue;
        }
        let w = if entry {
            weight(terms, &union(covered, &context))
        } else {
            weight(terms, covered)
        };
        // The shape counts only for a sentence that carries some of the question.
        let bonus = if w > 0.0 && shaped.get(i) == Some(&true) {
            prefer.shape_weight * total
        } else {
            0.0
        };
        // On a tie, the sentence that defines, then a sentence over a title ("How to generate
        // good secret keys" restates the question; the instruction under it answers), then the
        // first.
        let tie = w + bonus == best_score
            && w > 0.0
            && (answers_kind(i) && !answers_kind(best)
                || reads_as_title(sentence(best)) && !reads_as_title(sentence(i)));
        if w + bonus > best_score || tie {
            best_score = w + bonus;
            best = i;
        }
    }
    let none = vec![false; terms.len()];
    let own = per_sentence
        .get(best)
        .filter(|_| quotable(best))
        .cloned()
        .unwrap_or_else(|| none.clone());
    // An entry's heading already names what a neighbour would add.
    let own = if entry { union(&own, &context) } else { own };
    let (mut first, mut last) = (best, best);
    let text = sentence(best);
    let prev = best.checked_sub(1).map(sentence);
    let next = (best + 1 < fragment.sentences.len()).then(|| sentence(best + 1));
    let header = header_of(best);
    // A sentence is never joined to a table's row or header: a row read without its header
    // says something else ("Sunday | Closed" before "On Thursdays we stay open until 20:00").
    let prose = |i: usize| header_of(i).is_none() && !is_header(i) && !version_note(i);
    let prev = prev.filter(|_| prose(best - 1));
    let next = next.filter(|_| prose(best + 1));
    if header.is_some() {
        // A row stands alone under its header.
    } else if prev.is_some_and(|p| refers_back(text, lang) || p.trim_end().ends_with(':')) {
        first = best - 1;
    } else if next.is_some()
        && (matches!(text.trim_end().chars().next_back(), Some(':' | '?')) || introduces(text))
    {
        // A sentence that introduces the page, states the problem or asks the question itself
        // ("This page explains…", "Description: You want…", "But how do you specify the
        // maximum file size?") is never the whole answer: what follows carries it, past labels
        // such as "Solution:".
        last = best + 1;
        while last + 1 < n_units
            && sentence(last).trim_end().ends_with(':')
            && prose(last + 1)
            && (fragment.sentences[last + 1].1).saturating_sub(fragment.sentences[best].0) as usize
                <= NEIGHBOUR_MAX_BYTES
        {
            last += 1;
        }
    } else {
        // The neighbour that adds most of the question's weight the best sentence lacks.
        // Code may add to a sentence that answers, never answer alone beside one that does not.
        // A neighbour that only introduces the page adds nothing: "… and how long a refund
        // takes" names what the page covers, it does not answer "how long".
        let base = weight(terms, &own);
        let gain = |i: usize| -> f32 {
            per_sentence
                .get(i)
                .filter(|_| (base > 0.0 || quotable(i)) && !introduces(sentence(i)))
                .map_or(0.0, |c| weight(terms, &union(&own, c)) - base)
        };
        let before = if prev.is_some() { gain(best - 1) } else { 0.0 };
        let after = if next.is_some() { gain(best + 1) } else { 0.0 };
        let short = |i: usize| text.len() + sentence(i).len() <= NEIGHBOUR_MAX_BYTES;
        if before > 0.0 && before >= after && short(best - 1) {
            first = best - 1;
        } else if after > 0.0 && short(best + 1) {
            last = best + 1;
        } else if next.is_some()
            && tokens(text).count() < crate::verify::MIN_QUOTE_WORDS
            && short(best + 1)
        {
            // "Yes." under "Can I ride in the rain?" answers, but the reader needs the
            // sentence that says why.
            last = best + 1;
        }
    }
    let shaped = best_score > 0.0 && answers_kind(best);
    let in_quote = (first..=last)
        .filter(|&i| i != best || quotable(i))
        .filter_map(|i| per_sentence.get(i))
        .fold(none, |acc, c| union(&acc, c));
    // The entry's name heads its first sentence as a table's header heads its row.
    let in_quote = if entry {
        union(&in_quote, &context)
    } else {
        in_quote
    };
    let start = fragment.sentences.get(first).map_or(0, |s| s.0);
    let end = fragment
        .sentences
        .get(last)
        .map_or(fragment.text.len() as u32, |s| s.1);
    Pick {
        start,
        end,
        local: union(&in_quote, &context),
        in_quote,
        header: header.and_then(|h| fragment.sentences.get(h).copied()),
        entry,
        shaped,
    }
}

/// Whether `sentence` says what one of the question's words is: the word among its first
/// few, then a defining verb ("A repository is a directory …", "Routing refers to …",
/// "Blueprints are …"), not a sentence that has " is a " somewhere ("Each repository has a
/// config file which is a …") or says how one is ("My repository is corrupt").
fn defines(wanted: &Wanted, sentence: &str) -> bool {
    const SUBJECT_WITHIN: usize = 4;
    const VERB_WITHIN: usize = 3;
    let words: Vec<String> = tokens(sentence)
        .take(SUBJECT_WITHIN + VERB_WITHIN + 2)
        .map(|(_, w)| w)
        .collect();
    let Some(subject) = words.iter().take(SUBJECT_WITHIN).position(|w| {
        let stem = wanted.analyzer.term(w);
        wanted.stems.iter().any(|s| *s == stem)
    }) else {
        return false;
    };
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    (subject + 1..=subject + VERB_WITHIN).any(|i| match word(i) {
        "is" | "ist" => matches!(word(i + 1), "a" | "an" | "the" | "one" | "ein" | "eine"),
        "are" | "means" | "sind" | "bedeutet" | "describes" => true,
        "refers" | "stands" => matches!(word(i + 1), "to" | "for"),
        _ => false,
    })
}

/// Whether every sentence of `fragment` is a version note ("Changed in version 0.10: …"), as
/// when a long entry's last fragment holds only its notes; also when it has no sentence that
/// shows anything (blank or none: an index built in memory is not validated), since then it
/// has nothing to quote at all.
pub(crate) fn only_version_notes(fragment: &Fragment) -> bool {
    (0..fragment.sentences.len()).all(|i| {
        fragment
            .sentence(i)
            .is_none_or(|s| s.trim().is_empty() || is_change_note(s))
    })
}

/// Whether a sentence only introduces what follows: the page or section itself ("This page
/// explains the time limits…", "Here's the basics of…") or the problem a recipe solves
/// ("Description: You want…"). English only, like the sites these openings were seen on.
fn introduces(sentence: &str) -> bool {
    let lower = sentence.trim_start().to_lowercase();
    lang::find_phrase(List::Introductions, |o| lower.starts_with(o).then_some(())).is_some()
}

/// Whether a unit reads as a title rather than a sentence: one short line with no closing
/// punctuation, as an admonition's title or a bold line over a paragraph. A table's row is
/// not a title: "Default: | IdleTimeout 7" states the value asked for.
fn reads_as_title(unit: &str) -> bool {
    const TITLE_MAX_BYTES: usize = 120;
    let unit = unit.trim();
    !unit.is_empty()
        && unit.len() < TITLE_MAX_BYTES
        && !unit.contains('\n')
        && !unit.contains(crate::source::CELL_SEPARATOR)
        && !matches!(
            unit.chars().next_back(),
            Some('.' | '!' | '?' | ':' | ';' | ')' | '"' | '”' | '`')
        )
}

/// Whether a sentence opens by pointing back at the one before it.
fn refers_back(sentence: &str, lang: Lang) -> bool {
    let mut words = tokens(sentence).map(|(_, w)| w);
    let Some(first) = words.next() else {
        return false;
    };
    // A language with no such words of its own reads with English's.
    let own = Some(lang::words(lang))
        .filter(|w| !w.refers_back.is_empty())
        .unwrap_or(lang::words(Lang::English));
    // "After that,", "In this case", "For these reasons": a preposition and a pointer.
    lang::has(own.refers_back, &first)
        || (lang::has(own.back_prepositions, &first)
            && words
                .next()
                .is_some_and(|second| lang::has(own.back_pointers, &second)))
}

/// The link to a section: its page's URL, then its anchor when it has one. Characters a link
/// cannot hold raw are percent-encoded — spaces, quotes, angle brackets and controls anywhere,
/// `#` and `?` in the path (a file named `C#.html`), `#` in the anchor — so an id written
/// `<a name="mail queue">` still links. `%` is kept: a page URL taken from the page's own
/// canonical link is already encoded.
pub fn section_url(page: &str, anchor: &str) -> String {
    let mut url = String::with_capacity(page.len() + anchor.len() + 1);
    push_encoded(&mut url, page, &['#', '?']);
    if !anchor.is_empty() {
        url.push('#');
        push_encoded(&mut url, anchor, &['#']);
    }
    url
}

fn push_encoded(out: &mut String, text: &str, also: &[char]) {
    for c in text.chars() {
        if c.is_ascii_control() || matches!(c, ' ' | '"' | '<' | '>' | '`') || also.contains(&c) {
            out.push_str(&format!("%{:02X}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
}

/// `url` with a text-fragment directive that makes supporting browsers scroll to and mark
/// `quote`: the whole quote when it is short, else its first and last few words.
pub(crate) fn text_fragment_url(url: &str, quote: &str) -> String {
    const EDGE_WORDS: usize = 4;
    let words: Vec<&str> = quote.split_whitespace().collect();
    if words.is_empty() {
        return url.to_owned();
    }
    let directive = if words.len() <= 2 * EDGE_WORDS + 2 {
        encode(&join(&words, " "))
    } else {
        let head = join(words.get(..EDGE_WORDS).unwrap_or(&words), " ");
        let tail = join(words.get(words.len() - EDGE_WORDS..).unwrap_or(&words), " ");
        format!("{},{}", encode(&head), encode(&tail))
    };
    // The directive follows the fragment (`#anchor:~:text=`), or stands alone (`#:~:text=`).
    let sep = if url.contains('#') { "" } else { "#" };
    format!("{url}{sep}:~:text={directive}")
}

/// Percent-encodes everything but ASCII letters, digits and `.`, `_`, `~`: the directive's own
/// syntax characters (`-`, `,`, `&`) must never appear raw.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_defining_sentence_says_what_the_word_is() {
        let term = |w: &str| QueryTerm {
            word: w.into(),
            term_ids: vec![],
            hint_term_ids: vec![],
            idf: 1.0,
            framing: false,
            contraction: false,
            how_much: false,
        };
        let index =
            crate::IndexBuilder::new(Lang::English, crate::IndexSettings::STANDARD).finish();
        let wanted = Wanted::new(&index, Lang::English, &[term("repository")]);
        for yes in [
            "A repository is a filesystem directory containing the data.",
            "Repositories are folders of archives.",
            "The repository refers to the folder on the server.",
        ] {
            assert!(defines(&wanted, yes), "{yes}");
        }
        for no in [
            "Each repository has a config file which is a INI-style file.",
            "My repository is corrupt, how can I restore it?",
            "This command initializes an empty repository.",
        ] {
            assert!(!defines(&wanted, no), "{no}");
        }
    }

    // Issue 43: an index built in memory is not validated; a zero-length sentence range under a
    // heading that names the question answered with the quote "" at High confidence.
    #[test]
    fn a_blank_range_is_never_quoted() {
        use crate::{
            AnswerConfig, Block, IndexBuilder, IndexSettings, SourceDoc, SourceSection, ask, chunk,
        };
        let doc = SourceDoc {
            path: "refunds.md".into(),
            url: "/refunds/".into(),
            title: "Refund policy".into(),
            lang: Lang::English,
            themes: vec![],
            collection: None,
            sections: vec![SourceSection {
                heading_path: vec!["Refund policy".into()],
                anchor: "refund-policy".into(),
                blocks: vec![Block::paragraph(
                    "Refunds arrive within fourteen days of the return.",
                )],
            }],
        };
        let end = doc.sections[0].blocks[0].text.len() as u32;
        for sentences in [vec![(0, 0)], vec![], vec![(7, 8)], vec![(0, 0), (0, end)]] {
            let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
            builder.add(&doc, &chunk(&doc, 800));
            let mut index = builder.finish();
            index.fragments[0].sentences = sentences.clone();
            if sentences.is_empty() {
                index.fragments[0].text.clear();
            }
            for question in ["refund policy?", "what changed in the refund policy?"] {
                let answer = ask(&index, None, question, &AnswerConfig::DEFAULT);
                for q in &answer.quotes {
                    assert!(!q.text.trim().is_empty(), "{sentences:?}: {answer:?}");
                }
            }
        }
    }

    #[test]
    fn nothing_covered_weighs_plus_zero() {
        let term = QueryTerm {
            word: "queue".into(),
            term_ids: vec![0],
            hint_term_ids: Vec::new(),
            idf: 2.0,
            framing: false,
            how_much: false,
            contraction: false,
        };
        let w = weight(&[term], &[false]);
        // Reports print the share of a sentence that carries nothing: "0", not "-0".
        assert_eq!(format!("{w:?}"), "0.0");
    }

    #[test]
    fn text_fragment_links_keep_the_anchor_and_encode_syntax_characters() {
        assert_eq!(
            text_fragment_url(
                "/shop/returns/#refunds",
                "Refunds arrive in 14-21 days, always."
            ),
            "/shop/returns/#refunds:~:text=Refunds%20arrive%20in%2014%2D21%20days%2C%20always."
        );
        assert_eq!(
            text_fragment_url(
                "/faq/",
                "one two three four five six seven eight nine ten eleven"
            ),
            "/faq/#:~:text=one%20two%20three%20four,eight%20nine%20ten%20eleven"
        );
        assert_eq!(text_fragment_url("/faq/", "  "), "/faq/");
    }

    #[test]
    fn section_links_encode_what_a_link_cannot_hold_raw() {
        assert_eq!(section_url("/guide/", ""), "/guide/");
        assert_eq!(section_url("/guide/", "intro"), "/guide/#intro");
        assert_eq!(
            section_url("/docs/C#.html", "mail queue"),
            "/docs/C%23.html#mail%20queue"
        );
        assert_eq!(
            section_url("/a%20b/why?.html", "x#\"<y>`"),
            "/a%20b/why%3F.html#x%23%22%3Cy%3E%60"
        );
        // Letters beyond ASCII are left to the browser, as ids and paths may hold them.
        assert_eq!(section_url("/über/", "größe"), "/über/#größe");
        let url = section_url("/faq/", "mail queue");
        assert_eq!(
            text_fragment_url(&url, "Mail waits."),
            "/faq/#mail%20queue:~:text=Mail%20waits."
        );
    }

    #[test]
    fn referring_openings_are_recognised_per_language() {
        assert!(refers_back("It is free.", Lang::English));
        assert!(refers_back("These cost extra.", Lang::English));
        assert!(!refers_back("Returns are free.", Lang::English));
        assert!(refers_back("Dies gilt auch für Teile.", Lang::German));
        assert!(!refers_back("", Lang::German));
    }
}
