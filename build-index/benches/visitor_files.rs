//! Indexing 2 MB visitor files of each pathological shape (issue 14), against 2 MB of ordinary
//! notes measured in the same run: `cargo bench -p build-index --bench visitor_files`.
//! The medians are in the README's security section.

#[allow(dead_code, unreachable_pub)]
#[path = "../../crates/onrecord-core/tests/support/shapes.rs"]
mod shapes;

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use onrecord_core::{Lang, PlainFile, index_documents};

fn visitor_files(c: &mut Criterion) {
    let mut group = c.benchmark_group("visitor file, 2 MB");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, text) in shapes::shapes() {
        let files = [PlainFile {
            name: "notes.md".into(),
            text,
        }];
        group.bench_function(name, |b| {
            b.iter(|| index_documents(std::hint::black_box(&files), Lang::English))
        });
    }
    group.finish();
}

criterion_group!(benches, visitor_files);
criterion_main!(benches);
