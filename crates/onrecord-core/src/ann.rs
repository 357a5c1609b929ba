//! Approximate vector search, for indexes too large for a question to fetch every vector.
//!
//! Two ways to score only a few fragments exactly, both over int8 rows as the index stores them
//! (one scale per row, score = scale × Σ row·query, the same arithmetic as brute force):
//!
//! - **IVF**: fragments are grouped into lists around centroids (trained at build time by
//!   `build-index`); a question scores the centroids, fetches the `probes` nearest lists and
//!   scores their members exactly ([`nearest_lists`], then [`search_lists`]).
//! - **Binary codes**: one sign bit per dimension; a question ranks every code by Hamming
//!   distance to its own signs, then scores the best `m` exactly ([`hamming_candidates`], then
//!   [`rescore`]).
//!
//! Ties rank by fragment id, as brute force does, so probing every list (or rescoring every
//! fragment) gives brute force's ranking exactly.

use crate::bm25::{Hit, best_k};
use crate::format::VectorIndex;
use crate::vector::dot;

/// Int8 rows with one scale each: `scales.len()` rows of `dims` values.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    /// Values per row.
    pub dims: usize,
    /// One scale per row.
    pub scales: &'a [f32],
    /// `scales.len() × dims` values, row by row.
    pub data: &'a [i8],
}

impl<'a> Rows<'a> {
    /// How many whole rows there are (a short tail or missing scales count as no row).
    pub fn len(&self) -> usize {
        match self.data.len().checked_div(self.dims) {
            Some(n) => n.min(self.scales.len()),
            None => 0,
        }
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i` and its scale.
    pub fn row(&self, i: usize) -> Option<(&'a [i8], f32)> {
        let start = i.checked_mul(self.dims)?;
        let row = self.data.get(start..start.checked_add(self.dims)?)?;
        Some((row, *self.scales.get(i)?))
    }

    /// Cosine of row `i` with the unit vector `query` (the score brute force gives it).
    pub fn score(&self, i: usize, query: &[f32]) -> Option<f32> {
        let (row, scale) = self.row(i)?;
        (query.len() == self.dims).then(|| dot(row, query) * scale)
    }
}

impl VectorIndex {
    /// The vectors as rows.
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            dims: self.dims as usize,
            scales: &self.scales,
            data: &self.data,
        }
    }
}

/// One IVF list: the fragment ids of its members and their rows, in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IvfList {
    /// Fragment ids, one per row.
    pub ids: Vec<u32>,
    /// One scale per member.
    pub scales: Vec<f32>,
    /// The members' int8 values, row by row.
    pub data: Vec<i8>,
}

impl IvfList {
    /// The members' rows, `dims` values each.
    pub fn rows(&self, dims: usize) -> Rows<'_> {
        Rows {
            dims,
            scales: &self.scales,
            data: &self.data,
        }
    }
}

/// The `probes` lists whose centroids are nearest (highest cosine) to `query`, nearest first:
/// the lists a question fetches.
pub fn nearest_lists(centroids: Rows<'_>, query: &[f32], probes: usize) -> Vec<u32> {
    let scored: Vec<Hit> = (0..centroids.len())
        .filter_map(|i| {
            Some(Hit {
                fragment: i as u32,
                score: centroids.score(i, query)?,
            })
        })
        .collect();
    best_k(scored, probes)
        .into_iter()
        .map(|h| h.fragment)
        .collect()
}

/// Scores every member of `lists` exactly and returns the best `k`, as brute force over those
/// members would rank them.
pub fn search_lists(lists: &[&IvfList], dims: usize, query: &[f32], k: usize) -> Vec<Hit> {
    let mut hits = Vec::new();
    for list in lists {
        let rows = list.rows(dims);
        for (i, &fragment) in list.ids.iter().enumerate() {
            if let Some(score) = rows.score(i, query) {
                hits.push(Hit { fragment, score });
            }
        }
    }
    best_k(hits, k)
}

/// IVF search in one call: probe the `probes` nearest lists of `centroids` (list `i` is
/// `lists[i]`) and score their members exactly.
pub fn ivf_search(
    centroids: Rows<'_>,
    lists: &[IvfList],
    query: &[f32],
    probes: usize,
    k: usize,
) -> Vec<Hit> {
    let probed: Vec<&IvfList> = nearest_lists(centroids, query, probes)
        .into_iter()
        .filter_map(|l| lists.get(l as usize))
        .collect();
    search_lists(&probed, centroids.dims, query, k)
}

/// One IVF list as a sharded index stores it: each member's residual from the list's centroid
/// as a sign code (one bit per dimension, set when the member exceeds the centroid there;
/// [`code_bytes`] bytes a row) and one scale, scored against the question's full-precision
/// vector ([`CodeList::score`]). A code row is about an eighth of an int8 row; the meaning gate
/// still reads the exact int8 vectors, from the text shards.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CodeList {
    /// Fragment ids, one per code.
    pub ids: Vec<u32>,
    /// One scale per member: the mean absolute value of its residual, so that centroid +
    /// scale × sign is the member's least-squares approximation.
    pub scales: Vec<f32>,
    /// The members' sign codes, row by row.
    pub signs: Vec<u8>,
}

/// Bytes per sign code of `dims` dimensions.
pub fn code_bytes(dims: usize) -> usize {
    dims.div_ceil(8)
}

impl CodeList {
    /// Appends a member: `row` (int8 values with their `scale`, as the index stores them) as the
    /// sign code and scale of its residual from `centroid` (an int8 row with its scale; the
    /// list's centroid as the manifest stores it).
    pub fn push(&mut self, id: u32, (row, scale): (&[i8], f32), (centroid, c_scale): (&[i8], f32)) {
        let mut code = vec![0u8; code_bytes(row.len())];
        let mut abs = 0.0;
        for (j, &v) in row.iter().enumerate() {
            let c = centroid.get(j).map_or(0.0, |&c| f32::from(c) * c_scale);
            let r = f32::from(v) * scale - c;
            if r > 0.0 {
                code[j / 8] |= 1 << (j % 8);
            }
            abs += r.abs();
        }
        self.ids.push(id);
        self.scales.push(abs / row.len().max(1) as f32);
        self.signs.extend_from_slice(&code);
    }

    /// Member `i`'s estimated cosine with the unit vector `query`, given the centroid's
    /// (`base`): base + scale × Σ ±query (the question stays full precision, so only the
    /// member's residual is approximated).
    pub fn score(&self, i: usize, query: &[f32], base: f32) -> Option<f32> {
        let bytes = code_bytes(query.len());
        let start = i.checked_mul(bytes)?;
        let code = self.signs.get(start..start.checked_add(bytes)?)?;
        let sum: f32 = query
            .iter()
            .enumerate()
            .map(|(j, &q)| {
                if code[j / 8] >> (j % 8) & 1 == 1 {
                    q
                } else {
                    -q
                }
            })
            .sum();
        Some(base + sum * *self.scales.get(i)?)
    }

    /// Every member scored against `query`, given the centroid's score `base` (members without
    /// a whole code are left out).
    pub fn hits<'a>(&'a self, query: &'a [f32], base: f32) -> impl Iterator<Item = Hit> + 'a {
        self.ids
            .iter()
            .enumerate()
            .filter_map(move |(i, &fragment)| {
                Some(Hit {
                    fragment,
                    score: self.score(i, query, base)?,
                })
            })
    }
}

/// IVF over sign codes: probe the `probes` nearest lists of `centroids` (list `i` is
/// `lists[i]`), score their members by code and return the best `k` — what a sharded index's
/// vector search returns.
pub fn ivf_code_search(
    centroids: Rows<'_>,
    lists: &[CodeList],
    query: &[f32],
    probes: usize,
    k: usize,
) -> Vec<Hit> {
    let hits = nearest_lists(centroids, query, probes)
        .into_iter()
        .filter_map(|l| Some((lists.get(l as usize)?, centroids.score(l as usize, query)?)))
        .flat_map(|(list, base)| list.hits(query, base))
        .collect();
    best_k(hits, k)
}

/// 64-bit words per binary code of `dims` dimensions.
pub fn code_words(dims: usize) -> usize {
    dims.div_ceil(64)
}

/// The sign bits of `values` (bit `j` set when value `j` is positive), packed into
/// [`code_words`] words.
pub fn sign_code<T: Copy + Into<f32>>(values: &[T]) -> Vec<u64> {
    let mut code = vec![0u64; code_words(values.len())];
    for (j, &v) in values.iter().enumerate() {
        if v.into() > 0.0 {
            code[j / 64] |= 1 << (j % 64);
        }
    }
    code
}

/// Every row's sign code, concatenated ([`code_words`] words a row).
pub fn sign_codes(rows: Rows<'_>) -> Vec<u64> {
    (0..rows.len())
        .filter_map(|i| rows.row(i))
        .flat_map(|(row, _)| sign_code(row))
        .collect()
}

/// The `m` rows whose codes are nearest `query`'s sign code in Hamming distance, ties by row
/// order: the candidates to rescore.
pub fn hamming_candidates(codes: &[u64], dims: usize, query: &[f32], m: usize) -> Vec<u32> {
    let words = code_words(dims);
    if words == 0 || query.len() != dims {
        return Vec::new();
    }
    let q = sign_code(query);
    let scored: Vec<Hit> = codes
        .chunks_exact(words)
        .enumerate()
        .map(|(i, code)| {
            let distance: u32 = code.iter().zip(&q).map(|(a, b)| (a ^ b).count_ones()).sum();
            Hit {
                fragment: i as u32,
                // Fewer differing bits rank higher.
                score: -(distance as f32),
            }
        })
        .collect();
    best_k(scored, m).into_iter().map(|h| h.fragment).collect()
}

/// Scores the `candidates` rows of `rows` exactly and returns the best `k`.
pub fn rescore(rows: Rows<'_>, candidates: &[u32], query: &[f32], k: usize) -> Vec<Hit> {
    let hits = candidates
        .iter()
        .filter_map(|&fragment| {
            Some(Hit {
                fragment,
                score: rows.score(fragment as usize, query)?,
            })
        })
        .collect();
    best_k(hits, k)
}

/// Brute force over `rows`: what the approximate searches are measured against.
pub fn exact_search(rows: Rows<'_>, query: &[f32], k: usize) -> Vec<Hit> {
    let all: Vec<u32> = (0..rows.len() as u32).collect();
    rescore(rows, &all, query, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A deterministic pseudo-random unit-ish vector.
    fn vector(seed: u64, dims: usize) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..dims)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    fn unit(mut v: Vec<f32>) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    }

    fn vectors(n: usize, dims: usize) -> VectorIndex {
        let mut vi = VectorIndex::new(0, dims as u32);
        for i in 0..n {
            vi.push(&vector(i as u64 + 1, dims));
        }
        vi
    }

    /// Splits `vi` into lists by `assign` and gathers each list's rows.
    fn lists(vi: &VectorIndex, n_lists: usize, assign: impl Fn(usize) -> usize) -> Vec<IvfList> {
        let dims = vi.dims as usize;
        let mut lists = vec![IvfList::default(); n_lists];
        for i in 0..vi.scales.len() {
            let l = &mut lists[assign(i)];
            l.ids.push(i as u32);
            l.scales.push(vi.scales[i]);
            l.data.extend_from_slice(&vi.data[i * dims..(i + 1) * dims]);
        }
        lists
    }

    /// Brute force written out as `vector::search_vectors` computes it: every row scored,
    /// sorted by score, ties by fragment id.
    fn brute(vi: &VectorIndex, query: &[f32], k: usize) -> Vec<Hit> {
        let dims = vi.dims as usize;
        let mut hits: Vec<Hit> = vi
            .data
            .chunks_exact(dims)
            .zip(&vi.scales)
            .enumerate()
            .map(|(i, (row, scale))| Hit {
                fragment: i as u32,
                score: row
                    .iter()
                    .zip(query)
                    .map(|(&v, q)| f32::from(v) * q)
                    .sum::<f32>()
                    * scale,
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.fragment.cmp(&b.fragment))
        });
        hits.truncate(k);
        hits
    }

    #[test]
    fn ivf_with_every_list_probed_is_brute_force() {
        let vi = vectors(300, 24);
        let centroids = vectors(7, 24);
        // Members go anywhere: with every list probed the assignment cannot matter.
        let lists = lists(&vi, 7, |i| (i * 5) % 7);
        for q in 0..20 {
            let query = unit(vector(1000 + q, 24));
            let approx = ivf_search(centroids.rows(), &lists, &query, 7, 50);
            assert_eq!(approx, brute(&vi, &query, 50), "query {q}");
        }
    }

    #[test]
    fn ivf_probes_the_nearest_lists_only() {
        // Two lists around opposite centroids: a query nearer the first finds only its members,
        // though a member of the second (put there by hand) is nearer still.
        let mut centroids = VectorIndex::new(0, 2);
        centroids.push(&[1.0, 0.0]);
        centroids.push(&[-1.0, 0.0]);
        let mut vi = VectorIndex::new(0, 2);
        for v in [[1.0, 0.0], [1.0, -0.5], [-1.0, 0.0], [-0.1, 1.0]] {
            vi.push(&v);
        }
        let lists = lists(&vi, 2, |i| i / 2);
        let query = unit(vec![0.5, 1.0]);
        assert_eq!(nearest_lists(centroids.rows(), &query, 1), vec![0]);
        let hits = ivf_search(centroids.rows(), &lists, &query, 1, 10);
        let ids: Vec<u32> = hits.iter().map(|h| h.fragment).collect();
        assert_eq!(ids, vec![0, 1]);
        // Brute force ranks a member of the unprobed list first: IVF is approximate.
        assert_eq!(brute(&vi, &query, 1)[0].fragment, 3);
    }

    #[test]
    fn binary_with_every_candidate_rescored_is_brute_force() {
        let vi = vectors(300, 70);
        let codes = sign_codes(vi.rows());
        assert_eq!(codes.len(), 300 * 2);
        for q in 0..20 {
            let query = unit(vector(2000 + q, 70));
            let candidates = hamming_candidates(&codes, 70, &query, 300);
            assert_eq!(candidates.len(), 300);
            let approx = rescore(vi.rows(), &candidates, &query, 50);
            assert_eq!(approx, brute(&vi, &query, 50), "query {q}");
        }
    }

    #[test]
    fn hamming_ranks_by_differing_signs() {
        let mut vi = VectorIndex::new(0, 3);
        for v in [[-1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [1.0, 1.0, 1.0]] {
            vi.push(&v);
        }
        let codes = sign_codes(vi.rows());
        assert_eq!(codes, vec![0b000, 0b011, 0b111]);
        let query = unit(vec![0.5, 0.5, 0.5]);
        assert_eq!(hamming_candidates(&codes, 3, &query, 3), vec![2, 1, 0]);
        assert_eq!(hamming_candidates(&codes, 3, &query, 1), vec![2]);
    }

    #[test]
    fn a_code_is_the_residuals_signs_and_scores_them_against_the_query() {
        let mut list = CodeList::default();
        // Nine dimensions: two bytes, the second with one bit. The centroid is 0.5 in the first
        // dimension: the residual there is 1.0 − 0.5, the rest as the row.
        let mut centroid = vec![0i8; 9];
        centroid[0] = 50;
        list.push(
            7,
            (&[100, -50, 0, 25, -1, 1, 0, 0, 2], 0.01),
            (&centroid, 0.01),
        );
        assert_eq!(list.signs, vec![0b0010_1001, 0b1]);
        // The mean absolute residual: (0.5 + 0.5 + 0.25 + 0.01 + 0.01 + 0.02) / 9.
        assert!(
            (list.scales[0] - 1.29 / 9.0).abs() < 1e-6,
            "{}",
            list.scales[0]
        );
        let query = [0.5, 0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5];
        // base + scale × (+ 0.5 − 0.5 − 0.25 + 0 − 0 + 0 − 0 − 0 − 0.5 = −0.75)
        let score = list.score(0, &query, 0.3).unwrap();
        assert!(
            (score - (0.3 - 0.75 * list.scales[0])).abs() < 1e-6,
            "{score}"
        );
        let hits: Vec<Hit> = list.hits(&query, 0.3).collect();
        assert_eq!(hits, vec![Hit { fragment: 7, score }]);
        // A query of another length has no whole code to score.
        assert_eq!(list.score(0, &[0.5; 17], 0.0), None);
        assert_eq!(list.score(1, &query, 0.0), None);
    }

    #[test]
    fn codes_rank_near_brute_force() {
        let vi = vectors(300, 24);
        let centroids = vectors(7, 24);
        let members = lists(&vi, 7, |i| (i * 5) % 7);
        let codes: Vec<CodeList> = members
            .iter()
            .enumerate()
            .map(|(l, list)| {
                let mut c = CodeList::default();
                let centroid = centroids.rows().row(l).unwrap();
                for (i, &id) in list.ids.iter().enumerate() {
                    c.push(id, list.rows(24).row(i).unwrap(), centroid);
                }
                c
            })
            .collect();
        let mut found = 0;
        for q in 0..20 {
            let query = unit(vector(3000 + q, 24));
            let all = ivf_code_search(centroids.rows(), &codes, &query, 7, 50);
            assert_eq!(all.len(), 50);
            let exact: Vec<u32> = brute(&vi, &query, 10).iter().map(|h| h.fragment).collect();
            found += all.iter().filter(|h| exact.contains(&h.fragment)).count();
        }
        // Of brute force's best ten, the codes' best fifty (of 300) hold most, though these
        // centroids are random rather than trained (137 of 200 when written).
        assert!(found >= 120, "{found} of 200");
    }

    #[test]
    fn empty_and_mismatched_inputs_give_nothing() {
        let empty = Rows {
            dims: 0,
            scales: &[],
            data: &[],
        };
        assert!(empty.is_empty());
        assert!(nearest_lists(empty, &[1.0], 3).is_empty());
        assert!(ivf_search(empty, &[], &[], 3, 10).is_empty());
        assert!(hamming_candidates(&[], 0, &[], 5).is_empty());
        assert!(exact_search(empty, &[], 5).is_empty());
        let vi = vectors(5, 4);
        // A query of the wrong length, candidates out of range, k = 0, lists that do not exist.
        assert!(exact_search(vi.rows(), &[1.0, 0.0], 5).is_empty());
        assert!(rescore(vi.rows(), &[9, 100], &[0.5; 4], 5).is_empty());
        assert!(exact_search(vi.rows(), &[0.5; 4], 0).is_empty());
        assert!(ivf_search(vi.rows(), &[], &[0.5; 4], 5, 5).is_empty());
        assert!(hamming_candidates(&[1, 2, 3], 4, &[0.5; 3], 5).is_empty());
    }

    proptest! {
        #[test]
        fn arbitrary_rows_never_panic(
            dims in 0usize..9,
            scales in prop::collection::vec(-2.0f32..2.0, 0..12),
            data in prop::collection::vec(any::<i8>(), 0..80),
            ids in prop::collection::vec(any::<u32>(), 0..12),
            query in prop::collection::vec(-1.0f32..1.0, 0..9),
            k in 0usize..20,
        ) {
            let rows = Rows { dims, scales: &scales, data: &data };
            let _ = nearest_lists(rows, &query, k);
            let _ = exact_search(rows, &query, k);
            let _ = rescore(rows, &ids, &query, k);
            let list = IvfList { ids: ids.clone(), scales: scales.clone(), data: data.clone() };
            let _ = ivf_search(rows, &[list], &query, k, k);
            let codes = sign_codes(rows);
            let _ = hamming_candidates(&codes, dims, &query, k);
            let list = CodeList { ids: ids.clone(), scales: scales.clone(), signs: data.iter().map(|&v| v as u8).collect() };
            let _ = ivf_code_search(rows, &[list], &query, k, k);
        }
    }
}
