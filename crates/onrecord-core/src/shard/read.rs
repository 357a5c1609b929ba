//! Reading the sharded layout: a [`ShardedIndex`] from its manifest, and the shards its reads
//! missed ([`ShardedIndex::needed`]). Taking a fetched shard is `take.rs`.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use super::manifest::{Manifest, page_starts};
use super::{MANIFEST_MAGIC, SHARD_FORMAT_VERSION, shard_name};
use crate::ann::{CodeList, Probes};
use crate::format::{DecodeError, Index, ShardVectors, Sharding, UNKNOWN, VectorIndex, unframe};

/// Which IVF lists a question's vector search reads ([`Probes`]): the 8 whose centroids are
/// nearest its vector, then further ones, 16 in all at most, whose centroid's cosine is within
/// 0.22 of the nearest's. Chosen on the eval sets' dev halves (`eval --cross
/// --sharded-same-knobs`, against 16 lists always, which lost no recall@5 against brute force
/// with √n lists, `eval/results/ann.md`): margins of 0.22, 0.23 and 0.25 lost nothing on any dev
/// half (and left recall@5, MRR and balanced accuracy equal on every test half), 0.2 lost a
/// Black question (−3.0 points of recall@5), so did a minimum of 10 with 0.2, and 8 lists always
/// lose one on rustc-dev-guide (`eval/results/ann.md`). Over the joined 4,504 fragments a
/// question reads a median of 95 KB of lists instead of 139 (p95 155 KB; 0.2: 82 KB, 0.25: 118
/// KB; `eval --example shard_bytes`).
pub const PROBES: Probes = Probes {
    min: 8,
    max: 16,
    margin: 0.22,
};

/// Why manifest bytes could not be read: the same kinds of failure as an index's
/// ([`DecodeError`]), with messages that name the manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestError(DecodeError);

impl ManifestError {
    /// What went wrong.
    pub fn kind(&self) -> &DecodeError {
        &self.0
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0
            .describe(f, "index manifest", crate::format::HEADER_LEN)
    }
}

impl std::error::Error for ManifestError {}

/// A sharded index on the query side: the manifest, and the shards given so far.
#[derive(Debug, Clone)]
pub struct ShardedIndex {
    pub(super) index: Index,
    /// Every shard's name, postings shards first (a shard's place is its slot): postings, text,
    /// vector lists, then (with vectors) each text shard's vector rows, whose names are empty
    /// until their text shard is in.
    pub(super) names: Vec<String>,
    /// Every shard's checksum, in the same order (0 for rows not named yet).
    pub(super) checksums: Vec<u32>,
}

impl ShardedIndex {
    /// Reads a manifest, checking it as [`Index::from_bytes`] checks an index. Never panics.
    pub fn from_manifest(bytes: &[u8]) -> Result<ShardedIndex, ManifestError> {
        ShardedIndex::decode(bytes).map_err(ManifestError)
    }

    fn decode(bytes: &[u8]) -> Result<ShardedIndex, DecodeError> {
        let (m, corpus_hash, _): (Manifest, _, _) =
            unframe(bytes, &MANIFEST_MAGIC, SHARD_FORMAT_VERSION)?;
        let n_frags = m.fragment_count as usize;
        let n_pages: u64 = m.docs.iter().map(|d| u64::from(d.n_fragments)).sum();
        if n_pages != n_frags as u64 {
            return Err(DecodeError::Invalid(
                "the pages' fragment counts do not add up to the fragments",
            ));
        }
        if m.postings.windows(2).any(|p| p[0].0 >= p[1].0) {
            return Err(DecodeError::Invalid(
                "postings shards are not in term order",
            ));
        }
        let text_starts_ok = m.texts.first().is_none_or(|t| t.0 == 0)
            && m.texts.windows(2).all(|t| t[0].0 < t[1].0)
            && m.texts.iter().all(|t| (t.0 as usize) < n_frags);
        if !text_starts_ok || (m.texts.is_empty() && n_frags > 0) {
            return Err(DecodeError::Invalid(
                "text shards do not cover the fragments in order",
            ));
        }
        let vectors = match m.centroids {
            Some(centroids) => {
                centroids.validate(m.lists.len())?;
                if n_frags > 0 && m.lists.is_empty() {
                    return Err(DecodeError::Invalid("the vectors have no lists"));
                }
                Some(Box::new(ShardVectors {
                    lists: vec![CodeList::default(); m.lists.len()],
                    row_of: vec![UNKNOWN; n_frags],
                    rows: VectorIndex::new(centroids.model_checksum, centroids.dims),
                    centroids,
                }))
            }
            None if m.lists.is_empty() => None,
            None => return Err(DecodeError::Invalid("vector lists without centroids")),
        };
        // Extended in turn, not chained: `Chain`'s code for each item type cost 0.7 KB of the
        // gzipped sharded bundle (measured).
        let mut checksums: Vec<u32> = m.postings.iter().map(|p| p.1).collect();
        checksums.extend(m.texts.iter().map(|t| t.1));
        checksums.extend(&m.lists);
        let (n_postings, n_texts) = (m.postings.len(), m.texts.len());
        let kind = |slot| match slot {
            s if s < n_postings => 'p',
            s if s < n_postings + n_texts => 't',
            _ => 'v',
        };
        let mut names: Vec<String> = (checksums.iter().enumerate())
            .map(|(slot, &sum)| shard_name(kind(slot), sum))
            .collect();
        // Inserted in order rather than sorted: a sort routine for `&str` would add ~1 KB to the
        // gzipped sharded bundle (the wasm paths avoid `sort`, as `insert_sorted` does).
        let mut seen: Vec<&str> = Vec::with_capacity(names.len());
        for name in &names {
            match seen.binary_search(&name.as_str()) {
                Ok(_) => return Err(DecodeError::Invalid("two shards have the same name")),
                Err(at) => seen.insert(at, name),
            }
        }
        // Each text shard's vector rows: named by the text shard once it is in.
        let n_rows = if vectors.is_some() { m.texts.len() } else { 0 };
        names.resize(names.len() + n_rows, String::new());
        checksums.resize(checksums.len() + n_rows, 0);
        let page_starts = page_starts(&m.docs);
        let sharding = Sharding {
            page_starts,
            loaded: vec![false; checksums.len()],
            missed: (0..checksums.len())
                .map(|_| AtomicBool::new(false))
                .collect(),
            postings_first: m.postings.into_iter().map(|p| p.0).collect(),
            text_first: m.texts.into_iter().map(|t| t.0).collect(),
            lengths: vec![UNKNOWN; n_frags],
            vectors,
            ..Sharding::default()
        };
        let index = Index {
            corpus_hash,
            default_lang: m.default_lang,
            settings: m.settings,
            docs: m.docs,
            fragments: Vec::new(),
            terms: Vec::new(),
            avg_fragment_terms: m.avg_fragment_terms,
            vectors: None,
            hints: m.hints,
            hint_terms: m.hint_terms,
            site_words: m.site_words,
            collections: m.collections,
            sharding: Some(Box::new(sharding)),
        };
        index.validate_shared(n_frags)?;
        Ok(ShardedIndex {
            index,
            names,
            checksums,
        })
    }

    /// The index as far as it is fetched: ask it as a whole index ([`crate::ask`]), then look
    /// at [`ShardedIndex::needed`].
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The index as far as it is fetched, kept (a reader that has added every shard; no copy).
    pub fn into_index(self) -> Index {
        self.index
    }

    /// Every shard's file name known so far: the postings shards, text shards and vector lists
    /// the manifest lists, then the vector rows named by the text shards taken.
    pub fn shard_names(&self) -> Vec<String> {
        self.names
            .iter()
            .filter(|n| !n.is_empty())
            .cloned()
            .collect()
    }

    /// The shards known so far ([`ShardedIndex::shard_names`]) and not taken yet, each once: a
    /// reader that loads every shard takes these until none is left (vector rows become known
    /// as their text shards are taken).
    pub fn missing_shards(&self) -> Vec<String> {
        let loaded = self.index.sharding.as_ref().map(|s| &s.loaded[..]);
        let mut res: Vec<String> = self
            .names
            .iter()
            .enumerate()
            .filter(|(slot, n)| {
                !n.is_empty() && loaded.is_none_or(|l| l.get(*slot) == Some(&false))
            })
            .map(|(_, n)| n.clone())
            .collect();
        res.sort_unstable();
        res.dedup();
        res
    }

    /// The shards that reads since the last call needed and did not find, by file name: fetch
    /// them, [`ShardedIndex::add_shard`] them and ask again. Empty: the last answer is the
    /// whole index's.
    pub fn needed(&self) -> Vec<String> {
        let Some(sharding) = &self.index.sharding else {
            return Vec::new();
        };
        let mut res: Vec<String> = Vec::new();
        for (missed, name) in sharding.missed.iter().zip(&self.names) {
            // Identical rows (of identical pages) are one file under one name.
            if missed.swap(false, Ordering::Relaxed) && !name.is_empty() && !res.contains(name) {
                res.push(name.clone());
            }
        }
        res
    }
}
