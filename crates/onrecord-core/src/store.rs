//! The storage seam: everything BM25, vector scoring and the answer's gates read about the corpus
//! goes through these methods, never through the index's vectors directly.
//!
//! They answer from the index held in memory. An index split into shards (issue 11) answers the
//! same questions from its manifest (statistics, term dictionary) and the shards a question
//! fetched; keeping every read here is what lets scoring stay unchanged when the storage does.
//! The seam is one concrete type rather than a trait: the answer path is most of the wasm
//! module, and a trait would compile it once per store.

use crate::collection::Collection;
use crate::format::{Doc, Fragment, Index, RoutingHint, TermPostings};
use crate::text::Lang;

impl Index {
    /// Number of fragments in the corpus: BM25's document count, and the range of fragment ids.
    pub fn fragment_count(&self) -> u32 {
        // `Index::from_bytes` refuses more fragments than a u32 counts.
        self.fragments.len() as u32
    }

    /// Mean number of indexed terms per fragment (BM25's average document length).
    pub fn average_length(&self) -> f32 {
        self.avg_fragment_terms
    }

    /// The languages of the corpus's pages, then the default language, each once.
    pub fn langs(&self) -> Vec<Lang> {
        // Vecs with `contains` rather than sets: a handful of languages, and each
        // BTreeSet/BTreeMap type is separate code in the wasm module.
        let mut langs: Vec<Lang> = Vec::new();
        for lang in self.docs.iter().map(|d| d.lang).chain([self.default_lang]) {
            if !langs.contains(&lang) {
                langs.push(lang);
            }
        }
        langs
    }

    /// The id of a stemmed term, when the corpus has it.
    pub fn term_id(&self, term: &str) -> Option<usize> {
        find(&self.terms, term)
    }

    /// A term's postings, `(fragment, term frequency)` sorted by fragment; empty for an unknown id.
    pub fn postings(&self, term: usize) -> &[(u32, u32)] {
        postings(&self.terms, term)
    }

    /// In how many fragments a term occurs.
    pub fn doc_frequency(&self, term: usize) -> usize {
        self.postings(term).len()
    }

    /// The id of a stemmed word of the routing hints, when a hint has it.
    pub fn hint_term_id(&self, term: &str) -> Option<usize> {
        find(&self.hint_terms, term)
    }

    /// The routing hints to private notes.
    pub fn hints(&self) -> &[RoutingHint] {
        &self.hints
    }

    /// A hint term's postings, `(hint, count)`; a posting's first number indexes [`Index::hints`].
    pub fn hint_postings(&self, term: usize) -> &[(u32, u32)] {
        postings(&self.hint_terms, term)
    }

    /// A fragment: its text, headings, sentence offsets and page.
    pub fn fragment(&self, id: u32) -> Option<&Fragment> {
        self.fragments.get(id as usize)
    }

    /// A fragment's number of indexed terms (its BM25 length).
    pub fn fragment_length(&self, id: u32) -> Option<u32> {
        self.fragment(id).map(|f| f.n_terms)
    }

    /// A page.
    pub fn doc(&self, id: u32) -> Option<&Doc> {
        self.docs.get(id as usize)
    }

    /// The page a fragment belongs to.
    pub fn doc_of(&self, fragment: &Fragment) -> Option<&Doc> {
        self.doc(fragment.doc)
    }

    /// Number of pages.
    pub fn doc_count(&self) -> u32 {
        self.docs.len() as u32
    }

    /// A collection, by its index in [`Doc::collection`].
    pub fn collection(&self, id: u32) -> Option<&Collection> {
        self.collections.get(id as usize)
    }

    /// Whether page `doc` belongs to a decisions collection.
    pub fn in_decisions(&self, doc: &Doc) -> bool {
        doc.collection
            .and_then(|c| self.collection(c))
            .is_some_and(Collection::is_decisions)
    }

    /// Whether a lowercased word names the site or its author.
    pub fn is_site_word(&self, word: &str) -> bool {
        self.site_words
            .binary_search_by(|w| w.as_str().cmp(word))
            .is_ok()
    }

    /// The vectors' model checksum and dimensions, when the index has vectors.
    pub fn vector_space(&self) -> Option<(u32, usize)> {
        self.vectors
            .as_ref()
            .map(|v| (v.model_checksum, v.dims as usize))
    }

    /// A fragment's int8 vector and its scale.
    pub fn vector(&self, frag: u32) -> Option<(&[i8], f32)> {
        let vectors = self.vectors.as_ref()?;
        let dims = vectors.dims as usize;
        let start = (frag as usize).checked_mul(dims)?;
        let row = vectors.data.get(start..start.checked_add(dims)?)?;
        Some((row, *vectors.scales.get(frag as usize)?))
    }
}

/// Position of `term` in a sorted term list.
fn find(terms: &[TermPostings], term: &str) -> Option<usize> {
    terms.binary_search_by(|t| t.term.as_str().cmp(term)).ok()
}

fn postings(terms: &[TermPostings], id: usize) -> &[(u32, u32)] {
    terms.get(id).map_or(&[], |t| &t.postings)
}
