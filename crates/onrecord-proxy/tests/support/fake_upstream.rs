//! A scriptable fake OpenAI-compatible upstream that misbehaves on purpose.
//!
//! Raw HTTP/1.1 over tokio, so that it can do what a real server library would not: hang
//! before or after headers, trickle, stream forever, reset the connection, send garbage. It
//! records every request and counts open connections. Shared by the integration tests and the
//! `fake_upstream` example (benchmarks, end-to-end tests).
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

/// What the fake does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 SSE: `content` cut into `pieces` deltas `pace` apart, a `finish_reason`, `[DONE]`.
    Stream {
        content: String,
        pieces: usize,
        pace: Duration,
        finish: Option<&'static str>,
        done: bool,
    },
    /// 200 `application/json`, one whole (non-streamed) completion.
    Whole(String),
    /// A status with an optional `Retry-After` and a body.
    Status {
        code: u16,
        retry_after: Option<&'static str>,
        body: String,
    },
    /// Reads the request and never answers.
    Hang,
    /// Sends 200 SSE headers, then nothing.
    HangAfterHeaders,
    /// One short delta every `every`, forever.
    Trickle { every: Duration },
    /// Deltas as fast as the proxy reads them, forever.
    Endless,
    /// `events` deltas, then a TCP reset.
    ResetAfter { events: usize },
    /// 200 with this content type and these bytes (chunked).
    Raw {
        content_type: &'static str,
        body: Vec<u8>,
    },
    /// 200 with these bytes, written `piece` bytes at a time (splitting UTF-8 characters and
    /// lines across reads).
    Dribble {
        content_type: &'static str,
        body: Vec<u8>,
        piece: usize,
    },
    /// Waits, then replies.
    Delayed(Duration, Box<Reply>),
}

impl Reply {
    /// A well-behaved streamed reply carrying `content`.
    pub fn json(content: &Value) -> Reply {
        Reply::Stream {
            content: content.to_string(),
            pieces: 4,
            pace: Duration::ZERO,
            finish: Some("stop"),
            done: true,
        }
    }

    /// A streamed reply with this exact text as the model's output.
    pub fn text(content: &str) -> Reply {
        Reply::Stream {
            content: content.to_string(),
            pieces: 3,
            pace: Duration::ZERO,
            finish: Some("stop"),
            done: true,
        }
    }
}

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub head: String,
    pub body: Value,
}

pub type Script = dyn Fn(usize, &Value) -> Reply + Send + Sync;

#[derive(Default)]
pub struct FakeState {
    pub seen: Mutex<Vec<Seen>>,
    pub open: AtomicUsize,
    pub accepted: AtomicUsize,
}

/// A running fake. Dropping it does not stop the listener task; tests are short-lived.
pub struct Fake {
    pub url: String,
    pub state: Arc<FakeState>,
}

impl Fake {
    /// Starts on a free loopback port; `script(n, body)` decides the reply to the n-th call.
    pub async fn start(script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake");
        Fake::serve(listener, Arc::new(script))
    }

    pub fn serve(listener: TcpListener, script: Arc<Script>) -> Fake {
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let state = Arc::new(FakeState::default());
        let st = state.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                st.accepted.fetch_add(1, Ordering::SeqCst);
                st.open.fetch_add(1, Ordering::SeqCst);
                let (st, script) = (st.clone(), script.clone());
                tokio::spawn(async move {
                    let _ = connection(stream, &st, &*script).await;
                    st.open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Fake { url, state }
    }

    /// Requests received so far.
    pub fn calls(&self) -> usize {
        self.state.seen.lock().unwrap().len()
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// Connections currently open.
    pub fn open(&self) -> usize {
        self.state.open.load(Ordering::SeqCst)
    }
}

async fn connection(stream: TcpStream, st: &FakeState, script: &Script) -> std::io::Result<()> {
    let (mut r, mut w) = stream.into_split();
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let Some((head, body)) = read_request(&mut r, &mut buf).await? else {
            return Ok(());
        };
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let n = {
            let mut seen = st.seen.lock().unwrap();
            seen.push(Seen {
                head,
                body: body.clone(),
            });
            seen.len() - 1
        };
        let reply = script(n, &body);
        if !respond(reply, &mut r, &mut w).await? {
            return Ok(());
        }
    }
}

/// Reads one request (headers and a `Content-Length` body); `None` at a clean end.
async fn read_request(
    r: &mut OwnedReadHalf,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<(String, Vec<u8>)>> {
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = r.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_string();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    buf.drain(..end + 4);
    while buf.len() < len {
        let n = r.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf.drain(..len).collect();
    Ok(Some((head, body)))
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";

fn delta(text: &str) -> String {
    let event =
        json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    format!("data: {event}\n\n")
}

async fn chunk(w: &mut OwnedWriteHalf, data: &[u8]) -> std::io::Result<()> {
    w.write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    w.write_all(data).await?;
    w.write_all(b"\r\n").await?;
    w.flush().await
}

/// Sends `reply`; `Ok(true)` when the connection can take another request.
fn respond<'a>(
    reply: Reply,
    r: &'a mut OwnedReadHalf,
    w: &'a mut OwnedWriteHalf,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = std::io::Result<bool>> + Send + 'a>> {
    Box::pin(async move {
        match reply {
            Reply::Stream {
                content,
                pieces,
                pace,
                finish,
                done,
            } => {
                w.write_all(SSE_HEAD.as_bytes()).await?;
                let chars: Vec<char> = content.chars().collect();
                let size = chars.len().div_ceil(pieces.max(1)).max(1);
                for part in chars.chunks(size) {
                    let part: String = part.iter().collect();
                    chunk(w, delta(&part).as_bytes()).await?;
                    if !pace.is_zero() {
                        tokio::time::sleep(pace).await;
                    }
                }
                if let Some(reason) = finish {
                    let event =
                        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]});
                    chunk(w, format!("data: {event}\n\n").as_bytes()).await?;
                }
                if done {
                    chunk(w, b"data: [DONE]\n\n").await?;
                }
                w.write_all(b"0\r\n\r\n").await?;
                Ok(true)
            }
            Reply::Whole(content) => {
                let body = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}).to_string();
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                w.write_all(head.as_bytes()).await?;
                w.write_all(body.as_bytes()).await?;
                Ok(true)
            }
            Reply::Status {
                code,
                retry_after,
                body,
            } => {
                let retry = retry_after
                    .map(|s| format!("retry-after: {s}\r\n"))
                    .unwrap_or_default();
                let head = format!(
                    "HTTP/1.1 {code} Whatever\r\ncontent-type: application/json\r\n{retry}content-length: {}\r\n\r\n",
                    body.len()
                );
                w.write_all(head.as_bytes()).await?;
                w.write_all(body.as_bytes()).await?;
                Ok(true)
            }
            Reply::Hang => {
                // Wait until the proxy gives up and closes.
                let mut b = [0u8; 1];
                while r.read(&mut b).await? > 0 {}
                Ok(false)
            }
            Reply::HangAfterHeaders => {
                w.write_all(SSE_HEAD.as_bytes()).await?;
                let mut b = [0u8; 1];
                while r.read(&mut b).await? > 0 {}
                Ok(false)
            }
            Reply::Trickle { every } => {
                w.write_all(SSE_HEAD.as_bytes()).await?;
                chunk(w, delta("{\"found\": true, \"answer\": \"").as_bytes()).await?;
                loop {
                    let mut b = [0u8; 1];
                    tokio::select! {
                        n = r.read(&mut b) => if n? == 0 { return Ok(false) },
                        () = tokio::time::sleep(every) => chunk(w, delta("la ").as_bytes()).await?,
                    }
                }
            }
            Reply::Endless => {
                w.write_all(SSE_HEAD.as_bytes()).await?;
                chunk(w, delta("{\"found\": true, \"answer\": \"").as_bytes()).await?;
                let many = delta("more and more words ").repeat(50);
                loop {
                    chunk(w, many.as_bytes()).await?;
                }
            }
            Reply::ResetAfter { events } => {
                w.write_all(SSE_HEAD.as_bytes()).await?;
                for _ in 0..events {
                    chunk(w, delta("{\"found\": tr").as_bytes()).await?;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                Err(std::io::Error::other("reset"))
            }
            Reply::Raw { content_type, body } => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n"
                );
                w.write_all(head.as_bytes()).await?;
                if !body.is_empty() {
                    chunk(w, &body).await?;
                }
                w.write_all(b"0\r\n\r\n").await?;
                Ok(true)
            }
            Reply::Dribble {
                content_type,
                body,
                piece,
            } => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n"
                );
                w.write_all(head.as_bytes()).await?;
                for part in body.chunks(piece.max(1)) {
                    chunk(w, part).await?;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                w.write_all(b"0\r\n\r\n").await?;
                Ok(true)
            }
            Reply::Delayed(wait, reply) => {
                tokio::time::sleep(wait).await;
                respond(*reply, r, w).await
            }
        }
    })
}

/// The passages and the question in a captured request, as the prompt lays them out:
/// `(fragment id, passage text)` and the question.
pub fn prompt_parts(body: &Value) -> (Vec<(u32, String)>, String) {
    let user = body["messages"][1]["content"].as_str().unwrap_or("");
    let mut passages = Vec::new();
    let mut rest = user;
    while let Some(start) = rest.find("<<<PASSAGE ") {
        let after = &rest[start + "<<<PASSAGE ".len()..];
        let Some(close) = after.find(">>>\n") else {
            break;
        };
        let id: u32 = after[..close].parse().unwrap_or(u32::MAX);
        let inner = &after[close + 4..];
        let end_marker = format!("\n<<<END PASSAGE {id}>>>");
        let Some(end) = inner.find(&end_marker) else {
            break;
        };
        // The first line is "title › section"; the text follows.
        let text = inner[..end].split_once('\n').map_or("", |(_, t)| t);
        passages.push((id, text.to_string()));
        rest = &inner[end + end_marker.len()..];
    }
    let question = user
        .rsplit_once("passages above):\n")
        .map_or("", |(_, q)| q)
        .to_string();
    (passages, question)
}
