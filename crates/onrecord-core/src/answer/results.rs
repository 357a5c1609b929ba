//! Results: the ranked sections a visitor is shown under an answer or a decline, and while
//! typing ([`search`]); and typo correction of the question's words against the site's words.
//!
//! Results are never an answer: they carry no confidence and no mode, only where a section is
//! and the words of it that match best, so a decline can still point at what the engine found.

use super::{Citation, Scope, citation};
use crate::bm25::{QueryTerm, insert_sorted, query_terms, search as bm25_search};
use crate::format::{Fragment, Index};
use crate::question::Question;
use crate::text::{Analyzer, is_stopword, tokens};
use crate::vector::QueryModel;

/// At most this many sections are listed.
pub const MAX_RESULTS: usize = 8;
/// At most this many sections of one page are listed (as Pagefind's sub-results).
pub const MAX_PER_PAGE: usize = 3;
/// An excerpt is at most this many bytes of the fragment's text.
const MAX_EXCERPT: usize = 240;
/// How many fragments a search as the visitor types ranks before grouping them by page.
const SEARCH_DEPTH: usize = 24;
/// A word typed as a prefix stands for at most this many of the site's words.
const MAX_EXPANSIONS: usize = 12;

/// A section shown as a result: where it is and the words of it that match the question best.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionHit {
    /// Index into [`Index::fragments`].
    pub fragment: u32,
    /// Where it is (page title, section path, link to the heading).
    pub citation: Citation,
    /// A verbatim slice of the fragment's text: its sentence that holds most of the question.
    pub excerpt: String,
    /// Byte ranges in `excerpt` of the question's words.
    pub highlights: Vec<(u32, u32)>,
}

/// A question word the site never uses, read as the site's word nearest to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    /// The word as the visitor typed it.
    pub from: String,
    /// The site's word it was read as, as a page writes it.
    pub to: String,
}

/// What a search as the visitor types finds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Search {
    /// Ranked sections, grouped by page (a page's sections follow its best one).
    pub results: Vec<SectionHit>,
    /// The typed words read as other words ("Showing results for …").
    pub corrections: Vec<Correction>,
}

/// Results for the words typed so far: lexical (cheap enough for every keystroke), the last
/// word read as a prefix unless the query ends in a space; `model`, when loaded, only tells
/// typos from words (a word its vocabulary holds whole is not corrected). An empty or one-letter query, or one
/// that cannot be asked, finds nothing. Never fails.
pub fn search(index: &Index, model: Option<&QueryModel>, query: &str) -> Search {
    search_in(index, model, query, None)
}

/// [`search`] within one part of the site ([`Scope::part`]; none: the whole site).
pub fn search_in(
    index: &Index,
    model: Option<&QueryModel>,
    query: &str,
    part: Option<&Scope>,
) -> Search {
    // Checked questions are trimmed: whether a word is still being typed is read before.
    let typing = !query.ends_with(char::is_whitespace);
    let query = Question::read(query);
    if query.problem().is_some() || query.text().chars().count() < 2 {
        return Search::default();
    }
    let mut terms = query_terms(index, &query);
    let prefix = query
        .words()
        .last()
        .filter(|w| typing && w.chars().count() >= 2);
    if let Some(last) = prefix {
        expand_prefix(index, &mut terms, last);
    }
    // After the prefix: a word still being typed ("compr") is not a typo of another word
    // unless no site word begins with it.
    let corrections = correct(index, model, &mut terms);
    if terms.iter().all(|t| !t.in_corpus()) {
        return Search::default();
    }
    // Within a part, ranked over the whole site first (as `retrieve::rank` does for a scope).
    let depth = part.map_or(SEARCH_DEPTH, |_| index.fragment_count() as usize);
    let ranked: Vec<u32> = bm25_search(index, &terms, depth)
        .iter()
        .map(|h| h.fragment)
        .filter(|&f| part.is_none_or(|p| p.contains(index, f)))
        .take(SEARCH_DEPTH)
        .collect();
    Search {
        results: sections(index, &ranked, &terms, &[], prefix.map(String::as_str)),
        corrections,
    }
}

/// The last word typed stands for the site's words it begins (and, once long enough, for the
/// word it is): "compr" finds "compression". The most frequent words first, at most a few.
fn expand_prefix(index: &Index, terms: &mut Vec<QueryTerm>, last: &str) {
    // The most used first, by insertion: a sort would be a second sort routine in the wasm.
    let mut by_use: Vec<(usize, usize)> = Vec::new();
    for id in index.terms_with_prefix(last) {
        insert_sorted(&mut by_use, (usize::MAX - index.doc_frequency(id), id));
        by_use.truncate(MAX_EXPANSIONS);
    }
    let mut ids: Vec<usize> = Vec::new();
    for (_, id) in by_use {
        insert_sorted(&mut ids, id);
    }
    if ids.is_empty() {
        return;
    }
    match terms.iter_mut().find(|t| t.word == last) {
        Some(term) => {
            for id in ids {
                insert_sorted(&mut term.term_ids, id);
            }
        }
        None => {
            // A stopword or site name so far ("the", "conf"): a prefix of content words too.
            let n = index.fragment_count() as f32;
            let df = ids
                .iter()
                .map(|&t| index.doc_frequency(t))
                .max()
                .unwrap_or(0) as f32;
            terms.push(QueryTerm {
                word: last.to_owned(),
                term_ids: ids,
                hint_term_ids: Vec::new(),
                idf: (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
                framing: false,
                contraction: false,
                how_much: false,
            });
        }
    }
}

/// Reads each question word no page uses as the site's nearest word, when one is close: a
/// word a page writes ("compression") one edit from the typed one for words of 5 to 8 letters,
/// two for 9 or more. Close stems are not enough: "redis" is one edit from the stem of
/// "ready", a word no visitor meant. Never a different first letter (typos rarely start a
/// word, and it keeps the scan to one run of the sorted words). The closest wins, then the one
/// more pages use. Returns what it changed.
///
/// With the query model, a word its vocabulary holds whole ("reply") is a word, not a typo, and
/// stays as typed: reading "reply" as the pages' "rely" cost answers (measured with `eval
/// --cross`). Without it nothing tells words from typos, so only the search as the visitor
/// types corrects ([`search`]). An answer is always decided on the question as typed; with the
/// model, the results shown under it are for the corrected words.
pub(crate) fn correct(
    index: &Index,
    model: Option<&QueryModel>,
    terms: &mut [QueryTerm],
) -> Vec<Correction> {
    let mut res = Vec::new();
    let analyzer = Analyzer::new(index.default_lang, index.settings.stemming);
    let known = |w: &str| model.is_some_and(|m| m.wordpiece().id(w).is_some());
    for term in terms
        .iter_mut()
        .filter(|t| !t.in_corpus() && !known(&t.word))
    {
        let letters = term.word.chars().count();
        let Some(first) = term.word.chars().next().filter(|c| c.is_alphabetic()) else {
            continue;
        };
        let budget = match letters {
            0..=4 => continue,
            5..=8 => 1,
            _ => 2,
        };
        let stem = analyzer.term(&term.word).into_owned();
        // (distance, rank by pages using it, term id, the word as written)
        let mut best: Option<(usize, usize, usize, String)> = None;
        let mut first_buf = [0u8; 4];
        for id in index.terms_with_prefix(first.encode_utf8(&mut first_buf)) {
            let Some(candidate) = index.term(id) else {
                continue;
            };
            // A stem is a few letters shorter than its words: a cheap first cut.
            if candidate.chars().count() < 4 || within(&stem, candidate, budget + 1).is_none() {
                continue;
            }
            let Some((d, written)) = nearest_written(index, id, &analyzer, &term.word, budget)
            else {
                continue;
            };
            let rank = usize::MAX - index.doc_frequency(id);
            if best.as_ref().is_none_or(|b| (d, rank) < (b.0, b.1)) {
                best = Some((d, rank, id, written));
            }
        }
        let Some((_, _, id, to)) = best else {
            continue;
        };
        let df = index.doc_frequency(id) as f32;
        let n = index.fragment_count() as f32;
        term.term_ids = vec![id];
        term.idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        res.push(Correction {
            from: term.word.clone(),
            to,
        });
    }
    res
}

/// How many of a term's fragments are read for the ways pages write it.
const WRITTEN_SAMPLES: usize = 3;

/// The way pages write term `id` (in its first few fragments, lower cased) nearest to `typed`,
/// when within `budget` edits, with the distance.
fn nearest_written(
    index: &Index,
    id: usize,
    analyzer: &Analyzer,
    typed: &str,
    budget: usize,
) -> Option<(usize, String)> {
    let stem = index.term(id)?;
    let mut best: Option<(usize, String)> = None;
    for &(frag, _) in index.postings(id).iter().take(WRITTEN_SAMPLES) {
        let Some(fragment) = index.fragment(frag) else {
            continue;
        };
        for (_, w) in tokens(&fragment.text) {
            if best.as_ref().is_some_and(|b| b.1 == w) || analyzer.term(&w) != stem {
                continue;
            }
            if let Some(d) = within(typed, &w, budget)
                && best.as_ref().is_none_or(|b| d < b.0)
            {
                best = Some((d, w));
            }
        }
    }
    best
}

/// The edit distance (insertions, deletions, substitutions, adjacent transpositions) between
/// `a` and `b` when it is at most `budget`. Bytes are compared, so a letter outside ASCII
/// counts as two edits: fewer corrections, never a wrong one.
fn within(a: &str, b: &str, budget: usize) -> Option<usize> {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > budget {
        return None;
    }
    // Three rows of the optimal-string-alignment table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for (i, &x) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let mut d = (prev[j + 1] + 1)
                .min(row[j] + 1)
                .min(prev[j] + usize::from(x != y));
            if i > 0 && j > 0 && a[i - 1] == y && b[j - 1] == x {
                d = d.min(before[j - 1] + 1);
            }
            row[j + 1] = d;
        }
        if row.iter().min().is_some_and(|&m| m > budget) {
            return None;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev.last().copied().filter(|&d| d <= budget)
}

/// Groups `ranked` fragments into results: pages in the order of their best fragment, each
/// with up to [`MAX_PER_PAGE`] of its sections in rank order, one entry per section link, none
/// of the fragments in `skip` (what the answer quotes). Words that begin with `prefix` (the
/// word being typed) count as the question's words in excerpts.
pub(crate) fn sections(
    index: &Index,
    ranked: &[u32],
    terms: &[QueryTerm],
    skip: &[u32],
    prefix: Option<&str>,
) -> Vec<SectionHit> {
    let ranked: Vec<(u32, u32)> = ranked
        .iter()
        .filter(|f| !skip.contains(f))
        .filter_map(|&f| Some((f, index.page_of(f)?)))
        .collect();
    let mut res: Vec<SectionHit> = Vec::new();
    let mut pages: Vec<u32> = Vec::new();
    // Pages in order of their best fragment, each with its fragments in rank order.
    for &(_, page) in &ranked {
        if pages.contains(&page) {
            continue;
        }
        pages.push(page);
        let mut on_page = 0;
        for &(frag, _) in ranked.iter().filter(|(_, p)| *p == page) {
            if on_page == MAX_PER_PAGE || res.len() == MAX_RESULTS {
                break;
            }
            let Some(fragment) = index.fragment(frag) else {
                continue;
            };
            let citation = citation(index, fragment, "");
            if res.iter().any(|r| r.citation.url == citation.url) {
                continue;
            }
            let (excerpt, highlights) = excerpt(index, fragment, terms, prefix);
            if excerpt.is_empty() {
                continue;
            }
            res.push(SectionHit {
                fragment: frag,
                citation,
                excerpt,
                highlights,
            });
            on_page += 1;
        }
    }
    res
}

/// The fragment's sentence (or table row) holding most of the question's weight, cut to
/// [`MAX_EXCERPT`] bytes around its first matching word; with its highlights. On a tie, the
/// one that holds two of the question's words side by side as the question does ("Zone 4 | …"
/// for "delivery zone 4 price", not "Zone 1 | … | 2–4 working days"), then the first.
fn excerpt(
    index: &Index,
    fragment: &Fragment,
    terms: &[QueryTerm],
    prefix: Option<&str>,
) -> (String, Vec<(u32, u32)>) {
    let lang = index
        .doc_of(fragment)
        .map_or(index.default_lang, |d| d.lang);
    let wanted = super::quote::Wanted::new(index, lang, terms);
    let typed = |text: &str| -> Vec<(u32, u32)> {
        let Some(prefix) = prefix else {
            return Vec::new();
        };
        tokens(text)
            .filter(|(_, w)| w.starts_with(prefix))
            .map(|(r, _)| (r.start as u32, r.end as u32))
            .collect()
    };
    // Adjacent words compared as written: a tie-break needs no stemming.
    let phrased = |i: usize| -> bool {
        let mut previous = String::new();
        for (_, word) in tokens(fragment.sentence(i).unwrap_or("")) {
            if is_stopword(&word, lang) {
                continue;
            }
            if terms
                .windows(2)
                .any(|p| p[0].word == previous && p[1].word == word)
            {
                return true;
            }
            previous = word;
        }
        false
    };
    let mut best: Option<(f32, usize)> = None;
    for (i, _) in fragment.sentences.iter().enumerate() {
        let Some(text) = fragment.sentence(i) else {
            continue;
        };
        let mut w = super::quote::weight(terms, &wanted.covered(text));
        if !typed(text).is_empty() {
            w += 1.0;
        }
        let better =
            best.is_none_or(|(b, j)| w > b || w == b && w > 0.0 && phrased(i) && !phrased(j));
        if better {
            best = Some((w, i));
        }
    }
    let text = match best.and_then(|(_, i)| fragment.sentence(i)) {
        Some(text) => text,
        None => fragment.text.as_str(),
    };
    let mut highlights = wanted.highlights(text);
    for h in typed(text) {
        insert_sorted(&mut highlights, h);
    }
    let (start, end) = window(text, highlights.first().map_or(0, |h| h.0 as usize));
    let Some(cut) = text.get(start..end) else {
        return (String::new(), Vec::new());
    };
    let shifted = highlights
        .into_iter()
        .filter(|&(s, e)| s as usize >= start && e as usize <= end)
        .map(|(s, e)| (s - start as u32, e - start as u32))
        .collect();
    (cut.trim_end().to_owned(), shifted)
}

/// A window of at most [`MAX_EXCERPT`] bytes of `text` that holds byte `focus`, starting at
/// a word a little before it and ending on a char boundary.
fn window(text: &str, focus: usize) -> (usize, usize) {
    if text.len() <= MAX_EXCERPT {
        return (0, text.len());
    }
    // The word start at or before a quarter of the window ahead of the focus.
    let from = focus.saturating_sub(MAX_EXCERPT / 4);
    let start = text
        .get(..focus.min(text.len()))
        .and_then(|before| before.get(from..).map(|_| before))
        .and_then(|before| before[..from].rfind(char::is_whitespace).map(|at| at + 1))
        .unwrap_or(0);
    let mut end = (start + MAX_EXCERPT).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_one_typo_of_each_kind() {
        assert_eq!(within("compression", "compression", 2), Some(0));
        assert_eq!(within("compresion", "compression", 2), Some(1));
        assert_eq!(within("comrpession", "compression", 2), Some(1));
        assert_eq!(within("compressoin", "compression", 1), Some(1));
        assert_eq!(within("xompression", "compression", 1), Some(1));
        assert_eq!(within("cmprssion", "compression", 1), None);
        assert_eq!(within("cmprssion", "compression", 2), Some(2));
    }

    #[test]
    fn windows_stay_between_words_and_hold_the_focus() {
        let text = "word ".repeat(100);
        let (s, e) = window(&text, 300);
        assert!(e - s <= MAX_EXCERPT && s <= 300 && 300 < e);
        assert!(text[..s].ends_with(' '));
        assert_eq!(window("short", 0), (0, 5));
        let wide = "é".repeat(400);
        let (s, e) = window(&wide, 401);
        assert!(wide.is_char_boundary(s) && wide.is_char_boundary(e) && e > s);
    }
}
