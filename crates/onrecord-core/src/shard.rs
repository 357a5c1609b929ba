//! The sharded layout: a small manifest and shards that a question fetches on demand, so a
//! large site's visitor downloads only the parts of the index their questions read.
//!
//! Every file has the index's header (`format::frame`: magic, version, corpus hash,
//! payload length, CRC-32; the version is [`crate::FORMAT_VERSION`]) and a postcard payload:
//!
//! | file | magic | payload |
//! |---|---|---|
//! | manifest | `ONRMANIF` | [`Manifest`]: pages, statistics, vectors, hints, the shard list |
//! | postings shard | `ONRSHARD` | the postings of a run of terms (`first..next first`) |
//! | text shard | `ONRSHARD` | the fragments of a run of whole pages (`first..next first`) |
//!
//! A shard's file name is `p-` or `t-` and its CRC-32 in hex: named by content, so a host may
//! cache it forever, and a shard from another build, or a changed one, has another name (the
//! rare CRC collision is still refused: the header's corpus hash names the build). The
//! manifest lists each shard's first term or fragment and its checksum; [`ShardedIndex`] takes
//! a shard only when its header's corpus hash and checksum are the ones the manifest lists.
//! Fragment ids are the whole index's, so citations, quote checks and the proxy's ids keep
//! their meaning.
//!
//! Answering is two-phase (or three): [`ShardedIndex::index`] answers `ask` with what it has;
//! every read it could not answer notes a shard ([`ShardedIndex::needed`]): first the postings
//! shards of the question's words, then the text shards of the candidates' pages. The caller
//! fetches them, adds them and asks again, until nothing is needed; then each read returned what
//! the whole index would have, and so does the answer.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::collection::Collection;
use crate::format::{
    DecodeError, Doc, EncodeError, Fragment, Index, IndexSettings, RoutingHint, Sharding,
    TermPostings, VectorIndex, frame, unframe, validate_terms,
};
use crate::text::Lang;

/// The first eight bytes of a sharded index's manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"ONRMANIF";
/// The first eight bytes of a shard.
pub const SHARD_MAGIC: [u8; 8] = *b"ONRSHARD";

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
    /// What `build-index` uses unless told otherwise. Shards of 16 KB: on the shared corpora
    /// (lexical) a question fetches a median of 12–14 shards and 286–312 KB of rust-reference
    /// and rustc-dev-guide, against 9–11 and 518–578 KB with 32/64 KB shards and 13–14 and
    /// 193–215 KB with 8 KB (`build-index --example shard_fetch`); not tuned further, and
    /// uncompressed. Below the threshold the demo (110 KB with vectors) stays one file.
    pub const STANDARD: ShardSizes = ShardSizes {
        postings: 16 * 1024,
        text: 16 * 1024,
        threshold: 512 * 1024,
    };
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
    /// Documents, in path order.
    pub docs: Vec<Doc>,
    /// Every fragment's number of indexed terms: BM25 reads the length of any fragment a
    /// question's postings name, before any fragment text is fetched.
    pub fragment_lengths: Vec<u32>,
    /// Mean number of indexed terms per fragment.
    pub avg_fragment_terms: f32,
    /// Fragment vectors, when the index was built with an embedding model.
    pub vectors: Option<VectorIndex>,
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
    /// The postings of a run of terms, sorted by term.
    Postings(Vec<TermPostings>),
    /// The fragments of a run of whole pages, in id order.
    Text(Vec<Fragment>),
}

/// A sharded index as files: the manifest, and each shard with its name.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardedFiles {
    /// The manifest's bytes.
    pub manifest: Vec<u8>,
    /// `(file name, bytes)` of each shard, postings shards first.
    pub shards: Vec<(String, Vec<u8>)>,
}

impl Index {
    /// Writes the index as a manifest and shards. The same index always gives the same bytes.
    pub fn to_shards(
        &self,
        corpus_hash: [u8; 32],
        sizes: ShardSizes,
    ) -> Result<ShardedFiles, EncodeError> {
        let mut shards = Vec::new();
        let mut postings = Vec::new();
        for run in runs(&self.terms, sizes.postings, |_| true)? {
            let first = run.first().map(|t| t.term.clone()).unwrap_or_default();
            let bytes = frame(
                &SHARD_MAGIC,
                corpus_hash,
                &ShardBody::Postings(run.to_vec()),
            )?;
            postings.push((first, file_checksum(&bytes)));
            shards.push((shard_name('p', file_checksum(&bytes)), bytes));
        }
        // A text shard ends only where a page does: quoting reads a candidate's whole page.
        let mut texts = Vec::new();
        let mut first = 0u32;
        for run in runs(&self.fragments, sizes.text, |f| f.position == 0)? {
            let bytes = frame(&SHARD_MAGIC, corpus_hash, &ShardBody::Text(run.to_vec()))?;
            texts.push((first, file_checksum(&bytes)));
            shards.push((shard_name('t', file_checksum(&bytes)), bytes));
            first += run.len() as u32;
        }
        let manifest = Manifest {
            corpus_hash,
            default_lang: self.default_lang,
            settings: self.settings,
            docs: self.docs.clone(),
            fragment_lengths: self.fragments.iter().map(|f| f.n_terms).collect(),
            avg_fragment_terms: self.avg_fragment_terms,
            vectors: self.vectors.clone(),
            hints: self.hints.clone(),
            hint_terms: self.hint_terms.clone(),
            site_words: self.site_words.clone(),
            collections: self.collections.clone(),
            postings,
            texts,
        };
        Ok(ShardedFiles {
            manifest: frame(&MANIFEST_MAGIC, corpus_hash, &manifest)?,
            shards,
        })
    }
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
    /// The manifest lists no shard of that name.
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
                write!(f, "index shard {name} is not in this index's manifest")
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
    /// Every shard's name, postings shards first (a shard's place is its slot).
    names: Vec<String>,
    /// Every shard's checksum, in the same order.
    checksums: Vec<u32>,
}

impl ShardedIndex {
    /// Reads a manifest, checking it as [`Index::from_bytes`] checks an index. Never panics.
    pub fn from_manifest(bytes: &[u8]) -> Result<ShardedIndex, ManifestError> {
        ShardedIndex::decode(bytes).map_err(ManifestError)
    }

    fn decode(bytes: &[u8]) -> Result<ShardedIndex, DecodeError> {
        let (m, corpus_hash, _): (Manifest, _, _) = unframe(bytes, &MANIFEST_MAGIC)?;
        let n_frags = m.fragment_lengths.len();
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
        let names = m
            .postings
            .iter()
            .map(|p| shard_name('p', p.1))
            .chain(m.texts.iter().map(|t| shard_name('t', t.1)))
            .collect();
        let checksums = m
            .postings
            .iter()
            .map(|p| p.1)
            .chain(m.texts.iter().map(|t| t.1))
            .collect();
        let mut page_starts = Vec::with_capacity(m.docs.len());
        let mut start = 0u32;
        for d in &m.docs {
            page_starts.push(start);
            start = start.saturating_add(d.n_fragments);
        }
        let sharding = Sharding {
            page_starts,
            loaded: vec![false; m.postings.len() + m.texts.len()],
            missed: (0..m.postings.len() + m.texts.len())
                .map(|_| AtomicBool::new(false))
                .collect(),
            postings_first: m.postings.into_iter().map(|p| p.0).collect(),
            text_first: m.texts.into_iter().map(|t| t.0).collect(),
            lengths: m.fragment_lengths,
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
            vectors: m.vectors,
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

    /// Every shard's file name, postings shards first.
    pub fn shard_names(&self) -> &[String] {
        &self.names
    }

    /// The shards that reads since the last call needed and did not find, by file name: fetch
    /// them, [`ShardedIndex::add_shard`] them and ask again. Empty: the last answer is the
    /// whole index's.
    pub fn needed(&self) -> Vec<String> {
        let Some(sharding) = &self.index.sharding else {
            return Vec::new();
        };
        sharding
            .missed
            .iter()
            .zip(&self.names)
            .filter(|(missed, _)| missed.swap(false, Ordering::Relaxed))
            .map(|(_, name)| name.clone())
            .collect()
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
        let error = |kind| ShardError {
            name: name.to_owned(),
            kind,
        };
        let slot = self
            .names
            .iter()
            .position(|n| n == name)
            .ok_or(error(ShardErrorKind::NotInManifest))?;
        let (body, corpus_hash, checksum): (ShardBody, _, _) =
            unframe(bytes, &SHARD_MAGIC).map_err(|e| error(ShardErrorKind::Decode(e)))?;
        if corpus_hash != self.index.corpus_hash {
            return Err(error(ShardErrorKind::OtherBuild));
        }
        if self.checksums.get(slot) != Some(&checksum) {
            return Err(error(ShardErrorKind::NotTheListedShard));
        }
        let index = &mut self.index;
        let Some(sharding) = index.sharding.as_deref_mut() else {
            return Ok(());
        };
        if sharding.loaded.get(slot) != Some(&false) {
            return Ok(());
        }
        let n_postings = sharding.postings_first.len();
        let n_frags = sharding.lengths.len();
        match body {
            ShardBody::Postings(terms) if slot < n_postings => {
                validate_terms(&terms, n_frags).map_err(|_| {
                    error(ShardErrorKind::Invalid(
                        "its postings are not sorted or name missing fragments",
                    ))
                })?;
                let first = sharding.postings_first.get(slot);
                let next = sharding.postings_first.get(slot + 1);
                let inside = |t: &TermPostings| {
                    first.is_some_and(|f| t.term >= *f) && next.is_none_or(|n| t.term < *n)
                };
                if !terms.iter().all(inside) {
                    return Err(error(ShardErrorKind::Invalid(
                        "it holds terms outside its range",
                    )));
                }
                // Shards hold disjoint term ranges, so the new run goes in one piece.
                let at = terms.first().map_or(0, |t| {
                    index.terms.partition_point(|have| have.term < t.term)
                });
                index.terms.splice(at..at, terms);
            }
            ShardBody::Text(fragments) if slot >= n_postings => {
                let text = slot - n_postings;
                let first = sharding.text_first.get(text).copied().unwrap_or(0);
                let end = sharding
                    .text_first
                    .get(text + 1)
                    .map_or(n_frags, |&n| n as usize);
                if fragments.len() != end.saturating_sub(first as usize) {
                    return Err(error(ShardErrorKind::Invalid(
                        "it holds another number of fragments than its range",
                    )));
                }
                for (i, f) in fragments.iter().enumerate() {
                    let id = first as usize + i;
                    f.validate(index.docs.len()).map_err(|e| {
                        error(ShardErrorKind::Invalid(match e {
                            DecodeError::Invalid(what) => what,
                            _ => "a fragment does not read",
                        }))
                    })?;
                    if sharding.lengths.get(id) != Some(&f.n_terms) {
                        return Err(error(ShardErrorKind::Invalid(
                            "a fragment's length differs from the manifest's",
                        )));
                    }
                    if sharding.page_of(id as u32) != Some(f.doc) {
                        return Err(error(ShardErrorKind::Invalid(
                            "a fragment's page differs from the manifest's",
                        )));
                    }
                }
                let at = sharding.fragment_ids.partition_point(|&id| id < first);
                let ids = (first..).take(fragments.len());
                sharding.fragment_ids.splice(at..at, ids);
                index.fragments.splice(at..at, fragments);
            }
            _ => {
                return Err(error(ShardErrorKind::Invalid(
                    "it is another kind of shard than its name says",
                )));
            }
        }
        if let Some(loaded) = sharding.loaded.get_mut(slot) {
            *loaded = true;
        }
        Ok(())
    }
}
