//! The demo corpus as a sharded index: every question of its frozen set answers exactly as the
//! whole index does while fetching only some shards, and the build writes one file for a small
//! site and a manifest with shards when told to.

use std::path::{Path, PathBuf};

use build_index::{Build, Layout, Options, build, write_layout};
use onrecord_core::{AnswerConfig, Index, ShardSizes, ShardedFiles, ShardedIndex, ask};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn demo() -> Build {
    build(&root().join("corpus"), &Options::standard()).expect("demo corpus builds")
}

fn questions() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("eval/questions/corpus.json")).unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    rows.iter()
        .map(|r| r["question"].as_str().unwrap().to_owned())
        .collect()
}

/// Small shards, so the demo (about 50 KB without vectors) makes a dozen or more of each kind.
const SMALL: ShardSizes = ShardSizes {
    postings: 1024,
    text: 2048,
    threshold: 0,
};

/// Answers through the sharded path, fetching from `files`; returns the answer and how many
/// shards it fetched.
fn ask_sharded(files: &ShardedFiles, question: &str) -> (onrecord_core::Answer, usize) {
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let mut fetched = 0;
    let answer = sharded
        .complete(
            |index| ask(index, None, question, &AnswerConfig::DEFAULT),
            |name| {
                fetched += 1;
                files
                    .shards
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, b)| b.clone())
            },
        )
        .unwrap();
    (answer, fetched)
}

#[test]
fn every_demo_question_answers_as_the_whole_index() {
    let built = demo();
    let index = Index::from_bytes(&built.bytes).unwrap();
    let files = index.to_shards(index.corpus_hash, SMALL).unwrap();
    let n_postings = files
        .shards
        .iter()
        .filter(|(n, _)| n.starts_with("p-"))
        .count();
    let n_texts = files.shards.len() - n_postings;
    assert!(
        n_postings >= 12 && n_texts >= 12,
        "{n_postings} + {n_texts}"
    );
    let questions = questions();
    assert!(questions.len() >= 50);
    let mut fetched = Vec::new();
    for question in &questions {
        let (answer, n) = ask_sharded(&files, question);
        assert_eq!(
            answer,
            ask(&index, None, question, &AnswerConfig::DEFAULT),
            "{question}"
        );
        fetched.push(n);
    }
    fetched.sort_unstable();
    eprintln!(
        "{} questions, {} + {} shards of {} bytes: fetched per question median {}, max {}",
        questions.len(),
        n_postings,
        n_texts,
        built.bytes.len(),
        fetched[fetched.len() / 2],
        fetched[fetched.len() - 1]
    );
    let median = fetched[fetched.len() / 2];
    let most = fetched[fetched.len() - 1];
    // On demand: a question fetches a part of the index, not all of it.
    assert!(
        most < files.shards.len(),
        "a question fetched every shard ({most} of {})",
        files.shards.len()
    );
    assert!(
        median * 2 <= files.shards.len(),
        "median {median} of {} shards",
        files.shards.len()
    );
}

#[test]
fn a_small_site_stays_one_file_and_a_sharded_one_reads_back_from_disk() {
    let built = demo();
    let dir = tempfile::tempdir().unwrap();
    let auto = dir.path().join("auto");
    let written = write_layout(&auto, &built, Layout::Auto, ShardSizes::STANDARD).unwrap();
    assert_eq!(written, vec![auto.join("index.onr")]);
    assert_eq!(std::fs::read(&written[0]).unwrap(), built.bytes);

    let big = ShardSizes {
        threshold: built.bytes.len() - 1,
        ..SMALL
    };
    let sharded_dir = dir.path().join("sharded");
    let written = write_layout(&sharded_dir, &built, Layout::Auto, big).unwrap();
    assert_eq!(written[0], sharded_dir.join("manifest.onr"));
    assert!(written.len() > 2);
    assert!(!sharded_dir.join("index.onr").exists());
    assert_eq!(
        write_layout(&dir.path().join("forced"), &built, Layout::Sharded, SMALL)
            .unwrap()
            .len(),
        written.len()
    );
    assert_eq!(
        write_layout(&dir.path().join("single"), &built, Layout::Single, big).unwrap(),
        vec![dir.path().join("single/index.onr")]
    );

    // Read back from the files on disk, fetching by name.
    let question = "How many days do I have to return a bike?";
    // Written gzip-compressed (RFC 1952), each file alone.
    for path in &written {
        let raw = std::fs::read(path).unwrap();
        assert_eq!(raw[..2], onrecord_files::GZIP_MAGIC, "{}", path.display());
    }
    let mut sharded =
        ShardedIndex::from_manifest(&onrecord_files::read_file(&written[0]).unwrap()).unwrap();
    let answer = sharded
        .complete(
            |index| ask(index, None, question, &AnswerConfig::DEFAULT),
            |name| onrecord_files::read_file(&sharded_dir.join(name)).ok(),
        )
        .unwrap();
    assert_eq!(
        answer,
        ask(&built.index, None, question, &AnswerConfig::DEFAULT)
    );
    assert!(answer.quotes[0].text.contains("30 days"), "{answer:?}");
}
