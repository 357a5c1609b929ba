//! A widget's `data-scope` (issue 45): one part of a site, by path prefix (versioned docs) or
//! by collection, and questions and results kept inside it. "Question → quotes from that part
//! only, or a decline".

use onrecord_core::{
    AnswerConfig, Block, Index, IndexBuilder, IndexSettings, Lang, Mode, Scope, SourceDoc,
    SourceSection, ask_turn_in, search_sections_in,
};

fn page(url: &str, collection: Option<&str>, heading: &str, text: &str) -> SourceDoc {
    SourceDoc {
        path: format!("{}.md", url.trim_matches('/')),
        url: url.into(),
        title: heading.into(),
        lang: Lang::English,
        themes: vec![],
        collection: collection.map(Into::into),
        sections: vec![SourceSection {
            heading_path: vec![heading.into()],
            anchor: heading.to_lowercase().replace(' ', "-"),
            blocks: vec![Block::paragraph(text)],
        }],
    }
}

/// Two versions of the same page, and a page only the second version has.
fn site() -> Index {
    let docs = [
        page(
            "/v1/server/",
            Some("old"),
            "Ports",
            "The server listens on port 8080 unless PORT is set.",
        ),
        page(
            "/v2/server/",
            Some("current"),
            "Ports",
            "The server listens on port 9090 unless PORT is set.",
        ),
        page(
            "/v2/tracing/",
            Some("current"),
            "Tracing",
            "Every request is traced with OpenTelemetry spans.",
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &onrecord_core::chunk(doc, 800));
    }
    Index::from_bytes(&builder.finish().to_bytes([3; 32]).unwrap()).unwrap()
}

fn urls<'a>(index: &'a Index, scope: &Scope) -> Vec<&'a str> {
    scope
        .docs
        .iter()
        .map(|&d| index.docs[d as usize].url.as_str())
        .collect()
}

#[test]
fn a_part_is_a_path_prefix_or_a_collection() {
    let index = site();
    let part = |name: &str| Scope::part(&index, name);
    assert_eq!(urls(&index, &part("/v1/")), ["/v1/server/"]);
    assert_eq!(urls(&index, &part("/v2/")), ["/v2/server/", "/v2/tracing/"]);
    assert_eq!(
        urls(&index, &part("current")),
        ["/v2/server/", "/v2/tracing/"]
    );
    assert_eq!(urls(&index, &part("/")).len(), 3);
    // No page matches: no pages, rather than the whole site.
    assert!(part("/v3/").docs.is_empty());
    assert!(
        part("v1").docs.is_empty(),
        "a name without '/' is a collection's"
    );
}

#[test]
fn answers_and_results_stay_inside_the_part() {
    let index = site();
    let config = AnswerConfig::DEFAULT;
    let question = "Which port does the server listen on?";
    for (name, port, url) in [
        ("/v1/", "8080", "/v1/server/"),
        ("/v2/", "9090", "/v2/server/"),
        ("old", "8080", "/v1/server/"),
    ] {
        let part = Scope::part(&index, name);
        let reply = ask_turn_in(&index, None, question, None, Some(&part), &config);
        assert_eq!(reply.answer.mode, Mode::Answer, "{name}");
        for quote in &reply.answer.quotes {
            assert!(
                quote.citation.url.starts_with(url),
                "{name}: {}",
                quote.citation.url
            );
            assert!(quote.text.contains(port), "{name}: {}", quote.text);
        }
        for hit in &reply.answer.results {
            assert!(
                part.contains(&index, hit.fragment),
                "{name}: result {}",
                hit.citation.url
            );
        }
        let found = search_sections_in(&index, None, "server port", Some(&part));
        assert!(!found.results.is_empty(), "{name}");
        for hit in &found.results {
            assert!(
                hit.citation.url.starts_with(url),
                "{name}: {}",
                hit.citation.url
            );
        }
    }
    // A subject only the other version covers is declined, quoting nothing from it.
    let v1 = Scope::part(&index, "/v1/");
    let reply = ask_turn_in(
        &index,
        None,
        "How is a request traced?",
        None,
        Some(&v1),
        &config,
    );
    assert_ne!(reply.answer.mode, Mode::Answer);
    assert!(reply.answer.quotes.is_empty());
    assert!(
        search_sections_in(&index, None, "tracing", Some(&v1))
            .results
            .is_empty()
    );
}
