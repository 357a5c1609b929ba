//! Synthetic large indexes for benchmarks: a real corpus replicated until it has the wanted
//! number of fragments, with deterministic stand-in vectors when a query model is given.

use std::path::Path;

use anyhow::{Context, Result};
use onrecord_core::{
    Index, IndexBuilder, IndexSettings, QueryModel, SourceDoc, VectorIndex, chunk,
};
use onrecord_sources::files;

use crate::{Options, parse_page};

/// Builds an index of at least `n_fragments` fragments (then cut to exactly that many pages'
/// worth) by replicating the pages under `root`; copies get their own paths and titles.
pub fn replicated_index(
    root: &Path,
    n_fragments: usize,
    model: Option<&QueryModel>,
) -> Result<Index> {
    let listing = crate::selection::list_files(root)?;
    let options = Options::standard();
    let mut docs: Vec<SourceDoc> = Vec::new();
    for rel in listing.files.iter().filter(|f| f.ends_with(".md")) {
        let path = root.join(rel);
        let bytes = files::read_within(&path, &listing.fence, files::MAX_FILE_BYTES)
            .with_context(|| format!("{rel}: cannot read file"))?
            .1;
        docs.push(parse_page(root, rel, &bytes, &options)?.doc);
    }
    let mut builder = IndexBuilder::new(options.default_lang, IndexSettings::STANDARD);
    let mut total = 0;
    'copies: for copy in 0.. {
        for doc in &docs {
            let mut doc = doc.clone();
            if copy > 0 {
                doc.path = format!("copy{copy}/{}", doc.path);
                doc.url = format!("/copy{copy}{}", doc.url);
                doc.title = format!("{} ({copy})", doc.title);
            }
            let drafts = chunk(&doc, options.fragment_chars);
            total += drafts.len();
            builder.add(&doc, &drafts);
            if total >= n_fragments {
                break 'copies;
            }
        }
        if docs.is_empty() {
            break;
        }
    }
    let mut index = builder.finish();
    if let Some(model) = model {
        let mut vectors = VectorIndex::new(model.checksum(), model.dims() as u32);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut v = vec![0f32; model.dims()];
        for _ in &index.fragments {
            for x in &mut v {
                // xorshift: cheap, deterministic stand-in values; latency does not depend on them.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *x = (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            }
            vectors.push(&v);
        }
        index.vectors = Some(vectors);
    }
    Ok(index)
}

/// Questions about the rustc-dev-guide, for latency measurements.
pub const BENCH_QUESTIONS: &[&str] = &[
    "How do I run the test suite?",
    "What is the query system?",
    "How does incremental compilation work?",
    "Where is the borrow checker implemented?",
    "How do I build the compiler from source?",
    "What is MIR?",
    "How are diagnostics emitted?",
    "What does the trait solver do?",
    "How do I add a new feature gate?",
    "How does name resolution work?",
    "What is the HIR?",
    "How do I debug the compiler?",
    "What is a lang item?",
    "How does monomorphization work?",
    "How are lints implemented?",
    "What is x.py?",
    "How do I profile the compiler?",
    "How does type inference work?",
    "What are opaque types?",
    "How do I write a UI test?",
];
