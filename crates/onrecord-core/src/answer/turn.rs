//! Follow-up questions. After each answer the engine hands the browser a [`TurnContext`]: the
//! question as it was executed and the fragments its answer used, never answer text. The
//! browser echoes it with the next question. It is untrusted: [`resolve`] validates it against
//! this index and, when anything is wrong, reads the question as if asked alone. With a valid
//! context, deterministic rules read the question in its light:
//!
//! | kind | recognised by | executed as |
//! |---|---|---|
//! | explanation | only "why", "how come", "warum", "explain" and filler words | "Why?" + the previous question, scoped to the pages of the fragments the previous turn used and the decisions collection |
//! | refinement | "what about …", "and …", "und für …", or a bare phrase opening with a preposition or article | the previous question with the new words in the slot they fill (same preposition, or a sibling heading or table row on some page), else added to it |
//! | pronoun | "it", "they", "es", "das" … that refer to nothing in the question itself | the question with the pronoun replaced by the previous question's subject |
//! | new subject | anything else, or "new question: …" | the question as typed: nothing of the previous one leaks in |

use crate::chunk::shorten;
use crate::format::{FORMAT_VERSION, Index};
use crate::lang::{self, List, has, in_any};
use crate::question::{MAX_QUESTION_CHARS, Question};
use crate::scope::{Scope, is_decision};
use crate::text::{Analyzer, Lang, is_stopword, tokens};

/// The longest previous question a context may carry (bytes); a longer one is refused.
pub const MAX_CONTEXT_QUESTION: usize = 1000;
/// The most fragment ids a context may carry; more is refused (an answer quotes at most 3
/// and lists a few other sections).
pub const MAX_CONTEXT_FRAGMENTS: usize = 8;

/// What the browser echoes back with the next question: the previous turn as executed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnContext {
    /// The index format version it was made for.
    pub version: u32,
    /// The index it was made for: the first 8 bytes of its corpus hash, in hex.
    pub index: String,
    /// The previous question as it was executed.
    pub question: String,
    /// The fragments the previous answer used: those it quoted, then the other matching
    /// sections it listed; for a decline, the same that it weighed (never shown), so that
    /// "why?" looks where the question led even when the answer was not there.
    pub fragments: Vec<u32>,
}

impl TurnContext {
    /// The context of a turn executed as `question` whose answer quoted `fragments`.
    pub fn new(index: &Index, question: &str, fragments: Vec<u32>) -> TurnContext {
        TurnContext {
            version: FORMAT_VERSION,
            index: index_id(index),
            question: question.to_owned(),
            fragments,
        }
    }
}

/// How a question relates to the previous turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FollowUp {
    /// No context, or one that failed validation: the question stands alone.
    Standalone,
    /// A question of its own after a previous turn: nothing of that turn is used.
    NewSubject,
    /// New words for the previous question's subject.
    Refinement,
    /// "Why?": scoped to the previous answer's pages.
    Explanation,
    /// A pronoun stands for the previous question's subject.
    Pronoun,
}

impl FollowUp {
    /// The name the widget and the eval use.
    pub fn name(self) -> &'static str {
        match self {
            FollowUp::Standalone => "standalone",
            FollowUp::NewSubject => "new-subject",
            FollowUp::Refinement => "refinement",
            FollowUp::Explanation => "explanation",
            FollowUp::Pronoun => "pronoun",
        }
    }

    /// Whether the turn builds on the previous one (its evidence is partly inherited).
    pub fn inherits(self) -> bool {
        matches!(
            self,
            FollowUp::Refinement | FollowUp::Explanation | FollowUp::Pronoun
        )
    }
}

/// A question as it is executed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// How it relates to the previous turn.
    pub kind: FollowUp,
    /// The question as executed ("Read as: …" when it differs from what was typed).
    pub question: String,
    /// For an explanation: the pages it is restricted to.
    pub scope: Option<Scope>,
}

/// The id a context carries for `index`: its first 8 corpus-hash bytes in hex.
fn index_id(index: &Index) -> String {
    crate::hex::hex(&index.corpus_hash[..8])
}

/// The previous question and the ids of its quoted fragments that exist in this index, or
/// `None` when the context is for another index or format version, oversized or empty.
fn validate<'c>(index: &Index, context: &'c TurnContext) -> Option<(&'c str, Vec<u32>)> {
    let question = context.question.trim();
    if context.version != FORMAT_VERSION
        || context.index != index_id(index)
        || question.is_empty()
        || context.question.len() > MAX_CONTEXT_QUESTION
        || context.fragments.len() > MAX_CONTEXT_FRAGMENTS
    {
        return None;
    }
    let mut fragments: Vec<u32> = Vec::new();
    for &f in &context.fragments {
        if f < index.fragment_count() && !fragments.contains(&f) {
            fragments.push(f);
        }
    }
    Some((question, fragments))
}

/// Reads `question` in the light of `context` (see the module's table). Never fails: a
/// missing or invalid context gives a standalone question. A question read in the light of
/// the previous one is at most [`MAX_QUESTION_CHARS`] long: the previous question gives way to
/// what the visitor typed (a refinement of a long question is asked, not declined as too long).
pub fn resolve(index: &Index, question: &Question, context: Option<&TurnContext>) -> Turn {
    let mut turn = read(index, question, context);
    if turn.kind.inherits() && turn.question.chars().count() > MAX_QUESTION_CHARS {
        // Only a pronoun standing for a long subject several times gets here.
        turn.question = shorten(&turn.question, MAX_QUESTION_CHARS).into_owned();
    }
    turn
}

fn read(index: &Index, asked: &Question, context: Option<&TurnContext>) -> Turn {
    let question = asked.text();
    let alone = |kind| Turn {
        kind,
        question: question.to_owned(),
        scope: None,
    };
    let Some((previous, fragments)) = context.and_then(|c| validate(index, c)) else {
        return alone(FollowUp::Standalone);
    };
    // Room for the previous question beside the visitor's words and what joins them ("Why? ",
    // " (", ")?"): each rule uses the previous question at most once.
    let room = MAX_QUESTION_CHARS.saturating_sub(question.chars().count() + 8);
    let previous = shorten(previous, room);
    let previous = previous.as_ref();
    let words = split(asked);
    let prev = split(&Question::new(previous));
    let at = |i: usize| words.get(i).map_or(question.len(), |w| w.start);
    let after = |i: usize| question.get(at(i)..).unwrap_or_default();
    if let Some(n) = lang::find_phrase(List::Fresh, |m| opens_with(&words, m)) {
        return Turn {
            kind: FollowUp::NewSubject,
            question: after(n).to_owned(),
            scope: None,
        };
    }
    let skip = lang::find_phrase(List::RefinementOpeners, |o| opens_with(&words, o)).unwrap_or(0);
    let rest = words.get(skip..).unwrap_or_default();
    if is_explanation(rest) {
        if fragments.is_empty() {
            return alone(FollowUp::NewSubject);
        }
        let german = rest
            .iter()
            .any(|w| has(lang::words(Lang::German).followup_why, &w.text));
        let why = if german { "Warum? " } else { "Why? " };
        return Turn {
            kind: FollowUp::Explanation,
            question: why.to_owned() + previous,
            scope: Some(explanation_scope(index, &fragments)),
        };
    }
    let asks = |w: &Word| in_any(List::OpensQuestion, &w.text);
    if skip > 0 && rest.first().is_some_and(asks) {
        // "and does it fold?": the connective joins a question of its own.
        let inner = read(index, &Question::new(after(skip)), context);
        return if inner.kind.inherits() {
            inner
        } else {
            alone(inner.kind)
        };
    }
    let refinement = rest.iter().any(|w| !is_function(&w.text))
        && !rest.iter().any(asks)
        && match rest.first() {
            // "what about …", "was ist mit …"
            _ if skip > 1 => true,
            // "and for parts?", "und der Tern?"
            _ if skip == 1 => rest.len() <= 5,
            // "for parts?", "the Tern?"
            Some(w) if in_any(List::Prepositions, &w.text) => rest.len() <= 6,
            Some(w) if in_any(List::Articles, &w.text) => rest.len() <= 4,
            _ => false,
        };
    if refinement {
        let new = trim_end(after(skip));
        return Turn {
            kind: FollowUp::Refinement,
            question: refine(index, previous, &prev, new, &split(&Question::new(new))),
            scope: None,
        };
    }
    if let Some(pronouns) = referring(&words)
        && let Some(subject) = subject(previous, &prev)
    {
        let mut out = String::new();
        let mut from = 0;
        for w in pronouns {
            out.push_str(question.get(from..w.start).unwrap_or_default());
            out.push_str(subject);
            from = w.end;
        }
        out.push_str(question.get(from..).unwrap_or_default());
        return Turn {
            kind: FollowUp::Pronoun,
            question: out,
            scope: None,
        };
    }
    alone(FollowUp::NewSubject)
}

/// The previous answer's pages and every page of a decisions collection: where the "why"
/// of what was quoted is written.
fn explanation_scope(index: &Index, fragments: &[u32]) -> Scope {
    let decisions = (0..index.doc_count()).filter(|&d| is_decision(index, d));
    let quoted = fragments.iter().filter_map(|&f| index.page_of(f));
    // Kept sorted as it grows (no sort routine in the wasm module for this).
    let mut docs: Vec<u32> = Vec::new();
    for d in quoted.chain(decisions) {
        if let Err(at) = docs.binary_search(&d) {
            docs.insert(at, d);
        }
    }
    Scope { docs }
}

/// One word of a question: lowercased, with its byte range and whether it was capitalised
/// and whether a phrase boundary (`,` `;` `:` `?` `!` `(` or `. `) comes before it.
#[derive(Debug)]
struct Word {
    text: String,
    start: usize,
    end: usize,
    capital: bool,
    boundary: bool,
}

/// The words of `question` (see [`Word`]).
fn split(question: &Question) -> Vec<Word> {
    let text = question.text();
    let mut words = Vec::new();
    let mut last = 0;
    for (range, word) in question.ranges().iter().zip(question.words()) {
        let gap = text.get(last..range.start).unwrap_or_default();
        last = range.end;
        words.push(Word {
            boundary: gap.contains([',', ';', ':', '?', '!', '(', ')']) || gap.contains(". "),
            capital: text
                .get(range.clone())
                .and_then(|s| s.chars().next())
                .is_some_and(char::is_uppercase),
            start: range.start,
            end: range.end,
            text: word.clone(),
        });
    }
    words
}

/// Whether the words open with `phrase`; then how many words it has.
fn opens_with(words: &[Word], phrase: &str) -> Option<usize> {
    let mut n = 0;
    for p in phrase.split(' ') {
        if words.get(n).is_none_or(|w| w.text != p) {
            return None;
        }
        n += 1;
    }
    Some(n)
}

fn trim_end(text: &str) -> &str {
    text.trim().trim_end_matches(['?', '!', '.', ' '])
}

fn is_explanation(words: &[Word]) -> bool {
    words.iter().any(|w| in_any(List::FollowupWhy, &w.text))
        && words
            .iter()
            .all(|w| in_any(List::FollowupWhy, &w.text) || in_any(List::Fillers, &w.text))
}

/// The pronouns of `question` that stand for something before it: not "it" in "is it possible
/// to …", "es" in "gibt es", nor a pronoun after a name or noun phrase of the question's own.
fn referring(words: &[Word]) -> Option<Vec<&Word>> {
    let mut res = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let word = w.text.as_str();
        let next = words.get(i + 1);
        let ends_phrase = next.is_none_or(|n| n.boundary || is_function(&n.text));
        let refers = if word == "it" || word == "es" {
            // An infinitive later ("is it possible to return …", "es lohnt sich zu …") makes
            // it a placeholder; so does "gibt es" (there is).
            let infinitive =
                words
                    .iter()
                    .skip(i + 1)
                    .zip(words.iter().skip(i + 2))
                    .any(|(a, b)| {
                        (a.text == "to" || a.text == "zu") && !is_function(&b.text) && !b.capital
                    });
            let there = i
                .checked_sub(1)
                .and_then(|p| words.get(p))
                .is_some_and(|p| p.text == "gibt" || p.text == "geht");
            !infinitive && !there
        } else if word == "sie" {
            // "Sie" capitalised inside a German question is the polite "you".
            !w.capital || i == 0
        } else {
            in_any(List::Pronouns, word) || (in_any(List::Demonstratives, word) && ends_phrase)
        };
        if !refers {
            continue;
        }
        // A name or an article's phrase earlier in the question is what the pronoun means.
        let own = words.iter().take(i).enumerate().any(|(j, p)| {
            (p.capital && j > 0 && !is_function(&p.text))
                || (in_any(List::Articles, &p.text) && j + 1 < i)
        });
        if !own {
            res.push(w);
        }
    }
    (!res.is_empty()).then_some(res)
}

fn is_function(word: &str) -> bool {
    is_stopword(word, Lang::English) || is_stopword(word, Lang::German)
}

/// The previous question's subject, as it was written: the first article and the words after
/// it ("the Larkspur Wren" in "How much does the Larkspur Wren cost?", the verb dropped after
/// "does"), else its last run of content words without a leading verb ("larkctl" in "How do I
/// install larkctl?").
fn subject<'q>(question: &'q str, words: &[Word]) -> Option<&'q str> {
    let span = |a: &Word, b: &Word| question.get(a.start..b.end);
    for (i, det) in words.iter().enumerate() {
        if !in_any(List::Determiners, &det.text) {
            continue;
        }
        let run: Vec<&Word> = words
            .iter()
            .skip(i + 1)
            .take_while(|w| !w.boundary && !is_function(&w.text))
            .collect();
        let before = i.checked_sub(1).and_then(|p| words.get(p));
        let verb_last = before.is_some_and(|b| {
            in_any(List::DoAux, &b.text) || (i == 1 && in_any(List::BeAux, &b.text))
        });
        let keep = if verb_last && run.len() >= 2 {
            run.len() - 1
        } else {
            run.len()
        };
        if let Some(last) = run.get(..keep).and_then(|r| r.last()) {
            return span(det, last);
        }
    }
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if is_function(&w.text) {
            continue;
        }
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == i && !w.boundary => *end = i,
            _ => runs.push((i, i)),
        }
    }
    let (mut start, end) = *runs.last()?;
    let after_person = start
        .checked_sub(1)
        .and_then(|p| words.get(p))
        .is_some_and(|p| in_any(List::Persons, &p.text));
    if after_person && start < end {
        start += 1;
    } else if after_person {
        return None;
    }
    span(words.get(start)?, words.get(end)?)
}

/// The previous question with `new` (the refinement's words, without its opener) put in the
/// slot it fills: after the same preposition, or in place of the sibling it is an alternative
/// to (the other heading under the same parent, the other first cell of the same table); when
/// it fills no slot it narrows the previous question.
fn refine(index: &Index, previous: &str, prev: &[Word], new: &str, words: &[Word]) -> String {
    let head = trim_end(previous);
    let replace = |from: usize, to: usize, with: &str| {
        format!(
            "{}{}{}",
            previous.get(..from).unwrap_or_default(),
            with,
            previous.get(to..).unwrap_or_default()
        )
    };
    // The same preposition: what followed it is what the new words replace.
    if let Some(first) = words
        .first()
        .filter(|w| in_any(List::Prepositions, &w.text))
    {
        let slot = prev.iter().rposition(|w| w.text == first.text);
        if let Some(slot) = slot {
            let run: Vec<&Word> = prev
                .iter()
                .skip(slot + 1)
                .take_while(|w| {
                    !w.boundary && (!is_function(&w.text) || in_any(List::Articles, &w.text))
                })
                .collect();
            if let (Some(a), Some(b), Some(rest)) = (run.first(), run.last(), words.get(1)) {
                return replace(a.start, b.end, new.get(rest.start..).unwrap_or_default());
            }
        }
    }
    if let Some(((from, to), (a, b))) = siblings(index, prev, words) {
        // "return a bike" + "parts": the article goes with the word it introduced.
        let from = prev
            .iter()
            .zip(prev.iter().skip(1))
            .find(|(_, w)| w.start == from)
            .filter(|(a, _)| has("a an ein eine einen", &a.text))
            .map_or(from, |(a, _)| a.start);
        return replace(from, to, new.get(a..b).unwrap_or_default());
    }
    let new = new.trim();
    if words
        .first()
        .is_some_and(|w| in_any(List::Prepositions, &w.text))
    {
        format!("{head} {new}?")
    } else {
        format!("{head} ({new})?")
    }
}

/// A word of the refinement and a word of the previous question that name alternatives: two
/// sibling units (see [`groups`]), each with one word and not the other. Returns the byte
/// range in the previous question of its run of words only its unit has, and the range in the
/// refinement of the words only the other unit has.
fn siblings(
    index: &Index,
    prev: &[Word],
    new: &[Word],
) -> Option<((usize, usize), (usize, usize))> {
    /// Fragments looked at per word: enough for any page that lists it.
    const MAX_FRAGMENTS: usize = 200;
    // With the default language too when no page uses it: no page then has its groups.
    for lang in index.langs() {
        let analyzer = Analyzer::new(lang, index.settings.stemming);
        let stem = |w: &str| analyzer.term(w).into_owned();
        let unit = |text: &&str| -> Vec<String> {
            tokens(text)
                .filter(|(_, w)| !is_function(w))
                .map(|(_, w)| stem(&w))
                .collect()
        };
        let prev_stems: Vec<String> = prev.iter().map(|w| stem(&w.text)).collect();
        let new_stems: Vec<String> = new.iter().map(|w| stem(&w.text)).collect();
        for (word, s) in new.iter().zip(&new_stems) {
            let Some(at) = index.term_id(s) else {
                continue;
            };
            if is_function(&word.text) {
                continue;
            }
            for &(frag, _) in index.postings(at).iter().take(MAX_FRAGMENTS) {
                for group in groups(index, frag, lang) {
                    let group: Vec<Vec<String>> = group.iter().map(unit).collect();
                    for a in group.iter().filter(|u| u.contains(s)) {
                        for b in group.iter().filter(|u| !u.contains(s)) {
                            let only_a = |x: &String| a.contains(x) && !b.contains(x);
                            let only_b = |x: &String| b.contains(x) && !a.contains(x);
                            if new_stems.iter().any(only_b) {
                                continue;
                            }
                            if let (Some(p), Some(w)) = (
                                run(prev, &prev_stems, &only_b),
                                run(new, &new_stems, &only_a),
                            ) {
                                return Some((p, w));
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

/// The sibling units fragment `frag` of a page in `lang` belongs to, by group: the last
/// headings under its parent heading on its page, and the first cells of each of its tables.
fn groups(index: &Index, frag: u32, lang: Lang) -> Vec<Vec<&str>> {
    let mut res = Vec::new();
    let Some(f) = index.fragment(frag) else {
        return res;
    };
    let Some(doc) = index.doc_of(f).filter(|d| d.lang == lang) else {
        return res;
    };
    if let Some((own, parent)) = f.heading_path.split_last() {
        let first = frag.saturating_sub(f.position);
        let mut group = vec![own.as_str()];
        let end = first.saturating_add(doc.n_fragments);
        for g in (first..end).filter_map(|i| index.fragment(i)) {
            if let Some((last, p)) = g.heading_path.split_last()
                && p == parent
                && !group.contains(&last.as_str())
            {
                group.push(last);
            }
        }
        res.push(group);
    }
    let mut tables: Vec<(u32, Vec<&str>)> = Vec::new();
    for &(row, header) in &f.table_rows {
        let cell = f
            .sentence(row as usize)
            .and_then(|r| r.split(crate::source::CELL_SEPARATOR).next())
            .unwrap_or_default();
        match tables.iter_mut().find(|(h, _)| *h == header) {
            Some((_, cells)) => cells.push(cell),
            None => tables.push((header, vec![cell])),
        }
    }
    res.extend(tables.into_iter().map(|(_, cells)| cells));
    res
}

/// The byte range of the first run of content words whose stems pass `only`.
fn run(words: &[Word], stems: &[String], only: &dyn Fn(&String) -> bool) -> Option<(usize, usize)> {
    let mut found: Option<(usize, usize)> = None;
    for (w, s) in words.iter().zip(stems) {
        let hit = only(s) && !is_function(&w.text);
        match &mut found {
            None if hit => found = Some((w.start, w.end)),
            Some((_, end)) if hit && !w.boundary => *end = w.end,
            Some(_) => break,
            None => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{Block, BlockKind, SourceDoc, SourceSection, chunk};
    use crate::format::IndexSettings;
    use crate::{Collection, IndexBuilder};

    fn page(
        path: &str,
        lang: Lang,
        collection: Option<&str>,
        sections: &[(&[&str], Block)],
    ) -> SourceDoc {
        SourceDoc {
            path: path.into(),
            url: format!("/{path}/"),
            title: path.into(),
            lang,
            themes: vec![],
            collection: collection.map(str::to_owned),
            sections: sections
                .iter()
                .map(|(heading, block)| SourceSection {
                    heading_path: heading.iter().map(|h| (*h).to_owned()).collect(),
                    anchor: heading.join("-").to_lowercase(),
                    blocks: vec![block.clone()],
                })
                .collect(),
        }
    }

    /// Returns with sibling headings, prices with a table, a decision, a German page.
    fn index() -> Index {
        let p = Block::paragraph;
        let docs = [
            page(
                "returns",
                Lang::English,
                Some("guides"),
                &[
                    (
                        &["Time limits", "Bikes"],
                        p("You have 30 days to return a bike."),
                    ),
                    (
                        &["Time limits", "Parts and accessories"],
                        p("Unused parts can be returned within 60 days."),
                    ),
                    (&["Refunds"], p("We refund within 10 working days.")),
                ],
            ),
            page(
                "prices",
                Lang::English,
                None,
                &[(
                    &["Bikes"],
                    Block {
                        kind: BlockKind::Table,
                        text: "Model | Price\nLarkspur Wren | EUR 3,450\nLarkspur Tern | EUR 4,290"
                            .into(),
                    },
                )],
            ),
            page(
                "deposit-decision",
                Lang::English,
                Some("decisions"),
                &[(
                    &["Context"],
                    p("One booked slot in six went unused, so bookings need a deposit."),
                )],
            ),
            page(
                "rueckgabe",
                Lang::German,
                None,
                &[
                    (
                        &["Fristen", "Räder"],
                        p("Sie haben 30 Tage, ein Rad zurückzugeben."),
                    ),
                    (
                        &["Fristen", "Teile und Zubehör"],
                        p("Teile können Sie innerhalb von 60 Tagen zurückgeben."),
                    ),
                ],
            ),
        ];
        let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
        builder.declare_collection(Collection::named("decisions"));
        for doc in &docs {
            builder.add(doc, &chunk(doc, 800));
        }
        let mut index = builder.finish();
        index.corpus_hash = [0xab; 32];
        index
    }

    fn context(index: &Index, question: &str, fragments: Vec<u32>) -> TurnContext {
        TurnContext::new(index, question, fragments)
    }

    /// Reads `question` after `previous`, whose answer quoted fragment 0 (returns › Bikes).
    fn read(previous: &str, question: &str) -> Turn {
        let index = index();
        resolve(
            &index,
            &Question::new(question),
            Some(&context(&index, previous, vec![0])),
        )
    }

    fn check(previous: &str, question: &str, kind: FollowUp, executed: &str) {
        let turn = read(previous, question);
        assert_eq!(
            (turn.kind, turn.question.as_str()),
            (kind, executed),
            "{question}"
        );
    }

    /// The question as executed is at most `MAX_QUESTION_CHARS` long however long the
    /// previous one was (it used to come out longer and be declined as too long).
    #[test]
    fn a_follow_up_of_a_long_question_stays_within_the_limit() {
        let long = format!(
            "How long do I have to return a bike{}?",
            " after delivery".repeat(40)
        );
        assert!(long.chars().count() > MAX_QUESTION_CHARS - 20);
        for (question, kind) in [
            ("And for parts?", FollowUp::Refinement),
            ("Why?", FollowUp::Explanation),
            (
                "What about during the winter sale in zone 2?",
                FollowUp::Refinement,
            ),
        ] {
            let turn = read(&long, question);
            assert_eq!(turn.kind, kind, "{question}");
            assert!(
                turn.question.chars().count() <= MAX_QUESTION_CHARS,
                "{question}: {} characters",
                turn.question.chars().count()
            );
            assert!(crate::check_question(&turn.question).is_ok(), "{question}");
        }
        // A subject standing in for several pronouns is cut as well.
        let subject = format!("the {} bike", "very ".repeat(90));
        let turn = read(
            &format!("How heavy is {subject}?"),
            "Does it fold, is it heavy, can it carry two children and does it fit in a lift?",
        );
        assert_eq!(turn.kind, FollowUp::Pronoun);
        assert!(turn.question.chars().count() <= MAX_QUESTION_CHARS);
    }

    #[test]
    fn explanation_requests_are_scoped_to_the_previous_pages_and_the_decisions() {
        for why in [
            "Why?",
            "How come?",
            "why is that?",
            "And why not?",
            "Warum?",
            "Wieso das?",
        ] {
            let turn = read("How long do I have to return a bike?", why);
            assert_eq!(turn.kind, FollowUp::Explanation, "{why}");
            // The returns page (doc 0) and the decision (doc 2).
            assert_eq!(turn.scope, Some(Scope { docs: vec![0, 2] }), "{why}");
        }
        check(
            "How long do I have to return a bike?",
            "why?",
            FollowUp::Explanation,
            "Why? How long do I have to return a bike?",
        );
        check(
            "Wie lange habe ich Zeit?",
            "Warum?",
            FollowUp::Explanation,
            "Warum? Wie lange habe ich Zeit?",
        );
        // With words of its own, "why" is a question of its own.
        assert_eq!(
            read("How long?", "Why do you charge a deposit?").kind,
            FollowUp::NewSubject
        );
    }

    #[test]
    fn a_refinement_fills_the_slot_of_the_same_preposition() {
        check(
            "How do I install larkctl on Linux?",
            "and on Windows?",
            FollowUp::Refinement,
            "How do I install larkctl on Windows?",
        );
        check(
            "What does the default error handler send in the production environment?",
            "And in development?",
            FollowUp::Refinement,
            "What does the default error handler send in development?",
        );
    }

    #[test]
    fn a_refinement_swaps_a_sibling_heading_or_table_row() {
        check(
            "How long do I have to return a bike?",
            "And for parts?",
            FollowUp::Refinement,
            "How long do I have to return parts?",
        );
        check(
            "How much does the Larkspur Wren cost?",
            "What about the Tern?",
            FollowUp::Refinement,
            "How much does the Larkspur Tern cost?",
        );
        check(
            "Wie lange habe ich Zeit, ein Rad zurückzugeben?",
            "Und für Teile?",
            FollowUp::Refinement,
            "Wie lange habe ich Zeit, Teile zurückzugeben?",
        );
    }

    #[test]
    fn a_refinement_that_fills_no_slot_narrows_the_question() {
        check(
            "What are the opening hours?",
            "and on public holidays?",
            FollowUp::Refinement,
            "What are the opening hours on public holidays?",
        );
        check(
            "What does a refund include?",
            "what about the deposit?",
            FollowUp::Refinement,
            "What does a refund include (the deposit)?",
        );
        // A bare phrase opening with a preposition or an article is a refinement too.
        check(
            "How long is the warranty?",
            "for batteries?",
            FollowUp::Refinement,
            "How long is the warranty for batteries?",
        );
    }

    #[test]
    fn a_pronoun_takes_the_previous_subject() {
        check(
            "How much does the Larkspur Wren cost?",
            "How heavy is it?",
            FollowUp::Pronoun,
            "How heavy is the Larkspur Wren?",
        );
        check(
            "Is the workshop open on Mondays?",
            "Is it step-free?",
            FollowUp::Pronoun,
            "Is the workshop step-free?",
        );
        check(
            "How do I install larkctl?",
            "Does it run on Windows?",
            FollowUp::Pronoun,
            "Does larkctl run on Windows?",
        );
        check(
            "What is express.Router?",
            "How do I mount it?",
            FollowUp::Pronoun,
            "How do I mount express.Router?",
        );
        check(
            "Was kostet der Larkspur Tern?",
            "Wie schwer ist er?",
            FollowUp::Pronoun,
            "Wie schwer ist der Larkspur Tern?",
        );
        check(
            "How much is that?",
            "and does it fold?",
            FollowUp::NewSubject,
            "and does it fold?",
        );
    }

    #[test]
    fn placeholders_and_pronouns_of_the_question_itself_refer_to_nothing_before() {
        for question in [
            "Is it possible to pay in instalments?",
            "How long does it take to charge a battery?",
            "Gibt es einen Rabatt?",
            "Can I install Express without adding it to my dependencies?",
            "Wann erstatten Sie den Betrag?",
            "What does that include?",
        ] {
            let turn = read("How much does the Larkspur Wren cost?", question);
            assert_eq!(
                (turn.kind, turn.question.as_str()),
                (FollowUp::NewSubject, question)
            );
        }
    }

    #[test]
    fn a_new_subject_starts_fresh() {
        check(
            "How much does the Larkspur Wren cost?",
            "How long do I have to return a bike?",
            FollowUp::NewSubject,
            "How long do I have to return a bike?",
        );
        check(
            "How much does the Larkspur Wren cost?",
            "New question: how heavy is it?",
            FollowUp::NewSubject,
            "how heavy is it?",
        );
        // A connective before a question of its own is read as that question.
        check(
            "How much does the Larkspur Wren cost?",
            "And does it fold?",
            FollowUp::Pronoun,
            "does the Larkspur Wren fold?",
        );
    }

    #[test]
    fn a_context_for_another_index_version_or_size_is_ignored() {
        let index = index();
        let good = context(&index, "How long do I have to return a bike?", vec![0]);
        let broken = [
            TurnContext {
                version: FORMAT_VERSION + 1,
                ..good.clone()
            },
            TurnContext {
                index: "0000000000000000".into(),
                ..good.clone()
            },
            TurnContext {
                question: "x".repeat(MAX_CONTEXT_QUESTION + 1),
                ..good.clone()
            },
            TurnContext {
                fragments: vec![0; MAX_CONTEXT_FRAGMENTS + 1],
                ..good.clone()
            },
            TurnContext {
                question: " \n".into(),
                ..good.clone()
            },
        ];
        for c in &broken {
            let turn = resolve(&index, &Question::new("And for parts?"), Some(c));
            assert_eq!(turn.kind, FollowUp::Standalone, "{c:?}");
            assert_eq!(turn.question, "And for parts?");
            assert_eq!(turn.scope, None);
        }
        assert_eq!(
            resolve(&index, &Question::new("And for parts?"), Some(&good)).kind,
            FollowUp::Refinement
        );
        assert_eq!(
            resolve(&index, &Question::new("And for parts?"), None).kind,
            FollowUp::Standalone
        );
    }

    #[test]
    fn unknown_fragment_ids_are_filtered_out() {
        let index = index();
        let n = index.fragments.len() as u32;
        let only_unknown = context(&index, "How long?", vec![n, u32::MAX]);
        let turn = resolve(&index, &Question::new("Why?"), Some(&only_unknown));
        // Nothing left to scope an explanation to: the question is read as typed.
        assert_eq!(
            (turn.kind, turn.question.as_str(), turn.scope),
            (FollowUp::NewSubject, "Why?", None)
        );
        // Prices (doc 1) is known; the duplicate and the unknown id are dropped.
        let mixed = context(&index, "How much?", vec![u32::MAX, 3, 3]);
        let turn = resolve(&index, &Question::new("Why?"), Some(&mixed));
        assert_eq!(turn.scope, Some(Scope { docs: vec![1, 2] }));
    }
}
