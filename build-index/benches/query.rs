//! Query latency at ~1k, 10k and 100k fragments (the rustc-dev-guide replicated), natively.
//! `cargo bench -p build-index --bench query`; the browser numbers come from www/bench.html.

use std::path::Path;

use build_index::{BENCH_QUESTIONS, replicated_index};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use onrecord_core::{AnswerConfig, Method, QueryModel, ask, retrieve_with};

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/rustc-dev-guide");
    let model_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/query-model.onq");
    let model = onrecord_files::read_file(&model_path)
        .ok()
        .and_then(|b| QueryModel::from_bytes(&b).ok());
    let mut group = c.benchmark_group("query");
    for n in [1_000, 10_000, 100_000] {
        let index = replicated_index(&root, n, model.as_ref()).expect("rustc-dev-guide builds");
        let mut i = 0;
        group.bench_with_input(BenchmarkId::new("bm25", n), &index, |b, index| {
            b.iter(|| {
                i = (i + 1) % BENCH_QUESTIONS.len();
                retrieve_with(index, None, BENCH_QUESTIONS[i], 10, Method::Bm25)
            })
        });
        if let Some(model) = &model {
            group.bench_with_input(BenchmarkId::new("hybrid", n), &index, |b, index| {
                b.iter(|| {
                    i = (i + 1) % BENCH_QUESTIONS.len();
                    retrieve_with(index, Some(model), BENCH_QUESTIONS[i], 10, Method::Hybrid)
                })
            });
        }
        group.bench_with_input(BenchmarkId::new("ask", n), &index, |b, index| {
            b.iter(|| {
                i = (i + 1) % BENCH_QUESTIONS.len();
                ask(
                    index,
                    model.as_ref(),
                    BENCH_QUESTIONS[i],
                    &AnswerConfig::DEFAULT,
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
