//! Issue 14, item 5: slow, idle and surplus connections are closed, on loopback TCP.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use onrecord_proxy::Proxy;
use support::fake_upstream::{Fake, Reply};
use support::harness::{Harness, demo, frag_with, start, test_config};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn addr(h: &Harness) -> SocketAddr {
    h.url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .and_then(|a| a.parse().ok())
        .expect("proxy address")
}

fn bikes() -> u32 {
    frag_with(&demo().1, "30 days from the day")
}

/// A complete request for `question`.
fn request(h: &Harness, question: &str) -> Vec<u8> {
    let body = h.body(question, &[bikes()]).to_string();
    format!(
        "POST /v1/summary HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads until the proxy closes the connection (or `limit` passes); what it sent, and whether
/// it closed.
async fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline.into(), s.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&got).into(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into(), true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// The header timeout in these tests, and how long a loaded CI machine may take beyond it.
const HEADER_TIMEOUT: Duration = Duration::from_millis(500);
const SLACK: Duration = Duration::from_millis(2500);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_idle_and_kept_alive_connections_are_closed_by_the_header_timeout() {
    let h = start(
        |_, _| Reply::Hang,
        |c| {
            c.header_timeout = HEADER_TIMEOUT;
            c.max_connections = 1000;
            c.max_connections_per_client = 1000;
        },
    )
    .await;
    let addr = addr(&h);
    let started = Instant::now();
    let mut clients = Vec::new();
    // 100 that send nothing and 100 that trickle their headers a byte every 100 ms.
    for i in 0..200 {
        let mut s = TcpStream::connect(addr).await.expect("connect");
        clients.push(tokio::spawn(async move {
            if i % 2 == 1 {
                let head = b"POST /v1/summary HTTP/1.1\r\nhost: x\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
                for b in head {
                    if s.write_all(&[*b]).await.is_err() {
                        break;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                        (_, closed) = read_until_closed(&mut s, Duration::from_secs(30)) => {
                            assert!(closed);
                            return Instant::now();
                        }
                    }
                }
            }
            let (_, closed) = read_until_closed(&mut s, HEADER_TIMEOUT + SLACK * 2).await;
            assert!(closed, "connection {i} still open");
            Instant::now()
        }));
    }
    for c in clients {
        let closed_at = c.await.expect("client task");
        let took = closed_at - started;
        assert!(took < HEADER_TIMEOUT + SLACK, "closed only after {took:?}");
    }
    // A connection that made one request and then idles is closed too.
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(b"GET /v1/summary HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .expect("write");
    let mut head = [0u8; 12];
    s.read_exact(&mut head).await.expect("a reply");
    assert_eq!(&head, b"HTTP/1.1 405");
    let t = Instant::now();
    let (_, closed) = read_until_closed(&mut s, HEADER_TIMEOUT + SLACK * 2).await;
    assert!(
        closed && t.elapsed() < HEADER_TIMEOUT + SLACK,
        "{:?}",
        t.elapsed()
    );
    assert_eq!(h.fake.calls(), 0);
}

/// Opens `n` connections from `from` whose requests are waiting on the (hanging) model.
async fn busy(h: &Harness, from: &str, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::new();
    let before = h.fake.calls();
    for i in 0..n {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind(format!("{from}:0").parse().expect("address"))
            .expect("bind");
        let mut s = socket.connect(addr(h)).await.expect("connect");
        s.write_all(&request(h, &format!("busy question {from} {i}")))
            .await
            .expect("write");
        held.push(s);
    }
    // Each request reaching the model proves its connection was accepted.
    let t = Instant::now();
    while h.fake.calls() < before + n && t.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(h.fake.calls(), before + n);
    held
}

async fn exchange_from(h: &Harness, from: &str, question: &str) -> String {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(format!("{from}:0").parse().expect("address"))
        .expect("bind");
    let mut s = socket.connect(addr(h)).await.expect("connect");
    let _ = s.write_all(&request(h, question)).await;
    read_until_closed(&mut s, Duration::from_secs(10)).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_over_the_cap_gets_503_and_is_closed() {
    let h = start(
        |_, _| Reply::Hang,
        |c| {
            c.max_connections = 4;
            c.max_connections_per_client = 100;
            c.header_timeout = Duration::from_secs(30);
            c.upstream.response_timeout = Duration::from_secs(30);
            c.upstream.deadline = Duration::from_secs(30);
        },
    )
    .await;
    let mut held = busy(&h, "127.0.0.1", 4).await;
    let refused = exchange_from(&h, "127.0.0.1", "one too many").await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("retry-after: 1"), "{refused}");
    let (_, body) = refused.split_once("\r\n\r\n").expect("a head and a body");
    assert_eq!(body, "{\"error\":\"too many connections; try again\"}");
    assert_eq!(
        h.fake.calls(),
        4,
        "the refused request never reached the model"
    );
    // A place comes free when a connection ends.
    drop(held.pop());
    let t = Instant::now();
    loop {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        let mut s = socket.connect(addr(&h)).await.expect("connect");
        s.write_all(&request(&h, "now there is room"))
            .await
            .expect("write");
        let mut head = [0u8; 12];
        let answered =
            tokio::time::timeout(Duration::from_millis(300), s.read_exact(&mut head)).await;
        if answered.is_err() {
            // Not refused: it waits on the model like the others.
            break;
        }
        assert_eq!(&head, b"HTTP/1.1 503");
        assert!(t.elapsed() < Duration::from_secs(5), "no place came free");
    }
    let t = Instant::now();
    while h.fake.calls() < 5 && t.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(h.fake.calls(), 4 + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_place() {
    let h = start(
        |_, _| Reply::Hang,
        |c| {
            c.max_connections = 100;
            c.max_connections_per_client = 2;
            c.header_timeout = Duration::from_secs(30);
            c.upstream.response_timeout = Duration::from_secs(30);
            c.upstream.deadline = Duration::from_secs(30);
        },
    )
    .await;
    let _held = busy(&h, "127.0.0.1", 2).await;
    let refused = exchange_from(&h, "127.0.0.1", "a third from here").await;
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    // Another address still gets in (Linux routes all of 127/8 to loopback).
    let _other = busy(&h, "127.0.0.2", 2).await;
    assert_eq!(h.fake.calls(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_nobody_reads_closes_the_connection_and_ends_the_model_call() {
    let fake = Fake::start(|_, _| Reply::Trickle {
        every: Duration::from_millis(10),
    })
    .await;
    // Removed when the test ends.
    let log_dir = tempfile::Builder::new()
        .prefix("onrecord-stall-")
        .tempdir()
        .expect("temp dir");
    let mut cfg = test_config(&fake.url, log_dir.path().join("run.jsonl"));
    cfg.write_timeout = Duration::from_millis(300);
    cfg.upstream.deadline = Duration::from_secs(30);
    cfg.upstream.idle_timeout = Duration::from_secs(30);
    let proxy = Proxy::new(&demo().0, cfg).expect("proxy starts");
    let corpus_hash = proxy.corpus_hash().to_string();
    // An in-memory pipe holding 256 bytes: the reply's writes wait once it is full.
    let (mut client, server) = tokio::io::duplex(256);
    let peer: SocketAddr = "192.0.2.1:4000".parse().expect("address");
    let served = tokio::spawn(async move { proxy.serve_connection(server, peer).await });
    let body = serde_json::json!({
        "indexVersion": onrecord_core::FORMAT_VERSION,
        "corpusHash": corpus_hash,
        "question": "How many days do I have to return a bike?",
        "fragments": [bikes()],
    })
    .to_string();
    client
        .write_all(
            format!(
                "POST /v1/summary HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .expect("write");
    // Never read. The model streams; the pipe fills; the write waits; the connection ends.
    let t = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("the connection ended")
        .expect("no panic");
    assert!(t.elapsed() >= Duration::from_millis(300));
    let t = Instant::now();
    while fake.open() > 0 && t.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(fake.calls(), 1);
    assert_eq!(
        fake.open(),
        0,
        "the model call goes on after the connection ended"
    );
}
