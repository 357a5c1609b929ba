//! A bounded, fixed-seed property run over the proxy's request parsing, the fifth entry point
//! `fuzz/` fuzzes without a bound (issue 14): raw bytes, well-formed requests and requests
//! broken in their framing, headers and JSON go through a real proxy connection (in memory),
//! which must answer with one of its statuses, or close, in time — never hang, never panic,
//! never let the key out.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use onrecord_core::FORMAT_VERSION;
use onrecord_proxy::Proxy;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::json;
use support::fake_upstream::{Fake, Reply};
use support::harness::{CANARY, demo, reply, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Statuses the proxy (or hyper, for unparsable heads) may answer with.
const STATUSES: &[&str] = &[
    "200", "204", "400", "404", "405", "408", "409", "413", "415", "422", "429", "431", "502",
    "503", "504",
];

fn request_parts() -> impl Strategy<Value = Vec<u8>> {
    // Mostly the request the widget sends, so that runs reach the model; then each part broken.
    let method = prop_oneof![
        12 => Just("POST"),
        1 => Just("GET"),
        1 => Just("OPTIONS"),
        1 => Just("PRI"),
        1 => Just("post"),
        1 => Just(""),
    ];
    let path = prop_oneof![
        12 => Just("/v1/summary"),
        1 => Just("/v1/summary?x=1"),
        1 => Just("/"),
        1 => Just("*"),
        1 => Just("/v1/chat/completions"),
        1 => Just("/%00"),
    ];
    let version = prop_oneof![
        12 => Just("HTTP/1.1"),
        1 => Just("HTTP/1.0"),
        1 => Just("HTTP/2.0"),
        1 => Just("HTTP/9"),
        1 => Just(""),
    ];
    let content_type = prop_oneof![
        8 => Just("content-type: application/json\r\n"),
        1 => Just("content-type: text/plain\r\n"),
        1 => Just(""),
    ];
    let accept = prop_oneof![3 => Just(""), 1 => Just("accept: text/event-stream\r\n")];
    let header = prop_oneof![
        Just("transfer-encoding: gzip, chunked".to_string()),
        (0u64..20_000).prop_map(|n| format!("content-length: {n}")),
        Just("content-length: -1".to_string()),
        Just("content-length: 99999999999999999999".to_string()),
        Just("origin: https://docs.example".to_string()),
        Just("expect: 100-continue".to_string()),
        Just("connection: close".to_string()),
        "[a-z-]{1,12}: [ -~]{0,40}",
        "[ -~\\t]{0,60}",
    ];
    let headers = prop_oneof![
        3 => Just(Vec::new()),
        1 => proptest::collection::vec(header, 1..4),
    ];
    let question = prop_oneof![
        4 => Just("How many days do I have to return a bike?".to_string()),
        1 => Just("\u{0}\u{0}\u{0}".to_string()),
        1 => "\\PC{0,40}",
        1 => (0usize..700).prop_map(|n| "é".repeat(n)),
    ];
    let fragments = prop_oneof![
        8 => Just(json!([0])),
        1 => Just(json!([0, 1, 2])),
        1 => Just(json!([])),
        1 => Just(json!([0, 0])),
        1 => Just(json!([4_294_967_295u64])),
        1 => Just(json!(["0"])),
        1 => Just(json!([-1])),
        1 => Just(json!([0.5])),
        1 => Just(json!({"0": 1})),
    ];
    let body = (question, fragments, 0u8..12).prop_map(|(q, f, how)| {
        let mut v = json!({
            "indexVersion": FORMAT_VERSION,
            "corpusHash": HASH,
            "question": q,
            "fragments": f,
        });
        match how {
            0 => v["model"] = json!("gpt-expensive"),
            1 => v["indexVersion"] = json!(FORMAT_VERSION + 1),
            2 => v["question"] = json!(12),
            3 => return "[".repeat(5_000),
            4 => return "{\"question\": \"unterminated".to_string(),
            _ => {}
        }
        v.to_string()
    });
    (
        (method, path, version, content_type, accept),
        headers,
        body,
        any::<bool>(),
        0usize..5_000,
        prop_oneof![5 => Just(false), 1 => Just(true)],
    )
        .prop_map(
            |(
                (method, path, version, content_type, accept),
                headers,
                body,
                chunked_body,
                cut,
                cut_it,
            )| {
                let mut out =
                    format!("{method} {path} {version}\r\nhost: x\r\n{content_type}{accept}");
                for h in headers {
                    out.push_str(&h);
                    out.push_str("\r\n");
                }
                let mut bytes = if chunked_body {
                    out.push_str("transfer-encoding: chunked\r\n\r\n");
                    format!("{out}{:x}\r\n{body}\r\n0\r\n\r\n", body.len()).into_bytes()
                } else {
                    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
                    format!("{out}{body}").into_bytes()
                };
                if cut_it {
                    bytes.truncate(cut);
                }
                bytes
            },
        )
}

fn request() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => request_parts(),
        1 => proptest::collection::vec(any::<u8>(), 0..600),
        1 => (request_parts(), proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)).prop_map(
            |(mut bytes, edits)| {
                for (at, b) in edits {
                    if !bytes.is_empty() {
                        let i = at % bytes.len();
                        bytes[i] = b;
                    }
                }
                bytes
            },
        ),
    ]
}

#[test]
fn any_request_gets_a_known_status_or_a_close_in_time() {
    let config = ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(14_005),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let seen = std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new());
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let res = runner.run(&request(), |raw| {
        let got = runtime().block_on(exchange(raw));
        let text = String::from_utf8_lossy(&got);
        prop_assert!(!text.contains(CANARY));
        // `expect: 100-continue` is answered first; the final status follows.
        let text = text.trim_start_matches("HTTP/1.1 100 Continue\r\n\r\n");
        let outcome = if let Some(status) = text.strip_prefix("HTTP/1.1 ").and_then(|t| t.get(..3))
        {
            prop_assert!(STATUSES.contains(&status), "status {}", status);
            status.to_string()
        } else {
            // Nothing, or not HTTP/1.1: the connection was closed without a reply (hyper does
            // that for heads it cannot parse, and for HTTP/2's preface).
            prop_assert!(got.is_empty() || text.starts_with("HTTP/1.0 "), "{}", text);
            "closed".to_string()
        };
        *seen.lock().unwrap().entry(outcome).or_default() += 1;
        Ok(())
    });
    if let Err(e) = res {
        panic!("{e}");
    }
    // The run reached every stage: the model (200), each refusal, and the closes.
    let seen = seen.into_inner().unwrap();
    eprintln!("outcomes: {seen:?}");
    for outcome in [
        "200", "400", "404", "405", "409", "413", "415", "422", "closed",
    ] {
        assert!(seen.contains_key(outcome), "no {outcome} in {seen:?}");
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
    })
}

/// The proxy (over the demo index, in front of a fake that answers at once), made once.
async fn proxy() -> &'static (Proxy, String) {
    static PROXY: tokio::sync::OnceCell<(Proxy, String)> = tokio::sync::OnceCell::const_new();
    PROXY
        .get_or_init(|| async {
            let good = reply(true, &[("You have 30 days from the day of delivery", 0)]);
            let fake = Fake::start(move |_, _| Reply::json(&good)).await;
            // The proxy opens its run log once, in `Proxy::new`, and keeps the handle: the
            // directory can go when this block ends (a static never drops), and the log
            // lines go to the unlinked file.
            let log_dir = tempfile::Builder::new()
                .prefix("onrecord-proxy-fuzz-")
                .tempdir()
                .expect("temp dir");
            let mut cfg = test_config(&fake.url, log_dir.path().join("run.jsonl"));
            cfg.header_timeout = Duration::from_millis(300);
            cfg.allow_origin = Some("https://docs.example".into());
            std::mem::forget(fake);
            let proxy = Proxy::new(&demo().0, cfg).expect("proxy starts");
            let hash = proxy.corpus_hash().to_string();
            (proxy, hash)
        })
        .await
}

/// Stands for the proxy's corpus hash in generated requests: as long as the hash, so that
/// swapping it in keeps every length header right.
const HASH: &str = "HASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASHHASH";

/// Sends `raw` (with the real corpus hash in place of [`HASH`]) on a fresh in-memory
/// connection and returns what the proxy wrote: everything until it closed the connection, or
/// until it fell silent for a moment after replying. (The sending side stays open: a client
/// that half-closes is taken to have left, and its request is dropped.)
async fn exchange(raw: Vec<u8>) -> Vec<u8> {
    let (proxy, hash) = proxy().await;
    let raw = String::from_utf8_lossy(&raw)
        .replace(HASH, hash)
        .into_bytes();
    let (mut client, server) = tokio::io::duplex(64 * 1024);
    let peer: SocketAddr = "192.0.2.7:5000".parse().expect("address");
    let served = proxy.serve_connection(server, peer);
    let talk = async move {
        let _ = client.write_all(&raw).await;
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let wait = if got.is_empty() { 5_000 } else { 50 };
            match tokio::time::timeout(Duration::from_millis(wait), client.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => got.extend_from_slice(&buf[..n]),
                // Closed, or silent after (or long before) a reply.
                _ => break,
            }
        }
        drop(client);
        got
    };
    let (got, ()) = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::join!(talk, served)
    })
    .await
    .expect("the proxy answers or closes within 10 s");
    got
}
