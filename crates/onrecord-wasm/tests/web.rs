//! The wasm exports in a real browser (`wasm-pack test --headless --chrome`).
#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use onrecord_core::{
    Block, IndexBuilder, IndexSettings, Lang, QueryModel as CoreModel, SourceDoc, SourceSection,
    VectorIndex, chunk, encode_query_model,
};
use onrecord_wasm::{Engine, QueryModel, load_engine};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A toy query model whose one known word, "reimbursement", points at the refunds fragment.
fn model_bytes(dims: u32) -> Vec<u8> {
    let vocab: Vec<String> = ["[UNK]", "reimbursement"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut row = vec![0.0; dims as usize];
    row[0] = 1.0;
    encode_query_model(&vocab, dims, &[(1, row)])
}

/// The index of `index_bytes`, with vectors for the toy model.
fn index_with_vectors() -> Vec<u8> {
    let mut index = onrecord_core::Index::from_bytes(&index_bytes()).unwrap();
    let model = CoreModel::from_bytes(&model_bytes(2)).unwrap();
    let mut vectors = VectorIndex::new(model.checksum(), 2);
    for _ in &index.fragments {
        vectors.push(&[1.0, 0.0]);
    }
    index.vectors = Some(vectors);
    index.to_bytes([1; 32]).unwrap()
}

fn index_bytes() -> Vec<u8> {
    let doc = SourceDoc {
        path: "shop/returns.md".into(),
        url: "/shop/returns/".into(),
        title: "Returns".into(),
        lang: Lang::English,
        themes: vec![],
        collection: None,
        sections: vec![SourceSection {
            heading_path: vec!["Refunds".into()],
            anchor: "refunds".into(),
            blocks: vec![Block::paragraph(
                "Refunds arrive within 10 working days. Collection costs EUR 95.",
            )],
        }],
    };
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    builder.add(&doc, &chunk(&doc, 800));
    builder.finish().to_bytes([1; 32]).unwrap()
}

/// Reads a dotted path such as `quotes.0.citation.url` from a JS object.
fn get(value: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(value.clone(), |v, key| {
        Reflect::get(&v, &JsValue::from_str(key)).unwrap()
    })
}

fn error_message(err: wasm_bindgen::JsError) -> String {
    let value: JsValue = err.into();
    value.dyn_into::<js_sys::Error>().unwrap().message().into()
}

#[wasm_bindgen_test]
fn ask_quotes_with_a_citation() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let answer = engine.ask("When do refunds arrive?", None, None).unwrap();
    assert_eq!(get(&answer, "mode"), "answer");
    assert_eq!(
        get(&answer, "quotes.0.text"),
        "Refunds arrive within 10 working days."
    );
    assert_eq!(
        get(&answer, "quotes.0.citation.url"),
        "/shop/returns/#refunds"
    );
    assert_eq!(get(&answer, "quotes.0.citation.fragmentNo"), 1);
}

#[wasm_bindgen_test]
fn ask_declines_and_says_why() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let answer = engine
        .ask("What is the capital of France?", None, None)
        .unwrap();
    assert_eq!(get(&answer, "mode"), "not-found");
    assert_eq!(get(&answer, "quotes.length"), 0);
    // Data, not sentences: the widget words the reason in its own language.
    assert_eq!(get(&answer, "decline.gate"), "never-mentioned");
    assert_eq!(get(&answer, "decline.terms.0"), "capital");
    assert_eq!(get(&answer, "decline.terms.1"), "France");
    assert!(get(&answer, "decline.coverage").is_null());
    assert!(get(&answer, "decline.message").is_undefined());
}

#[wasm_bindgen_test]
fn a_near_miss_declines_and_says_what_is_missing() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let answer = engine
        .ask("Do refunds arrive by bank transfer to Norway?", None, None)
        .unwrap();
    assert_eq!(get(&answer, "mode"), "not-found");
    // The words the page lacks are named; a gate that measures coverage gives it as a whole
    // percentage.
    let gate = get(&answer, "decline.gate").as_string().unwrap();
    match gate.as_str() {
        "missing" => assert_eq!(get(&answer, "decline.terms.0"), "bank"),
        "below-floor" | "unsupported" => {
            let coverage = get(&answer, "decline.coverage").as_f64().unwrap();
            assert!(
                coverage > 0.0 && coverage < 100.0 && coverage.fract() == 0.0,
                "{coverage}"
            );
        }
        other => panic!("{other}"),
    }
}

#[wasm_bindgen_test]
fn refused_documents_throw_an_error_with_the_refusal_as_data() {
    let names = vec!["notes.md".to_string(), "empty.md".to_string()];
    let texts = vec!["# Notes\n\nSome text.".to_string(), " \n".to_string()];
    let err = Engine::from_documents(names, texts, "en").err().unwrap();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "refusal.kind"), "empty");
    assert_eq!(get(&err, "refusal.file"), "empty.md");
    let err = Engine::from_documents(vec!["big.md".into()], vec!["a".repeat(2_000_001)], "en")
        .err()
        .unwrap();
    assert_eq!(get(&err, "refusal.kind"), "too-large");
    assert_eq!(get(&err, "refusal.file"), "big.md");
    assert_eq!(get(&err, "refusal.bytes"), 2_000_001);
    assert_eq!(
        get(&err, "refusal.limit"),
        onrecord_core::MAX_FILE_BYTES as u32
    );
    assert!(get(&err, "refusal.count").is_undefined());
    let err = Engine::from_documents(vec![], vec![], "en").err().unwrap();
    assert_eq!(get(&err, "refusal.kind"), "no-files");
    assert!(get(&err, "refusal.file").is_undefined());
    let engine = Engine::from_documents(
        vec!["a.md".into()],
        vec!["# A\n\nFerns like rain.".into()],
        "en",
    );
    assert!(engine.is_ok());
}

#[wasm_bindgen_test]
fn info_reports_counts_and_hash() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let info = engine.info().unwrap();
    assert_eq!(get(&info, "documents"), 1);
    assert_eq!(get(&info, "corpusHash"), "01".repeat(32).as_str());
    assert_eq!(get(&info, "formatVersion"), onrecord_core::FORMAT_VERSION);
}

#[wasm_bindgen_test]
fn verify_quote_returns_the_fragments_own_bytes_or_null() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let found = engine
        .verify_quote(0, "refunds ARRIVE within 10  working days")
        .unwrap();
    assert_eq!(get(&found, "text"), "Refunds arrive within 10 working days");
    assert_eq!(get(&found, "start"), 0);
    assert_eq!(get(&found, "end"), 37);
    assert!(
        engine
            .verify_quote(0, "Refunds arrive within 11 working days")
            .unwrap()
            .is_null()
    );
    assert!(engine.verify_quote(7, "Refunds arrive").unwrap().is_null());
}

#[wasm_bindgen_test]
fn corrupt_bytes_give_a_clear_error() {
    let mut bytes = index_bytes();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let err = Engine::new(&bytes).err().expect("corrupt index is refused");
    assert!(error_message(err).starts_with("index is corrupt: checksum"));
    let err = Engine::new(b"<!doctype html>")
        .err()
        .expect("HTML is refused");
    assert!(error_message(err).contains("shorter than its 56-byte header"));
}

#[wasm_bindgen_test]
async fn load_engine_reports_a_missing_index() {
    let err = load_engine("/no-such-index.onr".into())
        .await
        .err()
        .expect("404 is an error");
    let msg = error_message(err);
    assert!(msg.contains("HTTP 404"), "{msg}");
}

#[wasm_bindgen_test]
fn a_fitting_query_model_adds_matching_by_meaning() {
    // Two pages answer "when do refunds arrive?"; by words the shorter one ranks first. The toy
    // model's one word, "arrive", points at the other page's vector, so with the model the
    // question is matched by meaning too and the quote moves there.
    let page = |path: &str, title: &str, text: &str| SourceDoc {
        path: format!("shop/{path}.md"),
        url: format!("/shop/{path}/"),
        title: title.into(),
        lang: Lang::English,
        themes: vec![],
        collection: None,
        sections: vec![SourceSection {
            heading_path: vec![title.into()],
            anchor: path.into(),
            blocks: vec![Block::paragraph(text)],
        }],
    };
    let docs = [
        page(
            "returns",
            "Refunds",
            "Refunds arrive within 10 working days. Collection costs EUR 95.",
        ),
        page(
            "warranty",
            "Warranty",
            "Warranty refunds arrive within 30 days of the claim being approved by our \
             workshop team, who check every frame.",
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &chunk(doc, 800));
    }
    let mut index = builder.finish();
    let vocab: Vec<String> = vec!["[UNK]".into(), "arrive".into()];
    let model = encode_query_model(&vocab, 2, &[(1, vec![1.0, 0.0])]);
    let mut vectors = VectorIndex::new(CoreModel::from_bytes(&model).unwrap().checksum(), 2);
    vectors.push(&[0.0, 1.0]);
    vectors.push(&[1.0, 0.0]);
    index.vectors = Some(vectors);
    let mut engine = Engine::new(&index.to_bytes([1; 32]).unwrap()).unwrap();
    assert!(engine.has_vectors());
    let question = "When do refunds arrive?";
    assert_eq!(
        get(
            &engine.ask(question, None, None).unwrap(),
            "quotes.0.citation.url"
        ),
        "/shop/returns/#returns"
    );
    engine
        .set_query_model(QueryModel::new(&model).unwrap())
        .unwrap();
    assert_eq!(
        get(
            &engine.ask(question, None, None).unwrap(),
            "quotes.0.citation.url"
        ),
        "/shop/warranty/#warranty"
    );
}

#[wasm_bindgen_test]
fn a_query_model_for_another_index_is_refused() {
    let mut engine = Engine::new(&index_with_vectors()).unwrap();
    let err = engine
        .set_query_model(QueryModel::new(&model_bytes(3)).unwrap())
        .err()
        .unwrap();
    assert!(error_message(err).contains("does not match this index"));
    // Issue 14: a broken model file is called a query model, not an index.
    let err = QueryModel::new(b"ONRQMODL garbage").err().unwrap();
    let message = error_message(err);
    assert!(message.starts_with("query model is"), "{message}");
    assert!(!message.contains("index"), "{message}");
}

#[wasm_bindgen_test]
fn ask_returns_the_turn_context_and_reads_a_follow_up_with_it() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let first = engine.ask("When do refunds arrive?", None, None).unwrap();
    assert_eq!(get(&first, "turn.kind"), "standalone");
    assert_eq!(get(&first, "context.question"), "When do refunds arrive?");
    assert_eq!(get(&first, "context.fragments.0"), 0);
    assert_eq!(
        get(&first, "context.version"),
        onrecord_core::FORMAT_VERSION
    );
    // The context carries no answer text.
    assert!(get(&first, "context.text").is_undefined());
    let next = engine
        .ask("Why?", Some(get(&first, "context")), None)
        .unwrap();
    assert_eq!(get(&next, "turn.kind"), "explanation");
    assert_eq!(get(&next, "turn.question"), "Why? When do refunds arrive?");
    assert!(get(&next, "explore").is_array());
}

/// A context of the wrong shape is no context: the question is answered as asked alone.
#[wasm_bindgen_test]
fn a_context_of_the_wrong_types_is_ignored() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let first = engine.ask("When do refunds arrive?", None, None).unwrap();
    let good = get(&first, "context");
    let with = |key: &str, value: JsValue| {
        let c = js_sys::Object::assign(&js_sys::Object::new(), good.unchecked_ref());
        Reflect::set(&c, &JsValue::from_str(key), &value).unwrap();
        JsValue::from(c)
    };
    let too_many = js_sys::Array::new();
    for _ in 0..100 {
        too_many.push(&JsValue::from_f64(0.0));
    }
    for context in [
        JsValue::NULL,
        JsValue::UNDEFINED,
        JsValue::from_str("When do refunds arrive?"),
        JsValue::from_f64(3.0),
        with("version", JsValue::from_str("5")),
        with("question", JsValue::from_f64(1.0)),
        with("fragments", JsValue::from_str("0")),
        with(
            "fragments",
            js_sys::Array::of1(&JsValue::from_f64(0.5)).into(),
        ),
        with(
            "fragments",
            js_sys::Array::of1(&JsValue::from_f64(-1.0)).into(),
        ),
        with("fragments", too_many.clone().into()),
        with("index", JsValue::NULL),
    ] {
        let answer = engine.ask("Why?", Some(context), None).unwrap();
        assert_eq!(get(&answer, "turn.kind"), "standalone");
        assert_eq!(get(&answer, "decline.gate"), "no-content-words");
    }
    // The same context with the right types is read as a follow-up.
    let answer = engine
        .ask(
            "Why?",
            Some(with(
                "version",
                JsValue::from_f64(f64::from(onrecord_core::FORMAT_VERSION)),
            )),
            None,
        )
        .unwrap();
    assert_eq!(get(&answer, "turn.kind"), "explanation");
}

// Issue 43: a context whose `fragments` is a Proxy or has a throwing getter made `ask` throw,
// left the engine borrowed, and after ~1,500 calls trapped the module instance. The engine is
// called from JS here, as a page calls it, so its borrow is the one wasm-bindgen keeps.
#[wasm_bindgen_test]
fn a_context_that_throws_when_read_is_no_context_and_the_engine_stays_usable() {
    let engine = Engine::new(&index_bytes()).unwrap();
    let good = get(
        &engine.ask("When do refunds arrive?", None, None).unwrap(),
        "context",
    );
    let contexts = js_sys::eval(
        r#"(good) => {
            const boom = () => { throw new Error('boom'); };
            const trap = (target) => new Proxy(target, { get: boom, has: boom, ownKeys: boom, getPrototypeOf: boom });
            const revoked = Proxy.revocable([0], {});
            revoked.revoke();
            const throwingElement = [0];
            Object.defineProperty(throwingElement, '0', { get: boom });
            const endless = new Proxy([], { get: (t, k) => (k === 'length' ? 4294967295 : 0) });
            return [
                trap({}),
                trap(good),
                { ...good, fragments: trap([0]) },
                { ...good, fragments: revoked.proxy },
                { ...good, fragments: throwingElement },
                { ...good, fragments: endless },
                { ...good, get fragments() { boom(); } },
                { ...good, get question() { boom(); } },
                { ...good, get version() { boom(); } },
            ];
        }"#,
    )
    .unwrap()
    .unchecked_into::<js_sys::Function>()
    .call1(&JsValue::NULL, &good)
    .unwrap()
    .unchecked_into::<js_sys::Array>();
    let ask =
        js_sys::Function::new_with_args("engine, context", "return engine.ask('Why?', context)");
    let engine = JsValue::from(engine);
    for round in 0..2_000u32 {
        let context = contexts.get(round % contexts.length());
        let answer = ask
            .call2(&JsValue::NULL, &engine, &context)
            .unwrap_or_else(|e| panic!("round {round}: ask threw {e:?}"));
        assert_eq!(get(&answer, "turn.kind"), "standalone", "round {round}");
    }
    // The engine still answers, and still reads a context it can read.
    let answer = ask.call2(&JsValue::NULL, &engine, &JsValue::NULL).unwrap();
    assert_eq!(get(&answer, "decline.gate"), "no-content-words");
    let answer = ask.call2(&JsValue::NULL, &engine, &good).unwrap();
    assert_eq!(get(&answer, "turn.kind"), "explanation");
    let ask_alone = js_sys::Function::new_with_args(
        "engine",
        "return engine.ask('When do refunds arrive?', null)",
    );
    let answer = ask_alone.call1(&JsValue::NULL, &engine).unwrap();
    assert_eq!(get(&answer, "mode"), "answer");
}

/// A two-page index cut into the smallest shards (one term or one page each), as
/// `(manifest, [(name, bytes)])`, built with `corpus_hash`; with `vectors`, its fragments have
/// vectors in one list (a `v-` shard of residual codes).
#[cfg(feature = "sharded")]
fn sharded_files(corpus_hash: [u8; 32], vectors: bool) -> onrecord_core::ShardedFiles {
    let page = |path: &str, title: &str, heading: &str, text: &str| SourceDoc {
        path: path.into(),
        url: format!("/{title}/").to_lowercase(),
        title: title.into(),
        lang: Lang::English,
        themes: vec![],
        collection: None,
        sections: vec![SourceSection {
            heading_path: vec![heading.into()],
            anchor: heading.to_lowercase(),
            blocks: vec![Block::paragraph(text)],
        }],
    };
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in [
        page(
            "returns.md",
            "Returns",
            "Refunds",
            "Refunds arrive within 10 working days. Collection costs EUR 95.",
        ),
        page(
            "shipping.md",
            "Shipping",
            "Parcels",
            "Parcels leave the warehouse every Tuesday. Tracking numbers come by email.",
        ),
    ] {
        builder.add(&doc, &chunk(&doc, 800));
    }
    let sizes = onrecord_core::ShardSizes {
        postings: 1,
        text: 1,
        threshold: 0,
    };
    let mut index = builder.finish();
    if vectors {
        let mut v = VectorIndex::new(0x5eed, 4);
        v.push(&[1.0, -0.5, 0.25, 0.0]);
        v.push(&[-1.0, 0.5, 0.0, 0.75]);
        index.vectors = Some(v);
    }
    index.to_shards(corpus_hash, sizes).unwrap()
}

/// Asks until the engine needs no more shards, adding them from `files`; returns the answer and
/// how many shards were added.
#[cfg(feature = "sharded")]
fn ask_sharded(
    engine: &mut Engine,
    files: &onrecord_core::ShardedFiles,
    question: &str,
) -> (JsValue, usize) {
    let mut added = 0;
    loop {
        let answer = engine.ask(question, None, None).unwrap();
        let needed = engine.needed();
        if needed.is_empty() {
            return (answer, added);
        }
        for name in needed {
            let (_, bytes) = files.shards.iter().find(|(n, _)| *n == name).unwrap();
            engine.add_shard(&name, bytes).unwrap();
            added += 1;
        }
    }
}

#[cfg(feature = "sharded")]
#[wasm_bindgen_test]
fn a_sharded_index_answers_after_fetching_only_what_it_needs() {
    let files = sharded_files([2; 32], false);
    let mut engine = Engine::from_manifest(&files.manifest).unwrap();
    let (answer, added) = ask_sharded(&mut engine, &files, "When do refunds arrive?");
    assert_eq!(
        get(&answer, "quotes.0.text"),
        "Refunds arrive within 10 working days."
    );
    assert!(
        added > 0 && added < files.shards.len(),
        "{added} of {}",
        files.shards.len()
    );
    // Asked again, everything it needs is there: nothing to fetch.
    assert_eq!(
        ask_sharded(&mut engine, &files, "When do refunds arrive?").1,
        0
    );
    assert_eq!(get(&engine.info().unwrap(), "fragments"), 2);
}

#[cfg(feature = "sharded")]
#[wasm_bindgen_test]
fn bad_shards_and_manifests_give_an_error_naming_them_never_a_panic() {
    let files = sharded_files([2; 32], false);
    let other = sharded_files([3; 32], false);
    let mut engine = Engine::from_manifest(&files.manifest).unwrap();
    engine.ask("When do refunds arrive?", None, None).unwrap();
    let name = engine.needed().into_iter().next().unwrap();
    let (_, bytes) = files.shards.iter().find(|(n, _)| *n == name).unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let foreign = other.shards[0].1.clone();
    for (bad, says) in [
        (&bytes[..bytes.len() - 1], "truncated"),
        (&flipped[..], "checksum"),
        (&foreign[..], "another build"),
        (&b"not a shard at all"[..], "shard"),
    ] {
        let message = error_message(engine.add_shard(&name, bad).err().unwrap());
        assert!(message.contains(&name), "{message}");
        assert!(message.contains(says), "{says}: {message}");
    }
    let message = error_message(engine.add_shard("t-00000000.onr", bytes).err().unwrap());
    assert!(message.contains("t-00000000.onr"), "{message}");
    // The engine still takes the good shard afterwards.
    engine.add_shard(&name, bytes).unwrap();

    let manifest = &files.manifest;
    for bad in [&manifest[..manifest.len() / 2], &bytes[..]] {
        let message = error_message(Engine::from_manifest(bad).err().unwrap());
        assert!(message.contains("manifest"), "{message}");
    }
    // A whole-index engine has no shards to take.
    let mut whole = Engine::new(&index_bytes()).unwrap();
    assert!(whole.needed().is_empty());
    assert!(whole.add_shard(&name, bytes).is_err());
}

/// A vector list of residual codes cut off, flipped or of the previous shard format is refused
/// with an error naming it; the listed one is taken.
#[cfg(feature = "sharded")]
#[wasm_bindgen_test]
fn a_bad_vector_list_gives_an_error_naming_it() {
    let files = sharded_files([2; 32], true);
    let mut engine = Engine::from_manifest(&files.manifest).unwrap();
    let (name, bytes) = files
        .shards
        .iter()
        .find(|(n, _)| n.starts_with("v-"))
        .unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let mut older = bytes.clone();
    older[8..12].copy_from_slice(&(onrecord_core::SHARD_FORMAT_VERSION - 1).to_le_bytes());
    for (bad, says) in [
        (&bytes[..bytes.len() - 1], "truncated"),
        (&flipped[..], "checksum"),
        (&older[..], "version"),
    ] {
        let message = error_message(engine.add_shard(name, bad).err().unwrap());
        assert!(message.contains(name.as_str()), "{message}");
        assert!(message.contains(says), "{says}: {message}");
    }
    engine.add_shard(name, bytes).unwrap();
}
