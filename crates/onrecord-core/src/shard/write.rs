//! Writing the sharded layout: an [`Index`] as a manifest and shards ([`Index::to_shards`]).

use serde::Serialize;

use super::manifest::{Manifest, page_starts, pages_in, stub};
use super::{
    MANIFEST_MAGIC, SHARD_FORMAT_VERSION, SHARD_MAGIC, ShardBody, file_checksum, shard_name,
    to_gaps,
};
use crate::ann::CodeList;
use crate::format::{EncodeError, Index, VectorIndex, frame};

/// How large shards grow: a shard is closed once its payload reaches the target, so each is
/// about that size (a page's fragments are never split, nor a term's postings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSizes {
    /// Target payload bytes of a postings shard.
    pub postings: usize,
    /// Target payload bytes of a text shard.
    pub text: usize,
    /// An index smaller than this (as one file) is written as one file: a small site stays one
    /// fetch.
    pub threshold: usize,
}

impl ShardSizes {
    /// What `build-index` uses unless told otherwise. Postings shards of 1 KB and text shards
    /// of 2 KB: over express, rust-reference and rustc-dev-guide joined (4,504 fragments, with
    /// vectors, gzip; `eval --example shard_bytes -- --joined --postings N --text N`, format 8)
    /// a cold question fetches a median of 211 KB (p95 252 KB), against 233 (293) with 4 KB
    /// shards of both, 216 (265) with 2 KB of both, 229 (289) with 4 KB postings and 2 KB text,
    /// and 210 (252) with 512-byte postings (whose manifest is 3 KB larger): a question's words
    /// fetch postings mostly of other words, so small postings shards save most, while a
    /// question reads whole pages of text. Over 103,592 fragments the manifest is 114 KB
    /// instead of 93 KB with 4 KB shards, and a question the same (860 KB against 859).
    /// (Format 6, 4 KB shards: 288 KB, 387 at p95; 16 KB: 427 KB; 8 KB: 340 KB.) Below the
    /// threshold the demo (110 KB with vectors) stays one file.
    pub const STANDARD: ShardSizes = ShardSizes {
        postings: 1024,
        text: 2 * 1024,
        threshold: 512 * 1024,
    };
}

/// The IVF lists the fragment vectors are grouped in (trained by `build-index`): one centroid
/// per list, and each list's members. Every fragment is in exactly one list.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorLists {
    /// One centroid per list, in the fragment vectors' space.
    pub centroids: VectorIndex,
    /// Each list's fragment ids, ascending.
    pub members: Vec<Vec<u32>>,
}

/// A sharded index as files: the manifest, and each shard with its name.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardedFiles {
    /// The manifest's bytes.
    pub manifest: Vec<u8>,
    /// `(file name, bytes)` of each shard: postings shards, text shards, vector shards.
    pub shards: Vec<(String, Vec<u8>)>,
}

impl Index {
    /// Writes the index as a manifest and shards, its vectors (if any) in one list. The same
    /// index always gives the same bytes.
    pub fn to_shards(
        &self,
        corpus_hash: [u8; 32],
        sizes: ShardSizes,
    ) -> Result<ShardedFiles, EncodeError> {
        self.to_shards_with(corpus_hash, sizes, None)
    }

    /// Writes the index as a manifest and shards, its vectors grouped in `lists` (`None`: one
    /// list of every fragment, so every question reads every vector). The same index and lists
    /// always give the same bytes.
    pub fn to_shards_with(
        &self,
        corpus_hash: [u8; 32],
        sizes: ShardSizes,
        lists: Option<&VectorLists>,
    ) -> Result<ShardedFiles, EncodeError> {
        let n_frags = self.fragments.len();
        let rows = |ids: &mut dyn Iterator<Item = u32>| -> (Vec<f32>, Vec<i8>) {
            let (mut scales, mut data) = (Vec::new(), Vec::new());
            for id in ids {
                if let Some((row, scale)) = self.vector(id) {
                    scales.push(scale);
                    data.extend_from_slice(row);
                }
            }
            (scales, data)
        };
        let mut shards = Vec::new();
        let mut postings = Vec::new();
        for run in runs(&self.terms, sizes.postings, |_| true)? {
            let first = run.first().map(|t| t.term.clone()).unwrap_or_default();
            let mut named: Vec<u32> = run
                .iter()
                .flat_map(|t| t.postings.iter().map(|p| p.0))
                .collect();
            named.sort_unstable();
            named.dedup();
            let mut lengths: Vec<(u32, u32)> = named
                .into_iter()
                .filter_map(|id| Some((id, self.fragments.get(id as usize)?.n_terms)))
                .collect();
            to_gaps(&mut lengths);
            let mut terms = run.to_vec();
            for t in &mut terms {
                to_gaps(&mut t.postings);
            }
            let body = ShardBody::Postings { terms, lengths };
            let bytes = frame(&SHARD_MAGIC, SHARD_FORMAT_VERSION, corpus_hash, &body)?;
            let sum = file_checksum(&bytes);
            postings.push((first, sum));
            shards.push((shard_name('p', sum), bytes));
        }
        // A text shard ends only where a page does: quoting reads a candidate's whole page.
        let mut texts = Vec::new();
        let mut first = 0u32;
        let page_starts = page_starts(&self.docs);
        let mut row_shards = Vec::new();
        let mut row_sums = std::collections::BTreeSet::new();
        for run in runs(&self.fragments, sizes.text, |f| f.position == 0)? {
            let end = first + run.len() as u32;
            let rows = match self.vectors {
                Some(_) => {
                    let (scales, data) = rows(&mut (first..end));
                    let body = ShardBody::Rows { scales, data };
                    let bytes = frame(&SHARD_MAGIC, SHARD_FORMAT_VERSION, corpus_hash, &body)?;
                    let sum = file_checksum(&bytes);
                    // Identical rows (copied pages) are one file.
                    if row_sums.insert(sum) {
                        row_shards.push((shard_name('r', sum), bytes));
                    }
                    sum
                }
                None => 0,
            };
            let docs = pages_in(&page_starts, first, end, end as usize == n_frags);
            let body = ShardBody::Text {
                docs: self.docs.get(docs).unwrap_or_default().to_vec(),
                fragments: run.to_vec(),
                rows,
            };
            let bytes = frame(&SHARD_MAGIC, SHARD_FORMAT_VERSION, corpus_hash, &body)?;
            let sum = file_checksum(&bytes);
            texts.push((first, sum));
            shards.push((shard_name('t', sum), bytes));
            first = end;
        }
        let (centroids, members) = match (&self.vectors, lists) {
            (None, _) => (None, Vec::new()),
            (Some(v), Some(lists)) => {
                check_lists(lists, v, n_frags)?;
                // An empty list is never worth a fetch (and two would share a name).
                let mut centroids = VectorIndex::new(v.model_checksum, v.dims);
                let mut members = Vec::new();
                for (l, ids) in lists.members.iter().enumerate() {
                    if let (false, Some((row, scale))) =
                        (ids.is_empty(), lists.centroids.rows().row(l))
                    {
                        centroids.scales.push(scale);
                        centroids.data.extend_from_slice(row);
                        members.push(ids.clone());
                    }
                }
                (Some(centroids), members)
            }
            (Some(v), None) => {
                let mut one = VectorIndex::new(v.model_checksum, v.dims);
                one.push(&vec![1.0; v.dims as usize]);
                (Some(one), vec![(0..n_frags as u32).collect()])
            }
        };
        let mut list_sums = Vec::new();
        let centroid_rows = centroids.as_ref().map(VectorIndex::rows);
        for (l, ids) in members.iter().enumerate() {
            let mut codes = CodeList::default();
            let centroid = centroid_rows.and_then(|c| c.row(l));
            for &id in ids {
                if let (Some(row), Some(centroid)) = (self.vector(id), centroid) {
                    codes.push(id, row, centroid);
                }
            }
            let body = ShardBody::Vectors {
                ids: codes.ids,
                scales: codes.scales,
                codes: codes.codes,
            };
            let bytes = frame(&SHARD_MAGIC, SHARD_FORMAT_VERSION, corpus_hash, &body)?;
            let sum = file_checksum(&bytes);
            list_sums.push(sum);
            shards.push((shard_name('v', sum), bytes));
        }
        shards.extend(row_shards);
        let manifest = Manifest {
            corpus_hash,
            default_lang: self.default_lang,
            settings: self.settings,
            docs: self.docs.iter().map(stub).collect(),
            fragment_count: n_frags as u32,
            avg_fragment_terms: self.avg_fragment_terms,
            centroids,
            lists: list_sums,
            hints: self.hints.clone(),
            hint_terms: self.hint_terms.clone(),
            site_words: self.site_words.clone(),
            collections: self.collections.clone(),
            postings,
            texts,
        };
        Ok(ShardedFiles {
            manifest: frame(
                &MANIFEST_MAGIC,
                SHARD_FORMAT_VERSION,
                corpus_hash,
                &manifest,
            )?,
            shards,
        })
    }
}

/// Checks that `lists` has a centroid per list in the vectors' space and puts every fragment
/// in exactly one list, in ascending order.
fn check_lists(
    lists: &VectorLists,
    vectors: &VectorIndex,
    n_frags: usize,
) -> Result<(), EncodeError> {
    let c = &lists.centroids;
    if c.dims != vectors.dims
        || c.model_checksum != vectors.model_checksum
        || c.validate(lists.members.len()).is_err()
    {
        return Err(EncodeError::Inconsistent(
            "the vector lists' centroids do not fit the vectors",
        ));
    }
    let mut seen = vec![false; n_frags];
    for ids in &lists.members {
        if ids.windows(2).any(|w| w[0] >= w[1]) {
            return Err(EncodeError::Inconsistent(
                "a vector list's members are not ascending",
            ));
        }
        for &id in ids {
            match seen.get_mut(id as usize) {
                Some(s) if !*s => *s = true,
                _ => {
                    return Err(EncodeError::Inconsistent(
                        "a vector list names a missing fragment or one in another list",
                    ));
                }
            }
        }
    }
    if seen.contains(&false) {
        return Err(EncodeError::Inconsistent("a fragment is in no vector list"));
    }
    Ok(())
}

/// Cuts `items` into runs whose postcard size reaches `target`, each run starting at an item
/// `may_start` accepts (the first item always starts one).
fn runs<T: Serialize>(
    items: &[T],
    target: usize,
    may_start: impl Fn(&T) -> bool,
) -> Result<Vec<&[T]>, EncodeError> {
    let mut res = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        if i > start && size >= target && may_start(item) {
            res.push(&items[start..i]);
            (start, size) = (i, 0);
        }
        size += postcard::to_allocvec(item)
            .map_err(|e| EncodeError::Serialize(e.to_string()))?
            .len();
    }
    if start < items.len() {
        res.push(&items[start..]);
    }
    Ok(res)
}
