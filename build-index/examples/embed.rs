//! Prints document embeddings, to compare with another implementation:
//! `cargo run --release -p build-index --example embed -- <teacher dir> <model dir> "text" ...`
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [teacher, model_dir, texts @ ..] = args.as_slice() else {
        anyhow::bail!("usage: embed <teacher dir> <model dir> TEXT...");
    };
    let files = build_index::ModelFiles {
        teacher: teacher.into(),
        model_dir: model_dir.into(),
    };
    let embedder = build_index::Embedder::load(&files)?;
    for (text, v) in texts.iter().zip(embedder.embed(texts)?) {
        let head: Vec<String> = v.iter().take(8).map(|x| format!("{x:.5}")).collect();
        println!("{text}: [{}]", head.join(", "));
    }
    Ok(())
}
