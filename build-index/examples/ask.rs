//! Asks one question of a corpus and prints the answer and the question's terms, for
//! debugging: `cargo run --example ask -- DIR "question" [--private-dir NAME] [--site-name NAME]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("corpus dir");
    let question = args.next().expect("question");
    let mut options = build_index::Options::standard();
    while let Some(flag) = args.next() {
        let value = args.next().expect("flag value");
        match flag.as_str() {
            "--private-dir" => options.private_dir = value,
            "--site-name" => options.site_names.push(value),
            other => panic!("unknown flag {other}"),
        }
    }
    let built = build_index::build(std::path::Path::new(&dir), &options).expect("build");
    for t in onrecord_core::query_terms(&built.index, &question) {
        println!(
            "term {:12} idf {:.2} framing {} in corpus {}",
            t.word,
            t.idf,
            t.framing,
            t.in_corpus()
        );
    }
    let answer = onrecord_core::ask(
        &built.index,
        None,
        &question,
        &onrecord_core::AnswerConfig::DEFAULT,
    );
    println!("{answer:#?}");
}
