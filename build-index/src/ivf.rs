//! IVF training: spherical k-means over the fragment vectors, so a question can fetch the few
//! lists nearest to it instead of every vector (the search side is `onrecord_core::ann`).
//!
//! Deterministic: the same vectors, list count and seed give the same centroids and lists
//! (one fixed pseudo-random sequence for the sample and the k-means++ seeding, no threads,
//! ties to the lower list).

use onrecord_core::VectorIndex;
use onrecord_core::ann::{IvfList, Rows};

use crate::random::SplitMix;

/// Rounds of k-means; the assignment changes little after a handful on sentence embeddings.
const ROUNDS: usize = 10;
/// Training looks at most this many vectors per list (a sample drawn with the seed), as FAISS
/// does: enough to place the centroids, and it keeps training linear in the list count.
const SAMPLE_PER_LIST: usize = 64;

/// Centroids (int8 rows, as the index stores vectors) and each list's members.
#[derive(Debug, Clone, PartialEq)]
pub struct Ivf {
    /// One unit-length centroid per list.
    pub centroids: VectorIndex,
    /// List `i` holds the fragments nearest centroid `i`, in fragment order, with their rows.
    pub lists: Vec<IvfList>,
}

impl Ivf {
    /// The centroids as rows for `onrecord_core::ann`.
    pub fn centroid_rows(&self) -> Rows<'_> {
        Rows {
            dims: self.centroids.dims as usize,
            scales: &self.centroids.scales,
            data: &self.centroids.data,
        }
    }
}

/// The list count for `n` fragments: about √n, so the centroids and one list weigh the same.
pub fn list_count(n: usize) -> usize {
    ((n as f64).sqrt().round() as usize).clamp(usize::from(n > 0), n)
}

/// Groups `vectors` into `n_lists` lists (fewer when there are fewer vectors) by spherical
/// k-means seeded with `seed`.
pub fn train(vectors: &VectorIndex, n_lists: usize, seed: u64) -> Ivf {
    let dims = vectors.dims as usize;
    let rows = Rows {
        dims,
        scales: &vectors.scales,
        data: &vectors.data,
    };
    let n = rows.len();
    let k = n_lists.min(n);
    let mut ivf = Ivf {
        centroids: VectorIndex::new(vectors.model_checksum, vectors.dims),
        lists: Vec::new(),
    };
    if k == 0 {
        return ivf;
    }
    let point = |i: usize| -> Vec<f32> {
        rows.row(i).map_or_else(
            || vec![0.0; dims],
            |(row, scale)| row.iter().map(|&v| f32::from(v) * scale).collect(),
        )
    };
    let mut random = SplitMix(seed);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, random.below(i + 1));
    }
    order.truncate(SAMPLE_PER_LIST.saturating_mul(k).max(k));
    let sample: Vec<Vec<f32>> = order.iter().map(|&i| point(i)).collect();
    let mut centroids = seeds(&sample, k, &mut random);
    for _ in 0..ROUNDS {
        let mut sums = vec![vec![0f32; dims]; k];
        let mut counts = vec![0usize; k];
        for p in &sample {
            let c = nearest(&centroids, p);
            counts[c] += 1;
            sums[c].iter_mut().zip(p).for_each(|(s, x)| *s += x);
        }
        for ((centroid, mut sum), count) in centroids.iter_mut().zip(sums).zip(counts) {
            // An empty list keeps its centroid; a zero sum (opposite members) does too.
            if count > 0 && unit(&mut sum).is_some() {
                *centroid = sum;
            }
        }
    }
    for c in &centroids {
        ivf.centroids.push(c);
    }
    ivf.lists = vec![IvfList::default(); k];
    for i in 0..n {
        let c = nearest(&centroids, &point(i));
        let (Some(list), Some((row, scale))) = (ivf.lists.get_mut(c), rows.row(i)) else {
            continue;
        };
        list.ids.push(i as u32);
        list.scales.push(scale);
        list.data.extend_from_slice(row);
    }
    ivf
}

/// The centroid with the highest dot product with `p` (centroids are unit length after the
/// first round; the first round's are sample points of near-unit length), ties to the lower.
fn nearest(centroids: &[Vec<f32>], p: &[f32]) -> usize {
    let mut best = (0, f32::NEG_INFINITY);
    for (c, centroid) in centroids.iter().enumerate() {
        let d: f32 = centroid.iter().zip(p).map(|(a, b)| a * b).sum();
        if d > best.1 {
            best = (c, d);
        }
    }
    best.0
}

/// Scales `v` to unit length in place; `None` when it is all zeros.
fn unit(v: &mut [f32]) -> Option<()> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| v.iter_mut().for_each(|x| *x /= norm))
}

/// k-means++ seeding: each next centroid is a sample point drawn with probability
/// proportional to its squared distance from the nearest one chosen, so separated clusters
/// each get one (random starts often put two in one cluster and none in another).
fn seeds(sample: &[Vec<f32>], k: usize, random: &mut SplitMix) -> Vec<Vec<f32>> {
    let Some(first) = sample.first() else {
        return Vec::new();
    };
    let distance = |a: &[f32], b: &[f32]| -> f64 {
        a.iter().zip(b).map(|(x, y)| f64::from(x - y).powi(2)).sum()
    };
    let mut centroids = vec![first.clone()];
    let mut nearest_d: Vec<f64> = sample.iter().map(|p| distance(first, p)).collect();
    // Greedy k-means++ (as scikit-learn does): of a few drawn candidates, keep the one that
    // leaves the points closest to their centroids.
    let tries = 2 + (k as f64).ln().floor() as usize;
    while centroids.len() < k {
        let total: f64 = nearest_d.iter().sum();
        if total <= 0.0 {
            // Every point is already a centroid's copy: take the next one in sample order.
            let Some(next) = sample.get(centroids.len()) else {
                break;
            };
            centroids.push(next.clone());
            continue;
        }
        let mut best: Option<(f64, Vec<f64>, usize)> = None;
        for _ in 0..tries {
            let mut left = random.unit() * total;
            let pick = nearest_d
                .iter()
                .position(|&d| {
                    left -= d;
                    left < 0.0
                })
                .unwrap_or(sample.len() - 1);
            let d: Vec<f64> = nearest_d
                .iter()
                .zip(sample)
                .map(|(&d, p)| d.min(distance(&sample[pick], p)))
                .collect();
            let potential: f64 = d.iter().sum();
            if best.as_ref().is_none_or(|b| potential < b.0) {
                best = Some((potential, d, pick));
            }
        }
        let Some((_, d, pick)) = best else {
            break;
        };
        nearest_d = d;
        centroids.push(sample[pick].clone());
    }
    centroids
}

#[cfg(test)]
mod tests {
    use super::*;
    use onrecord_core::ann::{exact_search, ivf_search};

    /// `n` vectors around `clusters` well-separated directions.
    fn clustered(n: usize, clusters: usize, dims: usize) -> VectorIndex {
        let mut vi = VectorIndex::new(7, dims as u32);
        let mut s = 12345u64;
        for i in 0..n {
            let mut v = vec![0f32; dims];
            v[(i % clusters) % dims] = 1.0;
            for x in &mut v {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *x += ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2;
            }
            vi.push(&v);
        }
        vi
    }

    #[test]
    fn training_is_deterministic_and_covers_every_vector_once() {
        let vi = clustered(500, 6, 16);
        let a = train(&vi, 6, 42);
        assert_eq!(a, train(&vi, 6, 42));
        assert_eq!(a.lists.len(), 6);
        let mut ids: Vec<u32> = a.lists.iter().flat_map(|l| l.ids.clone()).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..500).collect::<Vec<u32>>());
        // Separated clusters are found whatever the seed: each list is one cluster.
        for seed in 0..8 {
            for list in &train(&vi, 6, seed).lists {
                let cluster = list.ids[0] % 6;
                assert!(list.ids.iter().all(|i| i % 6 == cluster), "seed {seed}");
            }
        }
    }

    #[test]
    fn one_probe_finds_a_clustered_neighbourhood() {
        let vi = clustered(600, 6, 16);
        let ivf = train(&vi, 6, 1);
        let rows = Rows {
            dims: 16,
            scales: &vi.scales,
            data: &vi.data,
        };
        let mut query = vec![0f32; 16];
        query[2] = 1.0;
        let approx = ivf_search(ivf.centroid_rows(), &ivf.lists, &query, 1, 20);
        assert_eq!(approx, exact_search(rows, &query, 20));
    }

    #[test]
    fn degenerate_inputs_never_panic() {
        assert_eq!(list_count(0), 0);
        assert_eq!(list_count(1), 1);
        assert_eq!(list_count(5000), 71);
        let empty = VectorIndex::new(0, 8);
        assert!(train(&empty, 10, 1).lists.is_empty());
        let few = clustered(3, 3, 8);
        assert_eq!(train(&few, 10, 1).lists.len(), 3);
        assert!(train(&few, 0, 1).lists.is_empty());
        // All-zero vectors (an empty fragment's) and more lists than distinct points.
        let mut zeros = VectorIndex::new(0, 4);
        for _ in 0..20 {
            zeros.push(&[0.0; 4]);
        }
        let ivf = train(&zeros, 5, 3);
        assert_eq!(ivf.lists.iter().map(|l| l.ids.len()).sum::<usize>(), 20);
        // Rows that do not match their dimensions are skipped, not read past.
        let broken = VectorIndex {
            model_checksum: 0,
            dims: 4,
            scales: vec![1.0; 5],
            data: vec![1; 9],
        };
        assert_eq!(
            train(&broken, 2, 1)
                .lists
                .iter()
                .map(|l| l.ids.len())
                .sum::<usize>(),
            2
        );
    }
}
