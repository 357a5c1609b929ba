//! The sharded layout: a small manifest and shards that a question fetches on demand, so a
//! large site's visitor downloads only the parts of the index their questions read.
//!
//! Every file has the index's header (`format::frame`: magic, version, corpus hash,
//! payload length, CRC-32; the version is [`SHARD_FORMAT_VERSION`], apart from the one-file
//! index's [`crate::FORMAT_VERSION`]) and a postcard payload:
//!
//! | file | magic | payload |
//! |---|---|---|
//! | manifest | `ONRMANIF` | [`Manifest`]: pages (their sizes and kinds), statistics, IVF centroids, hints, the shard list |
//! | postings shard `p-` | `ONRSHARD` | the postings of a run of terms (`first..next first`), and the BM25 length of every fragment they name |
//! | text shard `t-` | `ONRSHARD` | the fragments of a run of whole pages (`first..next first`), those pages' path, URL, title and themes, and the checksum of the run's vector rows |
//! | vector shard `v-` | `ONRSHARD` | the members of one IVF list: fragment ids, one step each and their residual codes (`ann::CodeList`) |
//! | vector rows `r-` | `ONRSHARD` | the int8 vectors of one text shard's fragments (one scale and `dims` values each); named by that text shard, not listed in the manifest |
//!
//! Nothing in the manifest grows with the fragment count but a few bytes per page (its fragment
//! count, language, kind and collection; the rest of its record travels with its text, where
//! citations read it, since that was most of a large site's manifest): a question reads BM25
//! lengths beside the postings it fetched, and vectors from the lists whose centroids are
//! nearest its vector ([`PROBES`]) (IVF: `ann.rs`; the build trains the lists, `build-index`'s `ivf.rs`).
//! A list holds one code per member: its residual from the centroid quantized to
//! `ann::CODE_BITS` bits a dimension on a uniform grid, with one step (scale) per member
//! (`ann::CodeList`), `CODE_BITS`/8 of an int8 row; vector search ranks by the codes (centroid
//! cosine + Σ query × dequantized residual), and the meaning gate reads the exact int8 vectors
//! of the few fragments it weighs from their text shards' vector rows (format 8: they were in
//! the text shards, a third of their gzip bytes, when a question reads one to three). With 8 bits (the setting: fewer bits lost recall@5 on some
//! eval set's dev half, see `ann::CODE_BITS`) a list is as large as its int8 rows: over 4,504
//! fragments a cold question fetches a median of 139 KB gz of lists (1 bit: 25 KB, 2: 41 KB,
//! 4: 71 KB; `eval --example shard_bytes`).
//!
//! On disk and on the wire each file is gzip-compressed (RFC 1952), so its size does not depend
//! on the host compressing it. The core reads and writes the files uncompressed (it has no
//! (de)compressor: the browser gunzips with `DecompressionStream`, native readers in their
//! adapter, `onrecord-files`).
//!
//! A shard's file name is `p-`, `t-`, `v-` or `r-` and the CRC-32 in its header (over its
//! uncompressed header and payload, the checksum [`Manifest`] lists, or for vector rows the
//! text shard naming them) in hex, with `.onr`: named by content, so a host may cache it
//! forever, and a shard from another build, or a changed one, has another name (the rare CRC
//! collision is still refused: the header's corpus hash names the build). Text shards whose
//! rows are identical (copied pages) name one file. [`ShardedIndex`] takes a shard only when its
//! header's corpus hash and checksum are the ones the manifest (or the text shard) lists.
//! Fragment ids are the whole index's, so citations, quote checks and the proxy's ids keep
//! their meaning.
//!
//! Answering is two-phase (or three): [`ShardedIndex::index`] answers `ask` with what it has;
//! every read it could not answer notes a shard ([`ShardedIndex::needed`]): first the postings
//! shards of the question's words and the vector lists nearest its vector, then the text shards
//! of the candidates' pages, then the vector rows of the fragments the meaning gate weighs. The caller fetches them, adds them and asks again, until nothing
//! is needed; then each read returned what the whole index would have (vector search: what
//! IVF over the probed lists' codes returns), and so does the answer.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::ann::{CodeList, Probes, code_bytes};
use crate::collection::Collection;
use crate::format::{
    DecodeError, Doc, EncodeError, Fragment, Index, IndexSettings, RoutingHint, ShardVectors,
    Sharding, TermPostings, UNKNOWN, VectorIndex, frame, unframe, validate_terms,
};
use crate::text::Lang;

/// The first eight bytes of a sharded index's manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"ONRMANIF";
/// The first eight bytes of a shard.
pub const SHARD_MAGIC: [u8; 8] = *b"ONRSHARD";

/// The version of the sharded layout's files (manifest and shards). 9: fragments mark their
/// code units (the index's format 7); 8: a text shard's int8
/// vectors are a shard of their own (`r-`), named by the text shard; 7: vector lists carry
/// residual codes of `ann::CODE_BITS` bits a dimension, not int8 rows.
pub const SHARD_FORMAT_VERSION: u32 = 9;

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

/// A shard's payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum ShardBody {
    /// The postings of a run of terms, sorted by term, and `(fragment, BM25 length)` of every
    /// fragment they name, by fragment. Fragment ids are written as gaps from the one before
    /// (in each term's postings, and in the lengths; the first from 0): small numbers that
    /// gzip well, where ascending ids of a large site did not.
    Postings {
        terms: Vec<TermPostings>,
        lengths: Vec<(u32, u32)>,
    },
    /// The fragments of a run of whole pages, in id order, the whole records of the pages that
    /// start in the run ([`pages_in`]), and the checksum of the shard with the run's int8
    /// vectors ([`ShardBody::Rows`]; 0 for an index without vectors).
    Text {
        docs: Vec<Doc>,
        fragments: Vec<Fragment>,
        rows: u32,
    },
    /// The int8 vectors of one text shard's fragments, in id order (one scale and `dims` values
    /// each): what the meaning gate reads of the few fragments it weighs, so a text shard
    /// fetched for its text does not carry them.
    Rows { scales: Vec<f32>, data: Vec<i8> },
    /// One IVF list: its members' ids, ascending, one step each and their residual codes,
    /// `ann::code_bytes(dims)` bytes a member (`ann::CodeList`).
    Vectors {
        ids: Vec<u32>,
        scales: Vec<f32>,
        codes: Vec<u8>,
    },
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

/// Each page's first fragment (pages hold consecutive fragments, in page order).
fn page_starts(docs: &[Doc]) -> Vec<u32> {
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
fn pages_in(page_starts: &[u32], first: u32, end: u32, last: bool) -> std::ops::Range<usize> {
    let lo = page_starts.partition_point(|&s| s < first);
    let hi = if last {
        page_starts.len()
    } else {
        page_starts.partition_point(|&s| s < end)
    };
    lo..hi.max(lo)
}

/// A page's record as the manifest holds it: what ranking reads; the rest is in its text shard.
fn stub(doc: &Doc) -> Doc {
    Doc {
        path: String::new(),
        url: String::new(),
        title: String::new(),
        themes: Vec::new(),
        ..doc.clone()
    }
}

/// Replaces each pair's id (ascending) by its gap from the one before (the first from 0).
fn to_gaps(pairs: &mut [(u32, u32)]) {
    let mut prev = 0;
    for pair in pairs {
        (pair.0, prev) = (pair.0.wrapping_sub(prev), pair.0);
    }
}

/// Undoes [`to_gaps`]; `None` when the ids would pass `u32::MAX`.
fn from_gaps(pairs: &mut [(u32, u32)]) -> Option<()> {
    let mut prev = 0u32;
    for pair in pairs {
        prev = prev.checked_add(pair.0)?;
        pair.0 = prev;
    }
    Some(())
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

/// The CRC-32 in a framed file's header.
fn file_checksum(bytes: &[u8]) -> u32 {
    bytes
        .get(52..56)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn shard_name(kind: char, checksum: u32) -> String {
    format!("{kind}-{checksum:08x}.onr")
}

/// Why a shard was not taken. Each names the shard's file.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardError {
    /// The shard's file name, as given.
    pub name: String,
    /// What is wrong with it.
    pub kind: ShardErrorKind,
}

/// What is wrong with a shard.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ShardErrorKind {
    /// The manifest lists no shard of that name, nor does a text shard taken so far (vector
    /// rows are named by their text shard).
    NotInManifest,
    /// The file does not read as a shard: cut off, corrupt, another format version.
    Decode(DecodeError),
    /// The shard belongs to another build of the site (its corpus hash differs).
    OtherBuild,
    /// The shard reads well but is not the one the manifest lists under its name.
    NotTheListedShard,
    /// The shard's contents do not fit its place in the manifest.
    Invalid(&'static str),
    /// The shard could not be fetched (offline, or the host lacks it).
    Unavailable,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.kind {
            ShardErrorKind::NotInManifest => {
                write!(
                    f,
                    "index shard {name} is not in this index's manifest (nor named by a text shard taken so far)"
                )
            }
            ShardErrorKind::Decode(e) => {
                write!(f, "index shard {name}: ")?;
                e.describe(f, "shard", crate::format::HEADER_LEN)
            }
            ShardErrorKind::OtherBuild => write!(
                f,
                "index shard {name} is from another build of the site (its corpus hash differs from the manifest's); reload the page"
            ),
            ShardErrorKind::NotTheListedShard => write!(
                f,
                "index shard {name} is not the shard the manifest lists under that name (checksum differs)"
            ),
            ShardErrorKind::Invalid(what) => {
                write!(f, "index shard {name} is inconsistent: {what}")
            }
            ShardErrorKind::Unavailable => write!(
                f,
                "index shard {name} could not be fetched, so this question cannot be answered offline"
            ),
        }
    }
}

impl std::error::Error for ShardError {}

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
    index: Index,
    /// Every shard's name, postings shards first (a shard's place is its slot): postings, text,
    /// vector lists, then (with vectors) each text shard's vector rows, whose names are empty
    /// until their text shard is in.
    names: Vec<String>,
    /// Every shard's checksum, in the same order (0 for rows not named yet).
    checksums: Vec<u32>,
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

    /// Runs `question` (e.g. `|index| ask(index, …)`) until its reads miss nothing, fetching
    /// each missed shard by name through `fetch` (`None`: it could not be fetched) between
    /// runs, and returns the last run's result: the whole index's. Each run but the last adds
    /// a shard, so there are at most as many runs as shards, plus one.
    pub fn complete<T>(
        &mut self,
        mut question: impl FnMut(&Index) -> T,
        mut fetch: impl FnMut(&str) -> Option<Vec<u8>>,
    ) -> Result<T, ShardError> {
        loop {
            let result = question(&self.index);
            let needed = self.needed();
            if needed.is_empty() {
                return Ok(result);
            }
            for name in needed {
                let Some(bytes) = fetch(&name) else {
                    return Err(ShardError {
                        name,
                        kind: ShardErrorKind::Unavailable,
                    });
                };
                self.add_shard(&name, &bytes)?;
            }
        }
    }

    /// Takes a fetched shard. A shard already taken is ignored. Never panics, whatever the bytes.
    pub fn add_shard(&mut self, name: &str, bytes: &[u8]) -> Result<(), ShardError> {
        // The name is copied into the error in one place, not at each of the ~20 refusals
        // (0.4 KB of the gzipped sharded bundle, measured).
        self.take(name, bytes).map_err(|kind| ShardError {
            name: name.to_owned(),
            kind,
        })
    }

    /// [`ShardedIndex::add_shard`], failing with what is wrong.
    fn take(&mut self, name: &str, bytes: &[u8]) -> Result<(), ShardErrorKind> {
        // The slot of that name, one not taken yet if there is one (text shards with identical
        // vector rows name one file).
        let taken = |slot: usize| {
            let sharding = self.index.sharding.as_deref();
            sharding.is_none_or(|s| s.loaded.get(slot) != Some(&false))
        };
        let named: Vec<usize> = (0..self.names.len())
            .filter(|&s| {
                self.names
                    .get(s)
                    .is_some_and(|n| !n.is_empty() && n == name)
            })
            .collect();
        let slot = named
            .iter()
            .copied()
            .find(|&s| !taken(s))
            .or(named.first().copied())
            .ok_or(ShardErrorKind::NotInManifest)?;
        let open: Vec<usize> = named.into_iter().filter(|&s| !taken(s)).collect();
        let (body, corpus_hash, checksum): (ShardBody, _, _) =
            unframe(bytes, &SHARD_MAGIC, SHARD_FORMAT_VERSION).map_err(ShardErrorKind::Decode)?;
        if corpus_hash != self.index.corpus_hash {
            return Err(ShardErrorKind::OtherBuild);
        }
        if self.checksums.get(slot) != Some(&checksum) {
            return Err(ShardErrorKind::NotTheListedShard);
        }
        let index = &mut self.index;
        let Some(sharding) = index.sharding.as_deref_mut() else {
            return Ok(());
        };
        if sharding.loaded.get(slot) != Some(&false) {
            return Ok(());
        }
        let n_postings = sharding.postings_first.len();
        let n_texts = sharding.text_first.len();
        let n_lists = sharding.vectors.as_ref().map_or(0, |v| v.lists.len());
        let rows_from = n_postings + n_texts + n_lists;
        let n_frags = sharding.lengths.len();
        let mut slots = vec![slot];
        match body {
            ShardBody::Postings {
                mut terms,
                mut lengths,
            } if slot < n_postings => {
                let ids_fit = terms
                    .iter_mut()
                    .all(|t| from_gaps(&mut t.postings).is_some())
                    && from_gaps(&mut lengths).is_some();
                if !ids_fit {
                    return Err(ShardErrorKind::Invalid(
                        "its fragment ids run past the largest id",
                    ));
                }
                validate_terms(&terms, n_frags).map_err(|_| {
                    ShardErrorKind::Invalid("its postings are not sorted or name missing fragments")
                })?;
                let first = sharding.postings_first.get(slot);
                let next = sharding.postings_first.get(slot + 1);
                let inside = |t: &TermPostings| {
                    first.is_some_and(|f| t.term >= *f) && next.is_none_or(|n| t.term < *n)
                };
                if !terms.iter().all(inside) {
                    return Err(ShardErrorKind::Invalid("it holds terms outside its range"));
                }
                let named = |id: u32| lengths.binary_search_by_key(&id, |l| l.0).is_ok();
                if lengths.windows(2).any(|l| l[0].0 >= l[1].0)
                    || !terms.iter().flat_map(|t| &t.postings).all(|p| named(p.0))
                {
                    return Err(ShardErrorKind::Invalid(
                        "its lengths are not sorted or miss a fragment its postings name",
                    ));
                }
                set_lengths(&mut sharding.lengths, lengths.iter().copied())
                    .map_err(ShardErrorKind::Invalid)?;
                // Shards hold disjoint term ranges, so the new run goes in one piece.
                let at = terms.first().map_or(0, |t| {
                    index.terms.partition_point(|have| have.term < t.term)
                });
                insert_at(&mut index.terms, at, terms);
            }
            ShardBody::Text {
                docs,
                fragments,
                rows,
            } if (n_postings..n_postings + n_texts).contains(&slot) => {
                let text = slot - n_postings;
                let first = sharding.text_first.get(text).copied().unwrap_or(0);
                let end = sharding
                    .text_first
                    .get(text + 1)
                    .map_or(n_frags, |&n| n as usize);
                if fragments.len() != end.saturating_sub(first as usize) {
                    return Err(ShardErrorKind::Invalid(
                        "it holds another number of fragments than its range",
                    ));
                }
                for (i, f) in fragments.iter().enumerate() {
                    f.validate(first + i as u32, index.docs.len())
                        .map_err(|e| {
                            match e {
                                DecodeError::Invalid(what) => ShardErrorKind::Invalid(what),
                                // A bad sentence range keeps its own name.
                                other => ShardErrorKind::Decode(other),
                            }
                        })?;
                    if sharding.page_of(first + i as u32) != Some(f.doc) {
                        return Err(ShardErrorKind::Invalid(
                            "a fragment's page differs from the manifest's",
                        ));
                    }
                }
                let pages = pages_in(&sharding.page_starts, first, end as u32, end == n_frags);
                let stubs = index.docs.get(pages.clone()).unwrap_or_default();
                if docs.len() != stubs.len() || docs.iter().zip(stubs).any(|(d, s)| stub(d) != *s) {
                    return Err(ShardErrorKind::Invalid(
                        "its pages differ from the manifest's",
                    ));
                }
                let fragments_len = fragments.len();
                let ids = (first..).take(fragments_len);
                if sharding.vectors.is_some() != (rows != 0) {
                    return Err(ShardErrorKind::Invalid(
                        "it names vector rows, and the index has no vectors, or the reverse",
                    ));
                }
                let lengths = ids.clone().zip(fragments.iter().map(|f| f.n_terms));
                set_lengths(&mut sharding.lengths, lengths).map_err(ShardErrorKind::Invalid)?;
                let at = sharding.fragment_ids.partition_point(|&id| id < first);
                insert_at(&mut sharding.fragment_ids, at, ids);
                insert_at(&mut index.fragments, at, fragments);
                if let Some(slots) = index.docs.get_mut(pages) {
                    slots.clone_from_slice(&docs);
                }
                if rows != 0 {
                    let name = shard_name('r', rows);
                    // Rows taken already for another text shard (identical pages): shared.
                    let same = (rows_from..self.names.len()).find(|&s| {
                        self.names.get(s) == Some(&name) && sharding.loaded.get(s) == Some(&true)
                    });
                    let slot = rows_from + text;
                    if let (Some(n), Some(sum)) =
                        (self.names.get_mut(slot), self.checksums.get_mut(slot))
                    {
                        *n = name;
                        *sum = rows;
                    }
                    if let (Some(same), Some(v)) = (same, sharding.vectors.as_deref_mut()) {
                        let from = sharding.text_first.get(same - rows_from).copied();
                        let shared = from.map(|from| share_rows(v, from, first, fragments_len));
                        if shared == Some(true)
                            && let Some(loaded) = sharding.loaded.get_mut(slot)
                        {
                            *loaded = true;
                        }
                    }
                }
            }
            ShardBody::Vectors { ids, scales, codes }
                if (n_postings + n_texts..rows_from).contains(&slot) =>
            {
                if ids.windows(2).any(|w| w[0] >= w[1])
                    || ids.last().is_some_and(|&id| id as usize >= n_frags)
                {
                    return Err(ShardErrorKind::Invalid(
                        "its members are not ascending or name missing fragments",
                    ));
                }
                let Some(v) = sharding.vectors.as_deref_mut() else {
                    return Err(ShardErrorKind::Invalid(
                        "it holds vectors, and the index has none",
                    ));
                };
                let n = ids.len();
                if scales.len() != n
                    || Some(codes.len()) != n.checked_mul(code_bytes(v.centroids.dims as usize))
                {
                    return Err(ShardErrorKind::Invalid(
                        "its codes do not match its members",
                    ));
                }
                if scales.iter().any(|s| !s.is_finite()) {
                    return Err(ShardErrorKind::Invalid("a vector scale is not finite"));
                }
                if let Some(list) = v.lists.get_mut(slot - n_postings - n_texts) {
                    *list = CodeList { ids, scales, codes };
                }
            }
            ShardBody::Rows { scales, data } if slot >= rows_from => {
                // The fragments of each text shard that names these rows.
                let ranges: Vec<std::ops::Range<u32>> = open
                    .iter()
                    .map(|&s| {
                        let text = s - rows_from;
                        let first = sharding.text_first.get(text).copied().unwrap_or(0);
                        let end = sharding
                            .text_first
                            .get(text + 1)
                            .map_or(n_frags as u32, |&n| n);
                        first..end.max(first)
                    })
                    .collect();
                if ranges.iter().any(|r| r.len() != scales.len()) {
                    return Err(ShardErrorKind::Invalid(
                        "its vectors do not match its fragments",
                    ));
                }
                for range in ranges {
                    put_rows(&mut sharding.vectors, range, &scales, &data)
                        .map_err(ShardErrorKind::Invalid)?;
                }
                slots = open;
            }
            _ => {
                return Err(ShardErrorKind::Invalid(
                    "it is another kind of shard than its name says",
                ));
            }
        }
        for s in slots {
            if let Some(loaded) = sharding.loaded.get_mut(s) {
                *loaded = true;
            }
        }
        Ok(())
    }
}

/// Inserts `items` before `v[at]`: what `v.splice(at..at, items)` does, without `Splice`'s
/// code for each type (1 KB of the gzipped sharded bundle, measured).
fn insert_at<T>(v: &mut Vec<T>, at: usize, items: impl IntoIterator<Item = T>) {
    let tail = v.split_off(at);
    v.extend(items);
    v.extend(tail);
}

/// Records fetched BM25 lengths; a length that differs from one already known is refused.
fn set_lengths(
    known: &mut [u32],
    lengths: impl Iterator<Item = (u32, u32)>,
) -> Result<(), &'static str> {
    for (id, len) in lengths {
        match known.get_mut(id as usize) {
            Some(have) if *have == UNKNOWN || *have == len => *have = len,
            Some(_) => return Err("a fragment's length differs between shards"),
            None => return Err("a length names a missing fragment"),
        }
    }
    Ok(())
}

/// Points the `n` fragments from `to` at the rows of the `n` fragments from `from` (whose rows
/// file is the same); false, changing nothing, unless every one of those has its row.
fn share_rows(v: &mut ShardVectors, from: u32, to: u32, n: usize) -> bool {
    let rows: Option<Vec<u32>> = (from..)
        .take(n)
        .map(|id| v.row_of.get(id as usize).copied().filter(|&r| r != UNKNOWN))
        .collect();
    let fits = (to as usize)
        .checked_add(n)
        .is_some_and(|end| end <= v.row_of.len());
    match rows {
        Some(rows) if fits && rows.len() == n => {
            for (id, row) in (to..).zip(rows) {
                if let Some(r) = v.row_of.get_mut(id as usize)
                    && *r == UNKNOWN
                {
                    *r = row;
                }
            }
            true
        }
        _ => false,
    }
}

/// Adds the rows of fragments `ids` (one scale and `dims` values each) to the fetched vectors;
/// rows already there are kept.
fn put_rows(
    vectors: &mut Option<Box<ShardVectors>>,
    ids: impl Iterator<Item = u32> + Clone,
    scales: &[f32],
    data: &[i8],
) -> Result<(), &'static str> {
    let Some(v) = vectors.as_deref_mut() else {
        return Err("it holds vectors, and the index has none");
    };
    let dims = v.rows.dims as usize;
    let n = ids.clone().count();
    if scales.len() != n || Some(data.len()) != n.checked_mul(dims) {
        return Err("its vectors do not match its fragments");
    }
    if scales.iter().any(|s| !s.is_finite()) {
        return Err("a vector scale is not finite");
    }
    for ((id, scale), row) in ids.zip(scales).zip(data.chunks_exact(dims.max(1))) {
        let next = v.rows.scales.len() as u32;
        match v.row_of.get_mut(id as usize) {
            Some(r) if *r == UNKNOWN => *r = next,
            Some(_) => continue,
            None => return Err("a vector names a missing fragment"),
        }
        v.rows.scales.push(*scale);
        v.rows.data.extend_from_slice(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ann::CODE_BITS;
    use crate::{Block, IndexBuilder, SourceDoc, SourceSection, chunk};

    /// `n` one-fragment pages in `lang`.
    fn index(lang: Lang, n: usize) -> Index {
        let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
        for i in 0..n {
            let doc = SourceDoc {
                path: format!("p{i}.md"),
                url: format!("/p{i}/"),
                title: format!("Page {i}"),
                lang,
                themes: vec![],
                collection: None,
                sections: vec![SourceSection {
                    heading_path: vec![format!("Part {i}")],
                    anchor: String::new(),
                    blocks: vec![Block::paragraph(format!("Gear {i} needs grease."))],
                }],
            };
            builder.add(&doc, &chunk(&doc, 800));
        }
        builder.finish()
    }

    #[test]
    fn gaps_round_trip_and_overflow_is_refused() {
        let ids = vec![(3, 1), (4, 2), (90_000, 1), (u32::MAX, 7)];
        let mut gaps = ids.clone();
        to_gaps(&mut gaps);
        assert_eq!(gaps[..3], [(3, 1), (1, 2), (89_996, 1)]);
        from_gaps(&mut gaps).unwrap();
        assert_eq!(gaps, ids);
        assert_eq!(from_gaps(&mut [(u32::MAX, 1), (1, 1)]), None);
    }

    /// A text shard whose page records are not the manifest's pages (here: in another language)
    /// is refused, even when the manifest lists its checksum (a writer bug, or a forged pair).
    #[test]
    fn a_text_shard_with_other_pages_is_refused() {
        let sizes = ShardSizes {
            postings: 1,
            text: 1,
            threshold: 0,
        };
        let ours = index(Lang::English, 2).to_shards([1; 32], sizes).unwrap();
        let theirs = index(Lang::German, 2).to_shards([1; 32], sizes).unwrap();
        let (mut manifest, hash, _): (Manifest, _, _) =
            unframe(&ours.manifest, &MANIFEST_MAGIC, SHARD_FORMAT_VERSION).unwrap();
        let (name, bytes) = theirs
            .shards
            .iter()
            .find(|(n, _)| n.starts_with("t-"))
            .unwrap();
        manifest.texts[0].1 = file_checksum(bytes);
        let forged = frame(&MANIFEST_MAGIC, SHARD_FORMAT_VERSION, hash, &manifest).unwrap();
        let mut sharded = ShardedIndex::from_manifest(&forged).unwrap();
        let err = sharded.add_shard(name, bytes).unwrap_err();
        assert_eq!(
            err.kind,
            ShardErrorKind::Invalid("its pages differ from the manifest's")
        );
    }

    /// Three one-fragment pages with vectors of 8 dimensions, written in one vector list.
    fn files() -> ShardedFiles {
        let mut index = index(Lang::English, 3);
        let mut vectors = VectorIndex::new(0xabcd, 8);
        for i in 0..index.fragments.len() {
            let x = i as f32;
            vectors.push(&[1.0, -x, 0.5, 0.0, -1.0, 2.0, 0.25, x]);
        }
        assert_eq!(vectors.scales.len(), 3);
        index.vectors = Some(vectors);
        index.to_shards([3; 32], ShardSizes::STANDARD).unwrap()
    }

    /// `body` framed as a shard and listed in place of the vector list, so that only its
    /// contents can be refused.
    fn add_as_list(files: &ShardedFiles, body: &ShardBody) -> Result<(), ShardError> {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        let bytes = frame(&SHARD_MAGIC, SHARD_FORMAT_VERSION, [3; 32], body).unwrap();
        let slot = sharded
            .names
            .iter()
            .rposition(|n| n.starts_with("v-"))
            .unwrap();
        sharded.checksums[slot] = file_checksum(&bytes);
        let name = sharded.names[slot].clone();
        sharded.add_shard(&name, &bytes)
    }

    #[test]
    fn the_listed_code_shard_is_taken_and_inconsistent_ones_are_refused_by_name() {
        let files = files();
        // Eight dimensions: `code_bytes(8)` bytes a member.
        let per = code_bytes(8);
        assert_eq!(per, 8 * CODE_BITS / 8);
        let list = |ids: Vec<u32>, scales: Vec<f32>, codes: usize| ShardBody::Vectors {
            ids,
            scales,
            codes: vec![0b1010_0101; codes],
        };
        let good = |codes: usize| list(vec![0, 1, 2], vec![0.5; 3], codes);
        assert_eq!(add_as_list(&files, &good(3 * per)), Ok(()));
        let refused = |body: ShardBody, what: &str| {
            let err = add_as_list(&files, &body).unwrap_err();
            assert!(matches!(err.kind, ShardErrorKind::Invalid(_)), "{err}");
            assert!(err.to_string().contains(&err.name), "{err}");
            assert!(err.to_string().contains(what), "{err}");
        };
        let mismatch = "its codes do not match its members";
        refused(good(3 * per - 1), mismatch);
        refused(good(3 * per + 1), mismatch);
        refused(list(vec![0, 1], vec![0.5; 3], 3 * per), mismatch);
        refused(list(vec![0, 1, 2], vec![0.5; 2], 3 * per), mismatch);
        refused(list(vec![0, 2, 1], vec![0.5; 3], 3 * per), "not ascending");
        refused(
            list(vec![0, 1, 3], vec![0.5; 3], 3 * per),
            "missing fragments",
        );
        for bad in [f32::NAN, f32::INFINITY] {
            refused(
                list(vec![0, 1, 2], vec![0.5, bad, 0.5], 3 * per),
                "not finite",
            );
        }
        refused(
            ShardBody::Text {
                docs: Vec::new(),
                fragments: Vec::new(),
                rows: 0,
            },
            "another kind of shard",
        );
    }
}
