//! Taking fetched shards into a [`ShardedIndex`]: each is checked against the manifest (name,
//! build, checksum, contents) before anything is added, and refused by name otherwise.

use std::fmt;

use super::manifest::{pages_in, stub};
use super::read::ShardedIndex;
use super::{SHARD_FORMAT_VERSION, SHARD_MAGIC, ShardBody, from_gaps, shard_name};
use crate::ann::{CodeList, code_bytes};
use crate::format::{
    DecodeError, Index, ShardVectors, TermPostings, UNKNOWN, unframe, validate_terms,
};

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

impl ShardedIndex {
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
    use crate::format::{IndexSettings, VectorIndex, frame};
    use crate::shard::{MANIFEST_MAGIC, Manifest, ShardSizes, ShardedFiles, file_checksum};
    use crate::text::Lang;
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
