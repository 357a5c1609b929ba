//! BM25: building postings from fragments, and ranking fragments for a question.

use std::collections::{BTreeMap, BTreeSet};

use crate::chunk::{FragmentDraft, MAX_HEADING_CHARS, MAX_TITLE_CHARS, SourceDoc, shorten};
use crate::collection::Collection;
use crate::format::{Bm25Params, Doc, Fragment, Index, IndexSettings, RoutingHint, TermPostings};
use crate::question::Question;
use crate::source::PageKind;
use crate::text::{
    Analyzer, Lang, asks_how_much, in_contraction, is_framing, is_stopword, skips_as_previous,
    tokens,
};

/// How many times a title word counts towards term frequency.
const TITLE_WEIGHT: u32 = 2;
/// How many times a heading word counts towards term frequency.
const HEADING_WEIGHT: u32 = 2;
/// How many times a curated theme word (frontmatter `themes`) counts, in every fragment.
const THEME_WEIGHT: u32 = 1;

/// At most this many distinct content words of a question are used.
const MAX_QUERY_TERMS: usize = 64;

/// Collects documents and fragments and builds an [`Index`] with deterministic output.
pub struct IndexBuilder {
    default_lang: Lang,
    settings: IndexSettings,
    docs: Vec<Doc>,
    fragments: Vec<Fragment>,
    postings: BTreeMap<String, Vec<(u32, u32)>>,
    total_terms: u64,
    hints: Vec<RoutingHint>,
    hint_postings: BTreeMap<String, Vec<(u32, u32)>>,
    site_words: BTreeSet<String>,
    collections: Vec<Collection>,
}

impl IndexBuilder {
    /// Starts an empty index whose pages default to `default_lang`.
    pub fn new(default_lang: Lang, settings: IndexSettings) -> IndexBuilder {
        IndexBuilder {
            default_lang,
            settings,
            docs: Vec::new(),
            fragments: Vec::new(),
            postings: BTreeMap::new(),
            total_terms: 0,
            hints: Vec::new(),
            hint_postings: BTreeMap::new(),
            site_words: BTreeSet::new(),
            collections: Vec::new(),
        }
    }

    /// Declares the names of the site or its author ("Person A", "Larkspur"). Pages rarely
    /// repeat them (an essay is written in the first person), yet questions use them to mean
    /// "these pages"; their words are left out of every question's content words.
    pub fn name_site(&mut self, names: &[String]) {
        for name in names {
            self.site_words.extend(tokens(name).map(|(_, w)| w));
        }
    }

    /// Declares a collection with its label and cap (a site's configuration). Pages may also
    /// name collections nobody declared: those get no label of their own and the default cap.
    /// A second declaration of a name replaces the first.
    pub fn declare_collection(&mut self, collection: Collection) {
        match self
            .collections
            .iter_mut()
            .find(|c| c.name == collection.name)
        {
            Some(c) => *c = collection,
            None => self.collections.push(collection),
        }
    }

    /// The index of the collection called `name`, declared on first use.
    fn collection(&mut self, name: &str) -> u32 {
        let at = match self.collections.iter().position(|c| c.name == name) {
            Some(at) => at,
            None => {
                self.collections.push(Collection::named(name));
                self.collections.len() - 1
            }
        };
        at as u32
    }

    /// Adds a routing hint to a private note. Only the hint's own fields and the author's
    /// routing `keywords` are indexed: nothing of the note's body ever reaches the builder.
    pub fn add_hint(&mut self, hint: RoutingHint, keywords: &[String], lang: Lang) {
        let hint_idx = self.hints.len() as u32;
        let analyzer = Analyzer::new(lang, self.settings.stemming);
        let mut tf: BTreeMap<String, u32> = BTreeMap::new();
        let words = [hint.label.as_str(), hint.locator.as_str()]
            .into_iter()
            .chain(keywords.iter().map(String::as_str));
        for field in words {
            for (_, word) in tokens(field) {
                if !is_stopword(&word, lang) {
                    *tf.entry(analyzer.term(&word).into_owned()).or_default() += 1;
                }
            }
        }
        for (term, count) in tf {
            self.hint_postings
                .entry(term)
                .or_default()
                .push((hint_idx, count));
        }
        self.hints.push(hint);
    }

    /// Adds a document and its fragments (from [`crate::chunk()`]) as an ordinary page. Add
    /// documents in a stable order.
    pub fn add(&mut self, doc: &SourceDoc, drafts: &[FragmentDraft]) {
        self.add_page(doc, drafts, PageKind::Page);
    }

    /// Adds a document of a given kind: what the site owner declared, or what
    /// [`crate::page_kind`] tells from its structure (the build tool does; the visitors' own
    /// files are all ordinary pages, which keeps the detection out of the browser).
    ///
    /// Titles and headings are shortened to [`MAX_TITLE_CHARS`] and [`MAX_HEADING_CHARS`]: they
    /// are indexed with every fragment of their page or section, so what each fragment costs
    /// stays bounded however long a heading is.
    pub fn add_page(&mut self, doc: &SourceDoc, drafts: &[FragmentDraft], kind: PageKind) {
        let doc_idx = self.docs.len() as u32;
        let collection = doc.collection.as_deref().map(|name| self.collection(name));
        let analyzer = Analyzer::new(doc.lang, self.settings.stemming);
        let title = shorten(&doc.title, MAX_TITLE_CHARS);
        let themes = doc.themes.join(". ");
        for (position, draft) in drafts.iter().enumerate() {
            let section = doc.sections.get(draft.section);
            let heading_path: Vec<String> = section
                .map(|s| &s.heading_path[..])
                .unwrap_or_default()
                .iter()
                .map(|h| shorten(h, MAX_HEADING_CHARS).into_owned())
                .collect();
            // What is indexed is "title. heading path. text"; what is quoted is only the text.
            // Title and heading words count more: they say what the whole fragment is about.
            let mut tf: BTreeMap<String, u32> = BTreeMap::new();
            let mut n_terms = 0u32;
            let fields = [
                (&*title, TITLE_WEIGHT),
                (&heading_path.join(". "), HEADING_WEIGHT),
                (&themes, THEME_WEIGHT),
                (draft.text.as_str(), 1),
            ];
            for (field, weight) in fields {
                for (_, word) in tokens(field) {
                    if is_stopword(&word, doc.lang) {
                        continue;
                    }
                    *tf.entry(analyzer.term(&word).into_owned()).or_default() += weight;
                    n_terms += weight;
                }
            }
            let frag_idx = self.fragments.len() as u32;
            for (term, count) in tf {
                self.postings
                    .entry(term)
                    .or_default()
                    .push((frag_idx, count));
            }
            self.total_terms += u64::from(n_terms);
            self.fragments.push(Fragment {
                doc: doc_idx,
                heading_path,
                anchor: section.map(|s| s.anchor.clone()).unwrap_or_default(),
                position: position as u32,
                text: draft.text.clone(),
                sentences: draft
                    .sentences
                    .iter()
                    .map(|r| (r.start as u32, r.end as u32))
                    .collect(),
                table_rows: draft
                    .table_rows
                    .iter()
                    .map(|&(row, header)| (row as u32, header as u32))
                    .collect(),
                code: draft.code.iter().map(|&u| u as u32).collect(),
                n_terms,
            });
        }
        self.docs.push(Doc {
            path: doc.path.clone(),
            url: doc.url.clone(),
            title: title.into_owned(),
            lang: doc.lang,
            n_fragments: drafts.len() as u32,
            themes: doc.themes.clone(),
            kind,
            collection,
        });
    }

    /// Finishes the index.
    pub fn finish(self) -> Index {
        let n_frags = self.fragments.len().max(1) as f64;
        Index {
            corpus_hash: [0; 32],
            sharding: None,
            default_lang: self.default_lang,
            settings: self.settings,
            vectors: None,
            hints: self.hints,
            site_words: self.site_words.into_iter().collect(),
            collections: self.collections,
            hint_terms: self
                .hint_postings
                .into_iter()
                .map(|(term, postings)| TermPostings { term, postings })
                .collect(),
            avg_fragment_terms: (self.total_terms as f64 / n_frags) as f32,
            docs: self.docs,
            fragments: self.fragments,
            terms: self
                .postings
                .into_iter()
                .map(|(term, postings)| TermPostings { term, postings })
                .collect(),
        }
    }
}

/// One content word of a question, resolved against the index.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    /// The word as the question wrote it, lowercased.
    pub word: String,
    /// Ids ([`Index::term_id`]) of its stems (one per corpus language, deduplicated).
    pub term_ids: Vec<usize>,
    /// Ids ([`Index::hint_term_id`]) of its stems.
    pub hint_term_ids: Vec<usize>,
    /// Inverse document frequency; for a word the corpus never uses, that of a one-off term.
    pub idf: f32,
    /// A verb that frames the question ("think", "say", "written") rather than naming what
    /// it asks about: it helps when found, and is not required by the answer's gates.
    pub framing: bool,
    /// The quantity word of "how long", "wie oft": it asks for a number rather than naming
    /// the subject, so retrieval leaves it out (a page about "how long we keep data" is not
    /// about a battery's warranty); the answer's gates still weigh it.
    pub how_much: bool,
    /// Part of a contraction, not a word of its own: the "s" of "SPOOL_DIR's", the "doesn" of
    /// "doesn't" (`text::in_contraction`). Weighed as any word (measured: leaving
    /// such words out of the question cost right answers), never named to the visitor as a
    /// missing word.
    pub contraction: bool,
}

impl QueryTerm {
    /// Whether the corpus uses this word at all.
    pub fn in_corpus(&self) -> bool {
        !self.term_ids.is_empty()
    }
}

/// The question's distinct content words, stemmed in every language the corpus uses.
pub fn query_terms(index: &Index, question: &Question) -> Vec<QueryTerm> {
    let langs = index.langs();
    let analyzers: Vec<Analyzer> = langs
        .iter()
        .map(|&l| Analyzer::new(l, index.settings.stemming))
        .collect();
    let n_frags = index.fragment_count() as f32;
    // Vecs with `contains` rather than sets: a handful of words, and each BTreeSet type is
    // separate code in the wasm module.
    let mut seen: Vec<String> = Vec::new();
    let mut res = Vec::new();
    let mut previous = String::new();
    for (range, word) in question.ranges().iter().zip(question.words()) {
        if res.len() == MAX_QUERY_TERMS {
            break;
        }
        let how_much = asks_how_much(&previous, word);
        if !skips_as_previous(word) {
            previous.clone_from(word);
        }
        if langs.iter().any(|&l| is_stopword(word, l))
            || index.is_site_word(word)
            || seen.contains(word)
        {
            continue;
        }
        seen.push(word.clone());
        let term_ids = lookup(&analyzers, word, |t| index.term_id(t));
        let hint_term_ids = lookup(&analyzers, word, |t| index.hint_term_id(t));
        let df = term_ids
            .iter()
            .map(|&t| index.doc_frequency(t))
            .max()
            .unwrap_or(0) as f32;
        // With df 0 this is the idf a term found once would have, slightly raised: unseen words
        // weigh at least as much as the rarest seen ones.
        let idf = (1.0 + (n_frags - df + 0.5) / (df + 0.5)).ln();
        res.push(QueryTerm {
            framing: langs.iter().any(|&l| is_framing(word, l)),
            contraction: in_contraction(question.text(), range),
            how_much,
            word: word.clone(),
            term_ids,
            hint_term_ids,
            idf,
        });
    }
    res
}

/// The ids (by `find`) of `word`'s term under each analyzer, deduplicated.
fn lookup(analyzers: &[Analyzer], word: &str, find: impl Fn(&str) -> Option<usize>) -> Vec<usize> {
    let mut ids: Vec<usize> = Vec::new();
    for a in analyzers {
        if let Some(id) = find(&a.term(word)) {
            insert_sorted(&mut ids, id);
        }
    }
    ids
}

/// A ranked fragment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index into [`Index::fragments`].
    pub fragment: u32,
    /// BM25 score.
    pub score: f32,
}

/// Ranks fragments by BM25 and returns the best `k`, ties broken by fragment order.
///
/// A word with stems in several languages counts once per fragment, by its best stem.
pub fn search(index: &Index, terms: &[QueryTerm], k: usize) -> Vec<Hit> {
    let Bm25Params { k1, b } = index.settings.bm25;
    let avg = index.average_length().max(1.0);
    let n_frags = index.fragment_count() as usize;
    let mut scores = vec![0f32; n_frags];
    // A term's best score in each fragment it occurs in, and those fragments.
    let mut best = vec![0f32; n_frags];
    let mut touched: Vec<u32> = Vec::new();
    for term in terms {
        for &t in &term.term_ids {
            let postings = index.postings(t);
            let df = postings.len() as f32;
            let idf = (1.0 + (scores.len() as f32 - df + 0.5) / (df + 0.5)).ln();
            for &(frag, tf) in postings {
                let len = index.fragment_length(frag).map_or(avg, |n| n as f32);
                let tf = tf as f32;
                let s = idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg));
                if let Some(b) = best.get_mut(frag as usize) {
                    if *b == 0.0 {
                        touched.push(frag);
                    }
                    *b = b.max(s);
                }
            }
        }
        for frag in touched.drain(..) {
            if let (Some(total), Some(b)) =
                (scores.get_mut(frag as usize), best.get_mut(frag as usize))
            {
                *total += *b;
                *b = 0.0;
            }
        }
    }
    let hits: Vec<Hit> = scores
        .into_iter()
        .enumerate()
        .filter(|&(_, s)| s > 0.0)
        .map(|(i, score)| Hit {
            fragment: i as u32,
            score,
        })
        .collect();
    best_k(hits, k)
}

/// The order of hits: best score first, ties by fragment order (a total order, so any sort
/// gives the same result).
fn order(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.fragment.cmp(&b.fragment))
}

/// Sorts hits best first. Every ranking sorts through this one function, so the wasm module
/// carries one sort routine for them all (each `sort_by` with its own closure was its own copy
/// of the sort, about 1 KB gzipped apiece).
pub(crate) fn best_first(hits: &mut [Hit]) {
    hits.sort_unstable_by(order);
}

/// The best `k` hits, best first. Against many more hits than `k` (a question's BM25 or vector
/// scores over a large index) one pass keeps the best `k` in order: a comparison or two per
/// hit rather than sorting them all.
pub(crate) fn best_k(mut hits: Vec<Hit>, k: usize) -> Vec<Hit> {
    if hits.len() <= k.saturating_mul(8) {
        best_first(&mut hits);
        hits.truncate(k);
        return hits;
    }
    let mut best: Vec<Hit> = Vec::with_capacity(k.saturating_add(1));
    for hit in hits {
        if best.len() == k && best.last().is_some_and(|w| order(w, &hit).is_lt()) {
            continue;
        }
        let at = best.partition_point(|b| order(b, &hit).is_lt());
        best.insert(at, hit);
        best.truncate(k);
    }
    best
}

/// Inserts `x` into the sorted, duplicate-free `list` unless it is there (short lists: no sort
/// routine needed).
pub(crate) fn insert_sorted<T: Ord>(list: &mut Vec<T>, x: T) {
    if let Err(at) = list.binary_search(&x) {
        list.insert(at, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The one-pass top `k` equals sorting everything and keeping the first `k`, ties
        /// (few distinct scores) included.
        #[test]
        fn best_k_is_the_head_of_the_whole_sort(
            scores in prop::collection::vec(0u8..6, 0..400),
            k in 0usize..40,
        ) {
            let hits: Vec<Hit> = scores
                .iter()
                .enumerate()
                .map(|(i, &s)| Hit { fragment: (i as u32 * 7919) % 401, score: f32::from(s) / 2.0 })
                .collect();
            let mut sorted = hits.clone();
            sorted.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.fragment.cmp(&b.fragment)));
            sorted.truncate(k);
            prop_assert_eq!(best_k(hits, k), sorted);
        }
    }
}
