//! Asks questions, each a follow-up of the one before, and prints how each was read and what it
//! quoted, for debugging:
//! `cargo run --example ask -- SOURCE "question" ["follow-up" ...] [--private-dir NAME]
//! [--site-name NAME] [--model FILE] [--debug]`. SOURCE is a corpus folder (built lexically) or
//! a built index file (with `--model`, its query model). `--debug` also prints each resolved
//! question's terms, the evidence features the decline model weighs, the ranking and the
//! whole answer.
fn main() {
    let mut args = std::env::args().skip(1);
    let source = args.next().expect("corpus dir or index file");
    let mut questions = Vec::new();
    let mut options = build_index::Options::standard();
    let mut model_path = None;
    let mut debug = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--private-dir" => options.private_dir = args.next().expect("flag value"),
            "--site-name" => options.site_names.push(args.next().expect("flag value")),
            "--model" => model_path = Some(args.next().expect("flag value")),
            "--debug" => debug = true,
            _ => questions.push(arg),
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
        onrecord_core::QueryModel::from_bytes(
            &onrecord_files::read_file(std::path::Path::new(&p)).expect("read model"),
        )
        .expect("decode model")
    });
    let config = onrecord_core::AnswerConfig::DEFAULT;
    let mut context = None;
    for question in &questions {
        let reply =
            onrecord_core::ask_turn(&index, model.as_ref(), question, context.as_ref(), &config);
        println!("> {question}");
        println!(
            "  read as ({}): {}",
            reply.turn.kind.name(),
            reply.turn.question
        );
        if debug {
            evidence(&index, model.as_ref(), &reply.turn.question, &config);
        }
        let a = &reply.answer;
        println!(
            "  {:?}, confidence {:?}, decline {:?}",
            a.mode, a.confidence, a.decline
        );
        for q in &a.quotes {
            let collection = q.citation.collection.as_ref().map_or("-", |c| &c.name);
            println!(
                "  [{collection}] {} › {}: {}",
                q.citation.title, q.citation.section, q.text
            );
        }
        for s in &reply.explore {
            println!("  explore: {} › {}", s.citation.title, s.citation.section);
        }
        if debug {
            println!("{a:#?}");
        }
        context = Some(reply.context);
    }
}

/// The question's terms, the decline model's features and the fragments in the order weighed.
fn evidence(
    index: &onrecord_core::Index,
    model: Option<&onrecord_core::QueryModel>,
    question: &str,
    config: &onrecord_core::AnswerConfig,
) {
    for t in onrecord_core::query_terms(index, &onrecord_core::Question::new(question)) {
        println!(
            "  term {:12} idf {:.2} framing {} how-much {} in corpus {} common {}",
            t.word,
            t.idf,
            t.framing,
            t.how_much,
            t.in_corpus(),
            model.is_some_and(|m| m.is_common_word(&t.word))
        );
    }
    let assessment = onrecord_core::assess(index, model, question, config);
    println!("  kind {:?}", assessment.kind);
    for (name, value) in onrecord_core::FEATURE_NAMES
        .iter()
        .zip(assessment.features.values)
    {
        println!("  feature {name:16} {value:.3}");
    }
    println!("  missing on page {:?}", assessment.missing_on_page);
    for q in &assessment.quotes {
        let header = q
            .header
            .as_deref()
            .map_or(String::new(), |h| format!("[{h}] "));
        println!("  would quote {header}{}", q.text);
    }
    for &f in assessment.ranked.iter().take(8) {
        let fragment = &index.fragments[f as usize];
        let title = &index.docs[fragment.doc as usize].title;
        println!(
            "  ranked {f} {title} › {}",
            fragment.heading_path.join(" › ")
        );
    }
}
