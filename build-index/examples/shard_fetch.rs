//! What a question fetches from a sharded index, per corpus (lexical build, standard shard
//! sizes, each question from a cold start), and whether every answer equals the whole index's:
//! `cargo run --release -p build-index --example shard_fetch -- [--postings BYTES] [--text BYTES]
//! CORPUS QUESTIONS.json ...` (pairs of a corpus folder and its question file, e.g. from
//! eval/corpora.json; the shard sizes default to `ShardSizes::STANDARD`).
use onrecord_core::{AnswerConfig, Index, ShardSizes, ShardedIndex, ask};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut sizes = ShardSizes {
        threshold: 0,
        ..ShardSizes::STANDARD
    };
    while let Some(flag) = args.first().filter(|a| a.starts_with("--")).cloned() {
        let value: usize = args
            .get(1)
            .and_then(|v| v.parse().ok())
            .expect("a size in bytes");
        match flag.as_str() {
            "--postings" => sizes.postings = value,
            "--text" => sizes.text = value,
            _ => panic!("unknown option {flag}"),
        }
        args.drain(..2);
    }
    println!(
        "shard targets: postings {} B, text {} B",
        sizes.postings, sizes.text
    );
    println!(
        "| corpus | index bytes | manifest bytes | shards | questions | same answers | shards per question (median, p95, max) | bytes per question incl. manifest (median, p95, max) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---|");
    for pair in args.chunks(2) {
        let [corpus, questions] = pair else {
            panic!("give pairs of a corpus folder and a question file");
        };
        let built = build_index::build(corpus.as_ref(), &build_index::Options::standard())
            .expect("corpus builds");
        let index = Index::from_bytes(&built.bytes).expect("index decodes");
        let files = index.to_shards(index.corpus_hash, sizes).expect("shards");
        let text = std::fs::read_to_string(questions).expect("question file");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&text).expect("question JSON");
        let config = AnswerConfig::DEFAULT;
        let (mut counts, mut bytes, mut same) = (Vec::new(), Vec::new(), 0);
        for row in &rows {
            let question = row["question"].as_str().expect("a question");
            let mut sharded = ShardedIndex::from_manifest(&files.manifest).expect("manifest");
            let (mut n, mut b) = (0, files.manifest.len());
            let answer = sharded
                .complete(
                    |i| ask(i, None, question, &config),
                    |name| {
                        let shard = files.shards.iter().find(|(s, _)| s == name)?;
                        n += 1;
                        b += shard.1.len();
                        Some(shard.1.clone())
                    },
                )
                .expect("every shard is there");
            same += usize::from(answer == ask(&index, None, question, &config));
            counts.push(n);
            bytes.push(b);
        }
        let stats = |v: &mut Vec<usize>| {
            v.sort_unstable();
            let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
            format!("{}, {}, {}", at(0.5), at(0.95), at(1.0))
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            corpus,
            built.bytes.len(),
            files.manifest.len(),
            files.shards.len(),
            rows.len(),
            same,
            stats(&mut counts),
            stats(&mut bytes)
        );
    }
}
