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
//!
//! The files: [`manifest`] (the manifest's type and how its pages place fragments), [`mod@write`]
//! (an [`Index`](crate::Index) as manifest and shards), [`read`] ([`ShardedIndex`] from its
//! manifest, and what its reads missed) and [`take`] (a fetched shard checked and added).

use serde::{Deserialize, Serialize};

use crate::format::{Doc, Fragment, TermPostings};

mod manifest;
mod read;
mod take;
mod write;

pub use self::manifest::Manifest;
pub use self::read::{ManifestError, PROBES, ShardedIndex};
pub use self::take::{ShardError, ShardErrorKind};
pub use self::write::{ShardSizes, ShardedFiles, VectorLists};

/// The first eight bytes of a sharded index's manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"ONRMANIF";
/// The first eight bytes of a shard.
pub const SHARD_MAGIC: [u8; 8] = *b"ONRSHARD";

/// The version of the sharded layout's files (manifest and shards). 9: fragments mark their
/// code units (the index's format 7); 8: a text shard's int8
/// vectors are a shard of their own (`r-`), named by the text shard; 7: vector lists carry
/// residual codes of `ann::CODE_BITS` bits a dimension, not int8 rows.
pub const SHARD_FORMAT_VERSION: u32 = 9;

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
    /// start in the run ([`manifest::pages_in`]), and the checksum of the shard with the run's
    /// int8 vectors ([`ShardBody::Rows`]; 0 for an index without vectors).
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

/// The CRC-32 in a framed file's header.
fn file_checksum(bytes: &[u8]) -> u32 {
    bytes
        .get(52..56)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn shard_name(kind: char, checksum: u32) -> String {
    format!("{kind}-{checksum:08x}.onr")
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
