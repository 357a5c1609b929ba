//! A real proxy on a loopback port in front of a fake upstream, with short test timeouts.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use build_index::{Options, build};
use onrecord_core::{FORMAT_VERSION, Index};
use onrecord_proxy::{ApiKey, Config, Proxy, Rate, UpstreamConfig};
use serde_json::{Value, json};

use super::fake_upstream::{Fake, Reply};

/// The canary key: it must never appear in any response, log line or `Debug` output.
pub const CANARY: &str = "sk-CANARY-3f9c2a7e-5d1b-4e8a-9c0f-71b2d6e4a8c3";

pub fn built(dir: &Path) -> (Vec<u8>, Index) {
    let b = build(dir, &Options::standard()).expect("corpus builds");
    (b.bytes, b.index)
}

/// The demo corpus index, built once per test binary.
pub fn demo() -> &'static (Vec<u8>, Index) {
    static DEMO: OnceLock<(Vec<u8>, Index)> = OnceLock::new();
    DEMO.get_or_init(|| built(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")))
}

/// The id of the first fragment whose text contains `needle`.
pub fn frag_with(index: &Index, needle: &str) -> u32 {
    index
        .fragments
        .iter()
        .position(|f| f.text.contains(needle))
        .unwrap_or_else(|| panic!("no fragment contains {needle:?}")) as u32
}

/// Timeouts short enough that every fault test ends in well under a second.
pub fn test_config(upstream: &str, run_log: PathBuf) -> Config {
    let mut up = UpstreamConfig::standard(
        upstream.to_string(),
        "fixed-model".into(),
        Some(ApiKey::new(CANARY.into())),
    );
    up.max_tokens = 300;
    up.connect_timeout = Duration::from_millis(300);
    up.response_timeout = Duration::from_millis(400);
    up.idle_timeout = Duration::from_millis(300);
    up.deadline = Duration::from_millis(900);
    up.max_output_bytes = 4096;
    up.backoff = Duration::from_millis(10);
    up.backoff_max = Duration::from_millis(40);
    up.max_retry_after = Duration::from_secs(1);
    let mut cfg = Config::standard(up);
    cfg.per_client = Rate {
        burst: 1000,
        per_sec: 1000.0,
    };
    cfg.global = Rate {
        burst: 1000,
        per_sec: 1000.0,
    };
    cfg.body_timeout = Duration::from_millis(300);
    cfg.run_log = Some(run_log);
    cfg
}

pub struct Harness {
    pub url: String,
    pub fake: Fake,
    pub hash: String,
    pub log: PathBuf,
    pub bytes: &'static [u8],
    pub index: &'static Index,
    pub client: reqwest::Client,
    /// Holds `log`; removed when the harness drops. The proxy keeps its file handle open, so a
    /// task still running then writes to an unlinked file rather than failing.
    _log_dir: tempfile::TempDir,
}

pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| panic!("not JSON: {}", self.text))
    }
}

/// A fresh directory for one harness's run log, removed when it drops.
fn temp_log_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("onrecord-proxy-test-")
        .tempdir()
        .expect("temp dir")
}

/// Starts a fake with `script` and a proxy over the demo index in front of it.
pub async fn start(
    script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
    tweak: impl FnOnce(&mut Config),
) -> Harness {
    let (bytes, index) = demo();
    start_over(bytes, index, script, tweak).await
}

pub async fn start_over(
    bytes: &'static [u8],
    index: &'static Index,
    script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
    tweak: impl FnOnce(&mut Config),
) -> Harness {
    let proxy = |cfg| Proxy::new(bytes, cfg).expect("proxy starts");
    start_with(proxy, bytes, index, script, tweak).await
}

/// As [`start_over`], the proxy made by `proxy` from the test configuration.
pub async fn start_with(
    proxy: impl FnOnce(Config) -> Proxy,
    bytes: &'static [u8],
    index: &'static Index,
    script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static,
    tweak: impl FnOnce(&mut Config),
) -> Harness {
    let fake = Fake::start(script).await;
    let log_dir = temp_log_dir();
    let log = log_dir.path().join("run.jsonl");
    let mut cfg = test_config(&fake.url, log.clone());
    tweak(&mut cfg);
    let proxy = proxy(cfg);
    let hash = proxy.corpus_hash().to_string();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("addr");
    tokio::spawn(proxy.serve(listener, std::future::pending()));
    Harness {
        url: format!("http://{addr}/v1/summary"),
        fake,
        hash,
        log,
        bytes,
        index,
        client: reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client"),
        _log_dir: log_dir,
    }
}

impl Harness {
    pub fn body(&self, question: &str, fragments: &[u32]) -> Value {
        json!({
            "indexVersion": FORMAT_VERSION,
            "corpusHash": self.hash,
            "question": question,
            "fragments": fragments,
        })
    }

    pub async fn post_raw(&self, content_type: &str, accept: &str, body: Vec<u8>) -> Resp {
        let r = self
            .client
            .post(&self.url)
            .header("content-type", content_type)
            .header("accept", accept)
            .body(body)
            .send()
            .await
            .expect("proxy answers");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let text = r.text().await.unwrap_or_default();
        Resp {
            status,
            headers,
            text,
        }
    }

    pub async fn post(&self, body: &Value) -> Resp {
        self.post_raw(
            "application/json",
            "application/json",
            body.to_string().into_bytes(),
        )
        .await
    }

    pub async fn ask(&self, question: &str, fragments: &[u32]) -> Resp {
        self.post(&self.body(question, fragments)).await
    }

    /// Asks with `Accept: text/event-stream`; returns the events in order.
    pub async fn ask_sse(&self, question: &str, fragments: &[u32]) -> Vec<(String, Value)> {
        let body = self.body(question, fragments).to_string().into_bytes();
        let r = self
            .post_raw("application/json", "text/event-stream", body)
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        sse_events(&r.text)
    }

    /// The proxy's contract: every claim is the exact bytes of a sent fragment at its offsets.
    pub fn assert_verified(&self, summary: &Value, sent: &[u32]) {
        let claims = summary["claims"].as_array().expect("claims");
        for c in claims {
            let id = c["fragment"].as_u64().expect("fragment") as u32;
            assert!(sent.contains(&id), "claim cites unsent fragment {id}");
            let frag = &self.index.fragments[id as usize].text;
            let (s, e) = (
                c["start"].as_u64().unwrap() as usize,
                c["end"].as_u64().unwrap() as usize,
            );
            assert_eq!(
                frag.get(s..e),
                c["text"].as_str(),
                "claim not at its offsets"
            );
        }
        if summary["mode"] == "not-found" {
            assert!(claims.is_empty(), "a decline cites nothing");
        }
        assert!(summary.get("answer").is_none(), "model wording never kept");
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

pub fn sse_events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut name = String::new();
            let mut data = Value::Null;
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = n.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(d).expect("event data is JSON");
                }
            }
            (name, data)
        })
        .collect()
}

/// A model reply object.
pub fn reply(found: bool, claims: &[(&str, u32)]) -> Value {
    json!({
        "found": found,
        "answer": "A short answer.",
        "claims": claims.iter().map(|(q, f)| json!({"quote": q, "fragment": f})).collect::<Vec<_>>(),
    })
}
