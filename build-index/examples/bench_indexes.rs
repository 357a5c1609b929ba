//! Writes the browser benchmark's indexes: `cargo run --release -p build-index --example
//! bench_indexes -- <corpus> <out dir> [query-model.onq]` → index-1k.onr, index-10k.onr,
//! index-100k.onr (and the model, copied) in <out dir>.
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [corpus, out, rest @ ..] = args.as_slice() else {
        anyhow::bail!("usage: bench_indexes <corpus> <out dir> [query-model.onq]");
    };
    let out = PathBuf::from(out);
    // Plain or gzip-compressed (as build-index writes it); written out plain.
    let model_bytes = rest
        .first()
        .map(|p| onrecord_files::read_file(std::path::Path::new(p)))
        .transpose()?;
    let model = model_bytes
        .as_deref()
        .map(onrecord_core::QueryModel::from_bytes)
        .transpose()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for (name, n) in [("1k", 1_000), ("10k", 10_000), ("100k", 100_000)] {
        let index = build_index::replicated_index(corpus.as_ref(), n, model.as_ref())?;
        let bytes = index
            .to_bytes([0; 32])
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        build_index::write_atomically(&out, &format!("index-{name}.onr"), &bytes)?;
        println!(
            "index-{name}.onr: {} fragments, {} bytes",
            index.fragments.len(),
            bytes.len()
        );
    }
    if let Some(bytes) = model_bytes {
        build_index::write_atomically(&out, "query-model.onq", &bytes)?;
    }
    Ok(())
}
