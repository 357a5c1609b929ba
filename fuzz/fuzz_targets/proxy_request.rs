//! The proxy's request parsing: the input is what a client sends on one connection. The proxy,
//! over the fixture index and an upstream that cannot be reached, must answer with one of its
//! statuses or close, within seconds, and never panic. The client keeps its side open (a
//! half-close counts as leaving, and the request would be dropped) and stops reading after a
//! pause; the runtime's clock is paused, so pauses and timeouts cost no real time.
#![no_main]

use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use onrecord_proxy::{Config, Proxy, UpstreamConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const STATUSES: &[&str] = &[
    "100", "200", "204", "400", "404", "405", "408", "409", "413", "415", "422", "429", "431",
    "502", "503", "504",
];

fn proxy() -> &'static Proxy {
    static PROXY: OnceLock<Proxy> = OnceLock::new();
    PROXY.get_or_init(|| {
        let upstream = UpstreamConfig::standard("http://127.0.0.1:9/v1".into(), "m".into(), None);
        let mut cfg = Config::standard(upstream);
        cfg.header_timeout = Duration::from_millis(200);
        cfg.body_timeout = Duration::from_millis(200);
        cfg.cache_bytes = 0;
        let bytes = onrecord_fuzz::fixture().to_bytes([1; 32]).expect("encodes");
        Proxy::new(&bytes, cfg).expect("proxy starts")
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("runtime")
    })
}

fuzz_target!(|data: &[u8]| {
    let data = data.to_vec();
    let got = runtime().block_on(async move {
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let peer: SocketAddr = "192.0.2.9:4000".parse().expect("address");
        let talk = async move {
            let _ = client.write_all(&data).await;
            let mut got = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let wait = Duration::from_millis(if got.is_empty() { 5_000 } else { 50 });
                match tokio::time::timeout(wait, client.read(&mut buf)).await {
                    Ok(Ok(n)) if n > 0 => got.extend_from_slice(&buf[..n]),
                    _ => break,
                }
            }
            drop(client);
            got
        };
        let served = proxy().serve_connection(server, peer);
        tokio::time::timeout(Duration::from_secs(10), async {
            tokio::join!(talk, served).0
        })
        .await
        .expect("the proxy answers or closes in time")
    });
    let text = String::from_utf8_lossy(&got);
    if let Some(status) = text.strip_prefix("HTTP/1.1 ").and_then(|t| t.get(..3)) {
        assert!(STATUSES.contains(&status), "status {status}");
    }
});
