//! Prints every fragment of a corpus, for eyeballing extraction: `cargo run --example dump -- DIR`.
fn main() {
    let dir = std::env::args().nth(1).expect("corpus dir");
    let built = build_index::build(
        std::path::Path::new(&dir),
        &build_index::Options::standard(),
    )
    .expect("build");
    for f in &built.index.fragments {
        let doc = &built.index.docs[f.doc as usize];
        println!(
            "=== {} › {} (#{})\n{}\n",
            doc.path,
            f.heading_path.join(" › "),
            f.anchor,
            f.text
        );
    }
}
