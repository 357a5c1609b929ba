//! The proxy over a sharded index (`build-index --shards`: a gzip-compressed manifest and
//! shards in a folder): fragment ids keep their meaning, so quotes verify as over one file.

mod support;

use std::path::Path;

use build_index::{Layout, Options, build, write_layout};
use onrecord_core::ShardSizes;
use onrecord_proxy::Proxy;
use support::fake_upstream::Reply;
use support::harness::{demo, frag_with, reply, start_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sharded_index_verifies_quotes_by_fragment_id() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let built = build(&corpus, &Options::standard()).expect("demo builds");
    let dir = tempfile::tempdir().unwrap();
    let small = ShardSizes {
        postings: 1024,
        text: 2048,
        threshold: 0,
    };
    let written = write_layout(dir.path(), &built, Layout::Sharded, small).unwrap();
    assert!(written.len() > 10, "{}", written.len());
    let index = onrecord_files::load_index(dir.path()).expect("the sharded index loads");
    let (bytes, whole) = demo();
    assert_eq!(index.corpus_hash, whole.corpus_hash);
    assert_eq!(index.fragment_count(), whole.fragment_count());
    let index: &'static _ = Box::leak(Box::new(index));

    let bikes = frag_with(whole, "30 days from the day");
    let quote = "You have 30 days from the day of delivery";
    let content = reply(true, &[(quote, bikes)]);
    let h = start_with(
        |cfg| Proxy::with_index(index.clone(), cfg).expect("proxy starts"),
        bytes,
        index,
        move |_, _| Reply::json(&content),
        |_| {},
    )
    .await;
    let r = h
        .ask("How many days do I have to return a bike?", &[bikes])
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let s = r.json();
    h.assert_verified(&s, &[bikes]);
    assert_eq!(s["mode"], "answer");
    assert_eq!(s["claims"][0]["text"], quote);
    assert_eq!(s["claims"][0]["url"], "/shop/returns/#bikes");
    // An id past the last fragment is still refused.
    let r = h.ask("Anything?", &[whole.fragment_count()]).await;
    assert_eq!(r.status, 400, "{}", r.text);
}
