//! Asks questions of a corpus, each a follow-up of the one before, and prints how each was
//! read and what it quoted, for debugging:
//! `cargo run --example ask -- DIR "question" ["follow-up" ...] [--private-dir NAME] [--site-name NAME] [--debug]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("corpus dir");
    let mut questions = Vec::new();
    let mut options = build_index::Options::standard();
    let mut debug = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--private-dir" => options.private_dir = args.next().expect("flag value"),
            "--site-name" => options.site_names.push(args.next().expect("flag value")),
            "--debug" => debug = true,
            _ => questions.push(arg),
        }
    }
    let built = build_index::build(std::path::Path::new(&dir), &options).expect("build");
    let mut context = None;
    for question in &questions {
        let reply = onrecord_core::ask_turn(
            &built.index,
            None,
            question,
            context.as_ref(),
            &onrecord_core::AnswerConfig::DEFAULT,
        );
        println!("> {question}");
        println!(
            "  read as ({}): {}",
            reply.turn.kind.name(),
            reply.turn.question
        );
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
