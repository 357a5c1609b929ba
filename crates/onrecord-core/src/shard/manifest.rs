//! The sharded layout's manifest: what every question reads, and where the rest is; and how
//! its pages place fragments (on pages, and page records in text shards).

use serde::{Deserialize, Serialize};

use crate::collection::Collection;
use crate::format::{Doc, IndexSettings, RoutingHint, TermPostings, VectorIndex};
use crate::text::Lang;

/// A sharded index's manifest: what every question reads, and where the rest is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Hash of the corpus and settings (stored in the header; every shard carries the same).
    #[serde(skip)]
    pub corpus_hash: [u8; 32],
    /// Language assumed for pages that do not name one.
    pub default_lang: Lang,
    /// How the index was built.
    pub settings: IndexSettings,
    /// Documents, in path order (their fragment counts place every fragment on its page), with
    /// path, URL, title and themes empty: the text shard that holds a page's first fragment
    /// (the last text shard, for pages without fragments at the end) has them.
    pub docs: Vec<Doc>,
    /// Number of fragments: BM25's document count.
    pub fragment_count: u32,
    /// Mean number of indexed terms per fragment.
    pub avg_fragment_terms: f32,
    /// The IVF centroids (model checksum, dimensions, one row per list), when the index has
    /// vectors; list `i`'s members are in the vector shard with checksum `lists[i]`.
    pub centroids: Option<VectorIndex>,
    /// Each vector list's shard checksum, in centroid order.
    pub lists: Vec<u32>,
    /// Routing hints to private notes.
    pub hints: Vec<RoutingHint>,
    /// Postings of the hints' public-safe words.
    pub hint_terms: Vec<TermPostings>,
    /// Words that name the site or its author, sorted.
    pub site_words: Vec<String>,
    /// The collections pages belong to.
    pub collections: Vec<Collection>,
    /// Postings shards in term order: each one's first term and its file's checksum.
    pub postings: Vec<(String, u32)>,
    /// Text shards in fragment order: each one's first fragment and its file's checksum.
    pub texts: Vec<(u32, u32)>,
}

/// Each page's first fragment (pages hold consecutive fragments, in page order).
pub(super) fn page_starts(docs: &[Doc]) -> Vec<u32> {
    let mut start = 0u32;
    docs.iter()
        .map(|d| {
            let at = start;
            start = start.saturating_add(d.n_fragments);
            at
        })
        .collect()
}

/// The pages whose records the text shard of fragments `first..end` holds: those that start
/// there, and, in the `last` shard, those without fragments after every fragment.
pub(super) fn pages_in(
    page_starts: &[u32],
    first: u32,
    end: u32,
    last: bool,
) -> std::ops::Range<usize> {
    let lo = page_starts.partition_point(|&s| s < first);
    let hi = if last {
        page_starts.len()
    } else {
        page_starts.partition_point(|&s| s < end)
    };
    lo..hi.max(lo)
}

/// A page's record as the manifest holds it: what ranking reads; the rest is in its text shard.
pub(super) fn stub(doc: &Doc) -> Doc {
    Doc {
        path: String::new(),
        url: String::new(),
        title: String::new(),
        themes: Vec::new(),
        ..doc.clone()
    }
}
