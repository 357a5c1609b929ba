//! The storage seam: everything BM25, vector scoring and the answer's gates read about the corpus
//! goes through these methods, never through the index's vectors directly.
//!
//! They answer from the index held in memory, whole or, for a sharded index, the part fetched
//! so far ([`Sharding`]): the manifest's statistics and pages, and the postings and fragment
//! shards given to it. A read a sharded index cannot answer notes the shard that holds the
//! answer ([`crate::ShardedIndex::needed`]), so the caller fetches it and asks again; when a
//! question's reads miss nothing, every read returned what the whole index would have, and the
//! answer is the same.
//! The seam is one concrete type rather than a trait: the answer path is most of the wasm
//! module, and a trait would compile it once per store.

use crate::ann::probed_lists;
use crate::bm25::Hit;
use crate::collection::Collection;
use crate::format::{Doc, Fragment, Index, RoutingHint, Sharding, TermPostings, UNKNOWN};
use crate::shard::PROBES;
use crate::text::Lang;
use std::sync::atomic::Ordering;

impl Index {
    /// Number of fragments in the corpus: BM25's document count, and the range of fragment ids.
    pub fn fragment_count(&self) -> u32 {
        // `Index::from_bytes` and `ShardedIndex` refuse more fragments than a u32 counts.
        match &self.sharding {
            Some(s) => s.lengths.len() as u32,
            None => self.fragments.len() as u32,
        }
    }

    /// The version of the files this index was read from: a manifest and shards have their
    /// own ([`crate::SHARD_FORMAT_VERSION`]), the one-file index [`crate::FORMAT_VERSION`].
    pub fn format_version(&self) -> u32 {
        match self.sharding {
            Some(_) => crate::SHARD_FORMAT_VERSION,
            None => crate::FORMAT_VERSION,
        }
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
        let found = find(&self.terms, term);
        if let (None, Some(s)) = (found, &self.sharding) {
            s.want_term(term);
        }
        found
    }

    /// The ids of the stemmed terms that begin with `prefix`, in term order. A sharded index
    /// answers from the postings shards it has and notes the one where the run begins.
    pub fn terms_with_prefix(&self, prefix: &str) -> std::ops::Range<usize> {
        let start = self.terms.partition_point(|t| t.term.as_str() < prefix);
        let run = self.terms.get(start..).unwrap_or_default();
        let len = run.partition_point(|t| t.term.starts_with(prefix));
        if let Some(s) = &self.sharding {
            s.want_prefix(prefix);
        }
        start..start + len
    }

    /// A stemmed term's text.
    pub fn term(&self, id: usize) -> Option<&str> {
        self.terms.get(id).map(|t| t.term.as_str())
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
        match &self.sharding {
            None => self.fragments.get(id as usize),
            Some(s) => self.fetched_fragment(s, id),
        }
    }

    // Not inlined: the whole index's path stays one bounds check at each of the many callers.
    #[inline(never)]
    fn fetched_fragment(&self, s: &Sharding, id: u32) -> Option<&Fragment> {
        match s.fragment_ids.binary_search(&id) {
            Ok(at) => self.fragments.get(at),
            Err(_) => {
                s.want_fragment(id);
                None
            }
        }
    }

    /// The page a fragment is on, without its text (a sharded index knows it from the
    /// manifest).
    pub fn page_of(&self, id: u32) -> Option<u32> {
        match &self.sharding {
            None => self.fragments.get(id as usize).map(|f| f.doc),
            Some(s) => s.page_of(id),
        }
    }

    /// A fragment's number of indexed terms (its BM25 length). A sharded index knows the
    /// lengths of the fragments its fetched postings name.
    pub fn fragment_length(&self, id: u32) -> Option<u32> {
        match &self.sharding {
            Some(s) => match s.lengths.get(id as usize) {
                Some(&UNKNOWN) => {
                    s.want_fragment(id);
                    None
                }
                known => known.copied(),
            },
            None => self.fragments.get(id as usize).map(|f| f.n_terms),
        }
    }

    /// A page. A sharded index has every page's fragment count, language, kind and collection;
    /// its path, URL, title and themes are empty until its text shard is in (noted as needed).
    pub fn doc(&self, id: u32) -> Option<&Doc> {
        if let Some(s) = &self.sharding {
            s.want_page(id);
        }
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
        let vectors = match &self.sharding {
            Some(s) => &s.vectors.as_ref()?.centroids,
            None => self.vectors.as_ref()?,
        };
        Some((vectors.model_checksum, vectors.dims as usize))
    }

    /// A fragment's int8 vector and its scale.
    pub fn vector(&self, frag: u32) -> Option<(&[i8], f32)> {
        let Some(s) = &self.sharding else {
            return self.vectors.as_ref()?.rows().row(frag as usize);
        };
        let v = s.vectors.as_ref()?;
        match v.row_of.get(frag as usize) {
            // Each text shard names the shard of its fragments' vectors.
            Some(&UNKNOWN) => {
                s.want_rows(frag);
                None
            }
            Some(&row) => v.rows.rows().row(row as usize),
            None => None,
        }
    }

    /// What a question's vector search ranks: `None` for every fragment by its int8 vector (a
    /// whole index), or, for a sharded index, the members of the lists [`PROBES`] reads (those
    /// whose centroids are nearest `query`), scored by their residual codes (lists not fetched yet are
    /// noted as needed).
    pub fn vector_candidates(&self, query: &[f32]) -> Option<Vec<Hit>> {
        let s = self.sharding.as_ref()?;
        let Some(v) = &s.vectors else {
            return Some(Vec::new());
        };
        let mut hits = Vec::new();
        for list in probed_lists(v.centroids.rows(), query, PROBES) {
            let slot = s.postings_first.len() + s.text_first.len() + list as usize;
            let base = v.centroids.rows().score(list as usize, query);
            match (v.lists.get(list as usize), base) {
                (Some(codes), Some(base)) if s.loaded.get(slot) == Some(&true) => {
                    hits.extend(codes.hits(query, base))
                }
                _ => s.want(slot),
            }
        }
        Some(hits)
    }
}

/// A word typed as a prefix fetches at most this many postings shards.
const MAX_PREFIX_SHARDS: usize = 4;

impl Sharding {
    /// The page holding fragment `id`: the last page starting at or before it (pages without
    /// fragments start where the next one does).
    pub(crate) fn page_of(&self, id: u32) -> Option<u32> {
        if id as usize >= self.lengths.len() {
            return None;
        }
        let after = self.page_starts.partition_point(|&start| start <= id);
        after.checked_sub(1).map(|p| p as u32)
    }

    /// Notes the postings shard of a term the fetched shards do not have, unless it is in.
    #[inline(never)]
    fn want_term(&self, term: &str) {
        // Before the first shard's first term no shard can hold it.
        if let Some(slot) = self
            .postings_first
            .partition_point(|first| first.as_str() <= term)
            .checked_sub(1)
        {
            self.want(slot);
        }
    }

    /// Notes the postings shards that hold the words beginning with `prefix`: the one where
    /// their run begins and those after it that open inside the run, at most
    /// [`MAX_PREFIX_SHARDS`] ("as" may run over many shards; typing on narrows it).
    #[inline(never)]
    fn want_prefix(&self, prefix: &str) {
        if self.postings_first.is_empty() {
            return;
        }
        let begins = self
            .postings_first
            .partition_point(|first| first.as_str() <= prefix)
            .saturating_sub(1);
        let inside = self.postings_first.get(begins + 1..).unwrap_or_default();
        let more = inside.partition_point(|first| first.starts_with(prefix));
        for slot in begins..=begins + more.min(MAX_PREFIX_SHARDS - 1) {
            self.want(slot);
        }
    }

    /// Notes the text shard of a fragment not fetched yet.
    #[inline(never)]
    fn want_fragment(&self, id: u32) {
        if (id as usize) < self.lengths.len()
            && let Some(slot) = self.text_first.partition_point(|&f| f <= id).checked_sub(1)
        {
            self.want(self.postings_first.len() + slot);
        }
    }

    /// Notes the shard of fragment `id`'s vector: the rows its text shard names, or that text
    /// shard first (the rows' name is in it).
    #[inline(never)]
    fn want_rows(&self, id: u32) {
        if (id as usize) < self.lengths.len()
            && let Some(text) = self.text_first.partition_point(|&f| f <= id).checked_sub(1)
        {
            let text_slot = self.postings_first.len() + text;
            if self.loaded.get(text_slot) == Some(&true) {
                let lists = self.vectors.as_ref().map_or(0, |v| v.lists.len());
                // Slots: postings, text, lists, then each text shard's rows.
                self.want(self.postings_first.len() + self.text_first.len() + lists + text);
            } else {
                self.want(text_slot);
            }
        }
    }

    /// Notes the text shard with page `doc`'s record, unless it is in.
    #[inline(never)]
    fn want_page(&self, doc: u32) {
        match self.page_starts.get(doc as usize) {
            Some(&start) if (start as usize) < self.lengths.len() => self.want_fragment(start),
            // A page without fragments after every fragment: the last text shard has it.
            Some(_) if !self.text_first.is_empty() => {
                self.want(self.postings_first.len() + self.text_first.len() - 1);
            }
            _ => {}
        }
    }

    fn want(&self, slot: usize) {
        if self.loaded.get(slot) == Some(&false)
            && let Some(missed) = self.missed.get(slot)
        {
            missed.store(true, Ordering::Relaxed);
        }
    }
}

/// Position of `term` in a sorted term list.
fn find(terms: &[TermPostings], term: &str) -> Option<usize> {
    terms.binary_search_by(|t| t.term.as_str().cmp(term)).ok()
}

fn postings(terms: &[TermPostings], id: usize) -> &[(u32, u32)] {
    terms.get(id).map_or(&[], |t| &t.postings)
}
