//! Asks one question and prints the question's terms, the evidence features the decline model
//! weighs and the answer, for debugging:
//! `cargo run --example ask -- DIR "question" [--private-dir NAME] [--site-name NAME]`
//! (builds DIR lexically), or `cargo run --example ask -- INDEX.onr "question" [--model FILE]`
//! (a built index, with its query model).
fn main() {
    let mut args = std::env::args().skip(1);
    let source = args.next().expect("corpus dir or index file");
    let question = args.next().expect("question");
    let mut options = build_index::Options::standard();
    let mut model_path = None;
    while let Some(flag) = args.next() {
        let value = args.next().expect("flag value");
        match flag.as_str() {
            "--private-dir" => options.private_dir = value,
            "--site-name" => options.site_names.push(value),
            "--model" => model_path = Some(value),
            other => panic!("unknown flag {other}"),
        }
    }
    let path = std::path::Path::new(&source);
    let index = if path.is_dir() {
        build_index::build(path, &options).expect("build").index
    } else {
        onrecord_core::Index::from_bytes(&std::fs::read(path).expect("read index"))
            .expect("decode index")
    };
    let model = model_path.map(|p| {
        onrecord_core::QueryModel::from_bytes(&std::fs::read(p).expect("read model"))
            .expect("decode model")
    });
    for t in onrecord_core::query_terms(&index, &question) {
        println!(
            "term {:12} idf {:.2} framing {} in corpus {} common {}",
            t.word,
            t.idf,
            t.framing,
            t.in_corpus(),
            model.as_ref().is_some_and(|m| m.is_common_word(&t.word))
        );
    }
    let config = onrecord_core::AnswerConfig::DEFAULT;
    let assessment = onrecord_core::assess(&index, model.as_ref(), &question, &config);
    println!("kind {:?}", assessment.kind);
    for (name, value) in onrecord_core::FEATURE_NAMES
        .iter()
        .zip(assessment.features.values)
    {
        println!("feature {name:16} {value:.3}");
    }
    println!("missing on page {:?}", assessment.missing_on_page);
    for &f in assessment.ranked.iter().take(8) {
        let fragment = &index.fragments[f as usize];
        let title = &index.docs[fragment.doc as usize].title;
        println!("ranked {f} {title} › {}", fragment.heading_path.join(" › "));
    }
    for q in &assessment.quotes {
        println!(
            "quote {} › {}: {}",
            q.citation.title, q.citation.section, q.text
        );
    }
    for r in &assessment.related {
        println!("related {} › {}", r.citation.title, r.citation.section);
    }
    let answer = onrecord_core::decide(assessment, &config);
    println!("{answer:#?}");
}
