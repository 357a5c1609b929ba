//! Build-time embedding (issue 11): the fast encoder agrees with the previous implementation
//! (candle's BertModel), and the on-disk cache never changes an index: a warm build, an
//! incremental build and a build over a damaged cache write the same bytes as a cold build.
//!
//! Needs the teacher that `scripts/setup.sh` fetches into `target/models/`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use build_index::{
    Build, EmbedOptions, Embedder, ModelFiles, Options, build_with, embedding_texts,
};
#[cfg(feature = "experiments")]
use build_index::{CandleBert, MAX_TOKENS, Teacher};

fn files() -> ModelFiles {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let teacher = crate_dir.join("../target/models/all-minilm-l6-v2");
    assert!(
        teacher.join("model.safetensors").is_file(),
        "{} is missing: run scripts/setup.sh",
        teacher.display()
    );
    ModelFiles {
        teacher,
        model_dir: crate_dir.join("model"),
    }
}

fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "onrecord-embed-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A small corpus: three pages, one fragment each, plus a page of two sections.
fn corpus(root: &Path) {
    write(
        root,
        "ferry.md",
        "# Ferry times\n\nThe first ferry leaves the harbour at 06:40 on weekdays.\n",
    );
    write(
        root,
        "bikes.md",
        "# Bikes on board\n\nBicycles travel free; cargo bikes need a vehicle ticket.\n",
    );
    write(
        root,
        "pets.md",
        "# Pets\n\nDogs on a lead are welcome on the open deck.\n",
    );
    write(
        root,
        "tickets.md",
        "# Tickets\n\n## Refunds\n\nUnused tickets are refunded within 30 days.\n\n## Groups\n\nGroups of ten or more book by phone.\n",
    );
}

fn embedder(cache: Option<&Path>) -> Embedder {
    let options = EmbedOptions {
        cache_dir: cache.map(Path::to_owned),
        threads: 2,
    };
    Embedder::load_with(&files(), &options).unwrap()
}

fn build(root: &Path, embedder: &Embedder) -> Build {
    build_with(root, &Options::standard(), Some(embedder)).unwrap()
}

/// The candle reference is an experiment (`--features experiments`).
#[cfg(feature = "experiments")]
#[test]
fn the_encoder_agrees_with_candles_bert() {
    let files = files();
    let texts = [
        "hello world".to_owned(),
        "Bicycles travel free; cargo bikes need a vehicle ticket.".to_owned(),
        // Longer than the teacher's 256 tokens: both truncate the same way.
        "Lifetimes, traits and generics: a long fragment about Rust. ".repeat(40),
        "Ünïcödé, 中文, emoji 🚲 and punctuation: (a) [b] {c}!".to_owned(),
    ];
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let old = CandleBert::load(&files.teacher, MAX_TOKENS)
        .unwrap()
        .embed(&refs)
        .unwrap();
    let new = Teacher::load(&files.teacher, 2)
        .unwrap()
        .embed(&refs)
        .unwrap();
    for ((a, b), text) in old.iter().zip(&new).zip(&refs) {
        let cosine: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cosine >= 0.999, "cosine {cosine} for {text:?}");
    }
}

#[test]
fn cached_vectors_give_the_same_index_bytes() {
    let dir = scratch();
    let root = dir.join("corpus");
    corpus(&root);
    let cache = dir.join("cache");
    let uncached = build(&root, &embedder(None));
    let cold = build(&root, &embedder(Some(&cache)));
    let cold_stats = cold.report.embedding.as_ref().unwrap();
    assert_eq!(
        (cold_stats.cache_hits, cold_stats.embedded),
        (0, cold.index.fragments.len())
    );
    assert_eq!(cold.bytes, uncached.bytes);
    // A new process: every vector comes from the disk.
    let warm = build(&root, &embedder(Some(&cache)));
    let warm_stats = warm.report.embedding.as_ref().unwrap();
    assert_eq!(
        (warm_stats.cache_hits, warm_stats.embedded),
        (warm.index.fragments.len(), 0)
    );
    assert!(
        warm.report.warnings.is_empty(),
        "{:?}",
        warm.report.warnings
    );
    assert_eq!(warm.bytes, cold.bytes);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_incremental_build_embeds_only_changed_fragments() {
    let dir = scratch();
    let root = dir.join("corpus");
    corpus(&root);
    let cache = dir.join("cache");
    build(&root, &embedder(Some(&cache)));
    write(
        &root,
        "pets.md",
        "# Pets\n\nDogs on a lead are welcome on the open deck; cats travel in a basket.\n",
    );
    let incremental = build(&root, &embedder(Some(&cache)));
    let stats = incremental.report.embedding.as_ref().unwrap();
    assert_eq!(stats.embedded, 1, "only the changed page is embedded");
    assert_eq!(stats.cache_hits, incremental.index.fragments.len() - 1);
    // Vectors do not depend on what else was embedded with them.
    assert_eq!(incremental.bytes, build(&root, &embedder(None)).bytes);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_cache_is_named_and_bypassed() {
    let dir = scratch();
    let root = dir.join("corpus");
    corpus(&root);
    let cache = dir.join("cache");
    let cold = build(&root, &embedder(Some(&cache)));
    let model_dir = cold
        .report
        .embedding
        .as_ref()
        .unwrap()
        .cache_dir
        .clone()
        .unwrap();
    let segment = fs::read_dir(&model_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "seg"))
        .unwrap();
    let mut bytes = fs::read(&segment).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    fs::write(&segment, &bytes).unwrap();
    let rebuilt = build(&root, &embedder(Some(&cache)));
    let warning = rebuilt.report.warnings.join("\n");
    assert!(
        warning.contains(&segment.display().to_string()) && warning.contains("checksum"),
        "{warning}"
    );
    assert_eq!(rebuilt.report.embedding.as_ref().unwrap().cache_hits, 0);
    assert_eq!(rebuilt.bytes, cold.bytes);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fragment_texts_carry_title_and_headings() {
    let dir = scratch();
    let root = dir.join("corpus");
    corpus(&root);
    let built = build_index::build(&root, &Options::standard()).unwrap();
    let texts = embedding_texts(&built.index);
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Tickets. Refunds. Unused tickets")),
        "{texts:?}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_teacher_embeds_both_sides_in_its_own_space() {
    let dir = scratch();
    let root = dir.join("corpus");
    corpus(&root);
    let options = EmbedOptions {
        cache_dir: None,
        threads: 2,
    };
    let full = Embedder::full_teacher(&files().teacher, &options).unwrap();
    assert!(full.query_model_bytes.is_empty() && full.dims == 384);
    let built = build_with(&root, &Options::standard(), Some(&full)).unwrap();
    let vectors = built.index.vectors.as_ref().unwrap();
    assert_eq!(vectors.dims, 384);
    let question = full
        .embed(&["When does the first ferry leave the harbour?".to_owned()])
        .unwrap();
    let hits = onrecord_core::search_vectors(&built.index, &question[0], 3);
    let top = &built.index.fragments[hits[0].fragment as usize];
    assert!(top.text.contains("first ferry"), "{}", top.text);
    fs::remove_dir_all(&dir).unwrap();
}
