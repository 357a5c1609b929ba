//! One question's vector search at 100k fragments, natively: brute force (the shipped
//! `search_vectors`) against IVF (`onrecord_core::ann`, lists trained by `build_index::ivf`).
//! `cargo bench -p build-index --bench ann`.
//!
//! The vectors are `replicated_index`'s deterministic stand-ins (latency depends on sizes, not
//! values); recall is measured on real vectors by `cargo run --release -p eval --example ann`.

use std::path::Path;

use build_index::ivf::{list_count, train};
use build_index::{BENCH_QUESTIONS, replicated_index};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use onrecord_core::ann::{nearest_lists, search_lists};
use onrecord_core::{QueryModel, search_vectors};

/// What fusion takes from the vector list.
const K: usize = 50;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/rustc-dev-guide");
    let model_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/query-model.onq");
    let model =
        QueryModel::from_bytes(&onrecord_files::read_file(&model_path).expect("query model"))
            .expect("query model reads");
    let n = 100_000;
    let index = replicated_index(&root, n, Some(&model)).expect("rustc-dev-guide builds");
    let vectors = index.vectors.clone().expect("vectors");
    let dims = vectors.dims as usize;
    let ivf = train(&vectors, list_count(vectors.scales.len()), 11);
    let queries: Vec<Vec<f32>> = BENCH_QUESTIONS
        .iter()
        .filter_map(|q| model.embed(q))
        .collect();
    let mut group = c.benchmark_group("ann");
    let mut i = 0;
    let mut next = || {
        i = (i + 1) % queries.len();
        &queries[i]
    };
    group.bench_function(BenchmarkId::new("brute", n), |b| {
        b.iter(|| search_vectors(&index, next(), K))
    });
    for probes in [4, 8, 16] {
        group.bench_function(BenchmarkId::new(format!("ivf-{probes}"), n), |b| {
            b.iter(|| {
                let q = next();
                let probed: Vec<_> = nearest_lists(ivf.centroid_rows(), q, probes)
                    .into_iter()
                    .filter_map(|l| ivf.lists.get(l as usize))
                    .collect();
                search_lists(&probed, dims, q, K)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
